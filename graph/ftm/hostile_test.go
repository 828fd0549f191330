package ftm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

// person is a Person line with the given properties (JSON, without braces).
func person(id, props string) string {
	return fmt.Sprintf(`{"id":%q,"schema":"Person","properties":{%s}}`, id, props)
}

func strs(vs ...string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q", v)
	}
	return b.String() + "]"
}

// Hostile or broken input gives report lines naming the file, the line and the field, and never an
// invalid record.
func TestReadHostile(t *testing.T) {
	t.Parallel()
	longName := strings.Repeat("Nameword ", 1112)[:10_000]
	wideName := strings.Repeat("é", 5_000) // 10,000 bytes
	var manyAliases, manyIDs []string
	for i := range 150 {
		manyAliases = append(manyAliases, fmt.Sprintf("Alias %d", i))
	}
	for i := range 60 {
		manyIDs = append(manyIDs, fmt.Sprintf("R%d", i))
	}
	party := `{"id":"p","schema":"Organization","properties":{"name":["Party"],"topics":["pol.party"]}}`
	for _, tc := range []struct {
		name          string
		lines         []string
		want          []string // each is in a problem line
		entities, rel int
		check         func(t *testing.T, g graph.Subgraph)
	}{
		{name: "invalid JSON", lines: []string{person("a", `"name":["A"]`), `{"id": "x", "schema": "Person",`},
			want: []string{"hostile.json:2: not valid JSON"}, entities: 1},
		{name: "not an object", lines: []string{`["a", "b"]`, `"text"`, `42`},
			want: []string{"hostile.json:1: not a JSON object", "hostile.json:2: not a JSON object", "hostile.json:3: not a JSON object"}},
		{name: "no id", lines: []string{`{"schema":"Person","properties":{"name":["A"]}}`},
			want: []string{"hostile.json:1: id: required; skipped"}},
		{name: "blank id", lines: []string{`{"id":"  ","schema":"Person","properties":{"name":["A"]}}`},
			want: []string{"hostile.json:1: id: required; skipped"}},
		{name: "id not a string", lines: []string{`{"id":7,"schema":"Person","properties":{"name":["A"]}}`},
			want: []string{"hostile.json:1: id: want a string; skipped"}},
		{name: "id with a slash and a NUL", lines: []string{`{"id":"a/b\u0000","schema":"Person","properties":{"name":["A"]}}`},
			want: []string{`hostile.json:1: id: "a/b\x00" is not a FollowTheMoney id`}},
		{name: "id too long", lines: []string{person(strings.Repeat("a", 201), `"name":["A"]`)},
			want: []string{"hostile.json:1: id: \"aaaa", "is not a FollowTheMoney id"}},
		{name: "no schema", lines: []string{`{"id":"a","properties":{"name":["A"]}}`},
			want: []string{"hostile.json:1: schema: required; skipped"}},
		{name: "unknown schema", lines: []string{`{"id":"v","schema":"Vessel","properties":{"name":["Boaty"]}}`},
			want: []string{`hostile.json:1: schema: "Vessel" is not a schema polgraph maps`}},
		{name: "duplicate id", lines: []string{person("a", `"name":["A"]`), person("a", `"name":["B"]`)},
			want: []string{`hostile.json:2: id: "a" is already the id of the entity at line 1`}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				if g.Entities[0].DisplayName != "A" {
					t.Errorf("kept %q, want the first", g.Entities[0].DisplayName)
				}
			}},
		{name: "properties not an object", lines: []string{`{"id":"a","schema":"Person","properties":["name"]}`},
			want: []string{"hostile.json:1: properties: want an object"}},
		{name: "property not strings", lines: []string{person("a", `"name":[1,2]`)},
			want: []string{"hostile.json:1: properties.name: want an array of strings", "hostile.json:1: properties.name: required"}},
		{name: "hostile property name", lines: []string{person("a", `"name":["A"],"x\u0000`+strings.Repeat("y", 5000)+`":[1]`)},
			want: []string{`hostile.json:1: properties["x\x00yyy`}, entities: 1},
		{name: "property as one string", lines: []string{person("a", `"name":"Solo Person"`)}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				if g.Entities[0].Name != "actors/solo-person" {
					t.Errorf("name %s", g.Entities[0].Name)
				}
			}},
		{name: "10,000-character name", lines: []string{person("a", `"name":`+strs(longName))},
			want: []string{"hostile.json:1: properties.name[0]: 10000 bytes; cut to 500"}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				e := g.Entities[0]
				if len(e.DisplayName) > graph.MaxDisplayName || !strings.HasSuffix(e.DisplayName, "…") || len(graph.Slug(e.Name)) > 100 {
					t.Errorf("display name of %d bytes, name %s", len(e.DisplayName), e.Name)
				}
			}},
		{name: "10,000-byte name of two-byte letters", lines: []string{person("a", `"name":`+strs(wideName))},
			want: []string{"hostile.json:1: properties.name[0]: 10000 bytes; cut to 500"}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				if e := g.Entities[0]; !utf8.ValidString(e.DisplayName) || e.Name != "actors/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" {
					t.Errorf("%s %q", e.Name, e.DisplayName[:20])
				}
			}},
		{name: "long names collide", lines: []string{person("a", `"name":`+strs(longName)), person("b", `"name":`+strs(longName))},
			entities: 2, want: []string{"hostile.json:1: properties.name[0]", "hostile.json:2: properties.name[0]"}},
		{name: "NUL in the only name", lines: []string{person("a", `"name":["Evil\u0000Name"]`)},
			want: []string{"hostile.json:1: properties.name[0]: contains the control character U+0000 (NUL) at byte 5",
				"hostile.json:1: properties.name: required"}},
		{name: "escape in the first name", lines: []string{person("a", `"name":["Bad\u001b[31mName","Good Name"]`)},
			want: []string{"hostile.json:1: properties.name[0]: contains the control character U+001B (escape)"}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				if e := g.Entities[0]; e.DisplayName != "Good Name" || len(e.Aliases) != 0 {
					t.Errorf("%q %q", e.DisplayName, e.Aliases)
				}
			}},
		{name: "invisible characters in names", lines: []string{person("a", `"name":["Keir\u200b Starmer","Keir Starmer"],"alias":["\u202eremratS"],"notes":["soft\u00adhyphen"]`)},
			want: []string{"hostile.json:1: properties.name[0]: contains the invisible character U+200B (zero width space) at byte 5; the name was left out",
				"hostile.json:1: properties.alias[0]: contains the invisible character U+202E (right-to-left override) at byte 1; the name was left out"}, entities: 1,
			check: func(t *testing.T, g graph.Subgraph) {
				if e := g.Entities[0]; e.DisplayName != "Keir Starmer" || len(e.Aliases) != 0 || e.Description != "soft\u00adhyphen" {
					t.Errorf("%q %q %q", e.DisplayName, e.Aliases, e.Description)
				}
			}},
		{name: "C1 control in alias and description", lines: []string{person("a", `"name":["A"],"alias":["x\u009by"],"notes":["n\u0090"]`)},
			want: []string{"hostile.json:1: properties.alias[0]: contains the control character U+009B",
				"hostile.json:1: properties.notes[0]: contains the control character U+0090"}, entities: 1},
		{name: "line breaks and tabs are white space", lines: []string{person("a", `"name":["Jane\n\tDoe\r\n"],"alias":["\u0085Janey\u00a0D"]`)},
			entities: 1, check: func(t *testing.T, g graph.Subgraph) {
				if e := g.Entities[0]; e.DisplayName != "Jane Doe" || e.Name != "actors/jane-doe" || len(e.Aliases) != 1 || e.Aliases[0] != "Janey D" {
					t.Errorf("%s %q %q", e.Name, e.DisplayName, e.Aliases)
				}
			}},
		{name: "too many aliases", lines: []string{person("a", `"name":["A"],"alias":`+strs(manyAliases...))},
			want: []string{"hostile.json:1: properties.alias[100]: 50 more names left out from here on; an entity has at most 100 aliases"}, entities: 1},
		{name: "long alias", lines: []string{person("a", `"name":["A"],"alias":`+strs(strings.Repeat("x", 501)))},
			want: []string{"hostile.json:1: properties.alias[0]: 501 bytes; at most 500, so the value was left out"}, entities: 1},
		{name: "too many ids", lines: []string{person("a", `"name":["A"],"idNumber":`+strs(manyIDs...))},
			want: []string{"hostile.json:1: properties.idNumber[49]: 11 more ids left out from here on; an entity has at most 50"}, entities: 1},
		{name: "long id", lines: []string{person("a", `"name":["A"],"wikidataId":`+strs(strings.Repeat("Q", 501)))},
			want: []string{"hostile.json:1: properties.wikidataId[0]: 501 bytes"}, entities: 1},
		{name: "referents", lines: []string{person("a", `"name":["A"]`) + "\n" + `{"id":"b","schema":"Person","properties":{"name":["B"]},"referents":["a","x/y","b","c"]}`},
			want:     []string{`hostile.json:2: referents[0]: "a" is already an id at line 1`, `hostile.json:2: referents[1]: "x/y" is not a FollowTheMoney id`},
			entities: 2, check: func(t *testing.T, g graph.Subgraph) {
				if ids := g.Entities[1].Identifiers[schemeFTM]; len(ids) != 2 || ids[1] != "c" {
					t.Errorf("ftm ids %q", ids)
				}
			}},
		{name: "script links", lines: []string{person("a", `"name":["A"],"website":["javascript:alert(1)","data:text/html,x","https://ok.example"],"sourceUrl":["//no-scheme.example"]`)},
			want: []string{`hostile.json:1: properties.website[0]: "javascript:alert(1)" is not an http or https address`,
				`hostile.json:1: properties.website[1]`, `hostile.json:1: properties.sourceUrl[0]`}, entities: 1},
		{name: "bad dates", lines: []string{person("a", `"name":["A"],"birthDate":["1970-13-45"],"deathDate":["0999"]`)},
			want:     []string{`hostile.json:1: properties.birthDate: "1970-13-45" is not a date`, `hostile.json:1: properties.deathDate: "0999" is not a date`},
			entities: 1},
		{name: "death before birth", lines: []string{person("a", `"name":["A"],"birthDate":["1970"],"deathDate":["1960","1961"]`)},
			want: []string{`hostile.json:1: properties.deathDate: 1 more values left out; polgraph keeps one, the first ("1960")`,
				"hostile.json:1: properties.deathDate: 1960 is before the birth date 1970; left out"}, entities: 1},
		{name: "dissolved before incorporated", lines: []string{`{"id":"o","schema":"Company","properties":{"name":["O"],"incorporationDate":["2010"],"dissolutionDate":["2009"]}}`},
			want: []string{"hostile.json:1: properties.dissolutionDate: 2009 is before 2010; left out"}, entities: 1},
		{name: "long gender", lines: []string{person("a", `"name":["A"],"gender":`+strs(strings.Repeat("g", 51)))},
			want: []string{"hostile.json:1: properties.gender[0]: 51 bytes"}, entities: 1},
		{name: "membership of an interval", lines: []string{person("a", `"name":["A"]`), party,
			`{"id":"m","schema":"Membership","properties":{"member":["a"],"organization":["p"]}}`,
			`{"id":"m2","schema":"Membership","properties":{"member":["a"],"organization":["m"]}}`},
			want: []string{`hostile.json:4: properties.organization: "m" is a "Membership" (line 3), not an entity`}, entities: 2, rel: 1},
		{name: "interval without an end", lines: []string{person("a", `"name":["A"]`), `{"id":"m","schema":"Membership","properties":{"member":["a"]}}`},
			want: []string{"hostile.json:2: properties.organization: required; the Membership was skipped"}, entities: 1},
		{name: "two members", lines: []string{person("a", `"name":["A"]`), person("b", `"name":["B"]`), party,
			`{"id":"m","schema":"Membership","properties":{"member":["a","b"],"organization":["p"]}}`},
			want: []string{`hostile.json:4: properties.member: 2 entities; polgraph joins two, so the first ("a") was used`}, entities: 3, rel: 1},
		{name: "family with oneself", lines: []string{person("a", `"name":["A"]`), `{"id":"f","schema":"Family","properties":{"person":["a"],"relative":["a"]}}`},
			want: []string{"hostile.json:2: properties.relative: a relation cannot join actors/a to itself"}, entities: 1},
		{name: "occupancy of an organisation", lines: []string{person("a", `"name":["A"]`), party,
			`{"id":"o","schema":"Occupancy","properties":{"holder":["a"],"post":["p"]}}`},
			want: []string{"hostile.json:3: properties.post: HOLDS_OFFICE from an actor goes to a seat, and parties/party is a party"}, entities: 2},
		{name: "long role", lines: []string{person("a", `"name":["A"]`), party,
			`{"id":"m","schema":"Membership","properties":{"member":["a"],"organization":["p"],"role":` + strs(strings.Repeat("r", 300)) + `}}`},
			want: []string{"hostile.json:3: properties.role[0]: 300 bytes; cut to 200"}, entities: 2, rel: 1},
		{name: "bad interval dates", lines: []string{person("a", `"name":["A"]`), party,
			`{"id":"m","schema":"Membership","properties":{"member":["a"],"organization":["p"],"startDate":["2010"],"endDate":["2009"],"date":["2010-05"]}}`},
			want: []string{"hostile.json:3: properties.date: left out: a relation is an event (date) or a state (startDate, endDate), and this one has startDate",
				"hostile.json:3: properties.endDate: 2009 is before the start date 2010; left out"}, entities: 2, rel: 1},
		{name: "unknown link with no polgraph type", lines: []string{person("a", `"name":["A"]`), party,
			`{"id":"u","schema":"UnknownLink","properties":{"subject":["a"],"object":["p"],"role":["donor"]}}`},
			want: []string{`hostile.json:3: properties.role: "donor" is not a polgraph relation type`}, entities: 2},
		{name: "position of itself", lines: []string{`{"id":"s","schema":"Position","properties":{"name":["Seat"],"organization":["s","nowhere"]}}`},
			want: []string{"hostile.json:1: properties.organization[0]: seats/seat cannot be PART_OF seats/seat",
				`hostile.json:1: properties.organization[1]: no entity "nowhere" in the input; no PART_OF relation was made`}, entities: 1},
		{name: "byte order mark and blank lines", lines: []string{"\uFEFF" + person("a", `"name":["A"]`), "", "   ", person("b", `"name":["B"]`)},
			entities: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, rep, err := Read(strings.NewReader(strings.Join(tc.lines, "\n")), "hostile.json", Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(rep.String(), w) {
					t.Errorf("no report line with %q in:\n%s", w, rep)
				}
			}
			for _, p := range rep.Problems {
				if !regexp.MustCompile(`^hostile\.json:[1-9][0-9]*: `).MatchString(p.String()) {
					t.Errorf("%q does not name the file and line", p)
				}
				if len(p.String()) > 500 {
					t.Errorf("a report line of %d bytes repeats the input", len(p.String()))
				}
				if i, c := graph.ControlAt(p.String(), false); i >= 0 {
					t.Errorf("%q holds the control character %U", p, c)
				}
			}
			if len(g.Entities) != tc.entities || len(g.Relations) != tc.rel {
				t.Errorf("%d entities and %d relations, want %d and %d\n%s", len(g.Entities), len(g.Relations), tc.entities, tc.rel, rep)
			}
			for _, p := range invalid(g) {
				t.Error(p)
			}
			if tc.check != nil && len(g.Entities) == tc.entities {
				tc.check(t, g)
			}
		})
	}
}

// A line longer than polgraph reads is skipped, and the lines after it are read.
func TestReadLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 16 MiB line")
	}
	t.Parallel()
	long := person("big", `"name":["Big"],"notes":`+strs(strings.Repeat("n", graph.MaxRecordBytes)))
	in := person("a", `"name":["A"]`) + "\n" + long + "\n" + person("b", `"name":["B"]`) + "\n"
	g, rep, err := Read(strings.NewReader(in), "big.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("big.json:2: the line is %d bytes, longer than 16 MiB", len(long))
	if len(g.Entities) != 2 || rep.Skipped != 1 || !strings.Contains(rep.String(), want) {
		t.Errorf("%d entities\n%s", len(g.Entities), rep)
	}
}

// FuzzRead holds Read to its promises on any input: no error, only valid records, and a subgraph that
// Write and Read give back unchanged.
func FuzzRead(f *testing.F) {
	sample, err := os.ReadFile(sampleFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(sample))
	for _, l := range strings.Split(string(sample), "\n") {
		f.Add(l)
	}
	for _, s := range []string{
		person("a", `"name":["A\u0000"]`),
		person("a", `"name":["`+strings.Repeat("Long ", 200)+`"]`) + "\n" + person("b", `"name":["`+strings.Repeat("Long ", 200)+`"]`),
		person("a", `"name":["A"]`) + "\n" + person("b", `"name":["A"]`) + "\n" + `{"id":"f","schema":"Family","properties":{"person":["b"],"relative":["a"],"startDate":["2001"]}}`,
		`{"id":"s","schema":"Position","properties":{"name":["S"]}}` + "\n" + `{"id":"o","schema":"PublicBody","properties":{"name":["O"]}}` + "\n" +
			`{"id":"m","schema":"Membership","properties":{"member":["s"],"organization":["o"]}}`,
		person("a", `"name":["A"]`) + "\n" + `{"id":"s","schema":"Position","properties":{"name":["S"]}}` + "\n" +
			`{"id":"u","schema":"UnknownLink","properties":{"subject":["a"],"object":["s"],"role":["HOLDS_OFFICE"],"summary":["Boss"]}}` + "\n" +
			`{"id":"l","schema":"UnknownLink","properties":{"subject":["a"],"object":["s"],"role":["LEADS"]}}`,
		`{"id":"s","schema":"Position","properties":{"name":["S"],"organization":["t"]}}` + "\n" +
			`{"id":"t","schema":"Position","properties":{"name":["T"]}}`,
		`{"id":"o","schema":"Organization","properties":{"name":["O"]}}` + "\n" +
			`{"id":"s","schema":"Position","properties":{"name":["S"],"organization":["o"]}}` + "\n" +
			`{"id":"m","schema":"Membership","properties":{"member":["s"],"organization":["o"]}}`,
		person("a", `"name":["A"]`) + "\n" + `{"id":"s","schema":"Position","properties":{"name":["` + strings.Repeat("Seat ", 60) + `"]}}` + "\n" +
			`{"id":"h","schema":"Occupancy","properties":{"holder":["a"],"post":["s"]}}`,
		`{"id":"x"`, `[]`, "\uFEFF",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		g, rep, err := Read(strings.NewReader(in), "fuzz.json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range invalid(g) {
			t.Error(p)
		}
		var buf bytes.Buffer
		if err := Write(&buf, g); err != nil {
			t.Fatal(err)
		}
		again, rep2, err := Read(&buf, "fuzz.json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(g, again); d != "" {
			t.Errorf("Read(Write(Read(in))) differs:\n%s\nfirst read:\n%s\nsecond read:\n%s\nwritten:\n%s", d, rep, rep2, buf.String())
		}
	})
}

// Random datasets built from FtM's own shapes (every schema Read maps and some it does not, references
// between them, awkward values) hold Read to the same promises as FuzzRead, with far more structure
// than a byte-level fuzzer finds.
func TestReadRandom(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	pick := func(vs ...string) string { return vs[rnd.IntN(len(vs))] }
	names := []string{"John Smith", "Jane Doe", "ACME Ltd", "Acme Ltd.", "Иван", "Labour Party", "x\u0000y", "  ",
		strings.Repeat("Long name ", 60), "Mayor of Town", "Jane\nDoe", "é"}
	dates := []string{"2010", "2011-05", "2011-05-05", "2011-05-05T10:00:00", "1999-13", "0999", "2009", "2024-02-30"}
	words := []string{"colleague", "campaign manager", "associate", "spouse", "Member", "director", "", "employee",
		"MEMBER_OF", "LEADS", "HOLDS_OFFICE", "FAMILY", "PART_OF", "ENDORSES", "FORMERLY_WORKED_WITH", strings.Repeat("r", 250)}
	entitySchemata := []string{"Person", "Person", "Organization", "Company", "LegalEntity", "PublicBody", "Position", "Address"}
	intervals := []string{"Membership", "Directorship", "Employment", "Family", "Associate", "Occupancy", "UnknownLink",
		"UnknownLink", "UnknownLink", "Ownership"}
	for round := range 500 {
		var lines, ids, people []string
		n := 3 + rnd.IntN(12)
		for i := range n {
			id := fmt.Sprintf("e%d", rnd.IntN(n+2)) // some ids repeat
			ids = append(ids, id)
			props := map[string][]string{}
			for range rnd.IntN(3) + 1 {
				props["name"] = append(props["name"], pick(names...))
			}
			for _, p := range []string{"alias", "weakAlias", "birthDate", "deathDate", "incorporationDate", "dissolutionDate",
				"inceptionDate", "topics", "classification", "wikidataId", "registrationNumber", "isinCode", "website",
				"sourceUrl", "email", "summary", "notes", "organization", "gender"} {
				if rnd.IntN(4) > 0 {
					continue
				}
				switch {
				case strings.HasSuffix(p, "Date"):
					props[p] = []string{pick(dates...)}
				case p == "topics":
					props[p] = []string{pick("pol.party", "role.pep")}
				case p == "organization":
					props[p] = []string{fmt.Sprintf("e%d", rnd.IntN(n))}
				case p == "website" || p == "sourceUrl":
					props[p] = []string{pick("https://a.example", "javascript:x", "http://b.example/p")}
				default:
					props[p] = []string{pick(names...), pick(words...)}
				}
			}
			schema := pick(entitySchemata...)
			if schema == "Person" {
				people = append(people, id)
			}
			e := map[string]any{"id": id, "schema": schema, "properties": props}
			if rnd.IntN(5) == 0 {
				e["referents"] = []string{fmt.Sprintf("r%d", i), fmt.Sprintf("e%d", rnd.IntN(n))}
			}
			lines = append(lines, string(mustMarshal(t, e)))
		}
		for i := range rnd.IntN(15) {
			schema := pick(intervals...)
			ends := intervalEnds[schema]
			if ends[0] == "" {
				ends = [2]string{"owner", "asset"}
			}
			ref := func() string {
				if rnd.IntN(10) == 0 {
					return fmt.Sprintf("r%d", rnd.IntN(n))
				}
				return pick(ids...)
			}
			from := ref()
			if len(people) > 0 && rnd.IntN(3) > 0 {
				from = pick(people...)
			}
			props := map[string][]string{ends[0]: {from}, ends[1]: {ref()}, "role": {pick(words...)},
				"relationship": {pick(words...)}, "summary": {pick(words...)}}
			if schema == "UnknownLink" && rnd.IntN(4) > 0 { // as Write writes them
				props["role"] = []string{string(graph.RelationTypes[rnd.IntN(len(graph.RelationTypes))])}
				props["summary"] = []string{pick("", "", "Mayor of Town", "colleague", "Member", "director", "employee")}
			}
			for _, p := range []string{"startDate", "endDate", "date"} {
				if rnd.IntN(3) == 0 {
					props[p] = []string{pick(dates...)}
				}
			}
			lines = append(lines, string(mustMarshal(t, map[string]any{"id": fmt.Sprintf("i%d", i), "schema": schema, "properties": props})))
		}
		rnd.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		in := strings.Join(lines, "\n")

		g, rep, err := Read(strings.NewReader(in), "random.json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range invalid(g) {
			t.Errorf("round %d: %s\ninput:\n%s", round, p, in)
		}
		var buf bytes.Buffer
		if err := Write(&buf, g); err != nil {
			t.Fatal(err)
		}
		checkFtM(t, buf.Bytes())
		again, _, err := Read(bytes.NewReader(buf.Bytes()), "random.json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(g, again); d != "" {
			t.Fatalf("round %d: Read(Write(g)) differs:\n%s\ninput:\n%s\nreport:\n%s\nwritten:\n%s", round, d, in, rep, buf.String())
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
