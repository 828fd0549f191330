package graph

// EntityInfo is an entity with a summary of its relations.
type EntityInfo struct {
	Entity Entity
	Counts []RelationCount
	// RedirectedFrom is the name asked for, when it is a merged entity's that resolved to Entity.
	RedirectedFrom EntityName
}

// Search limits.
const (
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// PathsAnswer is the answer to a path query: the paths, every relation on them with all its claims, and
// every entity on them.
type PathsAnswer struct {
	From, To  Entity
	Paths     []Path
	Relations map[RelationName]Relation
	Entities  []Entity
	// IfRelaxed says, of an answer its filter emptied, what would change it.
	IfRelaxed []Relaxation
	// NoPath says, when there is no path, why, in words: an end without relations, or without any that
	// counts under the filter, or no route within the depth.
	NoPath string
	// RankingCapped is set when the last length had more routes than were weighed (MaxRanked): the order
	// among them is the best evidenced of the first by name.
	RankingCapped bool
}

// Ranking routes by evidence: FindPaths weighs the routes asked for and RankingExtra more, at most
// MaxRanked, and orders them by graph.ByEvidence.
const (
	RankingExtra = 30
	MaxRanked    = 50
)

// Relaxation is what an answer that its filter emptied would hold without one part of the filter.
type Relaxation struct {
	// Change is the part relaxed, in words that follow "if": "undated relations are included".
	Change string
	// Results is how many results the answer would hold: paths, entities around the centre.
	Results int
}

// Looser is a filter one step looser than another, and the step in words.
type Looser struct {
	Change string
	Filter RelationFilter
}

// Relaxations lists the filters one step looser than f: undated relations included (when f asks about a
// date and leaves them out), no date asked about, every relation type, any confidence, the default
// statuses. A default filter has none.
func Relaxations(f RelationFilter) []Looser {
	var out []Looser
	add := func(change string, g RelationFilter) { out = append(out, Looser{change, g}) }
	if !f.AsOf.IsZero() && !f.IncludesUndated() {
		g := f
		g.Undated = UndatedInclude
		add("undated relations are included", g)
	}
	if !f.AsOf.IsZero() {
		g := f
		g.AsOf, g.Undated = FuzzyDate{}, UndatedDefault
		add("no date is asked about", g)
	}
	if len(f.IncludeTypes) > 0 || len(f.ExcludeTypes) > 0 {
		g := f
		g.IncludeTypes, g.ExcludeTypes = nil, nil
		add("every relation type counts", g)
	}
	if f.MinConfidence > 0 {
		g := f
		g.MinConfidence = 0
		add("any confidence counts", g)
	}
	if len(f.Statuses) > 0 {
		g := f
		g.Statuses = nil
		add("the default statuses count", g)
	}
	return out
}

// MaxHistory bounds the changes GetEntity and GetRelation show.
const MaxHistory = 50
