package dgraph_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/live"
)

// watched collects what a watcher was sent.
type watched struct {
	mu      sync.Mutex
	changes []graph.Change
	next    graph.ChangeCursor
	batches int
}

func (w *watched) send(b live.Batch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes = append(w.changes, b.Changes...)
	w.next = b.Next
	w.batches++
	return nil
}

func (w *watched) snapshot() ([]graph.Change, graph.ChangeCursor) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.changes), w.next
}

// waitFor waits until w holds n changes (failing after a minute) and returns them.
func (w *watched) waitFor(t *testing.T, n int) []graph.Change {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, _ := w.snapshot()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher got %d changes in a minute, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newHub is a hub over s, woken by s's own writes and reads and polling every poll.
func newHub(t testing.TB, s *dgraph.Store, cfg live.Config) *live.Hub {
	cfg.Log, cfg.Version, cfg.Generation = s, s.Version, s.Generation
	if cfg.Links == nil {
		cfg.Links = s
	}
	h := live.New(cfg)
	s.OnVersion(h.Notify)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go h.Run(ctx)
	return h
}

// chainGraph is actors/w0 — w1 — … — w5, each joined to the next (ENDORSES), and parties/w-party with
// w5 its member.
func chainGraph() ([]graph.Entity, []graph.Relation) {
	var ents []graph.Entity
	for i := range 6 {
		ents = append(ents, graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/w%d", i)), Kind: graph.KindActor, DisplayName: fmt.Sprintf("W %d", i)})
	}
	ents = append(ents, graph.Entity{Name: "parties/w-party", Kind: graph.KindParty, DisplayName: "W Party"})
	var rels []graph.Relation
	rel := func(from graph.EntityName, t graph.RelationType, to graph.EntityName) {
		name := graph.RelationNameFor(from, t, to, "")
		rels = append(rels, graph.Relation{Name: name, Type: t, From: from, To: to, Claims: []graph.Claim{{
			Name: graph.ClaimNameFor(name, "sources/random", "0"), Source: graph.Source{Name: "sources/random"}, Excerpt: "said",
			Confidence: 0.8, Status: graph.StatusReported}}})
	}
	for i := range 5 {
		rel(ents[i].Name, graph.Endorses, ents[i+1].Name)
	}
	rel(ents[5].Name, graph.MemberOf, "parties/w-party")
	return ents, rels
}

// TestWatchersSeeEveryWriteOnceInOrder: sixteen writers at once; a watcher from before them sees every
// change once, in version order; one cut mid-stream and resumed from where it was cut sees exactly the
// same; filters by entity, neighbourhood, relation type and kind see what they name.
func TestWatchersSeeEveryWriteOnceInOrder(t *testing.T) {
	s := freshStore(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if err := s.UpsertSources(audited(ctx, "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	ents, rels := chainGraph()
	if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), ents); err != nil {
		t.Fatal(err)
	}
	// A small page, so that the watchers read many pages and a cut falls between them.
	h := newHub(t, s, live.Config{Page: 5, Poll: 50 * time.Millisecond})
	start := graph.ChangeCursor{}
	if v, err := s.Version(ctx); err == nil {
		start.Version = v
	} else {
		t.Fatal(err)
	}
	run := func(ctx context.Context, from graph.ChangeCursor, f live.Filter) *watched {
		w := &watched{}
		go h.Watch(ctx, &from, f, w.send)
		return w
	}
	all := run(ctx, start, live.Filter{})
	byEntity := run(ctx, start, live.Filter{Entities: []graph.EntityName{"actors/w0"}})
	near := run(ctx, start, live.Filter{Center: "actors/w0", Depth: 2})
	members := run(ctx, start, live.Filter{RelationTypes: []graph.RelationType{graph.MemberOf}})
	parties := run(ctx, start, live.Filter{Kinds: []graph.Kind{graph.KindParty}})
	cutCtx, cut := context.WithCancel(ctx)
	defer cut()
	first := run(cutCtx, start, live.Filter{})

	// The chain first (the neighbourhood is read as the graph stands), then sixteen writers of entities.
	if err := s.UpsertRelations(audited(ctx, "UpsertRelations"), rels); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const writers, each = 16, 6
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				e := graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/writer-%d-%d", w, i)), Kind: graph.KindActor, DisplayName: "Writer"}
				if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), []graph.Entity{e}); err != nil {
					t.Error(err)
					return
				}
				if w == 0 && i == 2 {
					cut() // mid-stream
				}
			}
		})
	}
	wg.Wait()
	// One more change to w0 itself, after everything.
	w0 := ents[0]
	w0.Description = "changed"
	if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), []graph.Entity{w0}); err != nil {
		t.Fatal(err)
	}
	want := len(rels) + writers*each + 1
	got := all.waitFor(t, want)
	checkOrder(t, got)
	time.Sleep(200 * time.Millisecond)
	if got, _ = all.snapshot(); len(got) != want {
		t.Fatalf("the watcher got %d changes, want %d", len(got), want)
	}
	seen := map[string]bool{}
	for _, c := range got {
		key := fmt.Sprintf("%s@%d", c.Resource, c.Version)
		if seen[key] {
			t.Fatalf("%s sent twice", key)
		}
		seen[key] = true
		if c.Principal != "tester" || c.Method == "" || c.Time.IsZero() {
			t.Fatalf("change %s lacks who, how or when: %+v", key, c)
		}
	}
	versions := map[int64]bool{}
	for _, c := range got {
		versions[c.Version] = true
	}
	if len(versions) != 1+writers*each+1 {
		t.Errorf("the changes span %d versions; want one per write (%d)", len(versions), 1+writers*each+1)
	}

	// Cut mid-stream, resumed from the last place it was sent: the same changes, none twice.
	before, at := first.snapshot()
	if len(before) >= want {
		t.Fatalf("the cut watcher had every change (%d) before it was cut", len(before))
	}
	again := run(ctx, at, live.Filter{})
	after := again.waitFor(t, want-len(before))
	whole := append(before, after...)
	if len(whole) != want {
		t.Fatalf("cut after %d changes and resumed from %s, the watcher got %d in all, want %d", len(before), at.Token(), len(whole), want)
	}
	for i := range whole {
		if whole[i].Version != got[i].Version || whole[i].Index != got[i].Index || whole[i].Resource != got[i].Resource {
			t.Fatalf("resumed, change %d is %s@%d.%d; uncut, %s@%d.%d", i, whole[i].Resource, whole[i].Version, whole[i].Index, got[i].Resource, got[i].Version, got[i].Index)
		}
	}

	names := func(w *watched, n int) []string {
		w.waitFor(t, n)
		time.Sleep(100 * time.Millisecond) // and nothing more comes
		cs, _ := w.snapshot()
		var out []string
		for _, c := range cs {
			out = append(out, c.Resource)
		}
		return out
	}
	r := func(i int) string { return string(rels[i].Name) }
	for _, tc := range []struct {
		name string
		w    *watched
		want []string
	}{
		{"entity", byEntity, []string{r(0), "actors/w0"}},
		{"neighbourhood of 2 hops", near, []string{r(0), r(1), r(2), "actors/w0"}},
		{"relation type", members, []string{r(5)}},
		{"kind", parties, []string{r(5)}},
	} {
		got := names(tc.w, len(tc.want))
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStalledWatcherIsEnded: a watcher that takes nothing while its buffer is full is ended after the
// stall, with where to resume; what it was sent, then what a watcher from there is sent, is every change
// once; and it held no more than its buffer.
func TestStalledWatcherIsEnded(t *testing.T) {
	s := freshStore(t)
	ctx := context.Background()
	if err := s.UpsertSources(audited(ctx, "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	const buffer = 8
	h := newHub(t, s, live.Config{Buffer: buffer, StallAfter: 300 * time.Millisecond, Page: 4})
	from := graph.ChangeCursor{Version: 1}
	release := make(chan struct{})
	stalled := &watched{}
	ended := make(chan error, 1)
	go func() {
		ended <- h.Watch(ctx, &from, live.Filter{}, func(b live.Batch) error {
			<-release // takes nothing until released
			return stalled.send(b)
		})
	}()
	const n = 60
	for i := range n {
		e := graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/stalled-%d", i)), Kind: graph.KindActor, DisplayName: "Stalled"}
		if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), []graph.Entity{e}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // past the stall
	close(release)
	var err error
	select {
	case err = <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the stalled watcher was not ended")
	}
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.ResourceExhausted || ge.Reason != graph.ReasonWatcherTooSlow || ge.Metadata["resume_token"] == "" {
		t.Fatalf("the stalled watcher ended with %v; want RESOURCE_EXHAUSTED %s with a resume token", err, graph.ReasonWatcherTooSlow)
	}
	sent, _ := stalled.snapshot()
	if len(sent) == 0 || len(sent) > 2*buffer {
		t.Fatalf("the stalled watcher was sent %d changes; want some, at most twice its buffer (%d)", len(sent), 2*buffer)
	}
	resume, err := graph.ParseChangeToken(ge.Metadata["resume_token"])
	if err != nil {
		t.Fatal(err)
	}
	rest := &watched{}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go h.Watch(rctx, &resume, live.Filter{}, rest.send)
	got := append(sent, rest.waitFor(t, n-len(sent))...)
	checkOrder(t, got)
	for i, c := range got {
		if want := fmt.Sprintf("actors/stalled-%d", i); c.Resource != want {
			t.Fatalf("change %d is %s, want %s", i, c.Resource, want)
		}
	}
}

// TestWatchersEndWhenTheServerStops: when the hub stops (the server is stopping), a watcher ends at
// once, Unavailable, with where to resume: after what it was sent.
func TestWatchersEndWhenTheServerStops(t *testing.T) {
	s := freshStore(t)
	ctx := context.Background()
	if err := s.UpsertSources(audited(ctx, "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	h := live.New(live.Config{Log: s, Version: s.Version})
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() { h.Run(runCtx); close(ran) }()
	w := &watched{}
	ended := make(chan error, 1)
	from := graph.ChangeCursor{}
	go func() { ended <- h.Watch(ctx, &from, live.Filter{}, w.send) }()
	w.waitFor(t, 1)
	stop()
	<-ran
	var err error
	select {
	case err = <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not end when the hub stopped")
	}
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Unavailable || ge.Metadata["resume_token"] == "" {
		t.Fatalf("the watcher ended with %v; want UNAVAILABLE with a resume token", err)
	}
	if _, next := w.snapshot(); ge.Metadata["resume_token"] != next.Token() {
		t.Errorf("resume from %s, but the last batch sent ends at %s", ge.Metadata["resume_token"], next.Token())
	}
}
