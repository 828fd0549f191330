package live

import (
	"testing"

	"github.com/polgraph/polgraph/graph"
)

func TestFilterMatch(t *testing.T) {
	t.Parallel()
	rel := func(typ, from, to string) string {
		return `{"record":"relation","type":"` + typ + `","from":"` + from + `","to":"` + to + `","claims":[]}`
	}
	member := graph.Change{Resource: "relations/ann.member-of.labour", Action: graph.ActionCreate, After: rel("MEMBER_OF", "actors/ann", "parties/labour")}
	moved := graph.Change{Resource: "relations/bob.endorses.cat", Action: graph.ActionMerge,
		Before: rel("ENDORSES", "actors/bob", "actors/cat"), After: rel("ENDORSES", "actors/bob-2", "actors/cat")}
	ann := graph.Change{Resource: "actors/ann", Action: graph.ActionUpdate, After: `{"record":"entity","name":"actors/ann"}`}
	merged := graph.Change{Resource: "actors/bob", Action: graph.ActionMerge, After: `{"record":"entity","name":"actors/bob","merged_into":"actors/bob-2"}`}
	source := graph.Change{Resource: "sources/gazette", Action: graph.ActionCreate, After: `{"record":"source","name":"sources/gazette"}`}
	load := graph.Change{Resource: "graph", Action: graph.ActionLoad}
	hood := &neighbourhood{in: map[graph.EntityName]bool{"actors/cat": true, "actors/dan": true}}
	for _, tc := range []struct {
		name   string
		f      Filter
		hood   *neighbourhood
		change graph.Change
		want   bool
	}{
		{"no filter passes a source", Filter{}, nil, source, true},
		{"an entity filter passes its relation", Filter{Entities: []graph.EntityName{"parties/labour"}}, nil, member, true},
		{"an entity filter passes the entity", Filter{Entities: []graph.EntityName{"actors/ann"}}, nil, ann, true},
		{"an entity filter leaves out others", Filter{Entities: []graph.EntityName{"actors/ann"}}, nil, moved, false},
		{"an entity filter passes a relation moved to it", Filter{Entities: []graph.EntityName{"actors/bob-2"}}, nil, moved, true},
		{"an entity filter passes a relation moved from it", Filter{Entities: []graph.EntityName{"actors/bob"}}, nil, moved, true},
		{"an entity filter passes a merge into it", Filter{Entities: []graph.EntityName{"actors/bob-2"}}, nil, merged, true},
		{"an entity filter leaves out sources", Filter{Entities: []graph.EntityName{"actors/ann"}}, nil, source, false},
		{"a type filter passes its type", Filter{RelationTypes: []graph.RelationType{graph.MemberOf}}, nil, member, true},
		{"a type filter leaves out other types", Filter{RelationTypes: []graph.RelationType{graph.MemberOf}}, nil, moved, false},
		{"a type filter leaves out entities", Filter{RelationTypes: []graph.RelationType{graph.MemberOf}}, nil, ann, false},
		{"a kind filter passes a relation with an end of the kind", Filter{Kinds: []graph.Kind{graph.KindParty}}, nil, member, true},
		{"a kind filter leaves out other kinds", Filter{Kinds: []graph.Kind{graph.KindParty}}, nil, ann, false},
		{"a neighbourhood passes a relation into it", Filter{Center: "actors/cat", Depth: 1}, hood, moved, true},
		{"a neighbourhood leaves out what is outside", Filter{Center: "actors/cat", Depth: 1}, hood, member, false},
		{"filters together must all pass", Filter{Kinds: []graph.Kind{graph.KindParty}, Entities: []graph.EntityName{"actors/bob"}}, nil, member, false},
		{"a load passes every filter", Filter{RelationTypes: []graph.RelationType{graph.Family}}, nil, load, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.match(tc.change, tc.hood); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFilterCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    Filter
		want string // the field named, or "" for none
	}{
		{"empty", Filter{}, ""},
		{"a neighbourhood", Filter{Center: "actors/ann", Depth: 2}, ""},
		{"a depth without a center", Filter{Depth: 2}, "depth"},
		{"too deep", Filter{Center: "actors/ann", Depth: MaxDepth + 1}, "depth"},
		{"a bad center", Filter{Center: "ann", Depth: 1}, "center"},
		{"a bad entity", Filter{Entities: []graph.EntityName{"people/ann"}}, "entities"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v graph.Violations
			tc.f.Check(&v)
			got := ""
			if len(v) > 0 {
				got = v[0].Field
			}
			if got != tc.want {
				t.Errorf("violations %v; want the field %q named", v, tc.want)
			}
		})
	}
}

func TestChangeTokens(t *testing.T) {
	t.Parallel()
	c := graph.After(graph.Change{Version: 12, Index: 3})
	if c != (graph.ChangeCursor{Version: 11, Skip: 4}) || c.Token() != "11:4" {
		t.Fatalf("after change 3 of version 12: %+v %q", c, c.Token())
	}
	for _, tc := range []struct {
		in   string
		want graph.ChangeCursor
		bad  bool
	}{
		{"11:4", graph.ChangeCursor{Version: 11, Skip: 4}, false},
		{"120", graph.ChangeCursor{Version: 120}, false},
		{"-1", graph.ChangeCursor{}, true},
		{"1:x", graph.ChangeCursor{}, true},
		{"v1", graph.ChangeCursor{}, true},
	} {
		got, err := graph.ParseChangeToken(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseChangeToken(%q) = %+v, %v", tc.in, got, err)
		}
	}
}
