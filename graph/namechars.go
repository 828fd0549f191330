package graph

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The characters an entity's display name and aliases may not hold, for every way names come in (dataset
// files, the write API, imports, the review queue), beyond the control characters no field may hold
// (ControlAt).
//
// A name is shown and searched for, so what it holds must be what a reader sees. Unicode's identifier
// security rules (UTS #39, General Security Profile) leave out every Default_Ignorable_Code_Point, and
// so does this rule: format characters (Cf: zero-width spaces and joiners, the bidirectional controls
// U+200E, U+200F, U+061C, U+202A–U+202E and U+2066–U+2069, the soft hyphen, the byte order mark, tags),
// variation selectors, fillers such as U+3164; and the line and paragraph separators U+2028 and U+2029,
// which break a name shown on one line as a line feed does. "Keir\u200b Starmer" would otherwise stand
// next to "Keir Starmer" as another entity, and U+202E would show a name backwards.
//
// Such a name is refused, not cleaned: the file or request is fixed where it was written, so the graph
// holds what its source says and nothing hidden in it.
//
// Zero width non-joiner and joiner (U+200C, U+200D) are the exception: Persian, Urdu, Bengali, Hindi and
// other names written in scripts that join letters need them to be spelt right. As UAX #31 (section 2.3)
// allows them in identifiers only in such contexts, a name may hold one between two letters (or marks) of
// one of those scripts, never beside a Latin letter, a space, or at either end.

// InvisibleAt returns the byte offset and the rune of the first character in s that a display name or
// alias may not hold because it cannot be seen, or -1 and 0 when there is none. Control characters are
// ControlAt's.
func InvisibleAt(s string) (int, rune) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if invisible(r) && !((r == zwnj || r == zwj) && joinsLetters(s[:i], s[i+n:])) {
			return i, r
		}
		i += n
	}
	return -1, 0
}

const (
	zwnj = '\u200c'
	zwj  = '\u200d'
)

// invisible reports whether r is a default-ignorable, format or separator character (see above).
func invisible(r rune) bool {
	if r <= 0x9f {
		return false // ASCII, and the C0 and C1 controls (ControlAt's)
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) || r == '\u2028' || r == '\u2029'
}

// joiningScripts are the scripts whose words may hold a zero width joiner or non-joiner.
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Thaana,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya, unicode.Tamil,
	unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Myanmar, unicode.Khmer, unicode.Tibetan,
}

// joinsLetters reports whether a joiner between before and after stands between letters of one
// joining script. Combining marks of no script of their own (Arabic vowel signs are such) are skipped to
// the letter they sit on.
func joinsLetters(before, after string) bool {
	b := baseRune(before, utf8.DecodeLastRuneInString, func(s string, n int) string { return s[:len(s)-n] })
	a := baseRune(after, utf8.DecodeRuneInString, func(s string, n int) string { return s[n:] })
	if b < 0 || a < 0 {
		return false
	}
	for _, script := range joiningScripts {
		if unicode.Is(script, b) && unicode.Is(script, a) {
			return true
		}
	}
	return false
}

// baseRune is the letter or mark next to a joiner, on the side next and rest walk, past inherited marks;
// -1 when there is none.
func baseRune(s string, next func(string) (rune, int), rest func(string, int) string) rune {
	for s != "" {
		r, n := next(s)
		switch {
		case unicode.Is(unicode.M, r) && unicode.Is(unicode.Inherited, r):
			s = rest(s, n)
		case unicode.IsLetter(r) || unicode.Is(unicode.M, r):
			return r
		default:
			return -1
		}
	}
	return -1
}

// NameProblem says what in s a display name or alias may not hold, as a message for the field that
// holds it, or "" when it holds nothing of the kind: a control character (ControlAt) or an invisible one
// (InvisibleAt).
func NameProblem(s string) string {
	if i, r := ControlAt(s, false); i >= 0 {
		return fmt.Sprintf("contains the control character %s at byte %d", RuneName(r), i+1)
	}
	if i, r := InvisibleAt(s); i >= 0 {
		return fmt.Sprintf("contains the invisible character %s at byte %d; a name may hold no character that cannot be seen", RuneName(r), i+1)
	}
	return ""
}

// runeNames are the names RuneName gives the characters most often met.
var runeNames = map[rune]string{
	0: "NUL", '\t': "tab", '\n': "line feed", '\r': "carriage return", 0x1b: "escape", 0x7f: "DEL",
	0xad: "soft hyphen", 0x34f: "combining grapheme joiner", 0x61c: "Arabic letter mark", 0x180e: "Mongolian vowel separator",
	0x200b: "zero width space", zwnj: "zero width non-joiner", zwj: "zero width joiner",
	0x200e: "left-to-right mark", 0x200f: "right-to-left mark", 0x2028: "line separator", 0x2029: "paragraph separator",
	0x202a: "left-to-right embedding", 0x202b: "right-to-left embedding", 0x202c: "pop directional formatting",
	0x202d: "left-to-right override", 0x202e: "right-to-left override", 0x2060: "word joiner",
	0x2066: "left-to-right isolate", 0x2067: "right-to-left isolate", 0x2068: "first strong isolate",
	0x2069: "pop directional isolate", 0x3164: "Hangul filler", 0xfe0f: "variation selector-16",
	0xfeff: "zero width no-break space (byte order mark)",
}

// RuneName names a character as messages show it: U+200B (zero width space), or U+E0041 when it has no
// name here.
func RuneName(r rune) string {
	if name, ok := runeNames[r]; ok {
		return fmt.Sprintf("U+%04X (%s)", r, name)
	}
	return fmt.Sprintf("U+%04X", r)
}
