package graph

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldAccents maps accented Latin letters to plain ones, for matching names typed without them.
var foldAccents = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ä", "a", "ã", "a", "å", "a", "ā", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "ē", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ī", "i",
	"ó", "o", "ò", "o", "ô", "o", "ö", "o", "õ", "o", "ø", "o", "ō", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u", "ū", "u",
	"ç", "c", "ñ", "n", "ß", "ss", "’", "", "'", "", "‘", "",
)

// NormalizeName is the form names are matched in: lower case, accents folded, apostrophes dropped, every
// other run of punctuation or space made one space. "Lutfur  Rahman's" and "lutfur rahmans" match.
func NormalizeName(s string) string {
	if n, ok := normalizeASCII(s); ok {
		return n
	}
	return normalizeName(s)
}

// normalizeASCII is NormalizeName in one pass for a name of ASCII only (most names a search ranks): ok is
// false when s holds anything else.
func normalizeASCII(s string) (string, bool) {
	buf, ok := appendNormalASCII(make([]byte, 0, len(s)), s)
	if !ok {
		return "", false
	}
	return string(buf), true
}

// appendNormalASCII appends normalizeASCII's form of s to dst.
func appendNormalASCII(dst []byte, s string) ([]byte, bool) {
	buf := dst
	start := len(dst)
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return dst, false
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '\'':
			continue
		default:
			space = true
			continue
		}
		if space && len(buf) > start {
			buf = append(buf, ' ')
		}
		space = false
		buf = append(buf, c)
	}
	return buf, true
}

func normalizeName(s string) string {
	s = foldAccents.Replace(strings.ToLower(s))
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// SearchKeys returns the normalised display name and aliases of an entity, without repeats.
func (e Entity) SearchKeys() []string {
	seen := map[string]bool{}
	var keys []string
	for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
		if k := NormalizeName(n); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// SearchTokens returns the distinct words of an entity's search keys, for matching a query word by word.
func (e Entity) SearchTokens() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range e.SearchKeys() {
		for _, t := range strings.Fields(k) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// EditBudget is how many edits a word of n letters may need to still match: none below 4 letters, then
// one per four letters, at most 3 (Dgraph's match() walks the trigram index within that distance).
func EditBudget(n int) int { return min(n/4, 3) }

// Ranker scores names against one normalised query key, and ranks entities by them as
// Rank does, for a search that ranks many: the key's runes and words are worked out once and the names'
// kept in scratch space, so that a name of ASCII letters is scored without allocating. One goroutine at a
// time.
type Ranker struct {
	query   string
	qr      []rune
	budget  int        // the whole query's edit budget
	words   [][]rune   // the query's words (as strings.Fields splits them)
	budgets []int      // and theirs
	alts    [][][]rune // and the given names each is a short or long form of (Hypocorisms)

	nr   []rune   // scratch: the name's runes
	nw   [][]rune // the name's words, in nr
	used []bool
	norm []byte // a name normalised, when it is ASCII
}

// NewRanker returns a Ranker for the normalised query key.
func NewRanker(key string) *Ranker {
	m := &Ranker{query: key, qr: []rune(key)}
	m.budget = EditBudget(len(m.qr))
	m.words = splitWords(m.words, m.qr)
	for _, w := range m.words {
		m.budgets = append(m.budgets, EditBudget(len(w)))
		var alts [][]rune
		for _, h := range SearchHypocorisms(string(w)) {
			alts = append(alts, []rune(h))
		}
		m.alts = append(m.alts, alts)
	}
	return m
}

// hypocorismScore is what a query word scores against a name's word that is its short or long form
// ("ken" and "kenneth"): as much as a spelling one letter in ten away.
const hypocorismScore = 0.9

// MinPrefix is the fewest letters of a word being typed (a query's last word) that match the words they
// begin ("Starm" → "Starmer").
const MinPrefix = 2

// PrefixScore is what the last word of a query scores against a name's word it begins, from 0.6 for a
// start of it to 0.9 for all but nothing; 0 when it does not begin it or is shorter than MinPrefix.
func PrefixScore(q, word []rune) float64 {
	if len(q) < MinPrefix || len(word) <= len(q) || !slices.Equal(word[:len(q)], q) {
		return 0
	}
	return 0.6 + 0.3*float64(len(q))/float64(len(word))
}

// splitWords appends to dst the runs of rs between white space, as strings.Fields cuts a string.
func splitWords(dst [][]rune, rs []rune) [][]rune {
	start := -1
	for i, r := range rs {
		if unicode.IsSpace(r) {
			if start >= 0 {
				dst = append(dst, rs[start:i:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, rs[start:])
	}
	return dst
}

// score says how well m.query matches a normalised name, from 0 to 1: 1 for the whole name; for a
// close spelling of the whole name, 1 less the share of letters edited; and for a query matching some
// of the name's words, up to 0.9, less for each edit, for a given name matched by its short or long form
// ("Ken" for "Kenneth"), for a last word that only begins a word of the name (PrefixScore: "Tower Ham"),
// and for each word of the name left unmatched.
func (m *Ranker) score(name string) float64 {
	m.nr = m.nr[:0]
	for _, r := range name {
		m.nr = append(m.nr, r)
	}
	return m.scoreRunes()
}

// scoreRunes scores the name held in m.nr.
func (m *Ranker) scoreRunes() float64 {
	qr, nr := m.qr, m.nr
	if slices.Equal(qr, nr) {
		return 1
	}
	whole := 0.0
	if d := EditsWithin(qr, nr, m.budget); d >= 0 {
		whole = 1 - float64(d)/float64(max(len(qr), len(nr)))
	}
	m.nw = splitWords(m.nw[:0], nr)
	m.used = append(m.used[:0], make([]bool, len(m.nw))...)
	matched, sum := 0, 0.0
	for i, wr := range m.words {
		bestJ, bestS := -1, 0.0
		for j, n := range m.nw {
			if m.used[j] {
				continue
			}
			s := 0.0
			if d := EditsWithin(wr, n, m.budgets[i]); d >= 0 {
				s = 1 - float64(d)/float64(max(len(wr), len(n)))
			} else if slices.ContainsFunc(m.alts[i], func(a []rune) bool { return slices.Equal(a, n) }) {
				s = hypocorismScore
			}
			if i == len(m.words)-1 {
				s = max(s, PrefixScore(wr, n))
			}
			if s > bestS {
				bestJ, bestS = j, s
			}
		}
		if bestJ >= 0 {
			m.used[bestJ] = true
			matched++
			sum += bestS
		}
	}
	if matched == 0 || matched < len(m.words) {
		return whole
	}
	words := 0.9 * (sum / float64(matched)) * (0.7 + 0.3*float64(matched)/float64(len(m.nw)))
	return max(whole, words)
}

// scoreName is m.score(NormalizeName(name)); a name of ASCII is normalised in scratch space.
func (m *Ranker) scoreName(name string) float64 {
	norm, ok := appendNormalASCII(m.norm[:0], name)
	m.norm = norm
	if !ok {
		return m.score(normalizeName(name))
	}
	m.nr = m.nr[:0]
	for _, c := range norm {
		m.nr = append(m.nr, rune(c))
	}
	return m.scoreRunes()
}

// Slugify makes a slug of text, at most 100 bytes (ValidSlug's bound), cut at a hyphen where it can be:
// "Bethnal Green & Stepney" → `bethnal-green-stepney`, "Ynys Môn" → `ynys-mon`. Accents are folded as
// NormalizeName folds them; other letters outside ASCII are dropped. It returns "" when nothing is left.
func Slugify(text string) string {
	var words []string
	for _, w := range strings.Fields(NormalizeName(text)) {
		w = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, w)
		if w != "" {
			words = append(words, w)
		}
	}
	return TrimSlug(strings.Join(words, "-"), 100)
}

// TrimSlug cuts a slug to at most max bytes, at a hyphen when there is one, never leaving a hyphen at
// either end, so that a suffix can be added to it.
func TrimSlug(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if i := strings.LastIndex(s[:max+1], "-"); i > 0 {
		return strings.TrimRight(s[:i], "-")
	}
	return strings.TrimRight(s[:max], "-")
}

// EditsWithin returns the edit distance between a and b when it is at most d, and -1 otherwise; it
// stops as soon as every cell of a row exceeds d (the distance can then only be larger).
func EditsWithin(a, b []rune, d int) int {
	if abs(len(a)-len(b)) > d {
		return -1
	}
	var buf [2][48]int
	prev, cur := buf[0][:0], buf[1][:0]
	if len(b)+1 > len(buf[0]) {
		prev, cur = make([]int, 0, len(b)+1), make([]int, 0, len(b)+1)
	}
	prev, cur = prev[:len(b)+1], cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			best = min(best, cur[j])
		}
		if best > d {
			return -1
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > d {
		return -1
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
