package graph

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Limits on neighbourhood queries.
const (
	DefaultNeighborhoodDepth = 1
	MaxNeighborhoodDepth     = 3
	DefaultMaxPerNode        = 25
	MaxMaxPerNode            = 200
	DefaultMaxNodes          = 100
	MaxMaxNodes              = 500
	DefaultMaxEdges          = 1000
	MaxMaxEdges              = 5000
	MaxExclude               = 1000
)

// NeighborhoodQuery asks what surrounds an entity.
type NeighborhoodQuery struct {
	Center     string // a resource name, or a name or alias naming one entity
	Depth      int
	MaxPerNode int
	MaxNodes   int
	MaxEdges   int // 0: DefaultMaxEdges
	Filter     RelationFilter
	Exclude    []EntityName
	PageSize   int
	Offset     int // where the page starts in the whole answer's node list
	// FollowVia also joins a relation's `from` to its via (the party a member sat for), as an edge of that
	// relation (Edge.ThroughVia).
	FollowVia bool
}

// Normalize fills in defaults.
func (q *NeighborhoodQuery) Normalize() {
	if q.Depth == 0 {
		q.Depth = DefaultNeighborhoodDepth
	}
	if q.MaxPerNode == 0 {
		q.MaxPerNode = DefaultMaxPerNode
	}
	if q.MaxNodes == 0 {
		q.MaxNodes = DefaultMaxNodes
	}
	if q.MaxEdges == 0 {
		q.MaxEdges = DefaultMaxEdges
	}
	if q.PageSize == 0 || q.PageSize > q.MaxNodes {
		q.PageSize = q.MaxNodes
	}
}

// Validate reports every problem with the query as an Invalid error with field violations.
func (q NeighborhoodQuery) Validate() error {
	var v Violations
	if q.Depth < 1 || q.Depth > MaxNeighborhoodDepth {
		v.Add("depth", "must be between 1 and %d, got %d", MaxNeighborhoodDepth, q.Depth)
	}
	if q.MaxPerNode < 1 || q.MaxPerNode > MaxMaxPerNode {
		v.Add("max_per_node", "must be between 1 and %d, got %d", MaxMaxPerNode, q.MaxPerNode)
	}
	if q.MaxNodes < 1 || q.MaxNodes > MaxMaxNodes {
		v.Add("max_nodes", "must be between 1 and %d, got %d", MaxMaxNodes, q.MaxNodes)
	}
	if q.MaxEdges < 1 || q.MaxEdges > MaxMaxEdges {
		v.Add("max_edges", "must be between 1 and %d, got %d", MaxMaxEdges, q.MaxEdges)
	}
	if q.PageSize < 0 {
		v.Add("page_size", "must not be negative, got %d", q.PageSize)
	}
	if CheckCount(&v, "exclude", len(q.Exclude), MaxExclude) {
		for i, n := range q.Exclude {
			if len(n) > MaxQueryLength || !LooksLikeResourceName(string(n)) {
				v.Add(indexed("exclude", i), "%q is not a resource name", truncate(string(n), 80))
			}
		}
	}
	q.Filter.Validate("filter.", &v)
	return v.Err("ExploreNeighborhood", "invalid neighbourhood query")
}

// NeighborNode is an entity in a neighbourhood.
type NeighborNode struct {
	Entity        Entity
	Distance      int // hops from the centre under the filter, in the whole graph
	RelationCount int
}

// Edge is a relation drawn in a neighbourhood.
type Edge struct {
	RelationHeader
	Statuses   []ClaimStatus
	Confidence float64 // Strength under the filter: never a denial's
	// ThroughVia is set for an edge that joins the relation's `from` to its via (NeighborhoodQuery.
	// FollowVia), not to its `to`.
	ThroughVia bool
}

// statusSets holds every list of statuses in the order ClaimStatuses has them, by a mask of their places in
// it: the lists edges share (Edge.Statuses), each capped at its length.
var statusSets = func() [1 << 4][]ClaimStatus {
	var sets [1 << 4][]ClaimStatus
	for mask := 1; mask < len(sets); mask++ {
		for i, st := range ClaimStatuses {
			if mask&(1<<i) != 0 {
				sets[mask] = append(sets[mask], st)
			}
		}
		sets[mask] = slices.Clip(sets[mask])
	}
	return sets
}()

// statusesOf is the statuses of the claims s summarises (nil for none): a list edges share, never to
// be written.
func statusesOf(s Support) []ClaimStatus {
	mask := 0
	for i, c := range s {
		if c >= 0 {
			mask |= 1 << i
		}
	}
	return statusSets[mask]
}

// recycled keeps arrays that answers gave back, for later answers to reuse.
type recycled[T any] struct{ pool sync.Pool }

// get returns an empty array for at least n elements: one given back when it is large enough.
func (r *recycled[T]) get(n int) []T {
	if p, ok := r.pool.Get().(*[]T); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]T, 0, n)
}

// put gives a back, cleared to its capacity (a list may have been cut shorter than what was written),
// so that what the next user does not overwrite refers to nothing.
func (r *recycled[T]) put(a []T) {
	if cap(a) == 0 {
		return
	}
	a = a[:0]
	clear(a[:cap(a)])
	r.pool.Put(&a)
}

// The arrays of released pages' edges and nodes (Neighborhood.Release), and of walks' edges.
var (
	edgePages recycled[Edge]
	nodePages recycled[NeighborNode]
	walkEdges recycled[edgeAt]
)

// Release gives back the arrays holding n's edges and nodes, for a later answer to reuse: a page holds
// up to MaxEdges edges, each a whole relation header, and a server answering many neighbourhoods would
// otherwise make and collect such arrays for every answer. Call it once done with n.Edges and n.Nodes (as
// the gRPC server does once it has converted the page), and read neither afterwards, nor those of any
// copy of n. An answer never released is collected as usual.
func (n *Neighborhood) Release() {
	edgePages.put(n.Edges)
	nodePages.put(n.Nodes)
	n.Edges, n.Nodes = nil, nil
}

// Truncation counts what the caps left out around one expanded entity.
type Truncation struct {
	Entity EntityName
	// LeftOut counts the entities joined to it under the filter that the answer does not hold.
	LeftOut int
	// RelationsLeftOut counts the relations to those entities; ByType breaks them down.
	RelationsLeftOut int
	ByType           []RelationCount
}

// Neighborhood is one page of the answer to a NeighborhoodQuery.
type Neighborhood struct {
	Center     Entity
	Nodes      []NeighborNode
	Edges      []Edge
	Truncated  []Truncation
	Total      int // nodes in all pages
	TotalEdges int // edges in all pages
	// EdgesLeftOut counts relations among the answer's entities that MaxEdges left out.
	EdgesLeftOut int
	NextOffset   int // 0 on the last page
}

// ExploreNeighborhood returns the graph around the centre: the entities a capped walk reaches (each
// expanded entity shows at most MaxPerNode new neighbours, strongest evidence first, then by name; the
// whole answer at most MaxNodes entities), every relation that counts among them (the induced subgraph,
// at most MaxEdges), their true hop distance under the filter, and for each expanded entity what the caps
// left out. The walk is deterministic, so pages of one query fit together.
func (s *Service) ExploreNeighborhood(ctx context.Context, q NeighborhoodQuery) (Neighborhood, error) {
	q.Normalize()
	if err := q.Validate(); err != nil {
		return Neighborhood{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	r, err := s.sourceAndEntities(ctx, []string{"name"}, []string{q.Center})
	if err != nil {
		return Neighborhood{}, err
	}
	src, center := r.src, r.ents[0]
	base := src // before followVia wraps it: where the page's entities are read
	budget := s.Budget
	if budget == 0 {
		budget = DefaultWorkBudget
	}
	if q.FollowVia {
		var err error
		if src, err = s.followVia(src); err != nil {
			return Neighborhood{}, err
		}
	}
	g, release, err := openGraph(ctx, src)
	if err != nil {
		return Neighborhood{}, err
	}
	w, err := walkNeighborhood(ctx, g, q, center.Name, budget)
	release()
	if err != nil {
		return Neighborhood{}, err
	}

	// The page.
	end := min(q.Offset+q.PageSize, len(w.nodes))
	ans := Neighborhood{Center: center, Total: len(w.nodes), TotalEdges: len(w.edges), EdgesLeftOut: w.edgesLeftOut}
	if end < len(w.nodes) {
		ans.NextOffset = end
	}
	if q.Offset >= len(w.nodes) {
		return ans, nil
	}
	page := w.nodes[q.Offset:end]
	// The page's edges, each with its relation's header: from the snapshot walked, by the relation's
	// number, when it holds the header; the others are read by name, and filled in below. The edges are
	// made in place, in one array (one a released page gave back, when there is one: Release): a page
	// holds up to MaxEdges of them, each a whole header.
	mem, inMemory := g.(snapshotGraph)
	inPageEdges := 0
	for _, e := range w.edges {
		if e.pos >= q.Offset && e.pos < end {
			inPageEdges++
		}
	}
	if inPageEdges > 0 {
		ans.Edges = edgePages.get(inPageEdges)
	}
	var missing []RelationName
	var missingAt []int // where in ans.Edges each missing header goes
	for _, e := range w.edges {
		if e.pos < q.Offset || e.pos >= end {
			continue
		}
		r, via := SplitViaLink(e.name)
		ans.Edges = append(ans.Edges, Edge{ThroughVia: via})
		if inMemory {
			if h, ok := mem.s.header(e.rel); ok {
				ans.Edges[len(ans.Edges)-1].RelationHeader = h
				continue
			}
		}
		missing = append(missing, r)
		missingAt = append(missingAt, len(ans.Edges)-1)
	}
	w.recycle()
	var ents map[EntityName]Entity
	var degrees map[EntityName]int
	var headers map[RelationName]RelationHeader
	err = parallel(
		func() (err error) { ents, err = s.getEntities(ctx, base, page); return err },
		func() (err error) {
			if len(missing) > 0 {
				headers, err = s.relationHeaders(ctx, base, missing)
			}
			return err
		},
		func() (err error) {
			if t, ok := src.(topologyReader); ok {
				degrees = t.Degrees(page)
				return nil
			}
			degrees, err = s.Store.Degrees(ctx, page)
			return err
		},
	)
	if err != nil {
		return Neighborhood{}, err
	}
	ans.Nodes = nodePages.get(len(page))
	for _, n := range page {
		ans.Nodes = append(ans.Nodes, NeighborNode{Entity: ents[n], Distance: w.dist[n], RelationCount: degrees[n]})
	}
	for k, i := range missingAt {
		ans.Edges[i].RelationHeader = headers[missing[k]]
	}
	for i := range ans.Edges {
		e := &ans.Edges[i]
		e.Statuses = statusesOf(e.Support)
		e.Confidence = q.Filter.Strength(e.Support)
	}
	inPage := map[EntityName]bool{}
	for _, n := range page {
		inPage[n] = true
	}
	for _, t := range w.cut {
		if inPage[t.Entity] {
			ans.Truncated = append(ans.Truncated, t)
		}
	}
	return ans, nil
}

// edgeAt is a relation drawn in a neighbourhood, its number in the graph walked, and the position in the
// node list of its later end (excluded ends count as -1): it comes with the page holding that end.
type edgeAt struct {
	name RelationName
	rel  int32
	pos  int
}

// walked is the whole of a neighbourhood, before paging.
type walked struct {
	nodes        []EntityName // nearest first; within a distance, in the order reached
	dist         map[EntityName]int
	edges        []edgeAt // by the position of their later end, then by name
	edgesLeftOut int
	cut          []Truncation
}

// recycle gives w's list of edges back for a later walk; w.edges is nil afterwards.
func (w *walked) recycle() {
	walkEdges.put(w.edges)
	w.edges = nil
}

// walkNeighborhood finds the whole of a neighbourhood:
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
//  4. for each expanded entity, the entities joined to it that the answer does not hold, and the
//     relations to them by type.
//
// A hub whose list the snapshot indexes (hubindex.go) is not read whole in any step: step 1 takes the
// first neighbours of its list in rank order (under the default strengths), steps 2 and 3 look up its
// relations to the answer's entities by their ends, and step 4 (under the default filter) takes those
// away from the list's counts. Other lists are read, once a step, in place.
func walkNeighborhood(ctx context.Context, g pathGraph, q NeighborhoodQuery, center EntityName, budget int) (walked, error) {
	const op = "ExploreNeighborhood"
	w := walked{nodes: []EntityName{center}, dist: map[EntityName]int{center: 0}}
	c, ok := g.node(center)
	if !ok {
		return w, nil // no relations
	}
	excluded := map[int32]bool{}
	for _, n := range q.Exclude {
		if u, ok := g.node(n); ok && u != c {
			excluded[u] = true
		}
	}
	read := 0
	fetch := func(us []int32) error {
		if err := g.fetch(ctx, us); err != nil {
			return err
		}
		for _, u := range us {
			read += len(g.relationsOf(u))
		}
		if read > budget {
			return &Error{Op: op, Kind: ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the neighbourhood would read more than " + strconv.Itoa(budget) + " relations; lower depth or narrow the filter"}
		}
		return nil
	}
	expired := func() error {
		if err := ctx.Err(); err != nil {
			return &Error{Op: op, Kind: DeadlineExceeded, Message: "the neighbourhood query ran out of time", Err: err}
		}
		return nil
	}

	// counted calls each with the relations of u that count under the filter, each with its other end, in
	// the order of u's list. It reads the list in place, for every step below (a hub's counted relations,
	// copied out once per answer, cost more to allocate and collect than to test again).
	byDefault := len(q.Filter.Statuses) == 0 // the strength kept in the lists is right
	counted := func(u int32, each func(h halfEdge)) {
		for _, h := range g.relationsOf(u) {
			if g.counts(&q.Filter, h.rel) {
				each(h)
			}
		}
	}

	// hub returns the index of u's list when the graph holds one (hubindex.go); countedTo calls each with
	// the relations between u (whose index is x) and v that count under the filter, found by the index.
	mem, inMemory := g.(snapshotGraph)
	hub := func(u int32) *hubIndex {
		if !inMemory {
			return nil
		}
		return mem.hubOf(u)
	}
	countedTo := func(x *hubIndex, u, v int32, each func(h *halfEdge)) {
		list := g.relationsOf(u)
		for _, k := range x.toEnd(list, v) {
			if h := &list[k]; g.counts(&q.Filter, h.rel) {
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
			return walked{}, err
		}
		var next []int32
		for _, u := range frontier {
			if err := expired(); err != nil {
				return walked{}, err
			}
			expanded = append(expanded, u)
			if x := hub(u); x != nil && byDefault {
				// The list in the order the walk shows neighbours: the first not yet shown are taken.
				list, shown := g.relationsOf(u), 0
				for _, p := range x.byRank {
					if shown == q.MaxPerNode || len(reached) == q.MaxNodes {
						break
					}
					h := &list[p]
					if m.at(h.to) != 0 || excluded[h.to] || !g.counts(&q.Filter, h.rel) {
						continue
					}
					shown++
					m.set(h.to, int32(d)+1)
					reached = append(reached, h.to)
					next = append(next, h.to)
				}
				continue
			}
			items = items[:0]
			counted(u, func(n halfEdge) {
				if m.at(n.to) == 0 && !excluded[n.to] {
					strength := n.strength // the default filter's, kept in the list
					if !byDefault {
						strength = q.Filter.Strength(*g.support(n.rel))
					}
					items = append(items, candidate{to: n.to, strength: strength})
				}
			})
			shown := 0
			for _, x := range strongest(items, min(q.MaxPerNode, q.MaxNodes-len(reached)), g.entity) {
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
		return walked{}, err
	}

	// 2. True distances: 1 for the centre's neighbours (one pass over the centre's relations), 2 for
	// theirs.
	dist := make(map[int32]int, len(reached))
	deep := false
	for _, u := range reached {
		dist[u] = int(m.at(u)) - 1
		deep = deep || dist[u] == 3
	}
	if x := hub(c); x != nil && len(reached) < x.n {
		for _, u := range reached {
			if m.at(u) > 2 {
				countedTo(x, c, u, func(*halfEdge) { dist[u] = 1 })
			}
		}
	} else {
		counted(c, func(h halfEdge) {
			if m.at(h.to) > 2 { // reached, further than 1 in the walk
				dist[h.to] = 1
			}
		})
	}
	if deep {
		nearCenter := map[int32]bool{}
		counted(c, func(h halfEdge) { nearCenter[h.to] = true })
		for _, u := range reached {
			if dist[u] == 3 {
				counted(u, func(h halfEdge) {
					if nearCenter[h.to] {
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
		name := g.entity(u)
		w.nodes = append(w.nodes[:i], name)
		w.dist[name] = dist[u]
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
	w.edges = walkEdges.get(0)
	scan := slices.Clone(order)
	slices.SortStableFunc(scan, func(a, b int32) int { return cmp.Compare(len(g.relationsOf(a)), len(g.relationsOf(b))) })
	if len(excluded) == 0 {
		scan = scan[:len(scan)-1]
	}
	for _, u := range scan {
		if err := expired(); err != nil {
			return walked{}, err
		}
		i, _ := pos(u)
		if x := hub(u); x != nil && len(order)+len(excluded) < x.n {
			// The relations to the answer's entities not scanned yet (u among them), and to the excluded
			// ones, looked up by their ends instead of reading the list.
			add := func(v int32, p int) {
				countedTo(x, u, v, func(h *halfEdge) { w.edges = append(w.edges, edgeAt{rel: h.rel, pos: max(i, p)}) })
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
		counted(u, func(h halfEdge) {
			p, in := pos(h.to)
			switch {
			case len(excluded) > 0 && excluded[h.to]:
				p = -1
			case !in: // not in the answer, or scanned already (its mark negated)
				return
			}
			w.edges = append(w.edges, edgeAt{rel: h.rel, pos: max(i, p)})
		})
		m.set(u, -m.at(u)) // scanned: its position, negated
	}
	for _, u := range scan {
		m.set(u, -m.at(u))
	}
	w.edges, w.edgesLeftOut = firstEdges(w.edges, q.MaxEdges, len(order), g.name)

	// 4. What the caps left out.
	for i, u := range expanded {
		mark := -int32(i) - 1
		leftOut, relsLeftOut := 0, 0
		var byType []RelationCount
		if x := hub(u); x != nil && q.Filter.isDefault() && len(order)+len(excluded) < x.n {
			// The list's counts less the relations to the answer's entities and the excluded ones.
			leftOut, relsLeftOut = x.ends, x.counted
			byType = slices.Clone(x.byType)
			takeAway := func(v int32) {
				joined := false
				countedTo(x, u, v, func(h *halfEdge) {
					joined = true
					relsLeftOut--
					t, symmetric := g.relType(h.rel)
					takeRelationCount(byType, t, h.out || symmetric)
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
			byType = slices.DeleteFunc(byType, func(c RelationCount) bool { return c.Count == 0 })
		} else {
			counted(u, func(n halfEdge) {
				if _, in := pos(n.to); in || len(excluded) > 0 && excluded[n.to] {
					return
				}
				if m.at(n.to) != mark {
					leftOut++
					m.set(n.to, mark)
				}
				relsLeftOut++
				if n.typ != 0 {
					byType = addRelationCount(byType, RelationTypes[n.typ-1], n.out || symmetricByNumber[n.typ])
					return
				}
				t, symmetric := g.relType(n.rel)
				byType = addRelationCount(byType, t, n.out || symmetric)
			})
		}
		if leftOut > 0 {
			SortRelationCounts(byType)
			w.cut = append(w.cut, Truncation{Entity: g.entity(u), LeftOut: leftOut, RelationsLeftOut: relsLeftOut, ByType: byType})
		}
	}
	return w, nil
}

// firstEdges returns the first max of edges (none named yet) in the answer's order, by the position of
// their later end and then by name, each named, and how many it left out. Among many relations of hubs,
// only the edges kept and those of the position where the cut falls are named and ordered by name
// (positions run from 0 to positions-1).
func firstEdges(edges []edgeAt, max, positions int, name func(int32) RelationName) ([]edgeAt, int) {
	byName := func(a, b edgeAt) int { return strings.Compare(string(a.name), string(b.name)) }
	leftOut := 0
	if len(edges) > max {
		leftOut = len(edges) - max
		counts := make([]int, positions)
		for _, e := range edges {
			counts[e.pos]++
		}
		cut, before := 0, 0 // the position where the cut falls, and how many edges come before it
		for before+counts[cut] < max {
			before += counts[cut]
			cut++
		}
		kept, at := edges[:0], []edgeAt(nil) // kept in place: an edge is read before its place is written
		for _, e := range edges {
			switch {
			case e.pos < cut:
				kept = append(kept, e)
			case e.pos == cut:
				e.name = name(e.rel)
				at = append(at, e)
			}
		}
		slices.SortFunc(at, byName)
		edges = append(kept, at[:max-before]...)
	}
	for i := range edges {
		if edges[i].name == "" {
			edges[i].name = name(edges[i].rel)
		}
	}
	slices.SortFunc(edges, func(a, b edgeAt) int { return cmp.Or(cmp.Compare(a.pos, b.pos), byName(a, b)) })
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
func addRelationCount(cs []RelationCount, t RelationType, out bool) []RelationCount {
	for i := range cs {
		if cs[i].Outgoing == out && cs[i].Type == t {
			cs[i].Count++
			return cs
		}
	}
	return append(cs, RelationCount{Type: t, Outgoing: out, Count: 1})
}

// takeRelationCount counts one relation of type t in direction out fewer in cs, which holds it.
func takeRelationCount(cs []RelationCount, t RelationType, out bool) {
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
	name     EntityName // to's, given by strongest to the candidates it orders
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
func strongest(items []candidate, n int, name func(int32) EntityName) []candidate {
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

// otherEnd is the end of a relation that is not u.
func otherEnd(e [2]int32, u int32) int32 {
	if e[0] == u {
		return e[1]
	}
	return e[0]
}

// Strength is how sure the evidence for a relation is under the filter: the highest confidence among its
// supporting claims (ALLEGED, REPORTED, CONFIRMED) with a counted status. A denial is never strength: a
// relation that counts only through DENIED claims (when denials are asked for) has strength 0; -1 means
// no claim counts.
func (f RelationFilter) Strength(s Support) float64 {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	best := -1.0
	for _, st := range statuses {
		c := s[st.Index()]
		if c < 0 {
			continue
		}
		if st == StatusDenied {
			c = 0
		}
		best = max(best, c)
	}
	return best
}

// SumRelationCounts adds up counts of the same type and direction, most first.
func SumRelationCounts(in []RelationCount) []RelationCount {
	type key struct {
		t   RelationType
		out bool
	}
	sum := map[key]int{}
	for _, c := range in {
		sum[key{c.Type, c.Outgoing}] += c.Count
	}
	out := make([]RelationCount, 0, len(sum))
	for k, n := range sum {
		out = append(out, RelationCount{Type: k.t, Outgoing: k.out, Count: n})
	}
	SortRelationCounts(out)
	return out
}

// SortRelationCounts orders counts most first, then by type, outgoing before incoming.
func SortRelationCounts(cs []RelationCount) {
	slices.SortFunc(cs, func(a, b RelationCount) int {
		ob := func(x bool) int {
			if x {
				return 0
			}
			return 1
		}
		return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Type, b.Type), cmp.Compare(ob(a.Outgoing), ob(b.Outgoing)))
	})
}
