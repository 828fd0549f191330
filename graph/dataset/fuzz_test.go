package dataset_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// FuzzRead feeds any bytes to Read as a file. Read must not panic; it returns either a Dataset whose every
// value keeps the limits, or an Invalid *graph.Error whose every problem names the file and a line; and
// reading the same bytes again gives the same answer. The seeds are the default dataset, each of its lines
// after a header, and testdata/fuzz/FuzzRead (one input for each kind of problem Read reports).
func FuzzRead(f *testing.F) {
	def, err := io.ReadAll(data.Default().R)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(def)
	lines := strings.Split(string(def), "\n")
	for _, l := range lines[1:] {
		f.Add([]byte(lines[0] + "\n" + l + "\n"))
	}
	f.Add([]byte(file()))
	f.Fuzz(func(t *testing.T, in []byte) {
		ds, err := readFuzz(in)
		if err != nil {
			checkProblems(t, ds, err)
		} else {
			checkLimits(t, ds)
		}
		ds2, err2 := readFuzz(in)
		if !reflect.DeepEqual(ds, ds2) || errString(err) != errString(err2) {
			t.Fatalf("a second Read differs:\n%v\n%v", err, err2)
		}
		// Checking without holding the records finds the same, and the second pass gives the same records.
		files := func() []dataset.File { return []dataset.File{{Name: "fuzz.jsonl", R: bytes.NewReader(in)}} }
		checked, cerr := dataset.CheckFiles(files())
		if errString(cerr) != errString(err) {
			t.Fatalf("CheckFiles differs from Read:\n%v\n%v", cerr, err)
		}
		if cerr == nil {
			var got collector
			if err := checked.Each(files(), &got); err != nil {
				t.Fatalf("Each after CheckFiles: %v", err)
			}
			if !reflect.DeepEqual(got.ds.Sources, ds.Sources) || !reflect.DeepEqual(got.ds.Entities, ds.Entities) || !reflect.DeepEqual(got.ds.Relations, ds.Relations) {
				t.Fatalf("Each gave other records than Read")
			}
		}
	})
}

func readFuzz(in []byte) (*dataset.Dataset, error) {
	return dataset.Read([]dataset.File{{Name: "fuzz.jsonl", R: bytes.NewReader(in)}})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var problemField = regexp.MustCompile(`^fuzz\.jsonl:[1-9][0-9]*(: |$)`)

func checkProblems(t *testing.T, ds *dataset.Dataset, err error) {
	t.Helper()
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
		t.Fatalf("got %v, want an Invalid *graph.Error", err)
	}
	if ds != nil {
		t.Fatal("Read returned a Dataset with its error")
	}
	if len(ge.Violations) == 0 || len(ge.Violations) > dataset.MaxProblems+1 {
		t.Fatalf("%d problems listed; want 1 to %d", len(ge.Violations), dataset.MaxProblems+1)
	}
	for _, v := range ge.Violations {
		if !problemField.MatchString(v.Field) {
			t.Fatalf("the problem %q: %q does not start with the file and a line", v.Field, v.Description)
		}
		if len(v.Field)+len(v.Description) > 1000 || strings.ContainsAny(v.Field+v.Description, "\x00\n\r") {
			t.Fatalf("the problem %.200q: %.200q is not one short line", v.Field, v.Description)
		}
	}
}

// checkLimits checks a Dataset Read accepted against the limits, independently of how Read checks them.
func checkLimits(t *testing.T, ds *dataset.Dataset) {
	t.Helper()
	text := func(what, s string, most int, freeText bool) {
		t.Helper()
		if len(s) > most {
			t.Fatalf("%s is %d bytes; the limit is %d", what, len(s), most)
		}
		if !utf8.ValidString(s) {
			t.Fatalf("%s %q is not valid UTF-8", what, s)
		}
		for _, r := range s {
			if unicode.IsControl(r) && !(freeText && r == '\t') {
				t.Fatalf("%s %q holds the control character %U", what, s, r)
			}
		}
	}
	sources := map[graph.SourceName]bool{}
	for _, s := range ds.Sources {
		sources[s.Name] = true
		text("a source's name", string(s.Name), graph.MaxName, false)
		text("a title", s.Title, graph.MaxTitle, true)
		text("an outlet", s.Outlet, graph.MaxOutlet, false)
		text("an author", s.Author, graph.MaxAuthor, false)
		text("a url", s.URL, graph.MaxURL, false)
		checkDate(t, s.Published)
	}
	entities := map[graph.EntityName]bool{}
	for _, e := range ds.Entities {
		entities[e.Name] = true
		if k, err := graph.ParseEntityName(string(e.Name)); err != nil || k != e.Kind {
			t.Fatalf("entity %q: kind %v, %v", e.Name, k, err)
		}
		text("a display name", e.DisplayName, graph.MaxDisplayName, false)
		for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
			for _, r := range n {
				if unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' {
					t.Fatalf("the name %q holds the invisible character %U", n, r)
				}
			}
		}
		if len(e.Aliases) > graph.MaxAliases || e.Identifiers.Count() > graph.MaxIdentifiers {
			t.Fatalf("%s has %d aliases and %d ids", e.Name, len(e.Aliases), len(e.Identifiers))
		}
		for _, a := range e.Aliases {
			text("an alias", a, graph.MaxAlias, false)
		}
		text("a description", e.Description, graph.MaxDescription, true)
		for _, id := range e.Identifiers.Pairs() {
			text("an id's name", id.Scheme, graph.MaxIdentifierKey, false)
			text("an id", id.Value, graph.MaxIdentifierValue, false)
		}
		for _, k := range e.SearchKeys() {
			if len(k) > 65000/2 {
				t.Fatalf("the search key %.40q… is %d bytes", k, len(k))
			}
		}
		checkDate(t, e.ValidFrom)
		checkDate(t, e.ValidTo)
	}
	for _, r := range ds.Relations {
		if !r.Type.Valid() || !entities[r.From] || !entities[r.To] || (r.Via != "" && !entities[r.Via]) {
			t.Fatalf("relation %q joins what is not defined", r.Name)
		}
		text("a role", r.Role, graph.MaxRole, false)
		if len(r.Claims) == 0 || len(r.Claims) > graph.MaxClaims {
			t.Fatalf("%s has %d claims", r.Name, len(r.Claims))
		}
		for _, c := range r.Claims {
			if !sources[c.Source.Name] || (c.SaidBy != "" && !entities[c.SaidBy]) || c.Confidence < 0 || c.Confidence > 1 || c.Status.Index() < 0 {
				t.Fatalf("claim %+v of %s", c, r.Name)
			}
			text("an excerpt", c.Excerpt, 4*graph.MaxExcerpt, true)
			if n := utf8.RuneCountInString(c.Excerpt); n > graph.MaxExcerpt {
				t.Fatalf("an excerpt of %d characters", n)
			}
		}
		checkDate(t, r.ValidFrom)
		checkDate(t, r.ValidTo)
		checkDate(t, r.Date)
	}
}

// checkDate: a date read from a file is written back as it was read.
func checkDate(t *testing.T, d graph.FuzzyDate) {
	t.Helper()
	if back, err := graph.ParseFuzzyDate(d.String()); err != nil || back != d {
		t.Fatalf("the date %+v reads back as %+v, %v", d, back, err)
	}
}
