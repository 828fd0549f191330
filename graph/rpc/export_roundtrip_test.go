package rpc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/internal/synth"
)

// exportFile asks for an export and returns the file.
func exportFile(t *testing.T, client pb.GraphServiceClient, req *pb.ExportGraphRequest) []byte {
	t.Helper()
	stream, err := client.ExportGraph(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return buf.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(msg.GetData())
	}
}

// loadFile loads a dataset file into a new store in memory.
func loadFile(t *testing.T, file []byte) *memstore.Store {
	t.Helper()
	ds, err := dataset.Read([]dataset.File{{Name: "export.jsonl", R: bytes.NewReader(file)}})
	if err != nil {
		t.Fatalf("the export does not read back: %v", err)
	}
	store := memstore.New()
	if err := dataset.Load(context.Background(), store, ds, 500, nil); err != nil {
		t.Fatal(err)
	}
	return store
}

// TestExportLoadExportIsIdentical: a whole-graph export in polgraph's format, loaded into an empty graph,
// exports to the same file, byte for byte, and holds everything the graph held: every status, retracted
// claims marked, every source.
func TestExportLoadExportIsIdentical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	synthetic := func(t *testing.T) *memstore.Store {
		var buf bytes.Buffer
		w := dataset.NewWriter(&buf, "synthetic", "")
		if _, err := synth.Generate(synth.Config{Relations: 10_000, Seed: 52}, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return loadFile(t, buf.Bytes())
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) *memstore.Store
	}{
		{"default graph", func(t *testing.T) *memstore.Store { _, s := serveDefaultGraph(t); return s }},
		{"synthetic 10k graph", synthetic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := tc.graph(t)
			// A retracted claim, an uncited source and an entity in no relation must survive too.
			if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/never-cited", Title: "Never cited", Kind: graph.SourceOther}}); err != nil {
				t.Fatal(err)
			}
			if err := store.UpsertEntities(ctx, []graph.Entity{{Name: "actors/export-loner", Kind: graph.KindActor, DisplayName: "Export Loner"}}); err != nil {
				t.Fatal(err)
			}
			retracted := firstClaim(t, store)
			if _, err := store.RetractClaim(graph.WithWriteMeta(ctx, graph.WriteMeta{Principal: "key ed"}), retracted, "misquoted"); err != nil {
				t.Fatal(err)
			}
			before := counts(t, store)

			first := exportFile(t, serveGraph(t, store), &pb.ExportGraphRequest{Format: "polgraph"})
			reloaded := loadFile(t, first)
			if got := counts(t, reloaded); got != before {
				t.Errorf("the graph held %+v; loaded from its export, %+v", before, got)
			}
			second := exportFile(t, serveGraph(t, reloaded), &pb.ExportGraphRequest{Format: "polgraph", Filter: &pb.RelationFilter{}})
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
			for _, want := range []string{`"status":"DENIED"`, `"retracted":{"time":"`, `"by":"key ed","reason":"misquoted"}`,
				`"name":"sources/never-cited"`, `"name":"actors/export-loner"`} {
				if !strings.Contains(text, want) && (want != `"status":"DENIED"` || tc.name == "default graph") {
					t.Errorf("the export lacks %s", want)
				}
			}
		})
	}
}

// firstClaim is the name of a claim of the store's first relation.
func firstClaim(t *testing.T, store *memstore.Store) string {
	t.Helper()
	var name string
	_, err := store.Changes(context.Background(), 0, func(c graph.Changed) {
		for _, l := range c.Links {
			if name != "" {
				return
			}
			rels, err := store.GetRelations(context.Background(), []graph.RelationName{l.Name})
			if err == nil && len(rels[l.Name].Claims) > 0 {
				name = rels[l.Name].Claims[0].Name
			}
		}
	})
	if err != nil || name == "" {
		t.Fatalf("no claim to retract: %v", err)
	}
	return name
}

// TestWholeGraphExportIsLossless: the default graph's export holds its 114 relations, the disputed
// endorsement and its three denials among them; a filtered export holds what the filter counts and says
// the filter in its header.
func TestWholeGraphExportIsLossless(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	tests := []struct {
		name       string
		filter     *pb.RelationFilter
		relations  int
		denied     int
		headerHas  string
		headerLack string
	}{
		{"no filter", nil, 114, 3, `every relation whatever its claims, retracted claims marked"`, `"filter"`},
		{"an empty filter", &pb.RelationFilter{}, 114, 3, `every relation whatever its claims`, `"filter"`},
		{"the default statuses", &pb.RelationFilter{Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED,
			pb.ClaimStatus_CLAIM_STATUS_REPORTED, pb.ClaimStatus_CLAIM_STATUS_CONFIRMED}}, 113, 0,
			`"filter":"statuses ALLEGED, REPORTED, CONFIRMED (a relation some claim denies counts only through a CONFIRMED one)"`, ""},
		{"as of 2014", &pb.RelationFilter{AsOf: "2014"}, -1, 0, `"filter":"as of 2014; undated relations excluded; statuses`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := string(exportFile(t, client, &pb.ExportGraphRequest{Format: "polgraph", Filter: tc.filter}))
			header, _, _ := strings.Cut(file, "\n")
			if !strings.Contains(header, tc.headerHas) || tc.headerLack != "" && strings.Contains(header, tc.headerLack) {
				t.Errorf("header %s; want %s and not %q", header, tc.headerHas, tc.headerLack)
			}
			if n := strings.Count(file, `{"record":"relation"`); tc.relations >= 0 && n != tc.relations {
				t.Errorf("%d relations, want %d", n, tc.relations)
			}
			if n := strings.Count(file, `"status":"DENIED"`); n != tc.denied {
				t.Errorf("%d denials, want %d", n, tc.denied)
			}
		})
	}
}
