package ingest

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/neurosnap/sentences"
	"github.com/neurosnap/sentences/english"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// sentence is one sentence of a document, with its words.
type sentence struct {
	span   review.Span
	text   string
	tokens []token
	// quoted marks the bytes of text inside quotation marks: words a speaker said.
	quoted []bool
}

// token is one word of a sentence; offsets are into the document's text.
type token struct {
	text       string
	start, end int
	cap        bool // starts with an upper-case letter
	acronym    bool // two or more letters, all upper case (UKIP, SNP)
	possessive bool // followed by 's or ’s, which is not part of text
}

var (
	punktOnce sync.Once
	punkt     *sentences.DefaultSentenceTokenizer
	punktErr  error
	punktMu   sync.Mutex // the tokenizer is not documented as safe for concurrent use
)

// ukAbbreviations are British titles and abbreviations that end no sentence. Written with a full stop or
// without ("Mr", "Lt Col", "St"), they must not split one.
var ukAbbreviations = []string{"mr", "mrs", "ms", "dr", "st", "lt", "col", "gen", "capt", "cllr", "rev", "prof",
	"sgt", "maj", "brig", "hon", "rt", "sen", "rep", "gov", "no", "vs", "co", "ltd", "plc", "jr", "sr", "inc",
	"cmdr", "adm", "supt", "insp", "det", "fr", "cpl", "pte", "esq", "bros", "approx", "dept", "est", "govt"}

func tokenizer() (*sentences.DefaultSentenceTokenizer, error) {
	punktOnce.Do(func() {
		punkt, punktErr = english.NewSentenceTokenizer(nil)
		if punktErr == nil {
			for _, a := range ukAbbreviations {
				punkt.AbbrevTypes.Add(a)
			}
		}
	})
	return punkt, punktErr
}

// splitSentences splits each paragraph into sentences (Punkt, with British abbreviations), trimmed of
// spaces, with their words.
func splitSentences(text string, paragraphs []review.Span) ([]sentence, error) {
	tok, err := tokenizer()
	if err != nil {
		return nil, err
	}
	punktMu.Lock()
	defer punktMu.Unlock()
	var out []sentence
	for _, p := range paragraphs {
		para := text[p.Start:p.End]
		for _, s := range tok.Tokenize(para) {
			start, end := p.Start+s.Start, p.Start+s.End
			for start < end && isSpaceByte(text[start]) {
				start++
			}
			for end > start && isSpaceByte(text[end-1]) {
				end--
			}
			if start == end {
				continue
			}
			out = append(out, newSentence(text, review.Span{Start: start, End: end}))
		}
	}
	return mergeAbbreviationSplits(text, resplit(text, out)), nil
}

var missedStop = regexp.MustCompile(`[\p{Ll}\d)"”’]\. +["“‘]?\p{Lu}`)

// resplit splits where Punkt kept two sentences together ("… since 1997. He represented …"), unless the
// word before the stop is an abbreviation or an initial.
func resplit(text string, ss []sentence) []sentence {
	var out []sentence
	for _, s := range ss {
		start := s.span.Start
		for _, loc := range missedStop.FindAllStringIndex(s.text, -1) {
			stop := s.span.Start + loc[0] + strings.Index(s.text[loc[0]:], ".") + 1
			w := strings.ToLower(strings.TrimSuffix(lastWord(text[start:stop]), "."))
			if utf8.RuneCountInString(w) <= 1 || slices.Contains(ukAbbreviations, w) {
				continue
			}
			next := stop
			for next < s.span.End && text[next] == ' ' {
				next++
			}
			out = append(out, newSentence(text, review.Span{Start: start, End: stop}))
			start = next
		}
		out = append(out, newSentence(text, review.Span{Start: start, End: s.span.End}))
	}
	return out
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// mergeAbbreviationSplits joins sentences that Punkt split after a title or initial ("Lt. Col. Tim",
// "K. M. Abu Taher").
func mergeAbbreviationSplits(text string, ss []sentence) []sentence {
	var out []sentence
	for _, s := range ss {
		if n := len(out); n > 0 {
			prev := out[n-1]
			last := lastWord(prev.text)
			if (isTitle(strings.TrimSuffix(last, ".")) || utf8.RuneCountInString(strings.TrimSuffix(last, ".")) == 1 && strings.HasSuffix(last, ".")) &&
				!strings.Contains(text[prev.span.End:s.span.Start], "\n") {
				out[n-1] = newSentence(text, review.Span{Start: prev.span.Start, End: s.span.End})
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

var wordPattern = regexp.MustCompile(`[\p{L}\p{N}#@][\p{L}\p{N}\-'’.&]*[\p{L}\p{N}]|[\p{L}\p{N}&]`)

func newSentence(text string, sp review.Span) sentence {
	s := sentence{span: sp, text: text[sp.Start:sp.End]}
	for _, m := range wordPattern.FindAllStringIndex(s.text, -1) {
		w := s.text[m[0]:m[1]]
		// "ex-mayor of London": the office without its prefix
		if lw := strings.ToLower(w); (strings.HasPrefix(lw, "ex-") || strings.HasPrefix(lw, "then-")) && len(w) > 4 {
			cut := strings.Index(w, "-") + 1
			m[0] += cut
			w = w[cut:]
		}
		t := token{start: sp.Start + m[0], end: sp.Start + m[1]}
		for _, suf := range []string{"'s", "’s", "s'", "s’"} {
			if strings.HasSuffix(w, suf) && len(w) > len(suf)+1 {
				if suf[0] == 's' {
					w = w[:len(w)-len(suf)+1]
				} else {
					w = w[:len(w)-len(suf)]
				}
				t.possessive = true
				t.end = t.start + len(w)
				break
			}
		}
		// "Mr Phillips' proposal": a plural-style possessive, its apostrophe after the word
		if !t.possessive && strings.HasSuffix(w, "s") && m[1] < len(s.text) && (s.text[m[1]] == '\'' || strings.HasPrefix(s.text[m[1]:], "’")) &&
			(m[1]+1 >= len(s.text) || s.text[m[1]+1] == ' ' || strings.HasPrefix(s.text[m[1]:], "’ ")) {
			t.possessive = true
		}
		w = strings.TrimRight(w, ".")
		if w == "" {
			continue
		}
		// "Mr." keeps no stop; an initial "K." neither.
		t.end = t.start + len(w)
		t.text = w
		r, _ := utf8.DecodeRuneInString(w)
		t.cap = unicode.IsUpper(r)
		t.acronym = utf8.RuneCountInString(w) >= 2 && strings.ToUpper(w) == w && strings.ToLower(w) != w
		s.tokens = append(s.tokens, t)
	}
	s.quoted = quotedBytes(s.text)
	return s
}

// quotedBytes marks what is inside double quotes, or inside single curly quotes used as quotation marks
// (as the Daily Mail does), in a sentence.
func quotedBytes(s string) []bool {
	q := make([]bool, len(s))
	in := false
	for i, r := range s {
		switch {
		case r == '"' && strings.TrimSpace(s[:i]) == "" && strings.HasPrefix(s[i+1:], " "):
			// `" And Chancellor Gordon Brown said …`: the mark closes the quotation before, opens none
		case r == '"' || r == '“' || r == '”':
			in = !in
			if r == '“' {
				in = true
			} else if r == '”' {
				in = false
			}
		case r == '‘' && (i == 0 || !isLetterBefore(s, i)):
			in = true
		case r == '’' && in && (i+len("’") >= len(s) || !isLetterAt(s, i+len("’"))):
			in = false
		}
		for j := i; j < i+utf8.RuneLen(r) && j < len(q); j++ {
			q[j] = in
		}
	}
	return q
}

func isLetterBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r)
}

func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// normalise is the form names are compared in: graph.NormalizeName's (lower case, accents folded,
// apostrophes dropped, punctuation made space), with "&" read as "and", and no leading "the" or trailing
// possessive.
func normalise(s string) string {
	s = strings.TrimSpace(s)
	for _, suf := range []string{"'s", "’s"} {
		s = strings.TrimSuffix(s, suf)
	}
	return strings.TrimPrefix(graph.NormalizeName(strings.ReplaceAll(s, "&", " and ")), "the ")
}
