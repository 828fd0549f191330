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
		// polgraph's own format is read back: everything but the deleted entity, retracted claims marked
		// with their retractions, and the header says what the export is.
		if first, _, _ := strings.Cut(buf.String(), "\n"); !strings.Contains(first, `"description":"exported from polgraph, every relation whatever its claims, retracted claims marked"`) ||
			strings.Contains(first, `"filter"`) {
			t.Errorf("header %s", first)
		}
		ds, err := dataset.Read([]dataset.File{{Name: "export.jsonl", R: &buf}})
		if err != nil {
			t.Fatalf("the polgraph export does not read back: %v", err)
		}
		if len(ds.Entities) != 2 || len(ds.Relations) != 2 {
			t.Fatalf("read back %d entities, %d relations (%v)", len(ds.Entities), len(ds.Relations), ds.Relations)
		}
		for _, r := range ds.Relations {
			for _, c := range r.Claims {
				want := graph.Tombstone{}
				if c.Name != string(live)+"/claims/s" {
					want = graph.Tombstone{Time: gone.Time.UTC(), By: gone.By, Reason: gone.Reason}
				}
				if c.Retracted != want {
					t.Errorf("%s read back retracted %+v, want %+v", c.Name, c.Retracted, want)
				}
			}
		}
		var filtered bytes.Buffer
		g2 := g
		g2.Scope, g2.Filter = "the whole graph", graph.RelationFilter{AsOf: graph.FuzzyDate{Year: 2014}}.Words()
		if err := formats.Write(&filtered, f, g2); err != nil {
			t.Fatal(err)
		}
		want := `{"record":"dataset","format":"polgraph/v2","name":"export","description":"exported from polgraph: the whole graph, the relations that count under the filter (as of 2014; undated relations excluded; statuses ALLEGED, REPORTED, CONFIRMED (a relation some claim denies counts only through a CONFIRMED one))","filter":"as of 2014; undated relations excluded; statuses ALLEGED, REPORTED, CONFIRMED (a relation some claim denies counts only through a CONFIRMED one)","exported":true}`
		if first, _, _ := strings.Cut(filtered.String(), "\n"); first != want {
			t.Errorf("filtered header\n got %s\nwant %s", first, want)
		}
	}
	err := formats.Write(&bytes.Buffer{}, "pdf", g)
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("an unknown format: %v", err)
	}
}
