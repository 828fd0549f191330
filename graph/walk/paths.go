// Package walk searches the graph: the shortest paths between two entities, the neighbourhood of one,
// and what several share. It walks a Graph of numbered entities and relations: one the in-memory engine
// holds (graph/memgraph), or one it numbers as it fetches links from a graph.LinkSource, a level per round
// trip.
package walk

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/polgraph/polgraph/graph"
)

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
//
// Entities and relations are numbered as they are met, so the search itself works on integers; a
// Topology gives its own numbering and no round trips at all.
func FindPaths(ctx context.Context, src graph.LinkSource, q graph.PathQuery, budget int) ([]graph.Path, error) {
	g, release, err := OpenGraph(ctx, src)
	if err != nil {
		return nil, err
	}
	defer release()
	s, okS := g.Node(q.From)
	t, okT := g.Node(q.To)
	if !okS || !okT {
		return nil, nil // an entity without relations is joined to nothing
	}
	return findPaths(ctx, g, q, s, t, budget)
}

// Graph is the graph one path search walks: entities and relations numbered from 0, and the
// relations of an entity known once it is fetched.
type Graph interface {
	// Node returns an entity's number; ok is false when the graph knows the entity has no relations.
	Node(n graph.EntityName) (u int32, ok bool)
	// Fetch makes the relations of entities known.
	Fetch(ctx context.Context, us []int32) error
	// RelationsOf returns the relations of a fetched entity, each with its other end.
	RelationsOf(u int32) []HalfEdge
	Link(r int32) graph.Link
	Name(r int32) graph.RelationName // link(r).Name
	Ends(r int32) [2]int32           // from, to
	// Support and relType are the link's Support, and its Type and Symmetric.
	Support(r int32) *graph.Support
	RelType(r int32) (t graph.RelationType, symmetric bool)
	Entity(u int32) graph.EntityName
	// Counts reports whether relation r Counts under f (f.Counts of its link).
	Counts(f *graph.RelationFilter, r int32) bool
}

// HalfEdge is a relation of an entity with the relation's other end, its type (one more than its place
// in RelationTypes; 0 for a type outside the vocabulary), whether the entity is its `from`, and its
// strength under the default filter, as the entity's list holds it: a walk reads the list in order,
// without the relation's record. Only the strength ever changes (a relation's name holds the rest).
type HalfEdge struct {
	Rel, To  int32
	Type     uint8
	Out      bool
	Strength float64
}

// Headers is a Graph that holds its relations' headers, read by number.
type Headers interface {
	// Header returns relation r's header, when the graph holds it.
	Header(r int32) (graph.RelationHeader, bool)
}

// Viewer is a LinkSource that holds its links numbered in memory: a search reads them in place, between
// view and release.
type Viewer interface {
	View(ctx context.Context) (g Graph, release func(), err error)
}

// OpenGraph returns the graph one search walks: a view of src when it holds its links numbered in
// memory, else a fetchedGraph over it. Call release when the search is done.
func OpenGraph(ctx context.Context, src graph.LinkSource) (g Graph, release func(), err error) {
	if v, ok := src.(Viewer); ok {
		return v.View(ctx)
	}
	return newFetchedGraph(src), func() {}, nil
}

// fetchedGraph numbers what a LinkSource returns, level by level, for one search.
type fetchedGraph struct {
	src     graph.LinkSource
	ents    Numbering[graph.EntityName]
	adj     [][]HalfEdge
	fetched []bool
	rels    Numbering[graph.RelationName]
	links   []graph.Link
	linkEnd [][2]int32
}

func newFetchedGraph(src graph.LinkSource) *fetchedGraph { return &fetchedGraph{src: src} }

func (g *fetchedGraph) Node(n graph.EntityName) (int32, bool) {
	u, isNew := g.ents.Number(n)
	if isNew {
		g.adj = append(g.adj, nil)
		g.fetched = append(g.fetched, false)
	}
	return u, true
}

// Numbering numbers keys from 0 in the order they are first met.
type Numbering[K comparable] struct {
	ids  map[K]int32
	keys []K
}

// Number returns k's Number, giving it the next one (isNew) when k is new.
func (n *Numbering[K]) Number(k K) (id int32, isNew bool) {
	if id, ok := n.ids[k]; ok {
		return id, false
	}
	if n.ids == nil {
		n.ids = map[K]int32{}
	}
	id = int32(len(n.keys))
	n.ids[k] = id
	n.keys = append(n.keys, k)
	return id, true
}

func (g *fetchedGraph) Fetch(ctx context.Context, us []int32) error {
	var need []int32
	var names []graph.EntityName
	for _, u := range us {
		if !g.fetched[u] {
			need = append(need, u)
			names = append(names, g.ents.keys[u])
		}
	}
	if len(need) == 0 {
		return nil
	}
	got, err := g.src.Links(ctx, names)
	if err != nil {
		return err
	}
	for i, u := range need {
		ls := got[names[i]]
		rs := make([]HalfEdge, len(ls))
		for j, l := range ls {
			r, isNew := g.rels.Number(l.Name)
			if isNew {
				g.links = append(g.links, l)
				a, _ := g.Node(l.From)
				b, _ := g.Node(l.To)
				g.linkEnd = append(g.linkEnd, [2]int32{a, b})
			}
			rs[j] = HalfEdge{Rel: r, To: OtherEnd(g.linkEnd[r], u), Type: TypeNumber[l.Type], Out: g.linkEnd[r][0] == u, Strength: DefaultStrength(g.links[r].Support)}
		}
		g.adj[u], g.fetched[u] = rs, true
	}
	return nil
}

func (g *fetchedGraph) RelationsOf(u int32) []HalfEdge { return g.adj[u] }

func (g *fetchedGraph) Link(r int32) graph.Link { return g.links[r] }

func (g *fetchedGraph) Name(r int32) graph.RelationName { return g.links[r].Name }

func (g *fetchedGraph) Ends(r int32) [2]int32 { return g.linkEnd[r] }

func (g *fetchedGraph) Support(r int32) *graph.Support { return &g.links[r].Support }

func (g *fetchedGraph) RelType(r int32) (graph.RelationType, bool) {
	return g.links[r].Type, g.links[r].Symmetric
}

func (g *fetchedGraph) Entity(u int32) graph.EntityName { return g.ents.keys[u] }

func (g *fetchedGraph) Counts(f *graph.RelationFilter, r int32) bool {
	return f.CountsLink(&g.links[r])
}

// distances holds hop counts by entity number, growing as needed; 0 means unknown, d+1 a distance d.
type distances []int8

func (d distances) get(u int32) (int, bool) {
	if int(u) >= len(d) || d[u] == 0 {
		return 0, false
	}
	return int(d[u]) - 1, true
}

func (d *distances) set(u int32, v int) {
	if int(u) >= len(*d) {
		*d = slices.Grow(*d, int(u)+1-len(*d))[:int(u)+1]
	}
	(*d)[u] = int8(v + 1)
}

// searchBuffers is what a search over a graph that numbers its entities (degrees) writes as it goes,
// kept from one search to the next in searchPool: the two distance arrays, as long as the graph's
// entities so that a search never grows them; the entities given a distance, to clear them after; the
// relations the filter counts of each expanded entity, one after the other; and the map of those.
// Made afresh for each search, they were nearly all a path search allocated at a million relations
// (a k=1 search 705 KB, of which 275 KB the two arrays, cleared whole, and 200 KB copies of lists) and the
// collector's work on a busy replica.
type searchBuffers struct {
	s, t        distances
	touched     []int32
	counted     []HalfEdge
	countedByID map[int32][]HalfEdge
	sub         subgraphBuffers // Yen's subgraph
}

var searchPool sync.Pool

// takeBuffers returns cleared buffers whose distance arrays are at least n long.
func takeBuffers(n int) *searchBuffers {
	if p, ok := searchPool.Get().(*searchBuffers); ok && len(p.s) >= n {
		return p
	}
	return &searchBuffers{s: make(distances, n), t: make(distances, n), countedByID: map[int32][]HalfEdge{}}
}

// giveBack clears what the search wrote in its buffers and puts them back in the pool; the search must
// hold nothing of them after (its answer is built from Yen's subgraph, which copies what it takes).
func (x *explorer) giveBack() {
	p := x.buf
	if p == nil {
		return
	}
	for _, u := range x.touched {
		if int(u) < len(p.s) { // a set past the end grew a copy (not for a graph that numbers u)
			p.s[u], p.t[u] = 0, 0
		}
	}
	clear(x.counted)
	p.touched, p.counted, p.countedByID = x.touched[:0], p.counted[:0], x.counted
	x.buf, x.ds, x.dt, x.touched, x.counted = nil, nil, nil, nil, nil
	searchPool.Put(p)
}

// explorer holds the state of one path search.
type explorer struct {
	q      graph.PathQuery
	g      Graph
	s, t   int32
	budget int
	read   int

	counted        map[int32][]HalfEdge // counted relations of every expanded entity
	ds, dt         distances            // exact hop distances from From and to To, where known
	touched        []int32              // every entity given a distance on either side, in the order reached
	buf            *searchBuffers       // where ds, dt, touched and counted came from, when from searchPool
	a, b           int                  // levels expanded around From and around To
	frontS, frontT []int32              // entities at distance a from From (b to To) not yet expanded
	// met is the shortest route known through an entity both searches reached (its distance from From
	// plus its distance to To; maxMet while there is none). Every route of at most a+b hops passes an
	// entity each search has reached (its a-th entity, or To itself), so none is shorter than met: Yen
	// runs only once met is within its bound.
	met int
}

// maxMet is met while the two searches share no entity.
const maxMet = math.MaxInt32

// Sized is a pathGraph that knows how many relations an entity has before it is fetched: a path search
// then expands the side whose frontier has fewer relations, not fewer entities (one hub costs more than
// a hundred entities of a few relations each).
type Sized interface {
	Degree(u int32) int
	Entities() int // how many entities it numbers: the distances are made that long at once
}

func findPaths(ctx context.Context, g Graph, q graph.PathQuery, s, t int32, budget int) ([]graph.Path, error) {
	const op = "walk.FindPaths"
	x := &explorer{q: q, g: g, s: s, t: t, budget: budget, frontS: []int32{s}, frontT: []int32{t}, met: maxMet}
	if s == t {
		x.met = 0
	}
	if d, ok := g.(Sized); ok {
		x.buf = takeBuffers(d.Entities())
		x.ds, x.dt, x.touched, x.counted = x.buf.s, x.buf.t, x.buf.touched, x.buf.countedByID
		defer x.giveBack()
	} else {
		x.counted = map[int32][]HalfEdge{}
	}
	x.ds.set(s, 0)
	x.dt.set(t, 0)
	x.touched = append(x.touched, s, t)
	for {
		if err := ctx.Err(); err != nil {
			return nil, &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the path query ran out of time", Err: err}
		}
		complete := len(x.frontS) == 0 || len(x.frontT) == 0
		bound := x.a + x.b
		if complete || bound >= q.MaxDepth {
			if x.met > q.MaxDepth {
				return nil, nil
			}
			return x.yen(ctx, q.MaxDepth)
		}
		if bound > 0 && x.met <= bound {
			paths, err := x.yen(ctx, bound)
			if err != nil || len(paths) >= q.MaxPaths {
				return paths, err
			}
		}
		if err := x.expand(ctx, x.forward()); err != nil {
			return nil, err
		}
	}
}

// walk returns the entity reached by walking relation h.rel from u, forwards (away from From) when out
// is true, and whether the query lets it be walked that way.
func (x *explorer) walk(h HalfEdge, u int32, out bool) (int32, bool) {
	if _, symmetric := x.g.RelType(h.Rel); !x.q.Directed || symmetric {
		return h.To, true
	}
	e := x.g.Ends(h.Rel)
	if out {
		return h.To, e[0] == u
	}
	return h.To, e[1] == u
}

// forward reports whether the next level to expand is From's: the frontier with fewer relations when the
// graph knows them before fetching, else the one with fewer entities.
func (x *explorer) forward() bool {
	d, ok := x.g.(Sized)
	if !ok {
		return len(x.frontS) <= len(x.frontT)
	}
	cost := func(front []int32, limit int) int {
		n := 0
		for _, u := range front {
			if n += d.Degree(u); n > limit {
				break
			}
		}
		return n
	}
	s := cost(x.frontS, math.MaxInt)
	return s <= cost(x.frontT, s)
}

func (x *explorer) expand(ctx context.Context, forward bool) error {
	front, dist, level, stop, other := x.frontS, &x.ds, &x.a, x.t, x.dt
	if !forward {
		front, dist, level, stop, other = x.frontT, &x.dt, &x.b, x.s, x.ds
	}
	var need []int32
	for _, u := range front {
		if _, ok := x.counted[u]; !ok {
			need = append(need, u)
		}
	}
	if len(need) > 0 {
		if err := x.g.Fetch(ctx, need); err != nil {
			return err
		}
		for _, u := range need {
			rs := x.g.RelationsOf(u)
			x.read += len(rs)
			x.counted[u] = x.countedOf(rs)
		}
		if x.read > x.budget {
			return &graph.Error{Op: "walk.FindPaths", Kind: graph.ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
				Message: "the path query would read more than " + strconv.Itoa(x.budget) +
					" relations; ask for a smaller max_depth or narrow the filter"}
		}
	}
	// The next frontier is what this level adds to touched (From and To are in it from the start, so
	// reaching the other end adds nothing): a view of it, which later appends leave as it is.
	start := len(x.touched)
	for _, u := range front {
		for _, h := range x.counted[u] {
			w, ok := x.walk(h, u, forward)
			if !ok {
				continue
			}
			if _, seen := dist.get(w); !seen {
				dist.set(w, *level+1)
				if d, ok := other.get(w); ok {
					x.met = min(x.met, *level+1+d)
				}
				if w != stop {
					x.touched = append(x.touched, w)
				}
			}
		}
	}
	next := x.touched[start:len(x.touched):len(x.touched)]
	*level++
	if forward {
		x.frontS = next
	} else {
		x.frontT = next
	}
	return nil
}

// countedOf returns the relations of rs the query's filter counts: rs itself when it counts them all
// (the lists a graph gives are not written to; copying a hub's list for each search was most of what a
// path search allocated), else a copy of those it counts.
func (x *explorer) countedOf(rs []HalfEdge) []HalfEdge {
	for i, h := range rs {
		if x.g.Counts(&x.q.Filter, h.Rel) {
			continue
		}
		var kept []HalfEdge
		if x.buf != nil { // appended to the search's buffer, which an earlier list may have outgrown
			start := len(x.buf.counted)
			x.buf.counted = append(x.buf.counted, rs[:i]...)
			for _, h := range rs[i+1:] {
				if x.g.Counts(&x.q.Filter, h.Rel) {
					x.buf.counted = append(x.buf.counted, h)
				}
			}
			kept = x.buf.counted[start:len(x.buf.counted):len(x.buf.counted)]
		} else {
			kept = make([]HalfEdge, i, len(rs)-1)
			copy(kept, rs[:i])
			for _, h := range rs[i+1:] {
				if x.g.Counts(&x.q.Filter, h.Rel) {
					kept = append(kept, h)
				}
			}
		}
		return kept
	}
	return rs
}

// yen runs Yen's k-shortest simple paths on the links read so far, limited to paths of at most bound hops.
func (x *explorer) yen(ctx context.Context, bound int) ([]graph.Path, error) {
	lower := func(d distances, u int32, level int) int {
		if v, ok := d.get(u); ok {
			return v
		}
		return level + 1
	}
	near := func(u int32) bool { return lower(x.ds, u, x.a)+lower(x.dt, u, x.b) <= bound }
	sb := &subgraphBuffers{}
	if x.buf != nil {
		sb = &x.buf.sub
	}
	defer sb.forget()
	sg := &subgraph{g: x.g, filter: x.q.Filter, directed: x.q.Directed}
	raw := sb.raw[:0]
	for u, rs := range x.counted {
		if !near(u) {
			continue
		}
		for _, h := range rs {
			w := h.To
			if _, expanded := x.counted[w]; expanded && w < u {
				continue // added from w's side
			}
			if near(w) {
				raw = sg.add(raw, u, h)
			}
		}
	}
	sg.build(raw, sb)
	s, okS := sg.lookup(x.s)
	t, okT := sg.lookup(x.t)
	if !okS || !okT {
		return nil, nil
	}
	if x.q.CoTemporal {
		return sg.kShortestCoTemporal(ctx, s, t, x.q.MaxPaths, bound, x.q.Filter.Window(), x.budget)
	}
	return sg.kShortest(ctx, s, t, x.q.MaxPaths, bound)
}

// subgraph is a small graph of routes for Yen's algorithm, numbered afresh: one arc per pair of entities
// (per direction), holding every counted relation between them that may be walked that way. Ties are
// broken by name where a route is picked (shortest) and relations ordered where a hop is returned (path).
type subgraph struct {
	g        Graph
	filter   graph.RelationFilter
	directed bool
	keys     []int32 // the search's numbers of the subgraph's entities: an entity's number is its place
	number   []int32 // by the search's number of an entity: one more than its number here, or 0
	out, in  [][]arc
	inBuf    []arc   // the in-arcs, every entity's a run of it
	starts   []int32 // where each entity's run of inBuf starts (build's scratch before prepare)

	stamp int32 // scratch for shortest: mark[u] == stamp when dist[u] is set
	mark  []int32
	dist  []int32
	level [2][]int32 // scratch for shortest: its levels, kept from one call to the next (Yen makes many)
}

// arc is a hop between two entities, in one direction, with the relations that make it.
type arc struct {
	to  int32   // the entity reached (for in-arcs: the entity left)
	ids []int32 // the relations' numbers in the search
}

// rawArc is one relation walked one way, in the search's numbers until build numbers its ends afresh.
type rawArc struct{ from, to, rel int32 }

// subgraphBuffers is what building a subgraph writes, kept with a search's other buffers (searchPool):
// a k=5 search at a million relations built a subgraph of thousands of arcs, through two maps and a list
// per entity, for most of its time and nearly all it allocated. The subgraph is made of them whole, and
// an answer holds nothing of it (path copies what it takes).
type subgraphBuffers struct {
	raw     []rawArc
	number  []int32 // by the search's number of an entity: one more than its number in the subgraph, or 0
	keys    []int32
	byFrom  []rawArc // raw, in runs by the arc's first entity
	ids     []int32
	arcs    []arc
	counts  []int32
	inArcs  []arc
	out, in [][]arc
	starts  []int32
	owner   []int32 // per entity: one more than the entity whose run last gave it an arc (build)
	slot    []int32 // per entity: that arc's place in arcs
	scratch []int32 // mark and dist, one after the other
}

// add appends relation h of entity u (in the search's numbers), as the entity's list holds it, to raw:
// once the way it may be walked, and again the other way when it may be walked both ways. Its ends and
// type come from the list, not from the relation's record.
func (sg *subgraph) add(raw []rawArc, u int32, h HalfEdge) []rawArc {
	from, to := u, h.To
	if !h.Out {
		from, to = h.To, u
	}
	raw = append(raw, rawArc{from, to, h.Rel})
	if !sg.directed || sg.symmetric(h) {
		raw = append(raw, rawArc{to, from, h.Rel})
	}
	return raw
}

func (sg *subgraph) symmetric(h HalfEdge) bool {
	if h.Type != 0 {
		return SymmetricByNumber[h.Type]
	}
	_, symmetric := sg.g.RelType(h.Rel)
	return symmetric
}

// build makes the subgraph of raw, in sb's buffers (which it keeps for the next search), in time linear
// in raw: the entities numbered in the order reached, the relations put in runs by the entity they leave,
// and each run's relations to one entity made one arc, each arc's relations a run of one array.
func (sg *subgraph) build(raw []rawArc, sb *subgraphBuffers) {
	keys := sb.keys[:0]
	number := func(u int32) int32 {
		if int(u) >= len(sb.number) {
			sb.number = slices.Grow(sb.number, int(u)+1-len(sb.number))[:int(u)+1]
		}
		if sb.number[u] == 0 {
			keys = append(keys, u)
			sb.number[u] = int32(len(keys))
		}
		return sb.number[u] - 1
	}
	for i := range raw {
		raw[i].from, raw[i].to = number(raw[i].from), number(raw[i].to)
	}
	sg.keys, sg.number = keys, sb.number
	n := len(keys)
	starts := slices.Grow(sb.starts[:0], n+1)[:n+1] // where each entity's run starts, then ends
	clear(starts)
	for _, r := range raw {
		starts[r.from+1]++
	}
	for u := 1; u <= n; u++ {
		starts[u] += starts[u-1]
	}
	byFrom := slices.Grow(sb.byFrom[:0], len(raw))[:len(raw)]
	for _, r := range raw {
		byFrom[starts[r.from]] = r
		starts[r.from]++
	}
	// starts[u] is now where u's run ends, which is where u+1's starts.
	owner := slices.Grow(sb.owner[:0], n)[:n]
	clear(owner)
	slot := slices.Grow(sb.slot[:0], n)[:n]
	ids := slices.Grow(sb.ids[:0], len(raw))[:len(raw)]
	arcs := slices.Grow(sb.arcs[:0], len(raw)) // never grown below: the out-arcs are runs of it
	counts := sb.counts[:0]                    // by arc: how many relations it has
	out := slices.Grow(sb.out[:0], n)[:n]
	next := 0 // where the next arc's relations go in ids
	for u := range n {
		from, to := 0, int(starts[u])
		if u > 0 {
			from = int(starts[u-1])
		}
		run, first := byFrom[from:to], len(arcs)
		for _, r := range run { // the arcs, and how many relations each has
			if owner[r.to] != int32(u)+1 {
				owner[r.to], slot[r.to] = int32(u)+1, int32(len(arcs))
				arcs = append(arcs, arc{to: r.to})
				counts = append(counts, 0)
			}
			counts[slot[r.to]]++
		}
		for i := first; i < len(arcs); i++ {
			c := int(counts[i])
			arcs[i].ids = ids[next : next : next+c]
			next += c
		}
		for _, r := range run {
			a := &arcs[slot[r.to]]
			a.ids = append(a.ids, r.rel)
		}
		out[u] = arcs[first:len(arcs):len(arcs)]
	}
	sg.out = out
	sb.raw, sb.keys, sb.byFrom, sb.ids, sb.arcs, sb.counts, sb.out, sb.owner, sb.slot = raw, keys, byFrom, ids, arcs, counts, out, owner, slot
	sb.in = slices.Grow(sb.in[:0], n)[:n]
	sb.inArcs = slices.Grow(sb.inArcs[:0], len(arcs))[:len(arcs)]
	sb.starts = starts
	sb.scratch = slices.Grow(sb.scratch[:0], 2*n)[:2*n]
	sg.in, sg.mark, sg.dist = sb.in, sb.scratch[:n], sb.scratch[n:]
	sg.inBuf, sg.starts = sb.inArcs, sb.starts
}

// forget clears what build numbered, for the next search that takes sb.
func (sb *subgraphBuffers) forget() {
	for _, u := range sb.keys {
		sb.number[u] = 0
	}
	sb.keys = sb.keys[:0]
}

// lookup returns the subgraph's number of the search's entity u, if it holds u.
func (sg *subgraph) lookup(u int32) (int32, bool) {
	if int(u) >= len(sg.number) || sg.number[u] == 0 {
		return 0, false
	}
	return sg.number[u] - 1, true
}

func (sg *subgraph) name(u int32) graph.EntityName { return sg.g.Entity(sg.keys[u]) }

// prepare builds the in-arcs, each entity's a run of one array, and clears the scratch of shortest.
// Nothing is sorted: shortest picks the next entity of a route by name among the few that qualify, and
// path orders the relations of the hops it returns (sorting a subgraph of thousands of relations took
// most of a k=5 search at 1M).
func (sg *subgraph) prepare() {
	starts := sg.starts
	clear(starts)
	for _, as := range sg.out {
		for _, a := range as {
			starts[a.to+1]++
		}
	}
	for u := 1; u < len(starts); u++ {
		starts[u] += starts[u-1]
	}
	for u := range sg.in {
		sg.in[u] = sg.inBuf[starts[u]:starts[u]:starts[u+1]]
	}
	for u, as := range sg.out {
		for _, a := range as {
			sg.in[a.to] = append(sg.in[a.to], arc{to: int32(u)})
		}
	}
	clear(sg.mark)
	clear(sg.dist)
	sg.stamp = 0
}

// sortByName orders every entity's out-arcs by the name of the entity reached, as graph.ComparePaths orders
// routes, for searches that enumerate routes in that order.
func (sg *subgraph) sortByName() {
	for _, as := range sg.out {
		slices.SortFunc(as, func(p, q arc) int { return strings.Compare(string(sg.name(p.to)), string(sg.name(q.to))) })
	}
}

// byEvidence orders the relations of one hop: the strongest evidence first (Strength, under the filter),
// then the earliest, undated last, then by name.
func (sg *subgraph) byEvidence(a, b int32) int {
	la, lb := sg.g.Link(a), sg.g.Link(b)
	return graph.HopOrder(sg.filter, la, lb)
}

type arcKey struct{ from, to int32 }

// ipath is a route in subgraph numbers.
type ipath struct{ nodes []int32 }

func (p ipath) len() int { return len(p.nodes) - 1 }

// key identifies a route by its entities.
func (p ipath) key() string {
	b := make([]byte, 0, 4*len(p.nodes))
	for _, u := range p.nodes {
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return string(b)
}

func (sg *subgraph) compare(p, q ipath) int {
	if c := cmp.Compare(p.len(), q.len()); c != 0 {
		return c
	}
	for i := 1; i < len(p.nodes); i++ {
		if p.nodes[i] != q.nodes[i] {
			if c := strings.Compare(string(sg.name(p.nodes[i])), string(sg.name(q.nodes[i]))); c != 0 {
				return c
			}
		}
	}
	return 0
}

// shortest returns the first route from s to t in route order, avoiding banned entities and arcs, of at
// most limit hops; ok is false when there is none.
func (sg *subgraph) shortest(s, t int32, bannedNodes []bool, bannedArcs map[arcKey]bool, limit int) (ipath, bool) {
	sg.stamp++
	stamp := sg.stamp
	banned := func(u int32) bool { return bannedNodes != nil && bannedNodes[u] }
	known := func(u int32) bool { return sg.mark[u] == stamp }
	sg.mark[t], sg.dist[t] = stamp, 0
	level, next := append(sg.level[0][:0], t), sg.level[1][:0]
	defer func() { sg.level = [2][]int32{level, next} }()
	for d := int32(1); int(d) <= limit && len(level) > 0; d++ {
		next = next[:0]
		for _, w := range level {
			for _, a := range sg.in[w] {
				u := a.to
				if known(u) || banned(u) || bannedArcs[arcKey{u, w}] {
					continue
				}
				sg.mark[u], sg.dist[u] = stamp, d
				next = append(next, u)
			}
		}
		if known(s) {
			break
		}
		level, next = next, level
	}
	if !known(s) {
		return ipath{}, false
	}
	d := sg.dist[s]
	p := ipath{nodes: []int32{s}}
	for u := s; d > 0; d-- {
		next, name := int32(-1), graph.EntityName("")
		for _, a := range sg.out[u] {
			if known(a.to) && sg.dist[a.to] == d-1 && !banned(a.to) && !bannedArcs[arcKey{u, a.to}] {
				if n := sg.name(a.to); next < 0 || n < name {
					next, name = a.to, n
				}
			}
		}
		p.nodes = append(p.nodes, next)
		u = next
	}
	return p, true
}

// kShortest is Yen's algorithm on routes, with ties broken as graph.ComparePaths breaks them.
func (sg *subgraph) kShortest(ctx context.Context, s, t int32, k, bound int) ([]graph.Path, error) {
	sg.prepare()
	first, ok := sg.shortest(s, t, nil, nil, bound)
	if !ok {
		return nil, nil
	}
	found := []ipath{first}
	seen := map[string]bool{first.key(): true}
	var candidates []ipath
	bannedNodes := make([]bool, len(sg.keys))
	for len(found) < k {
		if err := ctx.Err(); err != nil {
			return nil, &graph.Error{Op: "walk.FindPaths", Kind: graph.DeadlineExceeded, Message: "the path query ran out of time", Err: err}
		}
		prev := found[len(found)-1]
		for i := 0; i < prev.len(); i++ {
			spur := prev.nodes[i]
			root := prev.nodes[:i+1]
			bannedArcs := map[arcKey]bool{}
			for _, p := range found {
				if p.len() > i && slices.Equal(p.nodes[:i+1], root) {
					bannedArcs[arcKey{spur, p.nodes[i+1]}] = true
				}
			}
			clear(bannedNodes)
			for _, u := range prev.nodes[:i] {
				bannedNodes[u] = true
			}
			tail, ok := sg.shortest(spur, t, bannedNodes, bannedArcs, bound-i)
			if !ok {
				continue
			}
			p := ipath{nodes: append(slices.Clone(prev.nodes[:i]), tail.nodes...)}
			if key := p.key(); !seen[key] {
				seen[key] = true
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			break
		}
		best := 0
		for i := range candidates {
			if sg.compare(candidates[i], candidates[best]) < 0 {
				best = i
			}
		}
		found = append(found, candidates[best])
		candidates = slices.Delete(candidates, best, best+1)
	}
	out := make([]graph.Path, len(found))
	for i, p := range found {
		out[i] = sg.path(p)
	}
	return out, nil
}

// kShortestCoTemporal returns the first k routes, in route order, of at most bound hops whose hops all
// held on some common day of window (each hop holding while any of its relations held, both ends in
// existence). It enumerates routes depth first, one length at a time, in name order, keeping the days on
// which the route so far held and cutting a branch when none is left or when the target is too far
// (by hop distance, ignoring time); it stops with ResourceExhausted after budget steps.
func (sg *subgraph) kShortestCoTemporal(ctx context.Context, s, t int32, k, bound int, window graph.Period, budget int) ([]graph.Path, error) {
	sg.sortByName()
	sg.prepare()
	spans := make([][][]graph.Period, len(sg.out)) // spans[u][i]: when out[u][i] held, within window
	for u, as := range sg.out {
		spans[u] = make([][]graph.Period, len(as))
		for i, a := range as {
			var ps []graph.Period
			for _, r := range a.ids {
				if p := sg.g.Link(r).Effective().Intersect(window); !p.Empty() {
					ps = append(ps, p)
				}
			}
			spans[u][i] = unionPeriods(ps)
		}
	}
	// Hop distances to t, ignoring time, to cut branches that cannot reach it in time.
	distT := make([]int32, len(sg.keys))
	for i := range distT {
		distT[i] = -1
	}
	distT[t] = 0
	for level := []int32{t}; len(level) > 0; {
		var next []int32
		for _, w := range level {
			for _, a := range sg.in[w] {
				if distT[a.to] < 0 {
					distT[a.to] = distT[w] + 1
					next = append(next, a.to)
				}
			}
		}
		level = next
	}
	if distT[s] < 0 {
		return nil, nil
	}
	var found []graph.Path
	onPath := make([]bool, len(sg.keys))
	nodes := []int32{s}
	steps := 0
	var stop error
	var dfs func(u int32, length int, during []graph.Period)
	dfs = func(u int32, length int, during []graph.Period) {
		if stop != nil || len(found) == k {
			return
		}
		if u == t {
			if len(nodes)-1 == length {
				// Each hop carries only the relations that held during the route's window (within the query's).
				p := sg.pathWithin(ipath{nodes: slices.Clone(nodes)}, during)
				p.During = during
				found = append(found, p)
			}
			return
		}
		onPath[u] = true
		defer func() { onPath[u] = false }()
		for i, a := range sg.out[u] {
			if steps++; steps > budget {
				stop = &graph.Error{Op: "walk.FindPaths", Kind: graph.ResourceExhausted, Reason: "WORK_BUDGET_EXCEEDED",
					Message: "the co-temporal search would take more than " + strconv.Itoa(budget) + " steps; ask for a smaller max_depth or narrow the filter"}
				return
			}
			if steps%4096 == 0 && ctx.Err() != nil {
				stop = &graph.Error{Op: "walk.FindPaths", Kind: graph.DeadlineExceeded, Message: "the path query ran out of time", Err: ctx.Err()}
				return
			}
			v := a.to
			if onPath[v] || distT[v] < 0 || len(nodes)+int(distT[v]) > length {
				continue
			}
			next := intersectPeriods(during, spans[u][i])
			if len(next) == 0 {
				continue
			}
			nodes = append(nodes, v)
			dfs(v, length, next)
			nodes = nodes[:len(nodes)-1]
			if stop != nil || len(found) == k {
				return
			}
		}
	}
	for length := int(distT[s]); length <= bound && len(found) < k && stop == nil; length++ {
		dfs(s, length, []graph.Period{window})
	}
	return found, stop
}

// unionPeriods merges periods into sorted, disjoint ones.
func unionPeriods(ps []graph.Period) []graph.Period {
	slices.SortFunc(ps, func(a, b graph.Period) int { return cmp.Compare(a.Start, b.Start) })
	var out []graph.Period
	for _, p := range ps {
		if n := len(out); n > 0 && p.Start <= out[n-1].End+1 {
			out[n-1].End = max(out[n-1].End, p.End)
			continue
		}
		out = append(out, p)
	}
	return out
}

// intersectPeriods returns the days two sets of sorted, disjoint periods share, as such a set.
func intersectPeriods(a, b []graph.Period) []graph.Period {
	var out []graph.Period
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if p := a[i].Intersect(b[j]); !p.Empty() {
			out = append(out, p)
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// path turns a route into a Path: its entities, and each hop's relations in hop order.
func (sg *subgraph) path(p ipath) graph.Path { return sg.pathWithin(p, nil) }

// pathWithin is path keeping, when during is not nil, only the relations that held (with both their ends
// in existence) on some day of during: a co-temporal route's hops show what held while it did.
func (sg *subgraph) pathWithin(p ipath, during []graph.Period) graph.Path {
	out := graph.Path{Entities: make([]graph.EntityName, len(p.nodes)), Hops: make([]graph.Hop, p.len())}
	for j, u := range p.nodes {
		out.Entities[j] = sg.name(u)
	}
	for j := range out.Hops {
		u, w := p.nodes[j], p.nodes[j+1]
		var ids []int32
		for _, a := range sg.out[u] {
			if a.to == w {
				ids = slices.Clone(a.ids)
				break
			}
		}
		if during != nil {
			ids = slices.DeleteFunc(ids, func(r int32) bool {
				return len(intersectPeriods(during, []graph.Period{sg.g.Link(r).Effective()})) == 0
			})
		}
		slices.SortFunc(ids, sg.byEvidence)
		from := sg.keys[u]
		steps := make([]graph.PathStep, len(ids))
		for i, r := range ids {
			steps[i] = graph.PathStep{Relation: sg.g.Name(r), Forward: sg.g.Ends(r)[0] == from}
		}
		out.Hops[j] = graph.Hop{Relations: steps}
	}
	return out
}
