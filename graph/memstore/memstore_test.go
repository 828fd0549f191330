package memstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/storetest"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// TestContract runs the store contract against a fresh graph in memory for each of its tests.
func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(*testing.T) storetest.Subject { return memstore.New() })
}

// TestConcurrentWritesAndReads writes relations from several goroutines while others read and follow
// the feed: every write lands, each raising the version once, and every read sees whole relations.
func TestConcurrentWritesAndReads(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memstore.New()
	ents, rels := graphtest.RandomGraph(41, 30, 200)
	sources := graphtest.RandomSources(41, rels, 5)
	if err := s.UpsertSources(ctx, sources); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	const writers = 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < len(rels); i += writers {
				if err := s.UpsertRelations(ctx, rels[i:i+1]); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	for range 2 {
		wg.Go(func() {
			var since int64
			for since < int64(2+len(rels)) && !t.Failed() {
				v, err := s.Changes(ctx, since, func(c graph.Changed) {
					for i, l := range c.Links {
						if h := c.Headers[i]; h.ClaimCount != len(h.Relation.Claims) || h.Relation.Name != l.Name {
							t.Errorf("the feed gave %s with the header %+v", l.Name, h)
						}
					}
				})
				if err != nil {
					t.Error(err)
					return
				}
				since = v
				if _, err := s.Links(ctx, names); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if v, err := s.Version(ctx); err != nil || v != int64(2+len(rels)) {
		t.Errorf("after %d writes the version is %d (%v)", 2+len(rels), v, err)
	}
	if c, err := s.Counts(ctx); err != nil || c.Relations != len(rels) {
		t.Errorf("after writing %d relations the graph counts %+v (%v)", len(rels), c, err)
	}
}

// TestClaimMovesBetweenRelations: a claim written to a second relation leaves the first, whose header
// follows.
func TestClaimMovesBetweenRelations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memstore.New()
	src := graph.Source{Name: "sources/s", Title: "S", Kind: graph.SourceOther}
	a, b := graph.Entity{Name: "actors/a", Kind: graph.KindActor, DisplayName: "A"}, graph.Entity{Name: "actors/b", Kind: graph.KindActor, DisplayName: "B"}
	first := graph.RelationNameFor(a.Name, graph.Endorses, b.Name, "")
	second := graph.RelationNameFor(b.Name, graph.Endorses, a.Name, "")
	claim := graph.Claim{Name: "claims/shared", Source: graph.Source{Name: src.Name}, Confidence: 0.5, Status: graph.StatusReported}
	if err := s.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertEntities(ctx, []graph.Entity{a, b}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []graph.Relation{
		{Name: first, Type: graph.Endorses, From: a.Name, To: b.Name, Claims: []graph.Claim{claim}},
		{Name: second, Type: graph.Endorses, From: b.Name, To: a.Name, Claims: []graph.Claim{claim}},
	} {
		if err := s.UpsertRelations(ctx, []graph.Relation{r}); err != nil {
			t.Fatal(err)
		}
	}
	hs, err := s.RelationHeaders(ctx, []graph.RelationName{first, second})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(hs[first].ClaimCount, hs[first].Support, hs[second].ClaimCount, hs[second].Support); got != "0 [-1 -1 -1 -1] 1 [-1 0.5 -1 -1]" {
		t.Errorf("claim counts and support of the relation the claim left and the one it joined: %s", got)
	}
}
