package walk

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// strongest gives the walk the same entities, in the same order, as sorting every candidate would: hubs'
// candidates with tied strengths and entities joined several times included.
func TestStrongestAgreesWithSortingAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	firstDistinct := func(cs []candidate, n int) []int32 {
		var out []int32
		seen := map[int32]bool{}
		for _, c := range cs {
			if len(out) == n {
				break
			}
			if !seen[c.to] {
				seen[c.to] = true
				out = append(out, c.to)
			}
		}
		return out
	}
	nameOf := func(to int32) graph.EntityName { return graph.EntityName(fmt.Sprintf("actors/e%04d", to)) }
	levels := []float64{-1, 0, 0.25, 0.5, 0.5, 0.75, 0.9, 1}
	large := 0
	for trial := 0; trial < 2000; trial++ {
		entities := 1 + r.IntN(300)
		items := make([]candidate, r.IntN(2000))
		for i := range items {
			to := int32(r.IntN(entities))
			s := levels[r.IntN(len(levels))]
			if trial%3 == 0 {
				s = r.Float64() // few ties
			}
			items[i] = candidate{to: to, strength: s}
		}
		n := 1 + r.IntN(40)
		all := slices.Clone(items)
		for i := range all {
			all[i].name = nameOf(all[i].to)
		}
		slices.SortFunc(all, byStrength)
		if len(items) > 4*n {
			large++
		}
		got := strongest(slices.Clone(items), n, nameOf)
		if want, have := firstDistinct(all, n), firstDistinct(got, n); !slices.Equal(want, have) {
			t.Fatalf("trial %d (%d candidates, %d wanted): strongest shows %v, sorting all %v", trial, len(items), n, have, want)
		}
	}
	if large < 1000 {
		t.Fatalf("only %d of 2000 trials had more candidates than strongest sorts whole", large)
	}
}
