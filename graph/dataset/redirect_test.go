package dataset

import (
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

func rel(t graph.RelationType, from, to graph.EntityName, key string, claims ...string) graph.Relation {
	r := graph.Relation{Type: t, From: from, To: to, Name: graph.RelationNameFor(from, t, to, key)}
	for _, src := range claims {
		r.Claims = append(r.Claims, graph.Claim{Name: graph.ClaimNameFor(r.Name, graph.SourceName(src), ""), Source: graph.Source{Name: graph.SourceName(src)}})
	}
	return r
}

func TestRedirect(t *testing.T) {
	merged := map[graph.EntityName]graph.EntityName{"actors/dup": "actors/main"}
	viaDup := rel(graph.HoldsOffice, "actors/kim", "seats/s", "", "sources/a")
	viaDup.Via = "actors/dup"
	saidDup := rel(graph.Endorses, "actors/abe", "actors/kim", "", "sources/a")
	saidDup.Claims[0].SaidBy = "actors/dup"
	for _, tc := range []struct {
		name string
		in   []graph.Relation
		want []graph.Relation
	}{
		{"nothing merged", []graph.Relation{rel(graph.Endorses, "actors/abe", "actors/kim", "", "sources/a")},
			[]graph.Relation{rel(graph.Endorses, "actors/abe", "actors/kim", "", "sources/a")}},
		{"an end, with its key and claims renamed", []graph.Relation{rel(graph.Endorses, "actors/dup", "actors/kim", "k1", "sources/a")},
			[]graph.Relation{rel(graph.Endorses, "actors/main", "actors/kim", "k1", "sources/a")}},
		{"a symmetric relation ordered anew", []graph.Relation{rel(graph.FormerlyWorkedWith, "actors/dup", "actors/kim", "", "sources/a")},
			[]graph.Relation{rel(graph.FormerlyWorkedWith, "actors/kim", "actors/main", "", "sources/a")}},
		{"one between the two is left out", []graph.Relation{rel(graph.CampaignedWith, "actors/dup", "actors/main", "", "sources/a")}, []graph.Relation{}},
		{"two that become one keep each claim once", []graph.Relation{
			rel(graph.Endorses, "actors/main", "actors/kim", "", "sources/a", "sources/b"),
			rel(graph.Endorses, "actors/dup", "actors/kim", "", "sources/b", "sources/c")},
			[]graph.Relation{rel(graph.Endorses, "actors/main", "actors/kim", "", "sources/a", "sources/b", "sources/c")}},
		{"via", []graph.Relation{viaDup}, []graph.Relation{func() graph.Relation {
			r := rel(graph.HoldsOffice, "actors/kim", "seats/s", "", "sources/a")
			r.Via = "actors/main"
			return r
		}()}},
		{"said by", []graph.Relation{saidDup}, []graph.Relation{func() graph.Relation {
			r := rel(graph.Endorses, "actors/abe", "actors/kim", "", "sources/a")
			r.Claims[0].SaidBy = "actors/main"
			return r
		}()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := Redirect(in, merged)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d relations, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, _ := graph.RelationRecord(got[i])
				w, _ := graph.RelationRecord(tc.want[i])
				if graph.RecordJSON(g) != graph.RecordJSON(w) || got[i].Name != tc.want[i].Name {
					t.Errorf("relation %d:\n%s %s\nwant\n%s %s", i, got[i].Name, graph.RecordJSON(g), tc.want[i].Name, graph.RecordJSON(w))
				}
			}
			for i := range in {
				if in[i].Name != tc.in[i].Name {
					t.Error("Redirect changed its input")
				}
			}
		})
	}
}
