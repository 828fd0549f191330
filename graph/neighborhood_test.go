package graph_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/graphtest"
)

// referenceNeighborhood is the neighbourhood walk done plainly: every expanded entity's counted links
// sorted in full (strongest first, then the other end's name, then the relation's), then taken in turn.
func referenceNeighborhood(rels []graph.Relation, q graph.NeighborhoodQuery, center graph.EntityName) ([]graph.EntityName, []graph.RelationName, []graph.Truncation) {
	q.Normalize()
	src := graphtest.NewMemoryLinks(rels)
	excluded := map[graph.EntityName]bool{}
	for _, n := range q.Exclude {
		excluded[n] = n != center
	}
	other := func(l graph.Link, u graph.EntityName) graph.EntityName {
		if l.From == u {
			return l.To
		}
		return l.From
	}
	shown := map[graph.EntityName]bool{center: true}
	nodes := []graph.EntityName{center}
	edges := map[graph.RelationName]bool{}
	var cut []graph.Truncation
	frontier := []graph.EntityName{center}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		var next []graph.EntityName
		for _, u := range frontier {
			ls := slices.DeleteFunc(slices.Clone(src[u]), func(l graph.Link) bool { return !q.Filter.Counts(l) })
			slices.SortFunc(ls, func(a, b graph.Link) int {
				return cmp.Or(-cmp.Compare(q.Filter.Strength(a), q.Filter.Strength(b)),
					strings.Compare(string(other(a, u)), string(other(b, u))), strings.Compare(string(a.Name), string(b.Name)))
			})
			n := 0
			var left []graph.RelationCount
			for _, l := range ls {
				w := other(l, u)
				switch {
				case excluded[w] || shown[w]:
					edges[l.Name] = true
				case n >= q.MaxPerNode || len(nodes) >= q.MaxNodes:
					left = append(left, graph.RelationCount{Type: l.Type, Outgoing: l.From == u || l.Symmetric, Count: 1})
				default:
					n++
					shown[w] = true
					nodes = append(nodes, w)
					next = append(next, w)
					edges[l.Name] = true
				}
			}
			if len(left) > 0 {
				cut = append(cut, graph.Truncation{Entity: u, LeftOut: len(left), ByType: graph.SumRelationCounts(left)})
			}
		}
		frontier = next
	}
	var names []graph.RelationName
	for n := range edges {
		names = append(names, n)
	}
	slices.Sort(names)
	return nodes, names, cut
}

// TestNeighborhoodWalkAgreesWithReference checks the walk, which orders only the candidates the caps
// let through, against the plain walk on random graphs, caps and exclusions, from a LinkSource and from a
// Topology.
func TestNeighborhoodWalkAgreesWithReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cutSome := 0
	for seed := uint64(1); seed <= 200; seed++ {
		n := 8 + int(seed%25)
		ents, rels := graphtest.RandomGraph(seed, n, 2*n+int(seed%uint64(3*n)))
		topo := graph.NewTopology(graphtest.NewMemoryFeed(rels))
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		sources := map[string]graph.LinkSource{"links": graphtest.NewMemoryLinks(rels), "topology": topo}
		r := rand.New(rand.NewPCG(seed, 11))
		for i := 0; i < 5; i++ {
			center := ents[r.IntN(len(ents))].Name
			q := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(3),
				MaxPerNode: 1 + r.IntN(4), MaxNodes: 2 + r.IntN(14), Filter: graphtest.RandomQuery(r, ents).Filter}
			for j := r.IntN(3); j > 0; j-- {
				q.Exclude = append(q.Exclude, ents[r.IntN(len(ents))].Name)
			}
			wantNodes, wantEdges, wantCut := referenceNeighborhood(rels, q, center)
			if len(wantCut) > 0 {
				cutSome++
			}
			for name, src := range sources {
				nodes, edges, cut, err := graph.WalkNeighborhood(ctx, src, q, center)
				if err != nil {
					t.Fatalf("%s: seed %d %+v: %v", name, seed, q, err)
				}
				if !slices.Equal(nodes, wantNodes) || !slices.Equal(edges, wantEdges) || !reflect.DeepEqual(cut, wantCut) {
					t.Fatalf("%s: seed %d %+v:\nnodes %v\n want %v\nedges %v\n want %v\ncut %v\nwant %v",
						name, seed, q, nodes, wantNodes, edges, wantEdges, cut, wantCut)
				}
			}
		}
	}
	if cutSome < 300 {
		t.Errorf("only %d of 1000 walks hit a cap; the test is too weak", cutSome)
	}
}
