package ocd_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/ocd"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// The integration tests share one Dgraph, started by the first test that needs it and stopped by TestMain;
// each test drops everything first, so they do not run in parallel.
var (
	dgraphOnce sync.Once
	testDgraph dgraphlocal.TestDgraph
	dgraphErr  error
	stopDgraph = func() {}
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	stopDgraph()
	os.Exit(code)
}

// emptyStore returns a store on the test Dgraph with nothing in it but the schema. It skips under -short.
func emptyStore(t *testing.T) *dgraph.Store {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Dgraph; skipped under -short")
	}
	dgraphOnce.Do(func() {
		testDgraph, stopDgraph, dgraphErr = dgraphlocal.ForTests(context.Background())
		if stopDgraph == nil {
			stopDgraph = func() {}
		}
	})
	if dgraphErr != nil {
		t.Fatal(dgraphErr)
	}
	ctx := context.Background()
	if err := testDgraph.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	store, err := dgraph.Open(ctx, testDgraph.Service, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	return store
}

// sharedList reads the Open Civic Data list of UK constituencies from ../shared/data beside the project,
// or skips the test when it is not there.
func sharedList(t *testing.T) *ocd.List {
	t.Helper()
	path := graphtest.SharedPath(t, "data", ocd.StandardFile)
	if path == "" {
		t.Skipf("../shared/data/%s is absent beside the project (CI has it)", ocd.StandardFile)
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s is absent: the Open Civic Data list lives in ../shared/data beside the project (CI has it)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ocd.Read(dataset.File{Name: path, R: f})
	if err != nil {
		t.Fatalf("the shared list is invalid: %v", err)
	}
	return l
}

// importList does what `polgraph import ocd-divisions` does and returns the graph's counts after it.
func importList(t *testing.T, store *dgraph.Store, l *ocd.List) graph.GraphCounts {
	t.Helper()
	ctx := context.Background()
	known, err := l.Lookup(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := l.Dataset(known)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.Load(ctx, store, ds, 400, nil); err != nil {
		t.Fatal(err)
	}
	c, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestImportSharedListTwice(t *testing.T) {
	l := sharedList(t)
	store := emptyStore(t)
	ctx := context.Background()
	successions := 0
	for _, d := range l.Divisions {
		if d.SameAs != "" {
			successions++
		}
	}
	want := graph.GraphCounts{Entities: len(l.Divisions), Relations: successions, Claims: successions, Sources: 1}
	first := importList(t, store, l)
	if first != want {
		t.Errorf("after one import the graph holds %+v, want %+v", first, want)
	}
	if second := importList(t, store, l); second != first {
		t.Errorf("importing twice changed the counts: %+v, then %+v", first, second)
	}

	bow, err := store.GetEntity(ctx, "seats/bethnal-green-and-bow")
	if err != nil {
		t.Fatal(err)
	}
	if bow.Kind != graph.KindSeat || bow.DisplayName != "Bethnal Green and Bow" || bow.ValidTo.String() != "2024-07-03" ||
		bow.Identifiers.First("ocd") != "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_bow" {
		t.Errorf("Bethnal Green and Bow is %+v; want a seat with valid_to 2024-07-03 and its OCD id", bow)
	}
	stepney, err := store.GetEntity(ctx, "seats/bethnal-green-and-stepney")
	if err != nil || stepney.ValidFrom.String() != "2024-07-04" {
		t.Errorf("Bethnal Green and Stepney is %+v (%v); want valid_from 2024-07-04", stepney, err)
	}
	if _, err := store.GetEntity(ctx, "seats/ynys-mon"); err != nil {
		t.Errorf("Ynys Môn: %v", err)
	}

	name := graph.RelationName("relations/luton-south.succeeded-by.luton-south-and-south-bedfordshire")
	rels, err := store.GetRelations(ctx, []graph.RelationName{name})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rels[name]
	if !ok {
		t.Fatalf("Luton South's sameAs did not become %s", name)
	}
	if r.Type != graph.SucceededBy || r.From != "seats/luton-south" || r.To != "seats/luton-south-and-south-bedfordshire" || r.Date.String() != "2024-07-04" {
		t.Errorf("relation %+v; want Luton South SUCCEEDED_BY Luton South and South Bedfordshire on 2024-07-04", r)
	}
	if len(r.Claims) != 1 {
		t.Fatalf("relation has %d claims, want 1", len(r.Claims))
	}
	c := r.Claims[0]
	if c.Source.Name != ocd.StandardSource.Name || c.Status != graph.StatusReported || c.Confidence != 1 ||
		c.Excerpt != "2024-07-04: The boundaries of Luton South will change, and it will be renamed Luton South and South Bedfordshire." {
		t.Errorf("claim %+v; want the row's note, REPORTED with confidence 1, from %s", c, ocd.StandardSource.Name)
	}
}

// TestImportMergesWithDefaultDataset loads the default dataset, then imports the shared list: every seat
// the dataset identifies keeps its name and curated fields, and no OCD id ends up held by two entities.
func TestImportMergesWithDefaultDataset(t *testing.T) {
	l := sharedList(t)
	store := emptyStore(t)
	ctx := context.Background()
	def, err := dataset.Read([]dataset.File{data.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.Load(ctx, store, def, 400, nil); err != nil {
		t.Fatal(err)
	}
	before, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	identified := map[string]bool{}
	for _, e := range def.Entities {
		if id := e.Identifiers.First("ocd"); id != "" {
			identified[id] = true
		}
	}
	after := importList(t, store, l)
	if want := before.Entities + len(l.Divisions) - len(identified); after.Entities != want {
		t.Errorf("after the import the graph holds %d entities, want %d (%d + %d divisions - %d seats the dataset has)",
			after.Entities, want, before.Entities, len(l.Divisions), len(identified))
	}
	if after.Sources != before.Sources {
		t.Errorf("the import added %d sources; the standard list should reuse %s", after.Sources-before.Sources, ocd.StandardSource.Name)
	}
	if again := importList(t, store, l); again != after {
		t.Errorf("importing twice changed the counts: %+v, then %+v", after, again)
	}

	holders, err := store.EntitiesByOCD(ctx, l.IDs())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range l.IDs() {
		if n := len(holders[id]); n != 1 {
			var names []string
			for _, e := range holders[id] {
				names = append(names, string(e.Name))
			}
			t.Errorf("%s is held by %d entities %v, want 1", id, n, names)
		}
	}

	stepney, err := store.GetEntity(ctx, "seats/bethnal-green-and-stepney")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(stepney.Aliases), "Bethnal Green Stepney") || !strings.Contains(stepney.Description, "Tower Hamlets") {
		t.Errorf("the import lost the dataset's alias or description of Bethnal Green and Stepney: %+v", stepney)
	}
	name := graph.RelationName("relations/bethnal-green-and-bow.succeeded-by.bethnal-green-and-stepney")
	rels, err := store.GetRelations(ctx, []graph.RelationName{name})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rels[name]; !ok {
		t.Errorf("%s from the default dataset is missing after the import", name)
	}
}

// TestImportReusesNamesByOCD checks the merge on seats the graph holds under other names than the
// import would give them, and on a ward that has the name a new seat would take.
func TestImportReusesNamesByOCD(t *testing.T) {
	store := emptyStore(t)
	ctx := context.Background()
	const (
		bow = "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_bow"
		stp = "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney"
	)
	existing := []graph.Entity{
		{Name: "seats/bg-and-stepney", Kind: graph.KindSeat, DisplayName: "Bethnal Green & Stepney", Identifiers: graph.Identifiers{"ocd": {stp}}},
		{Name: "seats/weavers", Kind: graph.KindSeat, DisplayName: "Weavers", Description: "Ward of Tower Hamlets."},
	}
	if err := store.UpsertEntities(ctx, existing); err != nil {
		t.Fatal(err)
	}
	text := "id,name,sameAs,sameAsNote,validThrough,validFrom\n" +
		bow + ",Bethnal Green and Bow," + stp + ",,2024-07-03,\n" +
		stp + ",Bethnal Green and Stepney,,,,2024-07-04\n" +
		"ocd-division/country:gb/part:eng/region:uki/ed:weavers,Weavers,,,,\n"
	l, err := ocd.Read(dataset.File{Name: "tower-hamlets.csv", R: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	first := importList(t, store, l)
	if want := (graph.GraphCounts{Entities: 4, Relations: 1, Claims: 1, Sources: 1}); first != want {
		t.Errorf("counts %+v, want %+v", first, want)
	}
	if second := importList(t, store, l); second != first {
		t.Errorf("importing twice changed the counts: %+v, then %+v", first, second)
	}
	got, err := store.GetEntities(ctx, []graph.EntityName{"seats/bg-and-stepney", "seats/bethnal-green-and-stepney",
		"seats/bethnal-green-and-bow", "seats/weavers", "seats/weavers-uki"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["seats/bethnal-green-and-stepney"]; ok {
		t.Error("the import created seats/bethnal-green-and-stepney beside seats/bg-and-stepney, which holds its OCD id")
	}
	if e := got["seats/bg-and-stepney"]; e.ValidFrom.String() != "2024-07-04" || e.DisplayName != "Bethnal Green & Stepney" {
		t.Errorf("seats/bg-and-stepney is %+v; want its display name kept and valid_from 2024-07-04", e)
	}
	if e := got["seats/weavers"]; e.Identifiers.First("ocd") != "" {
		t.Errorf("the ward seats/weavers took the constituency's OCD id: %+v", e)
	}
	if _, ok := got["seats/weavers-uki"]; !ok {
		t.Error("the constituency Weavers is not seats/weavers-uki")
	}
	name := graph.RelationName("relations/bethnal-green-and-bow.succeeded-by.bg-and-stepney")
	if rels, err := store.GetRelations(ctx, []graph.RelationName{name}); err != nil || len(rels) != 1 {
		t.Errorf("GetRelations(%s) = %v, %v; want the relation", name, rels, err)
	}
}
