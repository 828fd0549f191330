package snapfile

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// BenchmarkSnapshotFile fills a topology from a store of POLGRAPH_BENCH_RELATIONS relations (default
// 100,000; each with one claim, in pages of 20,000 as the Dgraph store gives them) through a Feed that
// writes the file, and from the file alone: what a restart costs against what the file adds to a fill.
func BenchmarkSnapshotFile(b *testing.B) {
	n := graphtest.BenchRelations()
	const page = 20_000
	store := &scriptStore{id: "bench"}
	r := rand.New(rand.NewPCG(1, 2))
	for v := 0; v*page < n+page; v++ {
		store.write(richWrite(r, v, page))
	}
	path := filepath.Join(b.TempDir(), "graph.snapshot")
	sync := func(b *testing.B, feed graph.ChangeFeed) {
		if err := memgraph.NewTopology(feed).Sync(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("from the store", func(b *testing.B) {
		for b.Loop() {
			sync(b, store)
		}
	})
	b.Run("from the store, writing the file", func(b *testing.B) {
		for b.Loop() {
			os.Remove(path)
			f := New(store, path, quietLog())
			sync(b, f)
			f.Close()
		}
		if fi, err := os.Stat(path); err == nil {
			b.ReportMetric(float64(fi.Size())/float64(n), "file-bytes/relation")
		}
	})
	b.Run("read back", func(b *testing.B) {
		for b.Loop() {
			f := New(store, path, quietLog())
			sync(b, f)
			if !f.LastFill().FromFile {
				b.Fatal(f.LastFill().Why)
			}
			f.Close()
		}
	})
}
