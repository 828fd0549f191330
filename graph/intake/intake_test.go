package intake_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// The tests write through intake to a real Dgraph, started closed as `polgraph run` starts it, and read
// back what the store, the trail and the graph in memory say.
var (
	store *dgraph.Store
	svc   *intake.Service
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
	if err := d.Reset(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if store, err = dgraph.Open(ctx, d.Service, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer store.Close()
	if err := store.ApplySchema(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	svc = &intake.Service{Store: store, Timeout: time.Minute}
	return m.Run()
}

func meta(principal, method, requestID string) graph.WriteMeta {
	return graph.WriteMeta{Principal: principal, Method: method, RequestID: requestID}
}

// lines makes dataset lines from records written as Go values.
func lines(t *testing.T, recs ...any) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

type obj = map[string]any

func entity(name, display string) obj {
	return obj{"record": "entity", "name": name, "display_name": display}
}

func relation(typ, from, to, source, excerpt string, extra obj) obj {
	r := obj{"record": "relation", "type": typ, "from": from, "to": to,
		"claims": []obj{{"source": source, "excerpt": excerpt, "confidence": 0.9, "status": "REPORTED"}}}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func changes(t *testing.T, q graph.ChangeQuery) []graph.Change {
	t.Helper()
	cs, _, err := svc.ListChanges(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestUpsertsAreAuditedAndIdempotent(t *testing.T) {
	ctx := context.Background()
	res, err := svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities",
		Lines: lines(t, entity("actors/audit-a", "Audit A"), entity("parties/audit-p", "Audit Party"))})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Created, []string{"actors/audit-a", "parties/audit-p"}) || len(res.Updated) != 0 || res.Version == 0 && false {
		t.Errorf("first write: %+v", res)
	}
	// The same again changes nothing; a changed display name is an update with before and after.
	res, err = svc.Upsert(ctx, meta("bob", "UpsertEntities", ""), intake.Batch{Field: "entities",
		Lines: lines(t, entity("actors/audit-a", "Audit A (renamed)"), entity("parties/audit-p", "Audit Party"))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Created) != 0 || !slices.Equal(res.Updated, []string{"actors/audit-a"}) || res.Unchanged != 1 {
		t.Errorf("second write: %+v", res)
	}
	cs := changes(t, graph.ChangeQuery{Resource: "actors/audit-a"})
	if len(cs) != 2 || cs[0].Action != graph.ActionUpdate || cs[0].Principal != "bob" || cs[1].Action != graph.ActionCreate || cs[1].Principal != "alice" {
		t.Fatalf("the trail of actors/audit-a, newest first: %+v", cs)
	}
	if !strings.Contains(cs[0].Before, `"display_name":"Audit A"`) || !strings.Contains(cs[0].After, `"display_name":"Audit A (renamed)"`) ||
		cs[1].Before != "" || cs[0].Method != "UpsertEntities" {
		t.Errorf("before and after: %+v", cs[0])
	}
	if byBob := changes(t, graph.ChangeQuery{Principal: "bob"}); len(byBob) != 1 {
		t.Errorf("changes by bob: %+v", byBob)
	}

	// A relation may refer to what the graph holds; a retried call with its request id writes once.
	if _, err := svc.Upsert(ctx, meta("alice", "UpsertSources", ""), intake.Batch{Field: "sources",
		Lines: lines(t, obj{"record": "source", "name": "sources/audit-news", "title": "News", "kind": "ARTICLE"})}); err != nil {
		t.Fatal(err)
	}
	// A source's write audits from what its lookup read: the same again is unchanged, a new title an update.
	for _, w := range []struct {
		title              string
		updated, unchanged int
	}{{"News", 0, 1}, {"News (corrected)", 1, 0}} {
		res, err := svc.Upsert(ctx, meta("bob", "UpsertSources", ""), intake.Batch{Field: "sources",
			Lines: lines(t, obj{"record": "source", "name": "sources/audit-news", "title": w.title, "kind": "ARTICLE"})})
		if err != nil || len(res.Updated) != w.updated || res.Unchanged != w.unchanged || len(res.Created) != 0 {
			t.Errorf("source written again with title %q: %+v %v", w.title, res, err)
		}
	}
	if cs := changes(t, graph.ChangeQuery{Resource: "sources/audit-news"}); len(cs) != 2 || !strings.Contains(cs[0].Before, `"title":"News"`) ||
		!strings.Contains(cs[0].After, `"title":"News (corrected)"`) {
		t.Errorf("the trail of sources/audit-news, newest first: %+v", cs)
	}
	rel := lines(t, relation("MEMBER_OF", "actors/audit-a", "parties/audit-p", "sources/audit-news", "A joined the party.", nil))
	first, err := svc.Upsert(ctx, meta("alice", "UpsertRelations", "req-1"), intake.Batch{Field: "relations", Lines: rel})
	if err != nil {
		t.Fatal(err)
	}
	again, err := svc.Upsert(ctx, meta("alice", "UpsertRelations", "req-1"), intake.Batch{Field: "relations", Lines: rel})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replayed || !slices.Equal(again.Created, first.Created) || len(first.Created) != 1 {
		t.Errorf("a retried call: first %+v, again %+v", first, again)
	}
	// Another principal's same id is another request.
	other, err := svc.Upsert(ctx, meta("bob", "UpsertRelations", "req-1"), intake.Batch{Field: "relations", Lines: rel})
	if err != nil || other.Replayed || other.Unchanged != 1 {
		t.Errorf("another principal's request with the same id: %+v %v", other, err)
	}
	if cs := changes(t, graph.ChangeQuery{Resource: "relations/audit-a.member-of.audit-p"}); len(cs) != 1 || cs[0].RequestID != "req-1" {
		t.Errorf("the trail holds the relation's creation once: %+v", cs)
	}
}

func TestABadRecordWritesNothingAndEveryProblemIsNamed(t *testing.T) {
	ctx := context.Background()
	before, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t,
		entity("actors/good-one", "Good One"),
		obj{"record": "entity", "name": "actors/Bad Name", "display_name": ""},
		obj{"record": "entity", "name": "actors/nul", "display_name": "Nul\u0000"})})
	var ge *graph.Error
	if !errorsAs(err, &ge) || ge.Kind != graph.Invalid {
		t.Fatalf("got %v, want an Invalid error", err)
	}
	fields := map[string]bool{}
	for _, v := range ge.Violations {
		fields[v.Field] = true
	}
	for _, want := range []string{"entities[1].name", "entities[1].display_name", "entities[2].display_name"} {
		if !fields[want] {
			t.Errorf("no violation of %s: %v", want, ge.Violations)
		}
	}
	_, err = svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		relation("MEMBER_OF", "actors/nobody-here", "parties/nowhere", "sources/none", "x", nil))})
	if !errorsAs(err, &ge) || !slices.Contains(ge.Violations, graph.FieldViolation{Field: "relations[0].from",
		Description: "actors/nobody-here is not defined in the input nor in the graph"}) {
		t.Errorf("a relation to nothing: %v", err)
	}
	if after, _ := store.Counts(ctx); after != before {
		t.Errorf("a refused batch wrote something: %+v, then %+v", before, after)
	}
}

func TestRetractAndDeleteKeepTombstones(t *testing.T) {
	ctx := context.Background()
	topo := memgraph.NewTopology(store)
	must := func(_ graph.WriteResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(svc.Upsert(ctx, meta("alice", "UpsertSources", ""), intake.Batch{Field: "sources",
		Lines: lines(t, obj{"record": "source", "name": "sources/tomb-news", "title": "News", "kind": "ARTICLE"})}))
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities",
		Lines: lines(t, entity("actors/tomb-a", "Tomb A"), entity("actors/tomb-b", "Tomb B"), entity("actors/tomb-c", "Tomb C"))}))
	must(svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		relation("ENDORSES", "actors/tomb-a", "actors/tomb-b", "sources/tomb-news", "A backs B.", nil),
		relation("CRITICISED", "actors/tomb-b", "actors/tomb-c", "sources/tomb-news", "B attacks C.", nil),
		relation("CRITICISED", "actors/tomb-a", "actors/tomb-c", "sources/tomb-news", "A attacks C.", nil))}))
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	counted := func(rel graph.RelationName) bool {
		t.Helper()
		got, err := topo.Links(ctx, []graph.EntityName{"actors/tomb-a", "actors/tomb-b", "actors/tomb-c"})
		if err != nil {
			t.Fatal(err)
		}
		for _, ls := range got {
			for _, l := range ls {
				if l.Name == rel {
					return graph.RelationFilter{}.Counts(l)
				}
			}
		}
		return false
	}
	endorse := graph.RelationName("relations/tomb-a.endorses.tomb-b")
	if !counted(endorse) {
		t.Fatal("the endorsement does not count before the retraction")
	}

	// A retracted claim is kept and shown, and no longer counts: the relation has no other claim.
	claim := graph.ClaimNameFor(endorse, "sources/tomb-news", "")
	res, err := svc.RetractClaim(ctx, meta("editor-1", "RetractClaim", ""), claim, "the outlet corrected the story")
	if err != nil || !slices.Contains(res.Updated, claim) {
		t.Fatalf("retract: %+v %v", res, err)
	}
	if counted(endorse) {
		t.Error("a relation whose only claim is retracted still counts")
	}
	rels, err := store.GetRelations(ctx, []graph.RelationName{endorse})
	if err != nil {
		t.Fatal(err)
	}
	c := rels[endorse].Claims[0]
	if c.Retracted.IsZero() || c.Retracted.By != "editor-1" || c.Retracted.Reason != "the outlet corrected the story" {
		t.Errorf("the claim after its retraction: %+v", c)
	}
	if again, err := svc.RetractClaim(ctx, meta("editor-2", "RetractClaim", ""), claim, "again"); err != nil || again.Unchanged != 1 {
		t.Errorf("a second retraction: %+v %v", again, err)
	}
	// Writing the claim again does not undo its retraction.
	must(svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		relation("ENDORSES", "actors/tomb-a", "actors/tomb-b", "sources/tomb-news", "A backs B.", nil))}))
	if counted(endorse) {
		t.Error("writing a retracted claim again brought it back")
	}

	// A deleted relation is kept as a tombstone and counts no more.
	attack := graph.RelationName("relations/tomb-b.criticised.tomb-c")
	if _, err := svc.DeleteRelation(ctx, meta("editor-1", "DeleteRelation", ""), string(attack), "a duplicate"); err != nil {
		t.Fatal(err)
	}
	if counted(attack) {
		t.Error("a deleted relation still counts")
	}
	rels, _ = store.GetRelations(ctx, []graph.RelationName{attack})
	if rels[attack].Deleted.Reason != "a duplicate" {
		t.Errorf("the deleted relation: %+v", rels[attack])
	}

	// Deleting an entity deletes its relations; it is no longer found by name, only by resource name.
	res, err = svc.DeleteEntity(ctx, meta("admin-1", "DeleteEntity", ""), "actors/tomb-a", "a test record")
	if err != nil || !slices.Contains(res.Updated, "actors/tomb-a") || !slices.Contains(res.Updated, "relations/tomb-a.criticised.tomb-c") {
		t.Fatalf("delete entity: %+v %v", res, err)
	}
	if counted("relations/tomb-a.criticised.tomb-c") {
		t.Error("a deleted entity's relation still counts")
	}
	if found, _ := store.FindByName(ctx, "Tomb A"); len(found) != 0 {
		t.Errorf("a deleted entity is found by name: %v", found)
	}
	if e, err := store.GetEntity(ctx, "actors/tomb-a"); err != nil || e.Deleted.By != "admin-1" {
		t.Errorf("the deleted entity by resource name: %+v %v", e, err)
	}
	if cs := changes(t, graph.ChangeQuery{Resource: "actors/tomb-a"}); len(cs) == 0 || cs[0].Action != graph.ActionDelete || !strings.Contains(cs[0].After, `"reason":"a test record"`) {
		t.Errorf("the trail of the deletion: %+v", cs)
	}
	// A relation may not refer to a deleted entity.
	_, err = svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		relation("FAMILY", "actors/tomb-a", "actors/tomb-c", "sources/tomb-news", "A is C's cousin.", nil))})
	if graph.KindOf(err) != graph.Invalid {
		t.Errorf("a relation to a deleted entity: %v", err)
	}
	// Unknown names are NOT_FOUND, bad ones INVALID.
	if _, err := svc.DeleteRelation(ctx, meta("x", "DeleteRelation", ""), "relations/no.such.thing", "r"); graph.KindOf(err) != graph.NotFound {
		t.Errorf("an unknown relation: %v", err)
	}
	if _, err := svc.RetractClaim(ctx, meta("x", "RetractClaim", ""), "not-a-claim", ""); graph.KindOf(err) != graph.Invalid {
		t.Errorf("a bad claim name and no reason: %v", err)
	}
}

func TestLoadIsCheckedWholeAndTakenUpAgain(t *testing.T) {
	ctx := context.Background()
	file := func(name string, recs ...any) dataset.File {
		ls := append([]string{`{"record":"dataset","format":"polgraph/v1","name":"load-test"}`}, lines(t, recs...)...)
		return dataset.File{Name: name, R: strings.NewReader(strings.Join(ls, "\n") + "\n")}
	}
	recs := []any{obj{"record": "source", "name": "sources/load-news", "title": "News", "kind": "ARTICLE"},
		entity("actors/load-a", "Load A"), entity("actors/load-b", "Load B"),
		relation("APPEARED_WITH", "actors/load-a", "actors/load-b", "sources/load-news", "A and B on stage.", obj{"date": "2020"})}
	_, err := svc.Load(ctx, meta("feed", "Load", ""), []dataset.File{file("bad.jsonl", entity("actors/Bad", ""))})
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "bad.jsonl:2: name") {
		t.Errorf("a bad file: %v", err)
	}
	res, err := svc.Load(ctx, meta("feed", "Load", "load-1"), []dataset.File{file("good.jsonl", recs...)})
	if err != nil || res.Sources != 1 || res.Entities != 2 || res.Relations != 1 || res.Claims != 1 || res.Replayed {
		t.Fatalf("load: %+v %v", res, err)
	}
	again, err := svc.Load(ctx, meta("feed", "Load", "load-1"), []dataset.File{file("good.jsonl", recs...)})
	if err != nil || !again.Replayed || again.Entities != 2 {
		t.Errorf("the same load again: %+v %v", again, err)
	}
	// A load taken up again without a request id ends with the same counts.
	c1, _ := store.Counts(ctx)
	if _, err := svc.Load(ctx, meta("feed", "Load", ""), []dataset.File{file("good.jsonl", recs...)}); err != nil {
		t.Fatal(err)
	}
	if c2, _ := store.Counts(ctx); c2 != c1 {
		t.Errorf("loading again changed the counts: %+v, then %+v", c1, c2)
	}
	if cs := changes(t, graph.ChangeQuery{Resource: "actors/load-a"}); len(cs) != 1 || cs[0].Method != "Load" || cs[0].Principal != "feed" {
		t.Errorf("the trail of a loaded entity: %+v", cs)
	}
}

// TestConcurrentWritersOnOneHub: sixteen writers add relations to one hub at once, half of them also
// writing the same shared relations; Dgraph aborts conflicting transactions and the store retries them.
// In the end every relation is there once, with its claims once, and the graph in memory agrees.
func TestConcurrentWritersOnOneHub(t *testing.T) {
	ctx := context.Background()
	if _, err := svc.Upsert(ctx, meta("setup", "UpsertSources", ""), intake.Batch{Field: "sources",
		Lines: lines(t, obj{"record": "source", "name": "sources/hub-news", "title": "News", "kind": "ARTICLE"})}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Upsert(ctx, meta("setup", "UpsertEntities", ""), intake.Batch{Field: "entities",
		Lines: lines(t, obj{"record": "entity", "name": "parties/hub", "display_name": "The Hub"})}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 10
	before, _ := store.Counts(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ents, rels []any
			for i := range each {
				name := fmt.Sprintf("actors/hub-member-%02d-%02d", w, i)
				ents = append(ents, entity(name, fmt.Sprintf("Hub Member %d %d", w, i)))
				rels = append(rels, relation("MEMBER_OF", name, "parties/hub", "sources/hub-news", "Joined the hub.", nil))
			}
			shared := fmt.Sprintf("actors/hub-member-%02d-00", w%2)
			rels = append(rels, relation("LEADS", shared, "parties/hub", "sources/hub-news", "Leads the hub.", nil))
			p := fmt.Sprintf("writer-%d", w)
			if _, err := svc.Upsert(ctx, meta(p, "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t, ents...)}); err != nil {
				errs <- err
				return
			}
			if w >= 2 {
				// The shared leaders belong to writers 0 and 1: wait until they exist.
				for range 200 {
					k, _, _ := store.Known(ctx, []graph.EntityName{graph.EntityName(shared)}, nil)
					if len(k) == 1 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			_, err := svc.Upsert(ctx, meta(p, "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t, rels...)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	after, _ := store.Counts(ctx)
	want := graph.GraphCounts{Entities: before.Entities + writers*each, Relations: before.Relations + writers*each + 2,
		Claims: before.Claims + writers*each + 2, Sources: before.Sources}
	if after != want {
		t.Errorf("after %d concurrent writers: %+v, want %+v", writers, after, want)
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := topo.Links(ctx, []graph.EntityName{"parties/hub"})
	if n := len(got["parties/hub"]); n != writers*each+2 {
		t.Errorf("the hub has %d relations in memory, want %d", n, writers*each+2)
	}
	t.Logf("%d transactions were retried after conflicts", store.Retries())
}

func errorsAs(err error, target **graph.Error) bool {
	e, ok := err.(*graph.Error)
	if ok {
		*target = e
	}
	return ok
}
