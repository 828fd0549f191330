package graph

import (
	"cmp"
	"strings"
)

// HopOrder is the order of the relations of one hop: the strongest evidence under the filter first, then
// the earliest start (undated relations last), then by name.
func HopOrder(f RelationFilter, a, b Link) int {
	start := func(l Link) int {
		if !l.Dated {
			return OpenPeriod.End
		}
		return l.Period.Start
	}
	return cmp.Or(-cmp.Compare(f.Strength(a.Support), f.Strength(b.Support)), cmp.Compare(start(a), start(b)),
		strings.Compare(string(a.Name), string(b.Name)))
}

// ComparePaths orders routes by length, then hop by hop by the name of the entity reached.
func ComparePaths(p, q Path) int {
	if c := cmp.Compare(p.Len(), q.Len()); c != 0 {
		return c
	}
	for i := 1; i < len(p.Entities); i++ {
		if c := strings.Compare(string(p.Entities[i]), string(q.Entities[i])); c != 0 {
			return c
		}
	}
	return 0
}
