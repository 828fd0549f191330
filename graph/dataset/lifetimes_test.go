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
			`t.jsonl:9: valid_from: "relations/dead.leads.new" holds from 2010-01-01, outside the lifetime of actors/dead (until 1999-12-31)`},
		{"a dead man's event after his death",
			[]string{rel(`"type":"ENDORSES","from":"actors/dead","to":"actors/alive","date":"2005"`)},
			`t.jsonl:9: date: "relations/dead.endorses.alive" holds 2005-01-01 to 2005-12-31, outside the lifetime of actors/dead (until 1999-12-31)`},
		{"leading a party before its dated founding",
			[]string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2018"`),
				rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2008","valid_to":"2010"`)},
			`t.jsonl:10: valid_from: "relations/alive.leads.founded" holds 2008-01-01 to 2010-12-31, outside the lifetime of parties/founded (from 2018-01-01)`},
		{"leading a party after its founding", []string{rel(`"type":"FOUNDED","from":"actors/alive","to":"parties/founded","date":"2018"`),
			rel(`"type":"LEADS","from":"actors/alive","to":"parties/founded","valid_from":"2018"`)}, ""},
		{"a dead man's undated tie", []string{rel(`"type":"ENDORSES","from":"actors/dead","to":"actors/alive"`)}, ""},
		{"a candidacy before its seat exists", []string{rel(`"type":"CANDIDATE_FOR","from":"actors/alive","to":"seats/new-seat","date":"2024-06"`)}, ""},
		{"an office before its seat exists", []string{rel(`"type":"HOLDS_OFFICE","from":"actors/alive","to":"seats/new-seat","valid_from":"2020","valid_to":"2024-06"`)},
			`t.jsonl:9: valid_from: "relations/alive.holds-office.new-seat" holds 2020-01-01 to 2024-06-30, outside the lifetime of seats/new-seat (from 2024-07-04)`},
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
