package review_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/review"
)

func TestWriteDatasetReadsBack(t *testing.T) {
	t.Parallel()
	ann, bob, labour := graph.EntityName("actors/ann"), graph.EntityName("actors/bob"), graph.EntityName("parties/labour")
	nia, gazette := graph.EntityName("actors/nia-newcomer"), graph.EntityName("organisations/east-gazette")
	r1 := reading("Night of the count", []review.Entity{
		{Name: nia, Kind: graph.KindActor, DisplayName: "Nia Newcomer", Aliases: []string{"Ms Newcomer"}},
		{Name: gazette, Kind: graph.KindOrganisation, DisplayName: "East Gazette"}},
		prop{graph.Endorses, ann, nia, graph.StatusReported, 0.8, "Ann endorsed Nia.", "2024-07", ""},
		prop{graph.Endorses, ann, nia, graph.StatusDenied, 0.9, "Ann did not endorse Nia, her office said.", "2024-07", ann},
		prop{graph.FormerlyWorkedWith, nia, bob, graph.StatusReported, 0.6, "Nia used to work with Bob.", "", ""},
		prop{graph.MemberOf, nia, labour, graph.StatusAlleged, 0.5, "Nia is said to be a Labour member.", "", ""})
	r2 := reading("The morning after", []review.Entity{{Name: nia, Kind: graph.KindActor, DisplayName: "Nia Newcomer", Aliases: []string{"Nia N."}},
		{Name: gazette, Kind: graph.KindOrganisation, DisplayName: "East Gazette"}},
		prop{graph.Criticised, gazette, nia, graph.StatusReported, 0.7, "The Gazette criticised Nia.", "2024-07-05", ""})
	var buf bytes.Buffer
	if err := review.WriteDataset(&buf, []review.Reading{r1, r2}); err != nil {
		t.Fatal(err)
	}

	// Alone, the file refers to entities it does not define; with a file that defines them, it reads.
	if _, err := dataset.Read([]dataset.File{{Name: "proposals.jsonl", R: bytes.NewReader(buf.Bytes())}}); graph.KindOf(err) != graph.Invalid ||
		!strings.Contains(err.Error(), "actors/ann") {
		t.Errorf("read alone: %v; want the undefined actors/ann reported", err)
	}
	existing := `{"record":"dataset","format":"polgraph/v2","name":"graph"}
{"record":"entity","name":"actors/ann","display_name":"Ann"}
{"record":"entity","name":"actors/bob","display_name":"Bob"}
{"record":"entity","name":"parties/labour","display_name":"Labour"}
`
	ds, err := dataset.Read([]dataset.File{{Name: "graph.jsonl", R: strings.NewReader(existing)}, {Name: "proposals.jsonl", R: bytes.NewReader(buf.Bytes())}})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	src1, src2 := review.SourceNameFor(r1.Document.Hash), review.SourceNameFor(r2.Document.Hash)
	wantSources := []graph.Source{{Name: src1, Title: "Night of the count", Kind: graph.SourceArticle, Outlet: "Test Gazette"},
		{Name: src2, Title: "The morning after", Kind: graph.SourceArticle, Outlet: "Test Gazette"}}
	if diff := cmp.Diff(wantSources, ds.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	var got []graph.Entity
	for _, e := range ds.Entities {
		if e.Name == nia || e.Name == gazette {
			got = append(got, graph.Entity{Name: e.Name, Kind: e.Kind, DisplayName: e.DisplayName, Aliases: e.Aliases})
		}
	}
	wantEntities := []graph.Entity{{Name: nia, Kind: graph.KindActor, DisplayName: "Nia Newcomer", Aliases: []string{"Ms Newcomer", "Nia N."}},
		{Name: gazette, Kind: graph.KindOrganisation, DisplayName: "East Gazette"}}
	if diff := cmp.Diff(wantEntities, got); diff != "" {
		t.Errorf("proposed entities (-want +got):\n%s", diff)
	}
	type rel struct {
		Name     graph.RelationName
		From, To graph.EntityName
		Date     string
		Claim    graph.Claim
	}
	var rels []rel
	for _, r := range ds.Relations {
		if len(r.Claims) != 1 {
			t.Errorf("%s has %d claims; want one per proposal", r.Name, len(r.Claims))
			continue
		}
		c := r.Claims[0]
		rels = append(rels, rel{r.Name, r.From, r.To, r.Date.String(), graph.Claim{Source: graph.Source{Name: c.Source.Name}, Excerpt: c.Excerpt,
			Confidence: c.Confidence, Status: c.Status, SaidBy: c.SaidBy}})
	}
	claim := func(src graph.SourceName, p review.Proposal) graph.Claim {
		return graph.Claim{Source: graph.Source{Name: src}, Excerpt: p.Excerpt, Confidence: p.Confidence, Status: p.Status, SaidBy: p.SaidBy}
	}
	p1, p2 := r1.Proposals, r2.Proposals
	wantRels := []rel{
		{"relations/ann.endorses.nia-newcomer", ann, nia, "2024-07", claim(src1, p1[0])},
		// The same relation again: keyed by its proposal's id, a relation of its own.
		{graph.RelationName("relations/ann.endorses.nia-newcomer." + strings.TrimPrefix(p1[1].ID, "proposals/")), ann, nia, "2024-07", claim(src1, p1[1])},
		// Symmetric: the ends in name order.
		{"relations/bob.formerly-worked-with.nia-newcomer", bob, nia, "", claim(src1, p1[2])},
		{"relations/nia-newcomer.member-of.labour", nia, labour, "", claim(src1, p1[3])},
		{"relations/east-gazette.criticised.nia-newcomer", gazette, nia, "2024-07-05", claim(src2, p2[0])},
	}
	if diff := cmp.Diff(wantRels, rels); diff != "" {
		t.Errorf("relations (-want +got):\n%s", diff)
	}

	// When every end is proposed, the file reads on its own.
	buf.Reset()
	if err := review.WriteDataset(&buf, []review.Reading{r2}); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.Read([]dataset.File{{Name: "alone.jsonl", R: &buf}}); err != nil {
		t.Errorf("a file whose ends are all proposed: %v", err)
	}
}
