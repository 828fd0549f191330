package graph_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/graphtest"
)

// TestNeighborhoodWalkAgreesWithReference checks the walk, which orders only the candidates the caps
// let through, against the plain walk on random graphs, caps and exclusions, from a LinkSource, from a
// Topology, and from a Topology that indexes every list of two relations or more (as it does a hub's).
func TestNeighborhoodWalkAgreesWithReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cutSome, edgesCut, shortened := 0, 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		n := 8 + int(seed%25)
		ents, rels := graphtest.RandomGraph(seed, n, 2*n+int(seed%uint64(3*n)))
		topo := graph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		indexed := graph.NewTopologyIndexing(graphtest.NewMemoryFeed(ents, rels), 2)
		if err := indexed.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		sources := map[string]graph.LinkSource{"links": graphtest.NewMemoryLinks(ents, rels), "topology": topo, "indexed": indexed}
		r := rand.New(rand.NewPCG(seed, 11))
		for i := 0; i < 5; i++ {
			center := ents[r.IntN(len(ents))].Name
			q := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(3),
				MaxPerNode: 1 + r.IntN(4), MaxNodes: 2 + r.IntN(14), MaxEdges: 1 + r.IntN(40), Filter: graphtest.RandomQuery(r, ents).Filter}
			for j := r.IntN(3); j > 0; j-- {
				q.Exclude = append(q.Exclude, ents[r.IntN(len(ents))].Name)
			}
			ref, walkedAt := graphtest.OracleNeighborhood(ents, rels, q, center)
			want := graph.Walked{Nodes: ref.Nodes, Dist: ref.Dist, Edges: ref.Edges, EdgesLeftOut: ref.EdgesLeftOut, Cut: ref.Cut}
			if len(want.Cut) > 0 {
				cutSome++
			}
			if want.EdgesLeftOut > 0 {
				edgesCut++
			}
			for n, d := range want.Dist {
				if d < walkedAt[n] {
					shortened++
				}
			}
			for name, src := range sources {
				got, err := graph.WalkNeighborhood(ctx, src, q, center)
				if err != nil {
					t.Fatalf("%s: seed %d %+v: %v", name, seed, q, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: seed %d %+v:\n got %+v\nwant %+v", name, seed, q, got, want)
				}
			}
		}
	}
	t.Logf("of 1000 walks, %d hit a cap, %d cut edges; %d entities were nearer than the walk reached them", cutSome, edgesCut, shortened)
	if cutSome < 300 || edgesCut < 50 || shortened < 30 {
		t.Errorf("of 1000 walks, %d hit a cap, %d cut edges, and %d entities were nearer than the walk reached them: the test is too weak", cutSome, edgesCut, shortened)
	}
}
