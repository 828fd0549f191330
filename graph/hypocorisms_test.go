package graph_test

import (
	"testing"

	"github.com/polgraph/polgraph/graph"
)

func TestSameGivenName(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"ken", "kenneth", true},
		{"kenneth", "ken", true},
		{"bill", "william", true},
		{"nick", "nicholas", true},
		{"margaret", "maggie", true},
		{"kenneth", "kenneth", true},
		{"robert", "william", false},
		{"ken", "keir", false},
		{"", "ken", false},
	} {
		if got := graph.SameGivenName(c.a, c.b); got != c.want {
			t.Errorf("SameGivenName(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if n := len(graph.SearchHypocorisms("john")); n == 0 || n > graph.MaxSearchHypocorisms {
		t.Errorf("SearchHypocorisms(john) holds %d names, want 1 to %d", n, graph.MaxSearchHypocorisms)
	}
}

func TestRankScoresShortFormsOfGivenNames(t *testing.T) {
	e := graph.Entity{Name: "actors/kenneth-clarke", Kind: graph.KindActor, DisplayName: "Kenneth Clarke"}
	for _, c := range []struct {
		query string
		want  float64
	}{
		{"kenneth clarke", 1},
		{"ken clarke", 0.9 * 0.95},
		{"kenny clarke", 0.9 * 0.95},
		{"ken", 0.9 * 0.9 * 0.85}, // one word of the name's two, by a short form
		{"keir clarke", 0},
	} {
		r, ok := graph.Rank(c.query, e, nil)
		if got := r.Score; ok != (c.want > 0) || got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("Rank(%q) = %v, %v; want %v", c.query, got, ok, c.want)
		}
	}
}
