package dataset_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// v2 is a file of the second version of the format using every field it added.
var v2 = strings.Join([]string{
	`{"record":"dataset","format":"polgraph/v2","name":"v2"}`,
	`{"record":"source","name":"sources/ep","title":"EveryPolitician: Scottish Parliament","kind":"DATASET","outlet":"EveryPolitician","url":"https://everypolitician.org","retrieved":"2015-11","licence":"CC0-1.0"}`,
	`{"record":"entity","name":"actors/ns","display_name":"Nicola Sturgeon","aliases":["N. Sturgeon",{"name":"Nikola Stercen","lang":"az","note":"multilingual"}],` +
		`"identifiers":{"wikidata":"Q467112","viaf":["19185030","2"]},"birth_date":"1970-07-19","gender":"female",` +
		`"links":[{"url":"https://en.wikipedia.org/wiki/Nicola_Sturgeon","note":"Wikipedia (en)"}],"images":[{"url":"https://example.org/ns.jpg"}],` +
		`"contact_details":[{"type":"twitter","value":"NicolaSturgeon"}]}`,
	`{"record":"entity","name":"seats/glasgow","display_name":"Glasgow"}`,
	`{"record":"entity","name":"parties/snp","display_name":"Scottish National Party"}`,
	`{"record":"entity","name":"organisations/sp","display_name":"Scottish Parliament"}`,
	`{"record":"entity","name":"organisations/sp-term-1","display_name":"Scottish Parliament, 1st Parliament","valid_from":"1999-05-06","valid_to":"2003-03-31"}`,
	`{"record":"entity","name":"organisations/sp-term-2","display_name":"Scottish Parliament, 2nd Parliament","valid_from":"2003-05-01","valid_to":"2007-04-02"}`,
	`{"record":"relation","type":"HOLDS_OFFICE","from":"actors/ns","to":"seats/glasgow","role":"MSP","via":"parties/snp","term":"organisations/sp-term-1","claims":[{"source":"sources/ep","record_id":"m1","confidence":0.95,"status":"REPORTED"}]}`,
	`{"record":"relation","type":"HOLDS_OFFICE","from":"actors/ns","to":"seats/glasgow","role":"MSP","via":"parties/snp","term":"organisations/sp-term-2","valid_from":"2003-05-05","claims":[{"source":"sources/ep","record_id":"m2","confidence":0.95,"status":"REPORTED"}]}`,
}, "\n") + "\n"

func TestReadV2(t *testing.T) {
	t.Parallel()
	ds, err := dataset.Read([]dataset.File{{Name: "v2.jsonl", R: strings.NewReader(v2)}})
	if err != nil {
		t.Fatal(err)
	}
	src := ds.Sources[0]
	if src.Retrieved.String() != "2015-11" || src.Licence != "CC0-1.0" {
		t.Errorf("source: %+v", src)
	}
	ns := ds.Entities[0]
	want := graph.Entity{Name: "actors/ns", Kind: graph.KindActor, DisplayName: "Nicola Sturgeon", Aliases: []string{"N. Sturgeon", "Nikola Stercen"},
		Identifiers: graph.Identifiers{"wikidata": {"Q467112"}, "viaf": {"19185030", "2"}},
		Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1970, Month: 7, Day: 19}, Gender: "female",
			Links:          []graph.WebLink{{URL: "https://en.wikipedia.org/wiki/Nicola_Sturgeon", Note: "Wikipedia (en)"}},
			Images:         []graph.WebLink{{URL: "https://example.org/ns.jpg"}},
			ContactDetails: []graph.ContactDetail{{Type: "twitter", Value: "NicolaSturgeon"}},
			OtherNames:     []graph.Alias{{Name: "Nikola Stercen", Lang: "az", Note: "multilingual"}}}}
	if diff := cmp.Diff(want, ns); diff != "" {
		t.Errorf("entity (-want +got):\n%s", diff)
	}
	// Two terms of one seat: two relations, named by their terms; the first, undated, holds during its
	// term; the second keeps its own start and takes nothing from its term.
	names := []graph.RelationName{ds.Relations[0].Name, ds.Relations[1].Name}
	if diff := cmp.Diff([]graph.RelationName{"relations/ns.holds-office.glasgow.sp-term-1", "relations/ns.holds-office.glasgow.sp-term-2"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	r1, r2 := ds.Relations[0], ds.Relations[1]
	if r1.ValidFrom.String() != "1999-05-06" || r1.ValidTo.String() != "2003-03-31" || r1.Term != "organisations/sp-term-1" || r1.Via != "parties/snp" {
		t.Errorf("first term: %+v", r1)
	}
	if r2.ValidFrom.String() != "2003-05-05" || !r2.ValidTo.IsZero() {
		t.Errorf("second term: from %s to %s, want its own start and no end", r2.ValidFrom, r2.ValidTo)
	}
	if c := r1.Claims[0]; c.Record != "m1" || c.Excerpt != "" {
		t.Errorf("claim: %+v", c)
	}
	// Written and read again: the same records.
	again, text, err := dataset.Check("again.jsonl", graph.Subgraph{Sources: ds.Sources, Entities: ds.Entities, Relations: ds.Relations})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if diff := cmp.Diff(ds, again); diff != "" {
		t.Errorf("written and read again (-first +second):\n%s", diff)
	}
}

func TestReadV2Problems(t *testing.T) {
	t.Parallel()
	v1 := func(extra string) string {
		return strings.Replace(file(extra), `"polgraph/v1"`, `"polgraph/v1"`, 1)
	}
	asV2 := func(extra ...string) string {
		return strings.Replace(file(extra...), `"format":"polgraph/v1"`, `"format":"polgraph/v2"`, 1)
	}
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"a v2 field in a v1 file", v1(`{"record":"entity","name":"actors/c","display_name":"C","birth_date":"1970"}`),
			[]string{`f.jsonl:6: birth_date: needs format "polgraph/v2" (the file's header says "polgraph/v1")`}},
		{"several ids of a scheme in a v1 file", v1(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"viaf":["1","2"]}}`),
			[]string{`f.jsonl:6: identifiers.viaf: needs format "polgraph/v2" (the file's header says "polgraph/v1")`}},
		{"an unknown format", strings.Replace(file(), `"polgraph/v1"`, `"polgraph/v3"`, 1),
			[]string{`f.jsonl:1: format: is "polgraph/v3"; this version of polgraph reads "polgraph/v2" and "polgraph/v1"`}},
		{"a birth date of a seat", asV2(`{"record":"entity","name":"seats/c","display_name":"C","birth_date":"1970"}`),
			[]string{"f.jsonl:6: birth_date: only people are born and die; when a party, seat or organisation began and ended is valid_from and valid_to"}},
		{"death before birth", asV2(`{"record":"entity","name":"actors/c","display_name":"C","birth_date":"1970","death_date":"1960"}`),
			[]string{"f.jsonl:6: death_date: 1960 is before birth_date 1970"}},
		{"a bad language", asV2(`{"record":"entity","name":"actors/c","display_name":"C","aliases":[{"name":"X","lang":"en us"}]}`),
			[]string{`f.jsonl:6: aliases[0].lang: "en us" is not a language tag (en, cy, gd, bn-Latn)`}},
		{"an alias object without a name", asV2(`{"record":"entity","name":"actors/c","display_name":"C","aliases":[{"lang":"cy"}]}`),
			[]string{"f.jsonl:6: aliases[0]: empty alias"}},
		{"an unknown field in an alias", asV2(`{"record":"entity","name":"actors/c","display_name":"C","aliases":[{"name":"X","language":"cy"}]}`),
			[]string{`f.jsonl:6: aliases[0].language: unknown field`}},
		{"an id given twice", asV2(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"viaf":["1","1"]}}`),
			[]string{`f.jsonl:6: identifiers.viaf: "1" is given twice`}},
		{"a link without an address", asV2(`{"record":"entity","name":"actors/c","display_name":"C","links":[{"note":"home"}]}`),
			[]string{"f.jsonl:6: links[0].url: required"}},
		{"a contact without a type", asV2(`{"record":"entity","name":"actors/c","display_name":"C","contact_details":[{"value":"x"}]}`),
			[]string{"f.jsonl:6: contact_details[0].type: required (email, phone, twitter...)"}},
		{"a term that is not an organisation", asV2(`{"record":"relation","type":"ENDORSES","from":"actors/a","to":"actors/b","key":"t","term":"actors/b","claims":[{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`),
			[]string{"f.jsonl:6: term: actors/b is not an organisation; a term is one (organisations/<legislature>-<term>)"}},
		{"neither excerpt nor record", asV2(`{"record":"relation","type":"ENDORSES","from":"actors/a","to":"actors/b","key":"t","claims":[{"source":"sources/s","confidence":1,"status":"REPORTED"}]}`),
			[]string{"f.jsonl:6: claims[0].excerpt: required (or, for a claim from structured data, record_id)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, tc.content)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("want the problem\n  %s\ngot:\n  %s", w, strings.Join(got, "\n  "))
				}
			}
		})
	}
}
