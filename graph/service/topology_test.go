package service_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// gatedFeed is a change feed whose relations after the first version arrive only when the gate opens:
// a catch-up that takes as long as the test wants (a large load being read).
type gatedFeed struct {
	mu      sync.Mutex
	first   []graph.Link
	later   []graph.Link
	version atomic.Int64
	gate    chan struct{}
}

func (f *gatedFeed) Version(context.Context) (int64, error) { return f.version.Load(), nil }

func (f *gatedFeed) Changes(ctx context.Context, since int64, each func(graph.Changed)) (int64, error) {
	v := f.version.Load()
	if since < 1 {
		each(graph.Changed{Links: slices.Clone(f.first)})
		since = 1
	}
	if v > since {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		f.mu.Lock()
		each(graph.Changed{Links: slices.Clone(f.later)})
		f.mu.Unlock()
	}
	return v, nil
}

// TestSearchesNeverWaitForTheTopologyToCatchUp publishes a write that the topology takes long to read:
// a search started after it answers within its deadline, from the store, and sees the write; once the
// topology has caught up in the background, searches read it again, with the same answer.
func TestSearchesNeverWaitForTheTopologyToCatchUp(t *testing.T) {
	t.Parallel()
	ents, rels := graphtest.RandomGraph(7, 40, 60)
	// A relation between two entities no route joins before it.
	from, to := graph.EntityName("actors/island-a"), graph.EntityName("actors/island-b")
	ents = append(ents, graph.Entity{Name: from, Kind: graph.KindActor, DisplayName: "Island A"},
		graph.Entity{Name: to, Kind: graph.KindActor, DisplayName: "Island B"})
	bridge := graph.Relation{Name: graph.RelationNameFor(from, graph.Endorses, to, ""), Type: graph.Endorses, From: from, To: to,
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(graph.RelationNameFor(from, graph.Endorses, to, ""), "sources/random", "0"),
			Source: graph.Source{Name: "sources/random"}, Excerpt: "bridge", Confidence: 0.9, Status: graph.StatusReported}}}
	feed := &gatedFeed{first: graphtest.Links(ents, rels), gate: make(chan struct{})}
	feed.version.Store(1)
	topo := memgraph.NewTopology(feed)
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The write: the store has it at once; the topology's catch-up is held at the gate.
	all := append(slices.Clone(rels), bridge)
	feed.later = graphtest.Links(ents, []graph.Relation{bridge})
	feed.version.Store(2)
	store := newStore(t, ents, all, nil)
	svc := &service.Service{Store: store, Reads: topo.Reads(store)}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	q := graph.PathQuery{From: from, To: to}
	ans, err := svc.FindPaths(ctx, q)
	if err != nil {
		t.Fatalf("the first search after the write: %v", err)
	}
	if len(ans.Paths) != 1 || ans.Paths[0].Hops[0].Relations[0].Relation != bridge.Name {
		t.Fatalf("the first search after the write missed it: %+v", ans.Paths)
	}
	if topo.Version() != 1 {
		t.Fatalf("the topology caught up before the gate opened")
	}

	close(feed.gate)
	deadline := time.Now().Add(10 * time.Second)
	for topo.Version() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the topology did not catch up in the background")
		}
		time.Sleep(10 * time.Millisecond)
	}
	again, err := svc.FindPaths(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Paths) != 1 || again.Paths[0].Hops[0].Relations[0].Relation != bridge.Name {
		t.Errorf("from the caught-up topology: %+v", again.Paths)
	}
}

// TestSearchOutOfTimeWhileCatchingUp: a search whose service bound (Service.Timeout) ends while the
// topology catches up fails as out of time, typed so, whatever deadline its caller set.
func TestSearchOutOfTimeWhileCatchingUp(t *testing.T) {
	t.Parallel()
	ents, rels := graphtest.RandomGraph(8, 20, 30)
	feed := &gatedFeed{first: graphtest.Links(ents, rels), gate: make(chan struct{})}
	defer close(feed.gate)
	feed.version.Store(1)
	topo := memgraph.NewTopology(feed)
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	feed.version.Store(2) // a write the catch-up is held from reading
	store := newStore(t, ents, rels, nil)
	svc := &service.Service{Store: store, Reads: topo.Reads(store), Timeout: 20 * time.Millisecond}
	_, err := svc.FindPaths(context.Background(), graph.PathQuery{From: ents[0].Name, To: ents[1].Name})
	if graph.KindOf(err) != graph.DeadlineExceeded {
		t.Errorf("a search out of time while the topology caught up: %v (kind %v), want kind DeadlineExceeded", err, graph.KindOf(err))
	}
}
