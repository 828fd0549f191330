package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memstore"
)

// The CLI's read commands, against a service that serves the default graph from a store in memory
// (graph/memstore): they need no Dgraph, and run under -short (withoutDgraph, main_test.go).

const dailyMail = "sources/daily-mail-2023-11-03-lutfur-rahman"

// serveDefaultInMemory serves the default dataset, loaded twice into a store in memory as `polgraph load`
// loads Dgraph, with serve on a loopback port, once the service holds the graph in memory; serving ends
// with the test. It returns the server's address and the store.
func serveDefaultInMemory(t *testing.T) (string, *memstore.Store) {
	t.Helper()
	store := memstore.New()
	in, err := checkDatasetFiles([]string{defaultDataset})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := in.write(context.Background(), store, dataset.LoadOptions{Batch: defaultConfig().Batch}); err != nil {
			t.Fatalf("loading the default dataset, time %d: %v", i+1, err)
		}
	}
	_, conn, _ := serveForTest(t, storage{graph: store, feed: store}, defaultConfig(), slog.New(slog.DiscardHandler))
	return conn.Target(), store
}

func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestCLIRelations(t *testing.T) {
	server, _ := serveDefaultInMemory(t)
	out, err := runCLIAt(t, server, "relations", "Lutfur Rahman", "--types", "CRITICISED", "--direction", "in")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "Lutfur Rahman (actor): 4 relations, newest first\n",
		"  Amina Ali criticised Lutfur Rahman: held the mayor to account at Overview & Scrutiny Committee (2024) — 1 claim supports it\n",
		`    REPORTED 0.65  "Cllr Sabina Akhtar`)
	out, err = runCLIAt(t, server, "relations", "Lutfur Rahman", "--types", "CRITICISED", "--direction", "out")
	if err != nil || out != "Lutfur Rahman (actor): no relations under the filters asked\n" {
		t.Errorf("criticisms by Lutfur Rahman: %v\n%s", err, out)
	}
	// Pages: the last line of a page says how to get the next.
	out, err = runCLIAt(t, server, "relations", "Lutfur Rahman", "--page-size", "2")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token, ok := strings.CutPrefix(lines[len(lines)-1], "More: --page-token ")
	if !ok {
		t.Fatalf("a first page of 2 ends %q; want the next page's token", lines[len(lines)-1])
	}
	next, err := runCLIAt(t, server, "relations", "Lutfur Rahman", "--page-size", "2", "--page-token", token)
	if err != nil || next == out || !strings.HasPrefix(next, "Lutfur Rahman (actor): ") {
		t.Errorf("the second page: %v\n%s", err, next)
	}
	// Disputed relations say so when denials are asked for.
	out, err = runCLIAt(t, server, "relations", "Lutfur Rahman", "--types", "ENDORSES", "--statuses", "ALLEGED,DENIED")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "Lutfur Rahman endorses Ajmal Masroor", "3 of 4 claims deny it", "    DENIED 0.90")
	_, err = runCLIAt(t, server, "relations", "Lutfur Rahman", "--direction", "sideways")
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "--direction") {
		t.Errorf("a bad direction: %v", err)
	}
}

func TestCLITimeline(t *testing.T) {
	server, _ := serveDefaultInMemory(t)
	out, err := runCLIAt(t, server, "timeline", "Lutfur Rahman")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "Lutfur Rahman (actor): ", " dated relations, 2 undated\n",
		"  2010–2015  state  Lutfur Rahman holds office Mayor of Tower Hamlets: Mayor — 2 claims support it\n",
		"  2015       event  Election court accused Lutfur Rahman: found guilty of corrupt and illegal practices — 1 claim supports it\n",
		"Undated:\n  Ajmal Masroor formerly worked with Lutfur Rahman — 1 claim supports it\n",
		// A party's withdrawing its candidate is a deselection, not a removal from office (issue 52).
		"  2010       event  Lutfur Rahman deselected as candidate for Mayor of Tower Hamlets via Labour: removed as Labour's candidate — 1 claim supports it\n")
	if strings.Contains(out, "removed from office Mayor of Tower Hamlets via Labour") {
		t.Errorf("the 2010 deselection is still a removal from office:\n%s", out)
	}
	if i, j := strings.Index(out, "2010–2015  state"), strings.Index(out, "2022–      state"); i < 0 || j < i {
		t.Errorf("the 2010 mayoralty should come before the 2022 one:\n%s", out)
	}
	out, err = runCLIAt(t, server, "timeline", "Lutfur Rahman", "--json")
	var doc struct {
		Entries []json.RawMessage
		Undated []json.RawMessage
	}
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Entries) < 10 || len(doc.Undated) != 2 {
		t.Errorf("--json: %v\n%s", err, out)
	}
	// Symmetric types are counted without a direction.
	out, err = runCLIAt(t, server, "entity", "Lutfur Rahman")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, ", 2 appeared with,", ", 2 formerly worked with")
	if strings.Contains(out, "with out") || strings.Contains(out, "with in") {
		t.Errorf("a symmetric type counted with a direction:\n%s", out)
	}
}

func TestCLISources(t *testing.T) {
	server, _ := serveDefaultInMemory(t)
	out, err := runCLIAt(t, server, "source", dailyMail)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, dailyMail+" (article, Daily Mail, 2023-11-03)\n", " claims cite it:\n",
		`  CONFIRMED 0.95  Election court accused Lutfur Rahman  "he was removed from office after being found guilty`)
	out, err = runCLIAt(t, server, "sources", "--kind", "article", "--outlet", "Daily Mail")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "1 source\n  "+dailyMail+" (article, Daily Mail, 2023-11-03): ") {
		t.Errorf("Daily Mail articles:\n%s", out)
	}
	_, err = runCLIAt(t, server, "sources", "--kind", "podcast")
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "--kind") {
		t.Errorf("an unknown kind: %v", err)
	}
	_, err = runCLIAt(t, server, "source", "sources/nobody-wrote-this")
	if err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("an unknown source: %v", err)
	}
}

func TestCLIStats(t *testing.T) {
	server, store := serveDefaultInMemory(t)
	out, err := runCLIAt(t, server, "stats")
	if err != nil {
		t.Fatal(err)
	}
	c, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], "Graph version ") || !strings.Contains(lines[0], ", last written 20") {
		t.Fatalf("stats:\n%s", out)
	}
	if want := fmt.Sprintf("In all: %d entities, %d relations, %d claims, %d sources", c.Entities, c.Relations, c.Claims, c.Sources); lines[1] != want {
		t.Errorf("the totals say %q; the store counts %q", lines[1], want)
	}
	wantLines(t, out, "Entities by kind:\n  actor ", "Relations by type:\n  ", "Claims by status:\n  ", "Sources by kind:\n  ")
}

func TestCLIConnections(t *testing.T) {
	server, _ := serveDefaultInMemory(t)
	out, err := runCLIAt(t, server, "connections", "Ajmal Masroor", "Rabina Khan")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "What Ajmal Masroor and Rabina Khan have in common\n", "Shared neighbours: 2\n",
		"  Lutfur Rahman (actor): joined to 2 of 2, strength 0.90\n",
		"    Ajmal Masroor formerly worked with — Lutfur Rahman (undated)\n",
		"  sources/tower-hamlets-general-election-2024 (article, 2024): joins Ajmal Masroor, Rabina Khan in 8 claims\n",
		"Routes:\n  Ajmal Masroor – Rabina Khan (2 hops): Ajmal Masroor —FORMERLY_WORKED_WITH— Lutfur Rahman —ENDORSES +2→ Rabina Khan\n")
	out, err = runCLIAt(t, server, "connections", "Ajmal Masroor", "Rabina Khan", "--max-shared", "1", "--max-depth", "1")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, out, "  and 1 more (raise --max-shared)\n", "  Ajmal Masroor – Rabina Khan: not connected within 1 hop\n")
	if _, err := runCLIAt(t, server, "connections", "Ajmal Masroor"); err != errUsage {
		t.Errorf("one entity: %v, want the usage error", err)
	}
}
