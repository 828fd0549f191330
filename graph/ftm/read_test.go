package ftm

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

const sampleFile = "testdata/sample.ftm.json"

// sampleSource is the source the sample is read with.
var sampleSource = graph.Source{Name: "sources/example-peps", Title: "Example PEPs", Kind: graph.SourceDataset,
	Outlet: "Example Data Ltd", URL: "https://data.example.org/peps", Retrieved: date("2024-07-01"), Licence: "CC-BY-4.0"}

var sampleOptions = Options{Source: sampleSource, Confidence: 0.8}

func date(s string) graph.FuzzyDate {
	d, err := graph.ParseFuzzyDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func readSample(t *testing.T) (graph.Subgraph, Report) {
	t.Helper()
	b, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	g, rep, err := Read(bytes.NewReader(b), "sample.ftm.json", sampleOptions)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return g, rep
}

func TestReadEntities(t *testing.T) {
	t.Parallel()
	g, _ := readSample(t)
	got := map[graph.EntityName]graph.Entity{}
	for _, e := range g.Entities {
		got[e.Name] = e
	}
	for _, want := range []graph.Entity{
		{Name: "actors/alex-associate", Kind: graph.KindActor, DisplayName: "Alex Associate",
			Identifiers: graph.Identifiers{"ftm": {"alex-1"}}},
		{Name: "actors/jane-doe", Kind: graph.KindActor, DisplayName: "Jane Doe",
			Aliases:     []string{"J. Doe", "Janey Doe", "Jane Smith", "JD"}, // "Jane Doe" is the display name
			Description: "Member of the Example Labour Party and Mayor of Example Borough.",
			Identifiers: graph.Identifiers{"ftm": {"Q2001", "gb-mayors-jane-doe"}, "wikidata": {"Q2001"}},
			Attributes: graph.Attributes{BirthDate: date("1970-03-15"), Gender: "female",
				Links: []graph.WebLink{{URL: "https://janedoe.example.org", Note: "website"},
					{URL: "https://register.example.org/members/jane-doe", Note: "source"}},
				ContactDetails: []graph.ContactDetail{{Type: "email", Value: "jane.doe@example.org"},
					{Type: "phone", Value: "+44 20 7946 0000"}},
				OtherNames: []graph.Alias{{Name: "Jane Smith", Note: "previous name"}, {Name: "JD", Note: "weak alias"}}}},
		// Two John Roes: roe-a comes first by id, though second in the file, and keeps the bare slug.
		{Name: "actors/john-roe", Kind: graph.KindActor, DisplayName: "John Roe", Aliases: []string{"Johnny Roe"},
			Description: "Businessman. Founder of Acme.", // the line break made a space
			Identifiers: graph.Identifiers{"ftm": {"roe-a"}},
			Attributes: graph.Attributes{BirthDate: date("1965-07"), DeathDate: date("2020-01-02"), Gender: "male",
				OtherNames: []graph.Alias{{Name: "Johnny Roe", Note: "name"}}}},
		{Name: "actors/john-roe-2", Kind: graph.KindActor, DisplayName: "John Roe",
			Identifiers: graph.Identifiers{"ftm": {"roe-b"}, "id_number": {"AB123456"}},
			Attributes:  graph.Attributes{BirthDate: date("1980")}},
		{Name: "actors/mary-major", Kind: graph.KindActor, DisplayName: "Mary Major", Description: "Council officer.",
			Identifiers: graph.Identifiers{"ftm": {"mary-major"}}},
		// A name with no Latin letter makes no slug: the FtM id does.
		{Name: "actors/ru-ivan", Kind: graph.KindActor, DisplayName: "Иван Петров", Aliases: []string{"Ivan Petrov"},
			Identifiers: graph.Identifiers{"ftm": {"ru-ivan"}}},
		{Name: "organisations/acme-holdings-ltd", Kind: graph.KindOrganisation, DisplayName: "Acme Holdings Ltd",
			Identifiers: graph.Identifiers{"ftm": {"co-acme"}, "registration_number": {"01234567"},
				"lei_code": {"5493001KJTIIGC8Y1R12"}, "isin_code": {"GB0000000001"},
				"opencorporates_url": {"https://opencorporates.com/companies/gb/01234567"}},
			ValidFrom: date("2001-05-05"), ValidTo: date("2019")},
		{Name: "organisations/acme-holdings-ltd-2", Kind: graph.KindOrganisation, DisplayName: "ACME Holdings Ltd.",
			Identifiers: graph.Identifiers{"ftm": {"co-acme-2"}, "registration_number": {"07654321"}}},
		{Name: "organisations/example-borough-council", Kind: graph.KindOrganisation, DisplayName: "Example Borough Council",
			Identifiers: graph.Identifiers{"ftm": {"pb-council"}},
			Attributes: graph.Attributes{Links: []graph.WebLink{{URL: "https://council.example.gov", Note: "website"}},
				ContactDetails: []graph.ContactDetail{{Type: "phone", Value: "+44 20 7946 0001"}}}},
		{Name: "organisations/example-trust", Kind: graph.KindOrganisation, DisplayName: "Example Trust",
			Identifiers: graph.Identifiers{"ftm": {"le-trust"}, "inn_code": {"7707083893"}, "ogrn_code": {"1027700132195"}}},
		{Name: "parties/example-labour-party", Kind: graph.KindParty, DisplayName: "Example Labour Party",
			Identifiers: graph.Identifiers{"ftm": {"party-labour"}}, ValidFrom: date("1900-02-27"),
			Attributes: graph.Attributes{Links: []graph.WebLink{{URL: "https://labour.example.org", Note: "website"}}}},
		{Name: "parties/green-alliance", Kind: graph.KindParty, DisplayName: "Green Alliance",
			Identifiers: graph.Identifiers{"ftm": {"party-green"}}},
		{Name: "seats/mayor-of-example-borough", Kind: graph.KindSeat, DisplayName: "Mayor of Example Borough",
			Identifiers: graph.Identifiers{"ftm": {"pos-mayor"}}, ValidFrom: date("2002")},
	} {
		t.Run(string(want.Name), func(t *testing.T) {
			if d := cmp.Diff(want, got[want.Name]); d != "" {
				t.Errorf("entity %s:\n%s", want.Name, d)
			}
		})
		delete(got, want.Name)
	}
	for name := range got {
		t.Errorf("unexpected entity %s", name)
	}
}

func TestReadRelations(t *testing.T) {
	t.Parallel()
	g, _ := readSample(t)
	got := map[graph.RelationName]graph.Relation{}
	for _, r := range g.Relations {
		got[r.Name] = r
	}
	claim := func(rel, record string) []graph.Claim {
		return []graph.Claim{{Name: rel + "/claims/example-peps", Source: sampleSource, Record: record, Confidence: 0.8,
			Status: graph.StatusReported}}
	}
	for _, tc := range []struct {
		name, record string
		rel          graph.Relation
	}{
		{"relations/jane-doe.member-of.example-labour-party", "mem-1", graph.Relation{Type: graph.MemberOf,
			From: "actors/jane-doe", To: "parties/example-labour-party", Role: "Member", ValidFrom: date("2011-05-05")}},
		// The same pair again: told apart by its start date.
		{"relations/jane-doe.member-of.example-labour-party.2015-01-01", "mem-2", graph.Relation{Type: graph.MemberOf,
			From: "actors/jane-doe", To: "parties/example-labour-party", ValidFrom: date("2015-01-01"), ValidTo: date("2018")}},
		// An organisation's membership is PART_OF.
		{"relations/example-trust.part-of.example-labour-party", "mem-org", graph.Relation{Type: graph.PartOf,
			From: "organisations/example-trust", To: "parties/example-labour-party", Role: "Affiliated organisation"}},
		{"relations/john-roe.leads.acme-holdings-ltd", "dir-1", graph.Relation{Type: graph.Leads,
			From: "actors/john-roe", To: "organisations/acme-holdings-ltd", Role: "Chief Executive",
			ValidFrom: date("2001-05-05"), ValidTo: date("2010-12-31")}},
		{"relations/john-roe-2.leads.acme-holdings-ltd-2", "dir-2", graph.Relation{Type: graph.Leads,
			From: "actors/john-roe-2", To: "organisations/acme-holdings-ltd-2", Role: "director"}},
		{"relations/mary-major.member-of.example-borough-council", "emp-1", graph.Relation{Type: graph.MemberOf,
			From: "actors/mary-major", To: "organisations/example-borough-council", Role: "employee", ValidFrom: date("2019-09")}},
		// Symmetric: the ends in name order, though the FtM person is Mary Major.
		{"relations/john-roe.family.mary-major", "fam-1", graph.Relation{Type: graph.Family,
			From: "actors/john-roe", To: "actors/mary-major", Role: "spouse"}},
		// The holder is named by a referent of Jane Doe.
		{"relations/jane-doe.holds-office.mayor-of-example-borough", "occ-1", graph.Relation{Type: graph.HoldsOffice,
			From: "actors/jane-doe", To: "seats/mayor-of-example-borough", Role: "Mayor of Example Borough",
			ValidFrom: date("2022-05-09")}},
		{"relations/alex-associate.formerly-worked-with.jane-doe", "assoc-1", graph.Relation{Type: graph.FormerlyWorkedWith,
			From: "actors/alex-associate", To: "actors/jane-doe", Role: "former colleague", ValidTo: date("2015")}},
		{"relations/john-roe.endorses.green-alliance", "ul-1", graph.Relation{Type: graph.Endorses,
			From: "actors/john-roe", To: "parties/green-alliance", Role: "endorsement", Date: date("2019-06")}},
		// The Position's organization, with the Position as the record.
		{"relations/mayor-of-example-borough.part-of.example-borough-council", "pos-mayor", graph.Relation{Type: graph.PartOf,
			From: "seats/mayor-of-example-borough", To: "organisations/example-borough-council"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.rel
			want.Name = graph.RelationName(tc.name)
			want.Claims = claim(tc.name, tc.record)
			if d := cmp.Diff(want, got[want.Name]); d != "" {
				t.Errorf("relation %s:\n%s", want.Name, d)
			}
		})
		delete(got, graph.RelationName(tc.name))
	}
	for name := range got {
		t.Errorf("unexpected relation %s", name)
	}
	if d := cmp.Diff([]graph.Source{sampleSource}, g.Sources); d != "" {
		t.Errorf("sources:\n%s", d)
	}
}

func TestReadReport(t *testing.T) {
	t.Parallel()
	_, rep := readSample(t)
	want := []string{
		`sample.ftm.json:17: properties.organization: no entity "org-not-in-input" in the input; the Membership was skipped`,
		`sample.ftm.json:20: properties.director: LEADS goes from an actor, and organisations/acme-holdings-ltd is an organisation; the Directorship was skipped`,
		`sample.ftm.json:25: properties.relationship: "associate" says no tie of polgraph's vocabulary (working, campaigning or appearing together); the Associate was skipped`,
		`sample.ftm.json:26: schema: Address is not mapped: polgraph does not model addresses; skipped`,
		`sample.ftm.json:27: schema: Ownership is not mapped: polgraph's vocabulary has no ownership relation; skipped`,
		`sample.ftm.json:29: properties.object: the entity "addr-1" was skipped (line 26); the UnknownLink was skipped`,
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.String())
		if !p.Skipped {
			t.Errorf("%s: not marked as a skipped record", p)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems:\n%s", d)
	}
	if rep.Read != 29 || rep.Entities != 13 || rep.Relations != 11 || rep.Skipped != 6 {
		t.Errorf("counts: read %d, entities %d, relations %d, skipped %d; want 29, 13, 11, 6", rep.Read, rep.Entities, rep.Relations, rep.Skipped)
	}
	if !strings.HasPrefix(rep.String(), "29 records read: 13 entities, 11 relations, 6 skipped\n") {
		t.Errorf("String() = %q", rep.String())
	}
}

func TestReadIsValid(t *testing.T) {
	t.Parallel()
	g, _ := readSample(t)
	for _, p := range invalid(g) {
		t.Error(p)
	}
}

// The names Read gives do not depend on the order of the input.
func TestReadIndependentOfOrder(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readSample(t)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for name, reorder := range map[string]func([]string){
		"reversed": slices.Reverse[[]string],
		"rotated":  func(ls []string) { copy(ls, append(ls[7:], ls[:7]...)) },
	} {
		t.Run(name, func(t *testing.T) {
			ls := slices.Clone(lines)
			reorder(ls)
			got, _, err := Read(strings.NewReader(strings.Join(ls, "\n")), "sample.ftm.json", sampleOptions)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Read of the lines %s:\n%s", name, d)
			}
		})
	}
}

func TestReadOptions(t *testing.T) {
	t.Parallel()
	line := `{"id":"a","schema":"Person","properties":{"name":["A"]}}` + "\n" +
		`{"id":"b","schema":"Person","properties":{"name":["B"]}}` + "\n" +
		`{"id":"f","schema":"Family","properties":{"person":["a"],"relative":["b"]}}`
	for _, tc := range []struct {
		name     string
		file     string
		opts     Options
		want     graph.Source
		wantConf float64
		wantErr  string
	}{
		{name: "defaults", file: "data/opensanctions-peps.ftm.json",
			want:     graph.Source{Name: "sources/ftm-opensanctions-peps", Title: "FollowTheMoney entities from opensanctions-peps.ftm.json", Kind: graph.SourceDataset},
			wantConf: DefaultConfidence},
		{name: "odd file name", file: "Entities (2024).JSONL",
			want:     graph.Source{Name: "sources/ftm-entities-2024", Title: "FollowTheMoney entities from Entities (2024).JSONL", Kind: graph.SourceDataset},
			wantConf: DefaultConfidence},
		{name: "given", file: "x.json", opts: Options{Source: sampleSource, Confidence: 0.5}, want: sampleSource, wantConf: 0.5},
		{name: "bad name", file: "x.json", opts: Options{Source: graph.Source{Name: "sources/Not A Slug"}}, wantErr: "source.name"},
		{name: "not a source", file: "x.json", opts: Options{Source: graph.Source{Name: "actors/x"}}, wantErr: "source.name"},
		{name: "long title", file: "x.json", opts: Options{Source: graph.Source{Title: strings.Repeat("t", graph.MaxTitle+1)}}, wantErr: "source.title"},
		{name: "control in outlet", file: "x.json", opts: Options{Source: graph.Source{Outlet: "a\nb"}}, wantErr: "source.outlet"},
		{name: "confidence above 1", file: "x.json", opts: Options{Confidence: 1.5}, wantErr: "confidence"},
		{name: "negative confidence", file: "x.json", opts: Options{Confidence: -0.1}, wantErr: "confidence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _, err := Read(strings.NewReader(line), tc.file, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || graph.KindOf(err) != graph.Invalid {
					t.Fatalf("err = %v, want an Invalid error about %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]graph.Source{tc.want}, g.Sources); d != "" {
				t.Errorf("sources:\n%s", d)
			}
			if len(g.Relations) != 1 {
				t.Fatalf("%d relations, want 1", len(g.Relations))
			}
			c := g.Relations[0].Claims[0]
			if c.Source != tc.want || c.Confidence != tc.wantConf || c.Status != graph.StatusReported || c.Record != "f" {
				t.Errorf("claim = %+v, want source %s, confidence %g, REPORTED, record f", c, tc.want.Name, tc.wantConf)
			}
		})
	}
}

// Relations that would share a name are told apart by their start dates or the hashes of their ids,
// whatever the order they come in.
func TestReadRelationKeys(t *testing.T) {
	t.Parallel()
	people := `{"id":"a","schema":"Person","properties":{"name":["Ann"]}}
{"id":"b","schema":"Person","properties":{"name":["Bob"]}}
{"id":"p","schema":"Organization","properties":{"name":["Party"],"topics":["pol.party"]}}
`
	member := func(id, start string) string {
		dates := ""
		if start != "" {
			dates = fmt.Sprintf(`,"startDate":[%q]`, start)
		}
		return fmt.Sprintf(`{"id":%q,"schema":"Membership","properties":{"member":["a"],"organization":["p"]%s}}`+"\n", id, dates)
	}
	const base = "relations/ann.member-of.party"
	for _, tc := range []struct {
		name  string
		input string
		want  map[string]string // record → relation name
	}{
		{"one", member("m1", "2011"), map[string]string{"m1": base}},
		{"by date", member("m2", "2015-01-01") + member("m1", "2011-05-05"),
			map[string]string{"m1": base, "m2": base + ".2015-01-01"}},
		{"undated first", member("m1", "2011") + member("m0", ""),
			map[string]string{"m0": base, "m1": base + ".2011"}},
		{"same date", member("m1", "2011") + member("m2", "2011") + member("m3", "2011"),
			map[string]string{"m1": base, "m2": base + ".2011", "m3": base + "." + shortHash("m3")}},
		{"undated twice", member("m2", "") + member("m1", ""),
			map[string]string{"m1": base, "m2": base + "." + shortHash("m2")}},
		{"family both ways",
			`{"id":"f1","schema":"Family","properties":{"person":["a"],"relative":["b"],"relationship":["sister"]}}` + "\n" +
				`{"id":"f2","schema":"Family","properties":{"person":["b"],"relative":["a"],"relationship":["brother"]}}` + "\n",
			map[string]string{"f1": "relations/ann.family.bob", "f2": "relations/ann.family.bob." + shortHash("f2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, input := range []string{people + tc.input, reverseLines(people + tc.input)} {
				g, rep, err := Read(strings.NewReader(input), "keys.json", Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, r := range g.Relations {
					got[r.Claims[0].Record] = string(r.Name)
				}
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("relation names:\n%s\n%s", d, rep)
				}
				for _, p := range invalid(g) {
					t.Error(p)
				}
			}
		})
	}
}

func reverseLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slices.Reverse(ls)
	return strings.Join(ls, "\n")
}

func TestReadKinds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema, props string
		want                graph.Kind
	}{
		{"person", "Person", `"topics":["pol.party"]`, graph.KindActor},
		{"organisation", "Organization", `"topics":["pol.union"]`, graph.KindOrganisation},
		{"party by topic", "Organization", `"topics":["gov","pol.party"]`, graph.KindParty},
		{"party by classification", "Organization", `"classification":["Political Party"]`, graph.KindParty},
		{"party by legal form", "LegalEntity", `"legalForm":["Politische Partei"]`, graph.KindParty},
		{"party-like words", "Organization", `"classification":["Partnership"]`, graph.KindOrganisation},
		{"company", "Company", `"legalForm":["Private limited company"]`, graph.KindOrganisation},
		{"public body", "PublicBody", ``, graph.KindOrganisation},
		{"legal entity", "LegalEntity", ``, graph.KindOrganisation},
		{"position", "Position", `"topics":["pol.party"]`, graph.KindSeat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			props := `"name":["Some Name"]`
			if tc.props != "" {
				props += "," + tc.props
			}
			in := fmt.Sprintf(`{"id":"x","schema":%q,"properties":{%s}}`, tc.schema, props)
			g, rep, err := Read(strings.NewReader(in), "kinds.json", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Entities) != 1 {
				t.Fatalf("%d entities, want 1\n%s", len(g.Entities), rep)
			}
			if e := g.Entities[0]; e.Kind != tc.want || e.Name != graph.EntityName(graph.CollectionOf(tc.want)+"/some-name") {
				t.Errorf("%s %s, want a %s", e.Kind, e.Name, tc.want)
			}
		})
	}
}

func TestAssociateType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		relationship string
		want         graph.RelationType
	}{
		{"former colleague", graph.FormerlyWorkedWith},
		{"Business associate", graph.FormerlyWorkedWith},
		{"worked together at the council", graph.FormerlyWorkedWith},
		{"Adviser", graph.FormerlyWorkedWith},
		{"co-founder", graph.FormerlyWorkedWith},
		{"campaign manager", graph.CampaignedWith},
		{"fellow campaigner", graph.CampaignedWith},
		{"appeared at a rally", graph.AppearedWith},
		{"associate", ""},
		{"Close Associate", ""},
		{"friend", ""},
		{"partner", ""},
		{"", ""},
	} {
		t.Run(tc.relationship, func(t *testing.T) {
			got, ok := associateType(tc.relationship)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("associateType(%q) = %q, %v; want %q", tc.relationship, got, ok, tc.want)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string // want "" for an error
	}{
		{"2021", "2021"},
		{"2021-02", "2021-02"},
		{"2021-02-16", "2021-02-16"},
		{"2021-02-16T21", "2021-02-16"},
		{"2021-02-16T21:48:52", "2021-02-16"},
		{"2021-02-16 21:48", "2021-02-16"},
		{"2021-02-30", ""},
		{"2021-13", ""},
		{"0999", ""},
		{"21", ""},
		{"2021-02-16X", ""},
		{"twenty", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			d, err := parseDate(tc.in)
			if tc.want == "" {
				if err == nil {
					t.Errorf("parseDate(%q) = %v, want an error", tc.in, d)
				}
				return
			}
			if err != nil || d.String() != tc.want {
				t.Errorf("parseDate(%q) = %v, %v; want %s", tc.in, d, err, tc.want)
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghi ", 15)
	for _, tc := range []struct{ in, want string }{
		{"Jane Doe", "jane-doe"},
		{"ACME Holdings Ltd.", "acme-holdings-ltd"},
		{"Zoë O'Brien-Smith", "zoe-obrien-smith"},
		{"  spaced\tout\nname ", "spaced-out-name"},
		{"Иван Петров", ""},
		{"Q7747", "q7747"},
		{long, strings.TrimSuffix(strings.Repeat("abcdefghi-", 10), "-")},
		{strings.Repeat("x", 150), strings.Repeat("x", 100)},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := slugify(tc.in, maxSlug)
			if got != tc.want {
				t.Errorf("slugify(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got != "" && !graph.ValidSlug(got) {
				t.Errorf("slugify(%q) = %q is not a slug", tc.in, got)
			}
		})
	}
}
