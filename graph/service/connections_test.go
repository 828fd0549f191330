package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// sharedOf writes an answer as the oracle does.
func sharedOf(ans graph.Connections) graphtest.Shared {
	out := graphtest.Shared{Neighbours: []string{}, Sources: []string{}}
	for _, n := range ans.Shared {
		var parts []string
		for _, j := range n.Joins {
			var names []graph.RelationName
			for _, e := range j.Relations {
				names = append(names, e.Relation.Name)
			}
			parts = append(parts, fmt.Sprintf("%s:%v", j.Input, names))
		}
		out.Neighbours = append(out.Neighbours, fmt.Sprintf("%s inputs=%d strength=%g %s", n.Entity.Name, len(n.Joins), n.Strength, strings.Join(parts, " ")))
	}
	for _, s := range ans.Sources {
		var claims []string
		for _, c := range s.Claims {
			claims = append(claims, c.Claim.Name)
		}
		out.Sources = append(out.Sources, fmt.Sprintf("%s inputs=%v claims=%v", s.Source.Name, s.Inputs, claims))
	}
	return out
}

// TestFindConnectionsAgreesWithOracle compares shared neighbours, shared sources (with their caps and
// counts of the rest) and routes with brute force on random graphs, reading links from the store and
// from a topology.
func TestFindConnectionsAgreesWithOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compared, withNeighbours, withSources, leftOut, filtered := 0, 0, 0, 0, 0
	for g := uint64(1); g <= 40; g++ {
		n := 6 + int(g%10)
		ents, rels := graphtest.RandomGraph(5000+g, n, 3*n+int(g%5))
		sources := graphtest.RandomSources(g, rels, 2+int(g%4))
		for name, svc := range newServices(t, ents, rels, sources) {
			r := rand.New(rand.NewPCG(g, 11))
			for i := 0; i < 10; i++ {
				k := 2 + r.IntN(3)
				var inputs []graph.EntityName
				for _, p := range r.Perm(len(ents))[:k] {
					inputs = append(inputs, ents[p].Name)
				}
				q := graph.ConnectionsQuery{Filter: randomFilter(r), MaxShared: 1 + r.IntN(4), MaxDepth: 1 + r.IntN(4)}
				for _, in := range inputs {
					q.Entities = append(q.Entities, string(in))
				}
				// A third of the queries keep the claims of some sources only: the oracle reads those alone.
				rels := rels
				if r.IntN(3) == 0 {
					for _, p := range r.Perm(len(sources))[:1+r.IntN(len(sources))] {
						q.Sources.Sources = append(q.Sources.Sources, sources[p].Name)
					}
					rels = keptBySources(rels, q.Sources)
					filtered++
				}
				ans, err := svc.FindConnections(ctx, q)
				if err != nil {
					t.Fatalf("%s graph %d %+v: %v", name, g, q, err)
				}
				want, wantLeftN, wantLeftS := graphtest.OracleShared(ents, rels, inputs, q.Filter).Cap(q.MaxShared)
				got := sharedOf(ans)
				if !reflect.DeepEqual(want.Neighbours, got.Neighbours) || ans.SharedLeftOut != wantLeftN {
					t.Errorf("%s graph %d %+v: shared neighbours\n got %q (+%d)\nwant %q (+%d)", name, g, q, got.Neighbours, ans.SharedLeftOut, want.Neighbours, wantLeftN)
				}
				if !reflect.DeepEqual(want.Sources, got.Sources) || ans.SourcesLeftOut != wantLeftS {
					t.Errorf("%s graph %d %+v: shared sources\n got %q (+%d)\nwant %q (+%d)", name, g, q, got.Sources, ans.SourcesLeftOut, want.Sources, wantLeftS)
				}
				// Every pair's route is the oracle's shortest.
				pair := 0
				for a := range inputs {
					for b := a + 1; b < len(inputs); b++ {
						route := ans.Routes[pair]
						pair++
						paths := graphtest.OraclePaths(ents, rels, graph.PathQuery{From: inputs[a], To: inputs[b], MaxPaths: 1, MaxDepth: q.MaxDepth, Filter: q.Filter})
						if route.From != inputs[a] || route.To != inputs[b] || (route.Path == nil) != (len(paths) == 0) ||
							(route.Path != nil && fmt.Sprint(*route.Path) != fmt.Sprint(paths[0])) {
							t.Errorf("%s graph %d: route %s–%s: got %+v, want %v", name, g, inputs[a], inputs[b], route, paths)
						}
						if route.Path != nil {
							for _, h := range route.Path.Hops {
								for _, st := range h.Relations {
									if _, ok := ans.Relations[st.Relation]; !ok {
										t.Errorf("%s: the route's relation %s is not in the answer", name, st.Relation)
									}
								}
							}
						}
					}
				}
				related := map[graph.EntityName]bool{}
				for _, e := range ans.Related {
					related[e.Name] = true
				}
				for _, r := range ans.Routes {
					if r.Path == nil {
						continue
					}
					for _, e := range r.Path.Entities {
						if !related[e] {
							t.Errorf("%s: %s is on a route but not among the related entities", name, e)
						}
					}
				}
				if pair != len(ans.Routes) {
					t.Errorf("%s: %d routes for %d pairs", name, len(ans.Routes), pair)
				}
				for _, s := range ans.Sources {
					if s.Source.Title == "" {
						t.Errorf("%s: shared source %s without its details", name, s.Source.Name)
					}
				}
				compared++
				if len(got.Neighbours) > 0 {
					withNeighbours++
				}
				if len(got.Sources) > 0 {
					withSources++
				}
				if ans.SharedLeftOut+ans.SourcesLeftOut > 0 {
					leftOut++
				}
			}
		}
	}
	if withNeighbours < compared/4 || withSources < compared/4 || leftOut < compared/10 {
		t.Errorf("of %d answers, %d have shared neighbours, %d shared sources, %d something left out: the graphs are too thin to test much",
			compared, withNeighbours, withSources, leftOut)
	}
	if filtered < compared/5 {
		t.Errorf("only %d of %d answers under a source filter", filtered, compared)
	}
	t.Logf("compared %d answers (%d under a source filter): %d with shared neighbours, %d with shared sources, %d with something left out",
		compared, filtered, withNeighbours, withSources, leftOut)
}

// TestFindConnectionsRefusesRepeats: two names of one entity, and bad caps, are refused with every
// problem named.
func TestFindConnectionsRefusesRepeats(t *testing.T) {
	t.Parallel()
	ents := []graph.Entity{{Name: "actors/a", DisplayName: "Alpha"}, {Name: "actors/b", DisplayName: "Beta"}}
	svc := &service.Service{Store: newStore(t, ents, nil, nil)}
	_, err := svc.FindConnections(context.Background(), graph.ConnectionsQuery{Entities: []string{"actors/a", "Beta", "alpha"}})
	var ge *graph.Error
	if graph.KindOf(err) != graph.Invalid || !errorAs(err, &ge) || len(ge.Violations) != 1 || ge.Violations[0].Field != "entities[2]" ||
		!strings.Contains(ge.Violations[0].Description, "same entity as entities[0]") {
		t.Errorf("got %v; want entities[2] refused as the same entity as entities[0]", err)
	}
	_, err = svc.FindConnections(context.Background(), graph.ConnectionsQuery{Entities: []string{"actors/a", "Gamma"}})
	if graph.KindOf(err) != graph.NotFound {
		t.Errorf("an unknown entity: %v, want NotFound", err)
	}
	_, err = svc.FindConnections(context.Background(), graph.ConnectionsQuery{Entities: []string{"actors/a"}, MaxShared: -1, MaxDepth: 9})
	if !errorAs(err, &ge) || len(ge.Violations) != 3 {
		t.Errorf("one entity, a negative cap and a deep route: %v; want three violations", err)
	}
}

func errorAs(err error, target **graph.Error) bool {
	e, ok := err.(*graph.Error)
	if ok {
		*target = e
	}
	return ok
}
