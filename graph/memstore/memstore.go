// Package memstore is a graph.Store held in memory: the store, its writer, change feed, entity lister,
// via links and tombstones, answering as the Store on Dgraph (graph/dgraph) does, without a database. It
// is for the tests of what reads a store (the service, the gRPC adapter) and for trying polgraph without
// Dgraph; graph/storetest holds the contract both stores pass.
//
// Every write raises the graph's version by one, as the Dgraph store's do: a write of sources or of
// relations always, even of none; a write of entities, or a tombstone, only when it changes something.
// Where the Dgraph store has edges this one does not copy, it says so here:
//
//   - Writes take what they are given without checking it (intake checks it), but the names a relation
//     refers to must be of entities (its ends, via, term and each claim's said_by) and of sources (each
//     claim's source) already written; the Dgraph store accepts a resource of any kind by that name.
//   - An entity written without a kind, or a relation without a type, is read back as written; the Dgraph
//     store keeps it but reads it as no entity (GetEntity, EntityNames, Changes) or no relation.
//   - Aliases are kept as given; the Dgraph store holds them as a set, and loses their order when one
//     repeats.
//   - Writes ignore the tombstones (Deleted, Retracted) and merges (MergedInto) they are given, as the
//     Dgraph store's reads do; the Dgraph store's change feed gives an entity or relation first written
//     with a tombstone as deleted.
//   - Search ranks every live entity (graph.Rank); the Dgraph store ranks at most 100 candidates from each
//     of its index lookups, so among many similar names it may miss some this one finds.
//   - Links, ViaLinks and Changes give relations in the order they were first written, which the Dgraph
//     store's uid order mostly is; ClaimSources gives claims in name order.
//   - A claim written to a second relation moves there, and both relations' headers follow; the Dgraph
//     store moves it too but leaves the first relation's support and verdict, and what its feed gives of
//     it, as they were.
//   - It records no audit trail (a graph.WriteMeta names only a saved view's author, and a tombstone's
//     WriteResult is filled whether or not one is given), holds no bulk loads, and merges no entities.
package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// Store is a graph held in memory, safe for concurrent use. Each read sees one state of the graph, as
// one Dgraph query does.
type Store struct {
	mu        sync.RWMutex
	version   int64
	writtenAt time.Time
	seq       int64 // counts the resources created, for their order

	sources   map[graph.SourceName]*sourceRec
	entities  map[graph.EntityName]*entityRec
	relations map[graph.RelationName]*relationRec
	claimOf   map[string]graph.RelationName // each claim's relation
	// from, to and via index the relations by the entity at each of those places.
	from, to, via map[graph.EntityName]map[graph.RelationName]bool
	judgements    map[string]graph.Judgement // by graph.JudgementName
	views         map[graph.ViewName]graph.SavedView
}

type sourceRec struct {
	src          graph.Source
	seq, changed int64
}

type entityRec struct {
	e            graph.Entity
	seq, changed int64
}

// relationRec is a relation with its claims in name order, each naming its source by name only.
type relationRec struct {
	r            graph.Relation
	seq, changed int64
}

var (
	_ graph.Store        = (*Store)(nil)
	_ graph.Writer       = (*Store)(nil)
	_ graph.ChangeFeed   = (*Store)(nil)
	_ graph.EntityLister = (*Store)(nil)
	_ graph.ViaLinker    = (*Store)(nil)
	_ graph.Tombstones   = (*Store)(nil)
	_ graph.Judgements   = (*Store)(nil)
	_ graph.Views        = (*Store)(nil)
)

// New returns an empty graph, at version 0.
func New() *Store {
	return &Store{
		sources:    map[graph.SourceName]*sourceRec{},
		entities:   map[graph.EntityName]*entityRec{},
		relations:  map[graph.RelationName]*relationRec{},
		claimOf:    map[string]graph.RelationName{},
		from:       map[graph.EntityName]map[graph.RelationName]bool{},
		to:         map[graph.EntityName]map[graph.RelationName]bool{},
		via:        map[graph.EntityName]map[graph.RelationName]bool{},
		judgements: map[string]graph.Judgement{},
		views:      map[graph.ViewName]graph.SavedView{},
	}
}

// live reports, as every method does first, that ctx has ended, as a DeadlineExceeded error.
func live(ctx context.Context, op string) error {
	err := ctx.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the query was cancelled", Err: err}
	}
	return &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the query ran out of time", Err: err}
}

// ApplySchema implements graph.Store: there is no schema to apply.
func (s *Store) ApplySchema(ctx context.Context) error { return live(ctx, "memstore.ApplySchema") }

// Ping implements graph.Store: the graph is always there.
func (s *Store) Ping(ctx context.Context) error { return live(ctx, "memstore.Ping") }

// --- what a write keeps, as the Dgraph store reads it back -------------------------------------------

// date is a fuzzy date as its text keeps it.
func date(d graph.FuzzyDate) graph.FuzzyDate {
	out, _ := graph.ParseFuzzyDate(d.String())
	return out
}

// stored is an entity as a write keeps it: empty lists and maps as none, identifiers and attributes as
// their JSON gives them back, dates as their text does; without a tombstone or a merge.
func stored(e graph.Entity) graph.Entity {
	out := graph.Entity{Name: e.Name, Kind: e.Kind, DisplayName: e.DisplayName, Description: e.Description,
		ValidFrom: date(e.ValidFrom), ValidTo: date(e.ValidTo)}
	if len(e.Aliases) > 0 {
		out.Aliases = slices.Clone(e.Aliases)
	}
	if e.Identifiers.Count() > 0 {
		if b, err := json.Marshal(e.Identifiers); err == nil {
			_ = json.Unmarshal(b, &out.Identifiers)
		}
	}
	if !e.Attributes.IsZero() {
		if b, err := json.Marshal(e.Attributes); err == nil {
			_ = json.Unmarshal(b, &out.Attributes)
		}
	}
	return out
}

// storedSource is a source as a write keeps it.
func storedSource(src graph.Source) graph.Source {
	src.Published, src.Retrieved = date(src.Published), date(src.Retrieved)
	return src
}

// cloneEntity copies an entity's lists, so that a caller cannot change the stored one.
func cloneEntity(e graph.Entity) graph.Entity {
	e.Aliases = slices.Clone(e.Aliases)
	e.Identifiers = e.Identifiers.Clone()
	a := &e.Attributes
	a.Links, a.Images = slices.Clone(a.Links), slices.Clone(a.Images)
	a.ContactDetails, a.OtherNames = slices.Clone(a.ContactDetails), slices.Clone(a.OtherNames)
	return e
}

// --- reads ---------------------------------------------------------------------------------------------

// GetEntity implements graph.Store.
func (s *Store) GetEntity(ctx context.Context, name graph.EntityName) (graph.Entity, error) {
	if err := live(ctx, "memstore.GetEntity"); err != nil {
		return graph.Entity{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec, ok := s.entities[name]
	if !ok {
		return graph.Entity{}, &graph.Error{Op: "GetEntity", Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(name)}
	}
	return cloneEntity(rec.e), nil
}

// GetEntities implements graph.Store.
func (s *Store) GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error) {
	if err := live(ctx, "memstore.GetEntities"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.EntityName]graph.Entity, len(names))
	for _, n := range names {
		if rec, ok := s.entities[n]; ok {
			out[n] = cloneEntity(rec.e)
		}
	}
	return out, nil
}

// byName orders entities by name.
func byName(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) }

// EntitiesByIdentifier implements graph.Store.
func (s *Store) EntitiesByIdentifier(ctx context.Context, scheme string, values []string) (map[string][]graph.Entity, error) {
	if err := live(ctx, "memstore.EntitiesByIdentifier"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	want := map[string]bool{}
	for _, v := range values {
		want[v] = true
	}
	out := map[string][]graph.Entity{}
	for _, rec := range s.entities {
		if !rec.e.Deleted.IsZero() {
			continue
		}
		for _, v := range rec.e.Identifiers[scheme] {
			if want[v] && !slices.ContainsFunc(out[v], func(o graph.Entity) bool { return o.Name == rec.e.Name }) {
				out[v] = append(out[v], cloneEntity(rec.e))
			}
		}
	}
	for _, es := range out {
		slices.SortFunc(es, byName)
	}
	return out, nil
}

// RelationCounts implements graph.Store: the relations not deleted, by type and direction.
func (s *Store) RelationCounts(ctx context.Context, name graph.EntityName) ([]graph.RelationCount, error) {
	if err := live(ctx, "memstore.RelationCounts"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var cs []graph.RelationCount
	for rn := range s.from[name] {
		if r := s.relations[rn].r; r.Deleted.IsZero() {
			cs = append(cs, graph.RelationCount{Type: r.Type, Outgoing: true, Count: 1})
		}
	}
	for rn := range s.to[name] {
		if r := s.relations[rn].r; r.Deleted.IsZero() {
			cs = append(cs, graph.RelationCount{Type: r.Type, Outgoing: r.Type.Symmetric(), Count: 1})
		}
	}
	return graph.SumRelationCounts(cs), nil
}

// findByNameCap is how many entities FindByName reads before it leaves out the deleted ones, as the
// Dgraph store does.
const findByNameCap = 50

// FindByName implements graph.Store: live entities only, in name order, at most 50.
func (s *Store) FindByName(ctx context.Context, text string) ([]graph.Entity, error) {
	if err := live(ctx, "memstore.FindByName"); err != nil {
		return nil, err
	}
	key := graph.NormalizeName(text)
	if key == "" {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found []graph.Entity
	for _, rec := range s.entities {
		if slices.Contains(rec.e.SearchKeys(), key) {
			found = append(found, rec.e)
		}
	}
	slices.SortFunc(found, byName)
	out := make([]graph.Entity, 0, len(found))
	for _, e := range found[:min(len(found), findByNameCap)] {
		if e.Deleted.IsZero() { // deleted entities are found only by their resource name
			out = append(out, cloneEntity(e))
		}
	}
	return out, nil
}

// Search implements graph.Store.
func (s *Store) Search(ctx context.Context, q graph.SearchQuery) ([]graph.SearchResult, error) {
	if err := live(ctx, "memstore.Search"); err != nil {
		return nil, err
	}
	key := graph.NormalizeName(q.Text)
	if key == "" {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rank := graph.NewRanker(key)
	out := []graph.SearchResult{}
	for _, rec := range s.entities {
		if res, ok := rank.Rank(&rec.e, q.Kinds); ok {
			res.Entity = cloneEntity(res.Entity)
			out = append(out, res)
		}
	}
	graph.SortSearchResults(out)
	return out, nil
}

// GetRelations implements graph.Store: each claim with its source whole.
func (s *Store) GetRelations(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.Relation, error) {
	if err := live(ctx, "memstore.GetRelations"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.RelationName]graph.Relation, len(names))
	for _, n := range names {
		if rec, ok := s.relations[n]; ok {
			r := rec.r
			r.Claims = nil
			for _, c := range rec.r.Claims {
				if src, ok := s.sources[c.Source.Name]; ok {
					c.Source = src.src
				}
				r.Claims = append(r.Claims, c)
			}
			out[n] = r
		}
	}
	return out, nil
}

// header is a relation's header; its claims are kept when evidence is true.
func header(r graph.Relation, evidence bool) graph.RelationHeader {
	h := graph.RelationHeader{Relation: r, ClaimCount: len(r.Claims), Support: graph.SupportOf(r.Claims), Verdict: graph.VerdictOf(r.Claims)}
	if evidence {
		h.Relation.Claims = slices.Clone(r.Claims)
	} else {
		h.Relation.Claims = nil
	}
	return h
}

// RelationHeaders implements graph.Store.
func (s *Store) RelationHeaders(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.RelationHeader, error) {
	if err := live(ctx, "memstore.RelationHeaders"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.RelationName]graph.RelationHeader, len(names))
	for _, n := range names {
		if rec, ok := s.relations[n]; ok {
			out[n] = header(rec.r, false)
		}
	}
	return out, nil
}

// Degrees implements graph.Store: deleted relations count too.
func (s *Store) Degrees(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName]int, error) {
	if err := live(ctx, "memstore.Degrees"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.EntityName]int, len(entities))
	for _, n := range entities {
		if _, ok := s.entities[n]; ok {
			out[n] = len(s.from[n]) + len(s.to[n])
		}
	}
	return out, nil
}

// life is when an entity existed (all of time for one not written).
func (s *Store) life(n graph.EntityName) graph.Period {
	if rec, ok := s.entities[n]; ok {
		return rec.e.Lifetime()
	}
	return graph.OpenPeriod
}

// link is relation r between ends from and to, as path search sees it.
func (s *Store) link(r *graph.Relation, from, to graph.EntityName) graph.Link {
	l := r.LinkBetween(s.life(from), s.life(to))
	l.From, l.To = from, to
	l.Dated = l.Period != graph.OpenPeriod
	return l
}

// ordered returns the records of the named relations in the order they were first written.
func (s *Store) ordered(names map[graph.RelationName]bool) []*relationRec {
	out := make([]*relationRec, 0, len(names))
	for n := range names {
		out = append(out, s.relations[n])
	}
	slices.SortFunc(out, func(a, b *relationRec) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// Links implements graph.Store: deleted relations too, marked so; those the entity is the `from` of
// first.
func (s *Store) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	if err := live(ctx, "memstore.Links"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.EntityName][]graph.Link, len(entities))
	for _, n := range entities {
		if _, ok := s.entities[n]; !ok {
			continue
		}
		ls := make([]graph.Link, 0, len(s.from[n])+len(s.to[n]))
		for _, rec := range s.ordered(s.from[n]) {
			ls = append(ls, s.link(&rec.r, rec.r.From, rec.r.To))
		}
		for _, rec := range s.ordered(s.to[n]) {
			ls = append(ls, s.link(&rec.r, rec.r.From, rec.r.To))
		}
		out[n] = ls
	}
	return out, nil
}

// ViaLinks implements graph.ViaLinker.
func (s *Store) ViaLinks(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	if err := live(ctx, "memstore.ViaLinks"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.EntityName][]graph.Link, len(entities))
	for _, n := range entities {
		if _, ok := s.entities[n]; !ok {
			continue
		}
		var ls []graph.Link
		add := func(l graph.Link) {
			l.Name, l.Symmetric = graph.ViaLinkName(l.Name), false
			ls = append(ls, l)
		}
		for _, rec := range s.ordered(s.from[n]) {
			if rec.r.Via != "" {
				add(s.link(&rec.r, n, rec.r.Via))
			}
		}
		for _, rec := range s.ordered(s.via[n]) {
			add(s.link(&rec.r, rec.r.From, n))
		}
		out[n] = ls
	}
	return out, nil
}

// counts is the graph's size, under s.mu.
func (s *Store) counts() graph.GraphCounts {
	c := graph.GraphCounts{Sources: len(s.sources)}
	for _, rec := range s.entities {
		if rec.e.Deleted.IsZero() {
			c.Entities++
		}
	}
	for _, rec := range s.relations {
		if !rec.r.Deleted.IsZero() {
			continue
		}
		c.Relations++
		for _, cl := range rec.r.Claims {
			if cl.Retracted.IsZero() {
				c.Claims++
			}
		}
	}
	return c
}

// Counts implements graph.Store: entities and relations not deleted, their claims not retracted, and
// every source.
func (s *Store) Counts(ctx context.Context) (graph.GraphCounts, error) {
	if err := live(ctx, "memstore.Counts"); err != nil {
		return graph.GraphCounts{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts(), nil
}

// citing returns the claims that cite a source, in name order, each with its relation.
func (s *Store) citing(name graph.SourceName) []graph.SourceClaim {
	var out []graph.SourceClaim
	for _, rec := range s.relations {
		for _, c := range rec.r.Claims {
			if c.Source.Name != name {
				continue
			}
			claim := graph.Claim{Name: c.Name, Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence, Status: c.Status, SaidBy: c.SaidBy}
			out = append(out, graph.SourceClaim{Claim: claim,
				Relation: graph.RelationRef{Name: rec.r.Name, Type: rec.r.Type, From: rec.r.From, To: rec.r.To}})
		}
	}
	slices.SortFunc(out, func(a, b graph.SourceClaim) int { return strings.Compare(a.Claim.Name, b.Claim.Name) })
	return out
}

// GetSource implements graph.Store. Its claims are given without their retraction, as the Dgraph store
// gives them.
func (s *Store) GetSource(ctx context.Context, name graph.SourceName, offset, limit int) (graph.SourceInfo, error) {
	const op = "memstore.GetSource"
	if err := live(ctx, op); err != nil {
		return graph.SourceInfo{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec, ok := s.sources[name]
	if !ok {
		return graph.SourceInfo{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "SOURCE_NOT_FOUND", Message: "no source named " + string(name)}
	}
	claims := s.citing(name)
	info := graph.SourceInfo{Source: rec.src, ClaimCount: len(claims)}
	if limit <= 0 {
		return info, nil
	}
	start, end, _ := graph.PageBounds(len(claims), offset, limit)
	if start < end {
		info.Claims = claims[start:end]
	}
	return info, nil
}

// ListSources implements graph.Store: kind and outlet compared exactly.
func (s *Store) ListSources(ctx context.Context, q graph.SourceQuery) ([]graph.SourceSummary, int, error) {
	if err := live(ctx, "memstore.ListSources"); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var match []graph.Source
	for _, rec := range s.sources {
		if (q.Kind == "" || rec.src.Kind == q.Kind) && (q.Outlet == "" || graph.SameOutlet(rec.src.Outlet, q.Outlet)) {
			match = append(match, rec.src)
		}
	}
	if q.Limit <= 0 {
		return nil, len(match), nil
	}
	slices.SortFunc(match, func(a, b graph.Source) int { return strings.Compare(string(a.Name), string(b.Name)) })
	start, end, _ := graph.PageBounds(len(match), q.Offset, q.Limit)
	cites := map[graph.SourceName]int{}
	for _, rec := range s.relations {
		for _, c := range rec.r.Claims {
			cites[c.Source.Name]++
		}
	}
	out := make([]graph.SourceSummary, 0, end-start)
	for _, src := range match[start:end] {
		out = append(out, graph.SourceSummary{Source: src, ClaimCount: cites[src.Name]})
	}
	return out, len(match), nil
}

// ClaimSources implements graph.Store: every claim, retracted ones too (without their retraction), in
// name order.
func (s *Store) ClaimSources(ctx context.Context, relations []graph.RelationName) (map[graph.RelationName][]graph.Claim, error) {
	if err := live(ctx, "memstore.ClaimSources"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[graph.RelationName][]graph.Claim, len(relations))
	for _, n := range relations {
		rec, ok := s.relations[n]
		if !ok {
			continue
		}
		cs := make([]graph.Claim, 0, len(rec.r.Claims))
		for _, c := range rec.r.Claims {
			cs = append(cs, graph.Claim{Name: c.Name, Status: c.Status, Confidence: c.Confidence, Source: graph.Source{Name: c.Source.Name}})
		}
		out[n] = cs
	}
	return out, nil
}

// Stats implements graph.Store.
func (s *Store) Stats(ctx context.Context) (graph.GraphStats, error) {
	if err := live(ctx, "memstore.Stats"); err != nil {
		return graph.GraphStats{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := graph.GraphStats{Counts: s.counts(), EntitiesByKind: map[graph.Kind]int{}, RelationsByType: map[graph.RelationType]int{},
		ClaimsByStatus: map[graph.ClaimStatus]int{}, SourcesByKind: map[graph.SourceKind]int{}, Version: s.version, WrittenAt: s.writtenAt}
	for _, rec := range s.entities {
		if rec.e.Deleted.IsZero() && rec.e.Kind != "" {
			st.EntitiesByKind[rec.e.Kind]++
		}
	}
	for _, rec := range s.relations {
		if !rec.r.Deleted.IsZero() {
			continue
		}
		if rec.r.Type != "" {
			st.RelationsByType[rec.r.Type]++
		}
		for _, c := range rec.r.Claims {
			if c.Retracted.IsZero() && c.Status != "" {
				st.ClaimsByStatus[c.Status]++
			}
		}
	}
	for _, rec := range s.sources {
		if rec.src.Kind != "" {
			st.SourcesByKind[rec.src.Kind]++
		}
	}
	return st, nil
}

// EntityNames implements graph.EntityLister: live entities in name order, after a name, at most limit
// (at least one).
func (s *Store) EntityNames(ctx context.Context, after graph.EntityName, limit int) ([]graph.EntityName, error) {
	if err := live(ctx, "memstore.EntityNames"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var names []graph.EntityName
	for n, rec := range s.entities {
		if n > after && rec.e.Deleted.IsZero() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]graph.EntityName, 0, min(len(names), max(limit, 1)))
	return append(out, names[:min(len(names), max(limit, 1))]...), nil
}

// --- change feed ---------------------------------------------------------------------------------------

// Version implements graph.ChangeFeed.
func (s *Store) Version(ctx context.Context) (int64, error) {
	if err := live(ctx, "memstore.Version"); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version, nil
}

// Changes implements graph.ChangeFeed as the Dgraph store's feed does: when the graph changed after
// since, one batch of the sources changed, one of the entities, and one of the relations, each with its
// header and evidence (graph.Changed.Evidence), each batch in the order the resources were first
// written. each is called after the graph's state was read, outside the store's lock.
func (s *Store) Changes(ctx context.Context, since int64, each func(graph.Changed)) (int64, error) {
	if err := live(ctx, "memstore.Changes"); err != nil {
		return 0, err
	}
	s.mu.RLock()
	version := s.version
	if version <= since {
		s.mu.RUnlock()
		return version, nil
	}
	var srcs []*sourceRec
	for _, rec := range s.sources {
		if rec.changed > since {
			srcs = append(srcs, rec)
		}
	}
	slices.SortFunc(srcs, func(a, b *sourceRec) int { return cmp.Compare(a.seq, b.seq) })
	sources := graph.Changed{Sources: make([]graph.Source, 0, len(srcs))}
	for _, rec := range srcs {
		sources.Sources = append(sources.Sources, rec.src)
	}
	var ents []*entityRec
	for _, rec := range s.entities {
		if rec.changed > since {
			ents = append(ents, rec)
		}
	}
	slices.SortFunc(ents, func(a, b *entityRec) int { return cmp.Compare(a.seq, b.seq) })
	entities := graph.Changed{Entities: make([]graph.Entity, 0, len(ents))}
	for _, rec := range ents {
		entities.Entities = append(entities.Entities, cloneEntity(rec.e))
	}
	changed := map[graph.RelationName]bool{}
	for n, rec := range s.relations {
		if rec.changed > since {
			changed[n] = true
		}
	}
	relations := graph.Changed{Evidence: true, Links: make([]graph.Link, 0, len(changed)), Headers: make([]graph.RelationHeader, 0, len(changed))}
	for _, rec := range s.ordered(changed) {
		relations.Links = append(relations.Links, s.link(&rec.r, rec.r.From, rec.r.To))
		relations.Headers = append(relations.Headers, header(rec.r, true))
	}
	s.mu.RUnlock()
	for _, c := range []graph.Changed{sources, entities, relations} {
		if err := live(ctx, "memstore.Changes"); err != nil {
			return 0, err
		}
		each(c)
	}
	return version, nil
}

// --- writes --------------------------------------------------------------------------------------------

// raise raises the graph's version by one and returns it, under s.mu.
func (s *Store) raise() int64 {
	s.version++
	s.writtenAt = time.Now().UTC().Truncate(time.Millisecond)
	return s.version
}

// UpsertSources implements graph.Writer: it raises the graph's version and marks every source written
// with it.
func (s *Store) UpsertSources(ctx context.Context, sources []graph.Source) error {
	if err := live(ctx, "memstore.UpsertSources"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.raise()
	for _, src := range sources {
		rec, ok := s.sources[src.Name]
		if !ok {
			s.seq++
			rec = &sourceRec{seq: s.seq}
			s.sources[src.Name] = rec
		}
		rec.src, rec.changed = storedSource(src), v
	}
	return nil
}

// UpsertEntities implements graph.Writer. A write that changes no entity changes nothing, the graph's
// version included; otherwise the version is raised and the entities changed are marked with it, and so
// are the relations of those whose lifetime changed. A deletion stands when the entity is written again.
func (s *Store) UpsertEntities(ctx context.Context, entities []graph.Entity) error {
	if err := live(ctx, "memstore.UpsertEntities"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var changed []graph.Entity
	for _, e := range entities {
		e = stored(e)
		if rec, ok := s.entities[e.Name]; ok {
			e.Deleted, e.MergedInto = rec.e.Deleted, rec.e.MergedInto
			if graph.RecordJSON(graph.EntityRecord(e)) == graph.RecordJSON(graph.EntityRecord(rec.e)) {
				continue
			}
		}
		changed = append(changed, e)
	}
	if len(changed) == 0 {
		return nil
	}
	v := s.raise()
	for _, e := range changed {
		rec, ok := s.entities[e.Name]
		if !ok {
			s.seq++
			rec = &entityRec{seq: s.seq}
			s.entities[e.Name] = rec
		} else if rec.e.Lifetime() != e.Lifetime() {
			for _, idx := range []map[graph.EntityName]map[graph.RelationName]bool{s.from, s.to} {
				for rn := range idx[e.Name] {
					s.relations[rn].changed = v
				}
			}
		}
		rec.e, rec.changed = e, v
	}
	return nil
}

// UpsertRelations implements graph.Writer. The entities and sources they name must exist (Invalid
// otherwise), and a live relation's ends must not be deleted (FailedPrecondition); then the graph's
// version is raised and every relation written is marked with it. A relation keeps the claims it had that
// the write leaves out; a deletion or retraction stands when written again.
func (s *Store) UpsertRelations(ctx context.Context, relations []graph.Relation) error {
	const op = "memstore.UpsertRelations"
	if err := live(ctx, op); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	missing := func(n string) error {
		return &graph.Error{Op: op, Kind: graph.Invalid, Message: "refers to " + n + ", which is not in the graph"}
	}
	for _, r := range relations {
		for _, n := range []graph.EntityName{r.From, r.To, r.Via, r.Term} {
			if _, ok := s.entities[n]; !ok && (n != "" || n == r.From || n == r.To) {
				return missing(string(n))
			}
		}
		for _, c := range r.Claims {
			if _, ok := s.sources[c.Source.Name]; !ok {
				return missing(string(c.Source.Name))
			}
			if _, ok := s.entities[c.SaidBy]; c.SaidBy != "" && !ok {
				return missing(string(c.SaidBy))
			}
		}
	}
	for _, r := range relations {
		if rec, ok := s.relations[r.Name]; ok && !rec.r.Deleted.IsZero() {
			continue // a deleted relation stands deleted, whatever its ends
		}
		for _, end := range []graph.EntityName{r.From, r.To} {
			if e := s.entities[end].e; !e.Deleted.IsZero() {
				if e.MergedInto != "" {
					return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: graph.ReasonMergedMeanwhile,
						Message: string(r.Name) + ": " + string(end) + " was merged into " + string(e.MergedInto) + " meanwhile; send it again"}
				}
				return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_DELETED", Message: string(r.Name) + ": " + string(end) + " is deleted"}
			}
		}
	}
	v := s.raise()
	for _, r := range relations {
		s.writeRelation(r, v)
	}
	return nil
}

// writeRelation writes one relation at version v, under s.mu.
func (s *Store) writeRelation(r graph.Relation, v int64) {
	rec, ok := s.relations[r.Name]
	if !ok {
		s.seq++
		rec = &relationRec{seq: s.seq}
		s.relations[r.Name] = rec
	} else {
		s.unindex(rec.r)
	}
	claims := make([]graph.Claim, len(r.Claims))
	for i, c := range r.Claims {
		c.Source, c.Retracted = graph.Source{Name: c.Source.Name}, graph.Tombstone{}
		claims[i] = c
		// A claim belongs to one relation: written to this one, it leaves any other.
		if was, ok := s.claimOf[c.Name]; ok && was != r.Name {
			if other := s.relations[was]; other != nil {
				other.r.Claims = slices.DeleteFunc(slices.Clone(other.r.Claims), func(o graph.Claim) bool { return o.Name == c.Name })
				if len(other.r.Claims) == 0 {
					other.r.Claims = nil
				}
				other.changed = v
			}
		}
		s.claimOf[c.Name] = r.Name
	}
	next := graph.Relation{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Role: r.Role, Via: r.Via, Term: r.Term,
		ValidFrom: date(r.ValidFrom), ValidTo: date(r.ValidTo), Date: date(r.Date), DatesFrom: r.DatesFrom,
		Claims: graph.MergeClaims(rec.r.Claims, claims), Deleted: rec.r.Deleted, MergedInto: rec.r.MergedInto}
	if len(next.Claims) == 0 {
		next.Claims = nil
	}
	rec.r, rec.changed = next, v
	s.index(rec.r)
}

// index and unindex add a relation to the indexes by its ends and via, and take it out.
func (s *Store) index(r graph.Relation)   { s.indexAs(r, true) }
func (s *Store) unindex(r graph.Relation) { s.indexAs(r, false) }

func (s *Store) indexAs(r graph.Relation, in bool) {
	for _, x := range []struct {
		idx map[graph.EntityName]map[graph.RelationName]bool
		at  graph.EntityName
	}{{s.from, r.From}, {s.to, r.To}, {s.via, r.Via}} {
		if x.at == "" {
			continue
		}
		if !in {
			delete(x.idx[x.at], r.Name)
			continue
		}
		if x.idx[x.at] == nil {
			x.idx[x.at] = map[graph.RelationName]bool{}
		}
		x.idx[x.at][r.Name] = true
	}
}

// --- tombstones ----------------------------------------------------------------------------------------

// tombstone is a retraction or deletion made now by whoever ctx says writes (or "local"), to the
// millisecond, as the Dgraph store keeps it.
func tombstone(ctx context.Context, reason string) graph.Tombstone {
	if t, ok := graph.RecordedTombstone(ctx); ok {
		return graph.Tombstone{Time: t.Time, By: t.By, Reason: reason}
	}
	by := "local"
	if m, ok := graph.WriteMetaFrom(ctx); ok && m.Principal != "" {
		by = m.Principal
	}
	return graph.Tombstone{Time: time.Now().UTC().Truncate(time.Millisecond), By: by, Reason: reason}
}

// RetractClaim implements graph.Tombstones: the claim's relation is marked changed. A claim retracted
// already stays as it was, and so does the graph's version.
func (s *Store) RetractClaim(ctx context.Context, claim, reason string) (graph.WriteResult, error) {
	const op = "memstore.RetractClaim"
	if err := live(ctx, op); err != nil {
		return graph.WriteResult{}, err
	}
	notFound := &graph.Error{Op: op, Kind: graph.NotFound, Reason: "CLAIM_NOT_FOUND", Message: "no claim named " + claim}
	if rel, _, ok := strings.Cut(claim, "/claims/"); !ok || !strings.HasPrefix(rel, "relations/") {
		return graph.WriteResult{}, notFound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, ok := s.claimOf[claim]
	if !ok {
		return graph.WriteResult{}, notFound
	}
	rec := s.relations[owner]
	i := slices.IndexFunc(rec.r.Claims, func(c graph.Claim) bool { return c.Name == claim })
	if !rec.r.Claims[i].Retracted.IsZero() {
		return graph.WriteResult{Unchanged: 1}, nil
	}
	rec.r.Claims = slices.Clone(rec.r.Claims)
	rec.r.Claims[i].Retracted = tombstone(ctx, reason)
	rec.changed = s.raise()
	return graph.WriteResult{Updated: []string{claim, string(owner)}}, nil
}

// DeleteRelation implements graph.Tombstones.
func (s *Store) DeleteRelation(ctx context.Context, name graph.RelationName, reason string) (graph.WriteResult, error) {
	const op = "memstore.DeleteRelation"
	if err := live(ctx, op); err != nil {
		return graph.WriteResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.relations[name]
	if !ok {
		return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(name)}
	}
	if !rec.r.Deleted.IsZero() {
		return graph.WriteResult{Unchanged: 1}, nil
	}
	rec.r.Deleted, rec.changed = tombstone(ctx, reason), s.raise()
	return graph.WriteResult{Updated: []string{string(name)}}, nil
}

// DeleteEntity implements graph.Tombstones: the entity and each of its relations (as either end) not
// deleted yet.
func (s *Store) DeleteEntity(ctx context.Context, name graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "memstore.DeleteEntity"
	if err := live(ctx, op); err != nil {
		return graph.WriteResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.entities[name]
	switch {
	case !ok:
		return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(name)}
	case rec.e.MergedInto != "":
		return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_MERGED",
			Message: string(name) + " was merged into " + string(rec.e.MergedInto) + ": delete " + string(rec.e.MergedInto) + ", or undo the merge"}
	case !rec.e.Deleted.IsZero():
		return graph.WriteResult{Unchanged: 1}, nil
	}
	t, v := tombstone(ctx, reason), s.raise()
	rec.e.Deleted, rec.changed = t, v
	res := graph.WriteResult{Updated: []string{string(name)}}
	for _, idx := range []map[graph.EntityName]map[graph.RelationName]bool{s.from, s.to} {
		for _, r := range s.ordered(idx[name]) {
			if r.r.Deleted.IsZero() {
				r.r.Deleted, r.changed = t, v
				res.Updated = append(res.Updated, string(r.r.Name))
			}
		}
	}
	return res, nil
}
