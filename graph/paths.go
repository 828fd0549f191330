package graph

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
)

// LinkSource gives the links of entities, many at a time. A Store is one.
type LinkSource interface {
	Links(ctx context.Context, entities []EntityName) (map[EntityName][]Link, error)
}

// FindPaths returns the q.MaxPaths shortest simple paths from q.From to q.To of at most q.MaxDepth hops,
// using only links that q.Filter counts. Paths are ordered by length, then hop by hop by the name of the
// entity reached and then the name of the relation walked; no two are the same. The query must be
// normalised and valid.
//
// The search grows two balls, one around each end, one level per call to src (the smaller frontier
// first), until every path no longer than the two radii together is known and either enough paths are
// found or the depth cap is reached; then it runs Yen's algorithm on the links read so far, pruned to
// entities close enough to both ends. It stops with ResourceExhausted once it has read more than budget
// links, and with DeadlineExceeded when ctx expires.
func FindPaths(ctx context.Context, src LinkSource, q PathQuery, budget int) ([]Path, error) {
	const op = "FindPaths"
	x := &explorer{q: q, src: src, budget: budget,
		links: map[EntityName][]Link{},
		ds:    map[EntityName]int{q.From: 0}, dt: map[EntityName]int{q.To: 0},
		frontS: []EntityName{q.From}, frontT: []EntityName{q.To}}
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Op: op, Kind: DeadlineExceeded, Message: "the path query ran out of time", Err: err}
		}
		complete := len(x.frontS) == 0 || len(x.frontT) == 0
		bound := x.a + x.b
		if complete || bound >= q.MaxDepth {
			return x.yen(q.MaxDepth), nil
		}
		if bound > 0 {
			if paths := x.yen(bound); len(paths) >= q.MaxPaths {
				return paths, nil
			}
		}
		forward := len(x.frontS) <= len(x.frontT)
		if err := x.expand(ctx, forward); err != nil {
			return nil, err
		}
	}
}

// explorer holds the state of one path search.
type explorer struct {
	q      PathQuery
	src    LinkSource
	budget int
	read   int

	links          map[EntityName][]Link // counted links of every expanded entity
	ds, dt         map[EntityName]int    // exact hop distances from From and to To, where known
	a, b           int                   // levels expanded around From and around To
	frontS, frontT []EntityName          // entities at distance a from From (b to To) not yet expanded
}

// walk returns the entity reached by walking l from u, forwards (away from From) when out is true.
func (x *explorer) walk(l Link, u EntityName, out bool) (EntityName, bool) {
	other := l.To
	if l.To == u {
		other = l.From
	}
	if !x.q.Directed || l.Symmetric {
		return other, true
	}
	if out {
		return other, l.From == u
	}
	return other, l.To == u
}

func (x *explorer) expand(ctx context.Context, forward bool) error {
	front, dist, level, stop := x.frontS, x.ds, &x.a, x.q.To
	if !forward {
		front, dist, level, stop = x.frontT, x.dt, &x.b, x.q.From
	}
	var need []EntityName
	for _, u := range front {
		if _, ok := x.links[u]; !ok {
			need = append(need, u)
		}
	}
	if len(need) > 0 {
		got, err := x.src.Links(ctx, need)
		if err != nil {
			return err
		}
		for _, u := range need {
			x.read += len(got[u])
			kept := make([]Link, 0, len(got[u]))
			for _, l := range got[u] {
				if x.q.Filter.Counts(l) {
					kept = append(kept, l)
				}
			}
			x.links[u] = kept
		}
		if x.read > x.budget {
			return &Error{Op: "FindPaths", Kind: ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the path query would read more than " + strconv.Itoa(x.budget) +
					" relations; ask for a smaller max_depth or narrow the filter"}
		}
	}
	var next []EntityName
	for _, u := range front {
		for _, l := range x.links[u] {
			w, ok := x.walk(l, u, forward)
			if !ok {
				continue
			}
			if _, seen := dist[w]; !seen {
				dist[w] = *level + 1
				if w != stop {
					next = append(next, w)
				}
			}
		}
	}
	*level++
	slices.Sort(next)
	if forward {
		x.frontS = next
	} else {
		x.frontT = next
	}
	return nil
}

// yen runs Yen's k-shortest simple paths on the links read so far, limited to paths of at most bound hops.
func (x *explorer) yen(bound int) []Path {
	lower := func(d map[EntityName]int, u EntityName, level int) int {
		if v, ok := d[u]; ok {
			return v
		}
		return level + 1
	}
	near := func(u EntityName) bool { return lower(x.ds, u, x.a)+lower(x.dt, u, x.b) <= bound }
	g := newSubgraph(x.q.Directed)
	seen := map[RelationName]bool{}
	for _, ls := range x.links {
		for _, l := range ls {
			if !seen[l.Name] && near(l.From) && near(l.To) {
				seen[l.Name] = true
				g.add(l)
			}
		}
	}
	return g.kShortest(x.q.From, x.q.To, x.q.MaxPaths, bound)
}

// subgraph is an in-memory graph for Yen's algorithm, with adjacency sorted for the tie-break.
type subgraph struct {
	directed bool
	out, in  map[EntityName][]arc
	sorted   bool
}

// arc is a relation walked in one direction.
type arc struct {
	to      EntityName // the entity reached (for in-arcs: the entity left)
	rel     RelationName
	forward bool
}

func newSubgraph(directed bool) *subgraph {
	return &subgraph{directed: directed, out: map[EntityName][]arc{}, in: map[EntityName][]arc{}}
}

func (g *subgraph) add(l Link) {
	g.arc(l.From, l.To, l.Name, true)
	if !g.directed || l.Symmetric {
		g.arc(l.To, l.From, l.Name, false)
	}
	g.sorted = false
}

func (g *subgraph) arc(u, w EntityName, rel RelationName, forward bool) {
	g.out[u] = append(g.out[u], arc{to: w, rel: rel, forward: forward})
	g.in[w] = append(g.in[w], arc{to: u, rel: rel, forward: forward})
}

func compareArcs(p, q arc) int {
	return cmp.Or(strings.Compare(string(p.to), string(q.to)), strings.Compare(string(p.rel), string(q.rel)))
}

func (g *subgraph) sort() {
	if g.sorted {
		return
	}
	for _, as := range g.out {
		slices.SortFunc(as, compareArcs)
	}
	g.sorted = true
}

type arcKey struct {
	from EntityName
	rel  RelationName
}

// shortest returns the first path from s to t in path order, avoiding banned entities and arcs, of at
// most limit hops; ok is false when there is none.
func (g *subgraph) shortest(s, t EntityName, bannedNodes map[EntityName]bool, bannedArcs map[arcKey]bool, limit int) (Path, bool) {
	dist := map[EntityName]int{t: 0}
	level := []EntityName{t}
	for d := 1; d <= limit && len(level) > 0; d++ {
		var next []EntityName
		for _, w := range level {
			for _, a := range g.in[w] {
				u := a.to
				if _, ok := dist[u]; ok || bannedNodes[u] || bannedArcs[arcKey{u, a.rel}] {
					continue
				}
				dist[u] = d
				next = append(next, u)
			}
		}
		if _, ok := dist[s]; ok {
			break
		}
		level = next
	}
	d, ok := dist[s]
	if !ok {
		return Path{}, false
	}
	p := Path{Entities: []EntityName{s}}
	for u := s; d > 0; d-- {
		for _, a := range g.out[u] {
			if dd, ok := dist[a.to]; ok && dd == d-1 && !bannedNodes[a.to] && !bannedArcs[arcKey{u, a.rel}] {
				p.Entities = append(p.Entities, a.to)
				p.Steps = append(p.Steps, PathStep{Relation: a.rel, Forward: a.forward})
				u = a.to
				break
			}
		}
	}
	return p, true
}

// ComparePaths orders paths by length, then hop by hop by the name of the entity reached, then the name
// of the relation walked.
func ComparePaths(p, q Path) int {
	if c := cmp.Compare(p.Len(), q.Len()); c != 0 {
		return c
	}
	for i := range p.Steps {
		if c := strings.Compare(string(p.Entities[i+1]), string(q.Entities[i+1])); c != 0 {
			return c
		}
		if c := strings.Compare(string(p.Steps[i].Relation), string(q.Steps[i].Relation)); c != 0 {
			return c
		}
	}
	return 0
}

func pathKey(p Path) string {
	var b strings.Builder
	for _, s := range p.Steps {
		b.WriteString(string(s.Relation))
		b.WriteByte('|')
	}
	return b.String()
}

// kShortest is Yen's algorithm with ties broken by ComparePaths.
func (g *subgraph) kShortest(s, t EntityName, k, bound int) []Path {
	g.sort()
	first, ok := g.shortest(s, t, nil, nil, bound)
	if !ok {
		return nil
	}
	found := []Path{first}
	seen := map[string]bool{pathKey(first): true}
	var candidates []Path
	for len(found) < k {
		prev := found[len(found)-1]
		for i := 0; i < prev.Len(); i++ {
			spur := prev.Entities[i]
			rootSteps := prev.Steps[:i]
			bannedArcs := map[arcKey]bool{}
			for _, p := range found {
				if p.Len() > i && samePrefix(p.Steps, rootSteps) {
					bannedArcs[arcKey{spur, p.Steps[i].Relation}] = true
				}
			}
			bannedNodes := map[EntityName]bool{}
			for _, u := range prev.Entities[:i] {
				bannedNodes[u] = true
			}
			tail, ok := g.shortest(spur, t, bannedNodes, bannedArcs, bound-i)
			if !ok {
				continue
			}
			p := Path{
				Entities: append(slices.Clone(prev.Entities[:i]), tail.Entities...),
				Steps:    append(slices.Clone(rootSteps), tail.Steps...),
			}
			if key := pathKey(p); !seen[key] {
				seen[key] = true
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			break
		}
		best := 0
		for i := range candidates {
			if ComparePaths(candidates[i], candidates[best]) < 0 {
				best = i
			}
		}
		found = append(found, candidates[best])
		candidates = slices.Delete(candidates, best, best+1)
	}
	return found
}

func samePrefix(steps, root []PathStep) bool {
	for i := range root {
		if steps[i].Relation != root[i].Relation {
			return false
		}
	}
	return true
}
