package dgraph_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/graphtest"
)

var (
	store *dgraph.Store
	// dgraphCfg is how the tests log in: as polgraph's own Dgraph user.
	dgraphCfg dgraph.Config
	// testDgraph is the Dgraph the tests run on.
	testDgraph dgraphlocal.TestDgraph
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping tests that need Dgraph under -short")
		return 0
	}
	ctx := context.Background()
	d, stop, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	dgraphCfg, testDgraph = d.Service, d
	if err := d.Reset(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	store, err = dgraph.Open(ctx, d.Service, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := store.ApplySchema(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func load(t *testing.T, ents []graph.Entity, rels []graph.Relation) {
	t.Helper()
	ctx := context.Background()
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
}

// sorted orders each entity's links by name, for comparison.
func sorted(m map[graph.EntityName][]graph.Link) map[graph.EntityName][]graph.Link {
	for _, ls := range m {
		slices.SortFunc(ls, func(a, b graph.Link) int { return strings.Compare(string(a.Name), string(b.Name)) })
	}
	return m
}

// TestTopologyFollowsWrites checks that the in-memory topology gives the same links as Dgraph, before
// and after further writes, including a claim that changes a relation's support.
func TestTopologyFollowsWrites(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7001, 30, 80)
	load(t, ents, rels)
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	compare := func(when string) {
		t.Helper()
		want, err := store.Links(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		got, err := topo.Links(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sorted(want), sorted(got)) {
			t.Errorf("%s: the topology differs from Dgraph", when)
		}
	}
	compare("after the first load")

	more, moreRels := graphtest.RandomGraph(7002, 10, 20)
	load(t, more, moreRels)
	changed := rels[0]
	changed.Claims = []graph.Claim{{Name: changed.Claims[0].Name, Source: graph.Source{Name: "sources/random"}, Excerpt: "now denied",
		Confidence: 0.99, Status: graph.StatusDenied}}
	load(t, nil, []graph.Relation{changed})
	for _, e := range more {
		names = append(names, e.Name)
	}
	compare("after more writes") // Links syncs by itself
	got, _ := topo.Links(ctx, []graph.EntityName{changed.From})
	for _, l := range got[changed.From] {
		if l.Name == changed.Name && l.Support[graph.StatusDenied.Index()] != 0.99 {
			t.Errorf("the changed claim did not reach the topology: %v", l.Support)
		}
	}
}

// TestTopologyFollowsLifetimeChanges: an entity's lifetime bounds its relations, which the topology holds
// with them; a write that changes only the entity must reach the topology too, and one that changes
// nothing must not raise the graph's version.
func TestTopologyFollowsLifetimeChanges(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7050, 6, 12)
	for i := range ents {
		ents[i].ValidFrom, ents[i].ValidTo = graph.FuzzyDate{}, graph.FuzzyDate{}
	}
	load(t, ents, rels)
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	target := rels[0].From
	lifeOf := func() []graph.Period {
		t.Helper()
		got, err := topo.Links(ctx, []graph.EntityName{target})
		if err != nil {
			t.Fatal(err)
		}
		var out []graph.Period
		for _, l := range got[target] {
			out = append(out, l.Life)
		}
		return out
	}
	for _, p := range lifeOf() {
		if p != graph.OpenPeriod {
			t.Fatalf("before: a link's ends' lifetime is %v, want all of time", p)
		}
	}
	before, _ := store.Version(ctx)
	if err := store.UpsertEntities(ctx, ents); err != nil { // the same again: nothing changes
		t.Fatal(err)
	}
	if v, _ := store.Version(ctx); v != before {
		t.Errorf("rewriting entities unchanged raised the version from %d to %d", before, v)
	}
	abolished := ents[slices.IndexFunc(ents, func(e graph.Entity) bool { return e.Name == target })]
	abolished.ValidTo = graph.FuzzyDate{Year: 2004}
	if err := store.UpsertEntities(ctx, []graph.Entity{abolished}); err != nil {
		t.Fatal(err)
	}
	if v, _ := store.Version(ctx); v <= before {
		t.Errorf("a lifetime change left the version at %d", v)
	}
	lives := lifeOf()
	if len(lives) == 0 {
		t.Fatal("no links")
	}
	for _, p := range lives {
		if p.End != (graph.FuzzyDate{Year: 2004}).LastDay() {
			t.Errorf("after the entity ended in 2004, a link's ends' lifetime is %v", p)
		}
	}
}

// TestConcurrentWritesAllLand writes relations from several goroutines at once: Dgraph aborts some
// transactions, the store retries them, and in the end every relation is there once and the topology,
// following the version, has them all.
func TestConcurrentWritesAllLand(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7100, 40, 160)
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, before := topo.Size()
	retried := store.Retries()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w * 20; i < (w+1)*20; i += 5 {
				// Each writer also rewrites relations another writer owns, to force conflicts.
				batch := append(slices.Clone(rels[i:i+5]), rels[(i+20)%len(rels)])
				if err := store.UpsertRelations(ctx, batch); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent write failed: %v", err)
	}
	t.Logf("%d transactions were aborted and retried", store.Retries()-retried)
	if store.Retries() == retried {
		t.Errorf("no transaction was aborted: the writes did not run concurrently, so the test proves nothing")
	}
	version, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := before + 8*4; version != want {
		t.Errorf("version %d after 32 writes from %d; want %d (each write its own version)", version, before, want)
	}
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	got, err := topo.Links(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[graph.RelationName]int{}
	for _, ls := range got {
		for _, l := range ls {
			seen[l.Name]++
		}
	}
	for _, r := range rels {
		if seen[r.Name] != 2 {
			t.Errorf("%s appears %d times among its ends' links, want 2", r.Name, seen[r.Name])
		}
	}
}

// linksOf returns every link of the entities, each once, by name.
func linksOf(t *testing.T, src graph.LinkSource, ents []graph.Entity) map[graph.RelationName]graph.Link {
	t.Helper()
	names := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	got, err := src.Links(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	out := map[graph.RelationName]graph.Link{}
	for _, ls := range got {
		for _, l := range ls {
			out[l.Name] = l
		}
	}
	return out
}

// TestBulkLoadPublishesAtEnd writes a bulk load in parallel batches, with a plain write and a second bulk
// load during it: readers of the change feed see nothing of the load until it ends, then all of it, and
// the second load waits for the first.
func TestBulkLoadPublishesAtEnd(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7200, 40, 200)
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, before, v0 := topo.Size()
	b, err := store.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * 40; i < (w+1)*40; i += 10 {
				if err := b.UpsertRelations(ctx, rels[i:i+10]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a batch of the bulk load failed: %v", err)
	}
	if err := store.UpsertRelations(ctx, rels[160:170]); err != nil {
		t.Fatalf("a plain write during a bulk load: %v", err)
	}
	if v, err := store.Version(ctx); err != nil || v != v0 {
		t.Errorf("version %d (%v) during the bulk load; want %d, the last complete one", v, err, v0)
	}
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := topo.Size(); n != before {
		t.Errorf("the topology holds %d relations before the bulk load ended; want %d", n, before)
	}

	second := make(chan graph.Bulk, 1)
	go func() {
		b2, err := store.BeginBulk(ctx)
		if err != nil {
			t.Error(err)
		}
		second <- b2
	}()
	select {
	case <-second:
		t.Fatal("a second bulk load began while the first held its version")
	case <-time.After(time.Second):
	}
	if err := b.End(ctx); err != nil {
		t.Fatal(err)
	}
	var b2 graph.Bulk
	select {
	case b2 = <-second:
	case <-time.After(30 * time.Second):
		t.Fatal("the second bulk load did not begin after the first ended")
	}
	if err := b2.UpsertRelations(ctx, rels[170:]); err != nil {
		t.Fatal(err)
	}
	if err := b2.End(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := store.Version(ctx); err != nil || v != v0+2 {
		t.Errorf("version %d (%v) after two bulk loads; want %d", v, err, v0+2)
	}
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := topo.Size(); n != before+len(rels) {
		t.Errorf("the topology holds %d relations; want %d", n, before+len(rels))
	}
	want, got := linksOf(t, store, ents), linksOf(t, topo, ents)
	if len(want) != len(rels) || !reflect.DeepEqual(want, got) {
		t.Errorf("after the loads the topology has %d of the entities' links and Dgraph %d (want %d), or they differ", len(got), len(want), len(rels))
	}
}

// TestBulkLoadThatDies holds a version and stops renewing, as a load that died would: once the hold
// lapses, readers take the version as complete, plain writes raise it again, and a late batch of the dead
// load fails rather than be written where readers would miss it.
func TestBulkLoadThatDies(t *testing.T) {
	ctx := context.Background()
	const lease = 3 * time.Second
	dgraph.SetLeaseTime(store, lease)
	defer dgraph.SetLeaseTime(store, dgraph.DefaultLeaseTime)
	ents, rels := graphtest.RandomGraph(7300, 20, 60)
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, v0 := topo.Size()
	b, err := store.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.UpsertRelations(ctx, rels[:20]); err != nil {
		t.Fatal(err)
	}
	dgraph.Abandon(b)
	if v, _ := store.Version(ctx); v != v0 {
		t.Errorf("version %d while the dead load's hold lasts; want %d", v, v0)
	}
	time.Sleep(lease + lease/4)
	err = b.UpsertRelations(ctx, rels[20:30])
	if graph.KindOf(err) != graph.Unavailable || !strings.Contains(err.Error(), "lapsed") {
		t.Errorf("a batch after the hold lapsed: got %v, want an Unavailable error saying the hold lapsed", err)
	}
	if err := store.UpsertRelations(ctx, rels[30:]); err != nil {
		t.Fatal(err)
	}
	if v, _ := store.Version(ctx); v != v0+2 {
		t.Errorf("version %d after the lapse and a plain write; want %d", v, v0+2)
	}
	got := linksOf(t, topo, ents) // Links syncs
	for i, r := range rels {
		_, ok := got[r.Name]
		if wantIt := i < 20 || i >= 30; ok != wantIt {
			t.Errorf("relation %d (%s): in the topology %v, want %v", i, r.Name, ok, wantIt)
		}
	}
}

// TestReadsByUIDAgreeWithReadsByName reads entities, relations, headers and degrees with a fresh store
// (by name), after a topology fill taught it the entities' uids and a lookup the relations' (by uid), and
// for a mix of both; the answers agree, and names not asked for never appear.
func TestReadsByUIDAgreeWithReadsByName(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7400, 20, 50)
	load(t, ents, rels)
	entNames := make([]graph.EntityName, len(ents))
	for i, e := range ents {
		entNames[i] = e.Name
	}
	relNames := make([]graph.RelationName, len(rels))
	for i, r := range rels {
		relNames[i] = r.Name
	}
	type answers struct {
		Entities map[graph.EntityName]graph.Entity
		Rels     map[graph.RelationName]graph.Relation
		Headers  map[graph.RelationName]graph.RelationHeader
		Degrees  map[graph.EntityName]int
	}
	read := func(s *dgraph.Store, ents []graph.EntityName, rels []graph.RelationName) answers {
		t.Helper()
		var a answers
		var err error
		if a.Entities, err = s.GetEntities(ctx, ents); err != nil {
			t.Fatal(err)
		}
		if a.Rels, err = s.GetRelations(ctx, rels); err != nil {
			t.Fatal(err)
		}
		if a.Headers, err = s.RelationHeaders(ctx, rels); err != nil {
			t.Fatal(err)
		}
		if a.Degrees, err = s.Degrees(ctx, ents); err != nil {
			t.Fatal(err)
		}
		return a
	}
	fresh := func() *dgraph.Store {
		s, err := dgraph.Open(ctx, dgraphCfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	half := func(a answers, ents []graph.EntityName, rels []graph.RelationName) answers {
		out := answers{map[graph.EntityName]graph.Entity{}, map[graph.RelationName]graph.Relation{}, map[graph.RelationName]graph.RelationHeader{}, map[graph.EntityName]int{}}
		for _, n := range ents {
			out.Entities[n], out.Degrees[n] = a.Entities[n], a.Degrees[n]
		}
		for _, n := range rels {
			out.Rels[n], out.Headers[n] = a.Rels[n], a.Headers[n]
		}
		return out
	}
	byName := read(fresh(), entNames, relNames)
	if len(byName.Entities) != len(ents) || len(byName.Rels) != len(rels) || len(byName.Headers) != len(rels) {
		t.Fatalf("by name: %d entities, %d relations, %d headers; want %d, %d, %d", len(byName.Entities), len(byName.Rels), len(byName.Headers), len(ents), len(rels), len(rels))
	}
	taught := fresh()
	if err := memgraph.NewTopology(taught).Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := dgraph.Resolve(ctx, taught, strs(relNames)); err != nil {
		t.Fatal(err)
	}
	if got := read(taught, entNames, relNames); !reflect.DeepEqual(got, byName) {
		t.Errorf("reads by uid differ from reads by name")
	}
	// Half the names known by uid (relations taught by the lookup), half not (entities never linked).
	extra, _ := graphtest.RandomGraph(7401, 5, 0)
	if err := store.UpsertEntities(ctx, extra); err != nil {
		t.Fatal(err)
	}
	mixEnts := append(slices.Clone(entNames[:10]), extra[0].Name, extra[1].Name)
	got := read(taught, mixEnts, relNames[:25])
	want := half(byName, entNames[:10], relNames[:25])
	for _, e := range extra[:2] {
		want.Entities[e.Name], want.Degrees[e.Name] = e, 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a mixed read differs:\n got %+v\nwant %+v", got, want)
	}
}

// TestMemoryFollowsEntityWrites: searches and entity reads answered from the graph in memory see every
// write of entities at once, as Dgraph's own search does: a new entity (found with a typo), a rename
// (the old name no longer finds it), a deletion and a merge (the merged entity's name then finds the one
// it went into); and an entity written again unchanged does not raise the graph's version.
func TestMemoryFollowsEntityWrites(t *testing.T) {
	ctx := context.Background()
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: store, Reads: topo.Reads(store)}
	fromStore := &service.Service{Store: store}
	find := func(text string) []graph.EntityName {
		t.Helper()
		got, _, err := svc.Search(ctx, graph.SearchQuery{Text: text}, 50, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := fromStore.Search(ctx, graph.SearchQuery{Text: text}, 50, 0)
		if err != nil {
			t.Fatal(err)
		}
		var names, wantNames []graph.EntityName
		for _, r := range got {
			names = append(names, r.Entity.Name)
		}
		for _, r := range want {
			wantNames = append(wantNames, r.Entity.Name)
		}
		if !slices.Equal(names, wantNames) {
			t.Errorf("search %q: from memory %v, from Dgraph %v", text, names, wantNames)
		}
		return names
	}
	zeb := graph.Entity{Name: "actors/zebulon-quartermaine", Kind: graph.KindActor, DisplayName: "Zebulon Quartermaine"}
	if err := store.UpsertEntities(ctx, []graph.Entity{zeb}); err != nil {
		t.Fatal(err)
	}
	if got := find("Zebulon Quartermane"); !slices.Equal(got, []graph.EntityName{zeb.Name}) {
		t.Fatalf("a new entity, searched with a typo: %v", got)
	}
	ans, err := svc.ExploreNeighborhood(ctx, graph.NeighborhoodQuery{Center: "Zebulon Quartermaine"})
	if err != nil || ans.Center.Name != zeb.Name {
		t.Fatalf("a new entity resolved by name from memory: %v, %v", ans.Center.Name, err)
	}

	before, _ := store.Version(ctx)
	if err := store.UpsertEntities(ctx, []graph.Entity{zeb}); err != nil {
		t.Fatal(err)
	}
	if v, _ := store.Version(ctx); v != before {
		t.Errorf("writing an entity again unchanged raised the version from %d to %d", before, v)
	}

	renamed := zeb
	renamed.DisplayName = "Xanthippe Oyelaran"
	if err := store.UpsertEntities(ctx, []graph.Entity{renamed}); err != nil {
		t.Fatal(err)
	}
	if got := find("Zebulon Quartermaine"); len(got) != 0 {
		t.Errorf("the old name still finds the renamed entity: %v", got)
	}
	if got := find("Xanthipe Oyelaran"); !slices.Equal(got, []graph.EntityName{zeb.Name}) {
		t.Errorf("the new name, with a typo: %v", got)
	}

	other := graph.Entity{Name: "actors/x-oyelaran", Kind: graph.KindActor, DisplayName: "X. Oyelaran"}
	if err := store.UpsertEntities(ctx, []graph.Entity{other}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MergeEntity(ctx, other.Name, zeb.Name, "the same person"); err != nil {
		t.Fatal(err)
	}
	if got := find("X Oyelaran"); !slices.Equal(got, []graph.EntityName{zeb.Name}) {
		t.Errorf("after the merge, the merged entity's name finds %v, want only the entity it went into", got)
	}
	e, err := svc.Resolve(ctx, "name", string(other.Name))
	if err != nil || e.Name != zeb.Name {
		t.Errorf("the merged entity's resource name resolves to %v (%v), want %s", e.Name, err, zeb.Name)
	}

	if _, err := store.DeleteEntity(ctx, zeb.Name, "test"); err != nil {
		t.Fatal(err)
	}
	if got := find("Xanthippe Oyelaran"); len(got) != 0 {
		t.Errorf("a deleted entity is still found: %v", got)
	}
	if v, _ := store.Version(ctx); topo.Version() != v {
		t.Errorf("the searches were not answered from memory: it holds version %d, Dgraph %d", topo.Version(), v)
	}
}

// TestMemoryAnswersAsDgraphDoes compares neighbourhoods answered from the graph in memory (entities and
// relation headers read from the snapshot) with the same answered from Dgraph alone, after a load and
// after writes that change relations' headers: a claim added, one retracted, a relation deleted, a
// relation with a role, a via and dates, and a merge of two entities.
func TestMemoryAnswersAsDgraphDoes(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7300, 25, 70)
	load(t, ents, rels)
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	counted := &countingStore{Store: store}
	mem := &service.Service{Store: counted, Reads: topo.Reads(counted)}
	plain := &service.Service{Store: store}
	compare := func(when string) {
		t.Helper()
		counted.relations.Store(0)
		for i, e := range ents[:10] {
			// Paths, with their evidence, and a relation's page and timeline, whole.
			pq := graph.PathQuery{From: e.Name, To: ents[10+i].Name, MaxPaths: 3, MaxDepth: 4}
			wantPaths, err := plain.FindPaths(ctx, pq)
			if err == nil {
				gotPaths, err := mem.FindPaths(ctx, pq)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gotPaths, wantPaths) {
					t.Errorf("%s: the paths from %s to %s from memory differ from Dgraph's:\n%+v\n%+v", when, pq.From, pq.To, gotPaths, wantPaths)
				}
			} else if graph.KindOf(err) != graph.NotFound {
				t.Fatal(err)
			}
			lq := graph.RelationsQuery{Entity: string(e.Name), PageSize: 50}
			wantPage, err := plain.ListRelations(ctx, lq)
			if err == nil {
				gotPage, err := mem.ListRelations(ctx, lq)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gotPage, wantPage) {
					t.Errorf("%s: the relations of %s from memory differ from Dgraph's:\n%+v\n%+v", when, e.Name, gotPage, wantPage)
				}
				for _, r := range wantPage.Relations {
					got, _, err := mem.GetRelation(ctx, r.Name)
					if err != nil {
						t.Fatal(err)
					}
					want, _, err := plain.GetRelation(ctx, r.Name)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s: %s from memory differs from Dgraph's:\n%+v\n%+v", when, r.Name, got, want)
					}
				}
			} else if graph.KindOf(err) != graph.NotFound {
				t.Fatal(err)
			}
		}
		if n := counted.relations.Load(); n > 0 {
			t.Errorf("%s: answers read %d relations from Dgraph, want every one from memory", when, n)
		}
		for _, e := range ents[:10] {
			q := graph.NeighborhoodQuery{Center: string(e.Name), Depth: 2}
			want, err := plain.ExploreNeighborhood(ctx, q)
			if err != nil {
				if graph.KindOf(err) == graph.NotFound {
					continue // merged away
				}
				t.Fatal(err)
			}
			got, err := mem.ExploreNeighborhood(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the neighbourhood of %s from memory differs from Dgraph's:\n%+v\n%+v", when, e.Name, got, want)
			}
		}
		if v, _ := store.Version(ctx); topo.Version() != v {
			t.Errorf("%s: the answers were not read from memory: it holds version %d, Dgraph %d", when, topo.Version(), v)
		}
	}
	compare("after the load")

	more := rels[1]
	more.Claims = append(slices.Clone(more.Claims), graph.Claim{Name: graph.ClaimNameFor(more.Name, "sources/random", "more"),
		Source: graph.Source{Name: "sources/random"}, Excerpt: "another says so", Confidence: 0.4, Status: graph.StatusAlleged})
	rich := graph.Relation{Name: graph.RelationNameFor(ents[0].Name, graph.MemberOf, ents[1].Name, "rich"), Type: graph.MemberOf,
		From: ents[0].Name, To: ents[1].Name, Via: ents[2].Name, Role: "treasurer", ValidFrom: graph.FuzzyDate{Year: 2010}, ValidTo: graph.FuzzyDate{Year: 2014},
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(graph.RelationNameFor(ents[0].Name, graph.MemberOf, ents[1].Name, "rich"), "sources/random", "0"),
			Source: graph.Source{Name: "sources/random"}, Excerpt: "treasurer from 2010 to 2014", Confidence: 0.8, Status: graph.StatusConfirmed}}}
	load(t, nil, []graph.Relation{more, rich})
	if _, err := store.RetractClaim(ctx, rels[2].Claims[0].Name, "wrong"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeleteRelation(ctx, rels[3].Name, "a duplicate"); err != nil {
		t.Fatal(err)
	}
	compare("after claims, a retraction and a deletion")

	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random, retitled", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	compare("after a source changed")
	defer store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}})

	if _, err := store.MergeEntity(ctx, ents[9].Name, ents[8].Name, "the same"); err != nil {
		t.Fatal(err)
	}
	compare("after a merge")
}

// countingStore counts the relations read from Dgraph whole.
type countingStore struct {
	*dgraph.Store
	relations atomic.Int64
}

func (c *countingStore) GetRelations(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.Relation, error) {
	c.relations.Add(int64(len(names)))
	return c.Store.GetRelations(ctx, names)
}

// Text with quotes, backslashes, line breaks, other control characters and any Unicode must read back
// exactly as a write gave it to Dgraph.
func TestTextRoundTripsThroughWrites(t *testing.T) {
	ctx := context.Background()
	var all strings.Builder
	for c := rune(1); c < 0x20; c++ {
		all.WriteRune(c)
	}
	texts := []string{
		`a "quoted" word and a back\slash \n that is not a line break`,
		"lines\nand\r\ncarriage returns\tand tabs",
		all.String() + "\x7f",
		"Tower Hamlets — «Lutfur Rahman» 🗳 \u2028\u2029 \ufeffbom",
		`ends with a backslash \`,
	}
	var ents []graph.Entity
	for i, text := range texts {
		ents = append(ents, graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/round-trip-%d", i)), Kind: graph.KindActor,
			DisplayName: fmt.Sprintf("Round trip %d", i), Description: text, Aliases: []string{text}})
	}
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	for i, want := range ents {
		got, err := store.GetEntity(ctx, want.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Description != texts[i] || !slices.Equal(got.Aliases, []string{texts[i]}) {
			t.Errorf("%s: read back description %q and aliases %q, want %q", want.Name, got.Description, got.Aliases, texts[i])
		}
	}
}

// An entity whose pg.identifiers another program wrote as JSON the store cannot read is an Internal error
// when read, naming the entity, rather than an entity read without its identifiers; writing the entity
// again replaces them.
func TestEntityFieldsThatDoNotDecode(t *testing.T) {
	ctx := context.Background()
	const name = "actors/undecodable-identifiers"
	if err := dgraph.WriteNQuads(ctx, store, `_:e <pg.name> "`+name+`" .
_:e <pg.kind> "ACTOR" .
_:e <pg.display_name> "Undecodable" .
_:e <pg.identifiers> "{\"wikidata\": 7}" .
`); err != nil {
		t.Fatal(err)
	}
	_, err := store.GetEntity(ctx, name)
	if graph.KindOf(err) != graph.Internal || !strings.Contains(fmt.Sprint(err), name) || !strings.Contains(fmt.Sprint(err), "pg.identifiers") {
		t.Fatalf("reading it: %v; want an Internal error naming %s and pg.identifiers", err, name)
	}
	want := graph.Entity{Name: name, Kind: graph.KindActor, DisplayName: "Undecodable", Identifiers: graph.Identifiers{"wikidata": {"Q7"}}}
	if err := store.UpsertEntities(ctx, []graph.Entity{want}); err != nil {
		t.Fatalf("writing it again: %v", err)
	}
	got, err := store.GetEntity(ctx, name)
	if err != nil || !reflect.DeepEqual(got.Identifiers, want.Identifiers) {
		t.Errorf("read after writing it again: %+v, %v; want the identifiers written", got, err)
	}
}

// Who wrote is recorded once per write, on a change set; changes written before change sets, which hold
// it themselves, are still found by principal, resource and time, each with its principal, method and
// request id.
func TestTrailReadsChangeSetsAndOlderChanges(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Add(-time.Second)
	meta := graph.WriteMeta{Principal: "key trail-bot (keys/trail)", Aliases: []string{"trail-bot"}, Method: "UpsertEntities", RequestID: "trail-1"}
	ents := []graph.Entity{
		{Name: "actors/trail-a", Kind: graph.KindActor, DisplayName: "Trail A"},
		{Name: "actors/trail-b", Kind: graph.KindActor, DisplayName: "Trail B"},
	}
	if err := store.UpsertEntities(graph.WithWriteMeta(ctx, meta), ents); err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(`_:c <dgraph.type> "Change" .
_:c <pg.change_at> "%d"^^<xs:int> .
_:c <pg.change_principal> "key old-bot (keys/old)" .
_:c <pg.change_by> "key old-bot (keys/old)" .
_:c <pg.change_by> "old-bot" .
_:c <pg.change_method> "UpsertRelations" .
_:c <pg.change_request> "old-1" .
_:c <pg.change_resource> "actors/trail-a" .
_:c <pg.change_action> "UPDATE" .
_:c <pg.change_after> "{}" .
`, time.Now().UnixMilli())
	if err := dgraph.WriteNQuads(ctx, store, old); err != nil {
		t.Fatal(err)
	}
	type row struct{ resource, principal, method, request, action string }
	list := func(q graph.ChangeQuery) ([]row, int) {
		t.Helper()
		q.Limit = 10
		changes, total, err := store.ListChanges(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []row
		for _, c := range changes {
			out = append(out, row{c.Resource, c.Principal, c.Method, c.RequestID, c.Action})
		}
		slices.SortFunc(out, func(a, b row) int { return strings.Compare(a.resource+a.principal, b.resource+b.principal) })
		return out, total
	}
	newA := row{"actors/trail-a", meta.Principal, "UpsertEntities", "trail-1", graph.ActionCreate}
	newB := row{"actors/trail-b", meta.Principal, "UpsertEntities", "trail-1", graph.ActionCreate}
	oldA := row{"actors/trail-a", "key old-bot (keys/old)", "UpsertRelations", "old-1", "UPDATE"}
	tests := []struct {
		name string
		q    graph.ChangeQuery
		want []row
	}{
		{"by alias", graph.ChangeQuery{Principal: "trail-bot"}, []row{newA, newB}},
		{"by principal", graph.ChangeQuery{Principal: meta.Principal}, []row{newA, newB}},
		{"by principal and resource", graph.ChangeQuery{Principal: "trail-bot", Resource: "actors/trail-b"}, []row{newB}},
		{"an older change by alias", graph.ChangeQuery{Principal: "old-bot"}, []row{oldA}},
		{"by resource, both kinds", graph.ChangeQuery{Resource: "actors/trail-a"}, []row{oldA, newA}},
		{"by time", graph.ChangeQuery{Resource: "actors/trail-a", Until: start}, nil},
		{"by time, after", graph.ChangeQuery{Principal: "trail-bot", Since: time.Now().Add(time.Minute)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total := list(tt.q)
			if !reflect.DeepEqual(got, tt.want) || total != len(tt.want) {
				t.Errorf("got %v (total %d), want %v", got, total, tt.want)
			}
		})
	}
}

// A relation's claims read back ordered by name, whatever order they were written in (Dgraph gives them
// in the order of their nodes, here the order of the writes).
func TestClaimsReadBackByName(t *testing.T) {
	ctx := context.Background()
	ents := []graph.Entity{{Name: "actors/claims-order-a", Kind: graph.KindActor, DisplayName: "Claims Order A"},
		{Name: "parties/claims-order-b", Kind: graph.KindParty, DisplayName: "Claims Order B"}}
	rel := graph.Relation{Name: graph.RelationNameFor(ents[0].Name, graph.MemberOf, ents[1].Name, ""), Type: graph.MemberOf,
		From: ents[0].Name, To: ents[1].Name}
	load(t, ents, nil)
	var want []string
	for _, key := range []string{"c", "a", "d", "b"} {
		r := rel
		c := graph.Claim{Name: graph.ClaimNameFor(rel.Name, "sources/random", key), Source: graph.Source{Name: "sources/random"},
			Excerpt: "claim " + key, Confidence: 0.5, Status: graph.StatusReported}
		r.Claims = []graph.Claim{c}
		load(t, nil, []graph.Relation{r}) // one write per claim: their nodes come in this order
		want = append(want, c.Name)
	}
	slices.Sort(want)
	got, err := store.GetRelations(ctx, []graph.RelationName{rel.Name})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got[rel.Name].Claims {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("claims read back as %q, want %q", names, want)
	}
}

// The feed gives each relation whole (its header and its claims) and its link, read from the relation's
// pack where the pack can be used and from its predicates where it cannot: either way as the reads give
// them, in a fill and in a catch-up, after loads, deletions, merges and their undoing, retractions, a
// changed source and a changed lifetime. A load's relations all come from their packs.
func TestFeedGivesRelationsAsReadsGiveThem(t *testing.T) {
	ctx := context.Background()
	ents, rels := graphtest.RandomGraph(7450, 12, 30)
	term := graph.Entity{Name: "organisations/fill-term-2019", Kind: graph.KindOrganisation, DisplayName: "Term of 2019"}
	actor, party := graph.Entity{Name: "actors/fill-member", Kind: graph.KindActor, DisplayName: "Fill Member",
		Description: "a member \"filled\" from a pack", Aliases: []string{"F. Member", "Member, Fill"},
		Identifiers: graph.Identifiers{"wikidata": {"Q42"}}, Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1970, Month: 2}, Gender: "female"}},
		graph.Entity{Name: "parties/fill-party", Kind: graph.KindParty, DisplayName: "Fill Party", ValidFrom: graph.FuzzyDate{Year: 1990}, ValidTo: graph.FuzzyDate{Year: 2030}}
	ents = append(ents, term, actor, party)
	src := graph.Source{Name: "sources/fill-source", Title: "Before", Kind: graph.SourceArticle, Outlet: "The Fill", Published: graph.FuzzyDate{Year: 2019, Month: 5}}
	termedName := graph.RelationNameFor(actor.Name, graph.MemberOf, party.Name, "term")
	termed := graph.Relation{Name: termedName, Type: graph.MemberOf, From: actor.Name, To: party.Name, Term: term.Name, Via: ents[3].Name,
		Role: "whip", ValidFrom: graph.FuzzyDate{Year: 2019},
		Claims: []graph.Claim{
			{Name: graph.ClaimNameFor(termedName, src.Name, ""), Source: graph.Source{Name: src.Name}, Excerpt: "whip in the 2019 term",
				Confidence: 0.9, Status: graph.StatusConfirmed, SaidBy: ents[4].Name},
			{Name: graph.ClaimNameFor(termedName, "sources/random", "z"), Source: graph.Source{Name: "sources/random"}, Record: "record 7",
				Confidence: 0.5, Status: graph.StatusDenied},
		}}
	rels = append(rels, termed)
	if err := store.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	before, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	load(t, ents, rels)

	// check reads the feed from version since and compares what it gives with the reads; it returns how
	// many relations the feed gave, and the sources it gave.
	check := func(when string, since int64) (int, map[graph.SourceName]graph.Source) {
		t.Helper()
		headers := map[graph.RelationName]graph.RelationHeader{}
		links := map[graph.RelationName]graph.Link{}
		sources := map[graph.SourceName]graph.Source{}
		entities := map[graph.EntityName]graph.Entity{}
		if _, err := store.Changes(ctx, since, func(c graph.Changed) {
			if len(c.Links) > 0 && !c.Evidence {
				t.Errorf("%s: the feed gave relations without their evidence", when)
			}
			for i, l := range c.Links {
				links[l.Name], headers[l.Name] = l, c.Headers[i]
			}
			for _, s := range c.Sources {
				sources[s.Name] = s
			}
			for _, e := range c.Entities {
				entities[e.Name] = e
			}
		}); err != nil {
			t.Fatal(err)
		}
		wantEnts, err := store.GetEntities(ctx, slices.Collect(maps.Keys(entities)))
		if err != nil {
			t.Fatal(err)
		}
		for n, e := range entities {
			if !reflect.DeepEqual(e, wantEnts[n]) {
				t.Errorf("%s: the feed gives the entity\n%+v\nGetEntities reads\n%+v", when, e, wantEnts[n])
			}
		}
		names := slices.Collect(maps.Keys(headers))
		wantHeaders, err := store.RelationHeaders(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		wantRels, err := store.GetRelations(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		var ends []graph.EntityName
		for _, l := range links {
			ends = append(ends, l.From)
		}
		wantLinks, err := store.Links(ctx, ends)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			got := headers[n]
			claims := got.Relation.Claims
			got.Relation.Claims = nil
			if !reflect.DeepEqual(got, wantHeaders[n]) {
				t.Errorf("%s: %s: the feed gives the header\n%+v\nRelationHeaders reads\n%+v", when, n, got, wantHeaders[n])
			}
			want := wantRels[n].Claims
			for i := range want {
				if full, ok := sources[want[i].Source.Name]; ok && full != want[i].Source {
					t.Errorf("%s: %s: the feed gives source %+v, GetRelations %+v", when, n, full, want[i].Source)
				}
				want[i].Source = graph.Source{Name: want[i].Source.Name}
			}
			if !reflect.DeepEqual(claims, want) {
				t.Errorf("%s: %s: the feed gives the claims\n%+v\nGetRelations reads\n%+v", when, n, claims, want)
			}
			l := links[n]
			i := slices.IndexFunc(wantLinks[l.From], func(w graph.Link) bool { return w.Name == n })
			if i < 0 || !reflect.DeepEqual(l, wantLinks[l.From][i]) {
				t.Errorf("%s: %s: the feed gives the link\n%+v\nLinks reads %+v", when, n, l, wantLinks[l.From])
			}
		}
		return len(names), sources
	}

	used, missed := store.Packs()
	if n, sources := check("the load, caught up", before); n != len(rels) || len(sources) != 0 {
		t.Errorf("the load, caught up: the feed gave %d relations and %d sources, want %d and none", n, len(sources), len(rels))
	}
	if u, m := store.Packs(); u-used != int64(len(ents)+len(rels)) || m != missed {
		t.Errorf("the load, caught up: %d entities and relations read from their packs and %d from their predicates, want %d and none", u-used, m-missed, len(ents)+len(rels))
	}

	before, err = store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src.Title = "After"
	if err := store.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeleteRelation(ctx, rels[0].Name, "a duplicate"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RetractClaim(ctx, termed.Claims[1].Name, "mistaken"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MergeEntity(ctx, rels[1].From, rels[1].To, "the same"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MergeEntity(ctx, ents[4].Name, ents[5].Name, "the same speaker"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UnmergeEntity(ctx, ents[4].Name, "not the same after all"); err != nil {
		t.Fatal(err)
	}
	lived := ents[6]
	lived.ValidTo = graph.FuzzyDate{Year: 2021, Month: 3}
	if err := store.UpsertEntities(ctx, []graph.Entity{lived}); err != nil {
		t.Fatal(err)
	}
	used, missed = store.Packs()
	n, sources := check("the writes, caught up", before)
	if sources[src.Name].Title != "After" {
		t.Errorf("the writes, caught up: the feed gave the sources %v, want %s titled After", sources, src.Name)
	}
	// Merges and their undoing pack the relations they change and drop the packs of the two entities; a
	// deletion and a retraction drop the relation's pack, and a changed lifetime marks the entity's
	// relations changed without packing them again. The source and the entity written are packed.
	livedLinks, err := store.Links(ctx, []graph.EntityName{lived.Name})
	if err != nil {
		t.Fatal(err)
	}
	unpackable := 2 + len(livedLinks[lived.Name]) + 4
	if u, m := store.Packs(); m-missed > int64(unpackable) || u-used <= int64(n-unpackable) {
		t.Errorf("the writes, caught up: %d read from their packs and %d from their predicates, want at most %d from their predicates", u-used, m-missed, unpackable)
	}
	// Every write above keeps each pack stamped with its node's pg.changed, or drops it: a fill trusts the
	// packs after counting their stamps, and reads nothing twice.
	stale := dgraph.StaleFills(store)
	n, _ = check("a fill", 0)
	if got := dgraph.StaleFills(store) - stale; got != 0 {
		t.Errorf("a fill after polgraph's own writes found a pack older than its relation (%d fills read every relation again)", got)
	}
	headers := map[graph.RelationName]graph.RelationHeader{}
	if _, err := store.Changes(ctx, 0, func(c graph.Changed) {
		for _, h := range c.Headers {
			headers[h.Relation.Name] = h
		}
	}); err != nil {
		t.Fatal(err)
	}
	deleted, merged, termedSeen, retracted := 0, 0, 0, 0
	for _, h := range headers {
		if !h.Relation.Deleted.IsZero() {
			deleted++
		}
		if h.Relation.MergedInto != "" {
			merged++
		}
		if h.Relation.Term != "" {
			termedSeen++
		}
		for _, c := range h.Relation.Claims {
			if !c.Retracted.IsZero() {
				retracted++
			}
		}
	}
	if n < len(rels) || deleted < 2 || merged == 0 || termedSeen == 0 || retracted == 0 {
		t.Errorf("the fill gave %d relations, %d deleted, %d merged, %d termed and %d retracted claims: the test needs some of each", n, deleted, merged, termedSeen, retracted)
	}
}

// strs is names as strings.
func strs[N ~string](names []N) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return out
}
