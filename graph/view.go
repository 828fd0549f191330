package graph

import "context"

// LinkSource gives the links of entities, many at a time. A Store is one.
type LinkSource interface {
	Links(ctx context.Context, entities []EntityName) (map[EntityName][]Link, error)
}

// A View is what one answer reads the graph through: the links its searches walk and the records it
// shows. A Store is one, each read a round trip; the in-memory engine gives views that read one snapshot
// in place. Methods are Store's, with its errors.
type View interface {
	LinkSource
	GetEntity(ctx context.Context, name EntityName) (Entity, error)
	GetEntities(ctx context.Context, names []EntityName) (map[EntityName]Entity, error)
	FindByName(ctx context.Context, text string) ([]Entity, error)
	Search(ctx context.Context, q SearchQuery) ([]SearchResult, error)
	GetRelations(ctx context.Context, names []RelationName) (map[RelationName]Relation, error)
	RelationHeaders(ctx context.Context, names []RelationName) (map[RelationName]RelationHeader, error)
	Degrees(ctx context.Context, entities []EntityName) (map[EntityName]int, error)
}

// Reads opens the View one answer reads: every read of the answer sees the graph as it stood when the
// view was opened, or later, never earlier.
type Reads interface {
	Open(ctx context.Context) (View, error)
}
