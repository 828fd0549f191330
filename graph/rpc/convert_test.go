package rpc

import (
	"testing"

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
