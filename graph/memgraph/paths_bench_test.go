package memgraph_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/graph/walk"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/synth"
)

var benchGraph = sync.OnceValues(func() (*graphtest.Collector, *memgraph.Topology) {
	c, topo, err := graphtest.SyntheticTopology(context.Background(), graphtest.BenchRelations())
	if err != nil {
		panic(err)
	}
	return c, topo
})

// benchActors is the benchmark graph's topology and its actors, the searches' ends and centres.
func benchActors() ([]graph.EntityName, *memgraph.Topology) {
	c, topo := benchGraph()
	var actors []graph.EntityName
	for _, e := range c.Entities {
		if e.Kind == graph.KindActor {
			actors = append(actors, e.Name)
		}
	}
	return actors, topo
}

// reportP99 reports the 99th percentile of took, in microseconds.
func reportP99(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkFindPathsTopology runs path searches between random actors of a synthetic graph (100k
// relations, or POLGRAPH_BENCH_RELATIONS) held in a Topology: the engine alone, without Dgraph or gRPC.
func BenchmarkFindPathsTopology(b *testing.B) {
	actors, topo := benchActors()
	for _, tc := range []struct {
		name         string
		paths, depth int
	}{{"k=1,depth=4", 1, 4}, {"k=1,depth=6", 1, 6}, {"k=5,depth=4", 5, 4}, {"k=5,depth=6", 5, 6}} {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			ctx := context.Background()
			var took []time.Duration
			for b.Loop() {
				q := graph.PathQuery{From: actors[r.IntN(len(actors))], To: actors[r.IntN(len(actors))], MaxPaths: tc.paths, MaxDepth: tc.depth}
				if q.From == q.To {
					continue
				}
				start := time.Now()
				if _, err := walk.FindPaths(ctx, topo, q, graph.DefaultWorkBudget); err != nil && graph.KindOf(err) != graph.ResourceExhausted {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			reportP99(b, took)
		})
	}
}

// BenchmarkNeighborhoodTopology walks depth-2 neighbourhoods (25 per entity, 100 in all, as the bench's
// workload) around random actors of the same graph held in a Topology: the walk alone, without reading
// entities or relation headers, Dgraph or gRPC.
func BenchmarkNeighborhoodTopology(b *testing.B) {
	actors, topo := benchActors()
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		q := graph.NeighborhoodQuery{Center: string(actors[r.IntN(len(actors))]), Depth: 2, MaxPerNode: 25, MaxNodes: 100}
		if _, err := memgraph.WalkNeighborhood(ctx, topo, q, graph.EntityName(q.Center)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	reportP99(b, took)
}

// BenchmarkSearchTopology searches the same graph's names from memory, each query an entity's display
// name with one typo in its longest word (as the bench's workload): the name index alone.
func BenchmarkSearchTopology(b *testing.B) {
	c, topo := benchGraph()
	r := rand.New(rand.NewPCG(1, 2))
	var took []time.Duration
	found := 0
	for b.Loop() {
		e := c.Entities[r.IntN(len(c.Entities))]
		q := graph.SearchQuery{Text: synth.Typo(r, e.DisplayName)}
		start := time.Now()
		rs := memgraph.SearchSnapshot(topo, q)
		took = append(took, time.Since(start))
		if slices.ContainsFunc(rs[:min(len(rs), 10)], func(s graph.SearchResult) bool { return s.Entity.Name == e.Name }) {
			found++
		}
	}
	reportP99(b, took)
	b.ReportMetric(float64(found)/float64(len(took)), "found")
}

// failingStore is a store that no answer may read: every call panics (its Store is nil).
type failingStore struct{ graph.Store }

// BenchmarkServiceFromMemory answers whole queries through the Service, as gRPC calls it, on the same
// graph held in a Topology with its evidence: the ends resolved, the paths found and their relations read
// whole with their claims and sources, the neighbourhood's page with its entities and headers; nothing is
// read from a store. Run with -cpu 1,2 and RunParallel's goroutines for how it scales.
func BenchmarkServiceFromMemory(b *testing.B) {
	actors, topo := benchActors()
	svc := &service.Service{Store: failingStore{}, Reads: topo.Reads(failingStore{})}
	for _, tc := range []struct {
		name string
		ask  func(ctx context.Context, r *rand.Rand) error
	}{
		{"FindPaths k=1,depth=4", func(ctx context.Context, r *rand.Rand) error {
			_, err := svc.FindPaths(ctx, graph.PathQuery{From: actors[r.IntN(len(actors))], To: actors[r.IntN(len(actors))], MaxPaths: 1, MaxDepth: 4})
			return err
		}},
		{"FindPaths k=5,depth=6", func(ctx context.Context, r *rand.Rand) error {
			_, err := svc.FindPaths(ctx, graph.PathQuery{From: actors[r.IntN(len(actors))], To: actors[r.IntN(len(actors))], MaxPaths: 5, MaxDepth: 6})
			return err
		}},
		{"Neighborhood depth=2", func(ctx context.Context, r *rand.Rand) error {
			n, err := svc.ExploreNeighborhood(ctx, graph.NeighborhoodQuery{Center: string(actors[r.IntN(len(actors))]), Depth: 2, MaxPerNode: 25, MaxNodes: 100})
			n.Release() // as the gRPC server does once it has converted the page
			return err
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var seed atomic.Uint64
			b.RunParallel(func(pb *testing.PB) {
				r := rand.New(rand.NewPCG(seed.Add(1), 2))
				ctx := context.Background()
				for pb.Next() {
					if err := tc.ask(ctx, r); err != nil {
						switch graph.KindOf(err) {
						case graph.ResourceExhausted, graph.Invalid:
						default:
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

// BenchmarkCollectingWithTopology is what a garbage collection costs a process that holds the same graph
// (POLGRAPH_BENCH_RELATIONS relations, default 100,000) in a Topology with its evidence, and nothing else:
// a serving polgraph's heap is mostly its topology, and every collection scans what of it can hold
// pointers. It reports the collector's CPU a collection, the heap that may hold pointers (scannable-MB),
// the live heap and its objects.
func BenchmarkCollectingWithTopology(b *testing.B) {
	c, topo, err := graphtest.SyntheticTopology(b.Context(), graphtest.BenchRelations())
	if err != nil {
		b.Fatal(err)
	}
	*c = graphtest.Collector{} // the topology keeps its own copy
	runtime.GC()
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/scan/heap:bytes"},
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/objects:objects"}}
	metrics.Read(samples)
	cpu := samples[0].Value.Float64()
	cycles := 0
	for b.Loop() {
		runtime.GC()
		cycles++
	}
	metrics.Read(samples)
	b.ReportMetric((samples[0].Value.Float64()-cpu)/float64(cycles)*1e3, "gc-cpu-ms/op")
	b.ReportMetric(float64(samples[1].Value.Uint64())/1e6, "scannable-MB")
	b.ReportMetric(float64(samples[2].Value.Uint64())/1e6, "live-MB")
	b.ReportMetric(float64(samples[3].Value.Uint64()), "objects")
	runtime.KeepAlive(topo)
}
