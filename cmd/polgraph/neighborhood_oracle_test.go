package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// TestExploreNeighborhoodAgreesWithOracleOnRandomGraphs loads random multigraphs (parallel relations,
// entity lifetimes, events, undated relations) into Dgraph and checks every neighbourhood over gRPC —
// its entities in order with their true distances, the induced edges in order, what the caps left out
// (entities and relations) — against the plain walk of graphtest.OracleNeighborhood, with random caps,
// exclusions and filters.
func TestExploreNeighborhoodAgreesWithOracleOnRandomGraphs(t *testing.T) {
	ctx := context.Background()
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	const graphs, perGraph = 30, 10
	compared, cut, edgesCut, shortened := 0, 0, 0, 0
	for g := uint64(1); g <= graphs; g++ {
		n := 10 + int(g%15)
		ents, rels := graphtest.RandomGraph(5000+g, n, 3*n+int(g%uint64(n)))
		if err := store.UpsertEntities(ctx, ents); err != nil {
			t.Fatal(err)
		}
		if err := store.UpsertRelations(ctx, rels); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(g, 77))
		for i := 0; i < perGraph; i++ {
			center := ents[r.IntN(len(ents))].Name
			q := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(3), MaxPerNode: 1 + r.IntN(4),
				MaxNodes: 2 + r.IntN(14), MaxEdges: 1 + r.IntN(40), Filter: graphtest.RandomQuery(r, ents).Filter}
			for j := r.IntN(3); j > 0; j-- {
				q.Exclude = append(q.Exclude, ents[r.IntN(len(ents))].Name)
			}
			want, walkedAt := graphtest.OracleNeighborhood(ents, rels, q, center)
			req := &pb.ExploreNeighborhoodRequest{Name: q.Center, Depth: int32(q.Depth), MaxPerNode: int32(q.MaxPerNode),
				MaxNodes: int32(q.MaxNodes), MaxEdges: int32(q.MaxEdges), Filter: toFilterPB(q.Filter)}
			for _, e := range q.Exclude {
				req.Exclude = append(req.Exclude, string(e))
			}
			resp, err := client.ExploreNeighborhood(ctx, req)
			if err != nil {
				t.Fatalf("graph %d query %+v: %v", g, q, err)
			}
			got := graphtest.Neighborhood{Dist: map[graph.EntityName]int{}, EdgesLeftOut: int(resp.GetEdgesLeftOut())}
			for _, node := range resp.GetNodes() {
				name := graph.EntityName(node.GetEntity().GetName())
				got.Nodes = append(got.Nodes, name)
				got.Dist[name] = int(node.GetDistance())
			}
			for _, e := range resp.GetEdges() {
				got.Edges = append(got.Edges, graph.RelationName(e.GetName()))
			}
			for _, tr := range resp.GetTruncated() {
				gt := graph.Truncation{Entity: graph.EntityName(tr.GetEntity()), LeftOut: int(tr.GetLeftOut()), RelationsLeftOut: int(tr.GetRelationsLeftOut()),
					Unexpanded: tr.GetUnexpanded()}
				for _, c := range tr.GetByType() {
					gt.ByType = append(gt.ByType, graph.RelationCount{Type: graph.RelationType(c.GetType().String()[len("RELATION_TYPE_"):]),
						Outgoing: c.GetOutgoing() || c.GetUndirected(), Count: int(c.GetCount())}) // the domain counts a symmetric type as outgoing
				}
				got.Cut = append(got.Cut, gt)
			}
			if !reflect.DeepEqual(fmt.Sprint(got), fmt.Sprint(want)) {
				t.Fatalf("graph %d query %+v:\n got %+v\nwant %+v", g, q, got, want)
			}
			compared++
			if len(want.Cut) > 0 {
				cut++
			}
			if want.EdgesLeftOut > 0 {
				edgesCut++
			}
			for n, d := range want.Dist {
				if d < walkedAt[n] {
					shortened++
				}
			}
		}
	}
	t.Logf("compared %d neighbourhoods with the oracle: %d cut by the caps, %d with edges left out, %d entities nearer than the walk reached them", compared, cut, edgesCut, shortened)
	if cut < 60 || edgesCut < 10 || shortened < 5 {
		t.Errorf("too few cases exercised the caps, the edge cap or the true distances; the test is too weak")
	}
}
