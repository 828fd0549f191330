package memgraph

import (
	"runtime"
	"slices"
	"sync"

	"github.com/polgraph/polgraph/graph/walk"
)

// defaultHubMin is the length from which a list is indexed: below it, reading the list costs less than
// the lookups.
const defaultHubMin = 256

// indexHubs sets the index of every list the builder changed that holds at least hubMin relations (and
// drops that of a list that no longer does), reading the lists and relations of g, the snapshot the
// builder finishes, and building them on every core: a fill indexes every hub at once.
func (b *snapshotBuilder) indexHubs(g snapshotGraph) {
	for b.hubs.c.len() < b.adj.c.len() {
		b.hubs.append(nil)
	}
	var todo []int32
	for u := range b.touched {
		if len(b.adj.get(u)) >= b.hubMin || b.hubs.get(u) != nil {
			todo = append(todo, u)
		}
	}
	if len(todo) == 0 {
		return
	}
	slices.Sort(todo)
	built := make([]*walk.HubIndex, len(todo))
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := range work {
				u := todo[i]
				if list := g.RelationsOf(u); len(list) >= b.hubMin {
					built[i] = walk.BuildHubIndex(g, u, list, b.hubs.get(u), b.mine[u])
				}
			}
		})
	}
	for i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, u := range todo {
		b.hubs.set(u, built[i])
	}
}

// HubOf returns the index of entity u's list, when the snapshot holds one of the list as it stands.
func (g snapshotGraph) HubOf(u int32) *walk.HubIndex {
	if int(u) >= g.s.hubs.len() {
		return nil
	}
	x := g.s.hubs.get(u)
	if x == nil || x.Len != len(g.s.adj.get(u)) {
		return nil
	}
	return x
}
