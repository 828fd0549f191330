package graphtest

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Oracles for the reads (ListRelations, GetTimeline, FindConnections): each filters and sorts every
// relation plainly, sharing with the code under test only the filter, Strength and HopOrder.

// RandomSources gives a random graph's claims one of n sources each (RandomGraph cites one source for
// everything), so that sources are shared by some entities and not by others, renaming the claims to
// match; it returns the sources, named after seed.
func RandomSources(seed uint64, rels []graph.Relation, n int) []graph.Source {
	var sources []graph.Source
	for i := 0; i < n; i++ {
		sources = append(sources, graph.Source{Name: graph.SourceName(fmt.Sprintf("sources/rs%d-%d", seed, i)),
			Title: fmt.Sprintf("source %d of graph %d", i, seed), Kind: graph.SourceOther})
	}
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range rels {
		for j := range rels[i].Claims {
			src := sources[r.IntN(n)]
			rels[i].Claims[j].Source = src
			rels[i].Claims[j].Name = graph.ClaimNameFor(rels[i].Name, src.Name, fmt.Sprint(j))
		}
	}
	return sources
}

// countedOf returns the relations of e that count under f and go the way d asks.
func countedOf(ents []graph.Entity, rels []graph.Relation, e graph.EntityName, f graph.RelationFilter, d graph.Direction) []graph.Link {
	var out []graph.Link
	for _, l := range Links(ents, rels) {
		if (l.From != e && l.To != e) || !f.Counts(l) {
			continue
		}
		switch {
		case d == graph.DirectionOutgoing && l.From != e && !l.Symmetric:
		case d == graph.DirectionIncoming && l.To != e && !l.Symmetric:
		default:
			out = append(out, l)
		}
	}
	return out
}

func namesOf(ls []graph.Link) []graph.RelationName {
	out := []graph.RelationName{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// OracleRelations is what ListRelations must list, in order: e's relations that count under f and go
// the way d asks; dated ones by start, latest first; then undated ones; ties by name.
func OracleRelations(ents []graph.Entity, rels []graph.Relation, e graph.EntityName, f graph.RelationFilter, d graph.Direction) []graph.RelationName {
	ls := countedOf(ents, rels, e, f, d)
	key := func(l graph.Link) [2]int {
		if !l.Dated {
			return [2]int{1, 0}
		}
		return [2]int{0, -l.Period.Start}
	}
	slices.SortFunc(ls, func(a, b graph.Link) int {
		ka, kb := key(a), key(b)
		return cmp.Or(cmp.Compare(ka[0], kb[0]), cmp.Compare(ka[1], kb[1]), strings.Compare(string(a.Name), string(b.Name)))
	})
	return namesOf(ls)
}

// OracleTimeline is what GetTimeline must show: e's dated relations that count under f by start, then
// end, then name; and its undated ones by name.
func OracleTimeline(ents []graph.Entity, rels []graph.Relation, e graph.EntityName, f graph.RelationFilter) (dated, undated []graph.RelationName) {
	ls := countedOf(ents, rels, e, f, graph.DirectionAny)
	slices.SortFunc(ls, func(a, b graph.Link) int {
		return cmp.Or(cmp.Compare(a.Period.Start, b.Period.Start), cmp.Compare(a.Period.End, b.Period.End), strings.Compare(string(a.Name), string(b.Name)))
	})
	dated, undated = []graph.RelationName{}, []graph.RelationName{}
	for _, l := range ls {
		if l.Dated {
			dated = append(dated, l.Name)
		} else {
			undated = append(undated, l.Name)
		}
	}
	return dated, undated
}

// Shared is what FindConnections must find, each item written on one line.
type Shared struct {
	// Neighbours, ranked: "name inputs=N strength=S input:[relations in HopOrder] ...".
	Neighbours []string
	// Sources, ranked: "name inputs=[...] claims=[...]".
	Sources []string
}

// OracleShared finds the shared neighbours and shared sources of inputs by brute force: every entity
// tried against every input through every relation; every source's relations tried in pairs for a
// chain between two inputs (a source joins inputs by a relation between them, or by two relations
// through one entity). Neighbours are ranked by the inputs they join, then their strength (the weakest join, each as
// strong as its strongest relation), then name; sources by the inputs they speak of, then their claims,
// then name.
func OracleShared(ents []graph.Entity, rels []graph.Relation, inputs []graph.EntityName, f graph.RelationFilter) Shared {
	links := Links(ents, rels)
	isInput := func(n graph.EntityName) bool { return slices.Contains(inputs, n) }
	type neighbour struct {
		line     string
		inputs   int
		strength float64
		name     graph.EntityName
	}
	var ns []neighbour
	for _, x := range ents {
		if isInput(x.Name) {
			continue
		}
		var parts []string
		joined, strength := 0, 1.0
		for _, in := range inputs {
			var between []graph.Link
			for _, l := range links {
				if f.Counts(l) && ((l.From == x.Name && l.To == in) || (l.From == in && l.To == x.Name)) {
					between = append(between, l)
				}
			}
			if len(between) == 0 {
				continue
			}
			joined++
			slices.SortFunc(between, func(a, b graph.Link) int { return graph.HopOrder(f, a, b) })
			best := -1.0
			for _, l := range between {
				best = max(best, f.Strength(l.Support))
			}
			strength = min(strength, best)
			parts = append(parts, fmt.Sprintf("%s:%v", in, namesOf(between)))
		}
		if joined >= 2 {
			ns = append(ns, neighbour{fmt.Sprintf("%s inputs=%d strength=%g %s", x.Name, joined, strength, strings.Join(parts, " ")), joined, strength, x.Name})
		}
	}
	slices.SortFunc(ns, func(a, b neighbour) int {
		return cmp.Or(-cmp.Compare(a.inputs, b.inputs), -cmp.Compare(a.strength, b.strength), strings.Compare(string(a.name), string(b.name)))
	})
	out := Shared{Neighbours: []string{}, Sources: []string{}}
	for _, n := range ns {
		out.Neighbours = append(out.Neighbours, n.line)
	}

	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = graph.DefaultStatuses
	}
	type source struct {
		line           string
		inputs, claims int
		name           graph.SourceName
	}
	all := map[graph.SourceName]bool{}
	for _, r := range rels {
		for _, c := range r.Claims {
			all[c.Source.Name] = true
		}
	}
	var ss []source
	for s := range all {
		// The relations counted with a claim of s counted, and those claims.
		var told []int
		said := map[int][]string{}
		for i, r := range rels {
			if !f.Counts(links[i]) {
				continue
			}
			for _, c := range r.Claims {
				if c.Source.Name == s && slices.Contains(statuses, c.Status) && c.Confidence >= f.MinConfidence {
					said[i] = append(said[i], c.Name)
				}
			}
			if len(said[i]) > 0 {
				told = append(told, i)
			}
		}
		// A relation joins when it is between two inputs, or when it and another relation s tells share an
		// end and their other ends are two inputs.
		joins := map[int]bool{}
		for _, i := range told {
			r := rels[i]
			if isInput(r.From) && isInput(r.To) && r.From != r.To {
				joins[i] = true
			}
			for _, j := range told {
				if i == j {
					continue
				}
				q := rels[j]
				for _, x := range []graph.EntityName{r.From, r.To} {
					if x != q.From && x != q.To {
						continue
					}
					a, b := otherEnd(r, x), otherEnd(q, x)
					if isInput(a) && isInput(b) && a != b {
						joins[i], joins[j] = true, true
					}
				}
			}
		}
		var spoken []graph.EntityName
		var claims []string
		for _, in := range inputs {
			for i := range joins {
				if rels[i].From == in || rels[i].To == in {
					spoken = append(spoken, in)
					break
				}
			}
		}
		for i := range joins {
			claims = append(claims, said[i]...)
		}
		if len(spoken) >= 2 {
			slices.Sort(claims)
			claims = slices.Compact(claims)
			ss = append(ss, source{fmt.Sprintf("%s inputs=%v claims=%v", s, spoken, claims), len(spoken), len(claims), s})
		}
	}
	slices.SortFunc(ss, func(a, b source) int {
		return cmp.Or(-cmp.Compare(a.inputs, b.inputs), -cmp.Compare(a.claims, b.claims), strings.Compare(string(a.name), string(b.name)))
	})
	for _, s := range ss {
		out.Sources = append(out.Sources, s.line)
	}
	return out
}

// Cap keeps the first n of each list and returns how many each lost.
func (s Shared) Cap(n int) (capped Shared, neighboursLeftOut, sourcesLeftOut int) {
	neighboursLeftOut, sourcesLeftOut = max(0, len(s.Neighbours)-n), max(0, len(s.Sources)-n)
	return Shared{Neighbours: s.Neighbours[:min(n, len(s.Neighbours))], Sources: s.Sources[:min(n, len(s.Sources))]},
		neighboursLeftOut, sourcesLeftOut
}

// otherEnd is the end of r that is not x (x when both are).
func otherEnd(r graph.Relation, x graph.EntityName) graph.EntityName {
	if r.From == x {
		return r.To
	}
	return r.From
}

// RankedPath is a route as the evidence oracle weighs it.
type RankedPath struct {
	Path    graph.Path
	Score   float64
	Weakest int
}

// OracleRankedPaths enumerates every route q allows (OraclePaths, with no cap), weighs each by its own
// reading of the claims (every claim of every relation on a hop: a counted status, at least the
// filter's confidence and not retracted for support; DENIED and not retracted against; one best
// confidence per outlet, a source without an outlet its own; support 1 − ∏(1 − c), the hop's score
// support × (1 − against), to 6 decimals; the route as strong as its weakest hop), sorts them by length,
// then score, then the weakest hop's outlets, sources and claims (most first), then by names (with
// q.LongerBy, the routes that many hops longer than the shortest first, by score less 0.25 an extra hop),
// and keeps the first q.MaxPaths. sources gives each source's outlet.
func OracleRankedPaths(ents []graph.Entity, rels []graph.Relation, sources []graph.Source, q graph.PathQuery) []RankedPath {
	all := q
	all.MaxPaths = 1 << 30
	byName := map[graph.RelationName]graph.Relation{}
	for _, r := range rels {
		byName[r.Name] = r
	}
	outlet := map[graph.SourceName]string{}
	for _, s := range sources {
		if o := strings.ToLower(strings.TrimSpace(s.Outlet)); o != "" {
			outlet[s.Name] = "o/" + o
		}
	}
	statuses := q.Filter.Statuses
	if len(statuses) == 0 {
		statuses = graph.DefaultStatuses
	}
	type weighed struct {
		RankedPath
		outlets, sources, claims int
	}
	var ws []weighed
	for _, p := range OraclePaths(ents, rels, all) {
		w := weighed{RankedPath: RankedPath{Path: p}}
		for i, h := range p.Hops {
			pro, con := map[string]float64{}, map[string]float64{}
			srcs := map[graph.SourceName]bool{}
			claims := 0
			for _, st := range h.Relations {
				for _, c := range byName[st.Relation].Claims {
					if !c.Retracted.IsZero() {
						continue
					}
					o, ok := outlet[c.Source.Name]
					if !ok {
						o = "s/" + string(c.Source.Name)
					}
					switch {
					case c.Status == graph.StatusDenied:
						if c.Confidence > con[o] {
							con[o] = c.Confidence
						}
					case slices.Contains(statuses, c.Status) && c.Confidence >= q.Filter.MinConfidence:
						claims++
						srcs[c.Source.Name] = true
						if c.Confidence > pro[o] {
							pro[o] = c.Confidence
						}
					}
				}
			}
			either := func(m map[string]float64) float64 {
				keys := slices.Sorted(maps.Keys(m))
				none := 1.0
				for _, k := range keys {
					none *= 1 - m[k]
				}
				return 1 - none
			}
			score := math.Round(either(pro)*(1-either(con))*1e6) / 1e6
			if i == 0 || score < w.Score {
				w.Score, w.Weakest, w.outlets, w.sources, w.claims = score, i, len(pro), len(srcs), claims
			}
		}
		ws = append(ws, w)
	}
	byEvidence := func(a, b weighed) int {
		return cmp.Or(cmp.Compare(a.Path.Len(), b.Path.Len()), -cmp.Compare(a.Score, b.Score), -cmp.Compare(a.outlets, b.outlets),
			-cmp.Compare(a.sources, b.sources), -cmp.Compare(a.claims, b.claims), graph.ComparePaths(a.Path, b.Path))
	}
	slices.SortStableFunc(ws, byEvidence)
	if q.LongerBy > 0 && len(ws) > 0 {
		// Routes up to LongerBy hops longer than the shortest, each extra hop costing 0.25 of score, ranked
		// together ahead of the rest.
		shortest := ws[0].Path.Len()
		var near, far []weighed
		for _, w := range ws {
			if w.Path.Len() <= shortest+q.LongerBy {
				near = append(near, w)
			} else {
				far = append(far, w)
			}
		}
		cost := func(w weighed) float64 {
			return math.Round((w.Score-0.25*float64(w.Path.Len()-shortest))*1e6) / 1e6
		}
		slices.SortStableFunc(near, func(a, b weighed) int { return cmp.Or(-cmp.Compare(cost(a), cost(b)), byEvidence(a, b)) })
		ws = append(near, far...)
	}
	var out []RankedPath
	for _, w := range ws[:min(len(ws), q.MaxPaths)] {
		out = append(out, w.RankedPath)
	}
	return out
}
