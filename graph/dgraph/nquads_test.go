package dgraph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dgraph-io/dgo/v230/protos/api"
)

// quadLine shows one N-Quad of a mutation's Set as a line: its object a node, a plain literal ("text"),
// or a typed one (int:3).
func quadLine(q *api.NQuad) string {
	object := q.ObjectId
	switch v := q.ObjectValue.GetVal().(type) {
	case *api.Value_DefaultVal:
		object = fmt.Sprintf("%q", v.DefaultVal)
	case *api.Value_IntVal:
		object = fmt.Sprintf("int:%d", v.IntVal)
	case *api.Value_DoubleVal:
		object = fmt.Sprintf("float:%g", v.DoubleVal)
	case *api.Value_BoolVal:
		object = fmt.Sprintf("bool:%t", v.BoolVal)
	case nil:
	default:
		object = fmt.Sprintf("%T", v)
	}
	return q.Subject + " <" + q.Predicate + "> " + object
}

func TestSetQuads(t *testing.T) {
	tests := []struct {
		name string
		set  []map[string]any
		want []string
		err  string
	}{
		{name: "blank node, every value kind",
			set: []map[string]any{{"uid": "_:a", "dgraph.type": "Entity", "pg.name": "actors/a", "pg.changed": int64(3),
				"pg.start_day": 7, "pg.confidence": 0.5, "pg.flag": true, "pg.aliases": []string{"A", "B"}, "pg.none": nil}},
			want: []string{
				`_:a <dgraph.type> "Entity"`,
				`_:a <pg.aliases> "A"`,
				`_:a <pg.aliases> "B"`,
				`_:a <pg.changed> int:3`,
				`_:a <pg.confidence> float:0.5`,
				`_:a <pg.flag> bool:true`,
				`_:a <pg.name> "actors/a"`,
				`_:a <pg.start_day> int:7`,
			}},
		{name: "uid subject, references alone, in lists and nested",
			set: []map[string]any{{"uid": "0x1f", "pg.from": map[string]any{"uid": "0x2"},
				"pg.by": []map[string]any{{"uid": "_:x"}, {"uid": "_:y", "pg.name": "y"}}}},
			want: []string{
				`0x1f <pg.by> _:x`,
				`0x1f <pg.by> _:y`,
				`_:y <pg.name> "y"`,
				`0x1f <pg.from> 0x2`,
			}},
		{name: "text goes as it is",
			set:  []map[string]any{{"uid": "_:t", "pg.excerpt": "say \"no\"\\\n\r\t\x00\x1f\x7fé"}},
			want: []string{`_:t <pg.excerpt> "say \"no\"\\\n\r\t\x00\x1f\x7fé"`}},
		{name: "no uid", set: []map[string]any{{"pg.name": "x"}}, err: "has no uid"},
		{name: "a uid that is neither", set: []map[string]any{{"uid": "x> <y", "pg.name": "x"}}, err: "neither a uid nor a blank node"},
		{name: "a bad reference", set: []map[string]any{{"uid": "_:a", "pg.to": map[string]any{"uid": "zz"}}}, err: "pg.to"},
		{name: "an unknown value", set: []map[string]any{{"uid": "_:a", "pg.x": []int{1}}}, err: "cannot write a []int"},
		{name: "text that is not UTF-8", set: []map[string]any{{"uid": "_:a", "pg.aliases": []string{"ok", "caf\xe9"}}}, err: "pg.aliases: \"caf\\xe9\" is not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setQuads(tt.set)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := make([]string, len(got))
			for i, q := range got {
				lines[i] = quadLine(q)
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
