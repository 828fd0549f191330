package service_test

import (
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
)

// TestSearchTellsNamesakesApart: two people of one name differ by their years, party and seat.
func TestSearchTellsNamesakesApart(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	src := graph.Source{Name: "sources/register", Title: "Register", Kind: graph.SourceDataset}
	ents := []graph.Entity{
		{Name: "actors/angela-smith", Kind: graph.KindActor, DisplayName: "Angela Smith", Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1959}}},
		{Name: "actors/angela-smith-1961", Kind: graph.KindActor, DisplayName: "Angela Smith", Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1961}}},
		{Name: "parties/labour", Kind: graph.KindParty, DisplayName: "Labour"},
		{Name: "parties/change-uk", Kind: graph.KindParty, DisplayName: "Change UK", ValidFrom: graph.FuzzyDate{Year: 2019}},
		{Name: "seats/basildon", Kind: graph.KindSeat, DisplayName: "Basildon"},
		{Name: "seats/penistone-and-stocksbridge", Kind: graph.KindSeat, DisplayName: "Penistone and Stocksbridge"},
	}
	rel := func(from graph.EntityName, typ graph.RelationType, to graph.EntityName, start, end int) graph.Relation {
		r := graph.Relation{Type: typ, From: from, To: to, ValidFrom: graph.FuzzyDate{Year: start}, ValidTo: graph.FuzzyDate{Year: end}}
		r.Name = graph.RelationNameFor(from, typ, to, "")
		r.Claims = []graph.Claim{{Name: graph.ClaimNameFor(r.Name, src.Name, ""), Source: graph.Source{Name: src.Name}, Confidence: 0.9, Status: graph.StatusReported}}
		return r
	}
	rels := []graph.Relation{
		rel("actors/angela-smith", graph.MemberOf, "parties/labour", 1997, 2019),
		rel("actors/angela-smith", graph.MemberOf, "parties/change-uk", 2019, 2019),
		rel("actors/angela-smith", graph.HoldsOffice, "seats/penistone-and-stocksbridge", 2010, 2019),
		rel("actors/angela-smith-1961", graph.MemberOf, "parties/labour", 1997, 0),
		rel("actors/angela-smith-1961", graph.HoldsOffice, "seats/basildon", 1997, 2005),
	}
	for _, err := range []error{store.UpsertSources(ctx, []graph.Source{src}), store.UpsertEntities(ctx, ents), store.UpsertRelations(ctx, rels)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := (&service.Service{Store: store}).Search(ctx, graph.SearchQuery{Text: "Angela Smith"}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[graph.EntityName]string{
		"actors/angela-smith":      "born 1959; Change UK; Penistone and Stocksbridge, 2010–2019",
		"actors/angela-smith-1961": "born 1961; Labour; Basildon, 1997–2005",
	}
	if len(got) != 2 {
		t.Fatalf("%d results, want 2", len(got))
	}
	for _, r := range got {
		if r.Summary != want[r.Entity.Name] {
			t.Errorf("%s: summary %q, want %q", r.Entity.Name, r.Summary, want[r.Entity.Name])
		}
	}
}
