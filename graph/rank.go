package graph

import (
	"cmp"
	"slices"
	"strings"
)

// MaxSearchWords bounds how many words of a query are matched one by one.
const MaxSearchWords = 5

// Rank scores entity e for the normalised query key: the best Ranker score of its display name and
// aliases. ok is false for an entity no search shows: deleted (found only by its resource name), of a
// kind not asked for, or matching none of its names.
func Rank(key string, e Entity, kinds []Kind) (SearchResult, bool) {
	return NewRanker(key).Rank(&e, kinds)
}

// Rank is Rank(key, *e, kinds), key the Ranker's.
func (m *Ranker) Rank(e *Entity, kinds []Kind) (SearchResult, bool) {
	if !e.Deleted.IsZero() || len(kinds) > 0 && !slices.Contains(kinds, e.Kind) {
		return SearchResult{}, false
	}
	best, matched := 0.0, ""
	for i := -1; i < len(e.Aliases); i++ {
		n := e.DisplayName
		if i >= 0 {
			n = e.Aliases[i]
		}
		if score := m.scoreName(n); score > best {
			best, matched = score, n
		}
	}
	if best == 0 {
		return SearchResult{}, false
	}
	return SearchResult{Entity: *e, Matched: matched, Score: best}, true
}

// SortSearchResults orders results best first, then by resource name.
func SortSearchResults(rs []SearchResult) {
	slices.SortFunc(rs, func(a, b SearchResult) int {
		return cmp.Or(-cmp.Compare(a.Score, b.Score), strings.Compare(string(a.Entity.Name), string(b.Entity.Name)))
	})
}
