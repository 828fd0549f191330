package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file checks a record's JSON before it is decoded, in the record's own terms: every key at every
// level appears once, every field is one the format defines (spelt exactly: encoding/json would also take
// "NAME" or "ſource" for "name" and "source"), and every value is of the kind its field holds. It
// reports each problem with the field's path, "claims[1].confidence", where encoding/json would stop at
// the first and name Go types.

// jsonKind is the kind of a JSON value.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonList
	jsonObject
)

// article names a kind of value as a message says it was found.
func (k jsonKind) article() string {
	return [...]string{"null", "a string", "a number", "true/false", "a list", "an object"}[k]
}

func kindAt(c byte) jsonKind {
	switch c {
	case '"':
		return jsonString
	case '{':
		return jsonObject
	case '[':
		return jsonList
	case 't', 'f':
		return jsonBool
	case 'n':
		return jsonNull
	}
	return jsonNumber
}

// shape is what a field holds, derived from the record's Go type so that the check and the decoding
// never disagree.
type shape struct {
	kind   jsonKind
	fields map[string]*shape // an object read into a struct: its fields; nil for one read into a map
	names  []string          // the fields' names, sorted
	elem   *shape            // a list: each element; an object read into a map: each value
	alt    *shape            // another shape the value may have instead (an alias: a string or an object)
}

// alternatives gives the fields that take one of two shapes their second one.
var alternatives = map[reflect.Type][2]reflect.Type{
	reflect.TypeFor[aliasValue]():      {reflect.TypeFor[string](), reflect.TypeFor[aliasObject]()},
	reflect.TypeFor[identifierValue](): {reflect.TypeFor[string](), reflect.TypeFor[[]string]()},
}

// want names the shape as a message asks for it: "a list of strings".
func (s *shape) want() string {
	if s.alt != nil {
		alt := *s
		alt.alt = nil
		return alt.want() + " or " + s.alt.want()
	}
	switch {
	case s.kind == jsonList:
		return "a list of " + plural(s.elem)
	case s.kind == jsonObject && s.fields == nil:
		return "an object of " + plural(s.elem)
	}
	return s.kind.article()
}

func plural(s *shape) string {
	switch s.kind {
	case jsonString:
		return "strings"
	case jsonNumber:
		return "numbers"
	case jsonList:
		return "lists"
	case jsonObject:
		return "objects"
	}
	return "values"
}

func shapeOf(t reflect.Type) *shape {
	if alt, ok := alternatives[t]; ok {
		s := shapeOf(alt[0])
		s.alt = shapeOf(alt[1])
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return shapeOf(t.Elem())
	case reflect.String:
		return &shape{kind: jsonString}
	case reflect.Bool:
		return &shape{kind: jsonBool}
	case reflect.Slice, reflect.Array:
		return &shape{kind: jsonList, elem: shapeOf(t.Elem())}
	case reflect.Map:
		return &shape{kind: jsonObject, elem: shapeOf(t.Elem())}
	case reflect.Struct:
		s := &shape{kind: jsonObject, fields: map[string]*shape{}}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields[name] = shapeOf(f.Type)
			s.names = append(s.names, name)
		}
		slices.Sort(s.names)
		return s
	}
	return &shape{kind: jsonNumber} // ints and floats
}

// recordShapes maps each record type to the shape of its record.
var recordShapes = map[string]*shape{
	"dataset":  shapeOf(reflect.TypeFor[header]()),
	"source":   shapeOf(reflect.TypeFor[sourceRecord]()),
	"entity":   shapeOf(reflect.TypeFor[entityRecord]()),
	"relation": shapeOf(reflect.TypeFor[relationRecord]()),
}

// step is one step of a path into a record: a key, or an index into a list when index >= 0.
type step struct {
	key   []byte
	index int
}

// pathString renders a path as the format names fields: name, claims[1].confidence, identifiers.ocd, and
// identifiers["odd key"] for a key that is not a plain word.
func pathString(path []step) string {
	var b strings.Builder
	for _, s := range path {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case plainKey(s.key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(s.key)
		default:
			b.WriteString("[" + quote(string(s.key)) + "]")
		}
	}
	return b.String()
}

// keyPath is the path to one key of a map: identifiers.ocd.
func keyPath(field, key string) string {
	return pathString([]step{{key: []byte(field), index: -1}, {key: []byte(key), index: -1}})
}

func plainKey(k []byte) bool {
	if len(k) == 0 || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// quote shows a value from the input in a message: quoted, with control characters escaped, and cut to
// its first 64 bytes when it is longer, so that a message stays one short line whatever the input.
func quote(s string) string {
	const most = 64
	if len(s) <= most {
		return strconv.Quote(s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// walker walks one line that is known to be valid JSON, reporting what does not fit the shape it expects.
type walker struct {
	text    []byte
	i       int
	path    []step
	problem func(field, format string, args ...any)
}

func (w *walker) space() {
	for w.i < len(w.text) {
		switch w.text[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// value walks the value at w.i, which should have shape s (nil: any).
func (w *walker) value(s *shape) {
	w.space()
	got := kindAt(w.text[w.i])
	if s != nil && s.alt != nil && got == s.alt.kind && got != s.kind {
		s = s.alt
	}
	if s != nil && got == jsonString && s.kind == jsonNumber && w.nonFinite() {
		return
	}
	if s != nil && got != jsonNull && got != s.kind {
		w.problem(pathString(w.path), "want %s, got %s", s.want(), got.article())
		s = nil // walk on, for duplicate keys inside
	}
	switch got {
	case jsonObject:
		w.object(s)
	case jsonList:
		w.list(s)
	case jsonString:
		w.skipString()
	default:
		start := w.i
		for w.i < len(w.text) && !strings.ContainsRune(",]} \t\n\r", rune(w.text[w.i])) {
			w.i++
		}
		if got == jsonNumber && s != nil {
			lit := string(w.text[start:w.i])
			if _, err := strconv.ParseFloat(lit, 64); errors.Is(err, strconv.ErrRange) {
				w.problem(pathString(w.path), "the number %s is out of range", quote(lit))
			}
		}
	}
}

// numberFields say what each number field holds, for a message about a value it cannot hold.
var numberFields = map[string]string{"confidence": "a confidence: want a number from 0 to 1"}

// nonFinite reports a string at w.i where a number belongs that names NaN or an infinity, which JSON
// cannot write as a number (protojson writes them as "NaN", "Infinity" and "-Infinity"), and moves past
// it. It reports and moves past nothing for any other string.
func (w *walker) nonFinite() bool {
	start := w.i
	v := string(w.readKey())
	if f, err := strconv.ParseFloat(v, 64); err != nil || !math.IsNaN(f) && !math.IsInf(f, 0) {
		w.i = start
		return false
	}
	what := "a finite number: want a number"
	if len(w.path) > 0 && numberFields[string(w.path[len(w.path)-1].key)] != "" {
		what = numberFields[string(w.path[len(w.path)-1].key)]
	}
	w.problem(pathString(w.path), "%s is not %s", v, what)
	return true
}

func (w *walker) object(s *shape) {
	w.i++ // {
	var seen keySet
	w.space()
	if w.text[w.i] == '}' {
		w.i++
		return
	}
	for {
		w.space()
		key := w.readKey()
		w.space()
		w.i++ // :
		w.path = append(w.path, step{key: key, index: -1})
		var vs *shape
		switch {
		case !seen.add(key):
			w.problem(pathString(w.path), "duplicate key")
		case s == nil:
		case s.fields == nil:
			vs = s.elem
		default:
			var ok bool
			if vs, ok = s.fields[string(key)]; !ok {
				w.unknown(s, string(key))
			}
		}
		w.value(vs)
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.text[w.i] == '}' {
			w.i++
			return
		}
		w.i++ // ,
	}
}

// unknown reports a key the format does not define, suggesting the field it may mean.
func (w *walker) unknown(s *shape, key string) {
	for _, name := range s.names {
		if strings.EqualFold(name, key) {
			w.problem(pathString(w.path), "unknown field; did you mean %s? (field names are lower case)", name)
			return
		}
	}
	w.problem(pathString(w.path), "unknown field")
}

func (w *walker) list(s *shape) {
	w.i++ // [
	w.space()
	if w.text[w.i] == ']' {
		w.i++
		return
	}
	var elem *shape
	if s != nil {
		elem = s.elem
	}
	for n := 0; ; n++ {
		w.path = append(w.path, step{index: n})
		w.value(elem)
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.text[w.i] == ']' {
			w.i++
			return
		}
		w.i++ // ,
	}
}

// skipString moves past the string at w.i and reports whether it holds an escape.
func (w *walker) skipString() (escaped bool) {
	for w.i++; w.text[w.i] != '"'; w.i++ {
		if w.text[w.i] == '\\' {
			w.i++
			escaped = true
		}
	}
	w.i++
	return escaped
}

// readKey reads the string at w.i, escapes decoded; unless it holds escapes, it is a slice of the line.
func (w *walker) readKey() []byte {
	start := w.i
	if !w.skipString() {
		return w.text[start+1 : w.i-1]
	}
	var s string
	if err := json.Unmarshal(w.text[start:w.i], &s); err != nil {
		// A walker walks valid JSON only (Read checks each line first): its strings decode.
		panic("dataset: a string of valid JSON does not decode: " + err.Error())
	}
	return []byte(s)
}

// keySet remembers the keys of one object: a record's few in an array, a large map's in a map.
type keySet struct {
	few  [16][]byte
	n    int
	many map[string]bool
}

// add records a key and reports whether it is new.
func (k *keySet) add(key []byte) bool {
	if k.many != nil {
		if k.many[string(key)] {
			return false
		}
		k.many[string(key)] = true
		return true
	}
	for _, f := range k.few[:k.n] {
		if bytes.Equal(f, key) {
			return false
		}
	}
	if k.n < len(k.few) {
		k.few[k.n] = key
		k.n++
		return true
	}
	k.many = map[string]bool{string(key): true}
	for _, f := range k.few {
		k.many[string(f)] = true
	}
	return true
}

// recordType finds the first top-level "record" key of a line that is a valid JSON object, and returns
// its value when it is a string, and the kind of value it is.
func recordType(text []byte) (string, jsonKind, bool) {
	w := &walker{text: text, problem: func(string, string, ...any) {}}
	w.space()
	w.i++ // {
	w.space()
	if w.text[w.i] == '}' {
		return "", jsonNull, false
	}
	for {
		w.space()
		key := w.readKey()
		w.space()
		w.i++ // :
		w.space()
		if string(key) == "record" {
			kind := kindAt(w.text[w.i])
			if kind != jsonString {
				return "", kind, true
			}
			return string(w.readKey()), kind, true
		}
		w.value(nil)
		w.space()
		if w.text[w.i] == '}' {
			return "", jsonNull, false
		}
		w.i++ // ,
	}
}

// typeWords names a Go type as the JSON it is read from.
func typeWords(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	return shapeOf(t).want()
}

// decodeProblem says what was wrong with a record encoding/json refused, in the record's terms; the
// walker reports nearly everything first, so this is the backstop. It returns the field and the message.
func decodeProblem(err error) (string, string) {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if n, ok := strings.CutPrefix(te.Value, "number "); ok {
			return te.Field, fmt.Sprintf("the number %s is out of range", quote(n))
		}
		got, ok := map[string]string{"bool": "true/false", "array": "a list", "object": "an object",
			"number": "a number", "string": "a string"}[te.Value]
		if !ok {
			got = te.Value
		}
		return te.Field, fmt.Sprintf("want %s, got %s", typeWords(te.Type), got)
	case errors.As(err, &se):
		return "", fmt.Sprintf("not a JSON object: %s (at byte %d)", se.Error(), se.Offset)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		if u, err := strconv.Unquote(f); err == nil {
			f = u
		}
		return pathString([]step{{key: []byte(f), index: -1}}), "unknown field"
	}
	return "", "cannot read the record: " + strings.TrimPrefix(msg, "json: ")
}
