package dgraph_test

import (
	"context"
	"log/slog"
	"path"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/storetest"
)

// contractDifferences are the tests of the store contract this store fails, each with how it differs
// from what the graph package's interfaces promise.
var contractDifferences = map[string]string{}

// TestContract runs the store contract (graph/storetest) against Dgraph: each of its tests on a graph
// emptied for it, through a store opened for it. It leaves Dgraph as TestMain does, and the package's
// store following the graph written again.
func TestContract(t *testing.T) {
	ctx := context.Background()
	// The package's store notes the graph's meta node now, so that it sees the graph replaced afterwards
	// and forgets the uids it holds of this one.
	if _, err := store.Version(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreGraph(t) })
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		if why, ok := contractDifferences[path.Base(t.Name())]; ok {
			t.Skip(why)
		}
		return freshStore(t)
	})
}

// freshStore empties Dgraph and opens a store on it with the schema applied, closed when t ends.
func freshStore(t testing.TB) *dgraph.Store {
	t.Helper()
	ctx := context.Background()
	if err := testDgraph.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := dgraph.Open(ctx, dgraphCfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// restoreGraph leaves Dgraph as TestMain does (the schema, and the source random graphs cite), and the
// package's store reading it.
func restoreGraph(t *testing.T) {
	ctx := context.Background()
	if err := testDgraph.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := dgraph.Open(ctx, dgraphCfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	gen := store.Generation()
	if _, err := store.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if store.Generation() == gen {
		t.Fatal("the package's store did not see the graph replaced: it would write to the uids of the old one")
	}
}
