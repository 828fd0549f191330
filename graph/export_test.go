package graph

import (
	"context"
	"slices"
)

// WalkNeighborhood exposes walkNeighborhood to the external tests: the nodes in order, the edges sorted
// by name, and the truncations.
func WalkNeighborhood(ctx context.Context, src LinkSource, q NeighborhoodQuery, center EntityName) ([]EntityName, []RelationName, []Truncation, error) {
	q.Normalize()
	g, release, err := openGraph(ctx, src)
	if err != nil {
		return nil, nil, nil, err
	}
	defer release()
	w, err := walkNeighborhood(ctx, g, q, center, DefaultWorkBudget)
	var edges []RelationName
	for _, e := range w.edges {
		edges = append(edges, e.name)
	}
	slices.Sort(edges)
	return w.nodes, edges, w.cut, err
}

// Strength exposes RelationFilter.strength.
func (f RelationFilter) Strength(l Link) float64 { return f.strength(l) }
