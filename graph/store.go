package graph

import "context"

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
	Counts(ctx context.Context) (GraphCounts, error)
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
