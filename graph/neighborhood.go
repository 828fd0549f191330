package graph

import (
	"cmp"
	"slices"
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
	// Sources keeps the claims of some sources only: relations count, and are ranked, by them.
	Sources SourceFilter
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
				v.Add(Indexed("exclude", i), "%q is not a resource name", Truncate(string(n), 80))
			}
		}
	}
	q.Filter.Validate("filter.", &v)
	q.Sources.Validate("sources.", &v)
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

// StatusesOf is the statuses of the claims s summarises (nil for none): a list edges share, never to
// be written.
func StatusesOf(s Support) []ClaimStatus {
	mask := 0
	for i, c := range s {
		if c >= 0 {
			mask |= 1 << i
		}
	}
	return statusSets[mask]
}

// Recycled keeps arrays that answers gave back, for later answers to reuse.
type Recycled[T any] struct{ pool sync.Pool }

// get returns an empty array for at least n elements: one given back when it is large enough.
func (r *Recycled[T]) Get(n int) []T {
	if p, ok := r.pool.Get().(*[]T); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]T, 0, n)
}

// put gives a back, cleared to its capacity (a list may have been cut shorter than what was written),
// so that what the next user does not overwrite refers to nothing.
func (r *Recycled[T]) Put(a []T) {
	if cap(a) == 0 {
		return
	}
	a = a[:0]
	clear(a[:cap(a)])
	r.pool.Put(&a)
}

// The arrays of released pages' edges and nodes (Neighborhood.Release), and of walks' edges.
var (
	edgePages Recycled[Edge]
	nodePages Recycled[NeighborNode]
)

// Release gives back the arrays holding n's edges and nodes, for a later answer to reuse: a page holds
// up to MaxEdges edges, each a whole relation header, and a server answering many neighbourhoods would
// otherwise make and collect such arrays for every answer. Call it once done with n.Edges and n.Nodes (as
// the gRPC server does once it has converted the page), and read neither afterwards, nor those of any
// copy of n. An answer never released is collected as usual.
func (n *Neighborhood) Release() {
	edgePages.Put(n.Edges)
	nodePages.Put(n.Nodes)
	n.Edges, n.Nodes = nil, nil
}

// Truncation counts what an answer leaves out around one of its entities.
type Truncation struct {
	Entity EntityName
	// LeftOut counts the entities joined to it under the filter that the answer does not hold.
	LeftOut int
	// RelationsLeftOut counts the relations to those entities; ByType breaks them down.
	RelationsLeftOut int
	ByType           []RelationCount
	// Unexpanded is set when the walk did not expand the entity (it was reached at the last depth, or the
	// caps were spent): what it counts lies beyond the depth asked as well as beyond the caps.
	Unexpanded bool
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
	// IfRelaxed says, of an answer its filter left with the centre alone, what would change it.
	IfRelaxed []Relaxation
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

// NewEdges returns an empty array with room for n edges: one a released answer gave back (Release),
// when there is one.
func NewEdges(n int) []Edge { return edgePages.Get(n) }

// NewNodes returns an empty array with room for n nodes: one a released answer gave back, when there is
// one.
func NewNodes(n int) []NeighborNode { return nodePages.Get(n) }
