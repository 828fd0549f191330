package main

import (
	"context"
	"strings"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// TestCLIResolve: `polgraph resolve` lists pairs that may be one, with why; "apart" keeps a pair out of
// every later list and merge until withdrawn, with the judgement in the trail; "merge" approves a pair.
func TestCLIResolve(t *testing.T) {
	ctx := context.Background()
	u := strings.ReplaceAll(uniqueName("Testclarke"), "-", "")
	surname := strings.ToUpper(u[:1]) + u[1:]
	slug := strings.ToLower(surname)
	kenneth, ken := graph.EntityName("actors/kenneth-"+slug), graph.EntityName("actors/ken-"+slug)
	if err := store.UpsertEntities(ctx, []graph.Entity{
		{Name: kenneth, Kind: graph.KindActor, DisplayName: "Kenneth " + surname, Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1940}}},
		{Name: ken, Kind: graph.KindActor, DisplayName: "Ken " + surname, Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1940}}},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range []graph.EntityName{kenneth, ken} {
			_, _ = store.DeleteEntity(context.Background(), n, "test over")
		}
	})
	admin, _ := makeKey(t, uniqueName("resolver"), "admin")
	editor, _ := makeKey(t, uniqueName("resolve-editor"), "editor")
	run := func(key string, args ...string) (string, error) {
		t.Helper()
		return runCLI(t, append(args, "--api-key", key)...)
	}
	pair := string(ken) + " (Ken " + surname + ") ~ " + string(kenneth) + " (Kenneth " + surname + "): merge at 4.5: " +
		"name +2.5 (the same surname, and given names one a form of the other); born +2.0 (both born in 1940)\n"
	out, err := run(editor, "resolve", "--kind", "actor", "--entity", string(kenneth))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "1 pair that may be one\n", pair)
	out, err = run(editor, "resolve", "--kind", "party", "--entity", string(kenneth))
	if err != nil || !strings.HasPrefix(out, "0 pairs that may be one\n") {
		t.Errorf("resolve --kind party: %v\n%s", err, out)
	}

	// Judging needs the admin role.
	if out, err = run(editor, "resolve", "apart", string(ken), "Kenneth "+surname, "--reason", "two people"); err == nil || !strings.Contains(out+err.Error(), "admin") {
		t.Errorf("an editor judged a pair: %v\n%s", err, out)
	}
	out, err = run(admin, "resolve", "apart", string(ken), "Kenneth "+surname, "--reason", "two people")
	if err != nil || !strings.Contains(out, "are judged not the same.\n") {
		t.Fatalf("resolve apart: %v\n%s", err, out)
	}
	out, err = run(editor, "resolve", "--entity", string(kenneth))
	if err != nil || !strings.HasPrefix(out, "0 pairs that may be one\n") {
		t.Errorf("a pair judged apart is listed again: %v\n%s", err, out)
	}
	out, err = run(editor, "resolve", "--judged", "--entity", string(kenneth))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "1 pair judged not the same\n", pair, "  judged not the same by key ", ": two people\n")

	// A merge of the pair is refused until the judgement is withdrawn.
	out, err = run(admin, "resolve", "merge", string(ken), string(kenneth), "--reason", "one man")
	if err == nil || !strings.Contains(out+err.Error(), "judged not the same") || !strings.Contains(out+err.Error(), "withdraw") {
		t.Errorf("a pair judged apart was merged: %v\n%s", err, out)
	}
	out, err = run(admin, "resolve", "apart", string(ken), string(kenneth), "--withdraw", "--reason", "one man after all")
	if err != nil || !strings.Contains(out, "is withdrawn") {
		t.Fatalf("withdrawing: %v\n%s", err, out)
	}
	out, err = run(admin, "resolve", "merge", string(ken), string(kenneth), "--reason", "one man")
	if err != nil || !strings.Contains(out, "merged into "+string(kenneth)) {
		t.Fatalf("resolve merge: %v\n%s", err, out)
	}
	out, err = run(editor, "resolve", "--entity", string(kenneth))
	if err != nil || !strings.HasPrefix(out, "0 pairs that may be one\n") {
		t.Errorf("a merged pair is listed: %v\n%s", err, out)
	}

	// The trail keeps the judgement and its withdrawal.
	changes, err := pb.NewWriteServiceClient(conn).ListChanges(withKey(ctx, editor), &pb.ListChangesRequest{Resource: graph.JudgementName(ken, kenneth)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes.GetChanges() {
		got = append(got, c.GetAction()+" "+c.GetMethod()+" "+c.GetReason())
	}
	if want := "DELETE SeparateEntities one man after all|CREATE SeparateEntities two people"; strings.Join(got, "|") != want {
		t.Errorf("the judgement's trail: %q, want %q", strings.Join(got, "|"), want)
	}
}
