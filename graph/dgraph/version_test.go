package dgraph_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/snapfile"
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
	other, err := dgraph.Open(ctx, dgraphCfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
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

// TestARunningStoreFollowsAGraphReplaced: an administrator drops the graph and another client writes a
// new one while a store and its topology run. The topology must then hold the new graph, whole and
// alone, whether the new graph's version is behind the old one's or ahead of it; and the running store's
// writes must land on the new graph's resources (not on the uids it had cached from the old graph), not be
// refused as if Dgraph lagged. It runs last of the package and leaves Dgraph as TestMain does.
func TestARunningStoreFollowsAGraphReplaced(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ents, rels := graphtest.RandomGraph(8102, 12, 20)
	relation := func(t *testing.T, s *dgraph.Store, r graph.Relation) {
		t.Helper()
		if err := s.UpsertRelations(ctx, []graph.Relation{r}); err != nil {
			t.Fatal(err)
		}
	}
	// fresh empties Dgraph and opens a store on it with the schema and the source every relation cites.
	fresh := func(t *testing.T) *dgraph.Store {
		t.Helper()
		if err := testDgraph.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := dgraph.Open(ctx, dgraphCfg, log)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ApplySchema(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		// oldOnes and newOnes are how many of rels the old graph and the new one get written one at a
		// time, after the rest of the old graph's in one write (and five of the new graph's): they set
		// which graph's version is ahead.
		oldOnes, newOnes int
		// file: the topology reads through a snapshot file (internal/snapfile), as `polgraph run`'s does.
		file bool
	}{
		{"the new graph's version behind the old one's", 6, 0, false},
		{"the new graph's version ahead of the old one's", 0, 8, false},
		{"through a snapshot file", 6, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			running := fresh(t)
			defer running.Close()
			if err := running.UpsertEntities(ctx, ents); err != nil {
				t.Fatal(err)
			}
			if err := running.UpsertRelations(ctx, rels[tc.oldOnes:]); err != nil {
				t.Fatal(err)
			}
			for _, r := range rels[:tc.oldOnes] {
				relation(t, running, r)
			}
			var feed graph.ChangeFeed = running
			var file *snapfile.Feed
			if tc.file {
				file = snapfile.New(running, filepath.Join(t.TempDir(), "graph.snapshot"), log)
				defer file.Close()
				feed = file
			}
			topo := memgraph.NewTopology(feed)
			if err := topo.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got := linksOf(t, topo, ents); len(got) != len(rels) {
				t.Fatalf("the old graph in memory has %d relations, want %d", len(got), len(rels))
			}
			oldVersion := topo.Version()

			// The new graph: the same entities, the first five relations at once, then newOnes more one at a
			// time; and a relation the running store writes after.
			other := fresh(t)
			defer other.Close()
			if err := other.UpsertEntities(ctx, ents); err != nil {
				t.Fatal(err)
			}
			if err := other.UpsertRelations(ctx, rels[:5]); err != nil {
				t.Fatal(err)
			}
			for _, r := range rels[5 : 5+tc.newOnes] {
				relation(t, other, r)
			}
			newVersion, err := other.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if (tc.newOnes > 0) != (newVersion > oldVersion) {
				t.Fatalf("the new graph is at version %d, the old one was at %d: the case is not what it says", newVersion, oldVersion)
			}
			written := rels[len(rels)-1]

			// The first catch-up after the replacement, the first read of the running store since, holds the
			// new graph alone.
			if err := topo.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if _, n, v := topo.Size(); n != 5+tc.newOnes || v != newVersion {
				t.Errorf("after one catch-up the graph in memory holds %d relations at version %d, the new graph %d at %d", n, v, 5+tc.newOnes, newVersion)
			}
			if err := running.Ping(ctx); err != nil {
				t.Errorf("the running store is not ready on the new graph: %v", err)
			}
			// A search asks the topology for the graph as it stands (Synced), and never reads the old one:
			// it may be told to read the store meanwhile (GRAPH_CATCHING_UP), until the fill is over.
			var now graph.LinkSource
			for deadline := time.Now().Add(10 * time.Second); now == nil; {
				var err error
				if now, err = topo.Synced(ctx); err != nil {
					var ge *graph.Error
					if !errors.As(err, &ge) || ge.Reason != graph.ReasonCatchingUp || time.Now().After(deadline) {
						t.Fatalf("a search on the new graph: %v", err)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			want := map[graph.RelationName]bool{}
			for _, r := range rels[:5+tc.newOnes] {
				want[r.Name] = true
			}
			got := linksOf(t, now, ents)
			for n := range got {
				if !want[n] {
					t.Errorf("the graph in memory still holds %s, which only the old graph had", n)
				}
			}
			for n := range want {
				if _, ok := got[n]; !ok {
					t.Errorf("the graph in memory lacks %s, which the new graph has", n)
				}
			}
			if topo.Version() != newVersion {
				t.Errorf("the graph in memory is at version %d, the new graph at %d", topo.Version(), newVersion)
			}
			if file != nil {
				if last := file.LastFill(); last.FromFile || last.FromShared {
					t.Errorf("the new graph was filled from the old graph's file or copy: %+v", last)
				}
			}

			// The running store writes a relation between entities it knew in the old graph.
			if err := running.UpsertRelations(ctx, []graph.Relation{written}); err != nil {
				t.Fatalf("the running store cannot write to the new graph: %v", err)
			}
			for _, n := range []graph.EntityName{written.From, written.To} {
				if c, err := dgraph.CountNamed(ctx, other, string(n)); err != nil || c != 1 {
					t.Errorf("%d nodes named %s (%v), want 1", c, n, err)
				}
			}
			if from, to, err := dgraph.EndsOf(ctx, other, string(written.Name)); err != nil || from != string(written.From) || to != string(written.To) {
				t.Errorf("the running store's write joins %q to %q (%v) in Dgraph, want %s to %s", from, to, err, written.From, written.To)
			}
			check := memgraph.NewTopology(other)
			if err := check.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			l, ok := linksOf(t, check, ents)[written.Name]
			if !ok || l.From != written.From || l.To != written.To {
				t.Errorf("the running store's write is not in the new graph between its ends: %+v (found %v)", l, ok)
			}
			if err := topo.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if _, ok := linksOf(t, topo, ents)[written.Name]; !ok {
				t.Errorf("the graph in memory does not hold the running store's own write")
			}
		})
	}
	// As TestMain leaves it.
	fresh(t).Close()
}
