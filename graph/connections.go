package graph

import (
	"strings"
)

// Limits on connection queries.
const (
	MinConnectionEntities = 2
	MaxConnectionEntities = 10
	DefaultMaxShared      = 20
	MaxMaxShared          = 100
)

// ConnectionsQuery asks what some entities have in common.
type ConnectionsQuery struct {
	Entities  []string // resource names, or names or aliases each naming one entity
	Filter    RelationFilter
	MaxShared int // 0: DefaultMaxShared; caps shared neighbours and shared sources alike
	MaxDepth  int // 0: DefaultMaxDepth; the longest route between two entities
	// Sources keeps the claims of some sources only: relations count, and sources are shared, by them.
	Sources SourceFilter
}

// Normalize fills in defaults.
func (q *ConnectionsQuery) Normalize() {
	if q.MaxShared == 0 {
		q.MaxShared = DefaultMaxShared
	}
	if q.MaxDepth == 0 {
		q.MaxDepth = DefaultMaxDepth
	}
}

// Validate reports every problem with the query as an Invalid error with field violations; the
// entities are only checked for size here (Resolve finds them).
func (q ConnectionsQuery) Validate() error {
	var v Violations
	if CheckCount(&v, "entities", len(q.Entities), MaxConnectionEntities) {
		if len(q.Entities) < MinConnectionEntities {
			v.Add("entities", "%d given; at least %d", len(q.Entities), MinConnectionEntities)
		}
		for i, e := range q.Entities {
			switch e = strings.TrimSpace(e); {
			case e == "":
				v.Add(Indexed("entities", i), "required: a resource name such as actors/lutfur-rahman, or a name")
			case len(e) > MaxQueryLength:
				v.Add(Indexed("entities", i), "%d bytes; at most %d", len(e), MaxQueryLength)
			}
		}
	}
	if q.MaxShared < 1 || q.MaxShared > MaxMaxShared {
		v.Add("max_shared", "must be between 1 and %d, got %d", MaxMaxShared, q.MaxShared)
	}
	if q.MaxDepth < 1 || q.MaxDepth > MaxMaxDepth {
		v.Add("max_depth", "must be between 1 and %d, got %d", MaxMaxDepth, q.MaxDepth)
	}
	q.Sources.Validate("sources.", &v)
	q.Filter.Validate("filter.", &v)
	return v.Err("FindConnections", "invalid connections query")
}

// Join is every counted relation between a shared neighbour and one entity asked about.
type Join struct {
	Input     EntityName
	Relations []Edge // in HopOrder
}

// SharedNeighbor is an entity joined to at least two of the entities asked about.
type SharedNeighbor struct {
	Entity Entity
	Joins  []Join // in the order the entities were asked
	// Strength is the weakest of its joins, each as strong as its strongest relation (RelationFilter.Strength).
	Strength float64
}

// SharedSource is a source whose claims join at least two of the entities asked about (walk.CommonSources).
type SharedSource struct {
	Source Source
	Inputs []EntityName  // in the order asked
	Claims []SourceClaim // by name
}

// Route is the shortest route between two entities asked about; Path is nil when there is none within
// the query's depth.
type Route struct {
	From, To EntityName
	Path     *Path
}

// Connections is the answer to a ConnectionsQuery.
type Connections struct {
	Entities       []Entity // as asked
	Shared         []SharedNeighbor
	SharedLeftOut  int
	Sources        []SharedSource
	SourcesLeftOut int
	Routes         []Route                   // each pair, in the order asked
	Relations      map[RelationName]Relation // every relation on a route, with its claims
	// Related is every entity the routes and the shared sources' claims name, by name.
	Related []Entity
	// IfRelaxed says, of an answer its filter emptied (no shared neighbour, source or route), what
	// would change it: Results counts shared neighbours and the pairs a route joins.
	IfRelaxed []Relaxation
}
