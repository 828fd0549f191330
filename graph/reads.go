package graph

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

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
	Outlet        string     // empty: every outlet; else this one, whatever its case (SameOutlet)
	Offset, Limit int
}

// SameOutlet reports whether two outlets' names are one, ignoring case and surrounding spaces: "daily
// mail" asks for the Daily Mail.
func SameOutlet(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// SourceSummary is a source and how many claims cite it.
type SourceSummary struct {
	Source     Source
	ClaimCount int
}

// GraphStats is what the graph holds, counted from one snapshot.
type GraphStats struct {
	Counts          GraphCounts
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

// PageBounds returns where a page of size items from offset starts and ends in a list of n, and the
// offset of the next page (0 on the last).
func PageBounds(n, offset, size int) (start, end, next int) {
	start = min(max(offset, 0), n)
	end = min(start+size, n)
	if end < n {
		next = end
	}
	return start, end, next
}

// RelationsQuery asks for one page of an entity's relations.
type RelationsQuery struct {
	Entity    string // a resource name, or a name or alias naming one entity
	Filter    RelationFilter
	Sources   SourceFilter // only the claims of these sources count
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
		v.Add("direction", "%q is not a direction (want OUTGOING or INCOMING)", Truncate(string(q.Direction), 40))
	}
	q.Filter.Validate("filter.", &v)
	q.Sources.Validate("sources.", &v)
	return v.Err("ListRelations", "invalid relations query")
}

// TimelineQuery asks for one page of an entity's timeline.
type TimelineQuery struct {
	Entity   string // a resource name, or a name or alias naming one entity
	Filter   RelationFilter
	Sources  SourceFilter // only the claims of these sources count
	PageSize int          // 0: DefaultTimelinePageSize
	Offset   int          // in the dated relations, then the undated ones
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
	q.Sources.Validate("sources.", &v)
	return v.Err("GetTimeline", "invalid timeline query")
}

// IsEvent reports whether a relation is an event: it has a date and neither a valid_from nor a valid_to.
func IsEvent(r Relation) bool {
	return r.ValidFrom.IsZero() && r.ValidTo.IsZero() && !r.Date.IsZero()
}

// checkSourceName reports a name that is not a source's resource name (sources/<slug>).
func checkSourceName(v *Violations, field string, name SourceName) {
	slug, ok := strings.CutPrefix(string(name), "sources/")
	switch {
	case name == "":
		v.Add(field, "required: a source's resource name such as sources/daily-mail-2023-11-03-lutfur-rahman")
	case len(name) > MaxName || !ok || !ValidSlug(slug):
		v.Add(field, "%q is not a source name (sources/<slug>)", Truncate(string(name), 80))
	}
}

// checkTitle reports a missing or over-long title of a source, or one without letters or digits.
func checkTitle(v *Violations, field, text string) {
	switch {
	case strings.TrimSpace(text) == "":
		v.Add(field, "required: a source's resource name such as sources/daily-mail-2023-11-03-lutfur-rahman, or its title")
	case len(text) > MaxQueryLength:
		v.Add(field, "%d bytes; at most %d", len(text), MaxQueryLength)
	case NormalizeName(text) == "":
		v.Add(field, "has no letters or digits to look for")
	}
}

// SourceRequest asks for a source and one page of the claims that cite it.
type SourceRequest struct {
	// Name is the source's resource name, or its title (or a part of it naming one source), whatever its
	// case and punctuation.
	Name     SourceName
	PageSize int // claims per page; 0: DefaultSourcePageSize
	Offset   int
}

// ByName reports whether the request names its source by resource name (or by something shaped like
// one, such as an entity's name), not by title.
func (q SourceRequest) ByName() bool {
	return strings.HasPrefix(string(q.Name), "sources/") || LooksLikeResourceName(string(q.Name))
}

// Validate reports every problem with the request as an Invalid error with field violations.
func (q SourceRequest) Validate() error {
	var v Violations
	if q.ByName() {
		checkSourceName(&v, "name", q.Name)
	} else {
		checkTitle(&v, "name", string(q.Name))
	}
	checkPageSize(&v, q.PageSize, DefaultSourcePageSize, MaxSourcePageSize)
	return v.Err("GetSource", "invalid source request")
}

// SourcePage is a source, how many claims cite it, and one page of them.
type SourcePage struct {
	SourceInfo
	Related    []Entity // every entity the page's claims name (relations' ends, said_by), by name
	NextOffset int      // 0 on the last page
}

// Validate reports every problem with the query as an Invalid error with field violations (Limit is the
// page size: 0 means DefaultSourcesPageSize).
func (q SourceQuery) Validate() error {
	var v Violations
	if q.Kind != "" && !slices.Contains(SourceKinds, q.Kind) {
		v.Add("kind", "%q is not a source kind", Truncate(string(q.Kind), 40))
	}
	if len(q.Outlet) > MaxOutlet {
		v.Add("outlet", "%d bytes; at most %d", len(q.Outlet), MaxOutlet)
	}
	checkPageSize(&v, q.Limit, DefaultSourcesPageSize, MaxSourcesPageSize)
	return v.Err("ListSources", "invalid sources query")
}

// MaxBatchGet bounds the names of one BatchGetEntities, and the values of one LookupEntities.
const MaxBatchGet = 1000

// IdentifierMatch is an external identifier and the entities that hold it.
type IdentifierMatch struct {
	Value    string
	Entities []Entity
}

// GraphCounts is the size of the graph.
type GraphCounts struct {
	Entities, Relations, Claims, Sources int
}
