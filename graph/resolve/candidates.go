package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Pair is two entities of the graph that may be one, with the score that says so.
type Pair struct {
	A, B  graph.Entity
	Score Score
}

// maxBlock bounds how many entities of one block are compared pairwise (a common surname's thousands
// would cost millions of comparisons and propose little).
const maxBlock = 200

// Candidates returns the pairs of entities, among ents, that a score merges or proposes, best first
// (then by names): people of one surname compared by ComparePeople, parties and organisations of one
// name form by CompareOrgs. Deleted and merged entities take no part.
func Candidates(ents []graph.Entity) []Pair {
	blocks := map[string][]int{}
	for i, e := range ents {
		if !e.Deleted.IsZero() || e.MergedInto != "" {
			continue
		}
		keys := map[string]bool{}
		for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
			switch e.Kind {
			case graph.KindActor:
				if w := PersonWords(n); len(w) > 1 {
					keys["actor:"+w[len(w)-1]] = true
				}
			case graph.KindParty, graph.KindOrganisation:
				if k := OrgKey(n); k != "" {
					keys["org:"+k] = true
				}
			}
		}
		for k := range keys {
			blocks[k] = append(blocks[k], i)
		}
	}
	seen := map[[2]int]bool{}
	var out []Pair
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range blocks {
			if !yield(k) {
				return
			}
		}
	}) {
		b := blocks[k]
		if len(b) > maxBlock {
			continue
		}
		for x := 0; x < len(b); x++ {
			for y := x + 1; y < len(b); y++ {
				i, j := b[x], b[y]
				if seen[[2]int{i, j}] {
					continue
				}
				seen[[2]int{i, j}] = true
				var s Score
				if ents[i].Kind == graph.KindActor {
					s = ComparePeople(ents[i], ents[j])
				} else {
					s = CompareOrgs(ents[i], ents[j])
				}
				if s.Decision != Apart {
					out = append(out, Pair{A: ents[i], B: ents[j], Score: s})
				}
			}
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(-cmp.Compare(p.Score.Total, q.Score.Total), strings.Compare(string(p.A.Name), string(q.A.Name)),
			strings.Compare(string(p.B.Name), string(q.B.Name)))
	})
	return out
}

// CompareOrgs scores whether two records of parties or organisations name one: a name of one form
// (OrgKey) merges, unless their kinds or ids say otherwise.
func CompareOrgs(a, b graph.Entity) Score {
	var fs []Feature
	if a.Kind != b.Kind {
		fs = append(fs, Feature{"kind", wOtherKind, string(a.Kind) + " and " + string(b.Kind)})
	}
	name := Feature{"name", wOtherName, "names of other forms"}
	for _, x := range append([]string{a.DisplayName}, a.Aliases...) {
		for _, y := range append([]string{b.DisplayName}, b.Aliases...) {
			if k := OrgKey(x); k != "" && k == OrgKey(y) {
				name = Feature{"name", wSameName, "names of one form (" + k + ")"}
			}
		}
	}
	fs = append(fs, name)
	if k, conflict := GlobalIDs(a.Identifiers).Conflict(GlobalIDs(b.Identifiers)); conflict {
		fs = append(fs, Feature{"ids", wConflictingID, "their " + k + " ids differ"})
	} else if id, ok := sharedID(a.Identifiers, b.Identifiers); ok {
		fs = append(fs, Feature{"ids", wSharedID, "both hold " + id.String()})
	}
	return decide(fs)
}
