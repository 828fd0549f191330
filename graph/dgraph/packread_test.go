package dgraph

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph/dgraph/jsonscan"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/synth"
)

// hostileText is text of every kind a pack may hold: quotes, backslashes, control characters, markup that
// encoding/json escapes, line separators, characters beyond the BMP.
var hostileText = []string{"", "plain", `q"uo\te`, "tab\tnew\nline\r\x00\x1f", "<b>&amp;</b>", "\u2028\u2029", "Tōkyō ☃ 😀",
	`{"json":"inside"}`, strings.Repeat("long ", 200)}

// fastRead reads text with scan alone, as readPack's fast path does, and reports whether it read it.
func fastRead[T any](text string, scan func(*jsonscan.Scanner, *T)) (T, bool) {
	var v T
	sc := jsonscan.Of(text)
	scan(&sc, &v)
	return v, sc.End()
}

// readsAsJSON checks that scan reads text, written by polgraph, without giving up, and to what
// encoding/json reads.
func readsAsJSON[T any](t *testing.T, text string, scan func(*jsonscan.Scanner, *T)) {
	t.Helper()
	got, ok := fastRead(text, scan)
	if !ok {
		t.Fatalf("the fast reader gave up on %.300q", text)
	}
	var want T
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.300q:\n got %+v\nwant %+v", text, got, want)
	}
}

func TestPacksReadWithoutReflection(t *testing.T) {
	t.Parallel()
	c := &graphtest.Collector{}
	if _, err := synth.Generate(synth.Config{Relations: 3000, Seed: 5}, c); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Sources {
		readsAsJSON(t, packSource(s, 17), scanSourcePack)
	}
	for _, e := range c.Entities {
		if pack, ok := packEntity(e, 17); ok {
			readsAsJSON(t, pack, scanEntityPack)
		}
	}
	for _, r := range c.Relations {
		readsAsJSON(t, packRelation(r, 17), scanRelationPack)
	}

	// Every field, with text of every kind.
	day := -3
	for i, x := range hostileText {
		mark := &packedMark{At: -int64(i), By: x, Reason: x}
		readsAsJSON(t, mustJSON(relationPack{Format: packFormat, Changed: int64(i), Name: x, Type: x, From: x, To: x, Role: x, Via: x, Term: x,
			ValidFrom: x, ValidTo: x, Date: x, Deleted: mark, MergedInto: x, Claims: []claimPack{
				{Name: x, Source: x, Excerpt: x, Record: x, Confidence: 1 / 3.0, Status: x, SaidBy: x, Retracted: mark},
				{Source: x, Confidence: 1e-300},
			}}), scanRelationPack)
		readsAsJSON(t, mustJSON(entityPack{Format: packFormat, Changed: int64(i), Name: x, Kind: x, DisplayName: x, Aliases: []string{x, x + "2"},
			Description: x, Identifiers: x, Attributes: x, ValidFrom: x, ValidTo: x, Deleted: mark, MergedInto: x, StartDay: &day, EndDay: &i}), scanEntityPack)
		readsAsJSON(t, mustJSON(sourcePack{Format: packFormat, Changed: int64(i), sourceJSON: sourceJSON{Name: x, Title: x, Kind: x, Outlet: x,
			Author: x, Published: x, URL: x, Retrieved: x, Licence: x}}), scanSourcePack)
	}

	// A page of rows as Dgraph gives it, in a fill and in a catch-up.
	type row map[string]any
	rows := []row{{"uid": "0x1"}, {"uid": "0x2", "pg.changed": 5}, {"uid": "0x3", "pg.changed": 6, "pg.pack": packRelation(c.Relations[0], 6)}}
	for i, x := range hostileText {
		rows = append(rows, row{"uid": fmt.Sprintf("0x%x", i+10), "pg.changed": i, "pg.pack": x,
			"pg.from": row{"uid": "0xa", "pg.name": x, "pg.start_day": -i}, "pg.to": row{"uid": "0xb", "pg.name": x, "pg.end_day": i}})
	}
	for _, page := range []any{row{"q": rows}, row{"q": []row{}}, row{}} {
		text := mustJSON(page)
		got, ok := fastRead(text, func(sc *jsonscan.Scanner, rows *[]packedRow) { *rows = scanRows(sc, scanPackedRow) })
		if !ok {
			t.Fatalf("the page's reader gave up on %.300q", text)
		}
		want, err := readRows([]byte(text), scanPackedRow)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON struct{ Q []packedRow }
		if err := json.Unmarshal([]byte(text), &viaJSON); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, viaJSON.Q) || !reflect.DeepEqual(want, viaJSON.Q) {
			t.Fatalf("%.300q:\n scanned %+v\nreadRows %+v\n    want %+v", text, got, want, viaJSON.Q)
		}
	}
}

// TestPacksOfAnotherShapeReadAsJSONReadsThem: what the fast readers do not know they leave to
// encoding/json, which reads it as it always has.
func TestPacksOfAnotherShapeReadAsJSONReadsThem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pack string
		want relationPack
		ok   bool
	}{
		{"a key of a later format", `{"p":2,"v":3,"n":"relations/a","new":[1,2]}`, relationPack{Format: 2, Changed: 3, Name: "relations/a"}, true},
		{"a null", `{"p":1,"v":3,"del":null}`, relationPack{Format: 1, Changed: 3}, true},
		{"a key in capitals", `{"P":1,"V":3}`, relationPack{Format: 1, Changed: 3}, true},
		{"not JSON", `{"p":1,`, relationPack{}, false},
		{"a string for a number", `{"p":"1"}`, relationPack{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, fast := fastRead(tc.pack, scanRelationPack); fast {
				t.Fatalf("the fast reader read %q", tc.pack)
			}
			got, ok := readPack(tc.pack, scanRelationPack)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("readPack(%q) = %+v, %t; want %+v, %t", tc.pack, got, ok, tc.want, tc.ok)
			}
		})
	}
	rows, err := readRows([]byte(`{"q":[{"uid":"0x1","pg.changed":null,"extra":true}],"extensions":{}}`), scanPackedRow)
	if err != nil || len(rows) != 1 || rows[0].UID != "0x1" || rows[0].Changed != nil {
		t.Errorf("readRows gave %+v, %v", rows, err)
	}
}
