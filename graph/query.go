package graph

import (
	"math"
	"slices"
	"strconv"
	"strings"
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

// IncludesUndated reports whether undated relations count under the filter.
func (f *RelationFilter) IncludesUndated() bool {
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
					v.Add(Indexed(prefix+list.field, i), "%q is not a relation type", Truncate(string(t), 40))
				}
			}
		}
	}
	CheckFraction(v, prefix+"min_confidence", f.MinConfidence)
	switch f.Undated {
	case UndatedDefault, UndatedInclude, UndatedExclude:
	default:
		v.Add(prefix+"undated", "%q is not a policy (want INCLUDE or EXCLUDE)", Truncate(string(f.Undated), 40))
	}
	if CheckCount(v, prefix+"statuses", len(f.Statuses), MaxFilterStatuses) {
		for i, s := range f.Statuses {
			if s.Index() < 0 {
				v.Add(Indexed(prefix+"statuses", i), "%q is not a claim status", Truncate(string(s), 40))
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
func (f RelationFilter) Counts(l Link) bool { return f.CountsLink(&l) }

func (f *RelationFilter) CountsLink(l *Link) bool {
	return f.CountsParts(l.Deleted, l.Type, l.Effective(), l.Dated, &l.Support)
}

// CountsParts is Counts on the parts of a link it reads: whether it is deleted, its type, when it holds
// with both its ends in existence (Link.Effective), whether it is dated, and its support.
func (f *RelationFilter) CountsParts(deleted bool, typ RelationType, effective Period, dated bool, support *Support) bool {
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
	return f.CountsBrief(false, dated, support)
}

// Words says the filter in words, as an export's header records it: "as of 2014; undated relations
// excluded; types MEMBER_OF, LEADS; statuses ALLEGED, REPORTED, CONFIRMED (DENIED only when named;
// disputed relations through CONFIRMED claims alone); confidence at least 0.5". Parts it leaves at their
// default (every type, any time, any confidence) are not said.
func (f RelationFilter) Words() string {
	var parts []string
	if !f.AsOf.IsZero() {
		parts = append(parts, "as of "+f.AsOf.String())
	}
	switch {
	case f.Undated == UndatedInclude && !f.AsOf.IsZero():
		parts = append(parts, "undated relations included")
	case f.Undated == UndatedExclude:
		parts = append(parts, "undated relations excluded")
	case !f.AsOf.IsZero():
		parts = append(parts, "undated relations excluded")
	}
	list := func(label string, ts []RelationType) {
		if len(ts) == 0 {
			return
		}
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = string(t)
		}
		parts = append(parts, label+" "+strings.Join(names, ", "))
	}
	list("types", f.IncludeTypes)
	list("not types", f.ExcludeTypes)
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	names := make([]string, len(statuses))
	for i, st := range statuses {
		names[i] = string(st)
	}
	s := "statuses " + strings.Join(names, ", ")
	if !slices.Contains(statuses, StatusDenied) {
		s += " (a relation some claim denies counts only through a CONFIRMED one)"
	}
	parts = append(parts, s)
	if f.MinConfidence > 0 {
		parts = append(parts, "confidence at least "+strconv.FormatFloat(f.MinConfidence, 'g', -1, 64))
	}
	return strings.Join(parts, "; ")
}

// Plain reports whether the filter asks nothing of a relation's type or time: whether it counts or not
// is then told by countsBrief alone.
func (f *RelationFilter) Plain() bool {
	return len(f.IncludeTypes) == 0 && len(f.ExcludeTypes) == 0 && f.AsOf.IsZero()
}

// IsDefault reports whether the filter is the default one: it counts what the zero RelationFilter does.
func (f *RelationFilter) IsDefault() bool {
	return f.Plain() && len(f.Statuses) == 0 && f.MinConfidence <= 0 && (f.Undated == "" || f.Undated == UndatedInclude)
}

// CountsBrief is Counts on what a plain filter reads of a link: whether it is deleted, whether it is
// dated, and its support.
func (f *RelationFilter) CountsBrief(deleted, dated bool, support *Support) bool {
	if deleted {
		return false
	}
	if !dated && !f.IncludesUndated() {
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
	// Sources keeps the claims of some sources only: relations count, and routes are weighed, by them.
	Sources SourceFilter
	// LongerBy admits routes up to this many hops longer than the shortest found ahead of shorter ones
	// when they are much better evidenced (RankRoutes).
	LongerBy int
}

// MaxLongerBy bounds PathQuery.LongerBy; LongerHopCost is the score an extra hop must be paid for with.
const (
	MaxLongerBy   = 3
	LongerHopCost = 0.25
)

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
	q.Sources.Validate("sources.", &v)
	if q.LongerBy < 0 || q.LongerBy > MaxLongerBy {
		v.Add("longer_by", "must be between 0 and %d, got %d", MaxLongerBy, q.LongerBy)
	}
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
	// Evidence is how well the route is evidenced (FindPaths weighs it; zero from graph/walk alone).
	Evidence RouteEvidence
	// Reason says, in words, the route's evidence and where it comes from (Evidence.Reason).
	Reason string
}

// Len is the path's length in hops.
func (p Path) Len() int { return len(p.Hops) }

// SearchResult is an entity matching a search, with what matched and how well.
type SearchResult struct {
	Entity  Entity
	Matched string
	Score   float64
	// Summary tells the entity from its namesakes (SearchEntities fills it): its years, and a person's
	// latest party and seat.
	Summary string
}

// SearchQuery asks for entities by name or alias.
type SearchQuery struct {
	Text  string
	Kinds []Kind // empty: every kind
}

// Indexed names the i-th element of a request field, as field violations do.
func Indexed(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }
