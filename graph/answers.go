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
}

// MaxHistory bounds the changes GetEntity and GetRelation show.
const MaxHistory = 50
