package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Export returns the part of the graph q names with everything writing it out needs: entities, relations
// with all their claims, and the sources cited (every source, for an unfiltered whole-graph export), with
// its scope and filter in words. It returns what the queries it makes return, and Invalid for a store that
// cannot list its relations.
func (s *Service) Export(ctx context.Context, q graph.ExportQuery) (graph.Subgraph, error) {
	const op = "service.Export"
	var names []graph.RelationName
	var ents []graph.EntityName
	var out graph.Subgraph
	switch {
	case q.Neighborhood.Center != "":
		n, err := s.ExploreNeighborhood(ctx, q.Neighborhood)
		if err != nil {
			return graph.Subgraph{}, err
		}
		for _, node := range n.Nodes {
			ents = append(ents, node.Entity.Name)
		}
		for _, e := range n.Edges {
			names = append(names, e.Relation.Name)
		}
		out.Scope = fmt.Sprintf("the neighbourhood of %s, depth %d", n.Center.Name, max(q.Neighborhood.Depth, 1))
		out.Filter = q.Neighborhood.Filter.Words()
		n.Release()
	case q.Paths.From != "":
		a, err := s.FindPaths(ctx, q.Paths)
		if err != nil {
			return graph.Subgraph{}, err
		}
		for _, e := range a.Entities {
			ents = append(ents, e.Name)
		}
		for n := range a.Relations {
			names = append(names, n)
		}
		out.Scope = fmt.Sprintf("the routes from %s to %s", a.From.Name, a.To.Name)
		out.Filter = q.Paths.Filter.Words()
	default:
		feed, ok := s.Store.(graph.ChangeFeed)
		if !ok {
			return graph.Subgraph{}, &graph.Error{Op: op, Kind: graph.Invalid, Message: "this store cannot list its relations; export a neighbourhood or a path answer"}
		}
		var v graph.Violations
		q.Filter.Validate("filter.", &v)
		if err := v.Err(op, "invalid filter"); err != nil {
			return graph.Subgraph{}, err
		}
		ctx, cancel := s.bound(ctx)
		defer cancel()
		out.Scope = "the whole graph"
		if !q.Unfiltered {
			out.Filter = q.Filter.Words()
		}
		_, err := feed.Changes(ctx, 0, func(c graph.Changed) {
			for _, l := range c.Links {
				if !l.Deleted && (q.Unfiltered || q.Filter.Counts(l)) && len(names) < graph.MaxExportRelations {
					names = append(names, l.Name)
				}
			}
		})
		if err != nil {
			return graph.Subgraph{}, err
		}
		if l, ok := s.Store.(graph.EntityLister); ok {
			for after := graph.EntityName(""); ; {
				page, err := l.EntityNames(ctx, after, 5000)
				if err != nil {
					return graph.Subgraph{}, err
				}
				ents = append(ents, page...)
				if len(page) < 5000 || len(ents) > graph.MaxExportRelations {
					break
				}
				after = page[len(page)-1]
			}
		}
		if q.Unfiltered {
			// Every source, cited or not.
			for offset := 0; ; {
				page, total, err := s.Store.ListSources(ctx, graph.SourceQuery{Offset: offset, Limit: 5000})
				if err != nil {
					return graph.Subgraph{}, err
				}
				for _, sum := range page {
					out.Sources = append(out.Sources, sum.Source)
				}
				if offset += len(page); len(page) == 0 || offset >= total {
					break
				}
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	seenSrc := map[graph.SourceName]bool{}
	for _, src := range out.Sources {
		seenSrc[src.Name] = true
	}
	for start := 0; start < len(names); start += 1000 {
		rels, err := s.Store.GetRelations(ctx, names[start:min(start+1000, len(names))])
		if err != nil {
			return graph.Subgraph{}, err
		}
		for _, n := range names[start:min(start+1000, len(names))] {
			r, ok := rels[n]
			if !ok {
				continue
			}
			out.Relations = append(out.Relations, r)
			ents = append(ents, r.From, r.To)
			for _, e := range []graph.EntityName{r.Via, r.Term} {
				if e != "" {
					ents = append(ents, e)
				}
			}
			for _, c := range r.Claims {
				if c.SaidBy != "" {
					ents = append(ents, c.SaidBy)
				}
				if !seenSrc[c.Source.Name] {
					seenSrc[c.Source.Name] = true
					out.Sources = append(out.Sources, c.Source)
				}
			}
		}
	}
	slices.Sort(ents)
	ents = slices.Compact(ents)
	for start := 0; start < len(ents); start += 1000 {
		got, err := s.Store.GetEntities(ctx, ents[start:min(start+1000, len(ents))])
		if err != nil {
			return graph.Subgraph{}, err
		}
		for _, n := range ents[start:min(start+1000, len(ents))] {
			if e, ok := got[n]; ok {
				out.Entities = append(out.Entities, e)
			}
		}
	}
	slices.SortFunc(out.Sources, func(a, b graph.Source) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out, nil
}
