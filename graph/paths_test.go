package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/graphtest"
)

// TestFindPathsAgreesWithOracle compares the bidirectional Yen search with plain enumeration of every
// simple path on many random graphs and queries.
func TestFindPathsAgreesWithOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nonEmpty := 0
	for seed := uint64(1); seed <= 300; seed++ {
		n := 6 + int(seed%20)
		ents, rels := graphtest.RandomGraph(seed, n, n+n/2+int(seed%(2*uint64(n))))
		topo := graph.NewTopology(graphtest.NewMemoryFeed(rels))
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		// The same search, level by level from a LinkSource and in place on a Topology.
		sources := map[string]graph.LinkSource{"links": graphtest.NewMemoryLinks(rels), "topology": topo}
		r := rand.New(rand.NewPCG(seed, 7))
		for i := 0; i < 5; i++ {
			q := graphtest.RandomQuery(r, ents)
			want := graphtest.OraclePaths(rels, q)
			if len(want) > 0 {
				nonEmpty++
			}
			for name, src := range sources {
				got, err := graph.FindPaths(ctx, src, q, graph.DefaultWorkBudget)
				if err != nil {
					t.Fatalf("%s: seed %d query %+v: %v", name, seed, q, err)
				}
				if !reflect.DeepEqual(want, got) && !(len(want) == 0 && len(got) == 0) {
					t.Fatalf("%s: seed %d query %+v:\nwant %v\n got %v", name, seed, q, want, got)
				}
				for _, p := range got {
					if p.Len() > q.MaxDepth {
						t.Fatalf("%s: path longer than max_depth %d: %v", name, q.MaxDepth, p)
					}
				}
			}
		}
	}
	if nonEmpty < 500 {
		t.Errorf("only %d of 1500 random queries had a path; the test is too weak", nonEmpty)
	}
}

func TestFindPathsStopsAtWorkBudget(t *testing.T) {
	t.Parallel()
	ents, rels := graphtest.RandomGraph(42, 200, 2000)
	q := graph.PathQuery{From: ents[0].Name, To: ents[1].Name, MaxPaths: 20, MaxDepth: 8,
		Filter: graph.RelationFilter{Statuses: []graph.ClaimStatus{graph.StatusConfirmed}}}
	_, err := graph.FindPaths(context.Background(), graphtest.NewMemoryLinks(rels), q, 50)
	if graph.KindOf(err) != graph.ResourceExhausted {
		t.Fatalf("got %v, want a ResourceExhausted error", err)
	}
}

func TestRelationFilterCounts(t *testing.T) {
	t.Parallel()
	endorse := graph.Relation{Type: graph.Endorses, Date: graph.FuzzyDate{Year: 2015},
		Claims: []graph.Claim{{Status: graph.StatusReported, Confidence: 0.8}}}
	denied := graph.Relation{Type: graph.Endorses,
		Claims: []graph.Claim{{Status: graph.StatusDenied, Confidence: 0.9}}}
	disputed := graph.Relation{Type: graph.Endorses, Claims: []graph.Claim{
		{Status: graph.StatusAlleged, Confidence: 0.6}, {Status: graph.StatusDenied, Confidence: 0.8}}}
	overruled := graph.Relation{Type: graph.Endorses, Claims: []graph.Claim{
		{Status: graph.StatusConfirmed, Confidence: 0.9}, {Status: graph.StatusDenied, Confidence: 0.8}}}
	office := graph.Relation{Type: graph.HoldsOffice, ValidFrom: graph.FuzzyDate{Year: 2010}, ValidTo: graph.FuzzyDate{Year: 2015, Month: 6},
		Claims: []graph.Claim{{Status: graph.StatusConfirmed, Confidence: 1}}}
	tests := []struct {
		name   string
		rel    graph.Relation
		filter graph.RelationFilter
		want   bool
	}{
		{"no filter", endorse, graph.RelationFilter{}, true},
		{"event before as-of counts", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2016}}, true},
		{"event in the as-of year counts", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2015, Month: 12}}, true},
		{"event after as-of does not", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2010}}, false},
		{"denied never counts by default", denied, graph.RelationFilter{}, false},
		{"denied counts when asked", denied, graph.RelationFilter{Statuses: []graph.ClaimStatus{graph.StatusDenied}}, true},
		{"alleged but denied is not a link by default", disputed, graph.RelationFilter{}, false},
		{"alleged but denied is not a link when asking for allegations", disputed, graph.RelationFilter{Statuses: []graph.ClaimStatus{graph.StatusAlleged}}, false},
		{"alleged but denied counts when denials are asked for", disputed, graph.RelationFilter{Statuses: []graph.ClaimStatus{graph.StatusAlleged, graph.StatusDenied}}, true},
		{"confirmed despite a denial counts", overruled, graph.RelationFilter{}, true},
		{"confidence below minimum", endorse, graph.RelationFilter{MinConfidence: 0.9}, false},
		{"confidence at minimum", endorse, graph.RelationFilter{MinConfidence: 0.8}, true},
		{"included type", endorse, graph.RelationFilter{IncludeTypes: []graph.RelationType{graph.Endorses}}, true},
		{"not included type", endorse, graph.RelationFilter{IncludeTypes: []graph.RelationType{graph.Family}}, false},
		{"excluded type", endorse, graph.RelationFilter{ExcludeTypes: []graph.RelationType{graph.Endorses}}, false},
		{"office inside period", office, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2012, Month: 3, Day: 1}}, true},
		{"office end month read at widest", office, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2015, Month: 6, Day: 30}}, true},
		{"office after end", office, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2015, Month: 7}}, false},
		{"office before start", office, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2009}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.filter.Counts(tc.rel.Link()); got != tc.want {
				t.Errorf("Counts = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseFuzzyDate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2015", "2015-07", "2015-07-04"} {
		d, err := graph.ParseFuzzyDate(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseFuzzyDate(%q) = %v, %v; want it back", s, d, err)
		}
	}
	for _, s := range []string{"15", "2015-13", "2015-02-30", "2015/07", "next year", "2015-7"} {
		if _, err := graph.ParseFuzzyDate(s); err == nil {
			t.Errorf("ParseFuzzyDate(%q) succeeded; want an error", s)
		}
	}
	d, _ := graph.ParseFuzzyDate("2024-02")
	if got, want := d.LastDay()-d.FirstDay()+1, 29; got != want {
		t.Errorf("2024-02 spans %d days, want %d", got, want)
	}
}

func ExampleFindPaths() {
	rel := func(from, to string, t graph.RelationType) graph.Relation {
		f, o := graph.EntityName("actors/"+from), graph.EntityName("actors/"+to)
		return graph.Relation{Name: graph.RelationNameFor(f, t, o, ""), Type: t, From: f, To: o,
			Claims: []graph.Claim{{Status: graph.StatusReported, Confidence: 0.9}}}
	}
	rels := []graph.Relation{rel("a", "b", graph.Endorses), rel("b", "c", graph.Family), rel("a", "c", graph.Criticised)}
	q := graph.PathQuery{From: "actors/a", To: "actors/c", MaxPaths: 3, MaxDepth: 4}
	paths, _ := graph.FindPaths(context.Background(), graphtest.NewMemoryLinks(rels), q, 100)
	for _, p := range paths {
		fmt.Println(p.Entities)
	}
	// Output:
	// [actors/a actors/c]
	// [actors/a actors/b actors/c]
}
