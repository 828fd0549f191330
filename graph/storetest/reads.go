package storetest

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// testGetEntityNotFound: a name of no entity, or of another kind of resource, is NotFound with its
// reason; an entity written is read back as written.
func testGetEntityNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	for _, n := range []graph.EntityName{"actors/nobody", graph.EntityName(foundedName), graph.EntityName(srcArticle.Name)} {
		_, err := s.GetEntity(ctx, n)
		if graph.KindOf(err) != graph.NotFound || reasonOf(err) != "ENTITY_NOT_FOUND" {
			t.Errorf("GetEntity(%s): %v (kind %v, reason %q), want NotFound, ENTITY_NOT_FOUND", n, err, graph.KindOf(err), reasonOf(err))
		}
	}
	for _, want := range []graph.Entity{lutfur, seat, jose} {
		got, err := s.GetEntity(ctx, want.Name)
		must(t, err)
		diff(t, "GetEntity("+string(want.Name)+")", want, got)
	}
}

// testMissingNamesAbsent: every read by names leaves out the names of nothing (and of resources of
// another kind), and keeps those that exist.
func testMissingNamesAbsent(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	const nobody, noRelation = graph.EntityName("actors/nobody"), graph.RelationName("relations/nobody.founded.nothing")

	ents, err := s.GetEntities(ctx, []graph.EntityName{lutfur.Name, nobody, graph.EntityName(foundedName)})
	must(t, err)
	diff(t, "GetEntities", map[graph.EntityName]graph.Entity{lutfur.Name: lutfur}, ents)

	relNames := []graph.RelationName{foundedName, noRelation, graph.RelationName(lutfur.Name)}
	rels, err := s.GetRelations(ctx, relNames)
	must(t, err)
	diff(t, "GetRelations: names read", []graph.RelationName{foundedName}, sortedKeys(rels))
	headers, err := s.RelationHeaders(ctx, relNames)
	must(t, err)
	diff(t, "RelationHeaders: names read", []graph.RelationName{foundedName}, sortedKeys(headers))
	claims, err := s.ClaimSources(ctx, relNames)
	must(t, err)
	diff(t, "ClaimSources: names read", []graph.RelationName{foundedName}, sortedKeys(claims))

	degrees, err := s.Degrees(ctx, []graph.EntityName{lutfur.Name, nobody})
	must(t, err)
	diff(t, "Degrees", map[graph.EntityName]int{lutfur.Name: 3}, degrees)
	links, err := s.Links(ctx, []graph.EntityName{jose.Name, nobody})
	must(t, err)
	diff(t, "Links: names read", []graph.EntityName{jose.Name}, sortedKeys(links))
	vias, err := s.ViaLinks(ctx, []graph.EntityName{rushanara.Name, nobody})
	must(t, err)
	diff(t, "ViaLinks: names read", []graph.EntityName{rushanara.Name}, sortedKeys(vias))
}

// sortedKeys lists a map's keys in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := []K{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// testGetRelations: each relation whole, its claims in name order with their sources whole.
func testGetRelations(t *testing.T, s Subject) {
	f := writeFixture(t, s)
	var all []graph.RelationName
	for _, r := range f.relations {
		all = append(all, r.Name)
	}
	got, err := s.GetRelations(t.Context(), all)
	must(t, err)
	if len(got) != len(f.relations) {
		t.Errorf("GetRelations read %d relations of %d", len(got), len(f.relations))
	}
	for _, r := range f.relations {
		diff(t, "GetRelations("+string(r.Name)+")", withSources(r, f.sourceMap()), got[r.Name])
	}
	if c := got[foundedName].Claims; len(c) != 2 || c[1].Source.Title != srcArticle.Title || c[0].SaidBy != rushanara.Name {
		t.Errorf("the claims of %s: %+v; want the post's (said by %s), then the article's titled %q", foundedName, c, rushanara.Name, srcArticle.Title)
	}
}

// testRelationHeaders: a header holds the relation without its claims, how many claims it has, the best
// confidence of each status and the distinct sources for and against.
func testRelationHeaders(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	// A second claim of the article's backs founded, weaker than the post's: one more claim, the same
	// sources.
	again := founded
	again.Claims = []graph.Claim{{Name: graph.ClaimNameFor(foundedName, srcArticle.Name, "2"), Source: graph.Source{Name: srcArticle.Name},
		Excerpt: "Aspire, the party Rahman founded", Confidence: 0.3, Status: graph.StatusReported}}
	must(t, s.UpsertRelations(ctx, []graph.Relation{again}))

	got, err := s.RelationHeaders(ctx, []graph.RelationName{foundedName, workedName, memberName, appearedName})
	must(t, err)
	want := map[graph.RelationName]graph.RelationHeader{
		foundedName: {Relation: bare(founded), ClaimCount: 3, Support: graph.Support{-1, 0.6, 0.9, -1},
			Verdict: graph.Verdict{Claims: [4]int{0, 2, 1, 0}, SupportingSources: 2}},
		workedName: {Relation: bare(worked), ClaimCount: 2, Support: graph.Support{0.4, -1, -1, 0.7},
			Verdict: graph.Verdict{Claims: [4]int{1, 0, 0, 1}, SupportingSources: 1, DenyingSources: 1}},
		memberName: {Relation: bare(member), ClaimCount: 1, Support: graph.Support{-1, -1, 1, -1},
			Verdict: graph.Verdict{Claims: [4]int{0, 0, 1, 0}, SupportingSources: 1}},
		appearedName: {Relation: bare(appeared), ClaimCount: 0, Support: graph.NoSupport},
	}
	diff(t, "RelationHeaders", want, got)
}

// testLinks: every relation an entity takes part in, from either end, with its period, its ends'
// lifetimes and its support.
func testLinks(t *testing.T, s Subject) {
	writeFixture(t, s)
	want := fixtureLinks()
	for _, c := range []struct {
		entity graph.Entity
		links  []graph.RelationName
	}{
		{lutfur, []graph.RelationName{foundedName, workedName, criticisedName}},
		{rushanara, []graph.RelationName{memberName, holdsName, workedName, appearedName}},
		{jose, []graph.RelationName{criticisedName, appearedName}},
		{aspire, []graph.RelationName{foundedName}},
		{labour, []graph.RelationName{memberName}},
		{seat, []graph.RelationName{holdsName}},
		{term, nil},
	} {
		diff(t, "Links of "+string(c.entity.Name), pick(want, c.links...), linksOf(t, s, c.entity.Name))
	}
	// All at once, as path search asks.
	all, err := s.Links(t.Context(), []graph.EntityName{lutfur.Name, aspire.Name, term.Name})
	must(t, err)
	if _, ok := all[term.Name]; !ok || len(all[lutfur.Name]) != 3 || len(all[aspire.Name]) != 1 {
		t.Errorf("Links of three entities at once: %d, %d and %d links (term present: %t); want 3, 1 and 0, all present",
			len(all[lutfur.Name]), len(all[aspire.Name]), len(all[term.Name]), ok)
	}
}

// testDegrees: every relation counts, of whatever type; a via or a term does not.
func testDegrees(t *testing.T, s Subject) {
	f := writeFixture(t, s)
	got, err := s.Degrees(t.Context(), f.entityNames())
	must(t, err)
	want := map[graph.EntityName]int{lutfur.Name: 3, rushanara.Name: 4, jose.Name: 2, aspire.Name: 1, labour.Name: 1, seat.Name: 1, term.Name: 0}
	diff(t, "Degrees", want, got)
}

// testRelationCounts: relations by type and direction, a symmetric relation outgoing from either end.
func testRelationCounts(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	joined := graph.RelationNameFor(rushanara.Name, graph.MemberOf, aspire.Name, "")
	must(t, s.UpsertRelations(ctx, []graph.Relation{{Name: joined, Type: graph.MemberOf, From: rushanara.Name, To: aspire.Name,
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(joined, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name},
			Confidence: 0.2, Status: graph.StatusAlleged}}}}))
	for _, c := range []struct {
		entity graph.EntityName
		want   []graph.RelationCount // most first, then by type, outgoing before incoming
	}{
		{lutfur.Name, []graph.RelationCount{{Type: graph.Criticised, Outgoing: false, Count: 1},
			{Type: graph.FormerlyWorkedWith, Outgoing: true, Count: 1}, {Type: graph.Founded, Outgoing: true, Count: 1}}},
		{rushanara.Name, []graph.RelationCount{{Type: graph.MemberOf, Outgoing: true, Count: 2},
			{Type: graph.AppearedWith, Outgoing: true, Count: 1}, {Type: graph.FormerlyWorkedWith, Outgoing: true, Count: 1},
			{Type: graph.HoldsOffice, Outgoing: true, Count: 1}}},
		{aspire.Name, []graph.RelationCount{{Type: graph.Founded, Outgoing: false, Count: 1}, {Type: graph.MemberOf, Outgoing: false, Count: 1}}},
		{seat.Name, []graph.RelationCount{{Type: graph.HoldsOffice, Outgoing: false, Count: 1}}},
		{term.Name, nil},
		{"actors/nobody", nil},
	} {
		got, err := s.RelationCounts(ctx, c.entity)
		must(t, err)
		diff(t, "RelationCounts("+string(c.entity)+")", c.want, got)
	}
}

// testCounts: entities, relations, claims and sources, from nothing on.
func testCounts(t *testing.T, s Subject) {
	ctx := t.Context()
	diff(t, "Counts of an empty graph", graph.GraphCounts{}, counts(t, s))
	writeFixture(t, s)
	diff(t, "Counts", graph.GraphCounts{Entities: 7, Relations: 6, Claims: 7, Sources: 3}, counts(t, s))
	must(t, s.UpsertSources(ctx, []graph.Source{{Name: "sources/uncited", Title: "Cited by nothing", Kind: graph.SourceOther}}))
	diff(t, "Counts after a source no claim cites", graph.GraphCounts{Entities: 7, Relations: 6, Claims: 7, Sources: 4}, counts(t, s))
}

// testFindByName: a display name or alias found whatever its case, accents and punctuation, and only as
// a whole; several entities of one name in name order.
func testFindByName(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	other := graph.Entity{Name: "organisations/aspire", Kind: graph.KindOrganisation, DisplayName: "ASPIRE!"}
	must(t, s.UpsertEntities(ctx, []graph.Entity{other}))
	for _, c := range []struct {
		text string
		want []graph.EntityName
	}{
		{"Lutfur Rahman", []graph.EntityName{lutfur.Name}},
		{"  lutfur   RAHMAN ", []graph.EntityName{lutfur.Name}},
		{"Lutfur Rahman OBE", []graph.EntityName{lutfur.Name}}, // an alias
		{"José O'Neill-Núñez", []graph.EntityName{jose.Name}},
		{"jose oneill nunez", []graph.EntityName{jose.Name}},
		{"JOSE O’NEILL NUNEZ", []graph.EntityName{jose.Name}},
		{"José, O'Neill; Núñez.", []graph.EntityName{jose.Name}},
		{"labour", []graph.EntityName{labour.Name}}, // an alias
		{"aspire", []graph.EntityName{other.Name, aspire.Name}},
		{"Rahman", nil},        // a word of a name is not the name
		{"Lutfur Rahmen", nil}, // nor is a name spelt nearly so
		{"", nil},
		{"?!", nil},
	} {
		got, err := s.FindByName(ctx, c.text)
		must(t, err)
		diff(t, "FindByName("+c.text+")", c.want, names(got))
	}
}

// testSearch: names and aliases ranked best first, close spellings found, kinds filtered.
func testSearch(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	other := graph.Entity{Name: "organisations/aspire", Kind: graph.KindOrganisation, DisplayName: "Aspire"}
	must(t, s.UpsertEntities(ctx, []graph.Entity{other}))
	for _, c := range []struct {
		q    graph.SearchQuery
		want []graph.SearchResult
	}{
		{graph.SearchQuery{Text: "Lutfur Rahman"}, []graph.SearchResult{{Entity: lutfur, Matched: "Lutfur Rahman", Score: 1}}},
		{graph.SearchQuery{Text: "rushanara begum ali"}, []graph.SearchResult{{Entity: rushanara, Matched: "Rushanara Begum Ali", Score: 1}}},
		{graph.SearchQuery{Text: "Labour"}, []graph.SearchResult{{Entity: labour, Matched: "Labour", Score: 1}}},
		// One letter off in 13: the whole name scores 12/13.
		{graph.SearchQuery{Text: "Lutfor Rahman"}, []graph.SearchResult{{Entity: lutfur, Matched: "Lutfur Rahman", Score: 12.0 / 13}}},
		{graph.SearchQuery{Text: "Aspire"}, []graph.SearchResult{{Entity: other, Matched: "Aspire", Score: 1}, {Entity: aspire, Matched: "Aspire", Score: 1}}},
		{graph.SearchQuery{Text: "Aspire", Kinds: []graph.Kind{graph.KindParty}}, []graph.SearchResult{{Entity: aspire, Matched: "Aspire", Score: 1}}},
		{graph.SearchQuery{Text: "Aspire", Kinds: []graph.Kind{graph.KindActor, graph.KindSeat}}, nil},
		// A last word being typed matches the words it begins, below whole words.
		{graph.SearchQuery{Text: "Lab"}, []graph.SearchResult{{Entity: labour, Matched: "Labour", Score: 0.9 * 0.75}}},
		{graph.SearchQuery{Text: "Rushan"}, []graph.SearchResult{{Entity: rushanara, Matched: "Rushanara Ali", Score: 0.9 * 0.8 * 0.85}}},
		{graph.SearchQuery{Text: "lutfur rah"}, []graph.SearchResult{{Entity: lutfur, Matched: "Lutfur Rahman", Score: 0.9 * 0.875}}},
		{graph.SearchQuery{Text: "rah lutfur"}, nil}, // only the last word is being typed
		{graph.SearchQuery{Text: "L"}, nil},
		{graph.SearchQuery{Text: "zzzz qqqq"}, nil},
		{graph.SearchQuery{Text: ""}, nil},
	} {
		got, err := s.Search(ctx, c.q)
		must(t, err)
		if len(got) == len(c.want) {
			for i := range got {
				if math.Abs(got[i].Score-c.want[i].Score) < 1e-9 {
					got[i].Score = c.want[i].Score
				}
			}
		}
		diff(t, "Search("+c.q.Text+", "+kinds(c.q.Kinds)+")", c.want, got)
	}
}

// testSearchGivenNameForms: a given name matches its short and long forms ("Ken" and "Kenneth"), a little
// below the name spelt as written, and never alone: the other words must match too.
func testSearchGivenNameForms(t *testing.T, s Subject) {
	ctx := t.Context()
	kenneth := graph.Entity{Name: "actors/kenneth-clarke", Kind: graph.KindActor, DisplayName: "Kenneth Clarke"}
	ken := graph.Entity{Name: "actors/ken-livingstone", Kind: graph.KindActor, DisplayName: "Ken Livingstone"}
	bill := graph.Entity{Name: "actors/bill-cash", Kind: graph.KindActor, DisplayName: "Bill Cash"}
	must(t, s.UpsertEntities(ctx, []graph.Entity{kenneth, ken, bill}))
	// Two words, one matched by a short form (0.9) and one as written (1): 0.9 × 0.95.
	const score = 0.9 * 0.95
	for _, c := range []struct {
		text string
		want []graph.SearchResult
	}{
		{"Ken Clarke", []graph.SearchResult{{Entity: kenneth, Matched: "Kenneth Clarke", Score: score}}},
		{"Kenneth Livingstone", []graph.SearchResult{{Entity: ken, Matched: "Ken Livingstone", Score: score}}},
		{"William Cash", []graph.SearchResult{{Entity: bill, Matched: "Bill Cash", Score: score}}},
		{"Kenneth Clarke", []graph.SearchResult{{Entity: kenneth, Matched: "Kenneth Clarke", Score: 1}}},
		{"Ken Cash", nil},
	} {
		got, err := s.Search(ctx, graph.SearchQuery{Text: c.text})
		must(t, err)
		for i := range got {
			if i < len(c.want) && math.Abs(got[i].Score-c.want[i].Score) < 1e-9 {
				got[i].Score = c.want[i].Score
			}
		}
		diff(t, "Search("+c.text+")", c.want, got)
	}
}

func kinds(ks []graph.Kind) string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return strings.Join(out, "|")
}

// testEntitiesByIdentifier: each value held, with every entity that holds it in name order; values of
// other schemes, and values nobody holds, absent.
func testEntitiesByIdentifier(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	dup := graph.Entity{Name: "seats/bethnal-green-duplicate", Kind: graph.KindSeat, DisplayName: "Bethnal Green (loaded twice)",
		Identifiers: graph.Identifiers{"ocd": {ocdSeat}}}
	must(t, s.UpsertEntities(ctx, []graph.Entity{dup}))
	for _, c := range []struct {
		scheme string
		values []string
		want   map[string][]graph.Entity
	}{
		{"ocd", []string{ocdSeat, "ocd-division/country:gb/parl:nowhere"}, map[string][]graph.Entity{ocdSeat: {seat, dup}}},
		{"wikidata", []string{"Q1-old", "Q4897", "Q-none"}, map[string][]graph.Entity{"Q1-old": {lutfur}, "Q4897": {seat}}},
		{"wikidata", []string{ocdSeat}, nil},
		{"parlparse", []string{"Q1"}, nil},
	} {
		got, err := s.EntitiesByIdentifier(ctx, c.scheme, c.values)
		must(t, err)
		diff(t, "EntitiesByIdentifier("+c.scheme+", "+strings.Join(c.values, " ")+")", c.want, got)
	}
}

// testGetSource: a source, how many claims cite it, and a page of them in name order, each with its
// relation; NotFound with its reason for no source.
func testGetSource(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	ref := func(r graph.Relation) graph.RelationRef {
		return graph.RelationRef{Name: r.Name, Type: r.Type, From: r.From, To: r.To}
	}
	cited := func(r graph.Relation, i int) graph.SourceClaim {
		c := r.Claims[i]
		c.Source = graph.Source{}
		return graph.SourceClaim{Claim: c, Relation: ref(r)}
	}
	article := []graph.SourceClaim{cited(worked, 0), cited(founded, 0)}                    // …formerly-worked-with… before …founded…
	post := []graph.SourceClaim{cited(criticised, 0), cited(worked, 1), cited(founded, 1)} // jose-… before lutfur-…
	for _, c := range []struct {
		name          graph.SourceName
		offset, limit int
		want          graph.SourceInfo
	}{
		{srcArticle.Name, 0, 10, graph.SourceInfo{Source: srcArticle, ClaimCount: 2, Claims: article}},
		{srcArticle.Name, 0, 1, graph.SourceInfo{Source: srcArticle, ClaimCount: 2, Claims: article[:1]}},
		{srcArticle.Name, 1, 1, graph.SourceInfo{Source: srcArticle, ClaimCount: 2, Claims: article[1:]}},
		{srcArticle.Name, 0, 0, graph.SourceInfo{Source: srcArticle, ClaimCount: 2}},
		{srcArticle.Name, 2, 5, graph.SourceInfo{Source: srcArticle, ClaimCount: 2}},
		{srcPost.Name, 0, 10, graph.SourceInfo{Source: srcPost, ClaimCount: 3, Claims: post}},
		{srcPost.Name, 1, 2, graph.SourceInfo{Source: srcPost, ClaimCount: 3, Claims: post[1:]}},
	} {
		got, err := s.GetSource(ctx, c.name, c.offset, c.limit)
		must(t, err)
		diff(t, "GetSource("+string(c.name)+", "+strconv.Itoa(c.offset)+", "+strconv.Itoa(c.limit)+")", c.want, got)
	}
	_, err := s.GetSource(ctx, "sources/nothing-here", 0, 10)
	if graph.KindOf(err) != graph.NotFound || reasonOf(err) != "SOURCE_NOT_FOUND" {
		t.Errorf("GetSource of no source: %v (kind %v, reason %q), want NotFound, SOURCE_NOT_FOUND", err, graph.KindOf(err), reasonOf(err))
	}
}

// testListSources: sources in name order with their claim counts, filtered by kind and outlet (whatever
// its case), paged,
// with how many match.
func testListSources(t *testing.T, s Subject) {
	writeFixture(t, s)
	sum := func(src graph.Source, n int) graph.SourceSummary {
		return graph.SourceSummary{Source: src, ClaimCount: n}
	}
	post, article, register := sum(srcPost, 3), sum(srcArticle, 2), sum(srcRegister, 2)
	for _, c := range []struct {
		name  string
		q     graph.SourceQuery
		want  []graph.SourceSummary
		total int
	}{
		{"all", graph.SourceQuery{Limit: 10}, []graph.SourceSummary{post, article, register}, 3},
		{"articles", graph.SourceQuery{Kind: graph.SourceArticle, Limit: 10}, []graph.SourceSummary{article}, 1},
		{"datasets", graph.SourceQuery{Kind: graph.SourceDataset, Limit: 10}, []graph.SourceSummary{register}, 1},
		{"one outlet", graph.SourceQuery{Outlet: "Daily News", Limit: 10}, []graph.SourceSummary{article, register}, 2},
		{"one outlet, second page", graph.SourceQuery{Outlet: "Daily News", Offset: 1, Limit: 1}, []graph.SourceSummary{register}, 2},
		{"an outlet in another case", graph.SourceQuery{Outlet: "daily news", Limit: 10}, []graph.SourceSummary{article, register}, 2},
		{"an outlet in capitals, spaced", graph.SourceQuery{Outlet: " DAILY NEWS ", Limit: 10}, []graph.SourceSummary{article, register}, 2},
		{"part of an outlet's name", graph.SourceQuery{Outlet: "daily", Limit: 10}, nil, 0},
		{"a kind and an outlet matching nothing", graph.SourceQuery{Kind: graph.SourceSocialPost, Outlet: "Daily News", Limit: 10}, nil, 0},
		{"no page", graph.SourceQuery{Limit: 0}, nil, 3},
		{"past the end", graph.SourceQuery{Offset: 5, Limit: 10}, nil, 3},
	} {
		got, total, err := s.ListSources(t.Context(), c.q)
		must(t, err)
		diff(t, "ListSources, "+c.name, c.want, got)
		if total != c.total {
			t.Errorf("ListSources, %s: %d in all, want %d", c.name, total, c.total)
		}
	}
}

// testClaimSources: each relation's claims with only their name, status, confidence and source name; a
// relation without claims present with none.
func testClaimSources(t *testing.T, s Subject) {
	writeFixture(t, s)
	got, err := s.ClaimSources(t.Context(), []graph.RelationName{foundedName, appearedName, "relations/nobody.founded.nothing"})
	must(t, err)
	for _, cs := range got {
		slices.SortFunc(cs, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
	}
	only := func(c graph.Claim) graph.Claim {
		return graph.Claim{Name: c.Name, Status: c.Status, Confidence: c.Confidence, Source: graph.Source{Name: c.Source.Name}}
	}
	want := map[graph.RelationName][]graph.Claim{
		foundedName:  {only(founded.Claims[1]), only(founded.Claims[0])}, // …/claims/chirp-… before …/claims/daily-…
		appearedName: {},
	}
	diff(t, "ClaimSources", want, got)
	if _, ok := got[appearedName]; !ok {
		t.Errorf("ClaimSources left out %s, which exists without claims", appearedName)
	}
}

// testStats: every count from one snapshot, with the version and when it was raised.
func testStats(t *testing.T, s Subject) {
	ctx := t.Context()
	empty, err := s.Stats(ctx)
	must(t, err)
	diff(t, "Stats of an empty graph", graph.GraphStats{}, empty)

	start := time.Now().Truncate(time.Millisecond)
	writeFixture(t, s)
	end := time.Now()
	got, err := s.Stats(ctx)
	must(t, err)
	if got.WrittenAt.Before(start) || got.WrittenAt.After(end) {
		t.Errorf("Stats: written at %v, not while the test wrote (%v to %v)", got.WrittenAt, start, end)
	}
	got.WrittenAt = time.Time{}
	want := graph.GraphStats{
		Counts:         graph.GraphCounts{Entities: 7, Relations: 6, Claims: 7, Sources: 3},
		EntitiesByKind: map[graph.Kind]int{graph.KindActor: 3, graph.KindParty: 2, graph.KindSeat: 1, graph.KindOrganisation: 1},
		RelationsByType: map[graph.RelationType]int{graph.Founded: 1, graph.MemberOf: 1, graph.HoldsOffice: 1, graph.FormerlyWorkedWith: 1,
			graph.Criticised: 1, graph.AppearedWith: 1},
		ClaimsByStatus: map[graph.ClaimStatus]int{graph.StatusConfirmed: 3, graph.StatusReported: 2, graph.StatusDenied: 1, graph.StatusAlleged: 1},
		SourcesByKind:  map[graph.SourceKind]int{graph.SourceArticle: 1, graph.SourceSocialPost: 1, graph.SourceDataset: 1},
		Version:        3,
	}
	diff(t, "Stats", want, got)
}

// testEntityNames: live entities in name order, a page at a time.
func testEntityNames(t *testing.T, s Subject) {
	ctx := t.Context()
	writeFixture(t, s)
	all := []graph.EntityName{"actors/jose-oneill-nunez", "actors/lutfur-rahman", "actors/rushanara-ali", "organisations/parliament-2019",
		"parties/aspire", "parties/labour", "seats/bethnal-green-and-stepney"}
	for _, c := range []struct {
		after graph.EntityName
		limit int
		want  []graph.EntityName
	}{
		{"", 3, all[:3]},
		{all[2], 3, all[3:6]},
		{all[5], 3, all[6:]},
		{all[6], 3, nil},
		{"", 100, all},
		{"", 0, all[:1]}, // at least one
		{"parties/", 100, all[4:]},
	} {
		got, err := s.EntityNames(ctx, c.after, c.limit)
		must(t, err)
		diff(t, "EntityNames("+string(c.after)+", "+strconv.Itoa(c.limit)+")", c.want, got)
	}
}

// testViaLinks: a link from a relation's `from` to its via, directed, named for the relation, seen from
// both.
func testViaLinks(t *testing.T, s Subject) {
	writeFixture(t, s)
	holdsVia := graph.Link{Name: graph.ViaLinkName(holdsName), Type: graph.HoldsOffice, From: rushanara.Name, To: labour.Name,
		Period: between(graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}, graph.FuzzyDate{Year: 2024, Month: 5, Day: 30}), Dated: true,
		Life: open, Support: graph.Support{-1, -1, 0.95, -1}}
	appearedVia := graph.Link{Name: graph.ViaLinkName(appearedName), Type: graph.AppearedWith, From: jose.Name, To: aspire.Name,
		Period: graph.PeriodOf(graph.FuzzyDate{Year: 2021}), Dated: true, Life: from(graph.FuzzyDate{Year: 2018}), Support: graph.NoSupport}
	got, err := s.ViaLinks(t.Context(), []graph.EntityName{rushanara.Name, labour.Name, jose.Name, aspire.Name, seat.Name, lutfur.Name, "actors/nobody"})
	must(t, err)
	want := map[graph.EntityName][]graph.Link{
		rushanara.Name: {holdsVia}, labour.Name: {holdsVia}, jose.Name: {appearedVia}, aspire.Name: {appearedVia},
		seat.Name: nil, lutfur.Name: nil,
	}
	diff(t, "ViaLinks", want, got)
	for _, n := range []graph.EntityName{seat.Name, lutfur.Name} {
		if _, ok := got[n]; !ok {
			t.Errorf("ViaLinks left out %s, which exists without via links", n)
		}
	}
}
