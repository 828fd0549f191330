package graph

import (
	"context"
)

// Walked is the whole answer of a neighbourhood walk, for the external tests.
type Walked struct {
	Nodes        []EntityName
	Dist         map[EntityName]int
	Edges        []RelationName // in answer order
	EdgesLeftOut int
	Cut          []Truncation
}

// WalkNeighborhood exposes walkNeighborhood to the external tests.
func WalkNeighborhood(ctx context.Context, src LinkSource, q NeighborhoodQuery, center EntityName) (Walked, error) {
	q.Normalize()
	g, release, err := openGraph(ctx, src)
	if err != nil {
		return Walked{}, err
	}
	defer release()
	w, err := walkNeighborhood(ctx, g, q, center, DefaultWorkBudget)
	out := Walked{Nodes: w.nodes, Dist: w.dist, EdgesLeftOut: w.edgesLeftOut, Cut: w.cut}
	for _, e := range w.edges {
		out.Edges = append(out.Edges, e.name)
	}
	return out, err
}

// SearchSnapshot answers a search from the topology's published snapshot, for the external benchmarks.
func SearchSnapshot(t *Topology, q SearchQuery) []SearchResult { return t.snap.Load().search(q) }

// NewTopologyIndexing returns a topology over feed that indexes every list of at least hubMin
// relations (hubindex.go), for tests that walk indexed lists on small graphs.
func NewTopologyIndexing(feed ChangeFeed, hubMin int) *Topology {
	t := NewTopology(feed)
	t.snap.Store(&topoSnapshot{hubMin: hubMin})
	return t
}
