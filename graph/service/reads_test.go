package service_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// newStore returns a graph in memory holding the sources, entities and relations, written through its
// Writer; a source the claims cite that is not given is written with its name alone.
func newStore(t *testing.T, ents []graph.Entity, rels []graph.Relation, sources []graph.Source) *memstore.Store {
	t.Helper()
	ctx := context.Background()
	given := map[graph.SourceName]bool{}
	for _, src := range sources {
		given[src.Name] = true
	}
	all := slices.Clone(sources)
	for _, r := range rels {
		for _, c := range r.Claims {
			if !given[c.Source.Name] {
				given[c.Source.Name] = true
				all = append(all, graph.Source{Name: c.Source.Name, Kind: graph.SourceOther})
			}
		}
	}
	s := memstore.New()
	if err := s.UpsertSources(ctx, all); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
	return s
}

// randomFilter is a random filter over graphtest's random graphs.
func randomFilter(r *rand.Rand) graph.RelationFilter {
	return graphtest.RandomQuery(r, []graph.Entity{{Name: "actors/a"}, {Name: "actors/b"}}).Filter
}

// newServices returns a service reading links from the store and one reading them from a topology.
func newServices(t *testing.T, ents []graph.Entity, rels []graph.Relation, sources []graph.Source) map[string]*service.Service {
	t.Helper()
	store := newStore(t, ents, rels, sources)
	topo := memgraph.NewTopology(graphtest.NewMemoryFeed(ents, rels))
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return map[string]*service.Service{"store": {Store: store}, "topology": {Store: store, Reads: topo.Reads(store)}}
}

// TestListRelationsAndTimelineAgreeWithOracle checks both reads, every page of them, on random graphs
// against a plain filter and sort of every relation.
func TestListRelationsAndTimelineAgreeWithOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compared, nonEmpty, paged := 0, 0, 0
	for g := uint64(1); g <= 30; g++ {
		n := 6 + int(g%8)
		ents, rels := graphtest.RandomGraph(3000+g, n, 4*n)
		for name, svc := range newServices(t, ents, rels, graphtest.RandomSources(g, rels, 3)) {
			r := rand.New(rand.NewPCG(g, 5))
			for i := 0; i < 8; i++ {
				e := ents[r.IntN(len(ents))].Name
				f := randomFilter(r)
				d := []graph.Direction{graph.DirectionAny, graph.DirectionOutgoing, graph.DirectionIncoming}[r.IntN(3)]
				want := graphtest.OracleRelations(ents, rels, e, f, d)
				size := 1 + r.IntN(4)
				var got []graph.RelationName
				offset, pages := 0, 0
				for {
					page, err := svc.ListRelations(ctx, graph.RelationsQuery{Entity: string(e), Filter: f, Direction: d, PageSize: size, Offset: offset})
					if err != nil {
						t.Fatal(err)
					}
					if page.Total != len(want) || page.Entity.Name != e {
						t.Fatalf("%s graph %d: total %d for %s, want %d", name, g, page.Total, page.Entity.Name, len(want))
					}
					for _, rel := range page.Relations {
						got = append(got, rel.Name)
						if len(rel.Claims) == 0 {
							t.Errorf("%s: relation %s without its claims", name, rel.Name)
						}
					}
					pages++
					if offset = page.NextOffset; offset == 0 || pages > 100 {
						break
					}
				}
				if len(want) > 0 {
					nonEmpty++
				}
				if pages > 1 {
					paged++
				}
				if !reflect.DeepEqual(want, nonNil(got)) {
					t.Errorf("%s graph %d: relations of %s (%+v, %q) in pages of %d:\n got %v\nwant %v", name, g, e, f, d, size, got, want)
				}

				// The timeline: dated by start, then end, then name; undated apart.
				wantDated, wantUndated := graphtest.OracleTimeline(ents, rels, e, f)
				var gotDated, gotUndated []graph.RelationName
				offset, pages = 0, 0
				for {
					tl, err := svc.GetTimeline(ctx, graph.TimelineQuery{Entity: string(e), Filter: f, PageSize: size, Offset: offset})
					if err != nil {
						t.Fatal(err)
					}
					if tl.TotalDated != len(wantDated) || tl.TotalUndated != len(wantUndated) {
						t.Fatalf("%s: totals %d and %d, want %d and %d", name, tl.TotalDated, tl.TotalUndated, len(wantDated), len(wantUndated))
					}
					if len(tl.Undated) > 0 && len(gotDated)+len(tl.Entries) < len(wantDated) {
						t.Errorf("%s: undated relations come before the last dated one", name)
					}
					for _, en := range tl.Entries {
						gotDated = append(gotDated, en.Relation.Name)
						if en.Period != en.Relation.Period() || en.Event != (!en.Relation.Date.IsZero() && en.Relation.ValidFrom.IsZero() && en.Relation.ValidTo.IsZero()) {
							t.Errorf("%s: entry %s says %+v", name, en.Relation.Name, en)
						}
					}
					for _, rel := range tl.Undated {
						gotUndated = append(gotUndated, rel.Name)
					}
					pages++
					if offset = tl.NextOffset; offset == 0 || pages > 100 {
						break
					}
				}
				if !reflect.DeepEqual(wantDated, nonNil(gotDated)) || !reflect.DeepEqual(wantUndated, nonNil(gotUndated)) {
					t.Errorf("%s graph %d: timeline of %s (%+v):\n got %v | %v\nwant %v | %v", name, g, e, f, gotDated, gotUndated, wantDated, wantUndated)
				}

				// GetEntity with the filter counts the same relations.
				info, err := svc.GetEntity(ctx, string(e), &f)
				if err != nil {
					t.Fatal(err)
				}
				var cs []graph.RelationCount
				for _, l := range graphtest.Links(ents, rels) {
					if (l.From == e || l.To == e) && f.Counts(l) {
						cs = append(cs, graph.RelationCount{Type: l.Type, Outgoing: l.From == e || l.Symmetric, Count: 1})
					}
				}
				if want := graph.SumRelationCounts(cs); !reflect.DeepEqual(nonNil(want), nonNil(info.Counts)) {
					t.Errorf("%s: counts of %s under %+v: got %v, want %v", name, e, f, info.Counts, want)
				}
				compared++
			}
		}
	}
	if nonEmpty < compared/2 || paged < compared/4 {
		t.Errorf("of %d answers, %d list relations and %d take several pages: too few to test much", compared, nonEmpty, paged)
	}
	t.Logf("compared %d answers, %d listing relations, %d in several pages", compared, nonEmpty, paged)
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// TestGetEntityWithoutFilterCountsEveryRelation: no filter, today's counts (every relation, whatever its
// claims); an empty filter leaves out what only denials support.
func TestGetEntityWithoutFilterCountsEveryRelation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ents := []graph.Entity{{Name: "actors/a", DisplayName: "A"}, {Name: "actors/b", DisplayName: "B"}}
	src := graph.Source{Name: "sources/s"}
	rels := []graph.Relation{
		{Name: "relations/a.endorses.b", Type: graph.Endorses, From: "actors/a", To: "actors/b",
			Claims: []graph.Claim{{Name: "c1", Source: src, Confidence: 0.9, Status: graph.StatusDenied}}},
		{Name: "relations/a.criticised.b", Type: graph.Criticised, From: "actors/a", To: "actors/b",
			Claims: []graph.Claim{{Name: "c2", Source: src, Confidence: 0.9, Status: graph.StatusReported}}},
	}
	svc := &service.Service{Store: newStore(t, ents, rels, []graph.Source{src})}
	all, err := svc.GetEntity(ctx, "actors/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	filtered, err := svc.GetEntity(ctx, "A", &graph.RelationFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Counts) != 2 || len(filtered.Counts) != 1 || filtered.Counts[0].Type != graph.Criticised {
		t.Errorf("without a filter %v (want both), with an empty one %v (want the criticism)", all.Counts, filtered.Counts)
	}
	_, err = svc.GetEntity(ctx, "A", &graph.RelationFilter{MinConfidence: 2})
	if graph.KindOf(err) != graph.Invalid {
		t.Errorf("a bad filter: %v, want Invalid", err)
	}
}
