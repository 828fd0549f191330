package dgraph

import (
	"context"

	"github.com/polgraph/polgraph/graph"
)

// Known tells which of these entities (with their kinds) and sources the graph holds: what a write may
// refer to without defining it. Deleted entities are not held; merged ones are (a write that names one is
// written to the entity it was merged into: see dataset.Redirect).
func (s *Store) Known(ctx context.Context, entities []graph.EntityName, sources []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error) {
	type row struct {
		Name       string   `json:"pg.name"`
		Kind       string   `json:"pg.kind"`
		SourceKind string   `json:"pg.source_kind"`
		Deleted    *int64   `json:"pg.deleted_at"`
		Merged     *nameRef `json:"pg.merged_into"`
	}
	kinds := map[graph.EntityName]graph.Kind{}
	srcs := map[graph.SourceName]bool{}
	names := append(strs(entities), strs(sources)...)
	err := readNamed(ctx, s, "dgraph.Known", names, 500, "uid pg.name pg.kind pg.source_kind pg.deleted_at pg.merged_into { pg.name }",
		func(r row) string { return r.Name }, func(r row) {
			switch {
			case r.Deleted != nil && r.Merged == nil:
			case r.Kind != "":
				kinds[graph.EntityName(r.Name)] = graph.Kind(r.Kind)
			case r.SourceKind != "":
				srcs[graph.SourceName(r.Name)] = true
			}
		})
	return kinds, srcs, err
}
