package dgraph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/popolo"
	"github.com/polgraph/polgraph/graph/resolve"
)

// testPopolo is a file with one person who may be the graph's Kenneth Testclarke: a form of his given
// name, and nothing more.
const testPopolo = `{"persons": [{"id": "p1", "name": "Ken Testclarke"}],
 "organizations": [{"id": "o1", "name": "Testford Council", "classification": "legislature"}],
 "memberships": [{"id": "m1", "person_id": "p1", "organization_id": "o1", "start_date": "2001"}]}`

// TestJudgementsHoldAcrossImports: a reviewer's word on a pair that may be one holds for later imports of
// the same records: kept apart, a record comes back to its own entity and the pair is proposed no more;
// merged, it comes back to the entity it was merged into, and nothing is created.
func TestJudgementsHoldAcrossImports(t *testing.T) {
	// The package's store notes the graph's meta node now, so that it sees the graph replaced afterwards.
	if _, err := store.Version(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreGraph(t) })
	s := freshStore(t)
	ctx := graph.WithWriteMeta(context.Background(), graph.WriteMeta{Principal: "reviewer", Method: "Test"})
	const kenneth, ken = graph.EntityName("actors/kenneth-testclarke"), graph.EntityName("actors/ken-testclarke")
	if err := s.UpsertEntities(ctx, []graph.Entity{{Name: kenneth, Kind: graph.KindActor, DisplayName: "Kenneth Testclarke"}}); err != nil {
		t.Fatal(err)
	}
	importAs := func(name string) *popolo.Report {
		t.Helper()
		doc, err := popolo.Decode(strings.NewReader(testPopolo), name)
		if err != nil {
			t.Fatal(err)
		}
		sub, rep, err := popolo.Import(ctx, s, []popolo.Input{{Name: name, File: doc}}, popolo.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ds, _, err := dataset.Check(name, sub)
		if err != nil {
			t.Fatal(err)
		}
		if err := dataset.Load(ctx, s, ds, 500, nil); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	candidates := func() []string {
		t.Helper()
		ents, apart, err := resolve.Live(ctx, s, graph.KindActor)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range resolve.Candidates(ents, apart) {
			out = append(out, string(p.A.Name)+" ~ "+string(p.B.Name))
		}
		return out
	}
	merged := func(rep *popolo.Report, into graph.EntityName) {
		t.Helper()
		if rep.Created != 0 || !strings.Contains(strings.Join(rep.Lines, "\n"), "persons[0]: merged with "+string(into)+" ") {
			t.Errorf("the person came back as %d entities created, report:\n%s", rep.Created, strings.Join(rep.Lines, "\n"))
		}
	}

	// The first import leaves the record apart, and says so; the pair is a candidate.
	rep := importAs("first.json")
	if rep.Created != 2 || rep.NearDuplicates != 1 {
		t.Fatalf("first import: %d created, %d near duplicates; want 2 and 1:\n%s", rep.Created, rep.NearDuplicates, strings.Join(rep.Lines, "\n"))
	}
	if got := candidates(); strings.Join(got, "|") != string(ken)+" ~ "+string(kenneth) {
		t.Fatalf("candidates after the first import: %q", got)
	}

	// Judged apart: no longer a candidate, and an import of the same records under another name comes back
	// to its own entity.
	if _, err := s.SeparateEntities(ctx, kenneth, ken, "two men"); err != nil {
		t.Fatal(err)
	}
	if got := candidates(); len(got) != 0 {
		t.Errorf("candidates after the judgement: %q", got)
	}
	merged(importAs("copy.json"), ken)

	// Withdrawn and merged: a later import comes back to the entity the record was merged into.
	if _, err := s.WithdrawJudgement(ctx, ken, kenneth, "one man after all"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MergeEntity(ctx, ken, kenneth, "one man"); err != nil {
		t.Fatal(err)
	}
	merged(importAs("another-copy.json"), kenneth)
	if got := candidates(); len(got) != 0 {
		t.Errorf("candidates after the merge: %q", got)
	}
}
