package graphtest

import (
	"context"
	"os"
	"strconv"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/synth"
)

// Collector keeps what a generator (internal/synth) writes.
type Collector struct {
	Sources   []graph.Source
	Entities  []graph.Entity
	Relations []graph.Relation
}

func (c *Collector) WriteSource(s graph.Source) error { c.Sources = append(c.Sources, s); return nil }
func (c *Collector) WriteEntity(e graph.Entity) error { c.Entities = append(c.Entities, e); return nil }
func (c *Collector) WriteRelation(r graph.Relation) error {
	c.Relations = append(c.Relations, r)
	return nil
}

// EvidenceFeed is a change feed of a collected graph as the Dgraph feed gives it: the sources, the
// entities, and each relation whole (its header and claims), in batches of 10,000; without holding a
// second copy of every link.
type EvidenceFeed struct{ *Collector }

// Version implements graph.ChangeFeed.
func (f EvidenceFeed) Version(context.Context) (int64, error) { return 1, nil }

// Changes implements graph.ChangeFeed.
func (f EvidenceFeed) Changes(_ context.Context, since int64, each func(graph.Changed)) (int64, error) {
	if since >= 1 {
		return 1, nil
	}
	each(graph.Changed{Sources: f.Sources, Entities: f.Entities})
	life := make(map[graph.EntityName]graph.Period, len(f.Entities))
	for _, e := range f.Entities {
		life[e.Name] = e.Lifetime()
	}
	for i := 0; i < len(f.Relations); i += 10_000 {
		c := graph.Changed{Evidence: true}
		for _, r := range f.Relations[i:min(i+10_000, len(f.Relations))] {
			l := r.Link()
			l.Life = life[r.From].Intersect(life[r.To])
			c.Links = append(c.Links, l)
			c.Headers = append(c.Headers, graph.RelationHeader{Relation: r, ClaimCount: len(r.Claims), Support: l.Support, Verdict: graph.VerdictOf(r.Claims)})
		}
		each(c)
	}
	return 1, nil
}

// BenchRelations is how many relations a benchmark's synthetic graph has: POLGRAPH_BENCH_RELATIONS when it
// is a positive number, else 100,000.
func BenchRelations() int {
	if n, err := strconv.Atoi(os.Getenv("POLGRAPH_BENCH_RELATIONS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// SyntheticTopology generates a graph of n relations (internal/synth, seed 1) and holds it in a topology with
// its evidence, as polgraph serve does; the collector keeps what was generated.
func SyntheticTopology(ctx context.Context, n int) (*Collector, *memgraph.Topology, error) {
	c := &Collector{}
	if _, err := synth.Generate(synth.Config{Relations: n, Seed: 1}, c); err != nil {
		return nil, nil, err
	}
	topo := memgraph.NewTopology(EvidenceFeed{Collector: c})
	if err := topo.Sync(ctx); err != nil {
		return nil, nil, err
	}
	return c, topo, nil
}
