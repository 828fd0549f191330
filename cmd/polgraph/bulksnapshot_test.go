package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/snapfile"
)

// TestBulkPathSnapshotIsWhatAFillReads writes the default dataset, a generated graph, and the same graph in
// a file not in stage order (relations first, sources last), as N-Quads with their snapshot file
// (`polgraph load --nquads --snapshot-file`), loads the N-Quads into an empty Dgraph as one write, and
// checks that the file gives exactly what a fill from that Dgraph gives, and is read back by a fill: then
// a later fill reads it back as the graph's own. A file is not read back into a graph loaded from other
// N-Quads.
func TestBulkPathSnapshotIsWhatAFillReads(t *testing.T) {
	if os.Getenv("POLGRAPH_TEST_ALPHA") != "" {
		t.Skip("needs a Dgraph of its own; POLGRAPH_TEST_ALPHA is set")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dir := t.TempDir()
	generated := filepath.Join(dir, "generated.jsonl")
	if err := realMain(ctx, []string{"gen", "--relations", "3000", "--seed", "12", "--out", generated}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}

	// The same records, relations first and sources last: files not in stage order.
	shuffled := filepath.Join(dir, "shuffled.jsonl")
	lines, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	var byKind [4][]string
	for i, l := range strings.SplitAfter(string(lines), "\n") {
		switch {
		case i == 0 || l == "":
			byKind[0] = append(byKind[0], l)
		case strings.HasPrefix(l, `{"record":"relation"`):
			byKind[1] = append(byKind[1], l)
		case strings.HasPrefix(l, `{"record":"entity"`):
			byKind[2] = append(byKind[2], l)
		case strings.HasPrefix(l, `{"record":"source"`):
			byKind[3] = append(byKind[3], l)
		default:
			t.Fatalf("line %d of the generated file: %.60s", i+1, l)
		}
	}
	if len(byKind[1]) != 3000 || len(byKind[3]) == 0 {
		t.Fatalf("the generated file has %d relations and %d sources", len(byKind[1]), len(byKind[3]))
	}
	if err := os.WriteFile(shuffled, []byte(strings.Join(slices.Concat(byKind[:]...), "")), 0o644); err != nil {
		t.Fatal(err)
	}

	cfg := dgraphlocal.Config{Binary: dgraphlocal.DefaultBinary(), DataDir: filepath.Join(dir, "dgraph"), Open: true, Logger: slog.New(slog.DiscardHandler)}
	c, cfg, err := dgraphlocal.StartOnFreePorts(ctx, cfg, 4000+os.Getpid()%100*7)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	store, err := dgraph.Open(ctx, dgraph.Config{Addr: cfg.AlphaAddr()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	conn, err := grpc.NewClient(cfg.AlphaAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dg := dgo.NewDgraphClient(api.NewDgraphClient(conn))

	for i, files := range [][]string{{defaultDataset}, {generated}, {shuffled}} {
		rdf, snapshot := filepath.Join(dir, "graph"+string(rune('a'+i))+".rdf"), filepath.Join(dir, "graph"+string(rune('a'+i))+".snapshot")
		var out strings.Builder
		args := append([]string{"load", "--nquads", rdf, "--snapshot-file", snapshot}, files...)
		if err := realMain(ctx, args, &out, &out); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out.String())
		}
		if !strings.Contains(out.String(), "wrote the graph's snapshot file") {
			t.Fatalf("%s says:\n%s", args, out.String())
		}

		// An empty Dgraph with polgraph's schema, and the N-Quads committed as they are: what dgraph bulk
		// (or dgraph live) leaves.
		if err := store.DropAll(ctx); err != nil {
			t.Fatal(err)
		}
		if err := store.ApplySchema(ctx); err != nil {
			t.Fatal(err)
		}
		nquads, err := os.ReadFile(rdf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dg.NewTxn().Mutate(ctx, &api.Mutation{SetNquads: nquads, CommitNow: true}); err != nil {
			t.Fatal(err)
		}

		want := graphtest.ReadFeed(t, store)
		if len(want.Links) == 0 || len(want.Entities) == 0 || len(want.Sources) == 0 {
			t.Fatalf("%s: the fill from Dgraph gave %d sources, %d entities, %d relations", files, len(want.Sources), len(want.Entities), len(want.Links))
		}
		feed := snapfile.New(store, snapshot, slog.New(slog.DiscardHandler))
		got := graphtest.ReadFeed(t, feed)
		if f := feed.LastFill(); !f.FromFile || f.Version != 1 {
			t.Fatalf("%s: the fill did not read the N-Quads' snapshot file back: %+v", files, f)
		}
		feed.Close()
		if !reflect.DeepEqual(got, want) {
			for n, r := range want.Headers {
				if !reflect.DeepEqual(r, got.Headers[n]) {
					t.Errorf("%s: relation %s: the file gives\n%+v\nDgraph\n%+v", files, n, got.Headers[n], r)
					break
				}
			}
			for n, e := range want.Entities {
				if !reflect.DeepEqual(e, got.Entities[n]) {
					t.Errorf("%s: entity %s: the file gives\n%+v\nDgraph\n%+v", files, n, got.Entities[n], e)
					break
				}
			}
			t.Fatalf("%s: the file gives another graph than Dgraph (%d/%d sources, %d/%d entities, %d/%d relations)", files,
				len(got.Sources), len(want.Sources), len(got.Entities), len(want.Entities), len(got.Links), len(want.Links))
		}

		// Read back, the file is the graph's: after a write, the next start reads it and catches up.
		extra := graph.Entity{Name: "actors/bulk-path-later", Kind: graph.KindActor, DisplayName: "Written Later"}
		if err := store.UpsertEntities(ctx, []graph.Entity{extra}); err != nil {
			t.Fatal(err)
		}
		again := snapfile.New(store, snapshot, slog.New(slog.DiscardHandler))
		after := graphtest.ReadFeed(t, again)
		if f := again.LastFill(); !f.FromFile || f.Version != 1 {
			t.Fatalf("%s: a fill after a write did not read the file back: %+v", files, f)
		}
		again.Close()
		if _, ok := after.Entities[extra.Name]; !ok || len(after.Links) != len(want.Links) {
			t.Fatalf("%s: the fill read back and caught up gave %d relations (want %d) and the later entity: %v", files, len(after.Links), len(want.Links), ok)
		}
	}

	// A file written with other N-Quads than those loaded (the same graph, another load) is not read back:
	// the fill takes Dgraph's shared copy instead, which the fills above (the file read back and adopted)
	// shared, and gives the graph Dgraph holds.
	snapshot := filepath.Join(dir, "other.snapshot")
	if err := realMain(ctx, []string{"load", "--nquads", filepath.Join(dir, "other.rdf"), "--snapshot-file", snapshot, generated}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	other := snapfile.New(store, snapshot, slog.New(slog.DiscardHandler))
	defer other.Close()
	got := graphtest.ReadFeed(t, other)
	if f := other.LastFill(); !f.FromShared || !strings.Contains(f.Why, "written with the N-Quads of load") {
		t.Fatalf("the file of other N-Quads: %+v", f)
	}
	want := graphtest.ReadFeed(t, store)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Dgraph's shared copy gives %d sources, %d entities, %d relations; Dgraph %d, %d, %d (or other values)",
			len(got.Sources), len(got.Entities), len(got.Links), len(want.Sources), len(want.Entities), len(want.Links))
	}
}
