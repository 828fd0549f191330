package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The reads every analyst asks for: an entity's relations as a list and as a timeline, the sources and
// what cites them, and the size of the graph.

// RelationRef names a relation, its type and its ends, without its claims.
type RelationRef struct {
	Name     RelationName
	Type     RelationType
	From, To EntityName
}

// SourceClaim is a claim seen from its source, with the relation it backs.
type SourceClaim struct {
	Claim    Claim // Source is empty: it is the source asked about
	Relation RelationRef
}

// SourceInfo is a source, how many claims cite it, and some of them.
type SourceInfo struct {
	Source     Source
	ClaimCount int
	Claims     []SourceClaim
}

// SourceQuery asks for one page of sources.
type SourceQuery struct {
	Kind          SourceKind // empty: every kind
	Outlet        string     // empty: every outlet; else exactly this one
	Offset, Limit int
}

// SourceSummary is a source and how many claims cite it.
type SourceSummary struct {
	Source     Source
	ClaimCount int
}

// GraphStats is what the graph holds, counted from one snapshot.
type GraphStats struct {
	Counts          Counts
	EntitiesByKind  map[Kind]int
	RelationsByType map[RelationType]int
	ClaimsByStatus  map[ClaimStatus]int
	SourcesByKind   map[SourceKind]int
	Version         int64
	// WrittenAt is when the version was last raised; zero for a graph last written before it was recorded.
	WrittenAt time.Time
}

// SourceKinds lists every source kind.
var SourceKinds = []SourceKind{SourceArticle, SourceSocialPost, SourceDataset, SourceOther}

// Direction says which end of its relations an entity must be.
type Direction string

// The directions.
const (
	DirectionAny Direction = ""
	// DirectionOutgoing: the entity is the relation's `from` end (either end of a symmetric relation).
	DirectionOutgoing Direction = "OUTGOING"
	// DirectionIncoming: the entity is the relation's `to` end (either end of a symmetric relation).
	DirectionIncoming Direction = "INCOMING"
)

// Allows reports whether a relation of e's goes the way d asks.
func (d Direction) Allows(l Link, e EntityName) bool {
	switch d {
	case DirectionOutgoing:
		return l.From == e || l.Symmetric
	case DirectionIncoming:
		return l.To == e || l.Symmetric
	}
	return true
}

// Limits on listing reads.
const (
	DefaultRelationsPageSize = 20
	MaxRelationsPageSize     = 100
	DefaultTimelinePageSize  = 50
	MaxTimelinePageSize      = 200
	DefaultSourcePageSize    = 100 // claims of GetSource
	MaxSourcePageSize        = 500
	DefaultSourcesPageSize   = 20 // sources of ListSources
	MaxSourcesPageSize       = 100
)

// checkPageSize reports a page size out of range and returns the size to use.
func checkPageSize(v *Violations, size, def, max int) int {
	if size < 0 || size > max {
		v.Add("page_size", "must be between 0 and %d, got %d", max, size)
	}
	if size == 0 {
		return def
	}
	return size
}

// checkEntityText reports a missing or over-long name of an entity, before Resolve looks for it.
func checkEntityText(v *Violations, field, text string) {
	switch text = strings.TrimSpace(text); {
	case text == "":
		v.Add(field, "required: a resource name such as actors/lutfur-rahman, or a name")
	case len(text) > MaxQueryLength:
		v.Add(field, "%d bytes; at most %d", len(text), MaxQueryLength)
	}
}

// pageBounds returns where a page of size items from offset starts and ends in a list of n, and the
// offset of the next page (0 on the last).
func pageBounds(n, offset, size int) (start, end, next int) {
	start = min(max(offset, 0), n)
	end = min(start+size, n)
	if end < n {
		next = end
	}
	return start, end, next
}

// countedLinks resolves the entity a user means (field names the request field) and returns each of its
// relations that counts under f and goes the way d asks, once, and the source it read them from.
func (s *Service) countedLinks(ctx context.Context, field, text string, f RelationFilter, d Direction) (Entity, []Link, LinkSource, error) {
	r, err := s.sourceAndEntities(ctx, []string{field}, []string{text})
	if err != nil {
		return Entity{}, nil, nil, err
	}
	src, e := r.src, r.ents[0]
	got, err := src.Links(ctx, []EntityName{e.Name})
	if err != nil {
		return Entity{}, nil, nil, err
	}
	seen := map[RelationName]bool{}
	var out []Link
	for _, l := range got[e.Name] {
		if !seen[l.Name] && f.Counts(l) && d.Allows(l, e.Name) {
			seen[l.Name] = true
			out = append(out, l)
		}
	}
	return e, out, src, nil
}

// relationsInOrder fetches the named relations, with all their claims, in the order named (from the
// snapshot src reads when it holds them); a relation the store no longer has is left out.
func (s *Service) relationsInOrder(ctx context.Context, src LinkSource, names []RelationName) ([]Relation, error) {
	if len(names) == 0 {
		return nil, nil
	}
	m, err := s.getRelations(ctx, src, names)
	if err != nil {
		return nil, err
	}
	out := make([]Relation, 0, len(names))
	for _, n := range names {
		if r, ok := m[n]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// RelationsQuery asks for one page of an entity's relations.
type RelationsQuery struct {
	Entity    string // a resource name, or a name or alias naming one entity
	Filter    RelationFilter
	Direction Direction
	PageSize  int // 0: DefaultRelationsPageSize
	Offset    int
}

// RelationsPage is one page of an entity's relations.
type RelationsPage struct {
	Entity     Entity
	Relations  []Relation // with all their claims
	Related    []Entity   // every other entity the relations name, by name
	Total      int        // relations in all pages
	NextOffset int        // 0 on the last page
}

// NewestFirst is the order of ListRelations: dated relations by the first day they hold, latest first (a
// state known only by its end starts before every other), then by name; then undated ones by name.
func NewestFirst(a, b Link) int {
	if a.Dated != b.Dated {
		if a.Dated {
			return -1
		}
		return 1
	}
	if a.Dated {
		if c := cmp.Compare(b.Period.Start, a.Period.Start); c != 0 {
			return c
		}
	}
	return strings.Compare(string(a.Name), string(b.Name))
}

// Validate reports every problem with the query as an Invalid error with field violations.
func (q RelationsQuery) Validate() error {
	var v Violations
	checkEntityText(&v, "entity", q.Entity)
	checkPageSize(&v, q.PageSize, DefaultRelationsPageSize, MaxRelationsPageSize)
	switch q.Direction {
	case DirectionAny, DirectionOutgoing, DirectionIncoming:
	default:
		v.Add("direction", "%q is not a direction (want OUTGOING or INCOMING)", truncate(string(q.Direction), 40))
	}
	q.Filter.Validate("filter.", &v)
	return v.Err("ListRelations", "invalid relations query")
}

// ListRelations returns one page of the entity's relations that count under the filter and go the way
// asked, NewestFirst, each with all its claims.
func (s *Service) ListRelations(ctx context.Context, q RelationsQuery) (RelationsPage, error) {
	if err := q.Validate(); err != nil {
		return RelationsPage{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = DefaultRelationsPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	e, links, src, err := s.countedLinks(ctx, "entity", q.Entity, q.Filter, q.Direction)
	if err != nil {
		return RelationsPage{}, err
	}
	slices.SortFunc(links, NewestFirst)
	start, end, next := pageBounds(len(links), q.Offset, q.PageSize)
	names := make([]RelationName, 0, end-start)
	for _, l := range links[start:end] {
		names = append(names, l.Name)
	}
	rels, err := s.relationsInOrder(ctx, src, names)
	if err != nil {
		return RelationsPage{}, err
	}
	related, err := s.related(ctx, e.Name, rels)
	if err != nil {
		return RelationsPage{}, err
	}
	return RelationsPage{Entity: e, Relations: rels, Related: related, Total: len(links), NextOffset: next}, nil
}

// related returns every entity the relations name (ends, via) but e, by name.
func (s *Service) related(ctx context.Context, e EntityName, rels []Relation) ([]Entity, error) {
	var names []EntityName
	for _, r := range rels {
		names = append(names, r.From, r.To, r.Via)
	}
	return s.entities(ctx, nil, slices.DeleteFunc(names, func(n EntityName) bool { return n == e }))
}

// TimelineQuery asks for one page of an entity's timeline.
type TimelineQuery struct {
	Entity   string // a resource name, or a name or alias naming one entity
	Filter   RelationFilter
	PageSize int // 0: DefaultTimelinePageSize
	Offset   int // in the dated relations, then the undated ones
}

// TimelineEntry is a dated relation on a timeline.
type TimelineEntry struct {
	Relation Relation
	// Event is true for an event (a date and no bound), false for a state (a valid_from or a valid_to).
	Event bool
	// Period is when the relation held (Relation.Period).
	Period Period
}

// Timeline is one page of an entity's relations in valid time.
type Timeline struct {
	Entity                   Entity
	Entries                  []TimelineEntry // dated relations, InTimeOrder
	Undated                  []Relation      // by name
	Related                  []Entity        // every other entity the relations name, by name
	TotalDated, TotalUndated int
	NextOffset               int // 0 on the last page
}

// InTimeOrder is the order of a timeline: by the first day a relation held (an event's date, a state's
// start; a state without a start first), then by its last day (a state without an end last), then by
// name. Undated relations, which have no place in it, come last, by name.
func InTimeOrder(a, b Link) int {
	if a.Dated != b.Dated {
		if a.Dated {
			return -1
		}
		return 1
	}
	if a.Dated {
		if c := cmp.Or(cmp.Compare(a.Period.Start, b.Period.Start), cmp.Compare(a.Period.End, b.Period.End)); c != 0 {
			return c
		}
	}
	return strings.Compare(string(a.Name), string(b.Name))
}

// Validate reports every problem with the query as an Invalid error with field violations.
func (q TimelineQuery) Validate() error {
	var v Violations
	checkEntityText(&v, "entity", q.Entity)
	checkPageSize(&v, q.PageSize, DefaultTimelinePageSize, MaxTimelinePageSize)
	q.Filter.Validate("filter.", &v)
	return v.Err("GetTimeline", "invalid timeline query")
}

// IsEvent reports whether a relation is an event: it has a date and neither a valid_from nor a valid_to.
func IsEvent(r Relation) bool {
	return r.ValidFrom.IsZero() && r.ValidTo.IsZero() && !r.Date.IsZero()
}

// GetTimeline returns one page of the entity's relations that count under the filter, in valid time:
// the dated ones InTimeOrder, then the undated ones apart, by name.
func (s *Service) GetTimeline(ctx context.Context, q TimelineQuery) (Timeline, error) {
	if err := q.Validate(); err != nil {
		return Timeline{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = DefaultTimelinePageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	e, links, src, err := s.countedLinks(ctx, "entity", q.Entity, q.Filter, DirectionAny)
	if err != nil {
		return Timeline{}, err
	}
	slices.SortFunc(links, InTimeOrder)
	dated := 0
	for dated < len(links) && links[dated].Dated {
		dated++
	}
	start, end, next := pageBounds(len(links), q.Offset, q.PageSize)
	names := make([]RelationName, 0, end-start)
	for _, l := range links[start:end] {
		names = append(names, l.Name)
	}
	rels, err := s.relationsInOrder(ctx, src, names)
	if err != nil {
		return Timeline{}, err
	}
	related, err := s.related(ctx, e.Name, rels)
	if err != nil {
		return Timeline{}, err
	}
	t := Timeline{Entity: e, Related: related, TotalDated: dated, TotalUndated: len(links) - dated, NextOffset: next}
	for _, r := range rels {
		if !r.Dated() {
			t.Undated = append(t.Undated, r)
			continue
		}
		t.Entries = append(t.Entries, TimelineEntry{Relation: r, Event: IsEvent(r), Period: r.Period()})
	}
	return t, nil
}

// checkSourceName reports a name that is not a source's resource name (sources/<slug>).
func checkSourceName(v *Violations, field string, name SourceName) {
	slug, ok := strings.CutPrefix(string(name), "sources/")
	switch {
	case name == "":
		v.Add(field, "required: a source's resource name such as sources/daily-mail-2023-11-03-lutfur-rahman")
	case len(name) > MaxName || !ok || !ValidSlug(slug):
		v.Add(field, "%q is not a source name (sources/<slug>)", truncate(string(name), 80))
	}
}

// SourceRequest asks for a source and one page of the claims that cite it.
type SourceRequest struct {
	Name     SourceName
	PageSize int // claims per page; 0: DefaultSourcePageSize
	Offset   int
}

// Validate reports every problem with the request as an Invalid error with field violations.
func (q SourceRequest) Validate() error {
	var v Violations
	checkSourceName(&v, "name", q.Name)
	checkPageSize(&v, q.PageSize, DefaultSourcePageSize, MaxSourcePageSize)
	return v.Err("GetSource", "invalid source request")
}

// SourcePage is a source, how many claims cite it, and one page of them.
type SourcePage struct {
	SourceInfo
	Related    []Entity // every entity the page's claims name (relations' ends, said_by), by name
	NextOffset int      // 0 on the last page
}

// GetSource returns the source asked for, how many claims cite it, and one page of them (by name), each
// with the relation it backs. It returns NotFound (SOURCE_NOT_FOUND) for an unknown source.
func (s *Service) GetSource(ctx context.Context, q SourceRequest) (SourcePage, error) {
	if err := q.Validate(); err != nil {
		return SourcePage{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = DefaultSourcePageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	q.Offset = max(q.Offset, 0)
	info, err := s.Store.GetSource(ctx, q.Name, q.Offset, q.PageSize)
	if err != nil {
		return SourcePage{}, err
	}
	var names []EntityName
	for _, c := range info.Claims {
		names = append(names, c.Relation.From, c.Relation.To, c.Claim.SaidBy)
	}
	related, err := s.entities(ctx, nil, names)
	if err != nil {
		return SourcePage{}, err
	}
	_, _, next := pageBounds(info.ClaimCount, q.Offset, q.PageSize)
	return SourcePage{SourceInfo: info, Related: related, NextOffset: next}, nil
}

// Validate reports every problem with the query as an Invalid error with field violations (Limit is the
// page size: 0 means DefaultSourcesPageSize).
func (q SourceQuery) Validate() error {
	var v Violations
	if q.Kind != "" && !slices.Contains(SourceKinds, q.Kind) {
		v.Add("kind", "%q is not a source kind", truncate(string(q.Kind), 40))
	}
	if len(q.Outlet) > MaxOutlet {
		v.Add("outlet", "%d bytes; at most %d", len(q.Outlet), MaxOutlet)
	}
	checkPageSize(&v, q.Limit, DefaultSourcesPageSize, MaxSourcesPageSize)
	return v.Err("ListSources", "invalid sources query")
}

// ListSources returns one page of the sources of a kind and outlet (q.Offset and q.Limit are the page;
// a zero Limit is DefaultSourcesPageSize), in name order, each with how many claims cite it, how many
// match in all, and the offset of the next page (0 on the last).
func (s *Service) ListSources(ctx context.Context, q SourceQuery) ([]SourceSummary, int, int, error) {
	if err := q.Validate(); err != nil {
		return nil, 0, 0, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultSourcesPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	q.Offset = max(q.Offset, 0)
	page, total, err := s.Store.ListSources(ctx, q)
	if err != nil {
		return nil, 0, 0, err
	}
	_, _, next := pageBounds(total, q.Offset, q.Limit)
	return page, total, next, nil
}

// GraphStats counts what the graph holds (see Store.Stats).
func (s *Service) GraphStats(ctx context.Context) (GraphStats, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.Store.Stats(ctx)
}

// countLinks counts an entity's relations by type and direction (outgoing: the entity is the `from` end,
// or either end of a symmetric relation), most first.
func countLinks(e EntityName, links []Link) []RelationCount {
	cs := make([]RelationCount, 0, len(links))
	for _, l := range links {
		cs = append(cs, RelationCount{Type: l.Type, Outgoing: l.From == e || l.Symmetric, Count: 1})
	}
	return SumRelationCounts(cs)
}

// MaxBatchGet bounds the names of one BatchGetEntities, and the values of one LookupEntities.
const MaxBatchGet = 1000

// BatchGetEntities returns the entities with these resource names as stored (tombstones included), in
// the order asked, and the names no entity has.
func (s *Service) BatchGetEntities(ctx context.Context, names []string) ([]Entity, []string, error) {
	var v Violations
	if CheckCount(&v, "names", len(names), MaxBatchGet) {
		for i, n := range names {
			if _, err := ParseEntityName(n); err != nil {
				v.Add(fmt.Sprintf("names[%d]", i), "%s is not an entity's resource name (e.g. actors/lutfur-rahman)", quote(truncate(n, 80)))
			}
		}
	}
	if err := v.Err("BatchGetEntities", "invalid request"); err != nil {
		return nil, nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	asked := make([]EntityName, len(names))
	for i, n := range names {
		asked[i] = EntityName(n)
	}
	got, err := s.Store.GetEntities(ctx, asked)
	if err != nil {
		return nil, nil, err
	}
	var found []Entity
	var missing []string
	seen := map[EntityName]bool{}
	for _, n := range asked {
		if seen[n] {
			continue
		}
		seen[n] = true
		if e, ok := got[n]; ok {
			found = append(found, e)
		} else {
			missing = append(missing, string(n))
		}
	}
	return found, missing, nil
}

// IdentifierMatch is an external identifier and the entities that hold it.
type IdentifierMatch struct {
	Value    string
	Entities []Entity
}

// LookupEntities returns, in the order asked, each value of an identifier scheme that entities hold, with
// them.
func (s *Service) LookupEntities(ctx context.Context, scheme string, values []string) ([]IdentifierMatch, error) {
	var v Violations
	switch {
	case strings.TrimSpace(scheme) == "":
		v.Add("scheme", "required: an identifier scheme such as ocd or wikidata")
	case len(scheme) > MaxIdentifierKey:
		v.Add("scheme", "%d bytes; at most %d", len(scheme), MaxIdentifierKey)
	}
	if len(values) == 0 {
		v.Add("values", "required: at least one identifier")
	}
	if CheckCount(&v, "values", len(values), MaxBatchGet) {
		for i, x := range values {
			if strings.TrimSpace(x) == "" || len(x) > MaxIdentifierValue {
				v.Add(fmt.Sprintf("values[%d]", i), "must be 1 to %d bytes", MaxIdentifierValue)
			}
		}
	}
	if err := v.Err("LookupEntities", "invalid request"); err != nil {
		return nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	got, err := s.Store.EntitiesByIdentifier(ctx, scheme, values)
	if err != nil {
		return nil, err
	}
	var out []IdentifierMatch
	seen := map[string]bool{}
	for _, x := range values {
		if es, ok := got[x]; ok && !seen[x] {
			seen[x] = true
			out = append(out, IdentifierMatch{Value: x, Entities: es})
		}
	}
	return out, nil
}
