package service_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
)

// TestEmptyAnswersSayWhatWouldChangeThem: a path, a neighbourhood and connections that a date leaves
// empty say which looser filter would not be.
func TestEmptyAnswersSayWhatWouldChangeThem(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	src := graph.Source{Name: "sources/register", Title: "Register", Kind: graph.SourceDataset}
	ents := []graph.Entity{
		{Name: "actors/a", Kind: graph.KindActor, DisplayName: "A"},
		{Name: "actors/b", Kind: graph.KindActor, DisplayName: "B"},
		{Name: "parties/p", Kind: graph.KindParty, DisplayName: "P"},
	}
	rel := func(from graph.EntityName, r graph.Relation) graph.Relation {
		r.Type, r.From, r.To = graph.MemberOf, from, "parties/p"
		r.Name = graph.RelationNameFor(r.From, r.Type, r.To, "")
		r.Claims = []graph.Claim{{Name: graph.ClaimNameFor(r.Name, src.Name, ""), Source: graph.Source{Name: src.Name}, Confidence: 0.9, Status: graph.StatusReported}}
		return r
	}
	rels := []graph.Relation{
		rel("actors/a", graph.Relation{}), // undated
		rel("actors/b", graph.Relation{ValidFrom: graph.FuzzyDate{Year: 2000}, ValidTo: graph.FuzzyDate{Year: 2010}}),
	}
	if err := store.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: store}
	asOf2005 := graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2005}}
	want := []graph.Relaxation{{Change: "undated relations are included", Results: 1}, {Change: "no date is asked about", Results: 1}}

	paths, err := svc.FindPaths(ctx, graph.PathQuery{From: "actors/a", To: "actors/b", Filter: asOf2005})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths.Paths) != 0 {
		t.Fatalf("a path as of 2005: %v", paths.Paths)
	}
	if diff := cmp.Diff(want, paths.IfRelaxed); diff != "" {
		t.Errorf("FindPaths: if relaxed (-want +got):\n%s", diff)
	}

	n, err := svc.ExploreNeighborhood(ctx, graph.NeighborhoodQuery{Center: "actors/a", Depth: 2, Filter: asOf2005})
	if err != nil {
		t.Fatal(err)
	}
	wantAround := []graph.Relaxation{{Change: "undated relations are included", Results: 2}, {Change: "no date is asked about", Results: 2}}
	if diff := cmp.Diff(wantAround, n.IfRelaxed); diff != "" || n.Total != 1 {
		t.Errorf("ExploreNeighborhood: %d nodes; if relaxed (-want +got):\n%s", n.Total, diff)
	}

	c, err := svc.FindConnections(ctx, graph.ConnectionsQuery{Entities: []string{"actors/a", "actors/b"}, Filter: asOf2005})
	if err != nil {
		t.Fatal(err)
	}
	wantShared := []graph.Relaxation{{Change: "undated relations are included", Results: 2}, {Change: "no date is asked about", Results: 2}}
	if diff := cmp.Diff(wantShared, c.IfRelaxed); diff != "" {
		t.Errorf("FindConnections: if relaxed (-want +got):\n%s", diff)
	}

	// An answer that is not empty, or a default filter, has nothing to say.
	if paths, err := svc.FindPaths(ctx, graph.PathQuery{From: "actors/a", To: "actors/b"}); err != nil || len(paths.Paths) != 1 || paths.IfRelaxed != nil {
		t.Errorf("FindPaths without a date: %d paths, if relaxed %v, %v", len(paths.Paths), paths.IfRelaxed, err)
	}
}
