package service

import (
	"context"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// ExploreNeighborhood returns the graph around the centre: the entities a capped walk reaches (each
// expanded entity shows at most MaxPerNode new neighbours, strongest evidence first, then by name; the
// whole answer at most MaxNodes entities), every relation that counts among them (the induced subgraph,
// at most MaxEdges), their true hop distance under the filter, and for each expanded entity what the caps
// left out. The walk is deterministic, so pages of one query fit together.
func (s *Service) ExploreNeighborhood(ctx context.Context, q graph.NeighborhoodQuery) (graph.Neighborhood, error) {
	q.Normalize()
	if err := q.Validate(); err != nil {
		return graph.Neighborhood{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	r, err := s.sourceAndEntities(ctx, []string{"name"}, []string{q.Center})
	if err != nil {
		return graph.Neighborhood{}, err
	}
	base, center := r.src, r.ents[0] // base: where the page's entities are read
	var src graph.LinkSource = base
	budget := s.Budget
	if budget == 0 {
		budget = graph.DefaultWorkBudget
	}
	if q.FollowVia {
		var err error
		if src, err = s.followVia(src); err != nil {
			return graph.Neighborhood{}, err
		}
	}
	if !q.Sources.IsZero() {
		src = bySources{src: src, view: base, f: q.Sources}
	}
	g, release, err := walk.OpenGraph(ctx, src)
	if err != nil {
		return graph.Neighborhood{}, err
	}
	w, err := walk.Around(ctx, g, q, center.Name, budget)
	var ifRelaxed []graph.Relaxation
	if err == nil && len(w.Nodes) == 1 {
		ifRelaxed = relaxed(q.Filter, func(f graph.RelationFilter) (int, error) {
			lq := q
			lq.Filter = f
			lw, err := walk.Around(ctx, g, lq, center.Name, budget)
			defer lw.Recycle()
			return len(lw.Nodes) - 1, err
		})
	}
	release()
	if err != nil {
		return graph.Neighborhood{}, err
	}

	// The page.
	end := min(q.Offset+q.PageSize, len(w.Nodes))
	ans := graph.Neighborhood{Center: center, Total: len(w.Nodes), TotalEdges: len(w.Edges), EdgesLeftOut: w.EdgesLeftOut, IfRelaxed: ifRelaxed}
	if end < len(w.Nodes) {
		ans.NextOffset = end
	}
	if q.Offset >= len(w.Nodes) {
		return ans, nil
	}
	page := w.Nodes[q.Offset:end]
	// The page's edges, each with its relation's header: from the snapshot walked, by the relation's
	// number, when it holds the header; the others are read by name, and filled in below. The edges are
	// made in place, in one array (one a released page gave back, when there is one: Release): a page
	// holds up to MaxEdges of them, each a whole header.
	mem, inMemory := g.(walk.Headers)
	inPageEdges := 0
	for _, e := range w.Edges {
		if e.Pos >= q.Offset && e.Pos < end {
			inPageEdges++
		}
	}
	if inPageEdges > 0 {
		ans.Edges = graph.NewEdges(inPageEdges)
	}
	var missing []graph.RelationName
	var missingAt []int // where in ans.Edges each missing header goes
	for _, e := range w.Edges {
		if e.Pos < q.Offset || e.Pos >= end {
			continue
		}
		r, via := graph.SplitViaLink(e.Name)
		ans.Edges = append(ans.Edges, graph.Edge{ThroughVia: via})
		if inMemory {
			if h, ok := mem.Header(e.Rel); ok {
				ans.Edges[len(ans.Edges)-1].RelationHeader = h
				continue
			}
		}
		missing = append(missing, r)
		missingAt = append(missingAt, len(ans.Edges)-1)
	}
	w.Recycle()
	var ents map[graph.EntityName]graph.Entity
	var degrees map[graph.EntityName]int
	var headers map[graph.RelationName]graph.RelationHeader
	err = parallel(
		func() (err error) { ents, err = base.GetEntities(ctx, page); return err },
		func() (err error) {
			if len(missing) > 0 {
				headers, err = base.RelationHeaders(ctx, missing)
			}
			return err
		},
		func() (err error) {
			degrees, err = base.Degrees(ctx, page)
			return err
		},
	)
	if err != nil {
		return graph.Neighborhood{}, err
	}
	ans.Nodes = graph.NewNodes(len(page))
	for _, n := range page {
		ans.Nodes = append(ans.Nodes, graph.NeighborNode{Entity: ents[n], Distance: w.Dist[n], RelationCount: degrees[n]})
	}
	for k, i := range missingAt {
		ans.Edges[i].RelationHeader = headers[missing[k]]
	}
	for i := range ans.Edges {
		e := &ans.Edges[i]
		e.Statuses = graph.StatusesOf(e.Support)
		e.Confidence = q.Filter.Strength(e.Support)
	}
	inPage := map[graph.EntityName]bool{}
	for _, n := range page {
		inPage[n] = true
	}
	for _, t := range w.Cut {
		if inPage[t.Entity] {
			ans.Truncated = append(ans.Truncated, t)
		}
	}
	return ans, nil
}
