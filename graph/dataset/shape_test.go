package dataset

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestDecodeProblem: what encoding/json refuses is said in the record's terms, never in Go's.
func TestDecodeProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		v          any
		field, msg string
	}{
		{"list of strings", `{"aliases":3}`, &entityRecord{}, "aliases", "want a list of strings, got a number"},
		{"object of strings", `{"identifiers":true}`, &entityRecord{}, "identifiers", "want an object of strings, got true/false"},
		{"number", `{"claims":[{"confidence":"high"}]}`, &relationRecord{}, "claims.confidence", "want a number, got a string"},
		{"list of objects", `{"claims":"none"}`, &relationRecord{}, "claims", "want a list of objects, got a string"},
		{"object", `{"claims":[[1]]}`, &relationRecord{}, "claims", "want an object, got a list"},
		{"string", `{"name":{}}`, &entityRecord{}, "name", "want a string, got an object"},
		{"out of range", `{"claims":[{"confidence":1e999}]}`, &relationRecord{}, "claims.confidence", `the number "1e999" is out of range`},
		{"unknown field", `{"colour":"red"}`, &entityRecord{}, "colour", "unknown field"},
		{"odd unknown field", `{"a b":"red"}`, &entityRecord{}, `["a b"]`, "unknown field"},
		{"syntax", `{"name":}`, &entityRecord{}, "", "not a JSON object: invalid character '}' looking for beginning of value (at byte 9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dec := json.NewDecoder(strings.NewReader(tc.text))
			dec.DisallowUnknownFields()
			err := dec.Decode(tc.v)
			if err == nil {
				t.Fatal("decoded")
			}
			field, msg := decodeProblem(err)
			if field != tc.field || msg != tc.msg {
				t.Errorf("got %q, %q; want %q, %q (from %v)", field, msg, tc.field, tc.msg, err)
			}
		})
	}
}

// TestLineReader: lines come back whole, without their line breaks, however the reader splits them, and
// a line over the limit is measured and skipped without being held.
func TestLineReader(t *testing.T) {
	t.Parallel()
	type line struct {
		text string
		n    int
	}
	long := strings.Repeat("y", 200<<10) // longer than the reader's buffer
	for _, tc := range []struct {
		name, in string
		max      int
		want     []line
	}{
		{"empty", "", 10, nil},
		{"one line", "abc\n", 10, []line{{"abc", 3}}},
		{"no final break", "abc\ndef", 10, []line{{"abc", 3}, {"def", 3}}},
		{"blank lines", "\n\n", 10, []line{{"", 0}, {"", 0}}},
		{"at the limit", "0123456789\n", 10, []line{{"0123456789", 10}}},
		{"over the limit", "0123456789a\nok\n", 10, []line{{"", 11}, {"ok", 2}}},
		{"over the limit at the end", "ok\n0123456789a", 10, []line{{"ok", 2}, {"", 11}}},
		{"longer than the buffer", long + "\nok\n", len(long), []line{{long, len(long)}, {"ok", 2}}},
		{"longer than the buffer and the limit", long + "\nok\n", len(long) - 1, []line{{"", len(long)}, {"ok", 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				l := newLineReader(r, tc.max)
				var got []line
				for {
					text, n, err := l.next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, line{string(text), n})
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %d lines %.200v, want %d %.200v", len(got), got, len(tc.want), tc.want)
				}
			}
		})
	}
}

// TestLineReaderReportsReadErrors: an error other than the end is returned, after the lines before it.
func TestLineReaderReportsReadErrors(t *testing.T) {
	t.Parallel()
	failure := errors.New("disk on fire")
	l := newLineReader(io.MultiReader(strings.NewReader("ok\npart"), iotest.ErrReader(failure)), 10)
	if text, _, err := l.next(); string(text) != "ok" || err != nil {
		t.Fatalf("first line %q, %v", text, err)
	}
	if _, _, err := l.next(); !errors.Is(err, failure) {
		t.Fatalf("got %v, want the read error", err)
	}
	if _, _, err := l.next(); err != io.EOF {
		t.Fatalf("after the error got %v, want io.EOF", err)
	}
}

// TestReadKeyDecodesEscapes: a key or the record's type written with JSON escapes reads as its text. The
// walker reads only lines Read has found valid, so a string that does not decode is a broken invariant,
// which panics rather than reading as "".
func TestReadKeyDecodesEscapes(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`{"rec\u006frd":"d\u0061taset"}`:          "dataset",
		`{"x":{"record":1},"\u0072ecord":"a\/b"}`: "a/b",
		`{"record":"\ud83d\uddf3 \"q\" \\"}`:      `🗳 "q" \`,
	} {
		got, kind, found := recordType([]byte(line))
		if got != want || kind != jsonString || !found {
			t.Errorf("recordType(%s) = %q, %v, %v; want %q, a string, found", line, got, kind, found, want)
		}
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("readKey of a string that is not JSON did not panic")
		}
	}()
	w := &walker{text: []byte(`"\x"`)}
	w.readKey()
}
