package graph

import (
	"context"
	"slices"
	"strings"
)

// ExportQuery says which part of the graph to write out: the whole graph (the relations the filter
// counts, with their ends), an entity's neighbourhood, or the answer to a path query.
type ExportQuery struct {
	// Neighborhood, when its Center is set, exports what ExploreNeighborhood answers (its first page).
	Neighborhood NeighborhoodQuery
	// Paths, when From is set, exports the routes FindPaths answers.
	Paths PathQuery
	// Filter chooses the relations of a whole-graph export; zero counts every live relation that some
	// undenied claim supports (the default filter).
	Filter RelationFilter
}

// EntityLister lists the live entities by name, a page at a time; a whole-graph export writes every one,
// joined to others or not. A Store on Dgraph is one.
type EntityLister interface {
	EntityNames(ctx context.Context, after EntityName, limit int) ([]EntityName, error)
}

// MaxExportRelations bounds a whole-graph export (a neighbourhood or a path answer is bounded by its
// own caps).
const MaxExportRelations = 2_000_000

// Export returns the part of the graph q names with everything writing it out needs: entities, relations
// with all their claims, and the sources cited. It returns what the queries it makes return, and Invalid
// for a store that cannot list its relations.
func (s *Service) Export(ctx context.Context, q ExportQuery) (Subgraph, error) {
	const op = "Export"
	var names []RelationName
	var ents []EntityName
	switch {
	case q.Neighborhood.Center != "":
		n, err := s.ExploreNeighborhood(ctx, q.Neighborhood)
		if err != nil {
			return Subgraph{}, err
		}
		for _, node := range n.Nodes {
			ents = append(ents, node.Entity.Name)
		}
		for _, e := range n.Edges {
			names = append(names, e.Relation.Name)
		}
		n.Release()
	case q.Paths.From != "":
		a, err := s.FindPaths(ctx, q.Paths)
		if err != nil {
			return Subgraph{}, err
		}
		for _, e := range a.Entities {
			ents = append(ents, e.Name)
		}
		for n := range a.Relations {
			names = append(names, n)
		}
	default:
		feed, ok := s.Store.(ChangeFeed)
		if !ok {
			return Subgraph{}, &Error{Op: op, Kind: Invalid, Message: "this store cannot list its relations; export a neighbourhood or a path answer"}
		}
		var v Violations
		q.Filter.Validate("filter.", &v)
		if err := v.Err(op, "invalid filter"); err != nil {
			return Subgraph{}, err
		}
		ctx, cancel := s.bound(ctx)
		defer cancel()
		_, err := feed.Changes(ctx, 0, func(c Changed) {
			for _, l := range c.Links {
				if !l.Deleted && q.Filter.Counts(l) && len(names) < MaxExportRelations {
					names = append(names, l.Name)
				}
			}
		})
		if err != nil {
			return Subgraph{}, err
		}
		if l, ok := s.Store.(EntityLister); ok {
			for after := EntityName(""); ; {
				page, err := l.EntityNames(ctx, after, 5000)
				if err != nil {
					return Subgraph{}, err
				}
				ents = append(ents, page...)
				if len(page) < 5000 || len(ents) > MaxExportRelations {
					break
				}
				after = page[len(page)-1]
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var out Subgraph
	seenSrc := map[SourceName]bool{}
	for start := 0; start < len(names); start += 1000 {
		rels, err := s.Store.GetRelations(ctx, names[start:min(start+1000, len(names))])
		if err != nil {
			return Subgraph{}, err
		}
		for _, n := range names[start:min(start+1000, len(names))] {
			r, ok := rels[n]
			if !ok {
				continue
			}
			out.Relations = append(out.Relations, r)
			ents = append(ents, r.From, r.To)
			for _, e := range []EntityName{r.Via, r.Term} {
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
			return Subgraph{}, err
		}
		for _, n := range ents[start:min(start+1000, len(ents))] {
			if e, ok := got[n]; ok {
				out.Entities = append(out.Entities, e)
			}
		}
	}
	slices.SortFunc(out.Sources, func(a, b Source) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out, nil
}
