package synth

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+q)^s (Zipf–Mandelbrot): a few ranks
// are drawn very often and most rarely. q > 0 flattens the head.
type zipf struct{ cdf []float64 }

func newZipf(n int, s, q float64) *zipf {
	cdf := make([]float64, max(n, 1))
	sum := 0.0
	for k := range cdf {
		sum += 1 / math.Pow(float64(k)+q, s)
		cdf[k] = sum
	}
	return &zipf{cdf: cdf}
}

func (z *zipf) draw(r *rand.Rand) int {
	u := r.Float64() * z.cdf[len(z.cdf)-1]
	return min(sort.SearchFloat64s(z.cdf, u), len(z.cdf)-1)
}

// hashSet is a set of non-zero 64-bit hashes with open addressing: a few bytes per member, so that the
// generator can tell every relation name it has written apart without keeping the names.
type hashSet struct {
	slots []uint64
	n     int
}

func newHashSet(capacity int) *hashSet {
	size := 1024
	for size < capacity*2 {
		size *= 2
	}
	return &hashSet{slots: make([]uint64, size)}
}

// add inserts h and reports whether it was absent.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if s.n*2 >= len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, len(old)*2)
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}

// fnv64 hashes a string with FNV-1a.
func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
