package main

import (
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestCLIResolve: `polgraph resolve` lists a pair of people who may be one, with why.
func TestCLIResolve(t *testing.T) {
	server, store := serveDefaultInMemory(t)
	if err := store.UpsertEntities(t.Context(), []graph.Entity{
		{Name: "actors/kenneth-testclarke", Kind: graph.KindActor, DisplayName: "Kenneth Testclarke", Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1940}}},
		{Name: "actors/ken-testclarke", Kind: graph.KindActor, DisplayName: "Ken Testclarke", Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1940}}},
	}); err != nil {
		t.Fatal(err)
	}
	out, err := runCLIAt(t, server, "resolve", "--kind", "actor")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "actors/ken-testclarke (Ken Testclarke) ~ actors/kenneth-testclarke (Kenneth Testclarke): merge at 4.5: "+
		"name +2.5 (the same surname, and given names one a form of the other); born +2.0 (both born in 1940)\n")
	if !strings.Contains(out, " may be one\n") {
		t.Errorf("no count of pairs:\n%s", out)
	}
	out, err = runCLIAt(t, server, "resolve", "--kind", "party")
	if err != nil || strings.Contains(out, "testclarke") {
		t.Errorf("resolve --kind party: %v\n%s", err, out)
	}
}
