package popolo_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/popolo"
)

// memGraph is a graph held in a slice, as an import reads it (the Dgraph store is tested on a real
// Dgraph by cmd/polgraph's tests).
type memGraph []graph.Entity

func (g memGraph) EntitiesByIdentifier(_ context.Context, scheme string, values []string) (map[string][]graph.Entity, error) {
	out := map[string][]graph.Entity{}
	for _, e := range g {
		for _, v := range values {
			if e.Identifiers.Has(scheme, v) {
				out[v] = append(out[v], e)
			}
		}
	}
	return out, nil
}

func (g memGraph) FindByName(_ context.Context, text string) ([]graph.Entity, error) {
	var out []graph.Entity
	for _, e := range g {
		if slices.Contains(e.SearchKeys(), graph.NormalizeName(text)) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (g memGraph) GetEntities(_ context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error) {
	out := map[graph.EntityName]graph.Entity{}
	for _, e := range g {
		if slices.Contains(names, e.Name) {
			out[e.Name] = e
		}
	}
	return out, nil
}

func read(t *testing.T, path string) popolo.Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := popolo.Decode(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return popolo.Input{Name: path, File: doc}
}

func importInto(t *testing.T, g memGraph, ins ...popolo.Input) (graph.Subgraph, *popolo.Report) {
	t.Helper()
	sub, rep, err := popolo.Import(context.Background(), g, ins, popolo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, sub)
	return sub, rep
}

// checkValid writes the records as a dataset and reads them back: every limit of the format holds.
func checkValid(t *testing.T, sub graph.Subgraph) {
	t.Helper()
	if _, _, err := dataset.Check("import.jsonl", sub); err != nil {
		t.Fatalf("the import's records are not a valid dataset: %v", err)
	}
}

func byName(sub graph.Subgraph) (map[graph.EntityName]graph.Entity, map[graph.RelationName]graph.Relation) {
	es, rs := map[graph.EntityName]graph.Entity{}, map[graph.RelationName]graph.Relation{}
	for _, e := range sub.Entities {
		es[e.Name] = e
	}
	for _, r := range sub.Relations {
		rs[r.Name] = r
	}
	return es, rs
}

func TestEveryPoliticianShape(t *testing.T) {
	in := read(t, filepath.Join("..", "..", "data", "popolo", "scotland-parliament.json"))
	sub, rep := importInto(t, nil, in)
	kinds := map[graph.Kind]int{}
	for _, e := range sub.Entities {
		kinds[e.Kind]++
	}
	// 253 persons; 8 parties ("None" and "Independent" stand for no party); the legislature and its 4
	// terms; 123 areas.
	want := map[graph.Kind]int{graph.KindActor: 253, graph.KindParty: 8, graph.KindOrganisation: 5, graph.KindSeat: 123}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("entities by kind (-want +got):\n%s", diff)
	}
	types := map[graph.RelationType]int{}
	for _, r := range sub.Relations {
		types[r.Type]++
		role, label, _ := strings.Cut(r.Role, ", ") // a member for no party says so
		if r.Type == graph.HoldsOffice && (r.Term == "" || role != "Member of the Scottish Parliament" || label != "" && (r.Via != "" || label != "Independent" && label != "no party") || r.ValidFrom.IsZero() ||
			len(r.Claims) != 1 || r.Claims[0].Record == "" || r.Claims[0].Excerpt != "") {
			t.Errorf("%s: term %q, role %q, from %s, claims %+v", r.Name, r.Term, r.Role, r.ValidFrom, r.Claims)
		}
	}
	if types[graph.HoldsOffice] != 550 || rep.Duplicates != 0 {
		t.Errorf("%d HOLDS_OFFICE relations and %d duplicates, want one for each of the 550 memberships", types[graph.HoldsOffice], rep.Duplicates)
	}
	es, rs := byName(sub)
	ns := es["actors/nicola-sturgeon"]
	if ns.Attributes.BirthDate.String() != "1970-07-19" || ns.Attributes.Gender != "female" || !ns.Identifiers.Has("wikidata", "Q467112") ||
		len(ns.Attributes.Links) != 40 || !slices.Contains(ns.Aliases, "Nikola Stercen") {
		t.Errorf("Nicola Sturgeon: %+v", ns)
	}
	term := es["organisations/scottish-parliament-term-1"]
	if term.ValidFrom.String() != "1999-05-06" || term.ValidTo.String() != "2003-03-31" {
		t.Errorf("the first term: %+v", term)
	}
	if _, ok := rs["relations/scottish-parliament-term-1.part-of.scottish-parliament"]; !ok {
		t.Error("the first term is not PART_OF the parliament")
	}
	// A membership without dates holds during its term; its party is its via.
	r := rs["relations/nicola-sturgeon.holds-office.glasgow.scottish-parliament-term-1"]
	if r.ValidFrom.String() != "1999-05-06" || r.ValidTo.String() != "2003-03-31" || r.Via != "parties/scottish-national-party" {
		t.Errorf("Sturgeon's first term: %+v", r)
	}
}

func TestParlparseShape(t *testing.T) {
	sub, rep := importInto(t, nil, read(t, "testdata/parlparse-sample.json"))
	es, rs := byName(sub)
	for _, n := range []graph.EntityName{"actors/tony-blair", "actors/gordon-brown", "actors/john-smith", "actors/john-smith-1951",
		"seats/sedgefield", "seats/prime-minister", "organisations/hm-treasury", "parties/labour"} {
		if _, ok := es[n]; !ok {
			t.Errorf("no %s among %v", n, slices.Collect(func(yield func(graph.EntityName) bool) {
				for n := range es {
					if !yield(n) {
						return
					}
				}
			}))
		}
	}
	if got := es["actors/tony-blair"].Aliases; !slices.Contains(got, "Anthony Charles Lynton Blair") {
		t.Errorf("Blair's aliases: %v", got)
	}
	for name, want := range map[graph.RelationName]string{
		"relations/tony-blair.holds-office.sedgefield.1983-06-09":     "Member of Parliament via parties/labour",
		"relations/tony-blair.holds-office.sedgefield.1987-06-11":     "Member of Parliament via parties/labour",
		"relations/tony-blair.holds-office.prime-minister.1997-05-02": "Prime Minister via ",
		"relations/gordon-brown.member-of.hm-treasury.1997-05-02":     "Chancellor of the Exchequer via ",
		"relations/prime-minister.part-of.cabinet-office":             " via ",
	} {
		r, ok := rs[name]
		if got := r.Role + " via " + string(r.Via); !ok || got != want {
			t.Errorf("%s: %v %q, want %q", name, ok, got, want)
		}
	}
	if rep.Duplicates != 1 {
		t.Errorf("%d duplicates, want the repeated membership counted once", rep.Duplicates)
	}
	if !slices.ContainsFunc(rep.Lines, func(l string) bool {
		return strings.Contains(l, "memberships[7]: skipped: person \"uk.org.publicwhip/person/99999\" is not among the file's persons")
	}) {
		t.Errorf("the report does not say why memberships[7] was skipped:\n%s", strings.Join(rep.Lines, "\n"))
	}
}

func TestMergesWithTheGraph(t *testing.T) {
	g := memGraph{
		{Name: "actors/blair", Kind: graph.KindActor, DisplayName: "Tony Blair", Identifiers: graph.Identifiers{"wikidata": {"Q9545"}}, Description: "Prime Minister."},
		{Name: "parties/labour-party", Kind: graph.KindParty, DisplayName: "Labour Party", Aliases: []string{"Labour"}},
		{Name: "actors/john-smith", Kind: graph.KindActor, DisplayName: "John Smith"},
		{Name: "actors/john-smith-mp", Kind: graph.KindActor, DisplayName: "John Smith"},
		{Name: "seats/sedgefield", Kind: graph.KindSeat, DisplayName: "Sedgefield", Identifiers: graph.Identifiers{"wikidata": {"Q1"}}},
	}
	sub, rep := importInto(t, g, read(t, "testdata/parlparse-sample.json"))
	es, rs := byName(sub)
	blair := es["actors/blair"]
	if blair.Description != "Prime Minister." || !blair.Identifiers.Has("parlparse", "uk.org.publicwhip/person/10068") || blair.Attributes.BirthDate.Year != 1953 {
		t.Errorf("Blair was not merged by his Wikidata id, keeping the graph's fields: %+v", blair)
	}
	if _, ok := rs["relations/blair.holds-office.sedgefield.1983-06-09"]; !ok {
		t.Errorf("Blair's relations do not use the graph's names: %v", slices.Sorted(func(yield func(graph.RelationName) bool) {
			for n := range rs {
				if !yield(n) {
					return
				}
			}
		}))
	}
	if _, ok := es["parties/labour-party"]; !ok {
		t.Error("Labour was not merged by its name")
	}
	for _, want := range []string{"merged with actors/blair (Tony Blair) by wikidata:Q9545", "merged with parties/labour-party (Labour Party) by its name",
		"merged with seats/sedgefield (Sedgefield) by its name",
		`not merged: "John Smith" names 2 entities (actors/john-smith, actors/john-smith-mp); created anew`} {
		if !slices.ContainsFunc(rep.Lines, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the report does not say %q:\n%s", want, strings.Join(rep.Lines, "\n"))
		}
	}
	// Imported again into the graph the first import made: the same records, nothing created.
	again, rep2 := importInto(t, append(g[:0:0], sub.Entities...), read(t, "testdata/parlparse-sample.json"))
	sortSub(sub)
	sortSub(again)
	if diff := cmp.Diff(sub, again); diff != "" || rep2.Created != 0 {
		t.Errorf("a second import created %d entities; records (-first +second):\n%s", rep2.Created, diff)
	}
}

func sortSub(s graph.Subgraph) {
	slices.SortFunc(s.Entities, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
	slices.SortFunc(s.Relations, func(a, b graph.Relation) int { return strings.Compare(string(a.Name), string(b.Name)) })
}

// Popolo → polgraph → Popolo keeps every field polgraph models.
func TestRoundTrip(t *testing.T) {
	in := read(t, filepath.Join("..", "..", "data", "popolo", "scotland-parliament.json"))
	sub, _ := importInto(t, nil, in)
	var buf bytes.Buffer
	if err := popolo.Write(&buf, sub); err != nil {
		t.Fatal(err)
	}
	back, err := popolo.Decode(&buf, "out.json")
	if err != nil {
		t.Fatal(err)
	}
	type person struct {
		Name, Birth, Death, Gender string
		IDs, Links, Images, Names  []string
	}
	persons := func(f *popolo.File) map[string]person {
		out := map[string]person{}
		for _, p := range f.Persons {
			x := person{Name: p.Name, Birth: p.BirthDate, Death: p.DeathDate, Gender: p.Gender}
			for _, id := range p.Identifiers {
				x.IDs = append(x.IDs, id.Scheme+":"+id.Identifier)
			}
			for _, l := range p.Links {
				x.Links = append(x.Links, l.URL+" "+l.Note)
			}
			for _, l := range p.Images {
				x.Images = append(x.Images, l.URL)
			}
			for _, o := range p.OtherNames {
				if o.Name != p.Name {
					x.Names = append(x.Names, o.Name)
				}
			}
			for _, s := range [][]string{x.IDs, x.Links, x.Images, x.Names} {
				slices.Sort(s)
			}
			x.Names = slices.Compact(x.Names)
			x.Links = x.Links[:min(len(x.Links), graph.MaxLinks)]
			out[p.ID] = x
		}
		return out
	}
	if diff := cmp.Diff(persons(in.File), persons(back)); diff != "" {
		t.Errorf("persons (-in +out):\n%s", diff)
	}
	memberships := func(f *popolo.File) []string {
		var out []string
		for _, m := range f.Memberships {
			party := m.OnBehalfOfID
			if party == "none" || party == "independent" {
				party = "" // no party: polgraph records none
			}
			out = append(out, fmt.Sprintf("%s %s %s %s %s %s", m.PersonID, m.AreaID, party, m.LegislativePeriodID, m.StartDate, m.EndDate))
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff(memberships(in.File), memberships(back)); diff != "" {
		t.Errorf("memberships (-in +out):\n%s", diff)
	}
}

// mySociety's parlparse writes people.json (names in parts, peers' titles, posts for seats) and
// ministers.json (government posts of the people of people.json), imported together.
func TestParlparsePeopleAndMinisters(t *testing.T) {
	sub, rep := importInto(t, nil, read(t, "testdata/parlparse-people.json"), read(t, "testdata/parlparse-ministers.json"))
	es, rs := byName(sub)
	for n, display := range map[graph.EntityName]string{"actors/diane-abbott": "Diane Abbott", "actors/jon-jones-davies": "Jon Jones-Davies",
		"actors/baroness-amos-of-brondesbury": "Baroness Amos of Brondesbury", "seats/hackney-north-and-stoke-newington": "Hackney North and Stoke Newington",
		"organisations/privy-council-office": "Privy Council Office", "parties/crossbench": "Crossbench"} {
		if es[n].DisplayName != display {
			t.Errorf("%s: %q, want %q", n, es[n].DisplayName, display)
		}
	}
	if got := es["actors/jon-jones-davies"].Aliases; !slices.Equal(got, []string{"Jon Jones"}) {
		t.Errorf("an earlier name is an alias: %v", got)
	}
	for name, want := range map[graph.RelationName]string{
		"relations/diane-abbott.holds-office.hackney-north-and-stoke-newington.1987-06-11":                     "Member of Parliament via parties/labour to 1992-03-16",
		"relations/diane-abbott.holds-office.hackney-north-and-stoke-newington.1992-04-09":                     "Member of Parliament via parties/labour to ",
		"relations/baroness-amos-of-brondesbury.member-of.house-of-lords.1997-10-16":                           "Member of the House of Lords via parties/crossbench to ",
		"relations/baroness-amos-of-brondesbury.member-of.privy-council-office.2003-10-06":                     "Lord President of the Council via  to 2007-06-27",
		"relations/baroness-amos-of-brondesbury.member-of.department-for-international-development.2003-05-12": "Secretary of State via  to 2003-10-06",
	} {
		r, ok := rs[name]
		if got := r.Role + " via " + string(r.Via) + " to " + r.ValidTo.String(); !ok || got != want {
			t.Errorf("%s: %v %q, want %q", name, ok, got, want)
		}
	}
	if !slices.ContainsFunc(rep.Lines, func(l string) bool {
		return strings.Contains(l, "parlparse-ministers.json: memberships[2]: skipped: person \"uk.org.publicwhip/person/99999\"")
	}) {
		t.Errorf("the report does not name the minister nobody knows:\n%s", strings.Join(rep.Lines, "\n"))
	}
}

// TestNamesThatHideACharacterAreLeftOut: an other name holding a character that cannot be seen is left
// out and reported, as polgraph refuses it; the rest of the record is imported.
func TestNamesThatHideACharacterAreLeftOut(t *testing.T) {
	doc, err := popolo.Decode(strings.NewReader(`{"persons":[{"id":"p1","name":"Keir Starmer","other_names":[{"name":"Keir\u200b Starmer"},{"name":"Sir Keir"}]}]}`), "hidden.json")
	if err != nil {
		t.Fatal(err)
	}
	sub, rep := importInto(t, nil, popolo.Input{Name: "hidden.json", File: doc})
	if len(sub.Entities) != 1 || !slices.Equal(sub.Entities[0].Aliases, []string{"Sir Keir"}) {
		t.Errorf("entities %+v", sub.Entities)
	}
	if !slices.Contains(rep.Lines, "hidden.json: persons[0].other_names[0]: left out: longer than 500 bytes or holding a control or invisible character") {
		t.Errorf("the report:\n%s", strings.Join(rep.Lines, "\n"))
	}
}
