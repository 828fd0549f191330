package rpc_test

import (
	"context"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// The smaller trips of issue 52, over gRPC on the default graph.

// symmetricType reports whether a relation type of the API has no direction.
func symmetricType(t pb.RelationType) bool {
	return graph.RelationType(t.String()[len("RELATION_TYPE_"):]).Symmetric()
}

// TestRelationCountsOfSymmetricTypesHaveNoDirection: a symmetric type is counted once, undirected and not
// outgoing; every other type outgoing or incoming.
func TestRelationCountsOfSymmetricTypesHaveNoDirection(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	check := func(what string, cs []*pb.RelationCount) (undirected int) {
		t.Helper()
		seen := map[pb.RelationType]int{}
		for _, c := range cs {
			sym := symmetricType(c.GetType())
			if c.GetUndirected() != sym || sym && c.GetOutgoing() {
				t.Errorf("%s: %v counted undirected=%v outgoing=%v", what, c.GetType(), c.GetUndirected(), c.GetOutgoing())
			}
			if sym {
				undirected += int(c.GetCount())
				if seen[c.GetType()]++; seen[c.GetType()] > 1 {
					t.Errorf("%s: %v counted twice", what, c.GetType())
				}
			}
		}
		return undirected
	}
	tests := []struct {
		name   string
		filter *pb.RelationFilter
		want   int // Lutfur Rahman's symmetric relations: 2 APPEARED_WITH, 2 FORMERLY_WORKED_WITH
	}{
		{"every relation", nil, 4},
		{"the default filter", &pb.RelationFilter{}, 4},
		{"as of 2014", &pb.RelationFilter{AsOf: "2014"}, 2},
	}
	for _, tc := range tests {
		resp, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman", Filter: tc.filter})
		if err != nil {
			t.Fatal(err)
		}
		if got := check(tc.name, resp.GetRelationCounts()); got != tc.want {
			t.Errorf("%s: %d symmetric relations counted, want %d", tc.name, got, tc.want)
		}
	}
	around, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", MaxPerNode: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tr := range around.GetTruncated() {
		n += check("truncated "+tr.GetEntity(), tr.GetByType())
	}
	if n == 0 {
		t.Error("no symmetric relation left out around Lutfur Rahman with 5 per node; the test checks nothing")
	}
}
