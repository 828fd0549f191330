package dataset_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// TestWriterRoundTrip writes records and reads them back with Read: what comes back is what was written.
func TestWriterRoundTrip(t *testing.T) {
	t.Parallel()
	src := graph.Source{Name: "sources/ledger-2019", Title: `"Row" deepens \ again`, Kind: graph.SourceArticle, Outlet: "The Daily Ledger",
		Author: "Zoë O'Brien", Published: graph.FuzzyDate{Year: 2019, Month: 5}, URL: "https://news.example/ledger-2019"}
	post := graph.Source{Name: "sources/post-1", Title: "Post", Kind: graph.SourceSocialPost}
	ents := []graph.Entity{
		{Name: "actors/amina-khan", Kind: graph.KindActor, DisplayName: "Amina Khan", Aliases: []string{"A. Khan"},
			Description: "Politician.", Identifiers: graph.Identifiers{"wikidata": {"Q1"}}},
		{Name: "parties/civic-forward", Kind: graph.KindParty, DisplayName: "Civic Forward", ValidFrom: graph.FuzzyDate{Year: 1990}},
		{Name: "seats/ashford-north", Kind: graph.KindSeat, DisplayName: "Ashford North", ValidFrom: graph.FuzzyDate{Year: 2010},
			ValidTo: graph.FuzzyDate{Year: 2024}, Identifiers: graph.Identifiers{"ocd": {"ocd-division/country:gb/x:ashford-north"}}},
	}
	rel := func(t graph.RelationType, from, to graph.EntityName, key string) graph.Relation {
		return graph.Relation{Name: graph.RelationNameFor(from, t, to, key), Type: t, From: from, To: to}
	}
	member := rel(graph.MemberOf, "actors/amina-khan", "parties/civic-forward", "")
	member.ValidFrom, member.ValidTo = graph.FuzzyDate{Year: 2001, Month: 3}, graph.FuzzyDate{Year: 2015}
	member.Claims = []graph.Claim{
		{Name: graph.ClaimNameFor(member.Name, src.Name, ""), Source: graph.Source{Name: src.Name}, Excerpt: "She joined in 2001.",
			Confidence: 0.8, Status: graph.StatusReported},
		{Name: graph.ClaimNameFor(member.Name, src.Name, "denial"), Source: graph.Source{Name: src.Name}, Excerpt: `She said "never".`,
			Confidence: 0, Status: graph.StatusDenied, SaidBy: "actors/amina-khan"},
	}
	stood := rel(graph.CandidateFor, "actors/amina-khan", "seats/ashford-north", "2010")
	stood.Via, stood.Role, stood.Date = "parties/civic-forward", "Civic Forward candidate", graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}
	stood.Claims = []graph.Claim{{Name: graph.ClaimNameFor(stood.Name, post.Name, ""), Source: graph.Source{Name: post.Name},
		Excerpt: "Standing in Ashford North.", Confidence: 1, Status: graph.StatusConfirmed}}

	var buf bytes.Buffer
	w := dataset.NewWriter(&buf, "round-trip", "A test.")
	for _, s := range []graph.Source{src, post} {
		if err := w.WriteSource(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range ents {
		if err := w.WriteEntity(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []graph.Relation{member, stood} {
		if err := w.WriteRelation(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"outlet":""`) {
		t.Errorf("empty optional fields are written:\n%s", buf.String())
	}
	ds, err := dataset.Read([]dataset.File{{Name: "round-trip.jsonl", R: &buf}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []graph.Source{src, post}; !reflect.DeepEqual(ds.Sources, want) {
		t.Errorf("sources:\n got %+v\nwant %+v", ds.Sources, want)
	}
	if !reflect.DeepEqual(ds.Entities, ents) {
		t.Errorf("entities:\n got %+v\nwant %+v", ds.Entities, ents)
	}
	if want := []graph.Relation{member, stood}; !reflect.DeepEqual(ds.Relations, want) {
		t.Errorf("relations:\n got %+v\nwant %+v", ds.Relations, want)
	}
}

func TestWriterRejectsForeignNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rel  graph.Relation
	}{
		{"relation named otherwise", graph.Relation{Name: "relations/x", Type: graph.Family, From: "actors/a", To: "actors/b"}},
		{"claim named otherwise", graph.Relation{Name: "relations/a.family.b", Type: graph.Family, From: "actors/a", To: "actors/b",
			Claims: []graph.Claim{{Name: "relations/a.family.b/claims/other", Source: graph.Source{Name: "sources/s"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := dataset.NewWriter(&bytes.Buffer{}, "x", "")
			if err := w.WriteRelation(tc.rel); err == nil {
				t.Error("WriteRelation accepted it")
			}
		})
	}
}
