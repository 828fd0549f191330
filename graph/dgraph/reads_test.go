package dgraph_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// TestSourcesStatsAndWrittenAt writes sources cited by claims, then reads them back from the source's
// side, lists them by kind and outlet in pages, and counts the graph, checking each against what was
// written; the version's write time follows plain writes and bulk loads.
func TestSourcesStatsAndWrittenAt(t *testing.T) {
	ctx := context.Background()
	sources := []graph.Source{
		{Name: "sources/reads-a", Title: "A", Kind: graph.SourceArticle, Outlet: "Reads Gazette", Published: graph.FuzzyDate{Year: 2020}},
		{Name: "sources/reads-b", Title: "B", Kind: graph.SourceArticle, Outlet: "Reads Gazette"},
		{Name: "sources/reads-c", Title: "C", Kind: graph.SourceArticle, Outlet: "Other Paper"},
		{Name: "sources/reads-d", Title: "D", Kind: graph.SourceDataset, Outlet: "Reads Gazette"},
	}
	if err := store.UpsertSources(ctx, sources); err != nil {
		t.Fatal(err)
	}
	ents := []graph.Entity{{Name: "actors/reads-x", Kind: graph.KindActor, DisplayName: "X"},
		{Name: "actors/reads-y", Kind: graph.KindActor, DisplayName: "Y"}, {Name: "parties/reads-p", Kind: graph.KindParty, DisplayName: "P"}}
	var rels []graph.Relation
	// Source a backs five relations (one claim each, and a denial of the last); b backs one.
	for i := 0; i < 5; i++ {
		r := graph.Relation{Type: graph.Criticised, From: "actors/reads-x", To: "actors/reads-y", Date: graph.FuzzyDate{Year: 2010 + i}}
		r.Name = graph.RelationNameFor(r.From, r.Type, r.To, fmt.Sprint(2010+i))
		r.Claims = []graph.Claim{{Name: graph.ClaimNameFor(r.Name, "sources/reads-a", ""), Source: sources[0], Excerpt: fmt.Sprint("said ", i),
			Confidence: 0.5, Status: graph.StatusReported, SaidBy: "actors/reads-y"}}
		rels = append(rels, r)
	}
	rels[4].Claims = append(rels[4].Claims, graph.Claim{Name: graph.ClaimNameFor(rels[4].Name, "sources/reads-a", "denial"), Source: sources[0],
		Excerpt: "denied", Confidence: 0.7, Status: graph.StatusDenied})
	m := graph.Relation{Name: "relations/reads-x.member-of.reads-p", Type: graph.MemberOf, From: "actors/reads-x", To: "parties/reads-p"}
	m.Claims = []graph.Claim{{Name: graph.ClaimNameFor(m.Name, "sources/reads-b", ""), Source: sources[1], Excerpt: "a member", Confidence: 0.9, Status: graph.StatusConfirmed}}
	rels = append(rels, m)
	before := time.Now()
	load(t, ents, rels)

	// GetSource: every claim, in name order, each with its relation; pages fit together.
	var claims []graph.SourceClaim
	for offset := 0; offset < 10; offset += 4 {
		info, err := store.GetSource(ctx, "sources/reads-a", offset, 4)
		if err != nil {
			t.Fatal(err)
		}
		if info.ClaimCount != 6 || info.Source != sources[0] {
			t.Fatalf("source %+v with %d claims; want %+v with 6", info.Source, info.ClaimCount, sources[0])
		}
		claims = append(claims, info.Claims...)
	}
	if len(claims) != 6 {
		t.Fatalf("%d claims in pages of 4, want 6", len(claims))
	}
	for i, c := range claims {
		if i > 0 && claims[i-1].Claim.Name >= c.Claim.Name {
			t.Errorf("claims out of name order: %s then %s", claims[i-1].Claim.Name, c.Claim.Name)
		}
		if c.Relation.Type != graph.Criticised || c.Relation.From != "actors/reads-x" || c.Relation.To != "actors/reads-y" || c.Claim.Excerpt == "" {
			t.Errorf("claim %+v", c)
		}
	}
	if c := claims[0]; c.Claim.SaidBy != "actors/reads-y" || c.Claim.Status != graph.StatusReported || c.Claim.Confidence != 0.5 {
		t.Errorf("the first claim reads %+v", c.Claim)
	}
	if _, err := store.GetSource(ctx, "sources/reads-none", 0, 10); graph.KindOf(err) != graph.NotFound {
		t.Errorf("an unknown source: %v, want NotFound", err)
	}
	if _, err := store.GetSource(ctx, "actors/reads-x", 0, 10); graph.KindOf(err) != graph.NotFound {
		t.Errorf("an entity's name as a source: %v, want NotFound", err)
	}

	// ListSources: by kind and outlet, in name order, with claim counts and the total.
	list := func(q graph.SourceQuery) ([]string, int) {
		t.Helper()
		page, total, err := store.ListSources(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range page {
			out = append(out, fmt.Sprintf("%s:%d", s.Source.Name, s.ClaimCount))
		}
		return out, total
	}
	if got, total := list(graph.SourceQuery{Kind: graph.SourceArticle, Outlet: "Reads Gazette", Limit: 10}); total != 2 ||
		!reflect.DeepEqual(got, []string{"sources/reads-a:6", "sources/reads-b:1"}) {
		t.Errorf("articles of the Reads Gazette: %v of %d", got, total)
	}
	if got, total := list(graph.SourceQuery{Outlet: "Reads Gazette", Offset: 1, Limit: 1}); total != 3 || !reflect.DeepEqual(got, []string{"sources/reads-b:1"}) {
		t.Errorf("the second source of the Reads Gazette: %v of %d", got, total)
	}
	if got, total := list(graph.SourceQuery{Outlet: `Reads Gazette" OR 1`, Limit: 10}); total != 0 || len(got) != 0 {
		t.Errorf("an outlet no source has: %v of %d", got, total)
	}

	// ClaimSources: each relation's claims, lean.
	cs, err := store.ClaimSources(ctx, []graph.RelationName{rels[4].Name, m.Name, "relations/reads-none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || len(cs[rels[4].Name]) != 2 || cs[m.Name][0].Source.Name != "sources/reads-b" || cs[m.Name][0].Status != graph.StatusConfirmed {
		t.Errorf("claim sources: %+v", cs)
	}

	// Stats: the totals are Counts; the groups add up; the version is Version's; written since before.
	st, err := store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	version, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(m map[string]int) int {
		n := 0
		for _, c := range m {
			n += c
		}
		return n
	}
	if st.Counts != counts || st.Version != version {
		t.Errorf("stats %+v (version %d); Counts says %+v, Version %d", st.Counts, st.Version, counts, version)
	}
	if sum(strMap(st.EntitiesByKind)) != counts.Entities || sum(strMap(st.RelationsByType)) != counts.Relations ||
		sum(strMap(st.ClaimsByStatus)) != counts.Claims || sum(strMap(st.SourcesByKind)) != counts.Sources {
		t.Errorf("the groups do not add up to the totals: %+v", st)
	}
	if st.ClaimsByStatus[graph.StatusDenied] < 1 || st.SourcesByKind[graph.SourceDataset] < 1 || st.EntitiesByKind[graph.KindParty] < 1 {
		t.Errorf("the groups miss what was written: %+v", st)
	}
	if st.WrittenAt.Before(before.Add(-time.Second)) || st.WrittenAt.After(time.Now().Add(time.Second)) {
		t.Errorf("written at %v; the write was between %v and now", st.WrittenAt, before)
	}

	// A bulk load records its end.
	b, err := store.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := rels[0]
	r.Role = "again"
	if err := b.UpsertRelations(ctx, []graph.Relation{r}); err != nil {
		t.Fatal(err)
	}
	during, err := store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if during.Version != st.Version || !during.WrittenAt.Equal(st.WrittenAt) {
		t.Errorf("during a load the stats say version %d written at %v; want the last complete one, %d at %v", during.Version, during.WrittenAt, st.Version, st.WrittenAt)
	}
	// The load ends in a later millisecond than the last write (times are kept to the millisecond), so
	// that its time can be told from that one's.
	for !time.Now().Truncate(time.Millisecond).After(st.WrittenAt) {
		time.Sleep(time.Millisecond)
	}
	beforeEnd := time.Now()
	if err := b.End(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != st.Version+1 || after.WrittenAt.Before(beforeEnd.Add(-time.Second)) || !after.WrittenAt.After(st.WrittenAt) {
		t.Errorf("after the load: version %d written at %v; want %d, written at its end (%v)", after.Version, after.WrittenAt, st.Version+1, beforeEnd)
	}
}

func strMap[K ~string](m map[K]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}
