package walk

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// CommonNeighbor is a shared neighbour before its details are read.
type CommonNeighbor struct {
	Name     graph.EntityName
	Joins    [][]graph.Link // by input; nil where it is not joined
	Inputs   int
	Strength float64
}

// CommonNeighbors ranks the entities joined under f to at least two of inputs (never an input itself),
// given each input's links: by how many inputs each joins, then by its strength (the weakest of its
// joins, each as strong as its strongest relation), then by name. Each join lists its relations in
// HopOrder.
func CommonNeighbors(inputs []graph.EntityName, links map[graph.EntityName][]graph.Link, f graph.RelationFilter) []CommonNeighbor {
	isInput := map[graph.EntityName]int{}
	for i, n := range inputs {
		isInput[n] = i
	}
	byName := map[graph.EntityName]*CommonNeighbor{}
	for i, in := range inputs {
		seen := map[graph.RelationName]bool{}
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
				n = &CommonNeighbor{Name: other, Joins: make([][]graph.Link, len(inputs))}
				byName[other] = n
			}
			if n.Joins[i] == nil {
				n.Inputs++
			}
			n.Joins[i] = append(n.Joins[i], l)
		}
	}
	var out []CommonNeighbor
	for _, n := range byName {
		if n.Inputs < 2 {
			continue
		}
		n.Strength = 1
		for _, ls := range n.Joins {
			if ls == nil {
				continue
			}
			slices.SortFunc(ls, func(a, b graph.Link) int { return graph.HopOrder(f, a, b) })
			n.Strength = min(n.Strength, f.Strength(ls[0].Support))
		}
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b CommonNeighbor) int {
		return cmp.Or(-cmp.Compare(a.Inputs, b.Inputs), -cmp.Compare(a.Strength, b.Strength), strings.Compare(string(a.Name), string(b.Name)))
	})
	return out
}

// CommonSource is a shared source before its details are read.
type CommonSource struct {
	Name   graph.SourceName
	Inputs []bool                        // by input
	Claims map[string]graph.RelationName // claim name → relation
	Count  int
}

// CommonSources ranks the sources whose claims join at least two of inputs: a claim joins two inputs
// when its relation is between them, or when it links one to an entity that another claim of the same
// source links to another (a chain of two relations the source alone tells). A source that speaks of two
// inputs in unrelated relations does not join them. Only relations that count under f and claims with a
// status f counts (DefaultStatuses when it names none) and at least its MinConfidence are read. Each
// source lists the inputs it joins and its joining claims; sources are ranked by how many inputs they
// join, then by how many claims, then by name. claims holds each relation's claims (Store.ClaimSources).
func CommonSources(inputs []graph.EntityName, links map[graph.EntityName][]graph.Link, claims map[graph.RelationName][]graph.Claim, f graph.RelationFilter) []CommonSource {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = graph.DefaultStatuses
	}
	isInput := map[graph.EntityName]int{}
	for i, n := range inputs {
		isInput[n] = i
	}
	// through[source][x] is what the source's claims tie to entity x: the inputs at their other ends, and
	// the claims.
	type tie struct {
		inputs []bool
		claims map[string]graph.RelationName
	}
	through := map[graph.SourceName]map[graph.EntityName]*tie{}
	add := func(src graph.SourceName, x graph.EntityName, in int, claim string, rel graph.RelationName) {
		m := through[src]
		if m == nil {
			m = map[graph.EntityName]*tie{}
			through[src] = m
		}
		t := m[x]
		if t == nil {
			t = &tie{inputs: make([]bool, len(inputs)), claims: map[string]graph.RelationName{}}
			if i, ok := isInput[x]; ok {
				t.inputs[i] = true // an input is tied to itself
			}
			m[x] = t
		}
		t.inputs[in] = true
		t.claims[claim] = rel
	}
	seen := map[graph.RelationName]bool{}
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
				if i, ok := isInput[l.From]; ok {
					add(c.Source.Name, l.To, i, c.Name, l.Name)
				}
				if i, ok := isInput[l.To]; ok {
					add(c.Source.Name, l.From, i, c.Name, l.Name)
				}
			}
		}
	}
	bySource := map[graph.SourceName]*CommonSource{}
	for src, m := range through {
		for _, t := range m {
			n := 0
			for _, b := range t.inputs {
				if b {
					n++
				}
			}
			if n < 2 {
				continue
			}
			s := bySource[src]
			if s == nil {
				s = &CommonSource{Name: src, Inputs: make([]bool, len(inputs)), Claims: map[string]graph.RelationName{}}
				bySource[src] = s
			}
			for i, b := range t.inputs {
				s.Inputs[i] = s.Inputs[i] || b
			}
			maps.Copy(s.Claims, t.claims)
		}
	}
	var out []CommonSource
	for _, s := range bySource {
		for _, b := range s.Inputs {
			if b {
				s.Count++
			}
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b CommonSource) int {
		return cmp.Or(-cmp.Compare(a.Count, b.Count), -cmp.Compare(len(a.Claims), len(b.Claims)), strings.Compare(string(a.Name), string(b.Name)))
	})
	return out
}
