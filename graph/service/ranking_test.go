package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	compared, reordered, capped := 0, 0, 0
	for g := uint64(1); g <= 40; g++ {
		n := 8 + int(g%10)
		ents, rels := graphtest.RandomGraph(5200+g, n, 3*n+int(g%7))
		sources := sourcesWithOutlets(g, rels, 5)
		for name, svc := range newServices(t, ents, rels, sources) {
			r := rand.New(rand.NewPCG(g, 31))
			for i := 0; i < 15; i++ {
				q := graphtest.RandomQuery(r, ents)
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
				for _, p := range ans.Paths {
					if p.Reason == "" {
						t.Errorf("%s: a route without its reason", name)
					}
				}
			}
		}
	}
	t.Logf("compared %d answers, %d reordered by evidence, %d with their ranking capped", compared, reordered, capped)
	if compared < 800 || reordered < 50 {
		t.Errorf("compared %d answers, %d reordered by evidence: the test is too weak", compared, reordered)
	}
}
