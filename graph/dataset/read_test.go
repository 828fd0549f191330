package dataset_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// The lines of a small valid file; cases add lines after them (from line 6) or replace one.
var validLines = []string{
	`{"record":"dataset","format":"polgraph/v1","name":"t","description":"A test.\tTabs are fine here."}`,
	`{"record":"source","name":"sources/s","title":"S","kind":"ARTICLE","url":"https://example.org/s"}`,
	`{"record":"entity","name":"actors/a","display_name":"A","aliases":["Ay"],"identifiers":{"wikidata":"Q1"}}`,
	`{"record":"entity","name":"actors/b","display_name":"B"}`,
	`{"record":"relation","type":"ENDORSES","from":"actors/a","to":"actors/b","claims":[{"source":"sources/s","excerpt":"A backs B.","confidence":0.9,"status":"REPORTED"}]}`,
}

// file is the valid file with lines added.
func file(extra ...string) string {
	return strings.Join(append(slices.Clone(validLines), extra...), "\n") + "\n"
}

// replaced is the valid file with line n (from 1) replaced.
func replaced(n int, line string) string {
	lines := slices.Clone(validLines)
	lines[n-1] = line
	return strings.Join(lines, "\n") + "\n"
}

func long(n int) string { return strings.Repeat("x", n) }

// problems reads content as f.jsonl and returns its problems as "FIELD: description" lines, failing the
// test when Read returns a Dataset along with an error or an error that is not an Invalid *graph.Error.
func problems(t *testing.T, content string) []string {
	t.Helper()
	ds, err := dataset.Read([]dataset.File{{Name: "f.jsonl", R: strings.NewReader(content)}})
	// CheckFiles, which holds no records, must find exactly what Read finds.
	if _, cerr := dataset.CheckFiles([]dataset.File{{Name: "f.jsonl", R: strings.NewReader(content)}}); fmt.Sprint(cerr) != fmt.Sprint(err) ||
		!reflect.DeepEqual(violations(cerr), violations(err)) {
		t.Errorf("CheckFiles found %v, Read %v", violations(cerr), violations(err))
	}
	if err == nil {
		return nil
	}
	if ds != nil {
		t.Errorf("Read returned a Dataset with an error")
	}
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
		t.Fatalf("got %v, want an Invalid *graph.Error", err)
	}
	var out []string
	for _, v := range ge.Violations {
		out = append(out, v.Field+": "+v.Description)
	}
	return out
}

func violations(err error) graph.Violations {
	var ge *graph.Error
	if errors.As(err, &ge) {
		return ge.Violations
	}
	return nil
}

func TestReadAcceptsTheValidFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content string }{
		{"as it is", file()},
		{"values at their limits", file(
			fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":%q,"aliases":[%s],"description":%q,"identifiers":{%q:%q}}`,
				long(graph.MaxDisplayName), strings.TrimSuffix(strings.Repeat(fmt.Sprintf("%q,", long(graph.MaxAlias)), graph.MaxAliases), ","),
				long(graph.MaxDescription), long(graph.MaxIdentifierKey), long(graph.MaxIdentifierValue)),
			fmt.Sprintf(`{"record":"source","name":"sources/t","title":%q,"kind":"OTHER","outlet":%q,"author":%q,"url":%q,"text_file":%q}`,
				long(graph.MaxTitle), long(graph.MaxOutlet), long(graph.MaxAuthor), long(graph.MaxURL), long(dataset.MaxTextFile)),
			fmt.Sprintf(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","role":%q,"claims":[{"source":"sources/s","excerpt":%q,"confidence":1,"status":"REPORTED"}]}`,
				long(graph.MaxRole), strings.Repeat("é", graph.MaxExcerpt))),
		},
		{"tabs in free text", file(
			`{"record":"entity","name":"actors/c","display_name":"C","description":"Tab\there."}`,
			`{"record":"relation","type":"ENDORSES","from":"actors/c","to":"actors/a","claims":[{"source":"sources/s","excerpt":"C\tbacks A.","confidence":1,"status":"REPORTED"}]}`)},
		{"CRLF line ends and blank lines", strings.ReplaceAll(file(), "\n", "\r\n\r\n")},
		{"no line break at the end", strings.TrimSuffix(file(), "\n")},
		{"joiners inside Persian and Bengali names", file(`{"record":"entity","name":"actors/c","display_name":"\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645","aliases":["\u09b0\u200d\u09cd\u09af\u09be\u09ac"]}`)},
		{"null for an absent value", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":null,"description":null}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := problems(t, tc.content); got != nil {
				t.Errorf("want no problems; got:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

func TestReadReportsEachProblem(t *testing.T) {
	t.Parallel()
	many := make([]string, graph.MaxClaims+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED","key":"k%d"}`, i)
	}
	for _, tc := range []struct {
		name    string
		content string
		want    []string // each a whole problem, "FIELD: description"
	}{
		// Value sizes Dgraph refuses, and the limits beside them.
		{"display name too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":%q}`, long(70000))),
			[]string{"f.jsonl:6: display_name: 70000 bytes; at most 500"}},
		{"alias too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","aliases":["C",%q]}`, long(501))),
			[]string{"f.jsonl:6: aliases[1]: 501 bytes; at most 500"}},
		{"too many aliases", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","aliases":[%s]}`, strings.TrimSuffix(strings.Repeat(`"C",`, 101), ","))),
			[]string{"f.jsonl:6: aliases: 101 aliases; at most 100"}},
		{"description too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","description":%q}`, long(10001))),
			[]string{"f.jsonl:6: description: 10001 bytes; at most 10000"}},
		{"too many identifiers", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{%s}}`, identifiers(51))),
			[]string{"f.jsonl:6: identifiers: 51 ids; at most 50"}},
		{"identifier name too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{%q:"1"}}`, long(65))),
			[]string{fmt.Sprintf(`f.jsonl:6: identifiers[%q… (65 bytes)]: the id's name is 65 bytes; at most 64`, long(64))}},
		{"identifier too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"ocd":"ocd-division/%s"}}`, long(500))),
			[]string{"f.jsonl:6: identifiers.ocd: 513 bytes; at most 500"}},
		{"identifier empty", file(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"wikidata":"","":"Q2"}}`),
			[]string{`f.jsonl:6: identifiers[""]: an id needs a name (ocd, wikidata)`, "f.jsonl:6: identifiers.wikidata: empty id"}},
		{"title too long", file(fmt.Sprintf(`{"record":"source","name":"sources/t","title":%q,"kind":"OTHER"}`, long(1001))),
			[]string{"f.jsonl:6: title: 1001 bytes; at most 1000"}},
		{"outlet, author, url and text file too long", file(fmt.Sprintf(`{"record":"source","name":"sources/t","title":"T","kind":"OTHER","outlet":%q,"author":%q,"url":%q,"text_file":%q}`,
			long(201), long(501), long(2049), long(256))),
			[]string{"f.jsonl:6: outlet: 201 bytes; at most 200", "f.jsonl:6: author: 501 bytes; at most 500",
				"f.jsonl:6: url: 2049 bytes; at most 2048", "f.jsonl:6: text_file: 256 bytes; at most 255"}},
		{"role too long", file(fmt.Sprintf(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","role":%q,"claims":[{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`, long(201))),
			[]string{"f.jsonl:6: role: 201 bytes; at most 200"}},
		{"too many claims", file(fmt.Sprintf(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[%s]}`, strings.Join(many, ","))),
			[]string{"f.jsonl:6: claims: 1001 claims; at most 1000"}},
		{"excerpt too long", file(fmt.Sprintf(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":%q,"confidence":1,"status":"REPORTED"}]}`, strings.Repeat("é", 601))),
			[]string{"f.jsonl:6: claims[0].excerpt: 601 characters; an excerpt is at most one sentence (600 characters)"}},
		{"header name and description too long", replaced(1, fmt.Sprintf(`{"record":"dataset","format":"polgraph/v1","name":%q,"description":%q}`, long(201), long(10001))),
			[]string{"f.jsonl:1: name: 201 bytes; at most 200", "f.jsonl:1: description: 10001 bytes; at most 10000"}},
		{"header without a name", replaced(1, `{"record":"dataset","format":"polgraph/v1"}`), []string{"f.jsonl:1: name: required"}},
		{"entity name too long", file(fmt.Sprintf(`{"record":"entity","name":"actors/%s","display_name":"C"}`, long(70000))),
			[]string{"f.jsonl:6: name: 70007 bytes; a name is at most 128"}},
		{"source name too long", file(fmt.Sprintf(`{"record":"source","name":"sources/%s","title":"T","kind":"OTHER"}`, long(70000))),
			[]string{"f.jsonl:6: name: 70008 bytes; a name is at most 128"}},
		{"references too long", file(fmt.Sprintf(`{"record":"relation","type":"ENDORSES","from":"actors/%[1]s","to":"actors/a","via":"actors/%[1]s","claims":[{"source":"sources/%[1]s","said_by":"actors/%[1]s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`, long(200))),
			[]string{"f.jsonl:6: from: 207 bytes; a name is at most 128", "f.jsonl:6: via: 207 bytes; a name is at most 128",
				"f.jsonl:6: claims[0].source: 208 bytes; a name is at most 128", "f.jsonl:6: claims[0].said_by: 207 bytes; a name is at most 128"}},
		{"long values are quoted short", file(fmt.Sprintf(`{"record":"relation","type":%q,"from":"actors/b","to":"actors/a","date":%q,"claims":[{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`, long(100000), long(100000))),
			[]string{fmt.Sprintf(`f.jsonl:6: type: %q… (100000 bytes) is not in the relation vocabulary (see data/FORMAT.md)`, long(64)),
				fmt.Sprintf(`f.jsonl:6: date: %q… (100000 bytes) is not a date: want YYYY, YYYY-MM or YYYY-MM-DD`, long(64))}},

		{"a date not in its own form", file(`{"record":"entity","name":"actors/c","display_name":"C","valid_from":"2024-+1","valid_to":"0000-01-01"}`,
			`{"record":"entity","name":"actors/d","display_name":"D","valid_from":"0999-12-31"}`),
			[]string{`f.jsonl:6: valid_from: "2024-+1" is not a date: want YYYY, YYYY-MM or YYYY-MM-DD`,
				`f.jsonl:6: valid_to: "0000-01-01" is not a date: want YYYY, YYYY-MM or YYYY-MM-DD`,
				`f.jsonl:7: valid_from: "0999-12-31" is not a date: want YYYY, YYYY-MM or YYYY-MM-DD`}},

		{"an entity that ends before it begins", file(`{"record":"entity","name":"actors/c","display_name":"C","valid_from":"2020-03","valid_to":"2020-02-28"}`,
			`{"record":"entity","name":"actors/d","display_name":"D","valid_from":"2020-03","valid_to":"2020"}`),
			[]string{`f.jsonl:6: valid_to: 2020-02-28 is before valid_from 2020-03`}},

		{"an event with a state's dates", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","date":"2024","valid_from":"2023","claims":[{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`),
			[]string{`f.jsonl:6: date: a relation is an event (date) or a state (valid_from, valid_to), not both`}},

		// Control characters.
		{"NUL in a display name", file(`{"record":"entity","name":"actors/c","display_name":"Twelve byte\u0000s"}`),
			[]string{"f.jsonl:6: display_name: contains the control character U+0000 (NUL) at byte 12"}},
		{"tab in a display name", file(`{"record":"entity","name":"actors/c","display_name":"C\tD"}`),
			[]string{"f.jsonl:6: display_name: contains the control character U+0009 (tab) at byte 2"}},
		{"line feed in an alias", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":["C\nD"]}`),
			[]string{"f.jsonl:6: aliases[0]: contains the control character U+000A (line feed) at byte 2"}},
		{"C1 control in a description", file(`{"record":"entity","name":"actors/c","display_name":"C","description":"é\u0085"}`),
			[]string{"f.jsonl:6: description: contains the control character U+0085 at byte 3"}},
		{"DEL in an identifier and its name", file(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"w\u007f":"Q\u007f"}}`),
			[]string{`f.jsonl:6: identifiers["w\x7f"]: the id's name contains the control character U+007F (DEL) at byte 2`,
				`f.jsonl:6: identifiers["w\x7f"]: contains the control character U+007F (DEL) at byte 2`}},
		{"controls in a source", file(`{"record":"source","name":"sources/t","title":"T\r","kind":"OTHER","outlet":"\u001b","author":"\u0001","url":"u\u0000","text_file":"\n"}`),
			[]string{"f.jsonl:6: title: contains the control character U+000D (carriage return) at byte 2",
				"f.jsonl:6: outlet: contains the control character U+001B (escape) at byte 1",
				"f.jsonl:6: author: contains the control character U+0001 at byte 1",
				"f.jsonl:6: url: contains the control character U+0000 (NUL) at byte 2",
				"f.jsonl:6: text_file: contains the control character U+000A (line feed) at byte 1"}},
		{"controls in a relation", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","role":"\u0000","claims":[{"source":"sources/s","excerpt":"x\u0000","confidence":1,"status":"REPORTED"}]}`),
			[]string{"f.jsonl:6: role: contains the control character U+0000 (NUL) at byte 1",
				"f.jsonl:6: claims[0].excerpt: contains the control character U+0000 (NUL) at byte 2"}},
		{"controls in the header", replaced(1, `{"record":"dataset","format":"polgraph/v1","name":"t\u0000","description":"\u0000"}`),
			[]string{"f.jsonl:1: name: contains the control character U+0000 (NUL) at byte 2",
				"f.jsonl:1: description: contains the control character U+0000 (NUL) at byte 1"}},
		{"controls in names are quoted", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/\u0000","claims":[{"source":"sources/s\n","excerpt":"x","confidence":1,"status":"REPORTED\u0000"}]}`),
			[]string{`f.jsonl:6: to: "actors/\x00" is not defined in the input`, `f.jsonl:6: claims[0].source: "sources/s\n" is not defined in the input`,
				`f.jsonl:6: claims[0].status: "REPORTED\x00" is not a claim status (want ALLEGED, REPORTED, CONFIRMED or DENIED)`}},
		// Invisible characters in names (graph.InvisibleAt).
		{"zero width space in a display name", file(`{"record":"entity","name":"actors/c","display_name":"Keir\u200b Starmer"}`),
			[]string{"f.jsonl:6: display_name: contains the invisible character U+200B (zero width space) at byte 5; a name may hold no character that cannot be seen"}},
		{"right-to-left override in an alias", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":["Keir",{"name":"\u202eremrats","lang":"en"}]}`),
			[]string{"f.jsonl:6: aliases[1]: contains the invisible character U+202E (right-to-left override) at byte 1; a name may hold no character that cannot be seen"}},
		{"a joiner beside a Latin letter", file(`{"record":"entity","name":"actors/c","display_name":"Keir\u200dStarmer"}`),
			[]string{"f.jsonl:6: display_name: contains the invisible character U+200D (zero width joiner) at byte 5; a name may hold no character that cannot be seen"}},

		{"invalid UTF-8", file("{\"record\":\"entity\",\"name\":\"actors/c\",\"display_name\":\"C\xff\"}"),
			[]string{"f.jsonl:6: not valid UTF-8 (at byte 55)"}},

		// Duplicate keys, at any level.
		{"duplicate key", file(`{"record":"entity","name":"actors/c","name":"actors/d","display_name":"C"}`),
			[]string{"f.jsonl:6: name: duplicate key"}},
		{"duplicate key written with an escape", file(`{"record":"entity","name":"actors/c","n\u0061me":"actors/d","display_name":"C"}`),
			[]string{"f.jsonl:6: name: duplicate key"}},
		{"duplicate record", file(`{"record":"entity","record":"source","name":"actors/c","display_name":"C"}`),
			[]string{"f.jsonl:6: record: duplicate key"}},
		{"duplicate key in a claim", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"},{"source":"sources/s","key":"k","excerpt":"x","confidence":1,"confidence":0,"status":"REPORTED"}]}`),
			[]string{"f.jsonl:6: claims[1].confidence: duplicate key"}},
		{"duplicate identifier", file(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"ocd":"ocd-division/x","ocd":"ocd-division/y"}}`),
			[]string{"f.jsonl:6: identifiers.ocd: duplicate key"}},
		{"duplicate key among many", file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{%s,"id3":"x","id16":"y"}}`, identifiers(17))),
			[]string{"f.jsonl:6: identifiers.id3: duplicate key", "f.jsonl:6: identifiers.id16: duplicate key"}},
		{"duplicate key inside a wrong value", file(`{"record":"entity","name":{"a":1,"a":2},"display_name":"C"}`),
			[]string{"f.jsonl:6: name: want a string, got an object", "f.jsonl:6: name.a: duplicate key"}},
		{"a field in another case", file(`{"record":"entity","name":"actors/c","NAME":"actors/d","display_name":"C"}`),
			[]string{"f.jsonl:6: NAME: unknown field; did you mean name? (field names are lower case)"}},
		{"a field folded to another", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"ſource":"sources/s","excerpt":"x","confidence":1,"status":"REPORTED"}]}`),
			[]string{`f.jsonl:6: claims[0]["ſource"]: unknown field; did you mean source? (field names are lower case)`}},
		{"unknown fields, all of them", file(`{"record":"entity","name":"actors/c","display_name":"C","colour":"red","size":1}`),
			[]string{"f.jsonl:6: colour: unknown field", "f.jsonl:6: size: unknown field"}},

		// Files without records.
		{"empty", "", []string{`f.jsonl:1: the file holds no records; the first must be the dataset header {"record":"dataset","format":"polgraph/v2","name":...}`}},
		{"only blank lines", strings.Repeat("\n \t\r\n", 100000),
			[]string{`f.jsonl:1: the file holds no records; the first must be the dataset header {"record":"dataset","format":"polgraph/v2","name":...}`}},
		{"header not first", validLines[3] + "\n" + file(),
			[]string{`f.jsonl:1: record: the first record must be the dataset header {"record":"dataset","format":"polgraph/v2","name":...}`}},
		{"a second header", file(validLines[0]), []string{"f.jsonl:6: record: a second dataset header"}},

		// Long lines: reported, skipped, and the next line read.
		{"line too long", file(`{"record":"entity","name":"actors/c","display_name":"`+long(graph.MaxRecordBytes)+`"}`, `{"record":"entity","name":"actors/d","display_name":""}`),
			[]string{fmt.Sprintf("f.jsonl:6: the line is %d bytes, longer than 16 MiB (the longest record polgraph reads); it was skipped", graph.MaxRecordBytes+55),
				"f.jsonl:7: display_name: required"}},

		// Values of the wrong kind, in the record's terms.
		{"aliases not a list", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":3}`),
			[]string{"f.jsonl:6: aliases: want a list of strings, got a number"}},
		{"an alias not a string", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":["C",true]}`),
			[]string{"f.jsonl:6: aliases[1]: want a string or an object, got true/false"}},
		{"identifiers not an object", file(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":["Q1"]}`),
			[]string{"f.jsonl:6: identifiers: want an object of strings, got a list"}},
		{"an identifier not a string", file(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{"wikidata":1}}`),
			[]string{"f.jsonl:6: identifiers.wikidata: want a string or a list of strings, got a number"}},
		{"every wrong kind in a relation", file(`{"record":"relation","type":1,"from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":"x","confidence":"high","status":"REPORTED"},7]}`),
			[]string{"f.jsonl:6: type: want a string, got a number", "f.jsonl:6: claims[0].confidence: want a number, got a string",
				"f.jsonl:6: claims[1]: want an object, got a number"}},
		{"NaN for a confidence", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":"x","confidence":"NaN","status":"REPORTED"},{"source":"sources/s","key":"k","excerpt":"x","confidence":"-Infinity","status":"REPORTED"}]}`),
			[]string{"f.jsonl:6: claims[0].confidence: NaN is not a confidence: want a number from 0 to 1",
				"f.jsonl:6: claims[1].confidence: -Infinity is not a confidence: want a number from 0 to 1"}},
		{"claims not a list", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":{"source":"sources/s"}}`),
			[]string{"f.jsonl:6: claims: want a list of objects, got an object"}},
		{"a number out of range", file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":"x","confidence":1e999,"status":"REPORTED"}]}`),
			[]string{`f.jsonl:6: claims[0].confidence: the number "1e999" is out of range`}},
		{"record not a string", file(`{"record":["entity"],"name":"actors/c"}`), []string{"f.jsonl:6: record: want a string, got a list"}},
		{"record missing", file(`{"name":"actors/c"}`), []string{"f.jsonl:6: record: required: say what the line is (dataset, source, entity or relation)"}},
		{"not a record type", file(`{"record":"person\u0000"}`), []string{`f.jsonl:6: record: "person\x00" is not a record type (want dataset, source, entity or relation)`}},
		{"not an object", file(`["record","entity"]`), []string{"f.jsonl:6: not a JSON object: the line holds a list"}},
		{"not JSON", file(`{"record":"entity",}`), []string{"f.jsonl:6: not a JSON object: invalid character '}' looking for beginning of object key string (at byte 20)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, tc.content)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("want the problem\n  %s\ngot:\n  %s", w, strings.Join(shorten(got), "\n  "))
				}
			}
		})
	}
}

func identifiers(n int) string {
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf(`"id%d":"%d"`, i, i))
	}
	return strings.Join(ids, ",")
}

// shorten cuts long problems for a failure message.
func shorten(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		out[i] = s
	}
	return out
}

// TestReadBoundsTheProblemsListed: an input with a problem on every line lists the first MaxProblems,
// then says how many more there were, and counts them all.
func TestReadBoundsTheProblemsListed(t *testing.T) {
	t.Parallel()
	const n = 3 * dataset.MaxProblems
	var b strings.Builder
	b.WriteString(validLines[0] + "\n")
	for range n {
		b.WriteString("not json\n")
	}
	_, err := dataset.Read([]dataset.File{{Name: "f.jsonl", R: strings.NewReader(b.String())}})
	var ge *graph.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a *graph.Error", err)
	}
	if len(ge.Violations) != dataset.MaxProblems+1 {
		t.Fatalf("%d problems listed, want %d and a summary", len(ge.Violations), dataset.MaxProblems)
	}
	want := graph.FieldViolation{Field: fmt.Sprintf("f.jsonl:%d", dataset.MaxProblems+2),
		Description: fmt.Sprintf("... and %d more problems from here on (only the first %d are listed)", n-dataset.MaxProblems, dataset.MaxProblems)}
	if got := ge.Violations[dataset.MaxProblems]; got != want {
		t.Errorf("the last problem is\n  %+v\nwant\n  %+v", got, want)
	}
	if !strings.Contains(ge.Message, fmt.Sprintf("%d problem(s)", n)) {
		t.Errorf("the message %q does not count every problem (%d)", ge.Message, n)
	}
}

// TestReadReportsEveryFile: problems in several files are all reported, each under its file's name.
func TestReadReportsEveryFile(t *testing.T) {
	t.Parallel()
	_, err := dataset.Read([]dataset.File{
		{Name: "a.jsonl", R: strings.NewReader("")},
		{Name: "b.jsonl", R: strings.NewReader(replaced(4, `{"record":"entity","name":"actors/b","display_name":"\u0000"}`))},
		{Name: "c.jsonl", R: strings.NewReader(strings.Replace(file(), `"name":"actors/b"`, `"name":"actors/b2"`, 1))},
	})
	var ge *graph.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a *graph.Error", err)
	}
	var got []string
	for _, v := range ge.Violations {
		got = append(got, v.Field)
	}
	for _, w := range []string{"a.jsonl:1", "b.jsonl:4: display_name", "c.jsonl:2: name", "c.jsonl:3: name"} {
		if !slices.Contains(got, w) {
			t.Errorf("want a problem at %s; got %v", w, got)
		}
	}
}

// TestReadIsDeterministic: the same input gives the same problems in the same order, though identifiers
// are a map.
func TestReadIsDeterministic(t *testing.T) {
	t.Parallel()
	content := file(fmt.Sprintf(`{"record":"entity","name":"actors/c","display_name":"C","identifiers":{%s}}`,
		strings.ReplaceAll(identifiers(30), `":"`, "\":\"\\u0000")))
	first := problems(t, content)
	for range 20 {
		if got := problems(t, content); !reflect.DeepEqual(got, first) {
			t.Fatalf("a second Read reports\n%s\nthe first\n%s", strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
}

// TestReadReportsReadErrors: a file that cannot be read to its end is a problem at the line where reading
// stopped, and the lines before it are still checked.
func TestReadReportsReadErrors(t *testing.T) {
	t.Parallel()
	r := io.MultiReader(strings.NewReader(validLines[0]+"\n"+validLines[3]+"\n"+`{"record":"entity"}`), iotest.ErrReader(errors.New("disk on fire")))
	_, err := dataset.Read([]dataset.File{{Name: "f.jsonl", R: r}})
	var ge *graph.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a *graph.Error", err)
	}
	want := []graph.FieldViolation{{Field: "f.jsonl:3", Description: "cannot read: disk on fire"}}
	if !reflect.DeepEqual(ge.Violations, want) {
		t.Errorf("got %+v, want %+v", ge.Violations, want)
	}
}

// TestReadSaysEachProblemOnce: a record whose JSON is wrong is reported for that alone, not again by the
// decoding or by the checks of what it would have held.
func TestReadSaysEachProblemOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content, want string }{
		{"wrong kind", file(`{"record":"entity","name":"actors/c","display_name":"C","aliases":3}`), "f.jsonl:6: aliases: want a list of strings, got a number"},
		{"duplicate key", file(`{"record":"entity","name":"actors/c","name":"actors/a","display_name":"C"}`), "f.jsonl:6: name: duplicate key"},
		{"unknown field", file(`{"record":"entity","name":"actors/c","display_name":"","colour":"red"}`), "f.jsonl:6: colour: unknown field"},
		{"a header with a problem is still the header", replaced(1, `{"record":"dataset","format":"polgraph/v1","name":"t","colour":1}`),
			"f.jsonl:1: colour: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := problems(t, tc.content); !reflect.DeepEqual(got, []string{tc.want}) {
				t.Errorf("got:\n  %s\nwant only:\n  %s", strings.Join(got, "\n  "), tc.want)
			}
		})
	}
}
