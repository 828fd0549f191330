package service

import (
	"context"

	"github.com/polgraph/polgraph/graph"
)

// bySources is a LinkSource whose links count only through the claims a source filter keeps: each
// link's support is recomputed from its relation's kept claims (none, when they fall short of the
// filter's outlets), read with the links.
type bySources struct {
	src  graph.LinkSource
	view graph.View
	f    graph.SourceFilter
}

func (w bySources) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	links, err := w.src.Links(ctx, entities)
	if err != nil {
		return nil, err
	}
	relationOf := func(l graph.Link) graph.RelationName {
		if r, ok := graph.SplitViaLink(l.Name); ok {
			return r
		}
		return l.Name
	}
	var names []graph.RelationName
	for _, ls := range links {
		for _, l := range ls {
			names = append(names, relationOf(l))
		}
	}
	rels, err := w.view.GetRelations(ctx, distinct(names))
	if err != nil {
		return nil, err
	}
	out := make(map[graph.EntityName][]graph.Link, len(links))
	for n, ls := range links {
		kept := make([]graph.Link, len(ls))
		for i, l := range ls {
			l.Support = graph.SupportOf(w.f.Kept(rels[relationOf(l)]))
			kept[i] = l
		}
		out[n] = kept
	}
	return out, nil
}

// keptClaims is rels with only the claims f keeps, for weighing routes by them.
func keptClaims(f graph.SourceFilter, rels map[graph.RelationName]graph.Relation) map[graph.RelationName]graph.Relation {
	if f.IsZero() {
		return rels
	}
	out := make(map[graph.RelationName]graph.Relation, len(rels))
	for n, r := range rels {
		r.Claims = f.Kept(r)
		out[n] = r
	}
	return out
}
