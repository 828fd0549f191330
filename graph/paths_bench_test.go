package graph_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/synth"
)

// collector keeps what synth generates.
type collector struct {
	sources   []graph.Source
	entities  []graph.Entity
	relations []graph.Relation
}

func (c *collector) WriteSource(s graph.Source) error { c.sources = append(c.sources, s); return nil }
func (c *collector) WriteEntity(e graph.Entity) error { c.entities = append(c.entities, e); return nil }
func (c *collector) WriteRelation(r graph.Relation) error {
	c.relations = append(c.relations, r)
	return nil
}

var benchGraph = sync.OnceValues(func() (*collector, *graph.Topology) {
	n := 100_000
	if s := os.Getenv("POLGRAPH_BENCH_RELATIONS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	c := &collector{}
	if _, err := synth.Generate(synth.Config{Relations: n, Seed: 1}, c); err != nil {
		panic(err)
	}
	topo := graph.NewTopology(memoryFeed{c})
	if err := topo.Sync(context.Background()); err != nil {
		panic(err)
	}
	return c, topo
})

// memoryFeed is a graphtest.MemoryFeed without holding a second copy of every link: it gives the sources,
// the entities, and each relation whole (its header and claims), as the Dgraph feed does.
type memoryFeed struct{ *collector }

func (f memoryFeed) Version(context.Context) (int64, error) { return 1, nil }
func (f memoryFeed) Changes(_ context.Context, since int64, each func(graph.Changed)) (int64, error) {
	each(graph.Changed{Sources: f.sources, Entities: f.entities})
	life := make(map[graph.EntityName]graph.Period, len(f.entities))
	for _, e := range f.entities {
		life[e.Name] = e.Lifetime()
	}
	for i := 0; i < len(f.relations); i += 10_000 {
		c := graph.Changed{Evidence: true}
		for _, r := range f.relations[i:min(i+10_000, len(f.relations))] {
			l := r.Link()
			l.Life = life[r.From].Intersect(life[r.To])
			c.Links = append(c.Links, l)
			c.Headers = append(c.Headers, graph.RelationHeader{Relation: r, ClaimCount: len(r.Claims), Support: l.Support, Verdict: graph.VerdictOf(r.Claims)})
		}
		each(c)
	}
	return 1, nil
}

// benchActors is the benchmark graph's topology and its actors, the searches' ends and centres.
func benchActors() ([]graph.EntityName, *graph.Topology) {
	c, topo := benchGraph()
	var actors []graph.EntityName
	for _, e := range c.entities {
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
				if _, err := graph.FindPaths(ctx, topo, q, graph.DefaultWorkBudget); err != nil && graph.KindOf(err) != graph.ResourceExhausted {
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
		if _, err := graph.WalkNeighborhood(ctx, topo, q, graph.EntityName(q.Center)); err != nil {
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
		e := c.entities[r.IntN(len(c.entities))]
		q := graph.SearchQuery{Text: synth.Typo(r, e.DisplayName)}
		start := time.Now()
		rs := graph.SearchSnapshot(topo, q)
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
	svc := &graph.Service{Store: failingStore{}, Topology: topo}
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
			_, err := svc.ExploreNeighborhood(ctx, graph.NeighborhoodQuery{Center: string(actors[r.IntN(len(actors))]), Depth: 2, MaxPerNode: 25, MaxNodes: 100})
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
