package rpc

import (
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// TestEnumsByDomainName checks that every name of the domain's vocabularies converts to the proto enum
// value of that name with the enum's prefix, and that a name outside them converts to UNSPECIFIED.
func TestEnumsByDomainName(t *testing.T) {
	type conversion struct {
		prefix string
		names  []string
		values map[string]int32
		pb     func(string) int32
	}
	strs := func(n int, at func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	kinds := []graph.Kind{graph.KindActor, graph.KindParty, graph.KindSeat, graph.KindOrganisation}
	tests := map[string]conversion{
		"relation types": {"RELATION_TYPE_", strs(len(graph.RelationTypes), func(i int) string { return string(graph.RelationTypes[i]) }),
			pb.RelationType_value, func(s string) int32 { return int32(relationTypePB(graph.RelationType(s))) }},
		"entity kinds": {"ENTITY_KIND_", strs(len(kinds), func(i int) string { return string(kinds[i]) }),
			pb.EntityKind_value, func(s string) int32 { return int32(kindPB(graph.Kind(s))) }},
		"claim statuses": {"CLAIM_STATUS_", strs(len(graph.ClaimStatuses), func(i int) string { return string(graph.ClaimStatuses[i]) }),
			pb.ClaimStatus_value, func(s string) int32 { return int32(statusPB(graph.ClaimStatus(s))) }},
		"source kinds": {"SOURCE_KIND_", strs(len(graph.SourceKinds), func(i int) string { return string(graph.SourceKinds[i]) }),
			pb.SourceKind_value, func(s string) int32 { return int32(sourceKindPB(graph.SourceKind(s))) }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, n := range tc.names {
				want, ok := tc.values[tc.prefix+n]
				if !ok || want == 0 {
					t.Fatalf("the proto enum has no value %s%s", tc.prefix, n)
				}
				if got := tc.pb(n); got != want {
					t.Errorf("%s converts to %d, want %d (%s%s)", n, got, want, tc.prefix, n)
				}
			}
			for _, n := range []string{"", "UNSPECIFIED", "NOT_A_NAME", tc.prefix + tc.names[0]} {
				if got := tc.pb(n); got != 0 {
					t.Errorf("%q converts to %d, want 0 (UNSPECIFIED)", n, got)
				}
			}
		})
	}
}

// TestEdgesConvertEachEdgeWhole converts a page of edges of every shape (a state, an event, an undated
// one, one through its via, one without counted claims, one symmetric) and checks each message field by
// field: a page's messages, verdicts and statuses share arrays, and no edge may show another's.
func TestEdgesConvertEachEdgeWhole(t *testing.T) {
	edge := func(r graph.Relation, claims int, support graph.Support, verdict graph.Verdict, statuses []graph.ClaimStatus, confidence float64, via bool) graph.Edge {
		return graph.Edge{RelationHeader: graph.RelationHeader{Relation: r, ClaimCount: claims, Support: support, Verdict: verdict},
			Statuses: statuses, Confidence: confidence, ThroughVia: via}
	}
	member := graph.Relation{Name: "relations/a.member-of.p", Type: graph.MemberOf, From: "actors/a", To: "parties/p",
		Role: "Councillor", Via: "parties/q", ValidFrom: graph.FuzzyDate{Year: 2010, Month: 5}, ValidTo: graph.FuzzyDate{Year: 2014}}
	edges := []graph.Edge{
		edge(member, 2, graph.Support{0.5, 0.9, -1, -1}, graph.Verdict{Claims: [4]int{1, 1, 0, 0}, SupportingSources: 2},
			[]graph.ClaimStatus{graph.StatusAlleged, graph.StatusReported}, 0.9, false),
		edge(member, 2, graph.Support{0.5, 0.9, -1, -1}, graph.Verdict{Claims: [4]int{1, 1, 0, 0}, SupportingSources: 2},
			[]graph.ClaimStatus{graph.StatusAlleged, graph.StatusReported}, 0.9, true),
		edge(graph.Relation{Name: "relations/a.accused.b", Type: graph.Accused, From: "actors/a", To: "actors/b", Date: graph.FuzzyDate{Year: 2015, Month: 4, Day: 23}},
			3, graph.Support{-1, -1, 1, 0.7}, graph.Verdict{Claims: [4]int{0, 0, 2, 1}, SupportingSources: 2, DenyingSources: 1},
			[]graph.ClaimStatus{graph.StatusConfirmed, graph.StatusDenied}, 1, false),
		edge(graph.Relation{Name: "relations/a.formerly-worked-with.c", Type: graph.FormerlyWorkedWith, From: "actors/a", To: "actors/c"},
			0, graph.NoSupport, graph.Verdict{}, nil, 0, false),
	}
	want := []*pb.Edge{
		{Name: "relations/a.member-of.p", Relation: "relations/a.member-of.p", Type: pb.RelationType_RELATION_TYPE_MEMBER_OF,
			From: "actors/a", To: "parties/p", Role: "Councillor", ValidFrom: "2010-05", ValidTo: "2014", ClaimCount: 2,
			Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED, pb.ClaimStatus_CLAIM_STATUS_REPORTED}, Confidence: 0.9,
			Verdict: &pb.Verdict{SupportingClaims: 2, SupportingSources: 2, Summary: "2 claims support it"}},
		{Name: "relations/a.member-of.p#via", Relation: "relations/a.member-of.p", Type: pb.RelationType_RELATION_TYPE_MEMBER_OF,
			From: "actors/a", To: "parties/q", Role: "Councillor", ValidFrom: "2010-05", ValidTo: "2014", ClaimCount: 2, ThroughVia: true,
			Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED, pb.ClaimStatus_CLAIM_STATUS_REPORTED}, Confidence: 0.9,
			Verdict: &pb.Verdict{SupportingClaims: 2, SupportingSources: 2, Summary: "2 claims support it"}},
		{Name: "relations/a.accused.b", Relation: "relations/a.accused.b", Type: pb.RelationType_RELATION_TYPE_ACCUSED,
			From: "actors/a", To: "actors/b", Date: "2015-04-23", ClaimCount: 3, Confidence: 1,
			Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_CONFIRMED, pb.ClaimStatus_CLAIM_STATUS_DENIED},
			Verdict:  &pb.Verdict{SupportingClaims: 2, DenyingClaims: 1, SupportingSources: 2, DenyingSources: 1, Summary: "1 of 3 claims deny it"}},
		{Name: "relations/a.formerly-worked-with.c", Relation: "relations/a.formerly-worked-with.c", Type: pb.RelationType_RELATION_TYPE_FORMERLY_WORKED_WITH,
			From: "actors/a", To: "actors/c", Symmetric: true, Undated: true, Verdict: &pb.Verdict{Summary: "no claims"}},
	}
	got := edgesPB(edges)
	if len(got) != len(want) {
		t.Fatalf("%d edges, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("edge %d:\n got %v\nwant %v", i, got[i], want[i])
		}
		if one := edgesPB(edges[i : i+1])[0]; !proto.Equal(one, want[i]) {
			t.Errorf("edge %d alone:\n got %v\nwant %v", i, one, want[i])
		}
	}
	// Appending to one edge's statuses must not write into the next edge's.
	got[0].Statuses = append(got[0].Statuses, pb.ClaimStatus_CLAIM_STATUS_DENIED)
	if !proto.Equal(got[1], want[1]) {
		t.Errorf("appending to edge 0's statuses changed edge 1: %v", got[1])
	}
	if n := len(edgesPB(nil)); n != 0 {
		t.Errorf("no edges converted to %d", n)
	}
}
