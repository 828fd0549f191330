package walk

import (
	"cmp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// A hub's list of relations runs to tens of thousands at a million relations, and a neighbourhood that
// expands a hub or holds one would read all of it three times: for its strongest neighbours, for the
// relations among the answer's entities, and for what the caps left out. A HubIndex orders a long list
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
type HubIndex struct {
	Len    int     // the length of the list indexed
	byRank []int32 // places in the list
	byEnd  []int32 // places in the list, by the other end's number, then by place
	// Under the default filter, relations to the entity itself left out (a walk never counts them).
	counted, ends int
	byType        []graph.RelationCount // as addRelationCount makes them, unsorted
}

// BuildHubIndex indexes list, the relations of entity u in g (a snapshot being finished), reusing old (the
// index of a prefix of the same list) when resorted is false: no entry old indexes changed its strength.
func BuildHubIndex(g Graph, u int32, list []HalfEdge, old *HubIndex, resorted bool) *HubIndex {
	x := &HubIndex{Len: len(list)}
	from := 0
	if old != nil && !resorted && old.Len <= len(list) {
		from = old.Len
	}
	fresh := make([]int32, len(list)-from)
	for i := range fresh {
		fresh[i] = int32(from + i)
	}
	// byRank: the fresh entries sorted, then merged with the old ones. Names are read only where
	// strengths tie, so a merge does not read the whole list's.
	rank := func(a, b int32) int {
		ha, hb := &list[a], &list[b]
		if c := -cmp.Compare(ha.Strength, hb.Strength); c != 0 {
			return c
		}
		if ha.To != hb.To {
			return strings.Compare(string(g.Entity(ha.To)), string(g.Entity(hb.To)))
		}
		return cmp.Compare(a, b)
	}
	slices.SortFunc(fresh, rank)
	if from == 0 {
		x.byRank = fresh
	} else {
		x.byRank = mergeSorted(old.byRank, fresh, rank)
	}
	byEnd := func(a, b int32) int { return cmp.Or(cmp.Compare(list[a].To, list[b].To), cmp.Compare(a, b)) }
	fresh = slices.Clone(fresh)
	slices.SortFunc(fresh, byEnd)
	if from == 0 {
		x.byEnd = fresh
	} else {
		x.byEnd = mergeSorted(old.byEnd, fresh, byEnd)
	}
	// The counts, read again whole: a relation written again may have stopped counting, or started.
	var dflt graph.RelationFilter
	last := int32(-1)
	for _, p := range x.byEnd {
		h := list[p]
		if h.To == u || !g.Counts(&dflt, h.Rel) {
			continue
		}
		x.counted++
		if h.To != last {
			x.ends++
			last = h.To
		}
		t, symmetric := g.RelType(h.Rel)
		x.byType = addRelationCount(x.byType, t, h.Out || symmetric)
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
func (x *HubIndex) toEnd(list []HalfEdge, v int32) []int32 {
	lo, _ := slices.BinarySearchFunc(x.byEnd, v, func(p, v int32) int { return cmp.Compare(list[p].To, v) })
	hi := lo
	for hi < len(x.byEnd) && list[x.byEnd[hi]].To == v {
		hi++
	}
	return x.byEnd[lo:hi]
}

// Hubs is a Graph that indexes the long lists of its relations.
type Hubs interface {
	// HubOf returns the index of entity u's list, or nil when there is none of the list as it stands.
	HubOf(u int32) *HubIndex
}
