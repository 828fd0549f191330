package dgraph

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Search implements graph.Store: entities whose normalised display name or alias equals the normalised
// query (score 1), or lies within a few edits of it (score falls with the edit distance).
func (s *Store) Search(ctx context.Context, q graph.SearchQuery) ([]graph.SearchResult, error) {
	key := graph.NormalizeName(q.Text)
	if key == "" {
		return nil, nil
	}
	dist := min(max(len([]rune(key))/4, 1), 4)
	// The distance is a number computed here, not user text; the query text travels as $k.
	dq := `query q($k: string) {
  exact(func: eq(pg.search_keys, $k), first: 200) { ` + entityFields + ` pg.search_keys }
  fuzzy(func: match(pg.search_keys, $k, ` + strconv.Itoa(dist) + `), first: 200) { ` + entityFields + ` pg.search_keys }
}`
	type row struct {
		entityJSON
		Keys []string `json:"pg.search_keys"`
	}
	var res struct{ Exact, Fuzzy []row }
	if err := s.query(ctx, "dgraph.Search", dq, map[string]string{"$k": key}, &res); err != nil {
		return nil, err
	}
	best := map[string]graph.SearchResult{}
	for _, r := range append(res.Exact, res.Fuzzy...) {
		e := r.entity()
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind) {
			continue
		}
		s.remember(r.Name, r.UID)
		for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
			score := similarity(key, graph.NormalizeName(n))
			if old, ok := best[r.Name]; !ok || score > old.Score {
				best[r.Name] = graph.SearchResult{Entity: e, Matched: n, Score: score}
			}
		}
	}
	out := make([]graph.SearchResult, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b graph.SearchResult) int {
		return cmp.Or(-cmp.Compare(a.Score, b.Score), strings.Compare(string(a.Entity.Name), string(b.Entity.Name)))
	})
	return out, nil
}

// similarity is 1 minus the edit distance over the longer length.
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return 0
	}
	return 1 - float64(levenshtein(ra, rb))/float64(n)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
