package intake_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/service"
)

// mergeFixture writes, under prefix p, two records of one person (p-dup, merged into p-main) and the
// relations that exercise every case of a merge:
//   - dup and main are both members of the party, on different claims: the claims come together;
//   - both endorse abe on the same source (the same claim name): the duplicate stays behind;
//   - abe criticised dup: moved to a relation the merge creates;
//   - dup formerly worked with kim (symmetric, dup < kim): becomes kim — main, ordered anew;
//   - dup campaigned with main: would join main to itself, deleted;
//   - kim holds the seat via dup: the via becomes main;
//   - abe endorses kim, a claim said by dup: said by main.
func mergeFixture(t *testing.T, p string) {
	t.Helper()
	ctx := context.Background()
	must := func(_ graph.WriteResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	src := "sources/" + p + "-news"
	src2 := "sources/" + p + "-post"
	a := func(s string) string { return "actors/" + p + "-" + s }
	must(svc.Upsert(ctx, meta("alice", "UpsertSources", ""), intake.Batch{Field: "sources", Lines: lines(t,
		obj{"record": "source", "name": src, "title": "News", "kind": "ARTICLE"},
		obj{"record": "source", "name": src2, "title": "Post", "kind": "SOCIAL_POST"})}))
	dup := entity(a("dup"), "Lutfa Rahmen")
	dup["aliases"] = []string{"L. Rahmen"}
	dup["identifiers"] = map[string]string{"wikidata": "Q" + p}
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t,
		dup, entity(a("main"), "Lutfa Rahman"), entity(a("abe"), "Abe"), entity(a("kim"), "Kim"),
		entity("parties/"+p+"-party", "Party"), entity("seats/"+p+"-seat", "Seat"))}))
	claimOf := func(source, excerpt string, extra obj) obj {
		c := obj{"source": source, "excerpt": excerpt, "confidence": 0.8, "status": "REPORTED"}
		maps.Copy(c, extra)
		return c
	}
	rel := func(typ, from, to string, extra obj, claims ...obj) obj {
		r := obj{"record": "relation", "type": typ, "from": from, "to": to, "claims": claims}
		maps.Copy(r, extra)
		return r
	}
	must(svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		rel("MEMBER_OF", a("dup"), "parties/"+p+"-party", obj{"valid_from": "2008"}, claimOf(src, "Dup joined.", nil)),
		rel("MEMBER_OF", a("main"), "parties/"+p+"-party", obj{"valid_from": "2010"}, claimOf(src2, "Main is a member.", nil)),
		rel("ENDORSES", a("dup"), a("abe"), obj{"date": "2020"}, claimOf(src, "Dup backs Abe.", nil)),
		rel("ENDORSES", a("main"), a("abe"), obj{"date": "2020"}, claimOf(src, "Main backs Abe.", nil)),
		rel("CRITICISED", a("abe"), a("dup"), obj{"date": "2021"}, claimOf(src2, "Abe attacks Dup.", nil)),
		rel("FORMERLY_WORKED_WITH", a("dup"), a("kim"), nil, claimOf(src, "Dup and Kim worked together.", nil)),
		rel("CAMPAIGNED_WITH", a("dup"), a("main"), obj{"date": "2019"}, claimOf(src, "They campaigned together.", nil)),
		rel("HOLDS_OFFICE", a("kim"), "seats/"+p+"-seat", obj{"valid_from": "2018", "via": a("dup")}, claimOf(src, "Kim holds the seat.", nil)),
		rel("ENDORSES", a("abe"), a("kim"), obj{"date": "2022"}, claimOf(src2, "Abe backs Kim, Dup said.", obj{"said_by": a("dup")})))}))
}

// snapshot is every relation the fixture wrote and its entities, as records, keyed by name.
func snapshot(t *testing.T, p string, names ...string) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	var rels []graph.RelationName
	for _, n := range names {
		if strings.HasPrefix(n, "relations/") {
			rels = append(rels, graph.RelationName(n))
		}
	}
	got, err := store.GetRelations(ctx, rels)
	if err != nil {
		t.Fatal(err)
	}
	for n, r := range got {
		rec, err := graph.RelationRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		out[string(n)] = graph.RecordJSON(rec)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "relations/") {
			continue
		}
		e, err := store.GetEntity(ctx, graph.EntityName(n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = graph.RecordJSON(graph.EntityRecord(e))
	}
	return out
}

func TestMergeMovesEverythingAndUndoRestoresIt(t *testing.T) {
	ctx := context.Background()
	p := "mg1"
	a := func(s string) string { return "actors/" + p + "-" + s }
	mergeFixture(t, p)
	reads := &service.Service{Store: store}
	original := []string{a("dup"), a("main"), a("abe"), a("kim"),
		"relations/" + p + "-dup.member-of." + p + "-party", "relations/" + p + "-main.member-of." + p + "-party",
		"relations/" + p + "-dup.endorses." + p + "-abe", "relations/" + p + "-main.endorses." + p + "-abe",
		"relations/" + p + "-abe.criticised." + p + "-dup", "relations/" + p + "-dup.formerly-worked-with." + p + "-kim",
		"relations/" + p + "-dup.campaigned-with." + p + "-main", "relations/" + p + "-kim.holds-office." + p + "-seat",
		"relations/" + p + "-abe.endorses." + p + "-kim"}
	before := snapshot(t, p, original...)
	counts0, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}

	res, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("dup"), a("main"), "one person, two records")
	if err != nil {
		t.Fatal(err)
	}
	criticised := "relations/" + p + "-abe.criticised." + p + "-main"
	worked := "relations/" + p + "-kim.formerly-worked-with." + p + "-main"
	if !slices.Equal(sorted(res.Created), []string{criticised, worked}) {
		t.Errorf("created %v; want the two relations main did not have", res.Created)
	}
	for _, n := range []string{a("dup"), a("main"), "relations/" + p + "-main.member-of." + p + "-party", "relations/" + p + "-dup.campaigned-with." + p + "-main",
		"relations/" + p + "-kim.holds-office." + p + "-seat", "relations/" + p + "-abe.endorses." + p + "-kim"} {
		if !slices.Contains(res.Updated, n) {
			t.Errorf("%s is not among the updated: %v", n, res.Updated)
		}
	}
	counts1, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One entity fewer; three relations fewer (two moved into relations main had, one between the two);
	// two claims fewer (the duplicate endorsement and the campaign stay on deleted relations).
	if want := (graph.GraphCounts{Entities: counts0.Entities - 1, Relations: counts0.Relations - 3, Claims: counts0.Claims - 2, Sources: counts0.Sources}); counts1 != want {
		t.Errorf("counts after the merge %+v; want %+v", counts1, want)
	}

	// The old names resolve.
	info, err := reads.GetEntity(ctx, a("dup"), nil)
	if err != nil || info.Entity.Name != graph.EntityName(a("main")) || info.RedirectedFrom != graph.EntityName(a("dup")) {
		t.Errorf("GetEntity of the merged entity: %+v %v", info, err)
	}
	if e, err := reads.Resolve(ctx, "name", "L. Rahmen"); err != nil || e.Name != graph.EntityName(a("main")) {
		t.Errorf("the merged entity's alias: %v %v", e.Name, err)
	}
	main := info.Entity
	if !slices.Contains(main.Aliases, "Lutfa Rahmen") || !slices.Contains(main.Aliases, "L. Rahmen") || main.Identifiers.First("wikidata") != "Q"+p {
		t.Errorf("main after the merge: %+v", main)
	}
	r, _, err := reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-abe.criticised."+p+"-dup"))
	if err != nil || string(r.Name) != criticised || len(r.Claims) != 1 || r.Claims[0].Name != criticised+"/claims/"+p+"-post" {
		t.Errorf("the moved relation's old name: %+v %v", r, err)
	}
	r, _, err = reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-main.member-of."+p+"-party"))
	if err != nil || len(r.Claims) != 2 || r.ValidFrom.String() != "2010" {
		t.Errorf("the membership main had, with dup's claim: %+v %v", r, err)
	}
	r, _, err = reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-main.endorses."+p+"-abe"))
	if err != nil || len(r.Claims) != 1 || r.Claims[0].Excerpt != "Main backs Abe." {
		t.Errorf("a claim both held is kept once, main's: %+v %v", r, err)
	}
	r, _, err = reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-kim.holds-office."+p+"-seat"))
	if err != nil || r.Via != graph.EntityName(a("main")) {
		t.Errorf("the via: %+v %v", r, err)
	}
	r, _, err = reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-abe.endorses."+p+"-kim"))
	if err != nil || r.Claims[0].SaidBy != graph.EntityName(a("main")) {
		t.Errorf("said by: %+v %v", r, err)
	}
	r, _, err = reads.GetRelation(ctx, graph.RelationName("relations/"+p+"-dup.campaigned-with."+p+"-main"))
	if err != nil || r.Deleted.IsZero() {
		t.Errorf("the relation between the two: %+v %v", r, err)
	}
	// No duplicates: main's live relations, each once, each claim once; none left on dup.
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	links, err := topo.Links(ctx, []graph.EntityName{graph.EntityName(a("main")), graph.EntityName(a("dup"))})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range links[graph.EntityName(a("main"))] {
		if !l.Deleted {
			names = append(names, string(l.Name))
		}
	}
	if want := []string{"relations/" + p + "-abe.criticised." + p + "-main", "relations/" + p + "-kim.formerly-worked-with." + p + "-main",
		"relations/" + p + "-main.endorses." + p + "-abe", "relations/" + p + "-main.member-of." + p + "-party"}; !slices.Equal(sorted(names), want) {
		t.Errorf("main's relations in memory: %v; want %v", sorted(names), want)
	}
	if live := slices.DeleteFunc(links[graph.EntityName(a("dup"))], func(l graph.Link) bool { return l.Deleted }); len(live) != 0 {
		t.Errorf("dup still has live relations in memory: %v", live)
	}
	// The trail says who merged what.
	cs := changes(t, graph.ChangeQuery{Resource: a("dup")})
	if len(cs) == 0 || cs[0].Action != graph.ActionMerge || cs[0].Principal != "admin" || !strings.Contains(cs[0].After, `"merged_into":"`+a("main")+`"`) {
		t.Errorf("the trail of the merged entity: %+v", cs)
	}
	// A claim of a moved relation is retracted by its old name; the merged entity cannot be deleted.
	if _, err := svc.RetractClaim(ctx, meta("editor", "RetractClaim", ""), "relations/"+p+"-abe.criticised."+p+"-dup/claims/"+p+"-post", "test"); err != nil {
		t.Errorf("retracting a moved claim by its old name: %v", err)
	}
	if _, err := svc.DeleteEntity(ctx, meta("admin", "DeleteEntity", ""), a("dup"), "test"); graph.KindOf(err) != graph.FailedPrecondition {
		t.Errorf("deleting a merged entity: %v", err)
	}
	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("dup"), a("abe"), "again"); graph.KindOf(err) != graph.FailedPrecondition {
		t.Errorf("merging a merged entity: %v", err)
	}

	// Undo: everything as it was (but the retraction, made since, which stays with the claim).
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("dup"), "two people after all"); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, p, original...)
	for _, n := range original {
		want := before[n]
		if n == "relations/"+p+"-abe.criticised."+p+"-dup" {
			// The retraction made while merged stands.
			if !strings.Contains(after[n], `"retracted":{`) {
				t.Errorf("%s lost its retraction: %s", n, after[n])
			}
			continue
		}
		if after[n] != want {
			t.Errorf("%s after undoing the merge:\n%s\nwant\n%s", n, after[n], want)
		}
	}
	counts2, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := counts0; counts2 != (graph.GraphCounts{Entities: want.Entities, Relations: want.Relations, Claims: want.Claims - 1, Sources: want.Sources}) {
		t.Errorf("counts after undoing: %+v; want %+v less the retracted claim", counts2, want)
	}
	if _, _, err := reads.GetRelation(ctx, graph.RelationName(criticised)); err != nil {
		t.Errorf("the relation the merge created is kept, deleted: %v", err)
	}
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("dup"), "again"); graph.KindOf(err) != graph.FailedPrecondition {
		t.Errorf("undoing a merge twice: %v", err)
	}

	// The same merge again revives what the undoing deleted; then writes naming dup go to main.
	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("dup"), a("main"), "one person after all"); err != nil {
		t.Fatal(err)
	}
	if c, _ := store.Counts(ctx); c != (graph.GraphCounts{Entities: counts1.Entities, Relations: counts1.Relations, Claims: counts1.Claims - 1, Sources: counts1.Sources}) {
		t.Errorf("counts after merging again %+v; want %+v less the retracted claim", c, counts1)
	}
	w, err := svc.Upsert(ctx, meta("bob", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		relation("APPEARED_WITH", a("dup"), a("kim"), "sources/"+p+"-news", "Dup and Kim on stage.", obj{"date": "2023"}))})
	if err != nil || !slices.Equal(w.Created, []string{"relations/" + p + "-kim.appeared-with." + p + "-main"}) {
		t.Errorf("a write naming the merged entity: %+v %v", w, err)
	}
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

func TestMergeRefusals(t *testing.T) {
	ctx := context.Background()
	p := "mg2"
	mergeFixture(t, p)
	a := func(s string) string { return "actors/" + p + "-" + s }
	must := func(_ graph.WriteResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	other := entity(a("twin"), "Twin")
	other["identifiers"] = map[string]string{"wikidata": "Q999" + p}
	main2 := entity(a("main2"), "Main Two")
	main2["identifiers"] = map[string]string{"wikidata": "Q998" + p}
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t, other, main2)}))
	before, _ := store.Counts(ctx)
	for _, tc := range []struct {
		name, from, into, reason string
		kind                     graph.ErrorKind
	}{
		{"into itself", a("dup"), a("dup"), "x", graph.Invalid},
		{"no reason", a("dup"), a("main"), "", graph.Invalid},
		{"not a name", "Lutfa Rahmen", a("main"), "x", graph.Invalid},
		{"unknown", a("nobody"), a("main"), "x", graph.NotFound},
		{"two kinds", a("dup"), "parties/" + p + "-party", "x", graph.Invalid},
		{"two wikidata ids", a("twin"), a("main2"), "x", graph.Invalid},
	} {
		if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), tc.from, tc.into, tc.reason); graph.KindOf(err) != tc.kind {
			t.Errorf("%s: %v; want %v", tc.name, err, tc.kind)
		}
	}
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("main"), "x"); graph.KindOf(err) != graph.FailedPrecondition {
		t.Errorf("undoing what was never merged: %v", err)
	}
	if after, _ := store.Counts(ctx); after != before {
		t.Errorf("refused merges wrote: %+v, then %+v", before, after)
	}
	// A merge of a merge: b into main, then main into c; b's name resolves to c; undoing the first needs
	// the second undone first.
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t, entity(a("c"), "Cee"))}))
	must(svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("dup"), a("main"), "same"))
	must(svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("main"), a("c"), "same"))
	reads := &service.Service{Store: store}
	if e, err := reads.Resolve(ctx, "name", a("dup")); err != nil || e.Name != graph.EntityName(a("c")) {
		t.Errorf("a merge of a merge: %v %v", e.Name, err)
	}
	if m, err := store.MergedInto(ctx, []graph.EntityName{graph.EntityName(a("dup")), graph.EntityName(a("abe"))}); err != nil || len(m) != 1 || m[graph.EntityName(a("dup"))] != graph.EntityName(a("c")) {
		t.Errorf("MergedInto: %v %v", m, err)
	}
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("dup"), "x"); graph.KindOf(err) != graph.FailedPrecondition || !strings.Contains(err.Error(), "undo that first") {
		t.Errorf("undoing the first of two merges: %v", err)
	}
	must(svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("main"), "x"))
	must(svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), a("dup"), "x"))
}

// TestMergeRacingWrites merges an entity while writers add relations to it: every write acknowledged is
// in the graph, live, on the entity it was merged into; none is left on the merged one.
func TestMergeRacingWrites(t *testing.T) {
	ctx := context.Background()
	p := "mg3"
	mergeFixture(t, p)
	a := func(s string) string { return "actors/" + p + "-" + s }
	const writers = 8
	var targets []any
	for i := range writers {
		targets = append(targets, entity(fmt.Sprintf("actors/%s-t%d", p, i), fmt.Sprintf("Target %d", i)))
	}
	if _, err := svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t, targets...)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	acked := make(chan string, writers*4)
	refused := make(chan error, writers*4)
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for j := range 4 {
				res, err := svc.Upsert(ctx, meta("writer", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
					relation("ENDORSES", a("dup"), fmt.Sprintf("actors/%s-t%d", p, i), "sources/"+p+"-news", fmt.Sprintf("Backs %d, %d.", i, j),
						obj{"date": fmt.Sprintf("20%02d", 10+j), "key": fmt.Sprintf("k%d", j)}))})
				switch {
				case err == nil:
					for _, n := range append(res.Created, res.Updated...) {
						acked <- n
					}
				case graph.KindOf(err) == graph.FailedPrecondition:
					refused <- err // merged meanwhile three times over: refused, not acknowledged
				default:
					t.Error(err)
				}
			}
		}()
	}
	close(start)
	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), a("dup"), a("main"), "racing"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(acked)
	close(refused)
	reads := &service.Service{Store: store}
	n := 0
	for name := range acked {
		n++
		r, _, err := reads.GetRelation(ctx, graph.RelationName(name))
		if err != nil || !r.Deleted.IsZero() || r.From != graph.EntityName(a("main")) {
			t.Errorf("acknowledged %s: now %s from %s (deleted %v), %v", name, r.Name, r.From, !r.Deleted.IsZero(), err)
		}
	}
	for err := range refused {
		t.Errorf("refused in the race (a write is sent again when a merge commits under it): %v", err)
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	links, err := topo.Links(ctx, []graph.EntityName{graph.EntityName(a("dup"))})
	if err != nil {
		t.Fatal(err)
	}
	if live := slices.DeleteFunc(links[graph.EntityName(a("dup"))], func(l graph.Link) bool { return l.Deleted }); len(live) != 0 {
		t.Errorf("live relations left on the merged entity: %v", live)
	}
	if n != writers*4 {
		t.Errorf("%d writes acknowledged; want %d", n, writers*4)
	}
}

// Terms merge like any entity: a relation whose term was the merged record names the one kept, and a
// relation moved by a merge of people keeps its term; undoing the merge restores the term.
func TestMergeKeepsTerms(t *testing.T) {
	ctx := context.Background()
	p := "mgt"
	must := func(_ graph.WriteResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	src := "sources/" + p + "-data"
	termA, termB := "organisations/"+p+"-term-a", "organisations/"+p+"-term-b"
	must(svc.Upsert(ctx, meta("alice", "UpsertSources", ""), intake.Batch{Field: "sources", Lines: lines(t,
		obj{"record": "source", "name": src, "title": "Data", "kind": "DATASET"})}))
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t,
		entity(termA, "Fourth Assembly"), entity(termB, "Assembly, 4th term"), entity("actors/"+p+"-dup", "Mo"),
		entity("actors/"+p+"-main", "Mo Main"), entity("seats/"+p+"-seat", "Seat"))}))
	held := func(who, term string) obj {
		return obj{"record": "relation", "type": "HOLDS_OFFICE", "from": "actors/" + p + "-" + who, "to": "seats/" + p + "-seat", "term": term,
			"claims": []obj{{"source": src, "record_id": who + "/" + term, "confidence": 0.9, "status": "REPORTED"}}}
	}
	must(svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t, held("main", termA), held("dup", termB))}))
	mainRel := graph.RelationName("relations/" + p + "-main.holds-office." + p + "-seat." + p + "-term-a")
	termOf := func(name graph.RelationName) graph.EntityName {
		t.Helper()
		rels, err := store.GetRelations(ctx, []graph.RelationName{name})
		if err != nil {
			t.Fatal(err)
		}
		return rels[name].Term
	}

	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), termA, termB, "one term"); err != nil {
		t.Fatal(err)
	}
	if got := termOf(mainRel); got != graph.EntityName(termB) {
		t.Errorf("after merging the terms, %s is of term %s, want %s", mainRel, got, termB)
	}
	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), "actors/"+p+"-dup", "actors/"+p+"-main", "one person"); err != nil {
		t.Fatal(err)
	}
	moved := graph.RelationName("relations/" + p + "-main.holds-office." + p + "-seat." + p + "-term-b")
	if got := termOf(moved); got != graph.EntityName(termB) {
		t.Errorf("the relation the merge of people moved is of term %q, want %s", got, termB)
	}
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), termA, "two terms after all"); err != nil {
		t.Fatal(err)
	}
	if got := termOf(mainRel); got != graph.EntityName(termA) {
		t.Errorf("after undoing the merge of terms, %s is of term %s, want %s", mainRel, got, termA)
	}
}

// What from's record says of the person (a death date, gender, links, names in other languages) the
// record kept gains; the death date then bounds its relations; undoing the merge takes it all back.
func TestMergeCarriesAttributes(t *testing.T) {
	ctx := context.Background()
	p := "mga"
	must := func(_ graph.WriteResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	src := "sources/" + p + "-data"
	dup, main := "actors/"+p+"-dup", "actors/"+p+"-main"
	must(svc.Upsert(ctx, meta("alice", "UpsertSources", ""), intake.Batch{Field: "sources", Lines: lines(t,
		obj{"record": "source", "name": src, "title": "Data", "kind": "DATASET"})}))
	d := entity(dup, "Brian Adam")
	d["death_date"], d["gender"] = "2013-04-25", "male"
	d["aliases"] = []any{obj{"name": "Brian Adams", "lang": "en", "note": "misspelt"}}
	d["links"] = []obj{{"url": "https://example.org/brian", "note": "profile"}}
	must(svc.Upsert(ctx, meta("alice", "UpsertEntities", ""), intake.Batch{Field: "entities", Lines: lines(t,
		d, entity(main, "Brian Adam MSP"), entity("parties/"+p+"-party", "Party"))}))
	must(svc.Upsert(ctx, meta("alice", "UpsertRelations", ""), intake.Batch{Field: "relations", Lines: lines(t,
		obj{"record": "relation", "type": "MEMBER_OF", "from": main, "to": "parties/" + p + "-party", "valid_from": "1990",
			"claims": []obj{{"source": src, "record_id": "m1", "confidence": 0.9, "status": "REPORTED"}}})}))
	reads := &service.Service{Store: store}
	asOf2015 := func() int {
		t.Helper()
		page, err := reads.ListRelations(ctx, graph.RelationsQuery{Entity: main, Filter: graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2015}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Relations)
	}
	if n := asOf2015(); n != 1 {
		t.Fatalf("before the merge, %s has %d relations as of 2015, want 1", main, n)
	}
	if _, err := svc.MergeEntities(ctx, meta("admin", "MergeEntities", ""), dup, main, "one person"); err != nil {
		t.Fatal(err)
	}
	e, err := store.GetEntity(ctx, graph.EntityName(main))
	if err != nil {
		t.Fatal(err)
	}
	a := e.Attributes
	if a.DeathDate.String() != "2013-04-25" || a.Gender != "male" || len(a.Links) != 1 || len(a.OtherNames) != 1 || a.OtherNames[0].Lang != "en" {
		t.Errorf("after the merge, %s has %+v", main, a)
	}
	if n := asOf2015(); n != 0 {
		t.Errorf("after the merge, %s (dead since 2013) has %d relations as of 2015, want none", main, n)
	}
	if _, err := svc.UnmergeEntities(ctx, meta("admin", "UnmergeEntities", ""), dup, "two people"); err != nil {
		t.Fatal(err)
	}
	if e, _ = store.GetEntity(ctx, graph.EntityName(main)); !e.Attributes.IsZero() {
		t.Errorf("after undoing the merge, %s still has %+v", main, e.Attributes)
	}
	if n := asOf2015(); n != 1 {
		t.Errorf("after undoing the merge, %s has %d relations as of 2015, want 1", main, n)
	}
}
