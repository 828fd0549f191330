package graph_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// FuzzEntityName: the name functions never panic; a name ParseEntityName accepts looks like a resource
// name, has a valid slug and is in the collection of its kind; NormalizeName is idempotent and at most
// half as long again as its input (a search key is indexed whole, so graph.MaxDisplayName bounds it).
// The seeds are in testdata/fuzz/FuzzEntityName.
func FuzzEntityName(f *testing.F) {
	for _, s := range []string{"actors/lutfur-rahman", "parties/aspire", "seats/x-1", "organisations/a", "actors/", "/a",
		"actors/Lutfur", "actors/a--b", "actors/a/b", "Actors/a", "Lutfur  Rahman's", "Zoë O’Brien", "ẞ İ Ⱥ", "a\x00b"} {
		f.Add(s)
	}
	kinds := map[graph.Kind]string{graph.KindActor: "actors", graph.KindParty: "parties", graph.KindSeat: "seats",
		graph.KindOrganisation: "organisations"}
	f.Fuzz(func(t *testing.T, s string) {
		kind, err := graph.ParseEntityName(s)
		looks := graph.LooksLikeResourceName(s)
		slug := graph.Slug(s)
		if err == nil {
			if !looks || !graph.ValidSlug(slug) {
				t.Fatalf("%q is accepted, but LooksLikeResourceName %v, ValidSlug(%q) %v", s, looks, slug, graph.ValidSlug(slug))
			}
			if coll, _, _ := strings.Cut(s, "/"); kinds[kind] != coll || !slices.Contains(graph.Collections, coll) {
				t.Fatalf("%q is read as a %v", s, kind)
			}
		} else if !strings.Contains(err.Error(), strconv.Quote(s)) {
			t.Fatalf("the error %q does not name the input %q", err, s)
		}
		if graph.ValidSlug(s) {
			if _, err := graph.ParseEntityName("actors/" + s); err != nil {
				t.Fatalf("%q is a valid slug, but actors/%s is refused: %v", s, s, err)
			}
		}
		n := graph.NormalizeName(s)
		if again := graph.NormalizeName(n); again != n {
			t.Fatalf("NormalizeName(%q) = %q, but NormalizeName(%q) = %q", s, n, n, again)
		}
		if 2*len(n) > 3*len(s) {
			t.Fatalf("NormalizeName(%q) = %q is %d bytes from %d", s, n, len(n), len(s))
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("NormalizeName(%q) = %q has stray spaces", s, n)
		}
	})
}
