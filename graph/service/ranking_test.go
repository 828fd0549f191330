package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// sourcesWithOutlets spreads the claims of rels over n sources, a third of them of one outlet, a third of
// another (written in another case, the same outlet), the rest of none; some claims become denials and
// some are retracted, so that every part of a hop's score is at work.
func sourcesWithOutlets(seed uint64, rels []graph.Relation, n int) []graph.Source {
	sources := graphtest.RandomSources(seed, rels, n)
	outlets := []string{"Daily Record", "DAILY RECORD ", "Evening Star", "", ""}
	for i := range sources {
		sources[i].Outlet = outlets[i%len(outlets)]
	}
	byName := map[graph.SourceName]graph.Source{}
	for _, s := range sources {
		byName[s.Name] = s
	}
	r := rand.New(rand.NewPCG(seed, 52))
	for i := range rels {
		for j := range rels[i].Claims {
			c := &rels[i].Claims[j]
			c.Source = byName[c.Source.Name]
			if r.IntN(10) == 0 && len(rels[i].Claims) > 1 {
				c.Status = graph.StatusDenied
			}
			c.Confidence = float64(1+r.IntN(20)) / 20
		}
	}
	return sources
}

// TestPathsRankedByEvidenceAgreeWithOracle: on random graphs whose claims come from sources of a few
// outlets, with denials, FindPaths orders its routes as an oracle that weighs every route of the
// query independently does (length, then the weakest hop's score, outlets, sources and claims, then
// names), with the same score and weakest hop.
func TestPathsRankedByEvidenceAgreeWithOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compared, reordered, capped, longerFirst := 0, 0, 0, 0
	for g := uint64(1); g <= 40; g++ {
		n := 8 + int(g%10)
		ents, rels := graphtest.RandomGraph(5200+g, n, 3*n+int(g%7))
		sources := sourcesWithOutlets(g, rels, 5)
		for name, svc := range newServices(t, ents, rels, sources) {
			r := rand.New(rand.NewPCG(g, 31))
			for i := 0; i < 15; i++ {
				q := graphtest.RandomQuery(r, ents)
				if i%2 == 0 {
					q.LongerBy = 1 + i%3 // routes up to three hops longer, when much better evidenced
				}
				ans, err := svc.FindPaths(ctx, q)
				if err != nil {
					t.Fatalf("%s graph %d %+v: %v", name, g, q, err)
				}
				if ans.RankingCapped {
					capped++
					continue
				}
				want := graphtest.OracleRankedPaths(ents, rels, sources, q)
				var got, wantS []string
				for _, p := range ans.Paths {
					got = append(got, fmt.Sprintf("%v %v score=%g weakest=%d", p.Entities, p.Hops, p.Evidence.Score, p.Evidence.Weakest))
				}
				for _, p := range want {
					wantS = append(wantS, fmt.Sprintf("%v %v score=%g weakest=%d", p.Path.Entities, p.Path.Hops, p.Score, p.Weakest))
				}
				if fmt.Sprint(got) != fmt.Sprint(wantS) {
					t.Fatalf("%s graph %d %+v:\n got %q\nwant %q", name, g, q, got, wantS)
				}
				compared++
				for k := 1; k < len(ans.Paths); k++ {
					if ans.Paths[k].Len() == ans.Paths[k-1].Len() && graph.ComparePaths(ans.Paths[k-1], ans.Paths[k]) > 0 {
						reordered++
						break
					}
				}
				for k := 1; k < len(ans.Paths); k++ {
					if ans.Paths[k].Len() < ans.Paths[k-1].Len() {
						longerFirst++
						break
					}
				}
				for _, p := range ans.Paths {
					if p.Reason == "" {
						t.Errorf("%s: a route without its reason", name)
					}
				}
			}
		}
	}
	t.Logf("compared %d answers, %d reordered by evidence, %d with a longer route first, %d with their ranking capped", compared, reordered, longerFirst, capped)
	if compared < 800 || reordered < 50 || longerFirst < 10 {
		t.Errorf("compared %d answers, %d reordered by evidence: the test is too weak", compared, reordered)
	}
}

// keptBySources is the oracle's own reading of a source filter: each relation with only the claims of
// the sources it keeps (kind, outlet in any case, name), and none when those supporting it come from
// fewer outlets than it asks.
func keptBySources(rels []graph.Relation, f graph.SourceFilter) []graph.Relation {
	out := make([]graph.Relation, len(rels))
	for i, r := range rels {
		var kept []graph.Claim
		outlets := map[string]bool{}
		for _, c := range r.Claims {
			s := c.Source
			if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, s.Kind) || len(f.Sources) > 0 && !slices.Contains(f.Sources, s.Name) {
				continue
			}
			if len(f.Outlets) > 0 && !slices.ContainsFunc(f.Outlets, func(o string) bool {
				return strings.EqualFold(strings.TrimSpace(o), strings.TrimSpace(s.Outlet))
			}) {
				continue
			}
			kept = append(kept, c)
			if c.Status != graph.StatusDenied && c.Retracted.IsZero() {
				o := strings.ToLower(strings.TrimSpace(s.Outlet))
				if o == "" {
					o = "source " + string(s.Name)
				}
				outlets[o] = true
			}
		}
		if len(outlets) < f.MinOutlets {
			kept = nil
		}
		r.Claims = kept
		out[i] = r
	}
	return out
}

// TestSourceFiltersOnPathsAndNeighbourhoods: with random source filters (kinds, outlets, names, at least
// two outlets), FindPaths and ExploreNeighborhood answer as the oracles do on the graph with only the
// claims the filter keeps.
func TestSourceFiltersOnPathsAndNeighbourhoods(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	paths, hoods, differ := 0, 0, 0
	for g := uint64(1); g <= 25; g++ {
		n := 8 + int(g%10)
		ents, rels := graphtest.RandomGraph(5600+g, n, 3*n+int(g%7))
		sources := sourcesWithOutlets(g, rels, 6)
		kinds := []graph.SourceKind{graph.SourceArticle, graph.SourceDataset, graph.SourceSocialPost}
		for i := range sources {
			sources[i].Kind = kinds[i%len(kinds)]
		}
		byName := map[graph.SourceName]graph.Source{}
		for _, s := range sources {
			byName[s.Name] = s
		}
		for i := range rels {
			for j := range rels[i].Claims {
				rels[i].Claims[j].Source = byName[rels[i].Claims[j].Source.Name]
			}
		}
		filters := []graph.SourceFilter{
			{Kinds: []graph.SourceKind{graph.SourceDataset}},
			{Outlets: []string{"daily record"}},
			{Sources: []graph.SourceName{sources[0].Name, sources[3].Name}},
			{MinOutlets: 2},
			{Kinds: []graph.SourceKind{graph.SourceArticle, graph.SourceSocialPost}, MinOutlets: 2},
		}
		for name, svc := range newServices(t, ents, rels, sources) {
			r := rand.New(rand.NewPCG(g, 41))
			for i := 0; i < 10; i++ {
				f := filters[r.IntN(len(filters))]
				kept := keptBySources(rels, f)
				q := graphtest.RandomQuery(r, ents)
				q.Sources = f
				ans, err := svc.FindPaths(ctx, q)
				if err != nil {
					t.Fatalf("%s graph %d %+v: %v", name, g, q, err)
				}
				if !ans.RankingCapped {
					var got, want []string
					for _, p := range ans.Paths {
						got = append(got, fmt.Sprintf("%v %v score=%g", p.Entities, p.Hops, p.Evidence.Score))
					}
					for _, p := range graphtest.OracleRankedPaths(ents, kept, sources, q) {
						want = append(want, fmt.Sprintf("%v %v score=%g", p.Path.Entities, p.Path.Hops, p.Score))
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s graph %d %+v:\n got %q\nwant %q", name, g, q, got, want)
					}
					unfiltered := graphtest.OracleRankedPaths(ents, rels, sources, q)
					if fmt.Sprint(len(unfiltered)) != fmt.Sprint(len(want)) {
						differ++
					}
					paths++
				}
				center := ents[r.IntN(len(ents))].Name
				nq := graph.NeighborhoodQuery{Center: string(center), Depth: 1 + r.IntN(2), MaxPerNode: 1 + r.IntN(4), MaxNodes: 3 + r.IntN(10),
					MaxEdges: 100, PageSize: 500, Filter: q.Filter, Sources: f}
				around, err := svc.ExploreNeighborhood(ctx, nq)
				if err != nil {
					t.Fatalf("%s graph %d %+v: %v", name, g, nq, err)
				}
				want, _ := graphtest.OracleNeighborhood(ents, kept, nq, center)
				var gotNodes []graph.EntityName
				for _, n := range around.Nodes {
					gotNodes = append(gotNodes, n.Entity.Name)
				}
				var gotEdges []graph.RelationName
				for _, e := range around.Edges {
					gotEdges = append(gotEdges, e.Relation.Name)
				}
				if fmt.Sprint(gotNodes, gotEdges, around.Truncated) != fmt.Sprint(want.Nodes, want.Edges, want.Cut) {
					t.Fatalf("%s graph %d %+v:\n got %v %v %v\nwant %v %v %v", name, g, nq, gotNodes, gotEdges, around.Truncated, want.Nodes, want.Edges, want.Cut)
				}
				hoods++
			}
		}
	}
	t.Logf("%d path answers and %d neighbourhoods under source filters; %d path answers the filter changed", paths, hoods, differ)
	if paths < 400 || hoods < 450 || differ < 40 {
		t.Errorf("%d path answers, %d neighbourhoods, %d changed by the filter: the test is too weak", paths, hoods, differ)
	}
}

// TestSourceFiltersOnRelationsAndTimelines: ListRelations and GetTimeline under random source filters
// list what the oracle lists on the graph with only the claims the filter keeps.
func TestSourceFiltersOnRelationsAndTimelines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compared, changed := 0, 0
	for g := uint64(1); g <= 15; g++ {
		n := 6 + int(g%8)
		ents, rels := graphtest.RandomGraph(5800+g, n, 4*n)
		sources := sourcesWithOutlets(g, rels, 5)
		filters := []graph.SourceFilter{{Outlets: []string{"EVENING STAR"}}, {MinOutlets: 2}, {Sources: []graph.SourceName{sources[1].Name}}}
		for name, svc := range newServices(t, ents, rels, sources) {
			r := rand.New(rand.NewPCG(g, 43))
			for i := 0; i < 10; i++ {
				e := ents[r.IntN(len(ents))].Name
				f := randomFilter(r)
				sf := filters[r.IntN(len(filters))]
				kept := keptBySources(rels, sf)
				var want []graph.RelationName
				want = append(want, graphtest.OracleRelations(ents, kept, e, f, graph.DirectionAny)...)
				page, err := svc.ListRelations(ctx, graph.RelationsQuery{Entity: string(e), Filter: f, Sources: sf, PageSize: 100})
				if err != nil {
					t.Fatal(err)
				}
				var got []graph.RelationName
				for _, rel := range page.Relations {
					got = append(got, rel.Name)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s graph %d: relations of %s under %+v, %+v:\n got %v\nwant %v", name, g, e, f, sf, got, want)
				}
				tl, err := svc.GetTimeline(ctx, graph.TimelineQuery{Entity: string(e), Filter: f, Sources: sf, PageSize: 200})
				if err != nil {
					t.Fatal(err)
				}
				if tl.TotalDated+tl.TotalUndated != len(want) {
					t.Errorf("%s graph %d: the timeline of %s holds %d relations, the list %d", name, g, e, tl.TotalDated+tl.TotalUndated, len(want))
				}
				if len(graphtest.OracleRelations(ents, rels, e, f, graph.DirectionAny)) != len(want) {
					changed++
				}
				compared++
			}
		}
	}
	if compared < 250 || changed < 30 {
		t.Errorf("%d answers compared, %d changed by the source filter: the test is too weak", compared, changed)
	}
}
