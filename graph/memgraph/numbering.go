package memgraph

import (
	"hash/maphash"
	"math/bits"
)

// numbered numbers names from 0; a published one is never written. The names numbered up to some past
// sync are found through frozen, an index that holds no pointer (the collector never scans it: a million
// relation names in a Go map cost it 60 MB of keys to scan at every collection); those numbered since,
// through the small map recent.
type numbered[K ~string] struct {
	frozen idIndex
	recent map[K]int32
	keys   chunked[K]
}

func (n *numbered[K]) lookup(k K) (int32, bool) { return findID(&n.frozen, n.recent, &n.keys, k) }

func (n *numbered[K]) key(id int32) K { return n.keys.get(id) }

func (n *numbered[K]) len() int { return n.keys.len() }

// numberedBuilder builds the next version of a published numbering: the first name it numbers copies
// the recent map (small), never the frozen index.
type numberedBuilder[K ~string] struct {
	n           numbered[K]
	keys        *chunkedBuilder[K]
	ownedRecent bool
}

func newNumberedBuilder[K ~string](published numbered[K]) *numberedBuilder[K] {
	return &numberedBuilder[K]{n: published, keys: newChunkedBuilder(published.keys)}
}

func (b *numberedBuilder[K]) lookup(k K) (int32, bool) {
	return findID(&b.n.frozen, b.n.recent, &b.keys.c, k)
}

// number returns k's number, giving it the next one (isNew) when k is new.
func (b *numberedBuilder[K]) number(k K) (id int32, isNew bool) {
	if id, ok := b.lookup(k); ok {
		return id, false
	}
	id = b.keys.append(k)
	setOwned(&b.n.recent, &b.ownedRecent, k, id)
	return id, true
}

func (b *numberedBuilder[K]) key(id int32) K { return b.keys.get(id) }

// finish returns the numbering to publish, indexing every name anew once the recent ones have grown past
// an eighth of the frozen ones.
func (b *numberedBuilder[K]) finish() numbered[K] {
	out := b.n
	out.keys = b.keys.c
	if len(out.recent) > max(4096, out.frozen.n/8) {
		out.frozen, out.recent = indexIDs(&out.keys), nil
	}
	return out
}

// idIndex finds the numbers of the first n names of a numbering. It is a table of open addressing,
// probed linearly and at most half full, whose slots hold a number (plus one; 0 is an empty slot) beside
// the high half of its name's hash: a probe reads the name itself, from the numbering's keys, only when
// the halves agree.
type idIndex struct {
	slots []uint64
	n     int
}

var idSeed = maphash.MakeSeed()

// idHash is the hash of a name an idIndex files it under (a test makes names collide).
var idHash = func(name string) uint64 { return maphash.String(idSeed, name) }

// indexIDs indexes every name of keys.
func indexIDs[K ~string](keys *chunked[K]) idIndex {
	n := keys.len()
	if n == 0 {
		return idIndex{}
	}
	x := idIndex{slots: make([]uint64, 1<<bits.Len(uint(2*n-1))), n: n}
	mask := uint64(len(x.slots) - 1)
	for id := range int32(n) {
		h := idHash(string(keys.get(id)))
		for i := h & mask; ; i = (i + 1) & mask {
			if x.slots[i] == 0 {
				x.slots[i] = h&^(1<<32-1) | uint64(id+1)
				break
			}
		}
	}
	return x
}

// findID returns k's number, when recent or x holds it; keys are the numbering's names.
func findID[K ~string](x *idIndex, recent map[K]int32, keys *chunked[K], k K) (int32, bool) {
	if id, ok := recent[k]; ok {
		return id, true
	}
	if x.n == 0 {
		return 0, false
	}
	h := idHash(string(k))
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h>>32 {
			if id := int32(s&(1<<32-1)) - 1; keys.get(id) == k {
				return id, true
			}
		}
	}
}
