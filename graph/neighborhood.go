package graph

import (
	"cmp"
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
	if len(q.Exclude) > MaxExclude {
		v.Add("exclude", "%d names; at most %d", len(q.Exclude), MaxExclude)
	}
	for i, n := range q.Exclude {
		if !LooksLikeResourceName(string(n)) {
			v.Add(indexed("exclude", i), "%q is not a resource name", truncate(string(n), 80))
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
	excluded := map[EntityName]bool{}
	for _, n := range q.Exclude {
		excluded[n] = true
	}
	delete(excluded, center.Name)
	order := map[EntityName]int{center.Name: 0} // position in the node list
	dist := map[EntityName]int{center.Name: 0}
	nodes := []EntityName{center.Name}
	type edgeAt struct {
		name RelationName
		pos  int // the later end's position; excluded ends count as -1
	}
	var edges []edgeAt
	seenEdge := map[RelationName]bool{}
	addEdge := func(l Link) {
		if seenEdge[l.Name] {
			return
		}
		seenEdge[l.Name] = true
		pos := func(n EntityName) int {
			if excluded[n] {
				return -1
			}
			return order[n]
		}
		edges = append(edges, edgeAt{l.Name, max(pos(l.From), pos(l.To))})
	}
	var cut []Truncation
	read := 0
	frontier := []EntityName{center.Name}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		links, err := src.Links(ctx, frontier)
		if err != nil {
			return Neighborhood{}, err
		}
		for _, u := range frontier {
			read += len(links[u])
		}
		if read > budget {
			return Neighborhood{}, &Error{Op: "ExploreNeighborhood", Kind: ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the neighbourhood would read more than " + strconv.Itoa(budget) + " relations; lower depth or narrow the filter"}
		}
		var next []EntityName
		for _, u := range frontier {
			ls := slices.DeleteFunc(slices.Clone(links[u]), func(l Link) bool { return !q.Filter.Counts(l) })
			slices.SortFunc(ls, func(a, b Link) int {
				return cmp.Or(-cmp.Compare(q.Filter.strength(a), q.Filter.strength(b)),
					strings.Compare(string(other(a, u)), string(other(b, u))), strings.Compare(string(a.Name), string(b.Name)))
			})
			shown := 0
			var left []RelationCount
			for _, l := range ls {
				w := other(l, u)
				if excluded[w] {
					addEdge(l)
					continue
				}
				if _, shownAlready := order[w]; shownAlready {
					addEdge(l)
					continue
				}
				if shown >= q.MaxPerNode || len(nodes) >= q.MaxNodes {
					left = append(left, RelationCount{Type: l.Type, Outgoing: l.From == u || l.Symmetric, Count: 1})
					continue
				}
				shown++
				order[w], dist[w] = len(nodes), d
				nodes = append(nodes, w)
				next = append(next, w)
				addEdge(l)
			}
			if len(left) > 0 {
				cut = append(cut, Truncation{Entity: u, LeftOut: len(left), ByType: SumRelationCounts(left)})
			}
		}
		frontier = next
	}

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
	for _, e := range edges {
		if e.pos >= q.Offset && e.pos < end {
			pageEdges = append(pageEdges, e.name)
		}
	}
	var ents map[EntityName]Entity
	var degrees map[EntityName]int
	var headers map[RelationName]RelationHeader
	err := parallel(
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

// other is the end of l that is not u.
func other(l Link, u EntityName) EntityName {
	if l.From == u {
		return l.To
	}
	return l.From
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
