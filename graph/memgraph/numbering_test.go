package memgraph

import (
	"fmt"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestNumberingFindsEveryName numbers names over many builds, some of a few names and some of thousands
// (so that the recent names are indexed with the frozen ones several times), and checks after each that
// the published numbering and every one published before it find each of their names at its number, and
// none of the names numbered later or never: with the index's hash, and with a hash that files names under
// 64 values only, so that most probes meet other names whose hashes agree.
func TestNumberingFindsEveryName(t *testing.T) {
	sizes := []int{1, 3, 5000, 2, 700, 9000, 1, 1200, 40000, 3, 6000}
	t.Run("hashed", func(t *testing.T) { numberNames(t, sizes) })
	t.Run("colliding", func(t *testing.T) {
		defer func(h func(string) uint64) { idHash = h }(idHash)
		idHash = func(name string) uint64 { return uint64(len(name)%4+4*int(name[len(name)-1]%16)) * 0x9e3779b97f4a7c15 }
		small := make([]int, len(sizes))
		for i, n := range sizes {
			small[i] = max(1, n/2)
		}
		numberNames(t, small)
	})
}

func numberNames(t *testing.T, sizes []int) {
	name := func(i int) graph.RelationName { return graph.RelationName(fmt.Sprintf("relations/r%d", i)) }
	var published []numbered[graph.RelationName]
	n, reindexed := 0, 0
	for build, size := range sizes {
		b := newNumberedBuilder(numbered[graph.RelationName]{})
		if len(published) > 0 {
			b = newNumberedBuilder(published[len(published)-1])
		}
		for i := range size {
			if id, isNew := b.number(name(n + i)); !isNew || int(id) != n+i {
				t.Fatalf("build %d: %s numbered %d (new %v)", build, name(n+i), id, isNew)
			}
			if i%97 == 0 && n > 0 { // a name numbered before keeps its number
				old := (i * 7919) % n
				if id, isNew := b.number(name(old)); isNew || int(id) != old {
					t.Fatalf("build %d: %s numbered again as %d (new %v)", build, name(old), id, isNew)
				}
			}
		}
		n += size
		before := 0
		if len(published) > 0 {
			before = published[len(published)-1].frozen.n
		}
		p := b.finish()
		if p.frozen.n != before {
			reindexed++
		}
		published = append(published, p)
		for k, p := range published {
			for i := range p.len() + 50 {
				id, ok := p.lookup(name(i))
				if want := i < p.len(); ok != want || ok && int(id) != i {
					t.Fatalf("build %d, numbering of build %d (%d names): %s found %v at %d", build, k, p.len(), name(i), ok, id)
				}
			}
			if _, ok := p.lookup("relations/never"); ok {
				t.Fatalf("numbering of build %d found a name it never numbered", k)
			}
		}
	}
	if reindexed < 2 {
		t.Errorf("the frozen index was built %d times, want at least 2", reindexed)
	}
}
