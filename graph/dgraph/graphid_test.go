package dgraph_test

import (
	"sync"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
)

// TestGraphIDIsGivenOnceAndKept: a graph without an id gets one the first time it is asked, the same for
// every process asking at once, and keeps it through writes; a graph without one again gets another.
func TestGraphIDIsGivenOnceAndKept(t *testing.T) {
	ctx := t.Context()
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/graph-id", Title: "graph id", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	if err := dgraph.DropGraphID(ctx, store); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 6)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, err := store.GraphID(ctx)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	if ids[0] == "" {
		v, _ := store.Version(ctx)
		t.Fatalf("a written graph (version %d) has no id", v)
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("processes asking at once were given different ids: %q", ids)
		}
	}
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/graph-id", Title: "graph id, retitled", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	if id, err := store.GraphID(ctx); err != nil || id != ids[0] {
		t.Fatalf("after a write the id is %q (%v), want %q", id, err, ids[0])
	}
	if err := dgraph.DropGraphID(ctx, store); err != nil {
		t.Fatal(err)
	}
	if id, err := store.GraphID(ctx); err != nil || id == "" || id == ids[0] {
		t.Fatalf("a graph without an id again got %q (%v), want a new one", id, err)
	}
}
