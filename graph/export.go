package graph

import (
	"context"
)

// ExportQuery says which part of the graph to write out: the whole graph (the relations the filter
// counts, with their ends), an entity's neighbourhood, or the answer to a path query.
type ExportQuery struct {
	// Neighborhood, when its Center is set, exports what ExploreNeighborhood answers (its first page).
	Neighborhood NeighborhoodQuery
	// Paths, when From is set, exports the routes FindPaths answers.
	Paths PathQuery
	// Filter chooses the relations of a whole-graph export, unless Unfiltered.
	Filter RelationFilter
	// Unfiltered asks a whole-graph export for everything the graph holds: every source, every live entity
	// and every live relation, whatever its claims (denied, retracted, disputed), each claim with its
	// retraction. Loading the export into an empty graph gives the same graph.
	Unfiltered bool
}

// EntityLister lists the live entities by name, a page at a time; a whole-graph export writes every one,
// joined to others or not. A Store on Dgraph is one.
type EntityLister interface {
	EntityNames(ctx context.Context, after EntityName, limit int) ([]EntityName, error)
}

// MaxExportRelations bounds a whole-graph export (a neighbourhood or a path answer is bounded by its
// own caps).
const MaxExportRelations = 2_000_000
