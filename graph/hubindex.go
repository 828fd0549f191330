package graph

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A hub's list of relations runs to tens of thousands at a million relations, and a neighbourhood that
// expands a hub or holds one would read all of it three times: for its strongest neighbours, for the
// relations among the answer's entities, and for what the caps left out. A hubIndex orders a long list
// two ways and counts it once, so that the walk reads of it only what the answer takes:
//
//   - byRank: the list in the order a walk shows neighbours (strongest under the default filter first,
//     then by the other end's name), so the first neighbours not yet shown are a prefix;
//   - byEnd: the list by the other end's number, so the relations between the hub and one entity are
//     found by a binary search;
//   - what counts under the default filter: relations, distinct other ends, relations by type and
//     direction, from which the walk takes away those to the answer's entities.
//
// Indexes are built when a snapshot is finished, for the lists of at least hubMin relations that the
// sync changed; an index only appended to is merged with the new entries, not sorted again. A published
// index is never written.
type hubIndex struct {
	n      int     // the length of the list indexed
	byRank []int32 // places in the list
	byEnd  []int32 // places in the list, by the other end's number, then by place
	// Under the default filter, relations to the entity itself left out (a walk never counts them).
	counted, ends int
	byType        []RelationCount // as addRelationCount makes them, unsorted
}

// defaultHubMin is the length from which a list is indexed: below it, reading the list costs less than
// the lookups.
const defaultHubMin = 256

// buildHubIndex indexes list, the relations of entity u in g (a snapshot being finished), reusing old (the
// index of a prefix of the same list) when resorted is false: no entry old indexes changed its strength.
func buildHubIndex(g snapshotGraph, u int32, list []halfEdge, old *hubIndex, resorted bool) *hubIndex {
	x := &hubIndex{n: len(list)}
	from := 0
	if old != nil && !resorted && old.n <= len(list) {
		from = old.n
	}
	fresh := make([]int32, len(list)-from)
	for i := range fresh {
		fresh[i] = int32(from + i)
	}
	// byRank: the fresh entries sorted, then merged with the old ones. Names are read only where
	// strengths tie, so a merge does not read the whole list's.
	rank := func(a, b int32) int {
		ha, hb := &list[a], &list[b]
		if c := -cmp.Compare(ha.strength, hb.strength); c != 0 {
			return c
		}
		if ha.to != hb.to {
			return strings.Compare(string(g.s.ents.key(ha.to)), string(g.s.ents.key(hb.to)))
		}
		return cmp.Compare(a, b)
	}
	slices.SortFunc(fresh, rank)
	if from == 0 {
		x.byRank = fresh
	} else {
		x.byRank = mergeSorted(old.byRank, fresh, rank)
	}
	byEnd := func(a, b int32) int { return cmp.Or(cmp.Compare(list[a].to, list[b].to), cmp.Compare(a, b)) }
	fresh = slices.Clone(fresh)
	slices.SortFunc(fresh, byEnd)
	if from == 0 {
		x.byEnd = fresh
	} else {
		x.byEnd = mergeSorted(old.byEnd, fresh, byEnd)
	}
	// The counts, read again whole: a relation written again may have stopped counting, or started.
	var dflt RelationFilter
	last := int32(-1)
	for _, p := range x.byEnd {
		h := list[p]
		if h.to == u || !g.counts(&dflt, h.rel) {
			continue
		}
		x.counted++
		if h.to != last {
			x.ends++
			last = h.to
		}
		t, symmetric := g.relType(h.rel)
		x.byType = addRelationCount(x.byType, t, h.out || symmetric)
	}
	return x
}

// mergeSorted merges two lists sorted by order into a new one.
func mergeSorted(a, b []int32, order func(x, y int32) int) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if order(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// toEnd returns the places, in byEnd, of the relations of the list to entity v.
func (x *hubIndex) toEnd(list []halfEdge, v int32) []int32 {
	lo, _ := slices.BinarySearchFunc(x.byEnd, v, func(p, v int32) int { return cmp.Compare(list[p].to, v) })
	hi := lo
	for hi < len(x.byEnd) && list[x.byEnd[hi]].to == v {
		hi++
	}
	return x.byEnd[lo:hi]
}

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
	built := make([]*hubIndex, len(todo))
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := range work {
				u := todo[i]
				if list := g.relationsOf(u); len(list) >= b.hubMin {
					built[i] = buildHubIndex(g, u, list, b.hubs.get(u), b.mine[u])
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

// hubOf returns the index of entity u's list, when the snapshot holds one of the list as it stands.
func (g snapshotGraph) hubOf(u int32) *hubIndex {
	if int(u) >= g.s.hubs.len() {
		return nil
	}
	x := g.s.hubs.get(u)
	if x == nil || x.n != len(g.s.adj.get(u)) {
		return nil
	}
	return x
}
