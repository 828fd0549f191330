package memgraph

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestLetterCountsDistanceCountsEachBucket checks the eight-buckets-a-word distance between letter counts
// against the sum over the buckets one by one, on random terms, some long enough to saturate a bucket.
func TestLetterCountsDistanceCountsEachBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	term := func() []rune {
		const letters = "abcxyz éô019'"
		rs := make([]rune, r.IntN(20))
		for i := range rs {
			rs[i] = []rune(letters)[r.IntN(len([]rune(letters)))]
		}
		if r.IntN(8) == 0 { // past the saturation of one bucket
			rs = append(rs, []rune(strings.Repeat(string(rs[:min(len(rs), 1)])+"q", 60+r.IntN(200)))...)
		}
		return rs
	}
	bucketwise := func(a, b []rune) int {
		var ca, cb [32]int
		for _, x := range a {
			ca[x&31] = min(ca[x&31]+1, 127)
		}
		for _, x := range b {
			cb[x&31] = min(cb[x&31]+1, 127)
		}
		sum := 0
		for i := range ca {
			sum += max(ca[i]-cb[i], cb[i]-ca[i])
		}
		return sum
	}
	for range 20000 {
		a, b := term(), term()
		ha, hb := countLetters(a), countLetters(b)
		if got, want := ha.distance(&hb), bucketwise(a, b); got != want {
			t.Fatalf("distance(%q, %q) = %d, bucket by bucket %d", string(a), string(b), got, want)
		}
	}
}

// TestLetterCountsNeverRuleOutAMatch checks that the letter counts never rule out a pair within the edit
// distance asked for.
func TestLetterCountsNeverRuleOutAMatch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		a := []rune(typo(r, typo(r, "abcdefghij"[:r.IntN(11)])))
		b := []rune(typo(r, typo(r, string(a))))
		d := r.IntN(4)
		full := graph.EditsWithin(a, b, len(a)+len(b))
		ha, hb := countLetters(a), countLetters(b)
		if full <= d && !ha.within(&hb, d) {
			t.Fatalf("the letter counts of %q and %q rule out %d edits, but the distance is %d", string(a), string(b), d, full)
		}
	}
}
