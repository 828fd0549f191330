package graph

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/antzucaro/matchr"
)

// levenshtein is the plain edit distance between two words, in runes, that the bounded one
// (editsWithin) and MatchScore are checked against.
func levenshtein(a, b []rune) int { return matchr.Levenshtein(string(a), string(b)) }

// TestLevenshteinCountsRunes: the reference distance counts a letter outside ASCII as one edit, as
// editsWithin does, not as the bytes that encode it.
func TestLevenshteinCountsRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"mon", "", 3}, {"môn", "mon", 1}, {"ynys môn", "ynys mon", 1}, {"rushanara", "rushnara", 1},
		{"kitten", "sitting", 3}, {"ß", "ss", 2}} {
		if got := levenshtein([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestNormalizeASCIIAgreesWithTheGeneralForm checks the one-pass form of NormalizeName for ASCII names
// against the general one on random strings of letters, digits, spaces, apostrophes and punctuation.
func TestNormalizeASCIIAgreesWithTheGeneralForm(t *testing.T) {
	const alphabet = "abzAKZ09 '-.,&(\t"
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		got, ok := normalizeASCII(s)
		if !ok {
			t.Fatalf("normalizeASCII(%q) refused an ASCII string", s)
		}
		if want := normalizeName(s); got != want {
			t.Fatalf("normalizeASCII(%q) = %q, the general form %q", s, got, want)
		}
	}
	if _, ok := normalizeASCII("Môn"); ok {
		t.Error(`normalizeASCII("Môn") took a name it cannot fold`)
	}
	if got := NormalizeName("Ynys  Môn's"); got != "ynys mons" {
		t.Errorf(`NormalizeName("Ynys  Môn's") = %q, want "ynys mons"`, got)
	}
}

// matchScoreReference is MatchScore with full edit distances, as it was first written: the bounded
// distances MatchScore computes must give the same scores.
func matchScoreReference(query, name string) float64 {
	if query == name {
		return 1
	}
	whole := 0.0
	if d := levenshtein([]rune(query), []rune(name)); d <= EditBudget(len([]rune(query))) {
		whole = 1 - float64(d)/float64(max(len([]rune(query)), len([]rune(name))))
	}
	qw, nw := strings.Fields(query), strings.Fields(name)
	matched, sum := 0, 0.0
	used := make([]bool, len(nw))
	for i, w := range qw {
		bestJ, bestS := -1, 0.0
		for j, n := range nw {
			if used[j] {
				continue
			}
			s := 0.0
			if d := levenshtein([]rune(w), []rune(n)); d <= EditBudget(len([]rune(w))) {
				s = 1 - float64(d)/float64(max(len([]rune(w)), len([]rune(n))))
			}
			// The last word may be one being typed: the start of a longer word.
			if i == len(qw)-1 && len([]rune(w)) >= MinPrefix && len([]rune(n)) > len([]rune(w)) && strings.HasPrefix(n, w) {
				s = max(s, 0.6+0.3*float64(len([]rune(w)))/float64(len([]rune(n))))
			}
			if s > bestS {
				bestJ, bestS = j, s
			}
		}
		if bestJ >= 0 {
			used[bestJ] = true
			matched++
			sum += bestS
		}
	}
	if matched == 0 || matched < len(qw) {
		return whole
	}
	words := 0.9 * (sum / float64(matched)) * (0.7 + 0.3*float64(matched)/float64(len(nw)))
	return max(whole, words)
}

// TestMatchScoreAgreesWithFullDistances scores random names and their misspellings both ways.
func TestMatchScoreAgreesWithFullDistances(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		const letters = "aeinorstlmhué"
		n := 1 + r.IntN(11)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = []rune(letters)[r.IntN(len([]rune(letters)))]
		}
		return string(rs)
	}
	phrase := func() string {
		ws := make([]string, 1+r.IntN(4))
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	misspell := func(s string) string {
		rs := []rune(s)
		for range r.IntN(5) {
			if len(rs) == 0 {
				break
			}
			i := r.IntN(len(rs))
			switch r.IntN(3) {
			case 0:
				rs = append(rs[:i], rs[i+1:]...)
			case 1:
				rs[i] = 'x'
			default:
				rs = append(rs[:i], append([]rune{'y'}, rs[i:]...)...)
			}
		}
		return NormalizeName(string(rs))
	}
	for range 20000 {
		name := phrase()
		query := misspell(name)
		if r.IntN(4) == 0 {
			query = phrase()
		}
		if got, want := MatchScore(query, name), matchScoreReference(query, name); got != want {
			t.Fatalf("MatchScore(%q, %q) = %v, with full distances %v", query, name, got, want)
		}
	}
}

// TestRankerScoresRawNamesAsMatchScore scores several raw names (capitals, punctuation, accents)
// with one Ranker a query, as a search ranks its candidates, against the reference on their normalised
// forms: the Ranker's scratch space carries nothing from one name to the next.
func TestRankerScoresRawNamesAsMatchScore(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	raw := func() string {
		const pieces = "ab cd Ef GH ij kl mn Ôz é o'b  - ., ( 12 x"
		ps := strings.Split(pieces, " ")
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(ps[r.IntN(len(ps))])
			if r.IntN(3) > 0 {
				b.WriteByte(" -,"[r.IntN(3)])
			}
		}
		return b.String()
	}
	for range 3000 {
		query := NormalizeName(raw())
		if query == "" {
			continue
		}
		m := NewRanker(query)
		for range 6 {
			name := raw()
			if r.IntN(4) == 0 {
				name = query
			}
			if got, want := m.scoreName(name), matchScoreReference(query, NormalizeName(name)); got != want {
				t.Fatalf("scoring %q against %q: %v, the reference %v", name, query, got, want)
			}
		}
	}
}

// MatchScore says how well a normalised query matches a normalised name, from 0 to 1: 1 for the whole name;
// for a close spelling of the whole name, 1 less the share of letters edited; and for a query matching
// some of the name's words, up to 0.9, less for each edit and for each word of the name left unmatched.
func MatchScore(query, name string) float64 {
	return NewRanker(query).score(name)
}

// TestEditsWithin compares the bounded edit distance with the plain one on random pairs.
func TestEditsWithin(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		a := []rune(typo(r, typo(r, "abcdefghij"[:r.IntN(11)])))
		b := []rune(typo(r, typo(r, string(a))))
		if r.IntN(5) == 0 {
			b = []rune(strings.Repeat("x", r.IntN(60)))
		}
		d := r.IntN(4)
		full := levenshtein(a, b)
		want := full
		if full > d {
			want = -1
		}
		if got := EditsWithin(a, b, d); got != want {
			t.Fatalf("EditsWithin(%q, %q, %d) = %d; distance %d", string(a), string(b), d, got, full)
		}
	}
}

// typo makes one random edit to s: a letter replaced, dropped, added or two swapped.
func typo(r *rand.Rand, s string) string {
	rs := []rune(s)
	i := r.IntN(len(rs) + 1)
	switch k := r.IntN(4); {
	case k == 0 && i < len(rs):
		rs[i] = rune('a' + r.IntN(26))
	case k == 1 && i < len(rs):
		rs = append(rs[:i], rs[i+1:]...)
	case k == 2 && i+1 < len(rs):
		rs[i], rs[i+1] = rs[i+1], rs[i]
	default:
		rs = append(rs[:i], append([]rune{rune('a' + r.IntN(26))}, rs[i:]...)...)
	}
	return string(rs)
}
