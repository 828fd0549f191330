package dgraph

import (
	"bytes"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

func TestNQuadWriter(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewNQuadWriter(&buf)
	ent := graph.Entity{Name: "actors/zoe-obrien", Kind: graph.KindActor, DisplayName: `Zoë "Z" O'Brien`, Aliases: []string{"Z. O'Brien"},
		Identifiers: graph.Identifiers{"ocd": {"ocd-division/x"}}}
	rel := graph.Relation{Name: "relations/zoe-obrien.member-of.civic-forward", Type: graph.MemberOf, From: "actors/zoe-obrien",
		To: "parties/civic-forward", ValidFrom: graph.FuzzyDate{Year: 2001}, Claims: []graph.Claim{
			{Name: "relations/zoe-obrien.member-of.civic-forward/claims/s1", Source: graph.Source{Name: "sources/s1"},
				Excerpt: "line one\nline two \\ end", Confidence: 0.75, Status: graph.StatusReported},
			{Name: "relations/zoe-obrien.member-of.civic-forward/claims/s2", Source: graph.Source{Name: "sources/s2"},
				Excerpt: "No.", Confidence: 0.5, Status: graph.StatusDenied, SaidBy: "actors/zoe-obrien"},
		}}
	if err := w.WriteEntity(ent); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := w.WriteRelation(rel); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if other := NewNQuadWriter(&bytes.Buffer{}).BulkID(); w.BulkID() == "" || other == w.BulkID() {
		t.Errorf("two writers' loads are named %q and %q", w.BulkID(), other)
	}
	if int64(len(lines)) != w.Quads() {
		t.Errorf("%d lines, %d quads counted", len(lines), w.Quads())
	}
	e, r, c := label(string(ent.Name)), label(string(rel.Name)), label(rel.Claims[1].Name)
	for _, want := range []string{
		e + ` <pg.display_name> "Zoë \"Z\" O'Brien" .`,
		e + ` <pg.search_keys> "zoe z obrien" .`,
		e + ` <pg.search_tokens> "obrien" .`,
		e + ` <pg.identifiers> "{\"ocd\":\"ocd-division/x\"}" .`,
		e + ` <pg.ocd_id> "ocd-division/x" .`,
		r + ` <pg.from> ` + e + ` .`,
		r + ` <pg.start_day> "11323"^^<xs:int> .`,
		r + ` <pg.support> "-1 0.75 -1 0.5 0 1 0 1 1 1 2" .`,
		r + ` <pg.changed> "1"^^<xs:int> .`,
		label(rel.Claims[0].Name) + ` <pg.excerpt> "line one\nline two \\ end" .`,
		c + ` <pg.claim_of> ` + r + ` .`,
		c + ` <pg.confidence> "0.5"^^<xs:float> .`,
		c + ` <pg.said_by> ` + e + ` .`,
		label(metaName) + ` <pg.version> "1"^^<xs:int> .`,
		label(metaName) + ` <pg.bulk_id> "` + w.BulkID() + `" .`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %s\nin:\n%s", want, out)
		}
	}
	if n := strings.Count(out, `<pg.version>`); n != 1 {
		t.Errorf("the graph's version is written %d times; want once", n)
	}
	for _, absent := range []string{"<pg.valid_to>", "<pg.end_day>", "<pg.description>", "<pg.via>"} {
		if strings.Contains(out, absent) {
			t.Errorf("empty value written: %s", absent)
		}
	}
}
