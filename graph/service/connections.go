package service

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// FindConnections says what the entities have in common: the entities joined to at least two of them
// (CommonNeighbors), the sources whose claims join at least two of them (CommonSources), each
// list capped at q.MaxShared with a count of the rest, and the shortest route between each pair (the
// function FindPaths with one path, either direction, the same filter).
func (s *Service) FindConnections(ctx context.Context, q graph.ConnectionsQuery) (graph.Connections, error) {
	const op = "service.FindConnections"
	q.Normalize()
	if err := q.Validate(); err != nil {
		return graph.Connections{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	fields := make([]string, len(q.Entities))
	for i := range fields {
		fields[i] = graph.Indexed("entities", i)
	}
	r, err := s.sourceAndEntities(ctx, fields, q.Entities)
	if err != nil {
		return graph.Connections{}, err
	}
	src, ents := r.src, r.ents
	var v graph.Violations
	inputs := make([]graph.EntityName, len(ents))
	first := map[graph.EntityName]int{}
	for i, e := range ents {
		inputs[i] = e.Name
		if j, dup := first[e.Name]; dup {
			v.Add(graph.Indexed("entities", i), "names the same entity as entities[%d] (%s)", j, e.Name)
		} else {
			first[e.Name] = i
		}
	}
	if err := v.Err(op, "invalid connections query"); err != nil {
		return graph.Connections{}, err
	}
	budget := s.Budget
	if budget == 0 {
		budget = graph.DefaultWorkBudget
	}
	// Under a source filter, relations count by the claims it keeps, for joins and routes alike.
	var linkSrc graph.LinkSource = src
	if !q.Sources.IsZero() {
		linkSrc = bySources{src: src, view: src, f: q.Sources}
	}
	links, err := linkSrc.Links(ctx, inputs)
	if err != nil {
		return graph.Connections{}, err
	}
	read := 0
	var counted []graph.RelationName
	seen := map[graph.RelationName]bool{}
	for _, in := range inputs {
		read += len(links[in])
		for _, l := range links[in] {
			if !seen[l.Name] && q.Filter.Counts(l) {
				seen[l.Name] = true
				counted = append(counted, l.Name)
			}
		}
	}
	if read > budget {
		return graph.Connections{}, &graph.Error{Op: op, Kind: graph.ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
			Message: "the entities asked about have more than " + strconv.Itoa(budget) + " relations together; ask about fewer of them"}
	}

	// Shared neighbours, shared sources and routes need separate reads: make them at once.
	ans := graph.Connections{Entities: ents}
	var neighbours []walk.CommonNeighbor
	var sources []walk.CommonSource
	routes := make([]graph.Route, 0, len(inputs)*(len(inputs)-1)/2)
	for i := range inputs {
		for j := i + 1; j < len(inputs); j++ {
			routes = append(routes, graph.Route{From: inputs[i], To: inputs[j]})
		}
	}
	work := []func() error{
		func() error { neighbours = walk.CommonNeighbors(inputs, links, q.Filter); return nil },
		func() error {
			claims, err := s.claimSources(ctx, src, counted, q.Sources)
			if err != nil {
				return err
			}
			sources = walk.CommonSources(inputs, links, claims, q.Filter)
			return nil
		},
	}
	for k := range routes {
		work = append(work, func() error {
			pq := graph.PathQuery{From: routes[k].From, To: routes[k].To, MaxPaths: 1, MaxDepth: q.MaxDepth, Filter: q.Filter}
			paths, err := walk.FindPaths(ctx, linkSrc, pq, budget)
			if err == nil && len(paths) > 0 {
				routes[k].Path = &paths[0]
			}
			return err
		})
	}
	if err := parallel(work...); err != nil {
		return graph.Connections{}, err
	}
	ans.Routes = routes
	if len(neighbours) == 0 && len(sources) == 0 && !slices.ContainsFunc(routes, func(r graph.Route) bool { return r.Path != nil }) {
		ans.IfRelaxed = relaxed(q.Filter, func(f graph.RelationFilter) (int, error) {
			n := len(walk.CommonNeighbors(inputs, links, f))
			for _, r := range routes {
				paths, err := walk.FindPaths(ctx, linkSrc, graph.PathQuery{From: r.From, To: r.To, MaxPaths: 1, MaxDepth: q.MaxDepth, Filter: f}, budget)
				if err != nil {
					return 0, err
				}
				n += len(paths)
			}
			return n, nil
		})
	}
	if len(neighbours) > q.MaxShared {
		ans.SharedLeftOut = len(neighbours) - q.MaxShared
		neighbours = neighbours[:q.MaxShared]
	}
	if len(sources) > q.MaxShared {
		ans.SourcesLeftOut = len(sources) - q.MaxShared
		sources = sources[:q.MaxShared]
	}

	// The evidence: headers of the joins' relations, the claims of the shared sources' relations and of
	// the routes' relations; then the entities they name.
	var joinRels, evidence, routeRels []graph.RelationName
	var named, onRoutes []graph.EntityName
	for _, n := range neighbours {
		named = append(named, n.Name)
		for _, ls := range n.Joins {
			for _, l := range ls {
				joinRels = append(joinRels, l.Name)
			}
		}
	}
	for _, sh := range sources {
		for _, r := range sh.Claims {
			evidence = append(evidence, r)
		}
	}
	for _, r := range routes {
		if r.Path == nil {
			continue
		}
		onRoutes = append(onRoutes, r.Path.Entities...)
		for _, h := range r.Path.Hops {
			for _, st := range h.Relations {
				routeRels = append(routeRels, st.Relation)
			}
		}
	}
	var headers map[graph.RelationName]graph.RelationHeader
	var evidenceRels map[graph.RelationName]graph.Relation
	err = parallel(
		func() (err error) { headers, err = src.RelationHeaders(ctx, joinRels); return err },
		func() (err error) {
			evidenceRels, err = src.GetRelations(ctx, distinct(append(evidence, routeRels...)))
			return err
		},
	)
	if err != nil {
		return graph.Connections{}, err
	}
	// What the shared sources' claims name is known once their relations are read.
	related := onRoutes
	for _, sh := range sources {
		for claim, rn := range sh.Claims {
			r := evidenceRels[rn]
			related = append(related, r.From, r.To)
			for _, c := range r.Claims {
				if c.Name == claim {
					related = append(related, c.SaidBy)
				}
			}
		}
	}
	entities, err := s.Store.GetEntities(ctx, distinct(append(named, related...)))
	if err != nil {
		return graph.Connections{}, err
	}
	for _, n := range neighbours {
		sn := graph.SharedNeighbor{Entity: entities[n.Name], Strength: n.Strength}
		if sn.Entity.Name == "" {
			sn.Entity.Name = n.Name
		}
		for i, ls := range n.Joins {
			if ls == nil {
				continue
			}
			j := graph.Join{Input: inputs[i]}
			for _, l := range ls {
				j.Relations = append(j.Relations, edgeOf(headers[l.Name], l, q.Filter))
			}
			sn.Joins = append(sn.Joins, j)
		}
		ans.Shared = append(ans.Shared, sn)
	}
	for _, sh := range sources {
		ss := graph.SharedSource{Source: graph.Source{Name: sh.Name}}
		for i, b := range sh.Inputs {
			if b {
				ss.Inputs = append(ss.Inputs, inputs[i])
			}
		}
		for claim, rn := range sh.Claims {
			r := evidenceRels[rn]
			for _, c := range r.Claims {
				if c.Name != claim {
					continue
				}
				ss.Source = c.Source
				c.Source = graph.Source{}
				ss.Claims = append(ss.Claims, graph.SourceClaim{Claim: c, Relation: graph.RelationRef{Name: r.Name, Type: r.Type, From: r.From, To: r.To}})
			}
		}
		slices.SortFunc(ss.Claims, func(a, b graph.SourceClaim) int { return strings.Compare(a.Claim.Name, b.Claim.Name) })
		ans.Sources = append(ans.Sources, ss)
	}
	ans.Relations = make(map[graph.RelationName]graph.Relation, len(routeRels))
	for _, n := range routeRels {
		if r, ok := evidenceRels[n]; ok {
			ans.Relations[n] = r
		}
	}
	for _, n := range distinct(related) {
		if e, ok := entities[n]; ok {
			ans.Related = append(ans.Related, e)
		}
	}
	return ans, nil
}

// edgeOf is a relation drawn between a shared neighbour and an input: its header, and its statuses and
// strength under f. When the header is missing (the store lost it since), the link stands in.
func edgeOf(h graph.RelationHeader, l graph.Link, f graph.RelationFilter) graph.Edge {
	if h.Relation.Name == "" {
		h = graph.RelationHeader{Relation: graph.Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To}, Support: l.Support}
	}
	return graph.Edge{RelationHeader: h, Statuses: graph.StatusesOf(h.Support), Confidence: f.Strength(h.Support)}
}

// distinct sorts names and drops repeats and empty ones.
func distinct[N ~string](names []N) []N {
	out := slices.DeleteFunc(slices.Clone(names), func(n N) bool { return n == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

// claimSources is the claims of the relations named, each with its source's name only
// (Store.ClaimSources), or under a source filter the claims it keeps, read whole through view.
func (s *Service) claimSources(ctx context.Context, view graph.View, rels []graph.RelationName, f graph.SourceFilter) (map[graph.RelationName][]graph.Claim, error) {
	if f.IsZero() {
		return s.Store.ClaimSources(ctx, rels)
	}
	got, err := view.GetRelations(ctx, rels)
	if err != nil {
		return nil, err
	}
	out := make(map[graph.RelationName][]graph.Claim, len(got))
	for n, r := range got {
		out[n] = f.Kept(r)
	}
	return out, nil
}
