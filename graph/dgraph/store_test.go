package dgraph_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/polgraph/polgraph/deploy/dgraphlocal"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/graphtest"
)

var store *dgraph.Store

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping tests that need Dgraph under -short")
		return 0
	}
	ctx := context.Background()
	addr, stop, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	store, err = dgraph.Open(ctx, addr, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := store.DropAll(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := store.ApplySchema(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func load(t *testing.T, ents []graph.Entity, rels []graph.Relation) {
	t.Helper()
	ctx := context.Background()
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
}

// sorted orders each entity's links by name, for comparison.
func sorted(m map[graph.EntityName][]graph.Link) map[graph.EntityName][]graph.Link {
	for _, ls := range m {
		slices.SortFunc(ls, func(a, b graph.Link) int { return strings.Compare(string(a.Name), string(b.Name)) })
	}
	return m
}

// TestTopologyFollowsWrites checks that the in-memory topology gives the same links as Dgraph, before
// and after further writes, including a claim that changes a relation's support.
func TestTopologyFollowsWrites(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7001, 30, 80)
	load(t, ents, rels)
	topo := graph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	compare := func(when string) {
		t.Helper()
		want, err := store.Links(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		got, err := topo.Links(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sorted(want), sorted(got)) {
			t.Errorf("%s: the topology differs from Dgraph", when)
		}
	}
	compare("after the first load")

	more, moreRels := graphtest.RandomGraph(7002, 10, 20)
	load(t, more, moreRels)
	changed := rels[0]
	changed.Claims = []graph.Claim{{Name: changed.Claims[0].Name, Source: graph.Source{Name: "sources/random"}, Excerpt: "now denied",
		Confidence: 0.99, Status: graph.StatusDenied}}
	load(t, nil, []graph.Relation{changed})
	for _, e := range more {
		names = append(names, e.Name)
	}
	compare("after more writes") // Links syncs by itself
	got, _ := topo.Links(ctx, []graph.EntityName{changed.From})
	for _, l := range got[changed.From] {
		if l.Name == changed.Name && l.Support[graph.StatusDenied.Index()] != 0.99 {
			t.Errorf("the changed claim did not reach the topology: %v", l.Support)
		}
	}
}

// TestConcurrentWritesAllLand writes relations from several goroutines at once: Dgraph aborts some
// transactions, the store retries them, and in the end every relation is there once and the topology,
// following the version, has them all.
func TestConcurrentWritesAllLand(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7100, 40, 160)
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	topo := graph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, before := topo.Size()
	retried := store.Retries()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w * 20; i < (w+1)*20; i += 5 {
				// Each writer also rewrites relations another writer owns, to force conflicts.
				batch := append(slices.Clone(rels[i:i+5]), rels[(i+20)%len(rels)])
				if err := store.UpsertRelations(ctx, batch); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent write failed: %v", err)
	}
	t.Logf("%d transactions were aborted and retried", store.Retries()-retried)
	if store.Retries() == retried {
		t.Errorf("no transaction was aborted: the writes did not run concurrently, so the test proves nothing")
	}
	version, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := before + 8*4; version != want {
		t.Errorf("version %d after 32 writes from %d; want %d (each write its own version)", version, before, want)
	}
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	got, err := topo.Links(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[graph.RelationName]int{}
	for _, ls := range got {
		for _, l := range ls {
			seen[l.Name]++
		}
	}
	for _, r := range rels {
		if seen[r.Name] != 2 {
			t.Errorf("%s appears %d times among its ends' links, want 2", r.Name, seen[r.Name])
		}
	}
}
