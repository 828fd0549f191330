package dgraph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// maxQueryWords bounds how many words of a query are matched one by one.
const maxQueryWords = 5

// Search implements graph.Store. It asks Dgraph for entities whose normalised display name or alias is
// the query or within a few edits of it, and for those with a word within a few edits of each query word
// (so "Lutfor" finds "Lutfur Rahman" and "Rusnara" finds "Rushanara Ali"), or that is a short or long
// form of a query word (graph.SearchHypocorisms: "Ken" finds "Kenneth Clarke"), or that the query's last
// word begins (a word being typed: "Starm" finds "Keir Starmer"); then it ranks them here.
func (s *Store) Search(ctx context.Context, q graph.SearchQuery) ([]graph.SearchResult, error) {
	key := graph.NormalizeName(q.Text)
	if key == "" {
		return nil, nil
	}
	words := strings.Fields(key)
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	// Only numbers computed here enter the query text; the user's words travel as variables.
	var decl, body strings.Builder
	vars := map[string]string{"$k": key}
	decl.WriteString("$k: string")
	fmt.Fprintf(&body, "exact(func: eq(pg.search_keys, $k), first: 100) { %s }\n", entityFields)
	if d := graph.EditBudget(len([]rune(key))); d > 0 {
		fmt.Fprintf(&body, "whole(func: match(pg.search_keys, $k, %d), first: 100) { %s }\n", d, entityFields)
	}
	for i, w := range words {
		v := fmt.Sprintf("$w%d", i)
		vars[v] = w
		decl.WriteString(", " + v + ": string")
		if d := graph.EditBudget(len([]rune(w))); d > 0 {
			fmt.Fprintf(&body, "w%d(func: match(pg.search_tokens, %s, %d), first: 100) { %s }\n", i, v, d, entityFields)
		} else {
			fmt.Fprintf(&body, "w%d(func: eq(pg.search_tokens, %s), first: 100) { %s }\n", i, v, entityFields)
		}
		for j, h := range graph.SearchHypocorisms(w) {
			hv := fmt.Sprintf("$h%d_%d", i, j)
			vars[hv] = h
			decl.WriteString(", " + hv + ": string")
			fmt.Fprintf(&body, "h%d_%d(func: eq(pg.search_tokens, %s), first: 100) { %s }\n", i, j, hv, entityFields)
		}
	}
	// The word being typed: the tokens it begins, read off the exact index in order (between its start
	// and the start's successor).
	if all := strings.Fields(key); len([]rune(all[len(all)-1])) >= graph.MinPrefix {
		last := all[len(all)-1]
		vars["$p"], vars["$pn"] = last, successor(last)
		decl.WriteString(", $p: string, $pn: string")
		fmt.Fprintf(&body, "prefix(func: between(pg.search_tokens, $p, $pn), first: 100) { %s }\n", entityFields)
	}
	var res map[string][]entityJSON
	dq := "query q(" + decl.String() + ") {\n" + body.String() + "}"
	if err := s.query(ctx, "dgraph.Search", dq, vars, &res); err != nil {
		return nil, err
	}
	best := map[string]graph.SearchResult{}
	rank := graph.NewRanker(key)
	for _, rows := range res {
		for _, r := range rows {
			e, err := r.entity()
			if err != nil {
				return nil, fmt.Errorf("dgraph.Search: %w", err)
			}
			if !e.Deleted.IsZero() || len(q.Kinds) > 0 && !slices.Contains(q.Kinds, e.Kind) {
				continue // deleted entities are found only by their resource name
			}
			if _, done := best[r.Name]; done {
				continue
			}
			s.remember(r.Name, r.UID)
			if top, ok := rank.Rank(&e, nil); ok {
				best[r.Name] = top
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

// successor is the least string greater than every string s begins: s with its last rune raised by one.
func successor(s string) string {
	rs := []rune(s)
	rs[len(rs)-1]++
	return string(rs)
}
