package dgraph_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/graphtest"
)

// TestVersionFollowsAGraphLoadedAgain: a Store reads the version by the meta node's uid once it knows it;
// when another client drops the graph and loads it again, the meta node is a new one, and the version
// read must be the new graph's, not nothing. It runs last of the package (it empties the shared Dgraph)
// and leaves it as TestMain does.
func TestVersionFollowsAGraphLoadedAgain(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(8101, 12, 20)
	load(t, ents, rels)
	before, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := store.Version(ctx); err != nil || again != before || before < 2 {
		t.Fatalf("the version read twice: %d then %d (%v); want the same, at least 2", before, again, err)
	}
	// Another client empties the graph and loads it again (as an administrator: with ACL on, Dgraph drops
	// every user but groot with the data; Reset gives polgraph's back).
	if err := testDgraph.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := dgraph.Open(ctx, service, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if v, err := store.Version(ctx); err != nil || v != 0 {
		t.Errorf("after the graph was dropped the version read is %d (%v), want 0", v, err)
	}
	if err := other.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	want, err := other.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.Version(ctx); err != nil || got != want || want == 0 {
		t.Errorf("after the graph was loaded again the version read is %d (%v), another client reads %d", got, err, want)
	}
}
