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

// referenceNeighborhood is the neighbourhood done plainly: the walk with every expanded entity's counted
// links sorted in full (strongest first, then the other end's name, then the relation's) and taken in
// turn; true distances by a breadth-first search of the whole counted graph; every counted relation
// among the answer's entities (and to excluded ones), sorted and cut at MaxEdges; and, per expanded
// entity, the distinct entities and the relations the answer leaves out.
// It also returns the distance at which the walk reached each entity.
func referenceNeighborhood(ents []graph.Entity, rels []graph.Relation, q graph.NeighborhoodQuery, center graph.EntityName) (graph.Walked, map[graph.EntityName]int) {
	q.Normalize()
	var links []graph.Link
	for _, l := range graphtest.Links(ents, rels) {
		if q.Filter.Counts(l) {
			links = append(links, l)
		}
	}
	adj := map[graph.EntityName][]graph.Link{}
	for _, l := range links {
		adj[l.From] = append(adj[l.From], l)
		adj[l.To] = append(adj[l.To], l)
	}
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
	walkedAt := map[graph.EntityName]int{center: 0}
	reached := []graph.EntityName{center}
	var expanded []graph.EntityName
	frontier := []graph.EntityName{center}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		var next []graph.EntityName
		for _, u := range frontier {
			expanded = append(expanded, u)
			ls := slices.Clone(adj[u])
			slices.SortFunc(ls, func(a, b graph.Link) int {
				return cmp.Or(-cmp.Compare(q.Filter.Strength(a.Support), q.Filter.Strength(b.Support)),
					strings.Compare(string(other(a, u)), string(other(b, u))), strings.Compare(string(a.Name), string(b.Name)))
			})
			n := 0
			for _, l := range ls {
				w := other(l, u)
				if excluded[w] || shown[w] || n >= q.MaxPerNode || len(reached) >= q.MaxNodes {
					continue
				}
				n++
				shown[w] = true
				walkedAt[w] = d
				reached = append(reached, w)
				next = append(next, w)
			}
		}
		frontier = next
	}
	// True distances: a plain BFS of the whole counted graph.
	bfs := map[graph.EntityName]int{center: 0}
	for level := []graph.EntityName{center}; len(level) > 0; {
		var next []graph.EntityName
		for _, u := range level {
			for _, l := range adj[u] {
				if w := other(l, u); !slices.Contains(slices.Collect(mapsKeys(bfs)), w) {
					bfs[w] = bfs[u] + 1
					next = append(next, w)
				}
			}
		}
		level = next
	}
	out := graph.Walked{Dist: map[graph.EntityName]int{}}
	out.Nodes = slices.Clone(reached)
	slices.SortStableFunc(out.Nodes, func(a, b graph.EntityName) int { return cmp.Compare(bfs[a], bfs[b]) })
	pos := map[graph.EntityName]int{}
	for i, n := range out.Nodes {
		pos[n] = i
		out.Dist[n] = bfs[n]
	}
	type edge struct {
		name graph.RelationName
		at   int
	}
	var edges []edge
	for _, l := range links {
		pf, inF := pos[l.From]
		pt, inT := pos[l.To]
		switch {
		case inF && inT:
			edges = append(edges, edge{l.Name, max(pf, pt)})
		case inF && excluded[l.To]:
			edges = append(edges, edge{l.Name, pf})
		case inT && excluded[l.From]:
			edges = append(edges, edge{l.Name, pt})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(string(a.name), string(b.name)))
	})
	if len(edges) > q.MaxEdges {
		out.EdgesLeftOut = len(edges) - q.MaxEdges
		edges = edges[:q.MaxEdges]
	}
	for _, e := range edges {
		out.Edges = append(out.Edges, e.name)
	}
	for _, u := range expanded {
		left := map[graph.EntityName]bool{}
		var counts []graph.RelationCount
		for _, l := range adj[u] {
			w := other(l, u)
			if _, in := pos[w]; in || excluded[w] {
				continue
			}
			left[w] = true
			counts = append(counts, graph.RelationCount{Type: l.Type, Outgoing: l.From == u || l.Symmetric, Count: 1})
		}
		if len(left) > 0 {
			out.Cut = append(out.Cut, graph.Truncation{Entity: u, LeftOut: len(left), RelationsLeftOut: len(counts), ByType: graph.SumRelationCounts(counts)})
		}
	}
	return out, walkedAt
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestNeighborhoodWalkAgreesWithReference checks the walk, which orders only the candidates the caps
// let through, against the plain walk on random graphs, caps and exclusions, from a LinkSource and from a
// Topology.
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
		sources := map[string]graph.LinkSource{"links": graphtest.NewMemoryLinks(ents, rels), "topology": topo}
		r := rand.New(rand.NewPCG(seed, 11))
		for i := 0; i < 5; i++ {
			center := ents[r.IntN(len(ents))].Name
			q := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(3),
				MaxPerNode: 1 + r.IntN(4), MaxNodes: 2 + r.IntN(14), MaxEdges: 1 + r.IntN(40), Filter: graphtest.RandomQuery(r, ents).Filter}
			for j := r.IntN(3); j > 0; j-- {
				q.Exclude = append(q.Exclude, ents[r.IntN(len(ents))].Name)
			}
			want, walkedAt := referenceNeighborhood(ents, rels, q, center)
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
