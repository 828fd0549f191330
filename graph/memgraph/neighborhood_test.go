package memgraph_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
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
		topo := memgraph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		indexed := memgraph.NewTopologyIndexing(graphtest.NewMemoryFeed(ents, rels), 2)
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
			want := memgraph.Walked{Nodes: ref.Nodes, Dist: ref.Dist, Edges: ref.Edges, EdgesLeftOut: ref.EdgesLeftOut, Cut: ref.Cut}
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
				got, err := memgraph.WalkNeighborhood(ctx, src, q, center)
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

// TestReleasedPagesDoNotChangeLaterAnswers asks for neighbourhoods of several shapes (depths, edge caps
// small and large) on a synthetic graph held in memory, keeps every answer, then asks
// again in another order, releasing each answer as the gRPC server does: each must equal the answer kept,
// though it is built on arrays earlier answers gave back. Each edge's statuses are those its support
// counts, in order, and can be appended to without writing into another edge's.
func TestReleasedPagesDoNotChangeLaterAnswers(t *testing.T) {
	t.Parallel()
	c, topo, err := graphtest.SyntheticTopology(context.Background(), 5000)
	if err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: failingStore{}, Reads: topo.Reads(failingStore{})}
	r := rand.New(rand.NewPCG(3, 4))
	var qs []graph.NeighborhoodQuery
	for range 300 {
		e := c.Entities[r.IntN(len(c.Entities))]
		qs = append(qs, graph.NeighborhoodQuery{Center: string(e.Name), Depth: 1 + r.IntN(2), MaxPerNode: 25, MaxNodes: 100,
			MaxEdges: []int{3, 40, 1000}[r.IntN(3)]})
	}
	ctx := context.Background()
	kept := make([]graph.Neighborhood, len(qs))
	for i, q := range qs {
		if kept[i], err = svc.ExploreNeighborhood(ctx, q); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		for _, e := range kept[i].Edges {
			var want []graph.ClaimStatus
			for k, s := range e.Support {
				if s >= 0 {
					want = append(want, graph.ClaimStatuses[k])
				}
			}
			if !reflect.DeepEqual(e.Statuses, want) || cap(e.Statuses) != len(e.Statuses) {
				t.Fatalf("%s: statuses %v (capacity %d) for support %v", e.Relation.Name, e.Statuses, cap(e.Statuses), e.Support)
			}
		}
	}
	reused, edges := 0, 0
	var released *graph.Edge // the first edge of the array last given back
	for _, i := range r.Perm(len(qs)) {
		got, err := svc.ExploreNeighborhood(ctx, qs[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Edges) > 0 && &got.Edges[0] == released {
			reused++
		}
		edges += len(got.Edges)
		if !reflect.DeepEqual(got, kept[i]) {
			t.Fatalf("%+v: asked again after pages were released:\n got %+v\nwant %+v", qs[i], got, kept[i])
		}
		released = nil
		if len(got.Edges) > 0 {
			released = &got.Edges[0]
		}
		got.Release()
		if got.Edges != nil || got.Nodes != nil {
			t.Fatal("a released answer still shows its edges or nodes")
		}
	}
	if edges < 10*len(qs) || reused < len(qs)/10 {
		t.Errorf("%d edges in %d answers, %d of them on an array an earlier answer gave back: the test is too weak", edges, len(qs), reused)
	}
	t.Logf("%d answers, %d edges, %d answers on a released array", len(qs), edges, reused)
}

// TestEveryHiddenNeighbourAccountedFor: in 1,000 random neighbourhoods with tight caps, every entity
// shown that has a neighbour (under the filter) the answer does not hold, expanded or not, has a
// truncation record counting exactly those neighbours and the relations to them; an entity all of whose
// neighbours are shown has none. Among them are entities shown near the centre that the capped walk
// reached only at its last depth, and so never expanded.
func TestEveryHiddenNeighbourAccountedFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	unexpanded, nearButLate := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		n := 8 + int(seed%25)
		ents, rels := graphtest.RandomGraph(seed, n, 2*n+int(seed%uint64(3*n)))
		topo := memgraph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		links := graphtest.Links(ents, rels)
		r := rand.New(rand.NewPCG(seed, 52))
		for i := 0; i < 5; i++ {
			center := ents[r.IntN(len(ents))].Name
			q := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(3), MaxPerNode: 1 + r.IntN(3),
				MaxNodes: 2 + r.IntN(10), MaxEdges: 100, Filter: graphtest.RandomQuery(r, ents).Filter}
			for j := r.IntN(2); j > 0; j-- {
				q.Exclude = append(q.Exclude, ents[r.IntN(len(ents))].Name)
			}
			got, err := memgraph.WalkNeighborhood(ctx, topo, q, center)
			if err != nil {
				t.Fatal(err)
			}
			_, walkedAt := graphtest.OracleNeighborhood(ents, rels, q, center)
			shown, excluded := map[graph.EntityName]bool{}, map[graph.EntityName]bool{}
			for _, e := range got.Nodes {
				shown[e] = true
			}
			for _, e := range q.Exclude {
				excluded[e] = e != center
			}
			records := map[graph.EntityName]graph.Truncation{}
			for _, c := range got.Cut {
				records[c.Entity] = c
			}
			for _, e := range got.Nodes {
				hidden, relsHidden := map[graph.EntityName]bool{}, 0
				for _, l := range links {
					if !q.Filter.Counts(l) || l.From != e && l.To != e {
						continue
					}
					other := l.To
					if other == e {
						other = l.From
					}
					if !shown[other] && !excluded[other] {
						hidden[other] = true
						relsHidden++
					}
				}
				c, ok := records[e]
				switch {
				case len(hidden) == 0 && ok:
					t.Errorf("seed %d %+v: %s hides nothing but has a record %+v", seed, q, e, c)
				case len(hidden) > 0 && (!ok || c.LeftOut != len(hidden) || c.RelationsLeftOut != relsHidden):
					t.Errorf("seed %d %+v: %s hides %d entities through %d relations; its record %+v (%v)", seed, q, e, len(hidden), relsHidden, c, ok)
				}
				if ok && c.Unexpanded {
					unexpanded++
					if got.Dist[e] < q.Depth && walkedAt[e] == q.Depth {
						nearButLate++
					}
				}
			}
		}
	}
	t.Logf("%d records of entities not expanded, %d of them nearer than the walk reached them", unexpanded, nearButLate)
	if unexpanded < 300 || nearButLate < 5 {
		t.Errorf("%d records of unexpanded entities, %d shown nearer than the walk reached them: the test is too weak", unexpanded, nearButLate)
	}
}
