package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// memGraph is a graph's links in memory, as compressed sparse rows, undirected: the floor every other
// way of answering is compared with, and the judge of their answers.
type memGraph struct {
	names []graph.EntityName
	index map[graph.EntityName]int32
	off   []int32 // node u's arcs are adj[off[u]:off[u+1]] and rel[off[u]:off[u+1]]
	adj   []int32 // the node an arc reaches
	rel   []int32 // the relation an arc walks
}

// buildGraphs indexes the relations twice: those that count as links under the default filter (what
// polgraph's queries walk) and all of them (what raw Dgraph queries walk).
func buildGraphs(entities []graph.Entity, relations []graph.Relation) (counted, all *memGraph) {
	index := make(map[graph.EntityName]int32, len(entities))
	names := make([]graph.EntityName, len(entities))
	for i, e := range entities {
		index[e.Name] = int32(i)
		names[i] = e.Name
	}
	var filter graph.RelationFilter
	keep := make([]bool, len(relations))
	for i, r := range relations {
		keep[i] = filter.Counts(r.Link())
	}
	build := func(use func(i int) bool) *memGraph {
		g := &memGraph{names: names, index: index, off: make([]int32, len(names)+1)}
		for i, r := range relations {
			if use(i) {
				g.off[index[r.From]+1]++
				g.off[index[r.To]+1]++
			}
		}
		for u := range names {
			g.off[u+1] += g.off[u]
		}
		g.adj = make([]int32, g.off[len(names)])
		g.rel = make([]int32, len(g.adj))
		fill := slices.Clone(g.off[:len(names)])
		for i, r := range relations {
			if !use(i) {
				continue
			}
			a, b := index[r.From], index[r.To]
			g.adj[fill[a]], g.rel[fill[a]] = b, int32(i)
			fill[a]++
			g.adj[fill[b]], g.rel[fill[b]] = a, int32(i)
			fill[b]++
		}
		return g
	}
	return build(func(i int) bool { return keep[i] }), build(func(int) bool { return true })
}

func (g *memGraph) degree(u int32) int { return int(g.off[u+1] - g.off[u]) }

// searcher holds one goroutine's scratch space for searches on a memGraph: marks stamped with an epoch,
// so a search costs only what it visits.
type searcher struct {
	g                  *memGraph
	routes             bool
	epoch              int32
	markS, markT, ban  []int32
	distS, distT       []int32
	parS, parT, relS   []int32
	relT               []int32
	frontS, frontT, nx []int32
}

// newSearcher returns a searcher whose kShortest tells routes apart by their entities (routes) or by
// their relations.
func newSearcher(g *memGraph, routes bool) *searcher {
	n := len(g.names)
	return &searcher{g: g, routes: routes, markS: make([]int32, n), markT: make([]int32, n), ban: make([]int32, n),
		distS: make([]int32, n), distT: make([]int32, n), parS: make([]int32, n), parT: make([]int32, n),
		relS: make([]int32, n), relT: make([]int32, n)}
}

// memPath is a path as node and relation indices.
type memPath struct {
	nodes []int32
	rels  []int32
}

// shortest finds a shortest path from s to t of at most limit hops that avoids the banned nodes (marked
// with the current epoch in ban) and hops (from, to), by breadth-first search from both ends, one whole
// level of the smaller side at a time.
func (x *searcher) shortest(s, t int32, limit int, bannedHops [][2]int32, bannedRels []int32) (memPath, bool) {
	g, ep := x.g, x.epoch
	x.markS[s], x.distS[s], x.parS[s] = ep, 0, -1
	x.markT[t], x.distT[t], x.parT[t] = ep, 0, -1
	x.frontS = append(x.frontS[:0], s)
	x.frontT = append(x.frontT[:0], t)
	a, b := 0, 0
	for a+b < limit && len(x.frontS) > 0 && len(x.frontT) > 0 {
		fromS := len(x.frontS) <= len(x.frontT)
		front, mark, dist, par, rel, other, odist := x.frontS, x.markS, x.distS, x.parS, x.relS, x.markT, x.distT
		level := a
		if !fromS {
			front, mark, dist, par, rel, other, odist = x.frontT, x.markT, x.distT, x.parT, x.relT, x.markS, x.distS
			level = b
		}
		next := x.nx[:0]
		meet, best := int32(-1), 1<<30
		for _, u := range front {
			for i := g.off[u]; i < g.off[u+1]; i++ {
				v := g.adj[i]
				hop := [2]int32{u, v} // as the path walks it
				if !fromS {
					hop = [2]int32{v, u}
				}
				if mark[v] == ep || x.ban[v] == ep || (len(bannedHops) > 0 && slices.Contains(bannedHops, hop)) ||
					(len(bannedRels) > 0 && slices.Contains(bannedRels, g.rel[i])) {
					continue
				}
				mark[v], dist[v], par[v], rel[v] = ep, int32(level+1), u, g.rel[i]
				next = append(next, v)
				if other[v] == ep && level+1+int(odist[v]) < best {
					meet, best = v, level+1+int(odist[v])
				}
			}
		}
		x.nx = front[:0]
		if fromS {
			x.frontS, a = next, a+1
		} else {
			x.frontT, b = next, b+1
		}
		if meet >= 0 {
			return x.pathThrough(meet), true
		}
	}
	return memPath{}, false
}

func (x *searcher) pathThrough(m int32) memPath {
	var p memPath
	for v := m; x.parS[v] >= 0; v = x.parS[v] {
		p.nodes = append(p.nodes, v)
		p.rels = append(p.rels, x.relS[v])
	}
	p.nodes = append(p.nodes, x.firstS(m))
	slices.Reverse(p.nodes)
	slices.Reverse(p.rels)
	for v := m; x.parT[v] >= 0; v = x.parT[v] {
		p.rels = append(p.rels, x.relT[v])
		p.nodes = append(p.nodes, x.parT[v])
	}
	return p
}

func (x *searcher) firstS(m int32) int32 {
	for x.parS[m] >= 0 {
		m = x.parS[m]
	}
	return m
}

// kShortest returns the lengths of the k shortest simple paths from s to t of at most bound hops, by Yen's
// algorithm: routes told apart by their entities (parallel relations are one hop, as in polgraph) when
// the searcher was made for routes, else paths told apart by their relations (as Dgraph's shortest
// tells them apart).
func (x *searcher) kShortest(s, t int32, k, bound int) []int {
	found, _ := yen(s, t, k, bound, x.routes, func(s, t int32, limit int, bans spurBans) (memPath, bool, error) {
		x.epoch++
		for _, u := range bans.nodes {
			x.ban[u] = x.epoch
		}
		p, ok := x.shortest(s, t, limit, bans.hops, bans.rels)
		return p, ok, nil
	})
	return pathLengths(found)
}

// spurBans is what one search of Yen's algorithm must avoid: the entities of the root path before the
// spur, and the hops (routes) or relations (paths) that earlier paths sharing the root take from it.
type spurBans struct {
	nodes []int32
	hops  [][2]int32
	rels  []int32
}

// shortestFunc finds a shortest path from s to t of at most limit hops that avoids bans.
type shortestFunc func(s, t int32, limit int, bans spurBans) (memPath, bool, error)

// yen returns the k shortest simple paths from s to t of at most bound hops, found by Yen's algorithm
// over shortest: told apart by their entities when routes, else by their relations.
func yen(s, t int32, k, bound int, routes bool, shortest shortestFunc) ([]memPath, error) {
	if s == t {
		return nil, nil
	}
	first, ok, err := shortest(s, t, bound, spurBans{})
	if !ok || err != nil {
		return nil, err
	}
	key := func(p memPath) string { return pathKey(p, routes) }
	found := []memPath{first}
	seen := map[string]bool{key(first): true}
	var candidates []memPath
	for len(found) < k {
		prev := found[len(found)-1]
		for i := 0; i < len(prev.rels); i++ {
			spur := prev.nodes[i]
			bans := spurBans{nodes: prev.nodes[:i]}
			for _, p := range found {
				switch {
				case len(p.rels) <= i:
				case routes && slices.Equal(p.nodes[:i+1], prev.nodes[:i+1]):
					bans.hops = append(bans.hops, [2]int32{spur, p.nodes[i+1]})
				case !routes && slices.Equal(p.rels[:i], prev.rels[:i]):
					bans.rels = append(bans.rels, p.rels[i])
				}
			}
			tail, ok, err := shortest(spur, t, bound-i, bans)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			p := memPath{nodes: append(slices.Clone(prev.nodes[:i]), tail.nodes...), rels: append(slices.Clone(prev.rels[:i]), tail.rels...)}
			if k := key(p); !seen[k] {
				seen[k] = true
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			break
		}
		best := 0
		for i, c := range candidates {
			if len(c.rels) < len(candidates[best].rels) {
				best = i
			}
		}
		found = append(found, candidates[best])
		candidates = slices.Delete(candidates, best, best+1)
	}
	return found, nil
}

// pathLengths is each path's number of hops.
func pathLengths(ps []memPath) []int {
	lengths := make([]int, len(ps))
	for i, p := range ps {
		lengths[i] = len(p.rels)
	}
	return lengths
}

// pathKey identifies a route by its entities, or a path by its relations.
func pathKey(p memPath, routes bool) string {
	ids := p.rels
	if routes {
		ids = p.nodes
	}
	var b strings.Builder
	for _, u := range ids {
		b.WriteString(strconv.Itoa(int(u)))
		b.WriteByte('|')
	}
	return b.String()
}

// distances returns the hop distance of every node within depth of s (-1 beyond).
func (x *searcher) distances(s int32, depth int) []int32 {
	g := x.g
	dist := make([]int32, len(g.names))
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	front := []int32{s}
	for d := 1; d <= depth && len(front) > 0; d++ {
		var next []int32
		for _, u := range front {
			for i := g.off[u]; i < g.off[u+1]; i++ {
				if v := g.adj[i]; dist[v] < 0 {
					dist[v] = int32(d)
					next = append(next, v)
				}
			}
		}
		front = next
	}
	return dist
}

// neighborhood walks out from c as ExploreNeighborhood does, without its ordering by evidence: at most
// perNode new neighbours of each entity expanded and maxNodes in all. It returns how many nodes it kept.
func (x *searcher) neighborhood(c int32, depth, perNode, maxNodes int) int {
	g := x.g
	x.epoch++
	ep := x.epoch
	x.markS[c] = ep
	kept := 1
	front := append(x.frontS[:0], c)
	for d := 1; d <= depth && len(front) > 0; d++ {
		next := x.frontT[:0]
		for _, u := range front {
			shown := 0
			for i := g.off[u]; i < g.off[u+1]; i++ {
				v := g.adj[i]
				if x.markS[v] == ep || shown >= perNode || kept >= maxNodes {
					continue
				}
				x.markS[v] = ep
				shown++
				kept++
				next = append(next, v)
			}
		}
		x.frontS, x.frontT = next, front[:0]
		front = next
	}
	return kept
}
