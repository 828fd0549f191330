package memgraph

import (
	"context"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// Walked is the whole answer of a neighbourhood walk, for the external tests.
type Walked struct {
	Nodes        []graph.EntityName
	Dist         map[graph.EntityName]int
	Edges        []graph.RelationName // in answer order
	EdgesLeftOut int
	Cut          []graph.Truncation
}

// WalkNeighborhood exposes walkNeighborhood to the external tests.
func WalkNeighborhood(ctx context.Context, src graph.LinkSource, q graph.NeighborhoodQuery, center graph.EntityName) (Walked, error) {
	q.Normalize()
	g, release, err := walk.OpenGraph(ctx, src)
	if err != nil {
		return Walked{}, err
	}
	defer release()
	w, err := walk.Around(ctx, g, q, center, graph.DefaultWorkBudget)
	out := Walked{Nodes: w.Nodes, Dist: w.Dist, EdgesLeftOut: w.EdgesLeftOut, Cut: w.Cut}
	for _, e := range w.Edges {
		out.Edges = append(out.Edges, e.Name)
	}
	return out, err
}

// SearchSnapshot answers a search from the topology's published snapshot, for the external benchmarks.
func SearchSnapshot(t *Topology, q graph.SearchQuery) []graph.SearchResult {
	return t.snap.Load().search(q)
}

// NewTopologyIndexing returns a topology over feed that indexes every list of at least hubMin
// relations (hubindex.go), for tests that walk indexed lists on small graphs.
func NewTopologyIndexing(feed graph.ChangeFeed, hubMin int) *Topology {
	t := NewTopology(feed)
	t.snap.Store(&topoSnapshot{hubMin: hubMin})
	return t
}
