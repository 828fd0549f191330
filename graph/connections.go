package graph

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
)

// Limits on connection queries.
const (
	MinConnectionEntities = 2
	MaxConnectionEntities = 10
	DefaultMaxShared      = 20
	MaxMaxShared          = 100
)

// ConnectionsQuery asks what some entities have in common.
type ConnectionsQuery struct {
	Entities  []string // resource names, or names or aliases each naming one entity
	Filter    RelationFilter
	MaxShared int // 0: DefaultMaxShared; caps shared neighbours and shared sources alike
	MaxDepth  int // 0: DefaultMaxDepth; the longest route between two entities
}

// Normalize fills in defaults.
func (q *ConnectionsQuery) Normalize() {
	if q.MaxShared == 0 {
		q.MaxShared = DefaultMaxShared
	}
	if q.MaxDepth == 0 {
		q.MaxDepth = DefaultMaxDepth
	}
}

// Validate reports every problem with the query as an Invalid error with field violations; the
// entities are only checked for size here (Resolve finds them).
func (q ConnectionsQuery) Validate() error {
	var v Violations
	if CheckCount(&v, "entities", len(q.Entities), MaxConnectionEntities) {
		if len(q.Entities) < MinConnectionEntities {
			v.Add("entities", "%d given; at least %d", len(q.Entities), MinConnectionEntities)
		}
		for i, e := range q.Entities {
			switch e = strings.TrimSpace(e); {
			case e == "":
				v.Add(indexed("entities", i), "required: a resource name such as actors/lutfur-rahman, or a name")
			case len(e) > MaxQueryLength:
				v.Add(indexed("entities", i), "%d bytes; at most %d", len(e), MaxQueryLength)
			}
		}
	}
	if q.MaxShared < 1 || q.MaxShared > MaxMaxShared {
		v.Add("max_shared", "must be between 1 and %d, got %d", MaxMaxShared, q.MaxShared)
	}
	if q.MaxDepth < 1 || q.MaxDepth > MaxMaxDepth {
		v.Add("max_depth", "must be between 1 and %d, got %d", MaxMaxDepth, q.MaxDepth)
	}
	q.Filter.Validate("filter.", &v)
	return v.Err("FindConnections", "invalid connections query")
}

// Join is every counted relation between a shared neighbour and one entity asked about.
type Join struct {
	Input     EntityName
	Relations []Edge // in HopOrder
}

// SharedNeighbor is an entity joined to at least two of the entities asked about.
type SharedNeighbor struct {
	Entity Entity
	Joins  []Join // in the order the entities were asked
	// Strength is the weakest of its joins, each as strong as its strongest relation (RelationFilter.Strength).
	Strength float64
}

// SharedSource is a source whose claims back relations of at least two of the entities asked about.
type SharedSource struct {
	Source Source
	Inputs []EntityName  // in the order asked
	Claims []SourceClaim // by name
}

// Route is the shortest route between two entities asked about; Path is nil when there is none within
// the query's depth.
type Route struct {
	From, To EntityName
	Path     *Path
}

// Connections is the answer to a ConnectionsQuery.
type Connections struct {
	Entities       []Entity // as asked
	Shared         []SharedNeighbor
	SharedLeftOut  int
	Sources        []SharedSource
	SourcesLeftOut int
	Routes         []Route                   // each pair, in the order asked
	Relations      map[RelationName]Relation // every relation on a route, with its claims
	// Related is every entity the routes and the shared sources' claims name, by name.
	Related []Entity
}

// sharedNeighbor is a shared neighbour before its details are read.
type sharedNeighbor struct {
	name     EntityName
	joins    [][]Link // by input; nil where it is not joined
	inputs   int
	strength float64
}

// sharedNeighbors ranks the entities joined under f to at least two of inputs (never an input itself),
// given each input's links: by how many inputs each joins, then by its strength (the weakest of its
// joins, each as strong as its strongest relation), then by name. Each join lists its relations in
// HopOrder.
func sharedNeighbors(inputs []EntityName, links map[EntityName][]Link, f RelationFilter) []sharedNeighbor {
	isInput := map[EntityName]int{}
	for i, n := range inputs {
		isInput[n] = i
	}
	byName := map[EntityName]*sharedNeighbor{}
	for i, in := range inputs {
		seen := map[RelationName]bool{}
		for _, l := range links[in] {
			if seen[l.Name] || !f.Counts(l) {
				continue
			}
			seen[l.Name] = true
			other := l.To
			if other == in {
				other = l.From
			}
			if _, ok := isInput[other]; ok {
				continue // relations between inputs are routes
			}
			n := byName[other]
			if n == nil {
				n = &sharedNeighbor{name: other, joins: make([][]Link, len(inputs))}
				byName[other] = n
			}
			if n.joins[i] == nil {
				n.inputs++
			}
			n.joins[i] = append(n.joins[i], l)
		}
	}
	var out []sharedNeighbor
	for _, n := range byName {
		if n.inputs < 2 {
			continue
		}
		n.strength = 1
		for _, ls := range n.joins {
			if ls == nil {
				continue
			}
			slices.SortFunc(ls, func(a, b Link) int { return HopOrder(f, a, b) })
			n.strength = min(n.strength, f.Strength(ls[0].Support))
		}
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b sharedNeighbor) int {
		return cmp.Or(-cmp.Compare(a.inputs, b.inputs), -cmp.Compare(a.strength, b.strength), strings.Compare(string(a.name), string(b.name)))
	})
	return out
}

// sharedSource is a shared source before its details are read.
type sharedSource struct {
	name   SourceName
	inputs []bool                  // by input
	claims map[string]RelationName // claim name → relation
	count  int
}

// sharedSources ranks the sources whose claims back relations of at least two of inputs: relations
// that count under f, claims with a status f counts (DefaultStatuses when it names none) and at least its
// MinConfidence. Ranked by how many inputs each backs relations of, then by how many claims, then by
// name. claims holds each relation's claims (Store.ClaimSources).
func sharedSources(inputs []EntityName, links map[EntityName][]Link, claims map[RelationName][]Claim, f RelationFilter) []sharedSource {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	isInput := map[EntityName]int{}
	for i, n := range inputs {
		isInput[n] = i
	}
	bySource := map[SourceName]*sharedSource{}
	seen := map[RelationName]bool{}
	for _, in := range inputs {
		for _, l := range links[in] {
			if seen[l.Name] || !f.Counts(l) {
				continue
			}
			seen[l.Name] = true
			for _, c := range claims[l.Name] {
				if !slices.Contains(statuses, c.Status) || c.Confidence < f.MinConfidence || c.Source.Name == "" {
					continue
				}
				s := bySource[c.Source.Name]
				if s == nil {
					s = &sharedSource{name: c.Source.Name, inputs: make([]bool, len(inputs)), claims: map[string]RelationName{}}
					bySource[c.Source.Name] = s
				}
				s.claims[c.Name] = l.Name
				for _, end := range []EntityName{l.From, l.To} {
					if i, ok := isInput[end]; ok {
						s.inputs[i] = true
					}
				}
			}
		}
	}
	var out []sharedSource
	for _, s := range bySource {
		for _, b := range s.inputs {
			if b {
				s.count++
			}
		}
		if s.count >= 2 {
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, b sharedSource) int {
		return cmp.Or(-cmp.Compare(a.count, b.count), -cmp.Compare(len(a.claims), len(b.claims)), strings.Compare(string(a.name), string(b.name)))
	})
	return out
}

// FindConnections says what the entities have in common: the entities joined to at least two of them
// (sharedNeighbors), the sources that back relations of at least two of them (sharedSources), each
// list capped at q.MaxShared with a count of the rest, and the shortest route between each pair (the
// function FindPaths with one path, either direction, the same filter).
func (s *Service) FindConnections(ctx context.Context, q ConnectionsQuery) (Connections, error) {
	const op = "FindConnections"
	q.Normalize()
	if err := q.Validate(); err != nil {
		return Connections{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	fields := make([]string, len(q.Entities))
	for i := range fields {
		fields[i] = indexed("entities", i)
	}
	r, err := s.sourceAndEntities(ctx, fields, q.Entities)
	if err != nil {
		return Connections{}, err
	}
	src, ents := r.src, r.ents
	var v Violations
	inputs := make([]EntityName, len(ents))
	first := map[EntityName]int{}
	for i, e := range ents {
		inputs[i] = e.Name
		if j, dup := first[e.Name]; dup {
			v.Add(indexed("entities", i), "names the same entity as entities[%d] (%s)", j, e.Name)
		} else {
			first[e.Name] = i
		}
	}
	if err := v.Err(op, "invalid connections query"); err != nil {
		return Connections{}, err
	}
	budget := s.Budget
	if budget == 0 {
		budget = DefaultWorkBudget
	}
	links, err := src.Links(ctx, inputs)
	if err != nil {
		return Connections{}, err
	}
	read := 0
	var counted []RelationName
	seen := map[RelationName]bool{}
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
		return Connections{}, &Error{Op: op, Kind: ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
			Message: "the entities asked about have more than " + strconv.Itoa(budget) + " relations together; ask about fewer of them"}
	}

	// Shared neighbours, shared sources and routes need separate reads: make them at once.
	ans := Connections{Entities: ents}
	var neighbours []sharedNeighbor
	var sources []sharedSource
	routes := make([]Route, 0, len(inputs)*(len(inputs)-1)/2)
	for i := range inputs {
		for j := i + 1; j < len(inputs); j++ {
			routes = append(routes, Route{From: inputs[i], To: inputs[j]})
		}
	}
	work := []func() error{
		func() error { neighbours = sharedNeighbors(inputs, links, q.Filter); return nil },
		func() error {
			claims, err := s.Store.ClaimSources(ctx, counted)
			if err != nil {
				return err
			}
			sources = sharedSources(inputs, links, claims, q.Filter)
			return nil
		},
	}
	for k := range routes {
		work = append(work, func() error {
			pq := PathQuery{From: routes[k].From, To: routes[k].To, MaxPaths: 1, MaxDepth: q.MaxDepth, Filter: q.Filter}
			paths, err := FindPaths(ctx, src, pq, budget)
			if err == nil && len(paths) > 0 {
				routes[k].Path = &paths[0]
			}
			return err
		})
	}
	if err := parallel(work...); err != nil {
		return Connections{}, err
	}
	ans.Routes = routes
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
	var joinRels, evidence, routeRels []RelationName
	var named, onRoutes []EntityName
	for _, n := range neighbours {
		named = append(named, n.name)
		for _, ls := range n.joins {
			for _, l := range ls {
				joinRels = append(joinRels, l.Name)
			}
		}
	}
	for _, sh := range sources {
		for _, r := range sh.claims {
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
	var headers map[RelationName]RelationHeader
	var evidenceRels map[RelationName]Relation
	err = parallel(
		func() (err error) { headers, err = s.relationHeaders(ctx, src, joinRels); return err },
		func() (err error) {
			evidenceRels, err = s.getRelations(ctx, src, distinct(append(evidence, routeRels...)))
			return err
		},
	)
	if err != nil {
		return Connections{}, err
	}
	// What the shared sources' claims name is known once their relations are read.
	related := onRoutes
	for _, sh := range sources {
		for claim, rn := range sh.claims {
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
		return Connections{}, err
	}
	for _, n := range neighbours {
		sn := SharedNeighbor{Entity: entities[n.name], Strength: n.strength}
		if sn.Entity.Name == "" {
			sn.Entity.Name = n.name
		}
		for i, ls := range n.joins {
			if ls == nil {
				continue
			}
			j := Join{Input: inputs[i]}
			for _, l := range ls {
				j.Relations = append(j.Relations, edgeOf(headers[l.Name], l, q.Filter))
			}
			sn.Joins = append(sn.Joins, j)
		}
		ans.Shared = append(ans.Shared, sn)
	}
	for _, sh := range sources {
		ss := SharedSource{Source: Source{Name: sh.name}}
		for i, b := range sh.inputs {
			if b {
				ss.Inputs = append(ss.Inputs, inputs[i])
			}
		}
		for claim, rn := range sh.claims {
			r := evidenceRels[rn]
			for _, c := range r.Claims {
				if c.Name != claim {
					continue
				}
				ss.Source = c.Source
				c.Source = Source{}
				ss.Claims = append(ss.Claims, SourceClaim{Claim: c, Relation: RelationRef{Name: r.Name, Type: r.Type, From: r.From, To: r.To}})
			}
		}
		slices.SortFunc(ss.Claims, func(a, b SourceClaim) int { return strings.Compare(a.Claim.Name, b.Claim.Name) })
		ans.Sources = append(ans.Sources, ss)
	}
	ans.Relations = make(map[RelationName]Relation, len(routeRels))
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
func edgeOf(h RelationHeader, l Link, f RelationFilter) Edge {
	if h.Relation.Name == "" {
		h = RelationHeader{Relation: Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To}, Support: l.Support}
	}
	return Edge{RelationHeader: h, Statuses: statusesOf(h.Support), Confidence: f.Strength(h.Support)}
}

// distinct sorts names and drops repeats and empty ones.
func distinct[N ~string](names []N) []N {
	out := slices.DeleteFunc(slices.Clone(names), func(n N) bool { return n == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
