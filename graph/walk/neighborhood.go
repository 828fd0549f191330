package walk

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/polgraph/polgraph/graph"
)

// walkEdges holds the arrays of walks' edges.
var walkEdges graph.Recycled[EdgeAt]

// EdgeAt is a relation drawn in a neighbourhood, its number in the graph walked, and the position in the
// node list of its later end (excluded ends count as -1): it comes with the page holding that end.
type EdgeAt struct {
	Name graph.RelationName
	Rel  int32
	Pos  int
}

// Reached is the whole of a neighbourhood, before paging.
type Reached struct {
	Nodes        []graph.EntityName // nearest first; within a distance, in the order reached
	Dist         map[graph.EntityName]int
	Edges        []EdgeAt // by the position of their later end, then by name
	EdgesLeftOut int
	Cut          []graph.Truncation
}

// Recycle gives w's list of edges back for a later walk; w.edges is nil afterwards.
func (w *Reached) Recycle() {
	walkEdges.Put(w.Edges)
	w.Edges = nil
}

// Around finds the whole of a neighbourhood:
//
//  1. the walk: out from the centre, each expanded entity, in the order reached, shows its new neighbours
//     strongest evidence first, then by name, then by relation name, until it has shown q.MaxPerNode or
//     the answer holds q.MaxNodes (only that prefix needs an order, so a hub's relations are not all
//     sorted);
//  2. the true distance of each entity reached, under the filter, in the whole graph (a capped walk may
//     reach an entity the long way round): 1 for the centre's neighbours, 2 for theirs, else the walk's
//     (at most 3, the deepest walk);
//  3. the induced subgraph: every counted relation between two entities of the answer, or between one of
//     them and an excluded entity, the first q.MaxEdges of them by the position of their later end;
//  4. for each entity of the answer (those expanded first, in the order expanded, then the others in
//     answer order), the entities joined to it that the answer does not hold, and the relations to them
//     by type: every neighbour hidden is accounted for, beyond the depth asked or cut by a cap.
//
// A hub whose list the snapshot indexes (hubindex.go) is not read whole in any step: step 1 takes the
// first neighbours of its list in rank order (under the default strengths), steps 2 and 3 look up its
// relations to the answer's entities by their ends, and step 4 (under the default filter) takes those
// away from the list's counts. Other lists are read, once a step, in place.
func Around(ctx context.Context, g Graph, q graph.NeighborhoodQuery, center graph.EntityName, budget int) (Reached, error) {
	const op = "walk.ExploreNeighborhood"
	w := Reached{Nodes: []graph.EntityName{center}, Dist: map[graph.EntityName]int{center: 0}}
	c, ok := g.Node(center)
	if !ok {
		return w, nil // no relations
	}
	excluded := map[int32]bool{}
	for _, n := range q.Exclude {
		if u, ok := g.Node(n); ok && u != c {
			excluded[u] = true
		}
	}
	read := 0
	fetch := func(us []int32) error {
		if err := g.Fetch(ctx, us); err != nil {
			return err
		}
		for _, u := range us {
			read += len(g.RelationsOf(u))
		}
		if read > budget {
			return &graph.Error{Op: op, Kind: graph.ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the neighbourhood would read more than " + strconv.Itoa(budget) + " relations; lower depth or narrow the filter"}
		}
		return nil
	}
	expired := func() error {
		if err := ctx.Err(); err != nil {
			return &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the neighbourhood query ran out of time", Err: err}
		}
		return nil
	}

	// counted calls each with the relations of u that count under the filter, each with its other end, in
	// the order of u's list. It reads the list in place, for every step below (a hub's counted relations,
	// copied out once per answer, cost more to allocate and collect than to test again).
	byDefault := len(q.Filter.Statuses) == 0 // the strength kept in the lists is right
	counted := func(u int32, each func(h HalfEdge)) {
		for _, h := range g.RelationsOf(u) {
			if g.Counts(&q.Filter, h.Rel) {
				each(h)
			}
		}
	}

	// hub returns the index of u's list when the graph holds one (hubindex.go); countedTo calls each with
	// the relations between u (whose index is x) and v that count under the filter, found by the index.
	hubs, indexed := g.(Hubs)
	hub := func(u int32) *HubIndex {
		if !indexed {
			return nil
		}
		return hubs.HubOf(u)
	}
	countedTo := func(x *HubIndex, u, v int32, each func(h *HalfEdge)) {
		list := g.RelationsOf(u)
		for _, k := range x.toEnd(list, v) {
			if h := &list[k]; g.Counts(&q.Filter, h.Rel) {
				each(h)
			}
		}
	}

	// Which entities the walk reached, and later where each stands in the answer, are looked up for
	// every relation of every entity the answer holds, a hub's thousands included: an index into one
	// array per answer, instead of a hash.
	m := marksPool.Get().(*marks)
	defer func() { m.reset(); marksPool.Put(m) }()

	// 1. The walk. m holds each reached entity's distance in the walk, plus one.
	reached := []int32{c}
	m.set(c, 1)
	var expanded []int32
	var items []candidate // one expanded entity's candidates, the buffer reused
	frontier := []int32{c}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		if err := fetch(frontier); err != nil {
			return Reached{}, err
		}
		var next []int32
		for _, u := range frontier {
			if err := expired(); err != nil {
				return Reached{}, err
			}
			expanded = append(expanded, u)
			if x := hub(u); x != nil && byDefault {
				// The list in the order the walk shows neighbours: the first not yet shown are taken.
				list, shown := g.RelationsOf(u), 0
				for _, p := range x.byRank {
					if shown == q.MaxPerNode || len(reached) == q.MaxNodes {
						break
					}
					h := &list[p]
					if m.at(h.To) != 0 || excluded[h.To] || !g.Counts(&q.Filter, h.Rel) {
						continue
					}
					shown++
					m.set(h.To, int32(d)+1)
					reached = append(reached, h.To)
					next = append(next, h.To)
				}
				continue
			}
			items = items[:0]
			counted(u, func(n HalfEdge) {
				if m.at(n.To) == 0 && !excluded[n.To] {
					strength := n.Strength // the default filter's, kept in the list
					if !byDefault {
						strength = q.Filter.Strength(*g.Support(n.Rel))
					}
					items = append(items, candidate{to: n.To, strength: strength})
				}
			})
			shown := 0
			for _, x := range strongest(items, min(q.MaxPerNode, q.MaxNodes-len(reached)), g.Entity) {
				if shown == q.MaxPerNode || len(reached) == q.MaxNodes {
					break
				}
				if m.at(x.to) == 0 {
					shown++
					m.set(x.to, int32(d)+1)
					reached = append(reached, x.to)
					next = append(next, x.to)
				}
			}
		}
		frontier = next
	}
	// Every entity of the answer's relations are needed from here on.
	if err := fetch(reached); err != nil {
		return Reached{}, err
	}

	// 2. True distances: 1 for the centre's neighbours (one pass over the centre's relations), 2 for
	// theirs.
	dist := make(map[int32]int, len(reached))
	deep := false
	for _, u := range reached {
		dist[u] = int(m.at(u)) - 1
		deep = deep || dist[u] == 3
	}
	if x := hub(c); x != nil && len(reached) < x.Len {
		for _, u := range reached {
			if m.at(u) > 2 {
				countedTo(x, c, u, func(*HalfEdge) { dist[u] = 1 })
			}
		}
	} else {
		counted(c, func(h HalfEdge) {
			if m.at(h.To) > 2 { // reached, further than 1 in the walk
				dist[h.To] = 1
			}
		})
	}
	if deep {
		nearCenter := map[int32]bool{}
		counted(c, func(h HalfEdge) { nearCenter[h.To] = true })
		for _, u := range reached {
			if dist[u] == 3 {
				counted(u, func(h HalfEdge) {
					if nearCenter[h.To] {
						dist[u] = 2
					}
				})
			}
		}
	}
	order := slices.Clone(reached)
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(dist[a], dist[b]) })
	// From here m holds each answer entity's position in the answer, plus one (and, in step 4, marks
	// with a negative number the entities left out that one expanded entity has been seen joined to).
	for i, u := range order {
		m.set(u, int32(i)+1)
		name := g.Entity(u)
		w.Nodes = append(w.Nodes[:i], name)
		w.Dist[name] = dist[u]
	}
	pos := func(v int32) (int, bool) {
		p := m.at(v)
		return int(p) - 1, p > 0
	}

	// 3. The induced subgraph. A relation between two entities of the answer is in the lists of both
	// (no relation joins an entity to itself: every writer refuses one), and is taken from the first
	// scanned. The entities are scanned fewest relations first, so the last (often a hub the walk reached
	// but did not expand) need not be scanned at all unless some relations of it may go to excluded
	// entities.
	w.Edges = walkEdges.Get(0)
	scan := slices.Clone(order)
	slices.SortStableFunc(scan, func(a, b int32) int { return cmp.Compare(len(g.RelationsOf(a)), len(g.RelationsOf(b))) })
	if len(excluded) == 0 {
		scan = scan[:len(scan)-1]
	}
	for _, u := range scan {
		if err := expired(); err != nil {
			return Reached{}, err
		}
		i, _ := pos(u)
		if x := hub(u); x != nil && len(order)+len(excluded) < x.Len {
			// The relations to the answer's entities not scanned yet (u among them), and to the excluded
			// ones, looked up by their ends instead of reading the list.
			add := func(v int32, p int) {
				countedTo(x, u, v, func(h *HalfEdge) { w.Edges = append(w.Edges, EdgeAt{Rel: h.Rel, Pos: max(i, p)}) })
			}
			for _, v := range order {
				if p, in := pos(v); in {
					add(v, p)
				}
			}
			for v := range excluded {
				add(v, -1)
			}
			m.set(u, -m.at(u))
			continue
		}
		counted(u, func(h HalfEdge) {
			p, in := pos(h.To)
			switch {
			case len(excluded) > 0 && excluded[h.To]:
				p = -1
			case !in: // not in the answer, or scanned already (its mark negated)
				return
			}
			w.Edges = append(w.Edges, EdgeAt{Rel: h.Rel, Pos: max(i, p)})
		})
		m.set(u, -m.at(u)) // scanned: its position, negated
	}
	for _, u := range scan {
		m.set(u, -m.at(u))
	}
	w.Edges, w.EdgesLeftOut = firstEdges(w.Edges, q.MaxEdges, len(order), g.Name)

	// 4. What the caps left out: around each entity expanded, in the order expanded, then around each
	// other entity of the answer (reached at the last depth, or held back by a cap), in answer order,
	// whose neighbours outside the answer nothing else would account for.
	isExpanded := make(map[int32]bool, len(expanded))
	for _, u := range expanded {
		isExpanded[u] = true
	}
	accounted := expanded
	for _, u := range order {
		if !isExpanded[u] {
			accounted = append(accounted, u)
		}
	}
	for i, u := range accounted {
		mark := -int32(i) - 1
		leftOut, relsLeftOut := 0, 0
		var byType []graph.RelationCount
		if x := hub(u); x != nil && q.Filter.IsDefault() && len(order)+len(excluded) < x.Len {
			// The list's counts less the relations to the answer's entities and the excluded ones.
			leftOut, relsLeftOut = x.ends, x.counted
			byType = slices.Clone(x.byType)
			takeAway := func(v int32) {
				joined := false
				countedTo(x, u, v, func(h *HalfEdge) {
					joined = true
					relsLeftOut--
					t, symmetric := g.RelType(h.Rel)
					takeRelationCount(byType, t, h.Out || symmetric)
				})
				if joined {
					leftOut--
				}
			}
			for _, v := range order {
				if v != u {
					takeAway(v)
				}
			}
			for v := range excluded {
				takeAway(v)
			}
			byType = slices.DeleteFunc(byType, func(c graph.RelationCount) bool { return c.Count == 0 })
		} else {
			counted(u, func(n HalfEdge) {
				if _, in := pos(n.To); in || len(excluded) > 0 && excluded[n.To] {
					return
				}
				if m.at(n.To) != mark {
					leftOut++
					m.set(n.To, mark)
				}
				relsLeftOut++
				if n.Type != 0 {
					byType = addRelationCount(byType, graph.RelationTypes[n.Type-1], n.Out || SymmetricByNumber[n.Type])
					return
				}
				t, symmetric := g.RelType(n.Rel)
				byType = addRelationCount(byType, t, n.Out || symmetric)
			})
		}
		if leftOut > 0 {
			graph.SortRelationCounts(byType)
			w.Cut = append(w.Cut, graph.Truncation{Entity: g.Entity(u), LeftOut: leftOut, RelationsLeftOut: relsLeftOut, ByType: byType,
				Unexpanded: !isExpanded[u]})
		}
	}
	return w, nil
}

// firstEdges returns the first max of edges (none named yet) in the answer's order, by the position of
// their later end and then by name, each named, and how many it left out. Among many relations of hubs,
// only the edges kept and those of the position where the cut falls are named and ordered by name
// (positions run from 0 to positions-1).
func firstEdges(edges []EdgeAt, max, positions int, name func(int32) graph.RelationName) ([]EdgeAt, int) {
	byName := func(a, b EdgeAt) int { return strings.Compare(string(a.Name), string(b.Name)) }
	leftOut := 0
	if len(edges) > max {
		leftOut = len(edges) - max
		counts := make([]int, positions)
		for _, e := range edges {
			counts[e.Pos]++
		}
		cut, before := 0, 0 // the position where the cut falls, and how many edges come before it
		for before+counts[cut] < max {
			before += counts[cut]
			cut++
		}
		kept, at := edges[:0], []EdgeAt(nil) // kept in place: an edge is read before its place is written
		for _, e := range edges {
			switch {
			case e.Pos < cut:
				kept = append(kept, e)
			case e.Pos == cut:
				e.Name = name(e.Rel)
				at = append(at, e)
			}
		}
		slices.SortFunc(at, byName)
		edges = append(kept, at[:max-before]...)
	}
	for i := range edges {
		if edges[i].Name == "" {
			edges[i].Name = name(edges[i].Rel)
		}
	}
	slices.SortFunc(edges, func(a, b EdgeAt) int { return cmp.Or(cmp.Compare(a.Pos, b.Pos), byName(a, b)) })
	return edges, leftOut
}

// marks holds a number for some entities of a graph, by entity number (0: none), and can forget them all
// at the cost of those it holds.
type marks struct {
	v       []int32
	touched []int32
}

var marksPool = sync.Pool{New: func() any { return new(marks) }}

func (m *marks) at(u int32) int32 {
	if int(u) < len(m.v) {
		return m.v[u]
	}
	return 0
}

func (m *marks) set(u, x int32) {
	if int(u) >= len(m.v) {
		m.v = append(m.v, make([]int32, int(u)+1-len(m.v))...)
	}
	if m.v[u] == 0 {
		m.touched = append(m.touched, u)
	}
	m.v[u] = x
}

func (m *marks) reset() {
	for _, u := range m.touched {
		m.v[u] = 0
	}
	m.touched = m.touched[:0]
}

// addRelationCount counts one more relation of type t in direction out into cs, which holds few types.
func addRelationCount(cs []graph.RelationCount, t graph.RelationType, out bool) []graph.RelationCount {
	for i := range cs {
		if cs[i].Outgoing == out && cs[i].Type == t {
			cs[i].Count++
			return cs
		}
	}
	return append(cs, graph.RelationCount{Type: t, Outgoing: out, Count: 1})
}

// takeRelationCount counts one relation of type t in direction out fewer in cs, which holds it.
func takeRelationCount(cs []graph.RelationCount, t graph.RelationType, out bool) {
	for i := range cs {
		if cs[i].Outgoing == out && cs[i].Type == t {
			cs[i].Count--
			return
		}
	}
}

// candidate is an entity not yet shown, joined by a relation of this strength to the entity expanded.
type candidate struct {
	to       int32
	strength float64
	name     graph.EntityName // to's, given by strongest to the candidates it orders
}

// byStrength orders candidates strongest first, then by name. An entity joined by several relations
// comes first where its strongest one does, so the walk shows the entities in the order it would
// taking every relation in turn, strongest first, then by the entity's name, then by the relation's.
func byStrength(a, b candidate) int {
	return cmp.Or(-cmp.Compare(a.strength, b.strength), strings.Compare(string(a.name), string(b.name)))
}

// strongest returns, ordered by byStrength, a prefix of items holding at least n distinct entities (or
// all of them): the candidates a walk shows come from it. A hub's thousands of candidates are not all
// sorted: the n-th strength is found first; the fewer than n candidates stronger than it are sorted, and
// of the candidates exactly as strong (often thousands: confidences take few values) only as many as
// are needed, smallest names first (twice as many are tried while entities joined more than once leave
// fewer than n).
func strongest(items []candidate, n int, name func(int32) graph.EntityName) []candidate {
	if n <= 0 {
		return nil
	}
	named := func(cs []candidate) {
		for i := range cs {
			cs[i].name = name(cs[i].to)
		}
	}
	if len(items) <= 4*n {
		named(items)
		slices.SortFunc(items, byStrength)
		return items
	}
	strengths := make([]float64, len(items))
	byName := func(a, b candidate) int { return strings.Compare(string(a.name), string(b.name)) }
	for kk := n; kk < len(items); kk *= 2 {
		for i, c := range items {
			strengths[i] = c.strength
		}
		floor := kthLargest(strengths, kk)
		var top, tied []candidate
		for _, c := range items {
			switch {
			case c.strength > floor:
				top = append(top, c)
			case c.strength == floor:
				tied = append(tied, c)
			}
		}
		named(top)
		slices.SortFunc(top, byStrength)
		named(tied)
		distinct := make(map[int32]bool, len(top)+n)
		for k := max(n-len(top), 1); ; k *= 2 {
			k = min(k, len(tied))
			smallestByName(tied, k)
			slices.SortFunc(tied[:k], byName)
			clear(distinct)
			for _, c := range top {
				distinct[c.to] = true
			}
			for _, c := range tied[:k] {
				distinct[c.to] = true
			}
			if len(distinct) >= n {
				return append(top, tied[:k]...)
			}
			if k == len(tied) {
				break // entities joined more than once: a lower floor
			}
		}
	}
	named(items)
	slices.SortFunc(items, byStrength)
	return items
}

// smallestByName reorders xs so that its first k hold the k smallest names (in no order).
func smallestByName(xs []candidate, k int) {
	lo, hi := 0, len(xs)
	for hi-lo > 1 {
		pivot := xs[lo+(hi-lo)/2].name
		// [lo, lt) before the pivot, [lt, i) equal to it, [gt, hi) after it.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch c := strings.Compare(string(xs[i].name), string(pivot)); {
			case c < 0:
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case c > 0:
				gt--
				xs[gt], xs[i] = xs[i], xs[gt]
			default:
				i++
			}
		}
		switch {
		case k <= lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
}

// kthLargest returns the k-th largest of xs (k from 1), reordering xs.
func kthLargest(xs []float64, k int) float64 {
	lo, hi, want := 0, len(xs), k-1
	for {
		pivot := xs[lo+(hi-lo)/2]
		// [lo, gt) above the pivot, [gt, i) equal to it, [lt, hi) below it.
		gt, i, lt := lo, lo, hi
		for i < lt {
			switch {
			case xs[i] > pivot:
				xs[gt], xs[i] = xs[i], xs[gt]
				gt++
				i++
			case xs[i] < pivot:
				lt--
				xs[lt], xs[i] = xs[i], xs[lt]
			default:
				i++
			}
		}
		switch {
		case want < gt:
			hi = gt
		case want >= lt:
			lo = lt
		default:
			return pivot
		}
	}
}

// OtherEnd is the end of a relation that is not u.
func OtherEnd(e [2]int32, u int32) int32 {
	if e[0] == u {
		return e[1]
	}
	return e[0]
}
