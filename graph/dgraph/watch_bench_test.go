package dgraph_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/live"
)

// The change feed's figures (docs/bench-live.md): go test ./graph/dgraph -run '^$' -bench ChangeFeed
// -benchtime 200x. Latency is from a write's acknowledgement to a watcher holding its change (through the
// hub, woken by the store's own write), catch-up the rate a watcher from version 0 reads a long trail,
// and memory the heap while one watcher takes nothing.

func BenchmarkChangeFeedLatency(b *testing.B) {
	for _, watchers := range []int{1, 100} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			s := benchStore(b)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h := newHub(b, s, live.Config{})
			var mu sync.Mutex
			acked := map[string]time.Time{}
			var lat []time.Duration
			var wg sync.WaitGroup
			for range watchers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					h.Watch(ctx, nil, live.Filter{}, func(bt live.Batch) error {
						now := time.Now()
						mu.Lock()
						for _, c := range bt.Changes {
							lat = append(lat, max(0, now.Sub(acked[c.Resource])))
						}
						mu.Unlock()
						return nil
					})
				}()
			}
			for h.Watchers() < watchers {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			b.ResetTimer()
			for i := range b.N {
				name := fmt.Sprintf("actors/latency-%d-%d", watchers, i)
				e := graph.Entity{Name: graph.EntityName(name), Kind: graph.KindActor, DisplayName: "Latency"}
				if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), []graph.Entity{e}); err != nil {
					b.Fatal(err)
				}
				mu.Lock()
				acked[name] = time.Now()
				mu.Unlock()
			}
			deadline := time.Now().Add(time.Minute)
			for {
				mu.Lock()
				n := len(lat)
				mu.Unlock()
				if n >= b.N*watchers || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			b.StopTimer()
			mu.Lock()
			defer mu.Unlock()
			if len(lat) < b.N*watchers {
				b.Fatalf("%d deliveries, want %d", len(lat), b.N*watchers)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkChangeFeedCatchUp: one load of POLGRAPH_BENCH_CHANGES entities (default 100,000) in one
// version, then 1,000 writes of one entity each; a watcher from version 0 reads them all.
func BenchmarkChangeFeedCatchUp(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	n := benchChanges()
	load := make([]graph.Entity, n)
	for i := range load {
		load[i] = graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/catch-up-%d", i)), Kind: graph.KindActor, DisplayName: "Catch up"}
	}
	start := time.Now()
	bulk, err := s.BeginBulk(audited(ctx, "load"))
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w * 1000; i < n; i += 4000 {
				if err := bulk.UpsertEntities(audited(ctx, "load"), load[i:min(i+1000, n)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := bulk.End(ctx); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		e := graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/catch-up-single-%d", i)), Kind: graph.KindActor, DisplayName: "One"}
		if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), []graph.Entity{e}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("wrote %d changes in %s", n+1000, time.Since(start).Round(time.Second))
	h := newHub(b, s, live.Config{})
	b.ResetTimer()
	for range b.N {
		got := 0
		from := graph.ChangeCursor{}
		t0 := time.Now()
		err := h.Watch(ctx, &from, live.Filter{UntilCaughtUp: true}, func(bt live.Batch) error { got += len(bt.Changes); return nil })
		if err != nil {
			b.Fatal(err)
		}
		if got != n+1001 { // the load, the single writes and the source
			b.Fatalf("caught up with %d changes, want %d", got, n+1001)
		}
		b.ReportMetric(float64(got)/time.Since(t0).Seconds(), "changes/s")
		b.ReportMetric(float64(got), "changes")
	}
}

// BenchmarkChangeFeedStalled: one watcher takes nothing while 5,000 changes are written; the heap in use
// before, while it is stalled with its buffer full, and once it is ended.
func BenchmarkChangeFeedStalled(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	h := newHub(b, s, live.Config{StallAfter: 5 * time.Second})
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapInuse) / (1 << 20)
	}
	for range b.N {
		before := heap()
		release := make(chan struct{})
		ended := make(chan error, 1)
		go func() {
			ended <- h.Watch(ctx, nil, live.Filter{}, func(live.Batch) error { <-release; return nil })
		}()
		peak := before
		for i := range 50 {
			var batch []graph.Entity
			for j := range 100 {
				batch = append(batch, graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/stall-%d-%d", i, j)), Kind: graph.KindActor,
					DisplayName: "Stalled", Description: "A description long enough to weigh something in the buffer."})
			}
			if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), batch); err != nil {
				b.Fatal(err)
			}
			if i%10 == 9 {
				peak = max(peak, heap())
			}
		}
		time.Sleep(6 * time.Second)
		peak = max(peak, heap())
		close(release)
		err := <-ended
		after := heap()
		b.ReportMetric(before, "heap-before-MB")
		b.ReportMetric(peak, "heap-stalled-MB")
		b.ReportMetric(after, "heap-after-MB")
		b.Logf("the stalled watcher ended with: %v", err)
	}
}

func benchStore(b *testing.B) *dgraph.Store {
	b.Helper()
	s := freshStore(b)
	if err := s.UpsertSources(audited(context.Background(), "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchChanges is how many changes BenchmarkChangeFeedCatchUp loads: POLGRAPH_BENCH_CHANGES, or 100,000.
func benchChanges() int {
	if n, err := strconv.Atoi(os.Getenv("POLGRAPH_BENCH_CHANGES")); err == nil && n > 0 {
		return n
	}
	return 100000
}
