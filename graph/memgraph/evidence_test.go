package memgraph

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// evidenceFeed gives, at each version, sources and relations whole, their claims naming their sources by
// name.
type evidenceFeed struct {
	version int64
	sources []graph.Source
	rels    []graph.Relation
}

func (f *evidenceFeed) Version(context.Context) (int64, error) { return f.version, nil }

func (f *evidenceFeed) Changes(_ context.Context, _ int64, each func(graph.Changed)) (int64, error) {
	c := graph.Changed{Sources: f.sources, Evidence: true}
	for _, r := range f.rels {
		l := graph.Link{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Period: graph.OpenPeriod, Life: graph.OpenPeriod, Support: graph.SupportOf(r.Claims)}
		named := slices.Clone(r.Claims)
		for i := range named {
			named[i].Source = graph.Source{Name: named[i].Source.Name}
		}
		h := r
		h.Claims = named
		c.Links = append(c.Links, l)
		c.Headers = append(c.Headers, graph.RelationHeader{Relation: h, ClaimCount: len(r.Claims), Support: l.Support, Verdict: graph.VerdictOf(r.Claims)})
	}
	each(c)
	return f.version, nil
}

// The snapshot holds relations whole when the feed gives their claims: each reads back as given, its
// claims ordered by name and each with its source whole; a later source or claim changes a later
// snapshot only. Claims that cannot be held (a source the snapshot lacks, a status outside the
// vocabulary, a summary they do not agree with) leave the relation to the store.
func TestSnapshotHoldsRelationsWhole(t *testing.T) {
	paper := graph.Source{Name: "sources/paper", Title: "The Paper", Kind: graph.SourceArticle, Outlet: "Daily", Published: graph.FuzzyDate{Year: 2015, Month: 3}}
	register := graph.Source{Name: "sources/register", Title: "Register of interests", Kind: graph.SourceDataset, Licence: "OGL"}
	name := graph.RelationNameFor("actors/a", graph.Endorses, "actors/b", "")
	rel := graph.Relation{Name: name, Type: graph.Endorses, From: "actors/a", To: "actors/b", Role: "backer", ValidFrom: graph.FuzzyDate{Year: 2014},
		Claims: []graph.Claim{
			{Name: graph.ClaimNameFor(name, register.Name, ""), Source: register, Record: "row 12", Confidence: 1, Status: graph.StatusConfirmed},
			{Name: graph.ClaimNameFor(name, paper.Name, "denial"), Source: paper, Excerpt: "B denied it.", Confidence: 0.7, Status: graph.StatusDenied, SaidBy: "actors/b"},
			{Name: graph.ClaimNameFor(name, paper.Name, ""), Source: paper, Excerpt: "A backs B.", Confidence: 0.6, Status: graph.StatusReported,
				Retracted: graph.Tombstone{Time: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), By: "editor", Reason: "wrong"}},
		}}
	bare := graph.Relation{Name: graph.RelationNameFor("actors/a", graph.Criticised, "actors/c", ""), Type: graph.Criticised, From: "actors/a", To: "actors/c"}
	feed := &evidenceFeed{version: 1, sources: []graph.Source{paper, register}, rels: []graph.Relation{rel, bare}}
	topo := NewTopology(feed)
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := topologyReader{topo.snap.Load(), topo}
	want := rel
	want.Claims = slices.Clone(rel.Claims)
	slices.SortFunc(want.Claims, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
	got := first.relations([]graph.RelationName{rel.Name, bare.Name, "relations/unknown"})
	if !reflect.DeepEqual(got[rel.Name], want) || !reflect.DeepEqual(got[bare.Name], bare) || len(got) != 2 {
		t.Fatalf("the snapshot gives\n%+v\nwant\n%+v\nand %+v", got, want, bare)
	}

	// A retitled source and a new claim, in the next version.
	paper.Title = "The Paper, retitled"
	more := rel
	more.Claims = append(slices.Clone(rel.Claims), graph.Claim{Name: graph.ClaimNameFor(name, register.Name, "b"), Source: register, Confidence: 0.5, Status: graph.StatusAlleged})
	feed.version, feed.sources, feed.rels = 2, []graph.Source{paper}, []graph.Relation{more}
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := topologyReader{topo.snap.Load(), topo}.relations([]graph.RelationName{rel.Name})[rel.Name]
	if len(second.Claims) != 4 || second.Claims[1].Source.Title != paper.Title || second.Claims[3].Name != graph.ClaimNameFor(name, register.Name, "b") {
		t.Errorf("the next snapshot gives %+v", second)
	}
	if again := first.relations([]graph.RelationName{rel.Name})[rel.Name]; !reflect.DeepEqual(again, want) {
		t.Errorf("the first snapshot changed: it now gives\n%+v", again)
	}

	for what, change := range map[string]func(r *graph.Relation){
		"an unknown source": func(r *graph.Relation) { r.Claims[0].Source = graph.Source{Name: "sources/nowhere"} },
		"an unknown status": func(r *graph.Relation) { r.Claims[0].Status = "RUMOURED" },
	} {
		t.Run(what, func(t *testing.T) {
			r := rel
			r.Claims = slices.Clone(rel.Claims)
			change(&r)
			topo := NewTopology(&evidenceFeed{version: 1, sources: []graph.Source{paper, register}, rels: []graph.Relation{r}})
			if err := topo.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := (topologyReader{topo.snap.Load(), topo}).relations([]graph.RelationName{r.Name}); len(got) != 0 {
				t.Errorf("the snapshot holds %+v", got)
			}
		})
	}
	t.Run("a summary the claims do not agree with", func(t *testing.T) {
		b := newSnapshotBuilder(&topoSnapshot{})
		for _, s := range []graph.Source{paper, register} {
			b.setSource(s)
		}
		h := graph.RelationHeader{Relation: rel, ClaimCount: len(rel.Claims), Support: graph.SupportOf(rel.Claims), Verdict: graph.VerdictOf(rel.Claims)}
		if _, ok := b.claimsOf(&h); !ok {
			t.Fatal("claims that agree with their summary were refused")
		}
		for _, bad := range []func(*graph.RelationHeader){
			func(h *graph.RelationHeader) { h.ClaimCount++ },
			func(h *graph.RelationHeader) { h.Support[0] = 0.1 },
			func(h *graph.RelationHeader) { h.Verdict.DenyingSources++ },
		} {
			h := h
			bad(&h)
			if _, ok := b.claimsOf(&h); ok {
				t.Errorf("claims were held with the summary %+v", h)
			}
		}
	})
}
