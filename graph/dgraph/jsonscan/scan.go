// Package jsonscan reads JSON text of a shape known in advance, value by value, without reflection:
// what the Dgraph store reads by the million in a fill (a page of rows, each with its pack) and in the
// bulk path's conversion, where encoding/json spent most of polgraph's time.
//
// A Scanner is strict, never lenient: it gives up (Failed) on anything it is not sure encoding/json
// would read the same way — malformed text, a null, a number where a string is read or the other way
// round, an escaped key, a repeated key, a lone UTF-16 surrogate, text that is not UTF-8 — so a caller
// that falls back to encoding/json when it gives up reads exactly what encoding/json reads, faster.
package jsonscan

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxKeys is the most keys an object may have: enough for every shape read, and a bound on the repeated
// keys' check.
const maxKeys = 24

// Scanner reads one JSON value from text. Its zero value reads nothing; make it with Of.
type Scanner struct {
	s      string
	i      int
	failed bool
}

// Of is a Scanner at the start of s.
func Of(s string) Scanner { return Scanner{s: s} }

// Fail makes the scan fail: every later read gives a zero value, and End reports false.
func (sc *Scanner) Fail() {
	sc.failed = true
	sc.i = len(sc.s)
}

// Failed reports whether the scan has failed.
func (sc *Scanner) Failed() bool { return sc.failed }

// End reports whether the scan has read one whole value, nothing but white space after it, and never
// failed.
func (sc *Scanner) End() bool {
	sc.space()
	return !sc.failed && sc.i == len(sc.s)
}

func (sc *Scanner) space() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// next reads the byte after white space, or fails.
func (sc *Scanner) next(want byte) bool {
	sc.space()
	if sc.i < len(sc.s) && sc.s[sc.i] == want {
		sc.i++
		return true
	}
	sc.Fail()
	return false
}

// peek is the next byte after white space, or 0 at the end.
func (sc *Scanner) peek() byte {
	sc.space()
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

// Fields reads an object: field is called with each key, the scanner before its value, and must read
// the value (or Fail). A key with an escape in it, or given twice, fails the scan.
func (sc *Scanner) Fields(field func(key string)) {
	if !sc.open('{', '}') {
		return
	}
	var seen [maxKeys]string
	for n := 0; ; n++ {
		key, ok := sc.key()
		if !ok || !sc.next(':') || n == maxKeys || slices.Contains(seen[:n], key) {
			sc.Fail()
			return
		}
		seen[n] = key
		if field(key); !sc.more('}') {
			return
		}
	}
}

// open reads the start of an object or an array, and reports whether a member follows (false also when
// the scan failed).
func (sc *Scanner) open(start, end byte) bool {
	if !sc.next(start) {
		return false
	}
	if sc.peek() == end {
		sc.i++
		return false
	}
	return true
}

// more reads what follows a member of an object or an array: a comma, and then it reports true, or the
// end, or anything else, which fails the scan.
func (sc *Scanner) more(end byte) bool {
	if sc.failed {
		return false
	}
	switch sc.peek() {
	case ',':
		sc.i++
		return true
	case end:
		sc.i++
	default:
		sc.Fail()
	}
	return false
}

// key reads a key without escapes, as a part of the text.
func (sc *Scanner) key() (string, bool) {
	if !sc.next('"') {
		return "", false
	}
	start := sc.i
	for j := start; j < len(sc.s); j++ {
		switch c := sc.s[j]; {
		case c == '"':
			sc.i = j + 1
			if !utf8.ValidString(sc.s[start:j]) {
				return "", false
			}
			return sc.s[start:j], true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// Elems reads an array: elem is called before each element and must read it (or Fail).
func (sc *Scanner) Elems(elem func()) {
	if !sc.open('[', ']') {
		return
	}
	for {
		if elem(); !sc.more(']') {
			return
		}
	}
}

// String reads a string, as a new string that shares no memory with the text.
func (sc *Scanner) String() string {
	if !sc.next('"') {
		return ""
	}
	start := sc.i
	j := start
	for j < len(sc.s) {
		c := sc.s[j]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		j++
	}
	if j < len(sc.s) && sc.s[j] == '"' {
		sc.i = j + 1
		if !utf8.ValidString(sc.s[start:j]) {
			sc.Fail()
			return ""
		}
		return strings.Clone(sc.s[start:j])
	}
	return sc.escaped(start)
}

// escaped reads the rest of a string from start, the text after its opening quote, escapes and all.
func (sc *Scanner) escaped(start int) string {
	// Its length first, so that the string is made in one piece.
	end := start
	for end < len(sc.s) && sc.s[end] != '"' {
		if sc.s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(sc.s) {
		sc.Fail()
		return ""
	}
	var b strings.Builder
	b.Grow(end - start)
	for j := start; j < end; {
		k := j
		for k < end && sc.s[k] != '\\' {
			if sc.s[k] < 0x20 {
				sc.Fail()
				return ""
			}
			k++
		}
		if !utf8.ValidString(sc.s[j:k]) {
			sc.Fail()
			return ""
		}
		b.WriteString(sc.s[j:k])
		if k == end {
			break
		}
		// sc.s[k] is a backslash and k+1 < end: the scan for end stepped over the byte after each one.
		if c := unescaped[sc.s[k+1]]; c != 0 {
			b.WriteByte(c)
			j = k + 2
			continue
		}
		if sc.s[k+1] != 'u' {
			sc.Fail()
			return ""
		}
		r, ok := hex4(sc.s, k+2, end)
		j = k + 6
		if ok && utf16.IsSurrogate(r) {
			// Only a pair reads as one character; encoding/json reads a lone half as U+FFFD.
			var r2 rune
			ok = j+1 < end && sc.s[j] == '\\' && sc.s[j+1] == 'u'
			if ok {
				r2, ok = hex4(sc.s, j+2, end)
			}
			if ok {
				r = utf16.DecodeRune(r, r2)
				ok = r != utf8.RuneError
				j += 6
			}
		}
		if !ok {
			sc.Fail()
			return ""
		}
		b.WriteRune(r)
	}
	sc.i = end + 1
	return b.String()
}

// unescaped is the byte each one-letter escape stands for (0: not one).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the four hexadecimal digits of a \u escape at s[i:], which must end by end.
func hex4(s string, i, end int) (rune, bool) {
	if i+4 > end {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number's text, as JSON writes numbers, and whether it is an integer (no fraction, no
// exponent).
func (sc *Scanner) number() (text string, integer bool) {
	sc.space()
	start, j := sc.i, sc.i
	digits := func() int {
		k := j
		for j < len(sc.s) && '0' <= sc.s[j] && sc.s[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(sc.s) && sc.s[j] == '-' {
		j++
	}
	switch {
	case j < len(sc.s) && sc.s[j] == '0':
		j++
	case digits() == 0:
		sc.Fail()
		return "", false
	}
	integer = true
	if j < len(sc.s) && sc.s[j] == '.' {
		j++
		if digits() == 0 {
			sc.Fail()
			return "", false
		}
		integer = false
	}
	if j < len(sc.s) && (sc.s[j] == 'e' || sc.s[j] == 'E') {
		j++
		if j < len(sc.s) && (sc.s[j] == '+' || sc.s[j] == '-') {
			j++
		}
		if digits() == 0 {
			sc.Fail()
			return "", false
		}
		integer = false
	}
	sc.i = j
	return sc.s[start:j], integer
}

// Int reads an integer that an int64 holds; a fraction or an exponent fails the scan, as encoding/json
// refuses them for an integer.
func (sc *Scanner) Int() int64 {
	text, integer := sc.number()
	if sc.failed {
		return 0
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if !integer || err != nil {
		sc.Fail()
		return 0
	}
	return v
}

// Float reads a number as a float64, as encoding/json does (a number out of its range fails).
func (sc *Scanner) Float() float64 {
	text, _ := sc.number()
	if sc.failed {
		return 0
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		sc.Fail()
		return 0
	}
	return v
}
