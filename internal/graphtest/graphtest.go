// Package graphtest holds helpers for testing path search: random graphs, an in-memory link source and
// an oracle that enumerates every simple path.
package graphtest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// RandomGraph makes a random multigraph of n actors and about m relations with random types, dates and
// claim statuses, deterministic from seed: relations between the same pair repeat, with other types and
// with the same type at other times (told apart by a key), some relations are undated, some are events,
// and some entities have a lifetime.
func RandomGraph(seed uint64, n, m int) ([]graph.Entity, []graph.Relation) {
	return RandomGraphWithHubs(seed, n, m, 0)
}

// RandomGraphWithHubs is RandomGraph with hubs: a third of the relations between new pairs have one of
// the first hubs entities at one end, as a few well-connected people and parties have in real graphs.
func RandomGraphWithHubs(seed uint64, n, m, hubs int) ([]graph.Entity, []graph.Relation) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ents := make([]graph.Entity, n)
	for i := range ents {
		ents[i] = graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/r%d-e%02d", seed, i)),
			Kind: graph.KindActor, DisplayName: fmt.Sprintf("Entity %d of graph %d", i, seed)}
		switch r.IntN(6) {
		case 0:
			ents[i].ValidFrom = graph.FuzzyDate{Year: 2000 + r.IntN(20)}
		case 1:
			ents[i].ValidTo = graph.FuzzyDate{Year: 2005 + r.IntN(20), Month: 1 + r.IntN(12)}
		}
	}
	types := []graph.RelationType{graph.Endorses, graph.Criticised, graph.FormerlyWorkedWith, graph.Accused, graph.Family}
	seen := map[graph.RelationName]bool{}
	var rels []graph.Relation
	for len(rels) < m {
		var from, to graph.EntityName
		var t graph.RelationType
		if len(rels) > 0 && r.IntN(4) == 0 {
			// A parallel relation: the same pair as an earlier one, with its type or another.
			prev := rels[r.IntN(len(rels))]
			from, to, t = prev.From, prev.To, prev.Type
			if r.IntN(2) == 0 {
				t = types[r.IntN(len(types))]
			}
		} else {
			a, b := r.IntN(n), r.IntN(n)
			if hubs > 0 && r.IntN(3) == 0 {
				if r.IntN(2) == 0 {
					a = r.IntN(hubs)
				} else {
					b = r.IntN(hubs)
				}
			}
			if a == b {
				continue
			}
			from, to, t = ents[a].Name, ents[b].Name, types[r.IntN(len(types))]
		}
		if t.Symmetric() && to < from {
			from, to = to, from
		}
		key := ""
		if seen[graph.RelationNameFor(from, t, to, "")] {
			key = fmt.Sprintf("k%d", len(rels))
		}
		name := graph.RelationNameFor(from, t, to, key)
		seen[name] = true
		rel := graph.Relation{Name: name, Type: t, From: from, To: to}
		switch r.IntN(5) {
		case 0, 1:
			rel.ValidFrom = graph.FuzzyDate{Year: 2000 + r.IntN(20)}
			if r.IntN(3) > 0 {
				rel.ValidTo = graph.FuzzyDate{Year: rel.ValidFrom.Year + r.IntN(10), Month: 1 + r.IntN(12)}
			}
		case 2, 3:
			rel.Date = graph.FuzzyDate{Year: 2000 + r.IntN(20)}
			if r.IntN(2) == 0 {
				rel.Date.Month = 1 + r.IntN(12)
			}
		}
		for c := 0; c < 1+r.IntN(2); c++ {
			rel.Claims = append(rel.Claims, graph.Claim{
				Source:     graph.Source{Name: "sources/random"},
				Excerpt:    "random",
				Confidence: float64(r.IntN(11)) / 10,
				Status:     graph.ClaimStatuses[r.IntN(4)],
			})
			rel.Claims[c].Name = graph.ClaimNameFor(name, "sources/random", fmt.Sprint(c))
		}
		rels = append(rels, rel)
	}
	return ents, rels
}

// RandomQuery makes a random path query over ents, deterministic from r.
func RandomQuery(r *rand.Rand, ents []graph.Entity) graph.PathQuery {
	a := r.IntN(len(ents))
	b := (a + 1 + r.IntN(len(ents)-1)) % len(ents)
	q := graph.PathQuery{From: ents[a].Name, To: ents[b].Name,
		MaxPaths: 1 + r.IntN(8), MaxDepth: 1 + r.IntN(6), Directed: r.IntN(3) == 0, CoTemporal: r.IntN(3) == 0}
	if r.IntN(3) == 0 {
		q.Filter.AsOf = graph.FuzzyDate{Year: 2000 + r.IntN(25)}
	}
	q.Filter.Undated = []graph.UndatedPolicy{graph.UndatedDefault, graph.UndatedInclude, graph.UndatedExclude}[r.IntN(3)]
	if r.IntN(3) == 0 {
		q.Filter.MinConfidence = float64(r.IntN(10)) / 10
	}
	if r.IntN(3) == 0 {
		q.Filter.ExcludeTypes = []graph.RelationType{graph.Criticised}
	}
	if r.IntN(4) == 0 {
		q.Filter.IncludeTypes = []graph.RelationType{graph.Endorses, graph.Family, graph.FormerlyWorkedWith}
	}
	if r.IntN(4) == 0 {
		q.Filter.Statuses = []graph.ClaimStatus{graph.StatusConfirmed, graph.StatusDenied}
	}
	return q
}

// Links returns the relations as path search sees them, with their ends' lifetimes.
func Links(ents []graph.Entity, rels []graph.Relation) []graph.Link {
	life := map[graph.EntityName]graph.Period{}
	for _, e := range ents {
		life[e.Name] = e.Lifetime()
	}
	lifeOf := func(n graph.EntityName) graph.Period {
		if p, ok := life[n]; ok {
			return p
		}
		return graph.OpenPeriod
	}
	out := make([]graph.Link, len(rels))
	for i, r := range rels {
		out[i] = r.LinkBetween(lifeOf(r.From), lifeOf(r.To))
	}
	return out
}

// MemoryLinks is a LinkSource over relations held in memory.
type MemoryLinks map[graph.EntityName][]graph.Link

// NewMemoryLinks indexes relations by both ends.
func NewMemoryLinks(ents []graph.Entity, rels []graph.Relation) MemoryLinks {
	m := MemoryLinks{}
	for _, l := range Links(ents, rels) {
		m[l.From] = append(m[l.From], l)
		m[l.To] = append(m[l.To], l)
	}
	return m
}

// Links implements graph.LinkSource.
func (m MemoryLinks) Links(_ context.Context, names []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	out := make(map[graph.EntityName][]graph.Link, len(names))
	for _, n := range names {
		out[n] = m[n]
	}
	return out, nil
}

// MemoryFeed is a graph.ChangeFeed over entities and relations held in memory, all written at version 1.
type MemoryFeed struct {
	entities []graph.Entity
	links    []graph.Link
}

// NewMemoryFeed returns a feed of the entities and the relations' links.
func NewMemoryFeed(ents []graph.Entity, rels []graph.Relation) MemoryFeed {
	return MemoryFeed{entities: ents, links: Links(ents, rels)}
}

// Version implements graph.ChangeFeed.
func (f MemoryFeed) Version(context.Context) (int64, error) { return 1, nil }

// Changes implements graph.ChangeFeed.
func (f MemoryFeed) Changes(_ context.Context, since int64, each func(graph.Changed)) (int64, error) {
	if since < 1 {
		each(graph.Changed{Entities: slices.Clone(f.entities), Links: slices.Clone(f.links)})
	}
	return 1, nil
}

// OraclePaths enumerates every route (a path of distinct entities) the query allows, depth first; gives
// each hop every counted relation between its two entities that may be walked that way (in
// graph.HopOrder); keeps, for a co-temporal query, the routes that held as a whole on some day (checked
// day segment by day segment), each hop with only the relations that held on one of those days; sorts them with graph.ComparePaths and keeps the first q.MaxPaths. It
// shares no code with walk.FindPaths but the filter and the two orders.
func OraclePaths(ents []graph.Entity, rels []graph.Relation, q graph.PathQuery) []graph.Path {
	type step struct {
		link graph.Link
		fwd  bool
	}
	hops := map[[2]graph.EntityName][]step{}
	var neighbours = map[graph.EntityName][]graph.EntityName{}
	add := func(u, w graph.EntityName, l graph.Link, fwd bool) {
		k := [2]graph.EntityName{u, w}
		if len(hops[k]) == 0 {
			neighbours[u] = append(neighbours[u], w)
		}
		hops[k] = append(hops[k], step{l, fwd})
	}
	for _, l := range Links(ents, rels) {
		if !q.Filter.Counts(l) {
			continue
		}
		add(l.From, l.To, l, true)
		if !q.Directed || l.Symmetric {
			add(l.To, l.From, l, false)
		}
	}
	window := q.Filter.Window()
	var all []graph.Path
	onPath := map[graph.EntityName]bool{q.From: true}
	cur := []graph.EntityName{q.From}
	var dfs func(u graph.EntityName)
	dfs = func(u graph.EntityName) {
		if u == q.To {
			p := graph.Path{Entities: slices.Clone(cur)}
			var periods [][]graph.Period
			for i := 0; i+1 < len(cur); i++ {
				ss := slices.Clone(hops[[2]graph.EntityName{cur[i], cur[i+1]}])
				slices.SortFunc(ss, func(a, b step) int { return graph.HopOrder(q.Filter, a.link, b.link) })
				var h graph.Hop
				var ps []graph.Period
				for _, s := range ss {
					h.Relations = append(h.Relations, graph.PathStep{Relation: s.link.Name, Forward: s.fwd})
					ps = append(ps, s.link.Effective())
				}
				p.Hops = append(p.Hops, h)
				periods = append(periods, ps)
			}
			if q.CoTemporal {
				if p.During = commonDays(periods, window); len(p.During) == 0 {
					return
				}
				// A hop shows only the relations that held on some day the route held.
				for i := range p.Hops {
					var kept []graph.PathStep
					for j, st := range p.Hops[i].Relations {
						if slices.ContainsFunc(p.During, func(d graph.Period) bool { return d.Overlaps(periods[i][j]) }) {
							kept = append(kept, st)
						}
					}
					p.Hops[i].Relations = kept
				}
			}
			all = append(all, p)
			return
		}
		if len(cur)-1 == q.MaxDepth {
			return
		}
		for _, w := range neighbours[u] {
			if onPath[w] {
				continue
			}
			onPath[w] = true
			cur = append(cur, w)
			dfs(w)
			cur = cur[:len(cur)-1]
			onPath[w] = false
		}
	}
	dfs(q.From)
	slices.SortFunc(all, graph.ComparePaths)
	if len(all) > q.MaxPaths {
		all = all[:q.MaxPaths]
	}
	return all
}

// commonDays returns the days of window on which every hop held (a hop holds on a day when one of its
// periods holds it), as sorted, disjoint periods: it cuts window at every period's bounds and tests one
// day of each piece, on which the answer cannot change.
func commonDays(hops [][]graph.Period, window graph.Period) []graph.Period {
	cuts := []int{window.Start}
	for _, ps := range hops {
		for _, p := range ps {
			for _, c := range []int{p.Start, p.End + 1} {
				if c > window.Start && c <= window.End {
					cuts = append(cuts, c)
				}
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []graph.Period
	for i, c := range cuts {
		end := window.End
		if i+1 < len(cuts) {
			end = cuts[i+1] - 1
		}
		held := true
		for _, ps := range hops {
			if !slices.ContainsFunc(ps, func(p graph.Period) bool { return p.Start <= c && c <= p.End }) {
				held = false
				break
			}
		}
		if !held {
			continue
		}
		if n := len(out); n > 0 && out[n-1].End+1 == c {
			out[n-1].End = end
		} else {
			out = append(out, graph.Period{Start: c, End: end})
		}
	}
	return out
}

// Neighborhood is the whole answer of a neighbourhood query, as the oracle finds it.
type Neighborhood struct {
	Nodes        []graph.EntityName // in answer order
	Dist         map[graph.EntityName]int
	Edges        []graph.RelationName // in answer order
	EdgesLeftOut int
	Cut          []graph.Truncation
}

// OracleNeighborhood is the neighbourhood done plainly: the walk with every expanded entity's counted
// links sorted in full (strongest first, then the other end's name, then the relation's) and taken in
// turn; true distances by a breadth-first search of the whole counted graph; every counted relation
// among the answer's entities (and to excluded ones), sorted and cut at MaxEdges; and, per entity of
// the answer (expanded ones first), the distinct entities and the relations the answer leaves out.
// It also returns the distance at which the walk reached each entity.
func OracleNeighborhood(ents []graph.Entity, rels []graph.Relation, q graph.NeighborhoodQuery, center graph.EntityName) (Neighborhood, map[graph.EntityName]int) {
	q.Normalize()
	var links []graph.Link
	for _, l := range Links(ents, rels) {
		if q.Filter.Counts(l) {
			links = append(links, l)
		}
	}
	adj := map[graph.EntityName][]graph.Link{}
	for _, l := range links {
		adj[l.From] = append(adj[l.From], l)
		adj[l.To] = append(adj[l.To], l)
	}
	excluded := map[graph.EntityName]bool{}
	for _, n := range q.Exclude {
		excluded[n] = n != center
	}
	other := func(l graph.Link, u graph.EntityName) graph.EntityName {
		if l.From == u {
			return l.To
		}
		return l.From
	}
	shown := map[graph.EntityName]bool{center: true}
	walkedAt := map[graph.EntityName]int{center: 0}
	reached := []graph.EntityName{center}
	var expanded []graph.EntityName
	frontier := []graph.EntityName{center}
	for d := 1; d <= q.Depth && len(frontier) > 0; d++ {
		var next []graph.EntityName
		for _, u := range frontier {
			expanded = append(expanded, u)
			ls := slices.Clone(adj[u])
			slices.SortFunc(ls, func(a, b graph.Link) int {
				return cmp.Or(-cmp.Compare(q.Filter.Strength(a.Support), q.Filter.Strength(b.Support)),
					strings.Compare(string(other(a, u)), string(other(b, u))), strings.Compare(string(a.Name), string(b.Name)))
			})
			n := 0
			for _, l := range ls {
				w := other(l, u)
				if excluded[w] || shown[w] || n >= q.MaxPerNode || len(reached) >= q.MaxNodes {
					continue
				}
				n++
				shown[w] = true
				walkedAt[w] = d
				reached = append(reached, w)
				next = append(next, w)
			}
		}
		frontier = next
	}
	// True distances: a plain BFS of the whole counted graph.
	bfs := map[graph.EntityName]int{center: 0}
	for level := []graph.EntityName{center}; len(level) > 0; {
		var next []graph.EntityName
		for _, u := range level {
			for _, l := range adj[u] {
				if w := other(l, u); !slices.Contains(slices.Collect(maps.Keys(bfs)), w) {
					bfs[w] = bfs[u] + 1
					next = append(next, w)
				}
			}
		}
		level = next
	}
	out := Neighborhood{Dist: map[graph.EntityName]int{}}
	out.Nodes = slices.Clone(reached)
	slices.SortStableFunc(out.Nodes, func(a, b graph.EntityName) int { return cmp.Compare(bfs[a], bfs[b]) })
	pos := map[graph.EntityName]int{}
	for i, n := range out.Nodes {
		pos[n] = i
		out.Dist[n] = bfs[n]
	}
	type edge struct {
		name graph.RelationName
		at   int
	}
	var edges []edge
	for _, l := range links {
		pf, inF := pos[l.From]
		pt, inT := pos[l.To]
		switch {
		case inF && inT:
			edges = append(edges, edge{l.Name, max(pf, pt)})
		case inF && excluded[l.To]:
			edges = append(edges, edge{l.Name, pf})
		case inT && excluded[l.From]:
			edges = append(edges, edge{l.Name, pt})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(string(a.name), string(b.name)))
	})
	if len(edges) > q.MaxEdges {
		out.EdgesLeftOut = len(edges) - q.MaxEdges
		edges = edges[:q.MaxEdges]
	}
	for _, e := range edges {
		out.Edges = append(out.Edges, e.name)
	}
	// Every entity of the answer is accounted for: those expanded in the order expanded, then the others in
	// answer order.
	accounted := slices.Clone(expanded)
	for _, n := range out.Nodes {
		if !slices.Contains(expanded, n) {
			accounted = append(accounted, n)
		}
	}
	for _, u := range accounted {
		left := map[graph.EntityName]bool{}
		var counts []graph.RelationCount
		for _, l := range adj[u] {
			w := other(l, u)
			if _, in := pos[w]; in || excluded[w] {
				continue
			}
			left[w] = true
			counts = append(counts, graph.RelationCount{Type: l.Type, Outgoing: l.From == u || l.Symmetric, Count: 1})
		}
		if len(left) > 0 {
			out.Cut = append(out.Cut, graph.Truncation{Entity: u, LeftOut: len(left), RelationsLeftOut: len(counts), ByType: graph.SumRelationCounts(counts),
				Unexpanded: !slices.Contains(expanded, u)})
		}
	}
	return out, walkedAt
}

// SharedPath is a path in the shared/ folder that lies beside the project (found from the nearest go.mod
// above the test's directory), or "" when that path does not exist.
func SharedPath(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = filepath.Dir(dir)
	}
	p := filepath.Join(append([]string{dir, "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// FeedGraph is everything a change feed gives from version 0, by name: what a service filling its graph
// in memory reads.
type FeedGraph struct {
	Sources  map[graph.SourceName]graph.Source
	Entities map[graph.EntityName]graph.Entity
	Links    map[graph.RelationName]graph.Link
	Headers  map[graph.RelationName]graph.RelationHeader
}

// ReadFeed reads what feed gives from version 0, failing t when the feed fails or gives relations
// without their evidence.
func ReadFeed(t testing.TB, feed graph.ChangeFeed) FeedGraph {
	t.Helper()
	g := FeedGraph{map[graph.SourceName]graph.Source{}, map[graph.EntityName]graph.Entity{},
		map[graph.RelationName]graph.Link{}, map[graph.RelationName]graph.RelationHeader{}}
	if _, err := feed.Changes(t.Context(), 0, func(c graph.Changed) {
		for _, x := range c.Sources {
			g.Sources[x.Name] = x
		}
		for _, x := range c.Entities {
			g.Entities[x.Name] = x
		}
		if len(c.Links) > 0 && !c.Evidence {
			t.Error("relations given without their evidence")
		}
		for i, l := range c.Links {
			g.Links[l.Name], g.Headers[l.Name] = l, c.Headers[i]
		}
	}); err != nil {
		t.Fatal(err)
	}
	return g
}
