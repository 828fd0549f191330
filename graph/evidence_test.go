package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// evidenceFeed gives, at each version, sources and relations whole, their claims naming their sources by
// name.
type evidenceFeed struct {
	version int64
	sources []Source
	rels    []Relation
}

func (f *evidenceFeed) Version(context.Context) (int64, error) { return f.version, nil }

func (f *evidenceFeed) Changes(_ context.Context, _ int64, each func(Changed)) (int64, error) {
	c := Changed{Sources: f.sources, Evidence: true}
	for _, r := range f.rels {
		l := Link{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Period: OpenPeriod, Life: OpenPeriod, Support: SupportOf(r.Claims)}
		named := slices.Clone(r.Claims)
		for i := range named {
			named[i].Source = Source{Name: named[i].Source.Name}
		}
		h := r
		h.Claims = named
		c.Links = append(c.Links, l)
		c.Headers = append(c.Headers, RelationHeader{Relation: h, ClaimCount: len(r.Claims), Support: l.Support, Verdict: VerdictOf(r.Claims)})
	}
	each(c)
	return f.version, nil
}

// The snapshot holds relations whole when the feed gives their claims: each reads back as given, its
// claims ordered by name and each with its source whole; a later source or claim changes a later
// snapshot only. Claims that cannot be held (a source the snapshot lacks, a status outside the
// vocabulary, a summary they do not agree with) leave the relation to the store.
func TestSnapshotHoldsRelationsWhole(t *testing.T) {
	paper := Source{Name: "sources/paper", Title: "The Paper", Kind: SourceArticle, Outlet: "Daily", Published: FuzzyDate{Year: 2015, Month: 3}}
	register := Source{Name: "sources/register", Title: "Register of interests", Kind: SourceDataset, Licence: "OGL"}
	name := RelationNameFor("actors/a", Endorses, "actors/b", "")
	rel := Relation{Name: name, Type: Endorses, From: "actors/a", To: "actors/b", Role: "backer", ValidFrom: FuzzyDate{Year: 2014},
		Claims: []Claim{
			{Name: ClaimNameFor(name, register.Name, ""), Source: register, Record: "row 12", Confidence: 1, Status: StatusConfirmed},
			{Name: ClaimNameFor(name, paper.Name, "denial"), Source: paper, Excerpt: "B denied it.", Confidence: 0.7, Status: StatusDenied, SaidBy: "actors/b"},
			{Name: ClaimNameFor(name, paper.Name, ""), Source: paper, Excerpt: "A backs B.", Confidence: 0.6, Status: StatusReported,
				Retracted: Tombstone{Time: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), By: "editor", Reason: "wrong"}},
		}}
	bare := Relation{Name: RelationNameFor("actors/a", Criticised, "actors/c", ""), Type: Criticised, From: "actors/a", To: "actors/c"}
	feed := &evidenceFeed{version: 1, sources: []Source{paper, register}, rels: []Relation{rel, bare}}
	topo := NewTopology(feed)
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := topologyReader{topo.snap.Load(), topo}
	want := rel
	want.Claims = slices.Clone(rel.Claims)
	slices.SortFunc(want.Claims, func(a, b Claim) int { return strings.Compare(a.Name, b.Name) })
	got := first.relations([]RelationName{rel.Name, bare.Name, "relations/unknown"})
	if !reflect.DeepEqual(got[rel.Name], want) || !reflect.DeepEqual(got[bare.Name], bare) || len(got) != 2 {
		t.Fatalf("the snapshot gives\n%+v\nwant\n%+v\nand %+v", got, want, bare)
	}

	// A retitled source and a new claim, in the next version.
	paper.Title = "The Paper, retitled"
	more := rel
	more.Claims = append(slices.Clone(rel.Claims), Claim{Name: ClaimNameFor(name, register.Name, "b"), Source: register, Confidence: 0.5, Status: StatusAlleged})
	feed.version, feed.sources, feed.rels = 2, []Source{paper}, []Relation{more}
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := topologyReader{topo.snap.Load(), topo}.relations([]RelationName{rel.Name})[rel.Name]
	if len(second.Claims) != 4 || second.Claims[1].Source.Title != paper.Title || second.Claims[3].Name != ClaimNameFor(name, register.Name, "b") {
		t.Errorf("the next snapshot gives %+v", second)
	}
	if again := first.relations([]RelationName{rel.Name})[rel.Name]; !reflect.DeepEqual(again, want) {
		t.Errorf("the first snapshot changed: it now gives\n%+v", again)
	}

	for what, change := range map[string]func(r *Relation){
		"an unknown source": func(r *Relation) { r.Claims[0].Source = Source{Name: "sources/nowhere"} },
		"an unknown status": func(r *Relation) { r.Claims[0].Status = "RUMOURED" },
	} {
		t.Run(what, func(t *testing.T) {
			r := rel
			r.Claims = slices.Clone(rel.Claims)
			change(&r)
			topo := NewTopology(&evidenceFeed{version: 1, sources: []Source{paper, register}, rels: []Relation{r}})
			if err := topo.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := (topologyReader{topo.snap.Load(), topo}).relations([]RelationName{r.Name}); len(got) != 0 {
				t.Errorf("the snapshot holds %+v", got)
			}
		})
	}
	t.Run("a summary the claims do not agree with", func(t *testing.T) {
		b := newSnapshotBuilder(&topoSnapshot{})
		for _, s := range []Source{paper, register} {
			b.setSource(s)
		}
		h := RelationHeader{Relation: rel, ClaimCount: len(rel.Claims), Support: SupportOf(rel.Claims), Verdict: VerdictOf(rel.Claims)}
		if _, ok := b.claimsOf(&h); !ok {
			t.Fatal("claims that agree with their summary were refused")
		}
		for _, bad := range []func(*RelationHeader){
			func(h *RelationHeader) { h.ClaimCount++ },
			func(h *RelationHeader) { h.Support[0] = 0.1 },
			func(h *RelationHeader) { h.Verdict.DenyingSources++ },
		} {
			h := h
			bad(&h)
			if _, ok := b.claimsOf(&h); ok {
				t.Errorf("claims were held with the summary %+v", h)
			}
		}
	})
}

// VerdictOf counts a few claims' distinct sources without sets: it agrees with the count by sets on
// random claims, retracted ones and statuses outside the vocabulary included.
func TestVerdictOfAgreesWithSets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	statuses := append(slices.Clone(ClaimStatuses), "RUMOURED")
	for range 2000 {
		claims := make([]Claim, r.IntN(20))
		for i := range claims {
			claims[i] = Claim{Source: Source{Name: SourceName(fmt.Sprintf("sources/s%d", r.IntN(4)))}, Status: statuses[r.IntN(len(statuses))]}
			if r.IntN(5) == 0 {
				claims[i].Retracted = Tombstone{Time: time.Unix(1, 0)}
			}
		}
		if got, want := VerdictOf(claims), verdictBySets(claims); got != want {
			t.Fatalf("VerdictOf(%+v) = %+v, want %+v", claims, got, want)
		}
	}
}
