package data_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/antzucaro/matchr"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ocd"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// The data check: the default dataset is valid, every relation is backed by excerpts that really occur in
// their sources, no entity is entered twice, and the facts the project promises hold. Each check returns
// its problems as "FILE:LINE: message"; TestChecksCatchBrokenData breaks the data once per check to show
// that it fires.

// record is a dataset line as written, with its line number, so that problems can point at it.
type record struct {
	line        int
	Record      string            `json:"record"`
	Name        string            `json:"name"`
	DisplayName string            `json:"display_name"`
	Aliases     []string          `json:"aliases"`
	Identifiers map[string]string `json:"identifiers"`
	ValidFrom   string            `json:"valid_from"`
	ValidTo     string            `json:"valid_to"`
	DatesFrom   string            `json:"dates_from"`
	Kind        string            `json:"kind"`
	TextFile    string            `json:"text_file"`
	Type        string            `json:"type"`
	From        string            `json:"from"`
	To          string            `json:"to"`
	Key         string            `json:"key"`
	Date        string            `json:"date"`
	Role        string            `json:"role"`
	Claims      []struct {
		Source     string   `json:"source"`
		Excerpt    string   `json:"excerpt"`
		Confidence *float64 `json:"confidence"`
		Status     string   `json:"status"`
	} `json:"claims"`
}

func (r record) at() string { return fmt.Sprintf("%s:%d", data.DefaultFileName, r.line) }

// relationName is the relation's derived resource name.
func (r record) relationName() graph.RelationName {
	return graph.RelationNameFor(graph.EntityName(r.From), graph.RelationType(r.Type), graph.EntityName(r.To), r.Key)
}

func defaultContent(t *testing.T) []byte {
	t.Helper()
	b, err := io.ReadAll(data.Default().R)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, content []byte) []record {
	t.Helper()
	var recs []record
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r := record{line: line}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", data.DefaultFileName, line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// --- checks -----------------------------------------------------------------------------------------

// checkValid reads the content as polgraph does.
func checkValid(content []byte) []string {
	_, err := dataset.Read([]dataset.File{{Name: data.DefaultFileName, R: bytes.NewReader(content)}})
	if err == nil {
		return nil
	}
	var ge *graph.Error
	if !errors.As(err, &ge) {
		return []string{err.Error()}
	}
	var out []string
	for _, v := range ge.Violations {
		out = append(out, v.Field+": "+v.Description)
	}
	return out
}

// checkClaims: every relation has a claim with a source and an excerpt, and every confidence is in (0,1].
func checkClaims(recs []record) []string {
	var out []string
	for _, r := range recs {
		if r.Record == "entity" && (r.ValidFrom != "" || r.ValidTo != "") && strings.TrimSpace(r.DatesFrom) == "" {
			out = append(out, fmt.Sprintf("%s: %s has dates and no dates_from saying where they come from", r.at(), r.Name))
		}
		if r.Record != "relation" {
			continue
		}
		backed := false
		for i, c := range r.Claims {
			if c.Source != "" && strings.TrimSpace(c.Excerpt) != "" {
				backed = true
			}
			if c.Confidence == nil || *c.Confidence <= 0 || *c.Confidence > 1 {
				conf := "none"
				if c.Confidence != nil {
					conf = strconv.FormatFloat(*c.Confidence, 'g', -1, 64)
				}
				out = append(out, fmt.Sprintf("%s: claims[%d].confidence: %s is not in (0,1]", r.at(), i, conf))
			}
		}
		if !backed {
			out = append(out, fmt.Sprintf("%s: %s has no claim with a source and an excerpt", r.at(), r.relationName()))
		}
		if eventTypes[r.Type] && r.Date == "" && r.ValidFrom == "" {
			out = append(out, fmt.Sprintf("%s: %s is an event without a date; it would count at every as_of date (give the date the text says, else its source's publication date)", r.at(), r.relationName()))
		}
		if !eventTypes[r.Type] && r.Type != "FAMILY" && r.ValidTo == "" && formerWords.MatchString(r.Role) {
			out = append(out, fmt.Sprintf("%s: %s is a state its role calls former (%q) without valid_to; it would hold today (give its end)", r.at(), r.relationName(), r.Role))
		}
	}
	return out
}

// eventTypes are the relation types that record something that happened at a time, rather than a state:
// the graph dates each of them, so that an as_of query never shows an event from after its date.
var eventTypes = map[string]bool{"ACCUSED": true, "CRITICISED": true, "ENDORSES": true, "DEFEATED": true,
	"APPEARED_WITH": true, "CAMPAIGNED_WITH": true, "SUSPENDED_FROM": true, "RESIGNED_FROM": true,
	"REMOVED_FROM_OFFICE": true, "DESELECTED": true, "FOUNDED": true, "CANDIDATE_FOR": true, "SUCCEEDED_BY": true}

// formerWords find a role that says a state has ended ("former Mayor of London", "ex-leader"). FAMILY is
// not checked: an ex-husband is a family tie of its own.
var formerWords = regexp.MustCompile(`(?i)\b(former|ex-|previously|used to)`)

var (
	jsonEscape = regexp.MustCompile(`\\u[0-9a-fA-F]{4}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\[/"\\nrt]`)
	htmlTag    = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
)

// normalizeText is the form texts and excerpts are compared in: JSON escapes found literally in the text
// decoded (\u2018, \/, \"), literal \n sequences and HTML tags (<p>, <\/p>) made spaces, non-breaking
// spaces made spaces, and every run of white space made one space.
func normalizeText(s string) string {
	s = jsonEscape.ReplaceAllStringFunc(s, func(esc string) string {
		switch esc {
		case `\n`, `\r`, `\t`:
			return " "
		case `\/`, `\"`, `\\`:
			return esc[1:]
		}
		r1, _ := strconv.ParseUint(esc[2:6], 16, 16)
		if len(esc) == 12 {
			r2, _ := strconv.ParseUint(esc[8:12], 16, 16)
			return string(utf16.DecodeRune(rune(r1), rune(r2)))
		}
		return string(rune(r1))
	})
	s = htmlTag.ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "\u00a0", " ")
	return strings.Join(strings.Fields(s), " ")
}

// checkExcerpts: every document but a dataset has a text file, and every excerpt from one occurs in its
// text, both normalised. (checkAgreesWithOCD checks the excerpts from the Open Civic Data list.)
func checkExcerpts(recs []record, seeds string) []string {
	var out []string
	texts := map[string]string{} // source name → normalised text
	for _, r := range recs {
		if r.Record != "source" {
			continue
		}
		if r.TextFile == "" {
			if r.Kind != string(graph.SourceDataset) {
				out = append(out, fmt.Sprintf("%s: text_file: %s has no text, so its excerpts cannot be checked", r.at(), r.Name))
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(seeds, r.TextFile))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: text_file: %v", r.at(), err))
			continue
		}
		texts[r.Name] = normalizeText(string(b))
	}
	for _, r := range recs {
		if r.Record != "relation" {
			continue
		}
		for i, c := range r.Claims {
			text, ok := texts[c.Source]
			if !ok {
				continue // a dataset, or a source whose text is missing (reported above)
			}
			if !strings.Contains(text, normalizeText(c.Excerpt)) {
				out = append(out, fmt.Sprintf("%s: claims[%d].excerpt: not in the text of %s: %q", r.at(), i, c.Source, c.Excerpt))
			}
		}
	}
	return out
}

// distinctPairs are entities whose names are close but who are different people or places. Each pair is
// written in name order.
var distinctPairs = map[[2]string]string{
	{"seats/bolton-south-east", "seats/luton-south"}: "two constituencies: Bolton South (East) in Greater Manchester, Luton South in Bedfordshire",
}

// checkDuplicates: no normalised display name or alias belongs to two entities, and no two entities have
// names within a few edits of each other ("Rushanara Ali", "Rushnara Ali") unless distinctPairs says
// they are different.
func checkDuplicates(recs []record) []string {
	type entity struct {
		name string
		line int
		keys []string // normalised display name and aliases
	}
	var entities []entity
	owner := map[string]entity{}
	var out []string
	for _, r := range recs {
		if r.Record != "entity" {
			continue
		}
		e := entity{name: r.Name, line: r.line}
		for _, n := range append([]string{r.DisplayName}, r.Aliases...) {
			k := graph.NormalizeName(n)
			if k == "" || slices.Contains(e.keys, k) {
				continue
			}
			e.keys = append(e.keys, k)
			if prev, ok := owner[k]; ok {
				out = append(out, fmt.Sprintf("%s: the name %q of %s also names %s (line %d)", r.at(), k, r.Name, prev.name, prev.line))
				continue
			}
			owner[k] = e
		}
		entities = append(entities, e)
	}
	for i, a := range entities {
		for _, b := range entities[i+1:] {
			pair := [2]string{min(a.name, b.name), max(a.name, b.name)}
			if _, ok := distinctPairs[pair]; ok {
				continue
			}
			best, ka, kb := -1, "", ""
			for _, x := range a.keys {
				for _, y := range b.keys {
					if d := matchr.Levenshtein(x, y); x != y && nearlyEqual(x, y) && (best < 0 || d < best) {
						best, ka, kb = d, x, y
					}
				}
			}
			if best >= 0 {
				out = append(out, fmt.Sprintf("%s:%d: %s %q and %s %q (line %d) differ by %d edit(s): the same entity twice? If not, add the pair to distinctPairs",
					data.DefaultFileName, b.line, b.name, kb, a.name, ka, a.line, best))
			}
		}
	}
	return out
}

// nearlyEqual reports whether two normalised names differ by at most 3 edits and at most 30% of the
// longer one: "rushanara ali" and "rushnara ali" do; "lutfur" and "labour" do not.
func nearlyEqual(a, b string) bool {
	n := max(len([]rune(a)), len([]rune(b)))
	d := matchr.Levenshtein(a, b)
	return d <= 3 && 10*d <= 3*n
}

// checkSymmetric: a symmetric relation is written once, from < to, and not again under any order.
func checkSymmetric(recs []record) []string {
	var out []string
	seen := map[string]int{}
	for _, r := range recs {
		t := graph.RelationType(r.Type)
		if r.Record != "relation" || !t.Symmetric() {
			continue
		}
		a, b := r.From, r.To
		if a > b {
			out = append(out, fmt.Sprintf("%s: %s is symmetric and written %s → %s; write it from %s", r.at(), t, a, b, b))
			a, b = b, a
		}
		k := strings.Join([]string{r.Type, a, b, r.Key}, " ")
		if prev, ok := seen[k]; ok {
			out = append(out, fmt.Sprintf("%s: %s between %s and %s is already at line %d", r.at(), t, a, b, prev))
			continue
		}
		seen[k] = r.line
	}
	return out
}

// checkFacts: what the project promises about the Tower Hamlets graph.
func checkFacts(recs []record) []string {
	entities := map[string]record{}
	relations := map[graph.RelationName]record{}
	for _, r := range recs {
		switch r.Record {
		case "entity":
			entities[r.Name] = r
		case "relation":
			relations[r.relationName()] = r
		}
	}
	var out []string
	fail := func(format string, args ...any) {
		out = append(out, data.DefaultFileName+": "+fmt.Sprintf(format, args...))
	}
	endorse := relations["relations/lutfur-rahman.endorses.ajmal-masroor"]
	denied := 0
	for _, c := range endorse.Claims {
		if c.Status == string(graph.StatusDenied) {
			denied++
		}
	}
	if denied == 0 {
		fail("Lutfur Rahman ENDORSES Ajmal Masroor has no DENIED claim; the article reports his denial")
	}
	seat := func(name, field, want string) {
		e, ok := entities[name]
		switch {
		case !ok:
			fail("%s is missing", name)
		case field == "valid_to" && e.ValidTo != want:
			fail("%s has valid_to %q, want %s", name, e.ValidTo, want)
		case field == "valid_from" && e.ValidFrom != want:
			fail("%s has valid_from %q, want %s", name, e.ValidFrom, want)
		case e.Identifiers["ocd"] == "":
			fail("%s has no Open Civic Data id", name)
		}
	}
	seat("seats/bethnal-green-and-bow", "valid_to", "2024-07-03")
	seat("seats/bethnal-green-and-stepney", "valid_from", "2024-07-04")
	if _, ok := relations["relations/bethnal-green-and-bow.succeeded-by.bethnal-green-and-stepney"]; !ok {
		fail("Bethnal Green and Bow is not SUCCEEDED_BY Bethnal Green and Stepney")
	}
	return out
}

// checkAgreesWithOCD: the dataset's seats and successions are what importing the Open Civic Data list
// would write for them, so that the import, before or after loading the dataset, changes none of them;
// and every excerpt from the list (a note, or a row) is in the list's text.
func checkAgreesWithOCD(t *testing.T, content []byte, recs []record, list *ocd.List, listText string) []string {
	t.Helper()
	ds, err := dataset.Read([]dataset.File{{Name: data.DefaultFileName, R: bytes.NewReader(content)}})
	if err != nil {
		return []string{err.Error()}
	}
	lines := map[string]int{}
	for _, r := range recs {
		if r.Record == "relation" {
			lines[string(r.relationName())] = r.line
		} else {
			lines[r.Name] = r.line
		}
	}
	at := func(name string) string { return fmt.Sprintf("%s:%d", data.DefaultFileName, lines[name]) }
	var out []string
	for _, r := range recs {
		for i, c := range r.Claims {
			if c.Source == string(ocd.StandardSource.Name) && !strings.Contains(listText, c.Excerpt) {
				out = append(out, fmt.Sprintf("%s: claims[%d].excerpt: not in %s: %q", r.at(), i, ocd.StandardFile, c.Excerpt))
			}
		}
	}
	for _, s := range ds.Sources {
		if s.Name == ocd.StandardSource.Name && s != ocd.StandardSource {
			out = append(out, fmt.Sprintf("%s: %s differs from what the import writes:\n  %+v\nwant %+v", at(string(s.Name)), s.Name, s, ocd.StandardSource))
		}
	}
	inList := map[string]bool{}
	for _, id := range list.IDs() {
		inList[id] = true
	}
	known := ocd.Known{ByOCD: map[string][]graph.Entity{}, ByName: map[graph.EntityName]graph.Entity{}}
	mine := map[graph.EntityName]graph.Entity{}
	for _, e := range ds.Entities {
		known.ByName[e.Name] = e
		id := e.Identifiers.First("ocd")
		if id == "" {
			continue
		}
		if !inList[id] {
			out = append(out, fmt.Sprintf("%s: identifiers.ocd: %s is not in %s", at(string(e.Name)), id, ocd.StandardFile))
		}
		if prev := known.ByOCD[id]; len(prev) > 0 {
			out = append(out, fmt.Sprintf("%s: identifiers.ocd: %s is also held by %s", at(string(e.Name)), id, prev[0].Name))
		}
		known.ByOCD[id] = append(known.ByOCD[id], e)
		mine[e.Name] = e
	}
	imported, err := list.Dataset(known)
	if err != nil {
		return append(out, err.Error())
	}
	for _, e := range imported.Entities {
		if want, ok := mine[e.Name]; ok && !reflect.DeepEqual(want, e) {
			out = append(out, fmt.Sprintf("%s: the import would change %s (display name, aliases or dates disagree with the list):\n  dataset %+v\n  import  %+v",
				at(string(e.Name)), e.Name, want, e))
		}
	}
	rels := map[graph.RelationName]graph.Relation{}
	for _, r := range ds.Relations {
		rels[r.Name] = r
	}
	for _, r := range imported.Relations {
		if mine[r.From].Name == "" || mine[r.To].Name == "" {
			continue // a succession between seats the dataset does not have
		}
		have, ok := rels[r.Name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: the list says %s is succeeded by %s; the dataset lacks %s", data.DefaultFileName, r.From, r.To, r.Name))
			continue
		}
		if have.Date != r.Date {
			out = append(out, fmt.Sprintf("%s: %s has date %q; the list gives %q", at(string(r.Name)), r.Name, have.Date, r.Date))
		}
		want := r.Claims[0]
		want.Source = graph.Source{Name: want.Source.Name}
		if !slices.Contains(have.Claims, want) {
			out = append(out, fmt.Sprintf("%s: %s lacks the claim the import writes: %+v", at(string(r.Name)), r.Name, want))
		}
	}
	return out
}

// --- tests ------------------------------------------------------------------------------------------

func report(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

func TestDefaultDatasetIsValid(t *testing.T) {
	report(t, checkValid(defaultContent(t)))
}

func TestDefaultDatasetClaims(t *testing.T) {
	report(t, checkClaims(parse(t, defaultContent(t))))
}

func TestExcerptsOccurInSources(t *testing.T) {
	seeds := graphtest.SharedPath(t, "seeds")
	if seeds == "" {
		t.Skip("../shared/seeds is absent beside the project: cannot look for excerpts in the source texts")
	}
	report(t, checkExcerpts(parse(t, defaultContent(t)), seeds))
}

func TestNoEntityTwice(t *testing.T) {
	report(t, checkDuplicates(parse(t, defaultContent(t))))
}

func TestSymmetricRelationsOnce(t *testing.T) {
	report(t, checkSymmetric(parse(t, defaultContent(t))))
}

func TestPromisedFacts(t *testing.T) {
	report(t, checkFacts(parse(t, defaultContent(t))))
}

// readList reads the Open Civic Data list beside the project and returns it with its text, or skips.
func readList(t *testing.T) (*ocd.List, string) {
	t.Helper()
	path := graphtest.SharedPath(t, "data", ocd.StandardFile)
	if path == "" {
		t.Skipf("../shared/data/%s is absent beside the project: cannot compare the seats with it", ocd.StandardFile)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ocd.Read(dataset.File{Name: path, R: bytes.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return l, string(text)
}

func TestSeatsAgreeWithOCDList(t *testing.T) {
	content := defaultContent(t)
	list, text := readList(t)
	report(t, checkAgreesWithOCD(t, content, parse(t, content), list, text))
}

// TestReadmeCounts keeps the sizes data/tower-hamlets/README.md states in step with the data.
func TestReadmeCounts(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("tower-hamlets", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, r := range parse(t, defaultContent(t)) {
		switch r.Record {
		case "source":
			want["sources"]++
		case "entity":
			want["entities"]++
			want[strings.SplitN(r.Name, "/", 2)[0]]++
		case "relation":
			want["relations"]++
			want[r.Type]++
			for _, c := range r.Claims {
				want["claims"]++
				want[c.Status]++
			}
		}
	}
	got := map[string]int{}
	stated := regexp.MustCompile(`(\d+) (sources|entities|actors|parties|organisations|seats|relations|claims|REPORTED|CONFIRMED|DENIED|ALLEGED)\b`)
	for _, m := range stated.FindAllStringSubmatch(string(readme), -1) {
		got[m[2]], _ = strconv.Atoi(m[1])
	}
	cell := regexp.MustCompile(`([A-Z][A-Z_]+) \| (\d+) \|`)
	for _, m := range cell.FindAllStringSubmatch(string(readme), -1) {
		got[m[1]], _ = strconv.Atoi(m[2])
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("tower-hamlets/README.md says %d %s; the data has %d", got[k], k, n)
		}
	}
}

// TestChecksCatchBrokenData breaks the default dataset in one way per case and expects the named check to
// report it, so that a check that silently stopped working is noticed.
func TestChecksCatchBrokenData(t *testing.T) {
	content := string(defaultContent(t))
	const succeeds = `"type": "SUCCEEDED_BY", "from": "seats/bethnal-green-and-bow", "to": "seats/bethnal-green-and-stepney"`
	for _, tc := range []struct {
		name, old, new string
		check          string // valid, claims, excerpts, duplicates, symmetric, facts or ocd
		want           string
	}{
		{"invalid record", `"record": "source", "name": "sources/tower-hamlets-labour-posts"`, `"record": "source", "name": "sources/Tower Hamlets"`,
			"valid", "is not a source name"},
		{"zero confidence", `"excerpt": "Apsana's ex-husband, Ehtashamul Haque, is an independent candidate", "confidence": 0.95`,
			`"excerpt": "Apsana's ex-husband, Ehtashamul Haque, is an independent candidate", "confidence": 0`, "claims", "confidence: 0 is not in (0,1]"},
		{"undated event", `"held the mayor to account at Overview & Scrutiny Committee", "date": "2024"`,
			`"held the mayor to account at Overview & Scrutiny Committee"`, "claims", "is an event without a date"},
		{"undated candidacy", `"role": "Labour campaign", "date": "2024-05"`, `"role": "Labour campaign"`, "claims", "is an event without a date"},
		{"a former office with no end", `"role": "former Mayor of London", "valid_from": "2000-05", "valid_to": "2008-05"`,
			`"role": "former Mayor of London", "valid_from": "2000-05"`, "claims", "is a state its role calls former"},
		{"empty excerpt", `"excerpt": "Labour whip Kim Leadbeater", "confidence": 0.95`, `"excerpt": " ", "confidence": 0.95`,
			"claims", "has no claim with a source and an excerpt"},
		{"paraphrased excerpt", `"excerpt": "Ajmal and Rabina were both previously working with Lutfur Rahman."`,
			`"excerpt": "Ajmal and Rabina both used to work with Lutfur Rahman."`, "excerpts", "not in the text of sources/tower-hamlets-general-election-2024"},
		{"excerpt with the wrong quote", `he was removed as the party’s candidate in 2010 over`, `he was removed as the party's candidate in 2010 over`,
			"excerpts", "not in the text of sources/daily-mail-2023-11-03-lutfur-rahman"},
		{"alias naming two entities", `"aliases": ["Apsana"]`, `"aliases": ["Apsana", "Rabina"]`, "duplicates", `the name "rabina"`},
		{"misspelt duplicate", `"display_name": "Uma Kumaran"`, `"display_name": "Rushnara Alli"`, "duplicates", `actors/uma-kumaran "rushnara alli" and actors/rushanara-ali "rushnara ali"`},
		{"symmetric both ways", `"type": "FAMILY", "from": "actors/apsana-begum", "to": "actors/ehtashamul-haque"`,
			`"type": "FAMILY", "from": "actors/ehtashamul-haque", "to": "actors/apsana-begum"`, "symmetric", "FAMILY is symmetric"},
		{"symmetric twice", `"type": "APPEARED_WITH", "from": "actors/george-galloway", "to": "actors/ken-livingstone"`,
			`"type": "APPEARED_WITH", "from": "actors/george-galloway", "to": "actors/lutfur-rahman"`, "symmetric", "is already at line"},
		{"denied endorsement gone", `"type": "ENDORSES", "from": "actors/lutfur-rahman", "to": "actors/ajmal-masroor"`,
			`"type": "ENDORSES", "from": "actors/lutfur-rahman", "to": "actors/apsana-begum"`, "facts", "has no DENIED claim"},
		{"no succession", succeeds, `"type": "SUCCEEDED_BY", "from": "seats/bethnal-green-and-bow", "to": "seats/stratford-and-bow"`,
			"facts", "is not SUCCEEDED_BY Bethnal Green and Stepney"},
		{"wrong end date", `ed:bethnal_green_and_bow"}, "valid_to": "2024-07-03"`, `ed:bethnal_green_and_bow"}, "valid_to": "2024"`,
			"facts", `valid_to "2024", want 2024-07-03`},
		{"seat date against the list", `"valid_to": "2024-07-03", "dates_from"`, `"valid_to": "2024-07-04", "dates_from"`, "ocd", "disagree with the list"},
		{"entity dates without their origin", `"valid_to": "2015", "dates_from"`, `"valid_to": "2015", "description_2"`, "claims", "parties/tower-hamlets-first has dates and no dates_from"},
		{"source without a text", `"text_file": "001_5967e97322e17a8a.txt"`, `"url": "https://example.org/posts"`,
			"excerpts", "sources/tower-hamlets-labour-posts has no text"},
		{"row not in the list", `ed:bethnal_green_and_bow,Bethnal Green and Bow,,,2024-07-03,"`, `ed:bethnal_green_and_bow,Bethnal Green and Bow,,,2024-07-04,"`,
			"ocd", "claims[0].excerpt: not in " + ocd.StandardFile},
		{"unknown OCD id", `ed:bradford_west`, `ed:bradford_westminster`, "ocd", "is not in " + ocd.StandardFile},
		{"succession missing", `"type": "SUCCEEDED_BY", "from": "seats/luton-south"`, `"type": "PART_OF", "from": "seats/luton-south"`,
			"ocd", "the dataset lacks relations/luton-south.succeeded-by.luton-south-and-south-bedfordshire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(content, tc.old) {
				t.Fatalf("the dataset no longer contains %q; update this case", tc.old)
			}
			broken := []byte(strings.Replace(content, tc.old, tc.new, 1))
			recs := parse(t, broken)
			var got []string
			switch tc.check {
			case "valid":
				got = checkValid(broken)
			case "claims":
				got = checkClaims(recs)
			case "excerpts":
				seeds := graphtest.SharedPath(t, "seeds")
				if seeds == "" {
					t.Skip("../shared/seeds is absent")
				}
				got = checkExcerpts(recs, seeds)
			case "duplicates":
				got = checkDuplicates(recs)
			case "symmetric":
				got = checkSymmetric(recs)
			case "facts":
				got = checkFacts(recs)
			case "ocd":
				list, text := readList(t)
				got = checkAgreesWithOCD(t, broken, recs, list, text)
			}
			all := strings.Join(got, "\n")
			if !strings.Contains(all, tc.want) {
				t.Errorf("the %s check did not report %q; it reported:\n%s", tc.check, tc.want, all)
			}
		})
	}
}

func TestNormalizeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`party\u2019s candidate`, "party’s candidate"},
		{`\u2018corrupt and illegal practices\u2019.<\/p>\nBut`, "‘corrupt and illegal practices’. But"},
		{`https:\/\/i.dailymail.co.uk`, "https://i.dailymail.co.uk"},
		{`London\u00a0Ken Livingstone`, "London Ken Livingstone"},
		{"London\u00a0Ken  \n Livingstone", "London Ken Livingstone"},
		{`<p>Hello</p> <br/>world`, "Hello world"},
		{`say \"hi\"`, `say "hi"`},
		{`rose \ud83c\udf39`, "rose 🌹"},
		{`5 < 6 and 7 > 3`, "5 < 6 and 7 > 3"},
	} {
		if got := normalizeText(tc.in); got != tc.want {
			t.Errorf("normalizeText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// generatedReports are the Markdown files a make target writes (tables of figures, rewritten by each run),
// which TestProseStaysShort does not count as prose.
var generatedReports = map[string]bool{"BENCHMARKS.md": true, "docs/bench-load.md": true,
	"docs/bench-resolution.md": true, "docs/bench-history.md": true}

// TestProseStaysShort: the Markdown written by hand outside data/ stays under 30,500 words (as wc -w
// counts them) and the README under 300 lines: the README is a front door, and reference pages say what
// they must, briefly.
func TestProseStaysShort(t *testing.T) {
	const maxWords, maxReadmeLines = 30_500, 300
	words := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "data", "node_modules", "test-output", "bin", ".data":
				return filepath.SkipDir
			}
			return nil
		}
		if rel, _ := filepath.Rel("..", path); !strings.HasSuffix(path, ".md") || generatedReports[filepath.ToSlash(rel)] {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		words += len(strings.Fields(string(b)))
		if filepath.Clean(path) == filepath.Join("..", "README.md") {
			if n := strings.Count(string(b), "\n"); n > maxReadmeLines {
				t.Errorf("README.md has %d lines; at most %d", n, maxReadmeLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if words > maxWords {
		t.Errorf("the Markdown written by hand outside data/ is %d words; at most %d: say it shorter", words, maxWords)
	}
	t.Logf("%d words of Markdown", words)
}
