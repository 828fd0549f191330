package jsonscan_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph/dgraph/jsonscan"
)

// shape is a value of every kind a Scanner reads, with the tags encoding/json reads it by.
type shape struct {
	S     string   `json:"s"`
	I     int64    `json:"i"`
	F     float64  `json:"f"`
	List  []string `json:"list"`
	Inner *shape   `json:"inner,omitempty"` // as packs are written: a nil pointer or list is left out
	Many  []shape  `json:"many,omitempty"`
}

// scanShape reads a shape as the store's readers read their rows and packs: every key known, anything
// else a failure.
func scanShape(sc *jsonscan.Scanner, v *shape) {
	sc.Fields(func(key string) {
		switch key {
		case "s":
			v.S = sc.String()
		case "i":
			v.I = sc.Int()
		case "f":
			v.F = sc.Float()
		case "list":
			v.List = []string{}
			sc.Elems(func() { v.List = append(v.List, sc.String()) })
		case "inner":
			v.Inner = new(shape)
			scanShape(sc, v.Inner)
		case "many":
			v.Many = []shape{}
			sc.Elems(func() {
				v.Many = append(v.Many, shape{})
				scanShape(sc, &v.Many[len(v.Many)-1])
			})
		default:
			sc.Fail()
		}
	})
}

// agree checks that where the scanner reads text, encoding/json reads it too, to the same value; it
// reports whether the scanner read it.
func agree(t *testing.T, text string) bool {
	t.Helper()
	var got shape
	sc := jsonscan.Of(text)
	if scanShape(&sc, &got); !sc.End() {
		return false
	}
	var want shape
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatalf("the scanner read %s, which encoding/json refuses: %v", brief(text), err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s read differently (-encoding/json +scanner):\n%s", brief(text), diff)
	}
	return true
}

// brief quotes text, cut to a length a failure can show.
func brief(text string) string {
	if len(text) > 200 {
		return fmt.Sprintf("%q… (%d bytes)", text[:200], len(text))
	}
	return fmt.Sprintf("%q", text)
}

func TestScannerReadsWhatEncodingJSONReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		read bool // whether the scanner reads it (else it gives up, and a caller falls back)
	}{
		{"empty object", `{}`, true},
		{"every kind", `{"s":"a","i":-42,"f":0.25,"list":["x","y"],"inner":{"s":"b"},"many":[{"i":1},{"i":2}]}`, true},
		{"white space", " {\n\t\"s\" : \"a\" ,\r\n \"list\" : [ ] } \n", true},
		{"empty lists", `{"list":[],"many":[]}`, true},
		{"escapes", `{"s":"q\" b\\ s\/ \b\f\n\r\t \u0000 \u00e9 \u2028 \ud83d\ude00"}`, true},
		{"escaped markup", `{"s":"\u003cb\u003e \u0026"}`, true},
		{"UTF-8 as it is", `{"s":"Tōkyō – ☃ 😀"}`, true},
		{"numbers", `{"i":0,"f":-0.5e-3}`, true},
		{"exponent, capital", `{"f":1E+2}`, true},
		{"largest int64", `{"i":9223372036854775807}`, true},
		{"smallest int64", `{"i":-9223372036854775808}`, true},

		{"int64 overflow", `{"i":9223372036854775808}`, false},
		{"fraction for an integer", `{"i":1.0}`, false},
		{"exponent for an integer", `{"i":1e2}`, false},
		{"float out of range", `{"f":1e400}`, false},
		{"leading zero", `{"i":01}`, false},
		{"plus sign", `{"i":+1}`, false},
		{"bare point", `{"f":1.}`, false},
		{"null string", `{"s":null}`, false},
		{"null object", `{"inner":null}`, false},
		{"string for a number", `{"i":"1"}`, false},
		{"number for a string", `{"s":1}`, false},
		{"unknown key", `{"x":1}`, false},
		{"key of another case", `{"S":"a"}`, false},
		{"escaped key", `{"\u0073":"a"}`, false},
		{"repeated key", `{"s":"a","s":"b"}`, false},
		{"repeated list", `{"list":["a"],"list":["b"]}`, false},
		{"lone high surrogate", `{"s":"\ud83d"}`, false},
		{"lone low surrogate", `{"s":"\ude00"}`, false},
		{"high surrogate then text", `{"s":"\ud83dx"}`, false},
		{"two high surrogates", `{"s":"\ud83d\ud83d"}`, false},
		{"bad escape", `{"s":"\x"}`, false},
		{"short unicode escape", `{"s":"\u12"}`, false},
		{"control character", "{\"s\":\"a\tb\"}", false},
		{"not UTF-8", "{\"s\":\"\xff\"}", false},
		{"not UTF-8 among escapes", "{\"s\":\"\\n\xff\"}", false},
		{"unterminated string", `{"s":"a`, false},
		{"unterminated escape", `{"s":"a\`, false},
		{"trailing comma", `{"s":"a",}`, false},
		{"missing comma", `{"s":"a" "i":1}`, false},
		{"trailing text", `{"s":"a"} x`, false},
		{"two values", `{}{}`, false},
		{"array for an object", `[]`, false},
		{"empty text", ``, false},
		{"unterminated list", `{"list":["a"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := agree(t, tc.text); got != tc.read {
				t.Errorf("read %q: %t, want %t", tc.text, got, tc.read)
			}
		})
	}
}

// TestScannerReadsEveryStringEncodingJSONWrites writes strings of every kind with encoding/json, as
// packs are written, and reads them back.
func TestScannerReadsEveryStringEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	for _, s := range []string{"", "plain", all.String(), "\U0001F600\U0010FFFF", "\u2028\u2029", `"\/<>&`, strings.Repeat("ab\n", 1000)} {
		text, err := json.Marshal(shape{S: s, List: []string{s, s}, F: math.SmallestNonzeroFloat64, I: math.MinInt64})
		if err != nil {
			t.Fatal(err)
		}
		if !agree(t, string(text)) {
			t.Errorf("the scanner gave up on %s", brief(string(text)))
		}
	}
}

// FuzzScanner checks, on any text, that what the scanner reads encoding/json reads to the same value.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{
		`{"s":"a","i":-42,"f":0.25,"list":["x","y"],"inner":{"s":"b"},"many":[{"i":1},{"i":2}]}`,
		`{"s":"q\" b\\ \u00e9 \ud83d\ude00","f":1E+2}`,
		"{\"s\":\"Tōkyō\\n\"}",
		`{"inner":{"inner":{"many":[]}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		agree(t, text)
	})
}
