package popolo_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/popolo"
	"github.com/polgraph/polgraph/graph/resolve"
	"github.com/polgraph/polgraph/graph/service"
)

// defaultGraph is a store holding the default dataset.
func defaultGraph(t *testing.T) *memstore.Store {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "data", "tower-hamlets", "tower-hamlets.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Read([]dataset.File{{Name: "tower-hamlets.jsonl", R: f}})
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	if err := dataset.Load(t.Context(), store, ds, 500, nil); err != nil {
		t.Fatal(err)
	}
	return store
}

// importAs imports Popolo files into store as `polgraph import popolo` does, each read from path and
// named name, and returns the report.
func importAs(t *testing.T, store *memstore.Store, files map[string]string) *popolo.Report {
	t.Helper()
	ctx := t.Context()
	var inputs []popolo.Input
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		b, err := os.ReadFile(files[name])
		if err != nil {
			t.Fatal(err)
		}
		doc, err := popolo.Decode(bytes.NewReader(b), name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, popolo.Input{Name: name, File: doc})
	}
	sub, rep, err := popolo.Import(ctx, store, inputs, popolo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := dataset.Check("import", sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.Load(ctx, store, ds, 500, nil); err != nil {
		t.Fatal(err)
	}
	return rep
}

func sample(name string) string { return filepath.Join("..", "..", "data", "popolo", name) }

// partiesKeyed returns the live parties whose name, in some form, is key (resolve.OrgKey).
func partiesKeyed(t *testing.T, store *memstore.Store, key string) []graph.EntityName {
	t.Helper()
	var out []graph.EntityName
	names, err := store.EntityNames(context.Background(), "", 100000)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := store.GetEntities(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		e := ents[n]
		if e.Kind == graph.KindParty && slices.ContainsFunc(append([]string{e.DisplayName}, e.Aliases...), func(s string) bool { return resolve.OrgKey(s) == key }) {
			out = append(out, n)
		}
	}
	return out
}

// TestImportsMergeOneGraph imports the Scottish and Welsh files onto the default graph: one party of each
// name, branches apart from their parties and PART_OF them, every skipped record reported, and the same
// files imported again under other names create nothing.
func TestImportsMergeOneGraph(t *testing.T) {
	ctx := t.Context()
	store := defaultGraph(t)
	rep := importAs(t, store, map[string]string{"scotland.json": sample("scotland-parliament.json"), "wales.json": sample("wales-assembly.json")})
	report := strings.Join(rep.Lines, "\n")
	for _, key := range []string{"conservative", "labour", "liberal democrat"} {
		if got := partiesKeyed(t, store, key); len(got) != 1 {
			t.Errorf("parties called %q: %v, want one", key, got)
		}
	}
	for _, want := range []string{
		`"Independent" stands for no party`,
		`"None" stands for no party`,
		`"Labour" is Scottish Labour Party, a branch of parties/labour`,
		`"Welsh Labour" is Welsh Labour, a branch of parties/labour`,
		`"Conservative" is Scottish Conservative Party, a branch of parties/conservatives`,
		`"Welsh Conservative Party" is Welsh Conservative Party, a branch of parties/conservatives`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report does not say %s:\n%s", want, report)
		}
	}
	// The graph's own Scottish Labour takes the file's; the others are organisations of their own.
	for _, c := range []struct{ branch, party graph.EntityName }{
		{"parties/scottish-labour", "parties/labour"},
		{"organisations/welsh-labour", "parties/labour"},
		{"organisations/scottish-conservative-party", "parties/conservatives"},
		{"organisations/welsh-liberal-democrats", "parties/liberal-democrats"},
	} {
		rels, err := store.GetRelations(ctx, []graph.RelationName{graph.RelationNameFor(c.branch, graph.PartOf, c.party, "")})
		if err != nil {
			t.Fatal(err)
		}
		if len(rels) != 1 {
			t.Errorf("%s is not PART_OF %s", c.branch, c.party)
		}
	}
	labour, err := store.GetEntity(ctx, "parties/labour")
	if err != nil {
		t.Fatal(err)
	}
	if len(labour.Aliases) > 4 {
		t.Errorf("Labour took the branches' names: %q", labour.Aliases)
	}

	// The same files under other names: nothing new.
	before, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again := importAs(t, store, map[string]string{"scottish-parliament-copy.json": sample("scotland-parliament.json"), "senedd.json": sample("wales-assembly.json")})
	after, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Created != 0 || after.Entities != before.Entities {
		t.Errorf("importing the files again under other names created %d entities (%d → %d):\n%s", again.Created, before.Entities, after.Entities,
			strings.Join(again.Lines, "\n"))
	}
}

// TestPopoloExportImportsBackAsItself: polgraph's own Popolo export, imported back, creates nothing.
func TestPopoloExportImportsBackAsItself(t *testing.T) {
	ctx := t.Context()
	store := defaultGraph(t)
	importAs(t, store, map[string]string{"wales.json": sample("wales-assembly.json")})
	names, err := store.EntityNames(ctx, "", 100000)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := store.GetEntities(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var sub graph.Subgraph
	for _, n := range names {
		sub.Entities = append(sub.Entities, ents[n])
	}
	links, err := store.Links(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var rels []graph.RelationName
	for _, ls := range links {
		for _, l := range ls {
			if !slices.Contains(rels, l.Name) {
				rels = append(rels, l.Name)
			}
		}
	}
	got, err := store.GetRelations(ctx, rels)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		sub.Relations = append(sub.Relations, r)
	}
	var out bytes.Buffer
	if err := popolo.Write(&out, sub); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := importAs(t, store, map[string]string{"export.json": path})
	if rep.Created != 0 {
		var created []string
		for _, l := range rep.Lines {
			if !strings.Contains(l, "merged with") {
				created = append(created, l)
			}
		}
		t.Errorf("importing the graph's own export created %d entities:\n%s", rep.Created, strings.Join(created, "\n"))
	}
}

// TestGivenNameFormsMergeOnlyWithASecondReason: "Ken Clarke" merges with Kenneth Clarke born the same
// year, and is only reported beside one of unknown birth.
func TestGivenNameFormsMergeOnlyWithASecondReason(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	if err := store.UpsertEntities(ctx, []graph.Entity{
		{Name: "actors/kenneth-clarke", Kind: graph.KindActor, DisplayName: "Kenneth Clarke", Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1940}}},
		{Name: "actors/nicholas-brown", Kind: graph.KindActor, DisplayName: "Nicholas Brown"},
	}); err != nil {
		t.Fatal(err)
	}
	doc := `{"persons": [
	  {"id": "p1", "name": "Ken Clarke", "birth_date": "1940-07-02"},
	  {"id": "p2", "name": "Nick Brown", "birth_date": "1950-06-13"}
	]}`
	path := filepath.Join(t.TempDir(), "people.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := importAs(t, store, map[string]string{"people.json": path})
	report := strings.Join(rep.Lines, "\n")
	if !strings.Contains(report, "persons[0]: merged with actors/kenneth-clarke (Kenneth Clarke) by a near form of its name") {
		t.Errorf("Ken Clarke was not merged with Kenneth Clarke:\n%s", report)
	}
	if !strings.Contains(report, "persons[1]: not merged with actors/nicholas-brown (Nicholas Brown), which it may be: propose") || rep.NearDuplicates != 1 {
		t.Errorf("Nick Brown was not reported beside Nicholas Brown (%d near-duplicates):\n%s", rep.NearDuplicates, report)
	}
	if rep.Created != 1 || rep.Merged != 1 {
		t.Errorf("created %d, merged %d; want 1 and 1", rep.Created, rep.Merged)
	}
}

// TestSittingForAPartyIsMembership: a membership on behalf of a party also makes the person its member
// then, so the party's neighbourhood holds its members; and the seats' and terms' PART_OF links carry
// dates, so that two members meet through their seats as of a day they both sat.
func TestSittingForAPartyIsMembership(t *testing.T) {
	ctx := t.Context()
	store := defaultGraph(t)
	importAs(t, store, map[string]string{"wales.json": sample("wales-assembly.json")})
	svc := &service.Service{Store: store}
	n, err := svc.ExploreNeighborhood(ctx, graph.NeighborhoodQuery{Center: "Plaid Cymru", Depth: 1, MaxPerNode: 100, MaxNodes: 100, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	var members []graph.EntityName
	for _, node := range n.Nodes {
		if node.Entity.Kind == graph.KindActor {
			members = append(members, node.Entity.Name)
		}
	}
	if !slices.Contains(members, "actors/leanne-wood") || len(members) < 10 {
		t.Errorf("Plaid Cymru's neighbours: %d people (%v), want its members, Leanne Wood among them", len(members), members)
	}
	rels, err := store.GetRelations(ctx, []graph.RelationName{graph.RelationNameFor("actors/leanne-wood", graph.MemberOf, "parties/plaid-cymru", "national-assembly-for-wales-term-4")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		if r.ValidFrom.IsZero() {
			t.Errorf("%s has no start", r.Name)
		}
	}
	if len(rels) != 1 {
		t.Errorf("Leanne Wood's membership of Plaid Cymru: %d relations, want 1", len(rels))
	}
	q := graph.PathQuery{From: "actors/leanne-wood", To: "actors/rhun-ap-iorwerth", MaxDepth: 4, MaxPaths: 5,
		Filter: graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2014}, IncludeTypes: []graph.RelationType{graph.HoldsOffice, graph.PartOf}}}
	ans, err := svc.FindPaths(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Paths) == 0 {
		t.Errorf("no path as of 2014 through seats between two members of the Assembly")
	}
	for _, p := range ans.Paths {
		if !slices.Contains(p.Entities, "organisations/national-assembly-for-wales") {
			t.Errorf("a path as of 2014 that does not pass the Assembly: %v", p.Entities)
		}
	}
}

// TestPopoloExportFilesMembershipsUnderTheirBody: a seat part of two bodies (a constituency part of the
// House of Commons and, merged with a ward, of a council) has each membership filed under the body of its
// term, and every membership has an id.
func TestPopoloExportFilesMembershipsUnderTheirBody(t *testing.T) {
	e := func(n graph.EntityName, k graph.Kind, display string) graph.Entity {
		return graph.Entity{Name: n, Kind: k, DisplayName: display}
	}
	rel := func(from graph.EntityName, typ graph.RelationType, to graph.EntityName, term graph.EntityName, from0 int) graph.Relation {
		r := graph.Relation{Type: typ, From: from, To: to, Term: term, ValidFrom: graph.FuzzyDate{Year: from0}}
		r.Name = graph.RelationNameFor(from, typ, to, string(term))
		return r
	}
	sub := graph.Subgraph{
		Entities: []graph.Entity{
			e("actors/jim-fitzpatrick", graph.KindActor, "Jim Fitzpatrick"),
			e("seats/poplar-and-limehouse", graph.KindSeat, "Poplar and Limehouse"),
			e("organisations/house-of-commons", graph.KindOrganisation, "House of Commons"),
			e("organisations/tower-hamlets-council", graph.KindOrganisation, "Tower Hamlets Council"),
			e("organisations/commons-term-55", graph.KindOrganisation, "House of Commons, 55th Parliament"),
		},
		Relations: []graph.Relation{
			rel("seats/poplar-and-limehouse", graph.PartOf, "organisations/tower-hamlets-council", "", 2014),
			rel("seats/poplar-and-limehouse", graph.PartOf, "organisations/house-of-commons", "", 2010),
			rel("organisations/commons-term-55", graph.PartOf, "organisations/house-of-commons", "", 2010),
			rel("actors/jim-fitzpatrick", graph.HoldsOffice, "seats/poplar-and-limehouse", "organisations/commons-term-55", 2010),
			rel("actors/jim-fitzpatrick", graph.HoldsOffice, "seats/poplar-and-limehouse", "", 2011),
		},
	}
	var out bytes.Buffer
	if err := popolo.Write(&out, sub); err != nil {
		t.Fatal(err)
	}
	doc, err := popolo.Decode(&out, "export.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Memberships) != 2 {
		t.Fatalf("%d memberships, want 2", len(doc.Memberships))
	}
	for _, m := range doc.Memberships {
		if m.OrganizationID != "organisations/house-of-commons" || m.ID == "" {
			t.Errorf("membership %q of %s from %s filed under %q, want an id and organisations/house-of-commons", m.ID, m.AreaID, m.StartDate, m.OrganizationID)
		}
	}
}
