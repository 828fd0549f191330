package dgraph

import (
	"strings"
	"testing"
)

func TestSetNQuads(t *testing.T) {
	tests := []struct {
		name string
		set  []map[string]any
		want string
		err  string
	}{
		{name: "blank node, every value kind",
			set: []map[string]any{{"uid": "_:a", "dgraph.type": "Entity", "pg.name": "actors/a", "pg.changed": int64(3),
				"pg.start_day": 7, "pg.confidence": 0.5, "pg.flag": true, "pg.aliases": []string{"A", "B"}, "pg.none": nil}},
			want: `_:a <dgraph.type> "Entity" .
_:a <pg.aliases> "A" .
_:a <pg.aliases> "B" .
_:a <pg.changed> "3"^^<xs:int> .
_:a <pg.confidence> "0.5"^^<xs:float> .
_:a <pg.flag> "true"^^<xs:boolean> .
_:a <pg.name> "actors/a" .
_:a <pg.start_day> "7"^^<xs:int> .
`},
		{name: "uid subject, references alone, in lists and nested",
			set: []map[string]any{{"uid": "0x1f", "pg.from": map[string]any{"uid": "0x2"},
				"pg.by": []map[string]any{{"uid": "_:x"}, {"uid": "_:y", "pg.name": "y"}}}},
			want: `<0x1f> <pg.by> _:x .
<0x1f> <pg.by> _:y .
_:y <pg.name> "y" .
<0x1f> <pg.from> <0x2> .
`},
		{name: "text is escaped",
			set:  []map[string]any{{"uid": "_:t", "pg.excerpt": "say \"no\"\\\n\r\t\x00\x1f\x7fé"}},
			want: `_:t <pg.excerpt> "say \"no\"\\\n\r\t\u0000\u001f\u007fé" .` + "\n"},
		{name: "no uid", set: []map[string]any{{"pg.name": "x"}}, err: "has no uid"},
		{name: "a uid that is neither", set: []map[string]any{{"uid": "x> <y", "pg.name": "x"}}, err: "neither a uid nor a blank node"},
		{name: "a bad reference", set: []map[string]any{{"uid": "_:a", "pg.to": map[string]any{"uid": "zz"}}}, err: "pg.to"},
		{name: "an unknown value", set: []map[string]any{{"uid": "_:a", "pg.x": []int{1}}}, err: "cannot write a []int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setNQuads(tt.set)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
