package memgraph

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// chunked is an array held in chunks; a published one is never written below its length.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) at(i int32) *T { return &c.chunks[i>>chunkBits][i&chunkMask] }

func (c *chunked[T]) get(i int32) T { return c.chunks[i>>chunkBits][i&chunkMask] }

func (c *chunked[T]) len() int { return c.n }

// chunkedBuilder builds the next version of a published chunked array.
type chunkedBuilder[T any] struct {
	c     chunked[T]
	base  int          // the published length: elements below it are seen by readers
	owned map[int]bool // chunks copied or made by this builder
}

func newChunkedBuilder[T any](published chunked[T]) *chunkedBuilder[T] {
	return &chunkedBuilder[T]{c: chunked[T]{chunks: append([][]T(nil), published.chunks...), n: published.n},
		base: published.n, owned: map[int]bool{}}
}

// set writes element i, copying its chunk first when a reader may see the element.
func (b *chunkedBuilder[T]) set(i int32, v T) {
	k := int(i >> chunkBits)
	if int(i) < b.base && !b.owned[k] {
		cp := make([]T, len(b.c.chunks[k]), chunkSize)
		copy(cp, b.c.chunks[k])
		b.c.chunks[k] = cp
		b.owned[k] = true
	}
	b.c.chunks[k][i&chunkMask] = v
}

// append adds an element and returns its index. Chunks are made with their full capacity, so an append
// never moves a chunk that a reader holds; it writes past every published length.
func (b *chunkedBuilder[T]) append(v T) int32 {
	i := b.c.n
	k := i >> chunkBits
	if k == len(b.c.chunks) {
		b.c.chunks = append(b.c.chunks, make([]T, 0, chunkSize))
		b.owned[k] = true
	}
	b.c.chunks[k] = append(b.c.chunks[k], v)
	b.c.n++
	return int32(i)
}

func (b *chunkedBuilder[T]) get(i int32) T { return b.c.get(i) }

// layered is a map published in two layers: a large one frozen at some past sync and a smaller one of
// what was set since, which shadows it. A published one is never written.
type layered[K comparable, V any] struct {
	frozen map[K]V
	recent map[K]V
}

func (m *layered[K, V]) get(k K) (V, bool) {
	if v, ok := m.recent[k]; ok {
		return v, true
	}
	v, ok := m.frozen[k]
	return v, ok
}

// layeredBuilder builds the next version of a published layered map: the first set copies the recent
// layer (small), never the frozen one.
type layeredBuilder[K comparable, V any] struct {
	m           layered[K, V]
	ownedRecent bool
}

func (b *layeredBuilder[K, V]) set(k K, v V) { setOwned(&b.m.recent, &b.ownedRecent, k, v) }

// setOwned sets k to v in the map *m, copying the map first unless *owned says it was copied already (or
// made) by the builder that sets it: a published map is never written.
func setOwned[K comparable, V any](m *map[K]V, owned *bool, k K, v V) {
	if !*owned {
		*m = maps.Clone(*m)
		if *m == nil {
			*m = map[K]V{}
		}
		*owned = true
	}
	(*m)[k] = v
}

// finish returns the map to publish, merging the recent layer into a new frozen one once it has grown
// past an eighth of it.
func (b *layeredBuilder[K, V]) finish() layered[K, V] {
	out := b.m
	if len(out.recent) > max(4096, len(out.frozen)/8) {
		frozen := make(map[K]V, len(out.frozen)+len(out.recent))
		maps.Copy(frozen, out.frozen)
		maps.Copy(frozen, out.recent)
		out.frozen, out.recent = frozen, nil
	}
	return out
}

// topoSnapshot is one immutable version of the topology's links.
type topoSnapshot struct {
	version int64
	gen     int64 // the feed's generation it was filled in (Generations)
	ents    numbered[graph.EntityName]
	rels    numbered[graph.RelationName]
	core    chunked[linkCore]        // what each relation's link holds besides its brief and its names
	odd     layered[int32, oddType]  // the type of each relation whose type is outside the vocabulary
	brief   chunked[linkBrief]       // what walks read of each relation, in one place
	adj     chunked[[]walk.HalfEdge] // each entity's relations, with their other ends
	at      chunked[[2]int32]        // where each relation stands in its from's list and in its to's
	byDflt  chunked[uint64]          // whether each relation counts under the default filter, a bit each
	entity  chunked[*graph.Entity]   // each entity, as last written (nil: known only from a relation's end)
	detail  chunked[linkDetail]      // what each relation's header holds besides its link, from the feed
	rest    chunked[*linkRest]       // the rest of it, for the few relations that have some (nil: none)
	claims  chunked[claimBlob]       // each relation's claims, when the feed gave them (evidence.go)
	srcs    numbered[graph.SourceName]
	source  chunked[*graph.Source]  // each source, as last written
	changed chunked[int64]          // the epoch of the snapshot that last changed each relation
	epoch   int64                   // one more than the snapshot this one was built from
	keys    postings                // the entities of each search key (normalised name)
	words   postings                // the entities of each word of a search key
	hubs    chunked[*walk.HubIndex] // the index of each entity's list, when it is long (hubindex.go)
	hubMin  int                     // the length from which a list is indexed (0: defaultHubMin)
}

// linkCore is what a relation's link holds besides its brief, its name and its ends' names (which the
// numberings hold) and its type (the brief's, or odd's): a snapshot keeps its links in those parts, and
// makes a Link when asked (link), so that the arrays of a million relations hold no pointer and the
// collector never scans them.
type linkCore struct{ period, life graph.Period }

// oddType is the type of a relation outside the vocabulary, and whether the link said it is symmetric
// (the vocabulary says it of its own types).
type oddType struct {
	typ       graph.RelationType
	symmetric bool
}

// link returns relation i's link.
func (s *topoSnapshot) link(i int32) graph.Link {
	b, c := s.brief.at(i), s.core.at(i)
	l := graph.Link{Name: s.rels.key(i), From: s.ents.key(b.ends[0]), To: s.ents.key(b.ends[1]), Period: c.period, Dated: b.dated,
		Life: c.life, Support: b.support, Deleted: b.deleted}
	l.Type, l.Symmetric = s.relType(i)
	return l
}

// relType returns relation i's type and whether it is symmetric, from its brief when the type is the
// vocabulary's.
func (s *topoSnapshot) relType(i int32) (graph.RelationType, bool) {
	if n := s.brief.at(i).typ; n != 0 {
		return graph.RelationTypes[n-1], walk.SymmetricByNumber[n]
	}
	o, _ := s.odd.get(i)
	return o.typ, o.symmetric
}

// header returns relation i's header, when the snapshot holds it from the feed.
func (s *topoSnapshot) header(i int32) (graph.RelationHeader, bool) {
	d := s.detail.at(i)
	if !d.known {
		return graph.RelationHeader{}, false
	}
	l := s.link(i)
	return d.header(&l, s.rest.get(i)), true
}

// linkBrief is what walks read of most relations, kept together so that a walk reads one small record
// per relation instead of the whole link: its ends, and what a plain filter asks of it.
type linkBrief struct {
	ends           [2]int32
	support        graph.Support
	dated, deleted bool
	typ            uint8 // one more than its type's place in RelationTypes; 0: a type outside the vocabulary
}

func briefOf(l graph.Link, from, to int32) linkBrief {
	return linkBrief{ends: [2]int32{from, to}, support: l.Support, dated: l.Dated, deleted: l.Deleted, typ: walk.TypeNumber[l.Type]}
}

// snapshotBuilder builds the next snapshot from the published one.
type snapshotBuilder struct {
	version int64
	ents    *numberedBuilder[graph.EntityName]
	rels    *numberedBuilder[graph.RelationName]
	core    *chunkedBuilder[linkCore]
	odd     layeredBuilder[int32, oddType]
	brief   *chunkedBuilder[linkBrief]
	adj     *chunkedBuilder[[]walk.HalfEdge]
	at      *chunkedBuilder[[2]int32]
	mine    map[int32]bool // the lists this builder copied: their entries may be written in place
	byDflt  *chunkedBuilder[uint64]
	entity  *chunkedBuilder[*graph.Entity]
	detail  *chunkedBuilder[linkDetail]
	rest    *chunkedBuilder[*linkRest]
	claims  *chunkedBuilder[claimBlob]
	srcs    *numberedBuilder[graph.SourceName]
	source  *chunkedBuilder[*graph.Source]
	changed *chunkedBuilder[int64]
	epoch   int64
	keys    *postingsBuilder
	words   *postingsBuilder
	roles   map[string]string // one copy of each role the headers name
	blobBuf []byte            // where claimsOf writes
	hubs    *chunkedBuilder[*walk.HubIndex]
	hubMin  int
	touched map[int32]bool // the entities whose lists this builder changed
}

func newSnapshotBuilder(s *topoSnapshot) *snapshotBuilder {
	return &snapshotBuilder{version: s.version, ents: newNumberedBuilder(s.ents), rels: newNumberedBuilder(s.rels),
		core: newChunkedBuilder(s.core), odd: layeredBuilder[int32, oddType]{m: s.odd}, brief: newChunkedBuilder(s.brief), adj: newChunkedBuilder(s.adj), at: newChunkedBuilder(s.at), byDflt: newChunkedBuilder(s.byDflt),
		entity: newChunkedBuilder(s.entity), detail: newChunkedBuilder(s.detail), rest: newChunkedBuilder(s.rest), claims: newChunkedBuilder(s.claims),
		srcs: newNumberedBuilder(s.srcs), source: newChunkedBuilder(s.source), changed: newChunkedBuilder(s.changed), epoch: s.epoch + 1, keys: newPostingsBuilder(s.keys), words: newPostingsBuilder(s.words),
		hubs: newChunkedBuilder(s.hubs), hubMin: cmp.Or(s.hubMin, defaultHubMin), touched: map[int32]bool{}}
}

// apply adds or replaces sources, entities and links. A relation's ends never change (its name is made of
// them), so a changed relation only replaces its own entry.
func (b *snapshotBuilder) apply(c graph.Changed) {
	for _, src := range c.Sources {
		b.setSource(src)
	}
	for _, e := range c.Entities {
		b.setEntity(e)
	}
	withHeaders := len(c.Headers) == len(c.Links)
	for k, l := range c.Links {
		a, e := b.node(l.From), b.node(l.To)
		l.From, l.To = b.ents.key(a), b.ents.key(e) // one copy of each name
		var d linkDetail                            // none: answers read the header from the store
		var rest *linkRest
		var claims claimBlob
		if withHeaders && c.Headers[k].Relation.Name != "" {
			h := &c.Headers[k]
			d, rest = detailOf(*h, &l, b.intern)
			if rest != nil {
				rest.via, rest.term = b.sameName(rest.via), b.sameName(rest.term)
			}
			if d.known && c.Evidence {
				claims, d.evidence = b.claimsOf(h)
			}
		}
		i, isNew := b.rels.number(l.Name)
		strength := walk.DefaultStrength(l.Support)
		b.touched[a], b.touched[e] = true, true
		core := linkCore{period: l.Period, life: l.Life}
		brief := briefOf(l, a, e)
		if brief.typ == 0 {
			b.odd.set(i, oddType{typ: l.Type, symmetric: l.Symmetric})
		}
		if !isNew {
			if walk.DefaultStrength(b.brief.get(i).support) != strength {
				b.restrength(i, a, e, strength)
			}
			b.core.set(i, core)
			b.brief.set(i, brief)
			b.detail.set(i, d)
			b.rest.set(i, rest)
			b.claims.set(i, claims)
			b.changed.set(i, b.epoch)
			b.countsByDefault(i, &l)
			continue
		}
		b.core.append(core)
		b.detail.append(d)
		b.rest.append(rest)
		b.claims.append(claims)
		b.changed.append(b.epoch)
		b.brief.append(brief)
		b.countsByDefault(i, &l)
		typ := brief.typ
		var at [2]int32
		at[0] = b.relate(a, walk.HalfEdge{Rel: i, To: e, Type: typ, Out: true, Strength: strength})
		if e != a {
			at[1] = b.relate(e, walk.HalfEdge{Rel: i, To: a, Type: typ, Strength: strength})
		}
		b.at.append(at)
	}
}

// intern returns one copy of each role.
func (b *snapshotBuilder) intern(role string) string {
	if role == "" {
		return ""
	}
	if r, ok := b.roles[role]; ok {
		return r
	}
	if b.roles == nil {
		b.roles = map[string]string{}
	}
	b.roles[role] = role
	return role
}

// sameName returns the snapshot's copy of n when it numbers n, else n.
func (b *snapshotBuilder) sameName(n graph.EntityName) graph.EntityName {
	if u, ok := b.ents.lookup(n); ok {
		return b.ents.key(u)
	}
	return n
}

// relate adds relation h to entity u's and returns where it stands there. Each entity's list is its own
// array, so appending to it writes past the length every published snapshot holds of it; only the list's
// header is set anew. A relation's ends never change (its name holds them), so neither does its place in
// a list, nor most of its entry: only its strength does (restrength).
func (b *snapshotBuilder) relate(u int32, h walk.HalfEdge) int32 {
	list := b.adj.get(u)
	b.adj.set(u, append(list, h))
	return int32(len(list))
}

// restrength sets the strength of relation r, whose ends are from and to, in both their lists. An entry
// a published snapshot can see is never written: the builder copies a list the first time it changes one
// of its entries (a hub's thousands of entries at most once a sync).
func (b *snapshotBuilder) restrength(r, from, to int32, strength float64) {
	at := b.at.get(r)
	for k, u := range [2]int32{from, to} {
		if k == 1 && to == from {
			break
		}
		list := b.adj.get(u)
		if !b.mine[u] {
			list = slices.Clone(list)
			b.adj.set(u, list)
			if b.mine == nil {
				b.mine = map[int32]bool{}
			}
			b.mine[u] = true
		}
		list[at[k]].Strength = strength
	}
}

// countsByDefault records whether relation r, whose link is l, counts under the default filter.
func (b *snapshotBuilder) countsByDefault(r int32, l *graph.Link) {
	var dflt graph.RelationFilter
	counts := dflt.CountsLink(l)
	w := r >> 6
	for int(w) >= b.byDflt.c.len() {
		b.byDflt.append(0)
	}
	word, bit := b.byDflt.get(w), uint64(1)<<(r&63)
	if counts == (word&bit != 0) {
		return
	}
	b.byDflt.set(w, word^bit)
}

// node returns an entity's number, numbering it when new.
func (b *snapshotBuilder) node(n graph.EntityName) int32 {
	u, isNew := b.ents.number(n)
	if isNew {
		b.adj.append(nil)
		b.entity.append(nil)
	}
	return u
}

// setEntity records an entity as written, and indexes the search keys and words it did not have.
func (b *snapshotBuilder) setEntity(e graph.Entity) {
	u := b.node(e.Name)
	e.Name = b.ents.key(u)
	var oldKeys, oldWords []string
	if old := b.entity.get(u); old != nil {
		oldKeys, oldWords = old.SearchKeys(), old.SearchTokens()
	}
	for _, k := range e.SearchKeys() {
		if !slices.Contains(oldKeys, k) {
			b.keys.add(k, u)
		}
	}
	for _, w := range e.SearchTokens() {
		if !slices.Contains(oldWords, w) {
			b.words.add(w, u)
		}
	}
	b.entity.set(u, &e)
}

func (b *snapshotBuilder) finish(version int64) *topoSnapshot {
	s := &topoSnapshot{hubMin: b.hubMin, version: max(b.version, version), ents: b.ents.finish(), rels: b.rels.finish(),
		core: b.core.c, odd: b.odd.finish(), brief: b.brief.c, adj: b.adj.c, at: b.at.c, byDflt: b.byDflt.c, entity: b.entity.c, detail: b.detail.c, rest: b.rest.c, claims: b.claims.c,
		srcs: b.srcs.finish(), source: b.source.c, changed: b.changed.c, epoch: b.epoch, keys: b.keys.finish(), words: b.words.finish()}
	// Indexed from the snapshot itself, before anyone sees it.
	b.indexHubs(snapshotGraph{s})
	s.hubs = b.hubs.c
	return s
}

// entities returns the entities the snapshot holds of names; a name it does not hold is left out.
func (s *topoSnapshot) entities(names []graph.EntityName) map[graph.EntityName]graph.Entity {
	out := make(map[graph.EntityName]graph.Entity, len(names))
	for _, n := range names {
		if u, ok := s.ents.lookup(n); ok {
			if e := s.entity.get(u); e != nil {
				out[n] = *e
			}
		}
	}
	return out
}

// Links returns the links of each entity, as the snapshot holds them.
func (s *topoSnapshot) read(entities []graph.EntityName) map[graph.EntityName][]graph.Link {
	out := make(map[graph.EntityName][]graph.Link, len(entities))
	for _, e := range entities {
		var idx []walk.HalfEdge
		if u, ok := s.ents.lookup(e); ok {
			idx = s.adj.get(u)
		}
		ls := make([]graph.Link, len(idx))
		for j, h := range idx {
			ls[j] = s.link(h.Rel)
		}
		out[e] = ls
	}
	return out
}

// degrees returns how many relations each entity takes part in.
func (s *topoSnapshot) degrees(entities []graph.EntityName) map[graph.EntityName]int {
	out := make(map[graph.EntityName]int, len(entities))
	for _, e := range entities {
		if u, ok := s.ents.lookup(e); ok {
			out[e] = len(s.adj.get(u))
		} else {
			out[e] = 0
		}
	}
	return out
}

// snapshotGraph is a snapshot as a path search sees it.
type snapshotGraph struct{ s *topoSnapshot }

func (g snapshotGraph) Node(n graph.EntityName) (int32, bool) { return g.s.ents.lookup(n) }

func (g snapshotGraph) Fetch(context.Context, []int32) error { return nil }

func (g snapshotGraph) RelationsOf(u int32) []walk.HalfEdge { return g.s.adj.get(u) }

func (g snapshotGraph) Degree(u int32) int { return len(g.s.adj.get(u)) }

func (g snapshotGraph) Entities() int { return g.s.ents.len() }

func (g snapshotGraph) Link(r int32) graph.Link { return g.s.link(r) }

func (g snapshotGraph) Name(r int32) graph.RelationName { return g.s.rels.key(r) }

func (g snapshotGraph) Ends(r int32) [2]int32 { return g.s.brief.at(r).ends }

func (g snapshotGraph) Support(r int32) *graph.Support { return &g.s.brief.at(r).support }

func (g snapshotGraph) RelType(r int32) (graph.RelationType, bool) { return g.s.relType(r) }

// Counts reads a plain filter's verdict from the relation's brief, without its link.
func (g snapshotGraph) Counts(f *graph.RelationFilter, r int32) bool {
	if !f.Plain() {
		b, c := g.s.brief.at(r), g.s.core.at(r)
		t, _ := g.RelType(r)
		return f.CountsParts(b.deleted, t, c.period.Intersect(c.life), b.dated, &b.support)
	}
	if f.IsDefault() {
		return g.s.byDflt.get(r>>6)&(1<<(r&63)) != 0
	}
	b := g.s.brief.at(r)
	return f.CountsBrief(b.deleted, b.dated, &b.support)
}

// Header implements walk.Headers.
func (g snapshotGraph) Header(r int32) (graph.RelationHeader, bool) { return g.s.header(r) }

func (g snapshotGraph) Entity(u int32) graph.EntityName { return g.s.ents.key(u) }

// byName returns the live entities one of whose names normalises as text does, by resource name, at
// most maxByName, as Store.FindByName does.
func (s *topoSnapshot) byName(text string) []graph.Entity {
	key := graph.NormalizeName(text)
	if key == "" {
		return nil
	}
	var out []graph.Entity
	for _, u := range s.keys.of(key) {
		e := s.entity.get(u)
		if e == nil || !e.Deleted.IsZero() || !slices.Contains(e.SearchKeys(), key) {
			continue // deleted entities are found only by their resource name; a stale posting
		}
		if !slices.ContainsFunc(out, func(o graph.Entity) bool { return o.Name == e.Name }) {
			out = append(out, *e)
		}
	}
	slices.SortFunc(out, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out[:min(len(out), maxByName)]
}

// maxByName is how many entities of one name Resolve lists.
const maxByName = 50
