package formats_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/internal/formats"
)

func TestEveryFormatWrites(t *testing.T) {
	src := graph.Source{Name: "sources/s", Title: "S", Kind: graph.SourceArticle}
	gone := graph.Tombstone{Time: time.Unix(1, 0), By: "key ed", Reason: "duplicate"}
	claim := func(rel graph.RelationName, key string, retracted bool) graph.Claim {
		c := graph.Claim{Name: graph.ClaimNameFor(rel, src.Name, key), Source: src, Excerpt: "A backs B.", Confidence: 0.9, Status: graph.StatusReported}
		if retracted {
			c.Retracted = gone
		}
		return c
	}
	live := graph.RelationNameFor("actors/a", graph.Endorses, "actors/b", "")
	retracted := graph.RelationNameFor("actors/b", graph.Endorses, "actors/a", "")
	g := graph.Subgraph{
		Sources: []graph.Source{src},
		Entities: []graph.Entity{
			{Name: "actors/a", Kind: graph.KindActor, DisplayName: "A"},
			{Name: "actors/b", Kind: graph.KindActor, DisplayName: "B"},
			{Name: "actors/c", Kind: graph.KindActor, DisplayName: "C", Deleted: gone},
		},
		Relations: []graph.Relation{
			{Name: live, Type: graph.Endorses, From: "actors/a", To: "actors/b", Claims: []graph.Claim{claim(live, "", false), claim(live, "k", true)}},
			{Name: retracted, Type: graph.Endorses, From: "actors/b", To: "actors/a", Claims: []graph.Claim{claim(retracted, "", true)}},
		},
	}
	for _, f := range formats.Names {
		var buf bytes.Buffer
		if err := formats.Write(&buf, f, g); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if buf.Len() == 0 || formats.MediaType(f) == "" {
			t.Errorf("%s: %d bytes, media type %q", f, buf.Len(), formats.MediaType(f))
		}
		if f != "polgraph" {
			continue
		}
		// polgraph's own format is read back: what counts, without tombstones or retracted claims.
		ds, err := dataset.Read([]dataset.File{{Name: "export.jsonl", R: &buf}})
		if err != nil {
			t.Fatalf("the polgraph export does not read back: %v", err)
		}
		if len(ds.Entities) != 2 || len(ds.Relations) != 1 || len(ds.Relations[0].Claims) != 1 {
			t.Errorf("read back %d entities, %d relations (%v)", len(ds.Entities), len(ds.Relations), ds.Relations)
		}
	}
	err := formats.Write(&bytes.Buffer{}, "pdf", g)
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("an unknown format: %v", err)
	}
}
