package memgraph

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// maxCandidates bounds how many entities one block of a search (the whole query, or one of its words)
// scores, nearest spellings first.
const maxCandidates = 500

// term is a distinct key or word, with its runes for the edit distance.
type term struct {
	text  string
	runes []rune
}

// termFilter is what the fuzzy scan tests a term by before its edit distance: the set of its runes, then
// their counts. The filters of a length's terms are kept together, apart from the terms, so that the scan
// reads them in order (most terms fail these tests, and reading each term's own memory would cost a cache
// miss a term).
type termFilter struct {
	mask uint64
	hist letterCounts
}

// letterCounts counts a term's runes in 32 buckets (rune r in bucket r&31, saturating at 127), eight
// buckets to a word: the sum of the differences between two terms' counts is at most twice their edit
// distance, however runes share buckets (an edit changes at most two counts, each by one, and saturation
// only narrows a difference).
type letterCounts [4]uint64

func countLetters(rs []rune) letterCounts {
	var c [32]uint8
	for _, r := range rs {
		if c[r&31] < 127 {
			c[r&31]++
		}
	}
	var h letterCounts
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(c[8*i:])
	}
	return h
}

const (
	highBits  = 0x8080808080808080 // the top bit of each byte
	lowBits   = 0x7f7f7f7f7f7f7f7f // the other seven
	evenBytes = 0x00ff00ff00ff00ff
)

// distance is the sum of the differences between two terms' counts, bucket by bucket, eight buckets at a
// time: with every count below 128, (a|128)-b is a-b+128 in each byte, and no byte borrows from the next.
func (h *letterCounts) distance(o *letterCounts) int {
	var lanes uint64 // four sums of 16 bits
	for i := range h {
		x := (h[i] | highBits) - o[i]
		lo := x & lowBits                       // a-b where a >= b, 128-(b-a) where a < b
		ge := ((x & highBits) >> 7) * 0xff      // 0xff in the bytes where a >= b
		d := lo&ge | (highBits-lo)&^ge          // |a-b| in each byte, at most 127
		lanes += d&evenBytes + (d>>8)&evenBytes // each lane at most 4·2·127 in the end
	}
	return int((lanes * 0x0001000100010001) >> 48)
}

// within reports whether the counts of two terms allow them to be within d edits.
func (h *letterCounts) within(o *letterCounts, d int) bool { return h.distance(o) <= 2*d }

// letterMask is the set of a term's runes, by the same buckets as letterCounts (each rune r in bucket
// r&63 of 64): an edit adds a rune, drops one or replaces one, so two terms within d edits differ in at
// most 2d buckets.
func letterMask(rs []rune) uint64 {
	var m uint64
	for _, r := range rs {
		m |= 1 << (r & 63)
	}
	return m
}

// maxBucket is the last of the postings' length buckets: it holds every term of that many runes or more.
const maxBucket = 63

// postings maps terms to the entities that have them; a published one is never written. The distinct
// terms are kept by length in runes, so that the fuzzy scan reads only the terms whose length is within
// the budget of the query's.
type postings struct {
	lists   layered[string, []int32]
	starts  layered[string, []string] // the terms of graph.MinPrefix runes or more, by their first two
	byLen   [maxBucket + 1]chunked[term]
	filters [maxBucket + 1]chunked[termFilter] // each term's filter, beside it
}

func (p *postings) of(t string) []int32 {
	es, _ := p.lists.get(t)
	return es
}

// postingsBuilder builds the next version of published postings.
type postingsBuilder struct {
	lists     layeredBuilder[string, []int32]
	starts    layeredBuilder[string, []string]
	published *postings
	byLen     [maxBucket + 1]*chunkedBuilder[term] // made on the first term of each length
	filters   [maxBucket + 1]*chunkedBuilder[termFilter]
}

func newPostingsBuilder(published postings) *postingsBuilder {
	return &postingsBuilder{lists: layeredBuilder[string, []int32]{m: published.lists},
		starts: layeredBuilder[string, []string]{m: published.starts}, published: &published}
}

// add records that entity u has term t. Appending to a term's list writes past the length every
// published snapshot holds of it (each list is its own array); the new list goes into the recent layer.
func (b *postingsBuilder) add(t string, u int32) {
	old, known := b.lists.m.get(t)
	if !known {
		rs := []rune(t)
		k := min(len(rs), maxBucket)
		if b.byLen[k] == nil {
			b.byLen[k], b.filters[k] = newChunkedBuilder(b.published.byLen[k]), newChunkedBuilder(b.published.filters[k])
		}
		b.byLen[k].append(term{text: t, runes: rs})
		b.filters[k].append(termFilter{mask: letterMask(rs), hist: countLetters(rs)})
		if len(rs) > graph.MinPrefix {
			start := string(rs[:2])
			ts, _ := b.starts.m.get(start)
			b.starts.set(start, append(ts, t))
		}
	}
	b.lists.set(t, append(old, u))
}

func (b *postingsBuilder) finish() postings {
	p := postings{lists: b.lists.finish(), starts: b.starts.finish(), byLen: b.published.byLen, filters: b.published.filters}
	for k, lb := range b.byLen {
		if lb != nil {
			p.byLen[k], p.filters[k] = lb.c, b.filters[k].c
		}
	}
	return p
}

// near returns the entities of the terms within d edits of q, nearest first, at most maxCandidates.
func (p *postings) near(q string, d int) []int32 {
	if d == 0 {
		es := p.of(q)
		return es[:min(len(es), maxCandidates)]
	}
	qr := []rune(q)
	qh, qm := countLetters(qr), letterMask(qr)
	type hit struct {
		dist int
		t    string
	}
	var hits []hit
	for k := max(len(qr)-d, 0); k <= min(len(qr)+d, maxBucket); k++ {
		bucket, filters := &p.byLen[k], &p.filters[k]
		for c := range bucket.chunks {
			for i := range filters.chunks[c] {
				f := &filters.chunks[c][i]
				if bits.OnesCount64(f.mask^qm) > 2*d || !qh.within(&f.hist, d) {
					continue
				}
				t := &bucket.chunks[c][i]
				if k == maxBucket && max(len(t.runes)-len(qr), len(qr)-len(t.runes)) > d {
					continue
				}
				if e := graph.EditsWithin(qr, t.runes, d); e >= 0 {
					hits = append(hits, hit{e, t.text})
				}
			}
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.t, b.t)) })
	var out []int32
	for _, h := range hits {
		for _, u := range p.of(h.t) {
			if len(out) == maxCandidates {
				return out
			}
			out = append(out, u)
		}
	}
	return out
}

// prefixed returns the entities of the terms that q begins and is shorter than (graph.PrefixScore),
// shortest terms first, at most maxCandidates.
func (p *postings) prefixed(q string) []int32 {
	qr := []rune(q)
	if len(qr) < graph.MinPrefix {
		return nil
	}
	ts, _ := p.starts.get(string(qr[:2]))
	var hits []string
	for _, t := range ts {
		if len(t) > len(q) && strings.HasPrefix(t, q) {
			hits = append(hits, t)
		}
	}
	slices.SortFunc(hits, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	var out []int32
	for _, h := range hits {
		for _, u := range p.of(h) {
			if len(out) == maxCandidates {
				return out
			}
			out = append(out, u)
		}
	}
	return out
}

// search answers a SearchQuery from the snapshot's entities, as the store's Search does.
func (s *topoSnapshot) search(q graph.SearchQuery) []graph.SearchResult {
	key := graph.NormalizeName(q.Text)
	if key == "" {
		return nil
	}
	words := strings.Fields(key)
	if len(words) > graph.MaxSearchWords {
		words = words[:graph.MaxSearchWords]
	}
	m := graph.NewRanker(key)
	seen := map[int32]bool{}
	var out []graph.SearchResult
	consider := func(us []int32) {
		for _, u := range us {
			if seen[u] {
				continue
			}
			seen[u] = true
			e := s.entity.get(u)
			if e == nil {
				continue
			}
			if r, ok := m.Rank(e, q.Kinds); ok {
				out = append(out, r)
			}
		}
	}
	consider(s.keys.near(key, 0))
	if d := graph.EditBudget(len([]rune(key))); d > 0 {
		consider(s.keys.near(key, d))
	}
	for _, w := range words {
		consider(s.words.near(w, graph.EditBudget(len([]rune(w)))))
		for _, h := range graph.SearchHypocorisms(w) {
			consider(s.words.near(h, 0))
		}
	}
	if all := strings.Fields(key); len([]rune(all[len(all)-1])) >= graph.MinPrefix {
		last := all[len(all)-1]
		consider(s.words.prefixed(last)) // the word being typed
	}
	graph.SortSearchResults(out)
	return out
}
