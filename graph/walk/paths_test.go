package walk_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/walk"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// TestFindPathsAgreesWithOracle compares the bidirectional search (Yen's algorithm on routes, or the
// co-temporal enumeration) with a plain enumeration of every route, on many random multigraphs with
// parallel relations, entity lifetimes, events and undated relations, and random filters.
func TestFindPathsAgreesWithOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nonEmpty, parallelHops, coTemporal := 0, 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		n := 6 + int(seed%20)
		ents, rels := graphtest.RandomGraph(seed, n, 2*n+int(seed%(2*uint64(n))))
		sources := searchSources(t, ents, rels)
		r := rand.New(rand.NewPCG(seed, 7))
		for i := 0; i < 8; i++ {
			q := graphtest.RandomQuery(r, ents)
			want := graphtest.OraclePaths(ents, rels, q)
			if len(want) > 0 {
				nonEmpty++
				if q.CoTemporal {
					coTemporal++
				}
			}
			for _, p := range want {
				for _, h := range p.Hops {
					if len(h.Relations) > 1 {
						parallelHops++
					}
				}
			}
			agreeWithOracle(ctx, t, sources, seed, q, want)
		}
	}
	if nonEmpty < 500 || parallelHops < 100 || coTemporal < 100 {
		t.Errorf("of 2400 random queries, %d had a route, %d co-temporal; %d hops had parallel relations: the test is too weak", nonEmpty, coTemporal, parallelHops)
	}
}

// TestFindPathsAgreesWithOracleOnHubs checks the search where its choices matter most: graphs with hubs,
// where the side it expands (the frontier with fewer relations), the levels at which it looks for routes
// (once the two sides have met within the bound) and the order it picks a route's entities in all differ
// from a plain search's, and pairs often lie beyond max_depth.
func TestFindPathsAgreesWithOracleOnHubs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	found, none := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		n := 30 + int(seed%30)
		ents, rels := graphtest.RandomGraphWithHubs(seed, n, 4*n, 2+int(seed%3))
		sources := searchSources(t, ents, rels)
		r := rand.New(rand.NewPCG(seed, 11))
		for i := 0; i < 20; i++ {
			q := graphtest.RandomQuery(r, ents)
			want := graphtest.OraclePaths(ents, rels, q)
			if len(want) > 0 {
				found++
			} else {
				none++
			}
			agreeWithOracle(ctx, t, sources, seed, q, want)
		}
	}
	if found < 250 || none < 250 {
		t.Errorf("of 1200 random queries on graphs with hubs, %d had a route and %d none: the test is too weak", found, none)
	}
}

// searchSources gives a graph as a path search reads it: level by level from a LinkSource, and in place
// on a Topology.
func searchSources(t *testing.T, ents []graph.Entity, rels []graph.Relation) map[string]graph.LinkSource {
	t.Helper()
	topo := memgraph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return map[string]graph.LinkSource{"links": graphtest.NewMemoryLinks(ents, rels), "topology": topo}
}

// agreeWithOracle asks q of every source and fails unless each answers the oracle's paths, none longer
// than max_depth.
func agreeWithOracle(ctx context.Context, t *testing.T, sources map[string]graph.LinkSource, seed uint64, q graph.PathQuery, want []graph.Path) {
	t.Helper()
	for name, src := range sources {
		got, err := walk.FindPaths(ctx, src, q, graph.DefaultWorkBudget)
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

func TestFindPathsStopsAtWorkBudget(t *testing.T) {
	t.Parallel()
	ents, rels := graphtest.RandomGraph(42, 200, 2000)
	q := graph.PathQuery{From: ents[0].Name, To: ents[1].Name, MaxPaths: 20, MaxDepth: 8,
		Filter: graph.RelationFilter{Statuses: []graph.ClaimStatus{graph.StatusConfirmed}}}
	_, err := walk.FindPaths(context.Background(), graphtest.NewMemoryLinks(ents, rels), q, 50)
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
	dayEvent := graph.Relation{Type: graph.Criticised, Date: graph.FuzzyDate{Year: 2023, Month: 11, Day: 3},
		Claims: []graph.Claim{{Status: graph.StatusReported, Confidence: 0.8}}}
	undated := graph.Relation{Type: graph.Leads, Claims: []graph.Claim{{Status: graph.StatusReported, Confidence: 0.8}}}
	openState := graph.Relation{Type: graph.MemberOf, ValidFrom: graph.FuzzyDate{Year: 2018},
		Claims: []graph.Claim{{Status: graph.StatusReported, Confidence: 0.8}}}
	office := graph.Relation{Type: graph.HoldsOffice, ValidFrom: graph.FuzzyDate{Year: 2010}, ValidTo: graph.FuzzyDate{Year: 2015, Month: 6},
		Claims: []graph.Claim{{Status: graph.StatusConfirmed, Confidence: 1}}}
	tests := []struct {
		name   string
		rel    graph.Relation
		filter graph.RelationFilter
		want   bool
	}{
		{"no filter", endorse, graph.RelationFilter{}, true},
		{"an event does not count after its date", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2016}}, false},
		{"an event of a year counts in each month of it", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2015, Month: 12}}, true},
		{"an event does not count before its date", endorse, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2010}}, false},
		{"a day's event counts in its year", dayEvent, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2023}}, true},
		{"a day's event does not count the next day", dayEvent, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2023, Month: 11, Day: 4}}, false},
		{"undated: counts without as-of", undated, graph.RelationFilter{}, true},
		{"undated: not with as-of by default", undated, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 1999}}, false},
		{"undated: with as-of when included", undated, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 1999}, Undated: graph.UndatedInclude}, true},
		{"undated: not even without as-of when excluded", undated, graph.RelationFilter{Undated: graph.UndatedExclude}, false},
		{"an open state counts long after its start", openState, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2040}}, true},
		{"an open state not before its start", openState, graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2017}}, false},
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
	paths, _ := walk.FindPaths(context.Background(), graphtest.NewMemoryLinks(nil, rels), q, 100)
	for _, p := range paths {
		fmt.Println(p.Entities)
	}
	// Output:
	// [actors/a actors/c]
	// [actors/a actors/b actors/c]
}

// TestHopOrder: the relations of one hop come strongest first (a denial is never strength), then the
// earliest, undated last, then by name.
func TestHopOrder(t *testing.T) {
	t.Parallel()
	link := func(name string, conf float64, status graph.ClaimStatus, from int) graph.Link {
		r := graph.Relation{Name: graph.RelationName(name), Type: graph.HoldsOffice,
			Claims: []graph.Claim{{Status: status, Confidence: conf}}}
		if from > 0 {
			r.ValidFrom = graph.FuzzyDate{Year: from}
		}
		return r.Link()
	}
	links := []graph.Link{
		link("relations/f-undated", 0.9, graph.StatusReported, 0),
		link("relations/e-2022", 0.9, graph.StatusReported, 2022),
		link("relations/d-denied", 1, graph.StatusDenied, 1990),
		link("relations/c-2010", 0.9, graph.StatusReported, 2010),
		link("relations/b-weak", 0.5, graph.StatusConfirmed, 2000),
		link("relations/a-2010", 0.9, graph.StatusReported, 2010),
	}
	filter := graph.RelationFilter{Statuses: graph.ClaimStatuses}
	slices.SortFunc(links, func(a, b graph.Link) int { return graph.HopOrder(filter, a, b) })
	var got []graph.RelationName
	for _, l := range links {
		got = append(got, l.Name)
	}
	want := []graph.RelationName{"relations/a-2010", "relations/c-2010", "relations/e-2022", "relations/f-undated", "relations/b-weak", "relations/d-denied"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestFuzzyDateStringIsFmts: dates are written digit by digit, as %04d, %04d-%02d and %04d-%02d-%02d
// write them, for every part in range and for some out of it.
func TestFuzzyDateStringIsFmts(t *testing.T) {
	t.Parallel()
	fmtOf := func(d graph.FuzzyDate) string {
		switch {
		case d.Year == 0:
			return ""
		case d.Month == 0:
			return fmt.Sprintf("%04d", d.Year)
		case d.Day == 0:
			return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
		}
		return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
	}
	for _, y := range []int{-12, 1, 7, 99, 999, 1000, 2015, 9999, 10000} {
		for m := -1; m <= 13; m++ {
			for _, day := range []int{-1, 0, 1, 9, 10, 31, 100} {
				d := graph.FuzzyDate{Year: y, Month: m, Day: day}
				if got, want := d.String(), fmtOf(d); got != want {
					t.Fatalf("%#v.String() = %q, want %q", d, got, want)
				}
			}
		}
	}
}

// TestVerdictString says verdicts in words.
func TestVerdictString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		claims [4]int // alleged, reported, confirmed, denied
		want   string
	}{
		{[4]int{}, "no claims"},
		{[4]int{1, 0, 0, 0}, "1 claim supports it"},
		{[4]int{0, 2, 1, 0}, "3 claims support it"},
		{[4]int{0, 0, 0, 1}, "1 claim denies it"},
		{[4]int{0, 0, 0, 4}, "4 claims deny it"},
		{[4]int{1, 1, 1, 1}, "1 of 4 claims deny it"},
		{[4]int{0, 3, 0, 12}, "12 of 15 claims deny it"},
	} {
		if got := (graph.Verdict{Claims: tc.claims}).String(); got != tc.want {
			t.Errorf("Verdict%v = %q, want %q", tc.claims, got, tc.want)
		}
	}
}

// TestFindPathsFromManyGoroutines asks the queries of TestFindPathsAgreesWithOracleOnHubs's kind from
// eight goroutines at once on one topology: searches take their buffers (Yen's subgraph among them) from
// a shared pool, and none may see another's.
func TestFindPathsFromManyGoroutines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ents, rels := graphtest.RandomGraphWithHubs(7, 50, 200, 3)
	topo := memgraph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 13))
	type asked struct {
		q    graph.PathQuery
		want []graph.Path
	}
	var queries []asked
	found := 0
	for len(queries) < 200 {
		q := graphtest.RandomQuery(r, ents)
		q.MaxPaths = 5
		want := graphtest.OraclePaths(ents, rels, q)
		if len(want) > 0 {
			found++
		}
		queries = append(queries, asked{q, want})
	}
	if found < 50 {
		t.Fatalf("only %d of %d queries have a route: the test is too weak", found, len(queries))
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range queries {
				a := queries[(i+g*25)%len(queries)]
				got, err := walk.FindPaths(ctx, topo, a.q, graph.DefaultWorkBudget)
				if err == nil && !reflect.DeepEqual(a.want, got) && !(len(a.want) == 0 && len(got) == 0) {
					err = fmt.Errorf("query %+v:\nwant %v\n got %v", a.q, a.want, got)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestCoTemporalHopsHeldDuringTheRoute: on hundreds of random co-temporal queries, every relation a hop
// shows held (with its ends in existence) on some day of the route's window, and every relation left out
// of a hop did not; a hop is never emptied.
func TestCoTemporalHopsHeldDuringTheRoute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	routes, dropped := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		n := 6 + int(seed%20)
		ents, rels := graphtest.RandomGraph(seed, n, 2*n+int(seed%(2*uint64(n))))
		links := map[graph.RelationName]graph.Link{}
		for _, l := range graphtest.Links(ents, rels) {
			links[l.Name] = l
		}
		src := graphtest.NewMemoryLinks(ents, rels)
		r := rand.New(rand.NewPCG(seed, 52))
		for i := 0; i < 6; i++ {
			q := graphtest.RandomQuery(r, ents)
			q.CoTemporal = true
			paths, err := walk.FindPaths(ctx, src, q, graph.DefaultWorkBudget)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				routes++
				held := func(name graph.RelationName) bool {
					eff := links[name].Effective()
					return slices.ContainsFunc(p.During, func(d graph.Period) bool { return d.Overlaps(eff) })
				}
				for j, h := range p.Hops {
					if len(h.Relations) == 0 {
						t.Fatalf("seed %d %+v: hop %d of %v is empty", seed, q, j, p.Entities)
					}
					shown := map[graph.RelationName]bool{}
					for _, st := range h.Relations {
						shown[st.Relation] = true
						if !held(st.Relation) {
							t.Errorf("seed %d %+v: %s did not hold during %v", seed, q, st.Relation, p.During)
						}
					}
					// Every relation counted between the hop's ends that held then is shown.
					for _, l := range links {
						ends := l.From == p.Entities[j] && l.To == p.Entities[j+1] || l.To == p.Entities[j] && l.From == p.Entities[j+1]
						if !ends || !q.Filter.Counts(l) || q.Directed && !l.Symmetric && l.From != p.Entities[j] {
							continue
						}
						switch {
						case held(l.Name) && !shown[l.Name]:
							t.Errorf("seed %d %+v: %s held during %v but is not shown", seed, q, l.Name, p.During)
						case !held(l.Name):
							dropped++
						}
					}
				}
			}
		}
	}
	if routes < 300 || dropped < 20 {
		t.Errorf("%d co-temporal routes, %d relations left out of their hops: the test is too weak", routes, dropped)
	}
	t.Logf("%d co-temporal routes, %d relations left out of their hops", routes, dropped)
}
