package dgraph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// lagger makes the calls to one alpha address show the graph as at an older snapshot, as an alpha that has
// just restarted or rejoined its group answers until it has caught up: each query is made, and its answer
// replaced by the same query's answer at the snapshot. Mutations are applied and answered as they are.
type lagger struct {
	addr   string
	mu     sync.Mutex
	at     uint64 // the snapshot shown; 0: the alpha does not lag
	hash   string // the snapshot's hash, which Dgraph asks a request at its timestamp to carry
	lagged atomic.Int64
}

func (l *lagger) lag(at uint64, hash string) {
	l.mu.Lock()
	l.at, l.hash = at, hash
	l.mu.Unlock()
}

func (l *lagger) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if err := invoker(ctx, method, req, reply, cc, opts...); err != nil || method != "/api.Dgraph/Query" || cc.Target() != l.addr {
		return err
	}
	l.mu.Lock()
	at, hash := l.at, l.hash
	l.mu.Unlock()
	if at == 0 || len(req.(*api.Request).Mutations) > 0 {
		return nil // a mutation is applied to the graph as it is; only what queries show lags
	}
	old := *req.(*api.Request)
	old.StartTs, old.Hash, old.ReadOnly = at, hash, true
	var shown api.Response
	if err := invoker(ctx, method, &old, &shown, cc, opts...); err != nil {
		return err
	}
	reply.(*api.Response).Json = shown.Json
	l.lagged.Add(1)
	return nil
}

// openLagging opens a store on alphas (a comma-separated list), of which the calls to lagging go through
// l; every address is the test Dgraph's own alpha.
func openLagging(t *testing.T, alphas string, l *lagger) *dgraph.Store {
	t.Helper()
	cfg := dgraphCfg
	cfg.Addr = alphas
	cfg.DialOptions = append(cfg.DialOptions[:len(cfg.DialOptions):len(cfg.DialOptions)], grpc.WithChainUnaryInterceptor(l.intercept))
	s, err := dgraph.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// otherName returns another address of the test Dgraph's alpha, so that a store can hold it twice, once
// lagging.
func otherName(t *testing.T) string {
	t.Helper()
	host, port, err := net.SplitHostPort(dgraphCfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if host == "localhost" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return net.JoinHostPort("localhost", port)
}

// snapshotThenWrite takes a snapshot of the graph, runs then, writes the entity name through the shared
// store (another replica's write, display name "Before"), and has s read the graph's version, so that s
// has seen the write. It returns the snapshot and the version.
func snapshotThenWrite(t *testing.T, s *dgraph.Store, name string, then func()) (uint64, string, int64) {
	t.Helper()
	ctx := context.Background()
	at, hash, err := dgraph.Snapshot(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	then()
	if err := store.UpsertEntities(ctx, []graph.Entity{{Name: graph.EntityName(name), Kind: graph.KindActor, DisplayName: "Before"}}); err != nil {
		t.Fatal(err)
	}
	v, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Version(ctx); err != nil || got != v {
		t.Fatalf("the store reads version %d (%v); the write made it %d", got, err, v)
	}
	return at, hash, v
}

// wantNotReady checks that err, of a call made while l lagged, is Unavailable, DATABASE_NOT_READY, and that
// l did answer as lagging; then l stops lagging.
func wantNotReady(t *testing.T, what string, err error, l *lagger) {
	t.Helper()
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Unavailable || ge.Reason != "DATABASE_NOT_READY" {
		t.Errorf("%s on an alpha showing an older graph: %v; want Unavailable, DATABASE_NOT_READY", what, err)
	}
	if l.lagged.Load() == 0 {
		t.Fatal("the alpha never answered as lagging: the test shows nothing")
	}
	l.lag(0, "")
}

// TestWritesRefuseALaggingAlpha: a write whose lookup is answered by an alpha showing an older graph than
// the store has seen (one just restarted, or rejoined its group) would create again the resources it
// looks up and mark the graph with an older version than it has, so that no replica ever read the
// write. It must write nothing there: on the other alphas when one shows the graph seen, else not at all.
func TestWritesRefuseALaggingAlpha(t *testing.T) {
	ctx := context.Background()
	other := otherName(t)
	entity := func(name, display string) []graph.Entity {
		return []graph.Entity{{Name: graph.EntityName(name), Kind: graph.KindActor, DisplayName: display}}
	}
	displayName := func(name string) string {
		t.Helper()
		got, err := store.GetEntities(ctx, []graph.EntityName{graph.EntityName(name)})
		if err != nil {
			t.Fatal(err)
		}
		return got[graph.EntityName(name)].DisplayName
	}
	countNamed := func(name string) int {
		t.Helper()
		n, err := dgraph.CountNamed(ctx, store, name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	version := func(s *dgraph.Store) int64 {
		t.Helper()
		v, err := s.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	t.Run("the only alpha lags: the write fails, and writes nothing", func(t *testing.T) {
		l := &lagger{addr: dgraphCfg.Addr}
		s := openLagging(t, dgraphCfg.Addr, l)
		name := "actors/lagging-alone"
		at, hash, v := snapshotThenWrite(t, s, name, func() {})
		l.lag(at, hash)
		wantNotReady(t, "a write", s.UpsertEntities(ctx, entity(name, "After")), l)
		if n := countNamed(name); n != 1 {
			t.Errorf("%d nodes named %s; want 1", n, name)
		}
		if got := displayName(name); got != "Before" {
			t.Errorf("display name %q after a refused write; want %q", got, "Before")
		}
		if got := version(store); got != v {
			t.Errorf("graph version %d after a refused write; want %d", got, v)
		}
	})

	t.Run("one of two alphas lags: writes go to the other", func(t *testing.T) {
		l := &lagger{addr: other}
		s := openLagging(t, other+","+dgraphCfg.Addr, l)
		dgraph.StopProbes(s) // the write, not a probe, meets the lagging alpha first
		name := "actors/lagging-one-of-two"
		at, hash, v := snapshotThenWrite(t, s, name, func() {})
		l.lag(at, hash)
		const writes = 6
		for i := range writes {
			if err := s.UpsertEntities(ctx, entity(name, fmt.Sprint("After ", i))); err != nil {
				t.Fatalf("write %d: %v; one alpha shows the graph seen", i, err)
			}
			if i%2 == 0 {
				s.Version(ctx) // one call more, so that the next write's lookup goes to the other alpha in turn
			}
		}
		if l.lagged.Load() == 0 {
			t.Fatal("the lagging alpha never answered: the test shows nothing")
		}
		if n := countNamed(name); n != 1 {
			t.Errorf("%d nodes named %s; want 1", n, name)
		}
		if got, want := displayName(name), fmt.Sprint("After ", writes-1); got != want {
			t.Errorf("display name %q; want %q", got, want)
		}
		if got := version(store); got != v+writes {
			t.Errorf("graph version %d after %d writes from %d; want %d", got, writes, v, v+writes)
		}
	})
}

// TestChangesReadOneAlpha: a replica's catch-up reads the graph's version, then what changed up to it, in
// one transaction. With one alpha lagging, the answer may be the older graph, whole, but never the newer
// version without the changes that made it: the topology would hold that version, and never read those
// changes again.
func TestChangesReadOneAlpha(t *testing.T) {
	ctx := context.Background()
	other := otherName(t)
	l := &lagger{addr: other}
	s := openLagging(t, other+","+dgraphCfg.Addr, l)
	dgraph.StopProbes(s)

	ents, rels := graphtest.RandomGraph(7500, 12, 30)
	last := rels[len(rels)-1]
	load(t, ents, rels[:len(rels)-1])
	before, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at, hash, err := dgraph.Snapshot(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, []graph.Relation{last}); err != nil {
		t.Fatal(err)
	}
	l.lag(at, hash)

	var olderGraph, newerGraph int
	for i := range 8 {
		found := false
		v, err := s.Changes(ctx, before-1, func(c graph.Changed) {
			for _, l := range c.Links {
				found = found || l.Name == last.Name
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case v > before && !found:
			t.Errorf("read %d: version %d without %s, the write that made it", i, v, last.Name)
		case v > before:
			newerGraph++
		default:
			olderGraph++
		}
		if i%2 == 0 {
			s.Version(ctx) // one call more, so that the next read starts on the other alpha
		}
	}
	t.Logf("%d reads showed the older graph, %d the newer", olderGraph, newerGraph)
	if l.lagged.Load() == 0 || newerGraph == 0 {
		t.Fatal("the reads did not meet both alphas: the test shows nothing")
	}
}

// TestKeyWritesRefuseALaggingAlpha: the graph's id and the head of the shared snapshot are each one node
// that a write finds, or else makes. An alpha showing an older graph than the store has seen would show
// none (or a meta node without its id), and the write would make a second head, or replace the graph's
// id. Both refuse such an answer, write nothing, and fail when the only alpha keeps lagging.
func TestKeyWritesRefuseALaggingAlpha(t *testing.T) {
	ctx := context.Background()
	dg, dctx := serviceClient(t)
	// lagBehind returns a store whose alpha shows the graph as it was before then ran and the shared store
	// wrote the entity name, which the new store has seen.
	lagBehind := func(t *testing.T, name string, then func()) (*dgraph.Store, *lagger) {
		t.Helper()
		l := &lagger{addr: dgraphCfg.Addr}
		s := openLagging(t, dgraphCfg.Addr, l)
		at, hash, _ := snapshotThenWrite(t, s, name, then)
		l.lag(at, hash)
		return s, l
	}

	t.Run("the graph's id", func(t *testing.T) {
		if err := dgraph.DropGraphID(ctx, store); err != nil {
			t.Fatal(err)
		}
		// The alpha shows the meta node without an id, then the store gives it one.
		s, l := lagBehind(t, "actors/lagging-graph-id", func() {
			if _, err := store.GraphID(ctx); err != nil {
				t.Fatal(err)
			}
		})
		want, err := store.GraphID(ctx)
		if err != nil || want == "" {
			t.Fatalf("the graph's id: %q, %v", want, err)
		}
		_, err = s.GraphID(ctx)
		wantNotReady(t, "GraphID", err, l)
		if got, err := store.GraphID(ctx); err != nil || got != want {
			t.Errorf("the graph's id is %q (%v) after a lagging alpha was asked for it; want %q, as before", got, err, want)
		}
		if got, err := s.GraphID(ctx); err != nil || got != want {
			t.Errorf("once the alpha caught up, the store reads the graph's id as %q (%v); want %q", got, err, want)
		}
	})

	t.Run("a key's lookup", func(t *testing.T) {
		// The alpha shows the graph from before the key was made: "no such key" there proves nothing.
		secret, k, _ := auth.NewKey(fmt.Sprintf("lagging-key-%d", time.Now().UnixNano()), auth.Editor, time.Now())
		s, l := lagBehind(t, "actors/lagging-key", func() {
			if err := store.Keys().CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		})
		_, err := s.Keys().KeyByHash(ctx, auth.HashKey(secret))
		wantNotReady(t, "KeyByHash", err, l)
		var ge *graph.Error
		if errors.As(err, &ge) && ge.RetryAfter <= 0 {
			t.Errorf("KeyByHash on a lagging alpha: no retry delay")
		}
		if got, err := s.Keys().KeyByHash(ctx, auth.HashKey(secret)); err != nil || got.ID != k.ID {
			t.Errorf("once the alpha caught up: %+v, %v", got, err)
		}
		if _, err := s.Keys().KeyByHash(ctx, auth.HashKey(secret+"x")); graph.KindOf(err) != graph.NotFound {
			t.Errorf("an unknown key on an alpha that caught up: %v; want NotFound", err)
		}
	})

	t.Run("the shared snapshot's head", func(t *testing.T) {
		// No copy is held: the alpha will show none.
		if _, err := dg.NewTxn().Do(dctx, &api.Request{
			Query:     `{ h as var(func: has(pg.snapshot_of)) p as var(func: has(pg.snapshot_seq)) }`,
			Mutations: []*api.Mutation{{DelNquads: []byte("uid(h) * * .\nuid(p) * * .")}},
			CommitNow: true,
		}); err != nil {
			t.Fatal(err)
		}
		// The alpha shows no copy, then the store shares one.
		s, l := lagBehind(t, "actors/lagging-share", func() {
			if err := store.ShareSnapshot(ctx, "shared first", bytes.NewReader([]byte("the first copy"))); err != nil {
				t.Fatal(err)
			}
		})
		err := s.ShareSnapshot(ctx, "shared on a lagging alpha", bytes.NewReader([]byte("the second copy")))
		wantNotReady(t, "ShareSnapshot", err, l)
		resp, err := dg.NewReadOnlyTxn().Query(dctx, `{ q(func: has(pg.snapshot_of)) { n: count(uid) } }`)
		if err != nil {
			t.Fatal(err)
		}
		var heads struct{ Q []struct{ N int } }
		if err := json.Unmarshal(resp.Json, &heads); err != nil {
			t.Fatal(err)
		}
		if len(heads.Q) != 1 || heads.Q[0].N != 1 {
			t.Errorf("heads of the shared copy: %s; want one", resp.Json)
		}
		if label, size, err := store.SharedSnapshot(ctx); err != nil || label != "shared first" || size != int64(len("the first copy")) {
			t.Errorf("the copy held is %q of %d bytes (%v); want the first, whole", label, size, err)
		}
		if sets := sharedParts(t, dg, dctx); len(sets) != 1 {
			t.Errorf("parts of %d sets are left; want the first copy's only", len(sets))
		}
	})
}

// TestLoadGoesOnPastALaggingAlpha: a load's batches read the graph's meta node to check the load's hold
// on its version. An alpha that does not show the load's start yet (one behind its group, as a cluster
// just started has) shows an older version than the load holds. That is not the hold lapsing: the batch
// is written again on an alpha that shows it, and the load goes on and ends, its hold released.
func TestLoadGoesOnPastALaggingAlpha(t *testing.T) {
	ctx := context.Background()
	other := otherName(t)
	l := &lagger{addr: other}
	s := openLagging(t, other+","+dgraphCfg.Addr, l)
	dgraph.StopProbes(s) // the batches, not a probe, meet the lagging alpha first
	at, hash, err := dgraph.Snapshot(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.lag(at, hash) // the lagging alpha shows the graph as before the load began
	const batches = 6
	var ents []graph.Entity
	for i := range batches {
		e := graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/load-past-lag-%d", i)), Kind: graph.KindActor, DisplayName: fmt.Sprint("Past lag ", i)}
		ents = append(ents, e)
		if err := b.UpsertEntities(ctx, []graph.Entity{e}); err != nil {
			l.lag(0, "")
			b.End(ctx)
			t.Fatalf("batch %d: %v; one alpha shows the load's version", i, err)
		}
		if i%2 == 0 {
			s.Version(ctx) // one call more, so that the next batch's lookup goes to the other alpha in turn
		}
	}
	lagged := l.lagged.Load()
	l.lag(0, "")
	if err := b.End(ctx); err != nil {
		t.Fatal(err)
	}
	if lagged == 0 {
		t.Fatal("the lagging alpha never answered: the test shows nothing")
	}
	got, err := store.GetEntities(ctx, []graph.EntityName{ents[0].Name, ents[batches-1].Name})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("%d of the load's first and last entities read back; want 2", len(got))
	}
	// The hold is released: a plain write does not wait for it.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := store.UpsertEntities(wctx, []graph.Entity{{Name: "actors/load-past-lag-after", Kind: graph.KindActor, DisplayName: "After"}}); err != nil {
		t.Errorf("a write after the load: %v", err)
	}
}
