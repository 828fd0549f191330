package dataset_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// TestRelationsOutsideLifetimesAreRefused: the data check refuses a dated relation that cannot have
// held because one of its ends (defined in the input) did not exist then, naming FILE:LINE; a party
// without dates of its own exists from its dated founding; a candidacy may come before its seat, and a
// succession spans the two seats.
func TestRelationsOutsideLifetimesAreRefused(t *testing.T) {
	t.Parallel()
	head := []string{
		`{"record":"dataset","format":"polgraph/v2","name":"t"}`,
		`{"record":"source","name":"sources/s","title":"S","kind":"ARTICLE"}`,
		`{"record":"entity","name":"actors/dead","display_name":"Dead Man","death_date":"1999"}`,
		`{"record":"entity","name":"actors/alive","display_name":"Alive","birth_date":"1960"}`,
		`{"record":"entity","name":"parties/new","display_name":"New Party","valid_from":"2010"}`,
		`{"record":"entity","name":"parties/founded","display_name":"Founded Party"}`,
		`{"record":"entity","name":"organisations/regulator","display_name":"Regulator"}`,
		`{"record":"entity","name":"seats/old-seat","display_name":"Old Seat","valid_to":"2024-07-03"}`,
		`{"record":"entity","name":"seats/new-seat","display_name":"New Seat","valid_from":"2024-07-04"}`,
	}
	claim := `"claims":[{"source":"sources/s","excerpt":"So it says.","confidence":0.9,"status":"REPORTED"}]`
	rel := func(fields string) string { return `{"record":"relation",` + fields + `,` + claim + `}` }
	tests := []struct {
		name  string
		lines []string
		want  string // "" when the input is accepted; else its one problem
	}{
		{"a dead man leading a party founded after his death",
			[]string{rel(`"type":"LEADS","from":"actors/dead","to":"parties/new","valid_from":"2010"`)},
			`t.jsonl:10: valid_from: "relations/dead.leads.new" holds from 2010-01-01, outside the lifetime of actors/dead (until 1999-12-31)`},
		{"a dead man's event after his death",
			[]string{rel(`"type":"ENDORSES","from":"actors/dead","to":"actors/alive","date":"2005"`)},
			`t.jsonl:10: date: "relations/dead.endorses.alive" holds 2005-01-01 to 2005-12-31, outside the lifetime of actors/dead (until 1999-12-31)`},
		{"leading a party before its dated founding",
			[]string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2018"`),
				rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2008","valid_to":"2010"`)},
			`t.jsonl:11: valid_from: "relations/alive.leads.founded" holds 2008-01-01 to 2010-12-31, outside the lifetime of parties/founded (from 2018-01-01)`},
		{"leading a party after its founding", []string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2018"`),
			rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2018"`)}, ""},
		{"leading a party after its dissolution",
			[]string{rel(`"type":"DISSOLVED","from":"organisations/regulator","to":"parties/founded","date":"2015-04"`),
				rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2016"`)},
			`t.jsonl:11: valid_from: "relations/alive.leads.founded" holds from 2016-01-01, outside the lifetime of parties/founded (until 2015-04-30)`},
		{"dissolved before its founding",
			[]string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2018"`),
				rel(`"type":"DISSOLVED","from":"organisations/regulator","to":"parties/founded","date":"2015"`)},
			`t.jsonl:11: date: "relations/regulator.dissolved.founded" holds 2015-01-01 to 2015-12-31, outside the lifetime of parties/founded (from 2018-01-01)`},
		{"a party led between its founding and its dissolution",
			[]string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2010"`),
				rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2010","valid_to":"2015"`),
				rel(`"type":"DISSOLVED","from":"organisations/regulator","to":"parties/founded","date":"2015-04"`)}, ""},
		{"a party with a start of its own ends with its dissolution", []string{rel(`"type":"DISSOLVED","from":"organisations/regulator","to":"parties/new","date":"2015"`),
			rel(`"type":"LEADS","from":"actors/alive","to":"parties/new","valid_from":"2016"`)},
			`t.jsonl:11: valid_from: "relations/alive.leads.new" holds from 2016-01-01, outside the lifetime of parties/new (2010-01-01 to 2015-12-31)`},
		{"a dead man's undated tie", []string{rel(`"type":"ENDORSES","from":"actors/dead","to":"actors/alive"`)}, ""},
		{"a candidacy before its seat exists", []string{rel(`"type":"CANDIDATE_FOR","from":"actors/alive","to":"seats/new-seat","date":"2024-06"`)}, ""},
		{"an office before its seat exists", []string{rel(`"type":"HOLDS_OFFICE","from":"actors/alive","to":"seats/new-seat","valid_from":"2020","valid_to":"2024-06"`)},
			`t.jsonl:10: valid_from: "relations/alive.holds-office.new-seat" holds 2020-01-01 to 2024-06-30, outside the lifetime of seats/new-seat (from 2024-07-04)`},
		{"a succession on the day the new seat begins", []string{rel(`"type":"SUCCEEDED_BY","from":"seats/old-seat","to":"seats/new-seat","date":"2024-07-04"`)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Join(append(append([]string{}, head...), tc.lines...), "\n") + "\n"
			_, err := dataset.Read([]dataset.File{{Name: "t.jsonl", R: strings.NewReader(in)}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n  ") != 1 {
				t.Fatalf("got %v\nwant the one problem %s", err, tc.want)
			}
			// The streaming check (polgraph load of big files) refuses it too.
			if _, err := dataset.CheckFiles([]dataset.File{{Name: "t.jsonl", R: bytes.NewReader([]byte(in))}}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckFiles: %v", err)
			}
		})
	}
}

// TestAnExportLoadsBackAsItIs: a file polgraph exported from a graph (its header says exported) loads
// back whatever its relations' dates, since the graph held them; the same file without the mark is
// refused.
func TestAnExportLoadsBackAsItIs(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"record":"source","name":"sources/s","title":"S","kind":"ARTICLE"}`,
		`{"record":"entity","name":"actors/dead","display_name":"Dead Man","death_date":"1999"}`,
		`{"record":"entity","name":"parties/new","display_name":"New Party","valid_from":"2010"}`,
		`{"record":"relation","type":"LEADS","from":"actors/dead","to":"parties/new","valid_from":"2010","claims":[{"source":"sources/s","excerpt":"So.","confidence":0.9,"status":"REPORTED"}]}`,
	}
	for _, tc := range []struct {
		header string
		ok     bool
	}{
		{`{"record":"dataset","format":"polgraph/v2","name":"export","exported":true}`, true},
		{`{"record":"dataset","format":"polgraph/v2","name":"export"}`, false},
	} {
		in := strings.Join(append([]string{tc.header}, lines...), "\n") + "\n"
		if _, err := dataset.Read([]dataset.File{{Name: "x.jsonl", R: strings.NewReader(in)}}); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.header, err, tc.ok)
		}
	}
}

// TestLifetimesTakenFromRelationsSaySo: a party without dates of its own takes them from its FOUNDED and
// DISSOLVED relations, and its dates_from names them; dates of its own win, and keep their dates_from; a
// dates_from without a date is refused.
func TestLifetimesTakenFromRelationsSaySo(t *testing.T) {
	t.Parallel()
	claim := `"claims":[{"source":"sources/s","excerpt":"So it says.","confidence":0.9,"status":"REPORTED"}]`
	in := strings.Join([]string{
		`{"record":"dataset","format":"polgraph/v2","name":"t"}`,
		`{"record":"source","name":"sources/s","title":"S","kind":"ARTICLE"}`,
		`{"record":"entity","name":"actors/founder","display_name":"Founder"}`,
		`{"record":"entity","name":"parties/short-lived","display_name":"Short Lived"}`,
		`{"record":"entity","name":"parties/dated","display_name":"Dated","valid_to":"2016","dates_from":"public record: deregistered in 2016 (Register)"}`,
		`{"record":"relation","type":"FOUNDED","from":"actors/founder","to":"parties/short-lived","date":"2012",` + claim + `}`,
		`{"record":"relation","type":"DISSOLVED","from":"actors/founder","to":"parties/short-lived","date":"2014-03",` + claim + `}`,
		`{"record":"relation","type":"DISSOLVED","from":"actors/founder","to":"parties/dated","date":"2015",` + claim + `}`,
	}, "\n") + "\n"
	ds, err := dataset.Read([]dataset.File{{Name: "t.jsonl", R: strings.NewReader(in)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[graph.EntityName][3]string{
		"parties/short-lived": {"2012", "2014-03", "valid_from from relations/founder.founded.short-lived; valid_to from relations/founder.dissolved.short-lived"},
		"parties/dated":       {"", "2016", "public record: deregistered in 2016 (Register)"},
		"actors/founder":      {"", "", ""},
	}
	for _, e := range ds.Entities {
		got := [3]string{e.ValidFrom.String(), e.ValidTo.String(), e.Attributes.DatesFrom}
		if got != want[e.Name] {
			t.Errorf("%s: %q, want %q", e.Name, got, want[e.Name])
		}
		// The record written says it too, and reads back the same.
		if rec := graph.EntityRecord(e); rec.DatesFrom != e.Attributes.DatesFrom {
			t.Errorf("%s: record's dates_from %q", e.Name, rec.DatesFrom)
		}
	}
	bad := `{"record":"dataset","format":"polgraph/v2","name":"t"}` + "\n" +
		`{"record":"entity","name":"parties/p","display_name":"P","dates_from":"public record: somewhere"}` + "\n"
	_, err = dataset.Read([]dataset.File{{Name: "b.jsonl", R: strings.NewReader(bad)}})
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:2: dates_from: says where the entity's dates come from, and it has none") {
		t.Errorf("dates_from without dates: %v", err)
	}
}
