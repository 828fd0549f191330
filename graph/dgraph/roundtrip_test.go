package dgraph_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/formats"
)

// TestExportLoadExportOnDgraph: the default graph, with a claim retracted, exported whole in polgraph's
// format, loaded into an empty Dgraph and exported again gives the same file, byte for byte: every
// status, the retraction with its time, author and reason.
func TestExportLoadExportOnDgraph(t *testing.T) {
	ctx := context.Background()
	if _, err := store.Version(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreGraph(t) })
	export := func(s *dgraph.Store) []byte {
		t.Helper()
		sub, err := (&service.Service{Store: s}).Export(ctx, graph.ExportQuery{Unfiltered: true})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := formats.Write(&buf, "polgraph", sub); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	loadInto := func(s *dgraph.Store, name string, r *bytes.Reader) {
		t.Helper()
		ds, err := dataset.Read([]dataset.File{{Name: name, R: r}})
		if err != nil {
			t.Fatal(err)
		}
		if err := dataset.Load(ctx, s, ds, 500, nil); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("../../data/tower-hamlets/tower-hamlets.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := freshStore(t)
	loadInto(s, "tower-hamlets.jsonl", bytes.NewReader(data))
	// While the default graph is loaded: a candidacy counts before its seat exists (graph.LifeOf), on
	// Dgraph's links and on those its change feed gives the graph in memory.
	asOf := graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2024, Month: 6}}
	candidacy := graph.RelationName("relations/ajmal-masroor.candidate-for.bethnal-green-and-stepney")
	links, err := s.Links(ctx, []graph.EntityName{"actors/ajmal-masroor"})
	if err != nil {
		t.Fatal(err)
	}
	var fed []graph.Link
	if _, err := s.Changes(ctx, 0, func(c graph.Changed) { fed = append(fed, c.Links...) }); err != nil {
		t.Fatal(err)
	}
	for what, ls := range map[string][]graph.Link{"Links": links["actors/ajmal-masroor"], "Changes": fed} {
		i := slices.IndexFunc(ls, func(l graph.Link) bool { return l.Name == candidacy })
		if i < 0 || !asOf.Counts(ls[i]) {
			t.Errorf("%s: Ajmal Masroor's candidacy does not count as of 2024-06 (%v)", what, i >= 0 && asOf.Counts(ls[i]))
		}
	}
	claim := "relations/lutfur-rahman.founded.aspire/claims/daily-mail-2023-11-03-lutfur-rahman"
	if _, err := s.RetractClaim(graph.WithWriteMeta(ctx, graph.WriteMeta{Principal: "key ed"}), claim, "misquoted"); err != nil {
		t.Fatal(err)
	}
	before, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := export(s)

	again := freshStore(t)
	loadInto(again, "export.jsonl", bytes.NewReader(first))
	after, err := again.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the graph held %+v; loaded from its export, %+v", before, after)
	}
	second := export(again)
	if !bytes.Equal(first, second) {
		a, b := strings.Split(string(first), "\n"), strings.Split(string(second), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("export → load → export differs at line %d:\n first %s\nsecond %s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("export → load → export: %d lines, then %d", len(a), len(b))
	}
	text := string(first)
	if n := strings.Count(text, `{"record":"relation"`); n != 114 {
		t.Errorf("%d relations exported, want 114", n)
	}
	if n := strings.Count(text, `"status":"DENIED"`); n != 3 {
		t.Errorf("%d denials exported, want 3", n)
	}
	if !strings.Contains(text, `"by":"key ed","reason":"misquoted"}`) {
		t.Error("the retraction is not in the export")
	}
}
