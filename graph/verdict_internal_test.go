package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// VerdictOf counts a few claims' distinct sources without sets: it agrees with the count by sets on
// random claims, retracted ones and statuses outside the vocabulary included.
func TestVerdictOfAgreesWithSets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	statuses := append(slices.Clone(ClaimStatuses), "RUMOURED")
	for range 2000 {
		claims := make([]Claim, r.IntN(20))
		for i := range claims {
			claims[i] = Claim{Source: Source{Name: SourceName(fmt.Sprintf("sources/s%d", r.IntN(4)))}, Status: statuses[r.IntN(len(statuses))]}
			if r.IntN(5) == 0 {
				claims[i].Retracted = Tombstone{Time: time.Unix(1, 0)}
			}
		}
		if got, want := VerdictOf(claims), verdictBySets(claims); got != want {
			t.Fatalf("VerdictOf(%+v) = %+v, want %+v", claims, got, want)
		}
	}
}
