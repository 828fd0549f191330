package graph_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// FuzzEntityName: the name functions never panic; a name ParseEntityName accepts looks like a resource
// name, has a valid slug and is in the collection of its kind; NormalizeName is idempotent and at most
// half as long again as its input (a search key is indexed whole, so graph.MaxDisplayName bounds it);
// InvisibleAt takes no format character but a joiner.
// The seeds are in testdata/fuzz/FuzzEntityName.
func FuzzEntityName(f *testing.F) {
	for _, s := range []string{"actors/lutfur-rahman", "parties/aspire", "seats/x-1", "organisations/a", "actors/", "/a",
		"actors/Lutfur", "actors/a--b", "actors/a/b", "Actors/a", "Lutfur  Rahman's", "Zoë O’Brien", "ẞ İ Ⱥ", "a\x00b",
		"Keir\u200b Starmer", "\u202eKeir", "\u0645\u06cc\u200c\u062e"} {
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
		// InvisibleAt stops at the character it names; what it takes holds no format character but a joiner.
		if at, r := graph.InvisibleAt(s); at >= 0 {
			if got, _ := utf8.DecodeRuneInString(s[at:]); got != r {
				t.Fatalf("InvisibleAt(%+q) = %d, %U; the byte holds %U", s, at, r, got)
			}
		} else {
			for _, r := range s {
				if unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' {
					t.Fatalf("InvisibleAt(%+q) takes %U", s, r)
				}
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
