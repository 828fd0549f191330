// Package ocd imports Open Civic Data division lists — the CSV files of opencivicdata/ocd-division-ids,
// such as identifiers/country-gb/constituencies.csv — as polgraph seats: one seat per division, each
// linked to its successor by SUCCEEDED_BY. It reads and checks a list (Read), finds what the graph already
// holds under the list's ids and names (List.Lookup), and builds a dataset that merges with it
// (List.Dataset), for dataset.Load to write.
package ocd

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// Columns is the header of a division list, in the order opencivicdata writes it. Read accepts the
// columns in any order, but no other.
var Columns = []string{"id", "name", "sameAs", "sameAsNote", "validThrough", "validFrom"}

// StandardFile is the file name polgraph knows the Open Civic Data list of UK parliamentary constituencies
// by (upstream it is identifiers/country-gb/constituencies.csv). A file with this base name is imported
// under StandardSource, the source the default dataset cites for its seats, so that importing it adds to
// that source instead of creating a second one; any other file gets a source named after it.
const StandardFile = "ocd-gb-constituencies.csv"

// StandardSource is the source of StandardFile.
var StandardSource = graph.Source{
	Name:   "sources/ocd-gb-constituencies",
	Title:  "Open Civic Data division ids: UK parliamentary constituencies (identifiers/country-gb/constituencies.csv)",
	Kind:   graph.SourceDataset,
	Outlet: "Open Civic Data",
	URL:    "https://github.com/opencivicdata/ocd-division-ids/blob/master/identifiers/country-gb/constituencies.csv",
}

// Division is one row of a division list.
type Division struct {
	Line         int    // the row's line in the file
	ID           string // e.g. ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney
	Name         string // e.g. Bethnal Green and Stepney
	SameAs       string // the id of the division that replaced this one, if any
	SameAsNote   string // what the list says of the replacement, e.g. "2024-07-04: The boundaries of …"
	ValidFrom    graph.FuzzyDate
	ValidThrough graph.FuzzyDate
	// Slug is the slug a new seat for this division is named with: the id's last part made a slug,
	// qualified by its parent (region:uki → uki) when two divisions of the list would share it.
	Slug string
	row  []string // the row as read, for a claim's excerpt when it has no note
}

// List is a checked division list.
type List struct {
	File      string // the name problems are reported under; the source is named after its base name
	Divisions []Division
}

// Read parses and checks a division list. It reports every problem — a bad header, a malformed id, a
// repeated id, a missing name, a bad date, a sameAs naming an id the list lacks — each as
// "FILE:LINE: FIELD: message", in one Invalid *graph.Error, and returns the list only when there is none.
func Read(f dataset.File) (*List, error) {
	var problems graph.Violations
	add := func(line int, field, format string, args ...any) {
		at := fmt.Sprintf("%s:%d", f.Name, line)
		if field != "" {
			at += ": " + field
		}
		problems.Add(at, format, args...)
	}
	fail := func() error {
		return problems.Err("ocd.Read", fmt.Sprintf("%d problem(s) in %s; nothing was written", len(problems), f.Name))
	}

	r := csv.NewReader(f.R)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	switch {
	case errors.Is(err, io.EOF):
		add(1, "", "the file is empty; want the header %s", strings.Join(Columns, ","))
		return nil, fail()
	case err != nil:
		add(1, "", "not valid CSV: %v", csvError(err))
		return nil, fail()
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	col := map[string]int{}
	for i, h := range header {
		switch {
		case !slices.Contains(Columns, h):
			add(1, "header", "unknown column %q (want %s)", h, strings.Join(Columns, ","))
		case col[h] > 0:
			add(1, "header", "column %q appears twice", h)
		}
		col[h] = i + 1 // 1-based, so that 0 means absent
	}
	for _, c := range Columns {
		if col[c] == 0 {
			add(1, "header", "missing column %q (want %s)", c, strings.Join(Columns, ","))
		}
	}
	if len(problems) > 0 {
		return nil, fail() // rows cannot be read without knowing their columns
	}

	l := &List{File: f.Name}
	lineOf := map[string]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := r.FieldPos(0)
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			add(line, "", "not valid CSV: %v; the rest of the file was not read", csvError(err))
			break
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			add(line, "", "%d fields; the header has %d", len(rec), len(header))
			continue
		}
		get := func(c string) string { return strings.TrimSpace(rec[col[c]-1]) }
		d := Division{Line: line, ID: get("id"), Name: get("name"), SameAs: get("sameAs"), SameAsNote: get("sameAsNote"),
			row: rec}
		for i, v := range rec {
			if !utf8.ValidString(v) {
				add(line, header[i], "not valid UTF-8")
			}
		}
		if err := CheckID(d.ID); err != nil {
			add(line, "id", "%v", err)
		} else if prev, ok := lineOf[d.ID]; ok {
			add(line, "id", "%s is already at line %d", d.ID, prev)
		} else {
			lineOf[d.ID] = line
		}
		switch {
		case d.Name == "":
			add(line, "name", "required")
		case len(d.Name) > graph.MaxDisplayName:
			add(line, "name", "%d bytes; a seat's display name is at most %d", len(d.Name), graph.MaxDisplayName)
		case graph.NameProblem(d.Name) != "":
			add(line, "name", "%s", graph.NameProblem(d.Name))
		}
		if d.SameAs != "" {
			if err := CheckID(d.SameAs); err != nil {
				add(line, "sameAs", "%v", err)
			} else if d.SameAs == d.ID {
				add(line, "sameAs", "a division cannot succeed itself")
			}
		}
		if n := utf8.RuneCountInString(d.SameAsNote); n > dataset.MaxExcerpt {
			add(line, "sameAsNote", "%d characters; a note becomes a claim's excerpt, at most %d", n, dataset.MaxExcerpt)
		}
		var derr error
		if d.ValidThrough, derr = parseDay(get("validThrough")); derr != nil {
			add(line, "validThrough", "%v", derr)
		}
		if d.ValidFrom, derr = parseDay(get("validFrom")); derr != nil {
			add(line, "validFrom", "%v", derr)
		}
		if !d.ValidFrom.IsZero() && !d.ValidThrough.IsZero() && d.ValidThrough.FirstDay() < d.ValidFrom.FirstDay() {
			add(line, "validThrough", "%s is before validFrom %s", d.ValidThrough, d.ValidFrom)
		}
		l.Divisions = append(l.Divisions, d)
	}
	for _, d := range l.Divisions {
		if d.SameAs == "" || d.SameAs == d.ID || CheckID(d.SameAs) != nil {
			continue
		}
		if _, ok := lineOf[d.SameAs]; !ok {
			add(d.Line, "sameAs", "%s is not an id in this file", d.SameAs)
		}
	}
	if len(l.Divisions) == 0 && len(problems) == 0 {
		add(2, "", "no divisions after the header")
	}
	if len(problems) > 0 {
		return nil, fail()
	}
	l.assignSlugs()
	return l, nil
}

// csvError drops encoding/csv's own position, which the caller reports as FILE:LINE.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseDay reads a date as the lists write them, YYYY-MM-DD; the empty string is the zero date.
func parseDay(s string) (graph.FuzzyDate, error) {
	if s == "" {
		return graph.FuzzyDate{}, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return graph.FuzzyDate{}, fmt.Errorf("%q is not a date: want YYYY-MM-DD", s)
	}
	return graph.FuzzyDate{Year: t.Year(), Month: int(t.Month()), Day: t.Day()}, nil
}

// nextDay returns the day after a day-precise date.
func nextDay(d graph.FuzzyDate) graph.FuzzyDate {
	t := time.Date(d.Year, time.Month(d.Month), d.Day+1, 0, 0, 0, 0, time.UTC)
	return graph.FuzzyDate{Year: t.Year(), Month: int(t.Month()), Day: t.Day()}
}

// CheckID reports whether id is a well-formed Open Civic Data division id:
// `ocd-division/country:<code>` followed by `/type:value` parts, in lower case, each value made of
// letters, digits and . _ ~ -, and ending in a value that makes a slug.
func CheckID(id string) error {
	rest, ok := strings.CutPrefix(id, "ocd-division/")
	if !ok {
		return fmt.Errorf("%q is not an Open Civic Data division id: want ocd-division/country:xx/…", id)
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		typ, value, ok := strings.Cut(p, ":")
		switch {
		case !ok || typ == "" || value == "":
			return fmt.Errorf("%q: part %q is not type:value", id, p)
		case i == 0 && typ != "country":
			return fmt.Errorf("%q: the first part must be country:xx, not %q", id, p)
		case strings.IndexFunc(typ, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '_') }) >= 0:
			return fmt.Errorf("%q: type %q must be lower-case letters and underscores", id, typ)
		case strings.IndexFunc(value, badValueRune) >= 0:
			return fmt.Errorf("%q: value %q must be lower-case letters, digits and . _ ~ -", id, value)
		}
	}
	if len(parts) < 2 {
		return fmt.Errorf("%q names a country, not a division within one", id)
	}
	if Slug(id) == "" {
		return fmt.Errorf("%q: its last part makes no slug", id)
	}
	return nil
}

func badValueRune(r rune) bool {
	return !(unicode.IsLetter(r) && !unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("._~-", r))
}

// Slug makes a resource-name slug of a division id's last value: `…/ed:bethnal_green_and_stepney` →
// `bethnal-green-and-stepney`, `…/ed:ynys_môn` → `ynys-mon`. Accents are folded as graph.NormalizeName
// folds them; other letters outside ASCII are dropped. It returns "" when nothing is left.
func Slug(id string) string {
	_, value, _ := strings.Cut(id[strings.LastIndex(id, "/")+1:], ":")
	return slugify(value)
}

// slugify makes a slug of text: `bethnal_green_and_stepney` → `bethnal-green-and-stepney`.
func slugify(text string) string { return graph.Slugify(text) }

// parentSlug makes a slug of the id's parent's value: `…/region:uki/ed:x` → `uki`.
func parentSlug(id string) string {
	parent := id[:max(strings.LastIndex(id, "/"), 0)]
	return Slug(parent)
}

// assignSlugs gives every division its slug. Divisions whose slugs coincide are all qualified by their
// parent's slug, so that no name depends on the order of the rows; if that still leaves two alike, the
// later ones by id get -2, -3….
func (l *List) assignSlugs() {
	bySlug := map[string][]int{}
	for i, d := range l.Divisions {
		s := Slug(d.ID)
		bySlug[s] = append(bySlug[s], i)
	}
	for s, idx := range bySlug {
		for _, i := range idx {
			l.Divisions[i].Slug = s
			if len(idx) > 1 {
				if p := parentSlug(l.Divisions[i].ID); p != "" {
					l.Divisions[i].Slug = s + "-" + p
				}
			}
		}
	}
	seen := map[string][]int{}
	for i, d := range l.Divisions {
		seen[d.Slug] = append(seen[d.Slug], i)
	}
	for s, idx := range seen {
		if len(idx) < 2 {
			continue
		}
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(l.Divisions[a].ID, l.Divisions[b].ID) })
		for n, i := range idx[1:] {
			l.Divisions[i].Slug = fmt.Sprintf("%s-%d", s, n+2)
		}
	}
}

// Source is the source an import of the list cites: StandardSource for StandardFile, else
// `sources/ocd-<file base name>`, titled after the file.
func (l *List) Source() graph.Source {
	base := filepath.Base(l.File)
	if base == StandardFile {
		return StandardSource
	}
	slug := slugify(strings.TrimSuffix(base, filepath.Ext(base)))
	if !strings.HasPrefix(slug, "ocd-") {
		slug = slugify("ocd-" + slug)
	}
	return graph.Source{Name: graph.SourceName("sources/" + slug), Title: "Open Civic Data division list " + base,
		Kind: graph.SourceDataset}
}

// IDs returns the list's division ids, in file order.
func (l *List) IDs() []string {
	ids := make([]string, len(l.Divisions))
	for i, d := range l.Divisions {
		ids[i] = d.ID
	}
	return ids
}
