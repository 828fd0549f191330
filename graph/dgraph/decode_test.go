package dgraph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

// TestEntityDecodesWhatTheStoreWrites: pg.identifiers and pg.attributes as identifiersJSON and
// attributesJSON write them read back as they were.
func TestEntityDecodesWhatTheStoreWrites(t *testing.T) {
	t.Parallel()
	for _, want := range []graph.Entity{
		{Name: "actors/a", Kind: graph.KindActor},
		{Name: "actors/b", Kind: graph.KindActor, Identifiers: graph.Identifiers{"ocd": {"ocd-division/x"}, "wikidata": {"Q1", "Q2"}},
			Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1975, Month: 3}, Gender: "female",
				Links: []graph.WebLink{{URL: "https://example.org/b", Note: "home"}}}},
	} {
		got, err := entityJSON{Name: string(want.Name), Kind: string(want.Kind),
			Identifiers: identifiersJSON(want.Identifiers), Attributes: attributesJSON(want.Attributes)}.entity()
		if err != nil {
			t.Errorf("%s: %v", want.Name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s", want.Name, diff)
		}
	}
}

// TestEntityReportsFieldsThatDoNotDecode: a field another program wrote as JSON the store cannot read is
// an Internal error naming the entity and the predicate; the entity comes without it.
func TestEntityReportsFieldsThatDoNotDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		row        entityJSON
		predicates []string
		want       graph.Entity
	}{
		{"identifiers not JSON", entityJSON{Name: "actors/a", Kind: "ACTOR", Identifiers: "{ocd", Attributes: `{"gender":"male"}`},
			[]string{"pg.identifiers"}, graph.Entity{Name: "actors/a", Kind: graph.KindActor, Attributes: graph.Attributes{Gender: "male"}}},
		{"an identifier a number", entityJSON{Name: "actors/b", Kind: "ACTOR", Identifiers: `{"ocd":7}`},
			[]string{"pg.identifiers"}, graph.Entity{Name: "actors/b", Kind: graph.KindActor}},
		{"a birth date that is no date", entityJSON{Name: "actors/c", Kind: "ACTOR", Identifiers: `{"ocd":"x"}`, Attributes: `{"birth_date":"soon"}`},
			[]string{"pg.attributes"}, graph.Entity{Name: "actors/c", Kind: graph.KindActor, Identifiers: graph.Identifiers{"ocd": {"x"}}}},
		{"both", entityJSON{Name: "actors/d", Kind: "ACTOR", Identifiers: `[]`, Attributes: `""`},
			[]string{"pg.identifiers", "pg.attributes"}, graph.Entity{Name: "actors/d", Kind: graph.KindActor}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.row.entity()
			if graph.KindOf(err) != graph.Internal || err == nil || !strings.Contains(err.Error(), tc.row.Name) {
				t.Fatalf("error %v; want an Internal error naming %s", err, tc.row.Name)
			}
			for _, p := range tc.predicates {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %v does not name %s", err, p)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("the entity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeInto: a found resource's fields decode into what asks for them; a field of another type than
// the one asked for is an Internal error naming the operation and the resource.
func TestDecodeInto(t *testing.T) {
	t.Parallel()
	var t1 tombstoneJSON
	if err := decodeInto("dgraph.Op", found{Name: "relations/r", raw: json.RawMessage(`{"pg.deleted_at":5,"pg.deleted_by":"x"}`)}, &t1); err != nil ||
		t1.DeletedAt == nil || *t1.DeletedAt != 5 || t1.DeletedBy != "x" {
		t.Errorf("decodeInto = %v, %+v; want pg.deleted_at 5 by x", err, t1)
	}
	var t2 tombstoneJSON
	if err := decodeInto("dgraph.Op", found{Name: "relations/r"}, &t2); err != nil || t2 != (tombstoneJSON{}) {
		t.Errorf("nothing read: %v, %+v; want nothing decoded and no error", err, t2)
	}
	var t3 tombstoneJSON
	err := decodeInto("dgraph.Op", found{Name: "relations/r", raw: json.RawMessage(`{"pg.deleted_at":"yesterday"}`)}, &t3)
	if graph.KindOf(err) != graph.Internal || err == nil || !strings.HasPrefix(err.Error(), "dgraph.Op: ") || !strings.Contains(err.Error(), "relations/r") {
		t.Errorf("a field of another type: %v; want an Internal error of dgraph.Op naming relations/r", err)
	}
}
