package graph

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strconv"
	"strings"
)

// Limits on neighbourhood queries.
const (
	DefaultNeighborhoodDepth = 1
	MaxNeighborhoodDepth     = 3
	DefaultMaxPerNode        = 25
	MaxMaxPerNode            = 200
	DefaultMaxNodes          = 100
	MaxMaxNodes              = 500
	MaxExclude               = 1000
)

// NeighborhoodQuery asks what surrounds an entity.
type NeighborhoodQuery struct {
	Center     string // a resource name, or a name or alias naming one entity
	Depth      int
	MaxPerNode int
	MaxNodes   int
	Filter     RelationFilter
	Exclude    []EntityName
	PageSize   int
	Offset     int // where the page starts in the whole answer's node list
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
	Distance      int
	RelationCount int
}

// Edge is a relation drawn in a neighbourhood.
type Edge struct {
	RelationHeader
	Statuses   []ClaimStatus
	Confidence float64
}

// Truncation counts the links of one entity that the caps left out.
type Truncation struct {
	Entity  EntityName
	LeftOut int
	ByType  []RelationCount
}

// Neighborhood is one page of the answer to a NeighborhoodQuery.
type Neighborhood struct {
	Center     Entity
	Nodes      []NeighborNode
	Edges      []Edge
	Truncated  []Truncation
	Total      int // nodes in all pages
	NextOffset int // 0 on the last page
}

// ExploreNeighborhood walks out from the centre one level per round trip. Each expanded entity shows at
// most MaxPerNode new neighbours, strongest evidence first (then by name), and the whole answer at most
// MaxNodes entities; what the caps cut is counted per entity. The walk is deterministic, so pages of one
// query fit together.
func (s *Service) ExploreNeighborhood(ctx context.Context, q NeighborhoodQuery) (Neighborhood, error) {
	q.Normalize()
	if err := q.Validate(); err != nil {
		return Neighborhood{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var center Entity
	var centerErr error
	var src LinkSource
	srcErr := parallel(
		func() error { center, centerErr = s.Resolve(ctx, "name", q.Center); return nil },
		func() (err error) { src, err = s.linkSource(ctx); return err },
	)
	if centerErr != nil {
		return Neighborhood{}, centerErr
	}
	if srcErr != nil {
		return Neighborhood{}, srcErr
	}
	budget := s.Budget
	if budget == 0 {
		budget = DefaultWorkBudget
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
	nodes, dist, edges, cut := w.nodes, w.dist, w.edges, w.cut

	// The page.
	end := min(q.Offset+q.PageSize, len(nodes))
	ans := Neighborhood{Center: center, Total: len(nodes)}
	if end < len(nodes) {
		ans.NextOffset = end
	}
	if q.Offset >= len(nodes) {
		return ans, nil
	}
	page := nodes[q.Offset:end]
	var pageEdges []RelationName
	slices.SortFunc(edges, func(a, b edgeAt) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), strings.Compare(string(a.name), string(b.name)))
	})
	for _, e := range edges {
		if e.pos >= q.Offset && e.pos < end {
			pageEdges = append(pageEdges, e.name)
		}
	}
	var ents map[EntityName]Entity
	var degrees map[EntityName]int
	var headers map[RelationName]RelationHeader
	err = parallel(
		func() (err error) { ents, err = s.Store.GetEntities(ctx, page); return err },
		func() (err error) { headers, err = s.Store.RelationHeaders(ctx, pageEdges); return err },
		func() (err error) {
			if t, ok := src.(topologyReader); ok {
				degrees = t.t.Degrees(page)
				return nil
			}
			degrees, err = s.Store.Degrees(ctx, page)
			return err
		},
	)
	if err != nil {
		return Neighborhood{}, err
	}
	for _, n := range page {
		ans.Nodes = append(ans.Nodes, NeighborNode{Entity: ents[n], Distance: dist[n], RelationCount: degrees[n]})
	}
	for _, n := range pageEdges {
		h := headers[n]
		e := Edge{RelationHeader: h, Confidence: -1}
		for i, c := range h.Support {
			if c >= 0 {
				e.Statuses = append(e.Statuses, ClaimStatuses[i])
			}
		}
		e.Confidence = q.Filter.strength(Link{Support: h.Support})
		ans.Edges = append(ans.Edges, e)
	}
	inPage := map[EntityName]bool{}
	for _, n := range page {
		inPage[n] = true
	}
	for _, t := range cut {
		if inPage[t.Entity] {
			ans.Truncated = append(ans.Truncated, t)
		}
	}
	return ans, nil
}

// edgeAt is a relation drawn in a neighbourhood and the position in the node list of its later end
// (excluded ends count as -1): it comes with the page holding that end.
type edgeAt struct {
	name RelationName
	pos  int
}

// walked is the whole of a neighbourhood, before paging.
type walked struct {
	nodes []EntityName // in the order reached
	dist  map[EntityName]int
	edges []edgeAt
	cut   []Truncation
}

// walkNeighborhood walks out from the centre. Each expanded entity, in the order reached, shows its new
// neighbours strongest evidence first, then by name, then by relation name, until it has shown
// q.MaxPerNode or the answer holds q.MaxNodes; only that prefix needs an order, so a hub's relations are
// not all sorted.
func walkNeighborhood(ctx context.Context, g pathGraph, q NeighborhoodQuery, center EntityName, budget int) (walked, error) {
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
	order := map[int32]int{c: 0} // position in the node list
	seenEdge := map[int32]bool{}
	addEdge := func(r int32) {
		if seenEdge[r] {
			return
		}
		seenEdge[r] = true
		pos := func(u int32) int {
			if excluded[u] {
				return -1
			}
			return order[u]
		}
		e := g.ends(r)
		w.edges = append(w.edges, edgeAt{g.link(r).Name, max(pos(e[0]), pos(e[1]))})
	}
	read := 0
	frontier := []int32{c}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		if err := g.fetch(ctx, frontier); err != nil {
			return walked{}, err
		}
		for _, u := range frontier {
			read += len(g.relationsOf(u))
		}
		if read > budget {
			return walked{}, &Error{Op: "ExploreNeighborhood", Kind: ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the neighbourhood would read more than " + strconv.Itoa(budget) + " relations; lower depth or narrow the filter"}
		}
		var next []int32
		for _, u := range frontier {
			if err := ctx.Err(); err != nil {
				return walked{}, &Error{Op: "ExploreNeighborhood", Kind: DeadlineExceeded, Message: "the neighbourhood query ran out of time", Err: err}
			}
			// Relations to entities already shown or excluded are edges, whatever the order; the others
			// are candidates, taken strongest first while the caps allow.
			h := candidates{g: g}
			for _, r := range g.relationsOf(u) {
				l := g.link(r)
				if !q.Filter.Counts(*l) {
					continue
				}
				v := otherEnd(g.ends(r), u)
				if _, shown := order[v]; shown || excluded[v] {
					addEdge(r)
					continue
				}
				h.items = append(h.items, candidate{rel: r, to: v, strength: q.Filter.strength(*l)})
			}
			heap.Init(&h)
			shown := 0
			for h.Len() > 0 && shown < q.MaxPerNode && len(w.nodes) < q.MaxNodes {
				x := heap.Pop(&h).(candidate)
				if _, already := order[x.to]; !already {
					shown++
					order[x.to] = len(w.nodes)
					name := g.entity(x.to)
					w.dist[name] = d
					w.nodes = append(w.nodes, name)
					next = append(next, x.to)
				}
				addEdge(x.rel)
			}
			var left []RelationCount
			for _, x := range h.items {
				if _, already := order[x.to]; already {
					addEdge(x.rel)
					continue
				}
				l := g.link(x.rel)
				left = append(left, RelationCount{Type: l.Type, Outgoing: g.ends(x.rel)[0] == u || l.Symmetric, Count: 1})
			}
			if len(left) > 0 {
				w.cut = append(w.cut, Truncation{Entity: g.entity(u), LeftOut: len(left), ByType: SumRelationCounts(left)})
			}
		}
		frontier = next
	}
	return w, nil
}

// candidate is a relation to an entity not yet shown.
type candidate struct {
	rel, to  int32
	strength float64
}

// candidates is a heap of candidates, strongest first, then by the name of the entity, then of the
// relation.
type candidates struct {
	g     pathGraph
	items []candidate
}

func (h candidates) Len() int      { return len(h.items) }
func (h candidates) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h candidates) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return cmp.Or(-cmp.Compare(a.strength, b.strength),
		strings.Compare(string(h.g.entity(a.to)), string(h.g.entity(b.to))),
		strings.Compare(string(h.g.link(a.rel).Name), string(h.g.link(b.rel).Name))) < 0
}
func (h *candidates) Push(x any) { h.items = append(h.items, x.(candidate)) }
func (h *candidates) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// otherEnd is the end of a relation that is not u.
func otherEnd(e [2]int32, u int32) int32 {
	if e[0] == u {
		return e[1]
	}
	return e[0]
}

// strength is the highest confidence among a link's claims with a counted status (-1 when none).
func (f RelationFilter) strength(l Link) float64 {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	best := -1.0
	for _, s := range statuses {
		best = max(best, l.Support[s.Index()])
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
