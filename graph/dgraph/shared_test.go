package dgraph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/snapfile"
)

// serviceClient logs in to the test Dgraph with plain dgo as polgraph's own user, for what the Store
// never does (counting and damaging a shared snapshot's parts).
func serviceClient(t *testing.T) (*dgo.Dgraph, context.Context) {
	t.Helper()
	conn, err := grpc.NewClient(dgraphCfg.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	dg := dgo.NewDgraphClient(api.NewDgraphClient(conn))
	ctx := metadata.AppendToOutgoingContext(t.Context(), "auth-token", dgraphCfg.AuthToken)
	if dgraphCfg.User != "" {
		if err := dg.Login(ctx, dgraphCfg.User, dgraphCfg.Password); err != nil {
			t.Fatal(err)
		}
	}
	return dg, ctx
}

// sharedParts lists the parts Dgraph holds, by set.
func sharedParts(t *testing.T, dg *dgo.Dgraph, ctx context.Context) map[string][]string {
	t.Helper()
	resp, err := dg.NewReadOnlyTxn().Query(ctx, `{ q(func: has(pg.snapshot_seq)) { uid pg.snapshot_set } }`)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Q []struct {
			UID string `json:"uid"`
			Set string `json:"pg.snapshot_set"`
		}
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		t.Fatal(err)
	}
	sets := map[string][]string{}
	for _, p := range res.Q {
		sets[p.Set] = append(sets[p.Set], p.UID)
	}
	return sets
}

// TestSharedSnapshotRoundTrips shares files of several sizes (none, less than a part, parts and a bit,
// incompressible and not) and reads each back byte for byte; a new share replaces the old, whose parts
// go; a label that is not the copy's, and a copy with a part missing or damaged, are refused.
func TestSharedSnapshotRoundTrips(t *testing.T) {
	ctx := t.Context()
	dg, dctx := serviceClient(t)
	r := rand.New(rand.NewPCG(4, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	files := []struct {
		label string
		data  []byte
	}{
		{"empty", nil},
		{"small", []byte("polgraph graph snapshot\nsmall")},
		{"random, two parts and a bit", random(2*dgraph.SharedPartBytes + 12345)},
		{"text, three parts exactly", bytes.Repeat([]byte("relations/a-b claims "), 3*dgraph.SharedPartBytes/21+1)[:3*dgraph.SharedPartBytes]},
	}
	for _, f := range files {
		if err := store.ShareSnapshot(ctx, f.label, bytes.NewReader(f.data)); err != nil {
			t.Fatalf("%s: %v", f.label, err)
		}
		label, size, err := store.SharedSnapshot(ctx)
		if err != nil || label != f.label || size != int64(len(f.data)) {
			t.Fatalf("%s: the store holds %q of %d bytes (%v)", f.label, label, size, err)
		}
		var got bytes.Buffer
		if err := store.ReadSharedSnapshot(ctx, f.label, &got); err != nil {
			t.Fatalf("%s: %v", f.label, err)
		}
		if !bytes.Equal(got.Bytes(), f.data) {
			t.Fatalf("%s: read back %d bytes, not the %d shared", f.label, got.Len(), len(f.data))
		}
		// Only the copy's parts are left: the one before it is gone.
		if sets := sharedParts(t, dg, dctx); len(sets) > 1 {
			t.Fatalf("%s: parts of %d sets are left", f.label, len(sets))
		}
	}

	var ge *graph.Error
	err := store.ReadSharedSnapshot(ctx, "small", &bytes.Buffer{})
	if !errors.As(err, &ge) || ge.Kind != graph.NotFound {
		t.Fatalf("reading a copy no longer held: %v", err)
	}

	// Damage: one part's text changed (it no longer inflates to what was shared), then a part deleted.
	sets := sharedParts(t, dg, dctx)
	var parts []string
	for _, ps := range sets {
		parts = ps
	}
	if len(parts) != 3 {
		t.Fatalf("a file of three parts has %d parts in Dgraph", len(parts))
	}
	mutate := func(m *api.Mutation) {
		t.Helper()
		m.CommitNow = true
		if _, err := dg.NewTxn().Mutate(dctx, m); err != nil {
			t.Fatal(err)
		}
	}
	last := files[len(files)-1]
	mutate(&api.Mutation{SetNquads: []byte(`<` + parts[1] + `> <pg.snapshot_part> "AAAA" .`)})
	err = store.ReadSharedSnapshot(ctx, last.label, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged part: %v", err)
	}
	mutate(&api.Mutation{DelNquads: []byte(`<` + parts[1] + `> * * .`)})
	err = store.ReadSharedSnapshot(ctx, last.label, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a missing part: %v", err)
	}

	// A later share replaces the damaged copy, and its parts go.
	if err := store.ShareSnapshot(ctx, "again", bytes.NewReader(files[2].data)); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := store.ReadSharedSnapshot(ctx, "again", &got); err != nil || !bytes.Equal(got.Bytes(), files[2].data) {
		t.Fatalf("after a new share: %d bytes, %v", got.Len(), err)
	}
	if sets := sharedParts(t, dg, dctx); len(sets) != 1 {
		t.Fatalf("parts of %d sets are left after a new share", len(sets))
	}
}

// TestSharingFailsWhole checks that a share whose file cannot be read to its end leaves the copy before
// it as it was, and no parts of its own.
func TestSharingFailsWhole(t *testing.T) {
	ctx := t.Context()
	dg, dctx := serviceClient(t)
	data := bytes.Repeat([]byte("kept "), 1<<20)
	if err := store.ShareSnapshot(ctx, "kept", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("the disk went away")
	err := store.ShareSnapshot(ctx, "broken", io.MultiReader(bytes.NewReader(make([]byte, 2*dgraph.SharedPartBytes+123456)), failing{broken}))
	if !errors.Is(err, broken) {
		t.Fatalf("a share whose reader failed: %v", err)
	}
	label, _, err := store.SharedSnapshot(ctx)
	if err != nil || label != "kept" {
		t.Fatalf("after a failed share the store holds %q (%v)", label, err)
	}
	var got bytes.Buffer
	if err := store.ReadSharedSnapshot(ctx, "kept", &got); err != nil || !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("the copy kept: %d bytes, %v", got.Len(), err)
	}
	if sets := sharedParts(t, dg, dctx); len(sets) != 1 {
		t.Fatalf("parts of %d sets are left after a failed share", len(sets))
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// TestANewReplicaReadsDgraphsCopy fills a graph from Dgraph through a snapshot file, which the fill then
// shares; a fill with no file of its own (a new replica) reads that copy back instead of the graph, and
// after a write catches up from it: both give exactly what a fill from Dgraph gives.
func TestANewReplicaReadsDgraphsCopy(t *testing.T) {
	ctx := t.Context()
	ents, rels := graphtest.RandomGraph(7777, 60, 240)
	load(t, ents, rels)
	log := slog.New(slog.DiscardHandler)

	first := snapfile.New(store, filepath.Join(t.TempDir(), "graph.snapshot"), log)
	want := graphtest.ReadFeed(t, first)
	if err := first.WaitShared(); err != nil {
		t.Fatalf("sharing the file: %v", err)
	}
	first.Close()
	if len(want.Links) < 240 {
		t.Fatalf("the fill gave %d relations", len(want.Links))
	}

	replica := snapfile.New(store, filepath.Join(t.TempDir(), "graph.snapshot"), log)
	got := graphtest.ReadFeed(t, replica)
	if f := replica.LastFill(); !f.FromShared || !f.FromFile {
		t.Fatalf("a fill with no file did not read Dgraph's copy back: %+v", f)
	}
	replica.Close()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the copy gives %d sources, %d entities, %d relations; Dgraph %d, %d, %d (or other values)",
			len(got.Sources), len(got.Entities), len(got.Links), len(want.Sources), len(want.Entities), len(want.Links))
	}

	later := graph.Entity{Name: "actors/shared-copy-later", Kind: graph.KindActor, DisplayName: "Written After The Share"}
	if err := store.UpsertEntities(ctx, []graph.Entity{later}); err != nil {
		t.Fatal(err)
	}
	fromStore := graphtest.ReadFeed(t, store)
	next := snapfile.New(store, filepath.Join(t.TempDir(), "graph.snapshot"), log)
	defer next.Close()
	caught := graphtest.ReadFeed(t, next)
	if f := next.LastFill(); !f.FromShared {
		t.Fatalf("a fill after a write did not read Dgraph's copy back: %+v", f)
	}
	if _, ok := caught.Entities[later.Name]; !ok || !reflect.DeepEqual(caught, fromStore) {
		t.Fatalf("read back and caught up: %d entities (the later one: %v); Dgraph gives %d", len(caught.Entities), ok, len(fromStore.Entities))
	}
}
