package graph

import (
	"context"
	"math"
	"slices"
	"strconv"
)

// RelationFilter decides which relations count as links.
type RelationFilter struct {
	IncludeTypes  []RelationType // empty: every type
	ExcludeTypes  []RelationType
	AsOf          FuzzyDate // zero: no time filter
	MinConfidence float64
	Statuses      []ClaimStatus // empty: DefaultStatuses
	Undated       UndatedPolicy
}

// UndatedPolicy says whether relations without any date count when a filter asks about a time (AsOf).
type UndatedPolicy string

// The undated policies.
const (
	// UndatedDefault is UndatedExclude when the filter has an AsOf, else UndatedInclude.
	UndatedDefault UndatedPolicy = ""
	// UndatedInclude counts undated relations at every date: "not known to be false then".
	UndatedInclude UndatedPolicy = "INCLUDE"
	// UndatedExclude counts only relations known to hold at the date asked about.
	UndatedExclude UndatedPolicy = "EXCLUDE"
)

// includesUndated reports whether undated relations count under the filter.
func (f *RelationFilter) includesUndated() bool {
	switch f.Undated {
	case UndatedInclude:
		return true
	case UndatedExclude:
		return false
	}
	return f.AsOf.IsZero()
}

// Window is the period a filter asks about: AsOf's, or all of time.
func (f RelationFilter) Window() Period {
	if f.AsOf.IsZero() {
		return OpenPeriod
	}
	return PeriodOf(f.AsOf)
}

// DefaultStatuses are the claim statuses that count when a filter names none: never DENIED.
var DefaultStatuses = []ClaimStatus{StatusAlleged, StatusReported, StatusConfirmed}

// Caps on a filter's lists: each is longer than any list without repeats can be.
const (
	MaxFilterTypes    = 32
	MaxFilterStatuses = 8
)

// Validate reports every problem with the filter, naming fields under prefix (e.g. "filter."). A list
// over its cap is reported once, without looking at its items.
func (f RelationFilter) Validate(prefix string, v *Violations) {
	for _, list := range []struct {
		field string
		types []RelationType
	}{{"include_types", f.IncludeTypes}, {"exclude_types", f.ExcludeTypes}} {
		if CheckCount(v, prefix+list.field, len(list.types), MaxFilterTypes) {
			for i, t := range list.types {
				if !t.Valid() {
					v.Add(indexed(prefix+list.field, i), "%q is not a relation type", truncate(string(t), 40))
				}
			}
		}
	}
	CheckFraction(v, prefix+"min_confidence", f.MinConfidence)
	switch f.Undated {
	case UndatedDefault, UndatedInclude, UndatedExclude:
	default:
		v.Add(prefix+"undated", "%q is not a policy (want INCLUDE or EXCLUDE)", truncate(string(f.Undated), 40))
	}
	if CheckCount(v, prefix+"statuses", len(f.Statuses), MaxFilterStatuses) {
		for i, s := range f.Statuses {
			if s.Index() < 0 {
				v.Add(indexed(prefix+"statuses", i), "%q is not a claim status", truncate(string(s), 40))
			}
		}
	}
}

// CheckCount reports a list of n items over its cap, and says whether its items are worth checking.
func CheckCount(v *Violations, field string, n, cap int) bool {
	if n > cap {
		v.Add(field, "%d items; at most %d", n, cap)
		return false
	}
	return true
}

// CheckFraction reports a number that is not between 0 and 1 (NaN and infinities included).
func CheckFraction(v *Violations, field string, x float64) {
	if math.IsNaN(x) || x < 0 || x > 1 {
		v.Add(field, "must be a number between 0 and 1, got %g", x)
	}
}

// Counts reports whether a relation counts as a link under the filter: it is not deleted; its type is
// included and not
// excluded; with an as-of date, it is dated (unless the filter includes undated relations) and holds, with
// both its ends in existence, on some day of the as-of period (Link.Effective, each fuzzy bound read at
// its widest); and one of its claims with a counted status has at least the minimum confidence. A
// relation with a DENIED claim is disputed: unless DENIED is among the statuses asked for, it counts only
// through a CONFIRMED claim, so support that someone alleges and someone else denies is never a link by
// default.
func (f RelationFilter) Counts(l Link) bool { return f.counts(&l) }

func (f *RelationFilter) counts(l *Link) bool {
	return f.countsParts(l.Deleted, l.Type, l.Effective(), l.Dated, &l.Support)
}

// countsParts is Counts on the parts of a link it reads: whether it is deleted, its type, when it holds
// with both its ends in existence (Link.Effective), whether it is dated, and its support.
func (f *RelationFilter) countsParts(deleted bool, typ RelationType, effective Period, dated bool, support *Support) bool {
	if deleted {
		return false
	}
	if len(f.IncludeTypes) > 0 && !slices.Contains(f.IncludeTypes, typ) {
		return false
	}
	if slices.Contains(f.ExcludeTypes, typ) {
		return false
	}
	if !f.AsOf.IsZero() && !effective.Overlaps(PeriodOf(f.AsOf)) {
		return false
	}
	return f.countsBrief(false, dated, support)
}

// plain reports whether the filter asks nothing of a relation's type or time: whether it counts or not
// is then told by countsBrief alone.
func (f *RelationFilter) plain() bool {
	return len(f.IncludeTypes) == 0 && len(f.ExcludeTypes) == 0 && f.AsOf.IsZero()
}

// isDefault reports whether the filter is the default one: it counts what the zero RelationFilter does.
func (f *RelationFilter) isDefault() bool {
	return f.plain() && len(f.Statuses) == 0 && f.MinConfidence <= 0 && (f.Undated == "" || f.Undated == UndatedInclude)
}

// countsBrief is Counts on what a plain filter reads of a link: whether it is deleted, whether it is
// dated, and its support.
func (f *RelationFilter) countsBrief(deleted, dated bool, support *Support) bool {
	if deleted {
		return false
	}
	if !dated && !f.includesUndated() {
		return false
	}
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	disputed := support[StatusDenied.Index()] >= 0 && !slices.Contains(statuses, StatusDenied)
	for _, s := range statuses {
		if disputed && s != StatusConfirmed {
			continue
		}
		if c := support[s.Index()]; c >= 0 && c >= f.MinConfidence {
			return true
		}
	}
	return false
}

// Limits on path queries.
const (
	DefaultMaxPaths = 3
	MaxMaxPaths     = 20
	DefaultMaxDepth = 4
	MaxMaxDepth     = 8
	// DefaultWorkBudget is how many links one path query may read before it stops with ResourceExhausted.
	DefaultWorkBudget = 500_000
)

// PathQuery asks for the shortest routes between two entities.
type PathQuery struct {
	From, To EntityName
	MaxPaths int // 0: DefaultMaxPaths
	MaxDepth int // 0: DefaultMaxDepth
	Directed bool
	Filter   RelationFilter
	// CoTemporal asks for routes whose every hop held at one common moment (of the filter's as-of period,
	// or of all time), its ends in existence then: chains that existed at once.
	CoTemporal bool
	// FollowVia also walks from a relation's `from` end to its via (the party a member sat for), as a hop
	// of that relation (see ViaLinkName).
	FollowVia bool
}

// Normalize fills in defaults.
func (q *PathQuery) Normalize() {
	if q.MaxPaths == 0 {
		q.MaxPaths = DefaultMaxPaths
	}
	if q.MaxDepth == 0 {
		q.MaxDepth = DefaultMaxDepth
	}
}

// Validate reports every problem with the query as an Invalid error with field violations.
func (q PathQuery) Validate() error {
	var v Violations
	if q.From == "" {
		v.Add("from", "required")
	}
	if q.To == "" {
		v.Add("to", "required")
	}
	if q.From != "" && q.From == q.To {
		v.Add("to", "names the same entity as from (%s)", q.From)
	}
	if q.MaxPaths < 1 || q.MaxPaths > MaxMaxPaths {
		v.Add("max_paths", "must be between 1 and %d, got %d", MaxMaxPaths, q.MaxPaths)
	}
	if q.MaxDepth < 1 || q.MaxDepth > MaxMaxDepth {
		v.Add("max_depth", "must be between 1 and %d, got %d", MaxMaxDepth, q.MaxDepth)
	}
	q.Filter.Validate("filter.", &v)
	return v.Err("FindPaths", "invalid path query")
}

// PathStep is a relation walked on a path, and whether it was walked from its `from` end.
type PathStep struct {
	Relation RelationName
	Forward  bool
	// Via is set when the step joins the relation's `from` end to its via, not to its `to` end.
	Via bool
}

// Hop joins two consecutive entities of a route: every relation between them that counts under the
// filter and may be walked that way, in HopOrder.
type Hop struct {
	Relations []PathStep
}

// Path is a route: distinct entities, Entities[i] and Entities[i+1] joined by Hops[i].
type Path struct {
	Entities []EntityName
	Hops     []Hop
	// During is, for a co-temporal query, when the route held as a whole: the days of the as-of period
	// (or of all time) on which every hop held; empty otherwise.
	During []Period
}

// Len is the path's length in hops.
func (p Path) Len() int { return len(p.Hops) }

// SearchResult is an entity matching a search, with what matched and how well.
type SearchResult struct {
	Entity  Entity
	Matched string
	Score   float64
}

// SearchQuery asks for entities by name or alias.
type SearchQuery struct {
	Text  string
	Kinds []Kind // empty: every kind
}

// Store is where the graph lives. Every method returns *Error values: Unavailable when the database
// cannot be reached, DeadlineExceeded when ctx expires, Internal otherwise unless a method says more.
type Store interface {
	// ApplySchema makes the database's schema polgraph's; applying it twice changes nothing.
	ApplySchema(ctx context.Context) error
	// GetEntity returns the entity with this resource name; NotFound when there is none.
	GetEntity(ctx context.Context, name EntityName) (Entity, error)
	// GetEntities returns the entities with these names that exist, keyed by name.
	GetEntities(ctx context.Context, names []EntityName) (map[EntityName]Entity, error)
	// EntitiesByIdentifier returns, for each value of an identifier scheme, the entities not deleted that
	// hold it, ordered by name; values no entity holds are absent.
	EntitiesByIdentifier(ctx context.Context, scheme string, values []string) (map[string][]Entity, error)
	// RelationCounts counts an entity's relations by type and direction.
	RelationCounts(ctx context.Context, name EntityName) ([]RelationCount, error)
	// FindByName returns the entities whose display name or alias equals text, ignoring case, accents and
	// punctuation.
	FindByName(ctx context.Context, text string) ([]Entity, error)
	// Search returns every entity matching q, best first.
	Search(ctx context.Context, q SearchQuery) ([]SearchResult, error)
	// GetRelations returns the relations with these names, with all their claims, keyed by name.
	GetRelations(ctx context.Context, names []RelationName) (map[RelationName]Relation, error)
	// RelationHeaders returns the relations with these names without their claims, but with their claim
	// count and support, keyed by name.
	RelationHeaders(ctx context.Context, names []RelationName) (map[RelationName]RelationHeader, error)
	// Degrees returns how many relations each named entity takes part in, whatever their type or claims.
	Degrees(ctx context.Context, entities []EntityName) (map[EntityName]int, error)
	// Links returns, for each named entity, every relation it takes part in (either end).
	Links(ctx context.Context, entities []EntityName) (map[EntityName][]Link, error)
	// Counts returns how many entities, relations, claims and sources the graph holds.
	Counts(ctx context.Context) (Counts, error)
	// GetSource returns the source with this name, how many claims cite it, and the claims that cite it
	// in name order from offset on, at most limit of them, each with the relation it backs (its Claim's
	// Source is left empty); NotFound with reason SOURCE_NOT_FOUND when there is no such source.
	GetSource(ctx context.Context, name SourceName, offset, limit int) (SourceInfo, error)
	// ListSources returns the sources q asks for in name order, from q.Offset on, at most q.Limit of them,
	// each with how many claims cite it, and how many sources q matches in all.
	ListSources(ctx context.Context, q SourceQuery) ([]SourceSummary, int, error)
	// ClaimSources returns, for each named relation that exists, its claims with only their name, status,
	// confidence and source name (no excerpt, no other field of the source), keyed by relation name.
	ClaimSources(ctx context.Context, relations []RelationName) (map[RelationName][]Claim, error)
	// Stats counts the graph's entities by kind, relations by type, claims by status and sources by kind,
	// all from one snapshot, with the graph's version (as ChangeFeed.Version reports it) and when it was
	// last raised.
	Stats(ctx context.Context) (GraphStats, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
}

// Writer upserts resources by name: writing one twice leaves one copy, with the later values. Lists
// (aliases, claims' fields) are replaced, not appended to. Returns Unavailable or Internal errors.
type Writer interface {
	UpsertSources(ctx context.Context, sources []Source) error
	UpsertEntities(ctx context.Context, entities []Entity) error
	// UpsertRelations writes relations and their claims; the entities and sources they name must exist.
	UpsertRelations(ctx context.Context, relations []Relation) error
}

// BulkWriter is a Writer that can also write the relations of one large load in parallel batches.
type BulkWriter interface {
	Writer
	// BeginBulk starts a bulk load, waiting while another one runs. Until End, the load holds the
	// graph's next version open: a ChangeFeed reports its entities and relations only after End, all at
	// once.
	BeginBulk(ctx context.Context) (Bulk, error)
}

// Bulk is one bulk load in progress.
type Bulk interface {
	// UpsertSources is Writer.UpsertSources, safe to call from several goroutines at once.
	UpsertSources(ctx context.Context, sources []Source) error
	// UpsertEntities is Writer.UpsertEntities, safe to call from several goroutines at once.
	UpsertEntities(ctx context.Context, entities []Entity) error
	// UpsertRelations is Writer.UpsertRelations, safe to call from several goroutines at once.
	UpsertRelations(ctx context.Context, relations []Relation) error
	// End closes the load's version, publishing what it wrote; call it whether or not the writes
	// succeeded.
	End(ctx context.Context) error
}

// Counts is the size of the graph.
type Counts struct {
	Entities, Relations, Claims, Sources int
}

func indexed(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }
