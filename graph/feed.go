package graph

import "context"

// ChangeFeed tells what changed in the graph since a version. The Dgraph store is one: every write of
// relations or entities raises the graph's version by one and marks what it wrote with the new version.
type ChangeFeed interface {
	// Version returns the graph's current version (0 before anything was written).
	Version(ctx context.Context) (int64, error)
	// Changes calls each with batches of every entity and every relation changed after version since
	// (from 0: every entity and relation), all read from one snapshot of the graph, and returns that
	// snapshot's version.
	Changes(ctx context.Context, since int64, each func(Changed)) (int64, error)
}

// Generations is implemented by a ChangeFeed whose graph can be replaced under it (dropped and written
// again): Generation counts the replacements the feed has noticed, and a topology filled in an earlier
// generation, or whose catch-up saw the generation change, fills again from nothing.
type Generations interface {
	Generation() int64
}

// ReasonGraphReplaced is the reason of an error for want of a graph that was replaced (dropped and written
// again) while the call ran.
const ReasonGraphReplaced = "GRAPH_REPLACED"

// Changed is one batch of a ChangeFeed: sources and entities as written, and the links of relations
// written with, when the feed gives them, their headers (Headers[i] is Links[i]'s, as Store.RelationHeaders
// reads it; a zero header where the feed has none for that link, which answers then read from the store).
//
// When Evidence is set, each header given also holds its relation's claims, retracted ones included, each
// naming its source by name only (Claim.Source.Name): the relation as Store.GetRelations reads it, but for
// the sources, which the feed gives in Sources (every source from version 0, then those changed), before
// the relations that cite them. Answers then read such a relation whole from memory.
type Changed struct {
	Sources  []Source
	Entities []Entity
	Links    []Link
	Headers  []RelationHeader
	Evidence bool
}

// ReasonCatchingUp is the reason of Synced's error when the topology is still catching up.
const ReasonCatchingUp = "GRAPH_CATCHING_UP"
