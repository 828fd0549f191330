package ftm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

// ftmEntity is an FtM entity as a test reads it.
type ftmEntity struct {
	ID         string              `json:"id"`
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
	Referents  []string            `json:"referents"`
	// What Read ignores.
	Datasets  []string `json:"datasets"`
	FirstSeen string   `json:"first_seen"`
	LastSeen  string   `json:"last_seen"`
	line      int
}

// parseFtM reads FtM lines into entities by id, failing on a line that is not one.
func parseFtM(t *testing.T, b []byte) (map[string]ftmEntity, []string) {
	t.Helper()
	byID := map[string]ftmEntity{}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e ftmEntity
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		e.line = line
		byID[e.ID] = e
		ids = append(ids, e.ID)
	}
	return byID, ids
}

func writeFtM(t *testing.T, g graph.Subgraph) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, g); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// FollowTheMoney's properties of each schema Write writes (followthemoney/schema/*.yaml), and of the
// abstract schemata they extend; only those Write may use are listed.
var (
	thingProps = []string{"name", "summary", "description", "alias", "previousName", "weakAlias", "sourceUrl",
		"publisher", "wikipediaUrl", "wikidataId", "topics", "notes"}
	legalEntityProps = []string{"email", "phone", "website", "legalForm", "incorporationDate", "dissolutionDate",
		"classification", "registrationNumber", "idNumber", "taxNumber", "licenseNumber", "vatCode", "opencorporatesUrl",
		"bvdId", "icijId", "okpoCode", "innCode", "ogrnCode", "leiCode", "dunsCode", "uniqueEntityId", "npiCode", "swiftBic"}
	organizationProps = []string{"cageCode", "permId", "imoNumber", "giiNumber"}
	intervalProps     = []string{"startDate", "endDate", "date", "summary", "description", "recordId", "sourceUrl",
		"publisher", "publisherUrl", "retrievedAt"}
	interestProps = append([]string{"role", "status"}, intervalProps...)
	schemaProps   = map[string][]string{
		"Person":       slices.Concat(thingProps, legalEntityProps, []string{"birthDate", "deathDate", "gender"}),
		"Organization": slices.Concat(thingProps, legalEntityProps, organizationProps),
		"Company": slices.Concat(thingProps, legalEntityProps, organizationProps, []string{"voenCode", "coatoCode", "irsCode",
			"ipoCode", "cikCode", "jibCode", "mbsCode", "ibcRuc", "kppCode", "fnsCode", "pfrNumber", "isinCode", "ticker", "ricCode"}),
		"Position":     slices.Concat(thingProps, []string{"organization", "inceptionDate", "dissolutionDate"}),
		"Membership":   slices.Concat(interestProps, []string{"member", "organization"}),
		"Directorship": slices.Concat(interestProps, []string{"director", "organization"}),
		"Employment":   slices.Concat(interestProps, []string{"employee", "employer"}),
		"Family":       slices.Concat(intervalProps, []string{"person", "relative", "relationship"}),
		"Associate":    slices.Concat(intervalProps, []string{"person", "associate", "relationship"}),
		"Occupancy":    slices.Concat(intervalProps, []string{"holder", "post", "declarationDate", "status"}),
		"UnknownLink":  slices.Concat(interestProps, []string{"subject", "object"}),
	}
)

// checkFtM checks what Write wrote: one entity a line, sorted by id, each id a FollowTheMoney id used
// once, each property one its schema has, with values, and each reference to an entity written.
func checkFtM(t *testing.T, b []byte) map[string]ftmEntity {
	t.Helper()
	byID, ids := parseFtM(t, b)
	if !slices.IsSorted(ids) || len(ids) != len(byID) {
		t.Errorf("ids not sorted or not unique: %v", ids)
	}
	refProps := map[string]bool{"organization": true, "member": true, "director": true, "employee": true, "employer": true,
		"person": true, "relative": true, "associate": true, "holder": true, "post": true, "subject": true, "object": true}
	for _, e := range byID {
		if !validID(e.ID) {
			t.Errorf("%q is not an FtM id", e.ID)
		}
		allowed, ok := schemaProps[e.Schema]
		if !ok {
			t.Errorf("%s: schema %s", e.ID, e.Schema)
		}
		for prop, vs := range e.Properties {
			if !slices.Contains(allowed, prop) {
				t.Errorf("%s: %s has no property %s", e.ID, e.Schema, prop)
			}
			if len(vs) == 0 || slices.Contains(vs, "") {
				t.Errorf("%s: %s = %q", e.ID, prop, vs)
			}
			for _, v := range vs {
				if _, ok := byID[v]; refProps[prop] && !ok {
					t.Errorf("%s: %s names %q, which is not written", e.ID, prop, v)
				}
			}
		}
	}
	return byID
}

// What Read makes, written and read again, is what it was; and writing that again writes the same.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	g, _ := readSample(t)
	out := writeFtM(t, g)
	checkFtM(t, out)
	again, rep, err := Read(bytes.NewReader(out), "sample.ftm.json", sampleOptions)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(g, again); d != "" {
		t.Errorf("Read(Write(g)) differs from g:\n%s", d)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("reading what Write wrote reported:\n%s", rep)
	}
	if twice := writeFtM(t, again); !bytes.Equal(out, twice) {
		t.Errorf("Write(Read(Write(g))) differs from Write(g):\n%s\n%s", out, twice)
	}
}

// FtM read and written keeps, for each entity and interval Read maps, every value of every property
// polgraph models.
func TestFtMRoundTrip(t *testing.T) {
	t.Parallel()
	in, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	g, rep := readSample(t)
	out := checkFtM(t, writeFtM(t, g))
	input, _ := parseFtM(t, in)

	// Each id an FtM entity can be named by, to its own id.
	canonical := map[string]string{}
	for id, e := range input {
		canonical[id] = id
		for _, ref := range e.Referents {
			canonical[ref] = id
		}
	}
	skippedLines := map[int]bool{}
	for _, p := range rep.Problems {
		if p.Skipped {
			skippedLines[p.Line] = true
		}
	}
	skipped := map[string]bool{}
	for id, e := range input {
		skipped[id] = skippedLines[e.line]
	}
	clean := func(prop string, vs []string) []string {
		var out []string
		for _, v := range vs {
			v = normalizeSpace(v)
			if strings.HasSuffix(prop, "Date") && len(v) > 10 {
				v = v[:10]
			}
			if refs := map[string]bool{"member": true, "organization": true, "director": true, "employee": true, "employer": true,
				"person": true, "relative": true, "associate": true, "holder": true, "post": true, "subject": true, "object": true}; refs[prop] {
				v = canonical[v]
			}
			out = append(out, v)
		}
		return out
	}
	// The properties kept as they are, for entities and for intervals.
	modelled := slices.Concat([]string{"birthDate", "deathDate", "gender", "website", "sourceUrl", "wikipediaUrl", "email",
		"phone", "incorporationDate", "dissolutionDate", "inceptionDate", "organization", "role", "startDate", "endDate",
		"date", "member", "director", "employee", "employer", "holder", "post", "subject", "object"},
		func() (ps []string) {
			for _, p := range idProperties {
				ps = append(ps, p.prop)
			}
			return ps
		}())

	var ids []string
	for id := range input {
		if !skipped[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			src, got := input[id], out[id]
			if got.ID == "" {
				t.Fatalf("%s was not written", id)
			}
			for _, prop := range modelled {
				if want := clean(prop, src.Properties[prop]); len(want) > 0 {
					if prop == "role" && src.Schema == "UnknownLink" {
						continue // the polgraph type; checked below
					}
					if d := cmp.Diff(want, got.Properties[prop]); d != "" {
						t.Errorf("%s:\n%s", prop, d)
					}
				}
			}
			// Names: each one is kept under its property (the first name may also have been an alias).
			for _, prop := range []string{"name", "alias", "previousName", "weakAlias"} {
				for _, v := range clean(prop, src.Properties[prop]) {
					if !slices.Contains(got.Properties[prop], v) && !(prop != "name" && slices.Contains(got.Properties["name"], v)) {
						t.Errorf("%s %q was not kept", prop, v)
					}
				}
			}
			// The description: the first of summary, description and notes, as summary.
			for _, prop := range descriptionProperties {
				if vs := clean(prop, src.Properties[prop]); len(vs) > 0 && src.Schema != "UnknownLink" {
					if d := cmp.Diff(vs[:1], got.Properties["summary"]); d != "" {
						t.Errorf("%s as summary:\n%s", prop, d)
					}
					break
				}
			}
			if d := cmp.Diff(src.Referents, got.Referents); d != "" && len(src.Referents) > 0 {
				t.Errorf("referents:\n%s", d)
			}
			if slices.Contains(src.Properties["topics"], topicParty) && !slices.Contains(got.Properties["topics"], topicParty) {
				t.Errorf("a party lost its topic pol.party")
			}
			switch src.Schema {
			case "Family", "Associate": // symmetric in polgraph: the ends may have swapped
				ends := intervalEnds[src.Schema]
				want := slices.Sorted(slices.Values(clean("person", append(src.Properties[ends[0]], src.Properties[ends[1]]...))))
				gotEnds := slices.Sorted(slices.Values(append(got.Properties[ends[0]], got.Properties[ends[1]]...)))
				if d := cmp.Diff(want, gotEnds); d != "" {
					t.Errorf("ends:\n%s", d)
				}
				if d := cmp.Diff(src.Properties["relationship"], got.Properties["relationship"]); d != "" {
					t.Errorf("relationship:\n%s", d)
				}
			case "UnknownLink":
				if d := cmp.Diff(src.Properties["role"], got.Properties["role"]); d != "" {
					t.Errorf("role:\n%s", d)
				}
				if d := cmp.Diff(src.Properties["summary"], got.Properties["summary"]); d != "" {
					t.Errorf("summary:\n%s", d)
				}
			}
			wantSchema := map[string]string{"PublicBody": "Organization", "LegalEntity": "Organization"}[src.Schema]
			if src.Schema == "Company" && !slices.ContainsFunc(idProperties, func(p idProperty) bool {
				return p.level == levelCompany && len(src.Properties[p.prop]) > 0
			}) {
				wantSchema = "Organization" // polgraph does not tell a company from another organisation
			}
			if got.Schema != cmpOr(wantSchema, src.Schema) {
				t.Errorf("schema %s, want %s", got.Schema, cmpOr(wantSchema, src.Schema))
			}
		})
	}
	for id := range out {
		if _, ok := input[id]; !ok || skipped[id] {
			t.Errorf("%s was written but not read", id)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// A subgraph polgraph made itself: ids from names, a bare node for an end the subgraph lacks, types with
// no interval as UnknownLink, deleted records left out.
func TestWriteNative(t *testing.T) {
	t.Parallel()
	src := graph.Source{Name: "sources/tower-hamlets", Title: "Tower Hamlets", Kind: graph.SourceArticle, Outlet: "Daily Example",
		URL: "https://news.example.org/th"}
	claim := func(rel graph.RelationName, record string) []graph.Claim {
		return []graph.Claim{{Name: graph.ClaimNameFor(rel, src.Name, ""), Source: src, Excerpt: "He said so.", Record: record,
			Confidence: 0.7, Status: graph.StatusReported}}
	}
	rel := func(from graph.EntityName, t graph.RelationType, to graph.EntityName, role, record string, d graph.FuzzyDate) graph.Relation {
		n := graph.RelationNameFor(from, t, to, "")
		return graph.Relation{Name: n, Type: t, From: from, To: to, Role: role, Date: d, Claims: claim(n, record)}
	}
	g := graph.Subgraph{
		Entities: []graph.Entity{
			{Name: "actors/lutfur-rahman", Kind: graph.KindActor, DisplayName: "Lutfur Rahman", Aliases: []string{"Lutfur"},
				Identifiers: graph.Identifiers{"wikidata": {"Q6705286"}, "parlparse": {"uk.org.publicwhip/person/1"}},
				Attributes: graph.Attributes{Images: []graph.WebLink{{URL: "https://img.example.org/l.jpg"}},
					Links:          []graph.WebLink{{URL: "https://example.org/lutfur", Note: "profile"}},
					ContactDetails: []graph.ContactDetail{{Type: "twitter", Value: "@lutfur"}}}},
			{Name: "actors/ken-livingstone", Kind: graph.KindActor, DisplayName: "Ken Livingstone"},
			{Name: "parties/aspire", Kind: graph.KindParty, DisplayName: "Aspire", ValidFrom: date("2018")},
			{Name: "seats/mayor-of-tower-hamlets", Kind: graph.KindSeat, DisplayName: "Mayor of Tower Hamlets",
				Identifiers: graph.Identifiers{"ocd": {"ocd-division/country:gb/local:tower_hamlets"}},
				Attributes:  graph.Attributes{Links: []graph.WebLink{{URL: "https://example.gov/mayor", Note: "official site"}}}},
			{Name: "actors/gone", Kind: graph.KindActor, DisplayName: "Gone", Deleted: graph.Tombstone{Time: time.Unix(0, 0), By: "x", Reason: "y"}},
		},
		Relations: []graph.Relation{
			rel("actors/lutfur-rahman", graph.Founded, "parties/aspire", "", "", date("2018")),
			rel("actors/lutfur-rahman", graph.HoldsOffice, "seats/mayor-of-tower-hamlets", "Mayor", "popolo/m/1", graph.FuzzyDate{}),
			rel("actors/ken-livingstone", graph.CampaignedWith, "actors/lutfur-rahman", "#doorstep", "", date("2014")),
			rel("actors/lutfur-rahman", graph.Endorses, "actors/john-biggs", "", "", date("2022")), // john-biggs is not in the subgraph
			rel("actors/lutfur-rahman", graph.Leads, "parties/aspire", "", "", graph.FuzzyDate{}),
		},
		Sources: []graph.Source{src},
	}
	want := `{"id":"polgraph-aspire","schema":"Organization","properties":{"incorporationDate":["2018"],"name":["Aspire"],"topics":["pol.party"]}}
{"id":"polgraph-john-biggs","schema":"Person","properties":{"name":["john biggs"]}}
{"id":"polgraph-ken-livingstone","schema":"Person","properties":{"name":["Ken Livingstone"]}}
{"id":"polgraph-ken-livingstone.campaigned-with.lutfur-rahman","schema":"UnknownLink","properties":{"date":["2014"],"object":["polgraph-lutfur-rahman"],"publisher":["Daily Example"],"role":["CAMPAIGNED_WITH"],"sourceUrl":["https://news.example.org/th"],"subject":["polgraph-ken-livingstone"],"summary":["#doorstep"]}}
{"id":"polgraph-lutfur-rahman","schema":"Person","properties":{"alias":["Lutfur"],"name":["Lutfur Rahman"],"website":["https://example.org/lutfur"],"wikidataId":["Q6705286"]}}
{"id":"polgraph-lutfur-rahman.endorses.john-biggs","schema":"UnknownLink","properties":{"date":["2022"],"object":["polgraph-john-biggs"],"publisher":["Daily Example"],"role":["ENDORSES"],"sourceUrl":["https://news.example.org/th"],"subject":["polgraph-lutfur-rahman"]}}
{"id":"polgraph-lutfur-rahman.founded.aspire","schema":"UnknownLink","properties":{"date":["2018"],"object":["polgraph-aspire"],"publisher":["Daily Example"],"role":["FOUNDED"],"sourceUrl":["https://news.example.org/th"],"subject":["polgraph-lutfur-rahman"]}}
{"id":"polgraph-lutfur-rahman.holds-office.mayor-of-tower-hamlets","schema":"UnknownLink","properties":{"object":["polgraph-mayor-of-tower-hamlets"],"publisher":["Daily Example"],"recordId":["popolo/m/1"],"role":["HOLDS_OFFICE"],"sourceUrl":["https://news.example.org/th"],"subject":["polgraph-lutfur-rahman"],"summary":["Mayor"]}}
{"id":"polgraph-lutfur-rahman.leads.aspire","schema":"UnknownLink","properties":{"object":["polgraph-aspire"],"publisher":["Daily Example"],"role":["LEADS"],"sourceUrl":["https://news.example.org/th"],"subject":["polgraph-lutfur-rahman"]}}
{"id":"polgraph-mayor-of-tower-hamlets","schema":"Position","properties":{"name":["Mayor of Tower Hamlets"],"sourceUrl":["https://example.gov/mayor"]}}
`
	got := writeFtM(t, g)
	if d := cmp.Diff(strings.Split(want, "\n"), strings.Split(string(got), "\n")); d != "" {
		t.Errorf("Write:\n%s", d)
	}
	checkFtM(t, got)

	// Read back, it gives the same relations between entities of the same names.
	back, rep, err := Read(bytes.NewReader(got), "native.json", Options{Source: src, Confidence: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range invalid(back) {
		t.Error(p)
	}
	type link struct {
		Type     graph.RelationType
		From, To string
		Role     string
		Date     graph.FuzzyDate
	}
	var wantLinks, gotLinks []link
	for _, r := range g.Relations {
		wantLinks = append(wantLinks, link{r.Type, graph.Slug(r.From), graph.Slug(r.To), r.Role, r.Date})
	}
	for _, r := range back.Relations {
		gotLinks = append(gotLinks, link{r.Type, graph.Slug(r.From), graph.Slug(r.To), r.Role, r.Date})
	}
	key := func(a, b link) int { return strings.Compare(string(a.Type)+a.From+a.To, string(b.Type)+b.From+b.To) }
	slices.SortFunc(wantLinks, key)
	slices.SortFunc(gotLinks, key)
	if d := cmp.Diff(wantLinks, gotLinks); d != "" {
		t.Errorf("relations read back:\n%s\n%s", d, rep)
	}
}

// Write refuses a relation whose end is not a resource name, and leaves deleted relations out.
func TestWriteErrors(t *testing.T) {
	t.Parallel()
	bad := graph.Subgraph{Relations: []graph.Relation{{Name: "relations/x", Type: graph.Family, From: "nobody", To: "actors/b"}}}
	if err := Write(&bytes.Buffer{}, bad); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("Write of a relation from %q: err = %v", "nobody", err)
	}
	deleted := graph.Subgraph{Relations: []graph.Relation{{Name: "relations/x", Type: graph.Family, From: "nobody", To: "actors/b",
		Deleted: graph.Tombstone{Time: time.Unix(1, 0)}}}}
	var buf bytes.Buffer
	if err := Write(&buf, deleted); err != nil || buf.Len() != 0 {
		t.Errorf("Write of a deleted relation: %q, %v; want nothing", buf.String(), err)
	}
}
