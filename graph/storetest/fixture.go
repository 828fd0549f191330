package storetest

import (
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// The small graph most tests write: three sources, seven entities and six relations, with every field a
// read gives back set somewhere.
//
//	lutfur ──FOUNDED──▶ aspire            lutfur ══FORMERLY_WORKED_WITH══ rushanara
//	jose ──CRITICISED──▶ lutfur           jose ══APPEARED_WITH══ rushanara (via aspire, no claims)
//	rushanara ──MEMBER_OF──▶ labour (term parliament-2019)
//	rushanara ──HOLDS_OFFICE──▶ seat (via labour, term parliament-2019)

const ocdSeat = "ocd-division/country:gb/parl:bethnal-green-and-stepney"

var (
	srcArticle = graph.Source{Name: "sources/daily-news-2020-03-01", Title: "Council leader founds a party", Kind: graph.SourceArticle,
		Outlet: "Daily News", Author: "A. Reporter", Published: graph.FuzzyDate{Year: 2020, Month: 3, Day: 1},
		URL: "https://news.example/2020/03/01/aspire"}
	srcPost = graph.Source{Name: "sources/chirp-2021-06", Title: "A post", Kind: graph.SourceSocialPost, Outlet: "Chirp",
		Published: graph.FuzzyDate{Year: 2021, Month: 6}}
	srcRegister = graph.Source{Name: "sources/register-2022", Title: "Register of members", Kind: graph.SourceDataset,
		Outlet: "Daily News", URL: "https://register.example/", Retrieved: graph.FuzzyDate{Year: 2022, Month: 1, Day: 5}, Licence: "OGL-3.0"}

	lutfur = graph.Entity{Name: "actors/lutfur-rahman", Kind: graph.KindActor, DisplayName: "Lutfur Rahman",
		Aliases: []string{"Lutfur Rahman OBE"}, Description: "Mayor of Tower Hamlets",
		Identifiers: graph.Identifiers{"wikidata": {"Q1", "Q1-old"}},
		Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1965}, Gender: "male",
			Links: []graph.WebLink{{URL: "https://example.org/lutfur-rahman", Note: "profile"}}}}
	rushanara = graph.Entity{Name: "actors/rushanara-ali", Kind: graph.KindActor, DisplayName: "Rushanara Ali",
		Aliases: []string{"Rushanara Begum Ali"}}
	jose   = graph.Entity{Name: "actors/jose-oneill-nunez", Kind: graph.KindActor, DisplayName: "José O'Neill-Núñez"}
	aspire = graph.Entity{Name: "parties/aspire", Kind: graph.KindParty, DisplayName: "Aspire", Aliases: []string{"Aspire Party"},
		ValidFrom: graph.FuzzyDate{Year: 2018}}
	labour = graph.Entity{Name: "parties/labour", Kind: graph.KindParty, DisplayName: "Labour Party", Aliases: []string{"Labour"}}
	seat   = graph.Entity{Name: "seats/bethnal-green-and-stepney", Kind: graph.KindSeat, DisplayName: "Bethnal Green and Stepney",
		ValidFrom: graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}, ValidTo: graph.FuzzyDate{Year: 2024, Month: 5, Day: 30},
		Identifiers: graph.Identifiers{"ocd": {ocdSeat}, "wikidata": {"Q4897"}}}
	term = graph.Entity{Name: "organisations/parliament-2019", Kind: graph.KindOrganisation, DisplayName: "Parliament of 2019",
		ValidFrom: graph.FuzzyDate{Year: 2019, Month: 12, Day: 17}, ValidTo: graph.FuzzyDate{Year: 2024, Month: 5, Day: 30}}

	foundedName    = graph.RelationNameFor(lutfur.Name, graph.Founded, aspire.Name, "")
	memberName     = graph.RelationNameFor(rushanara.Name, graph.MemberOf, labour.Name, "")
	holdsName      = graph.RelationNameFor(rushanara.Name, graph.HoldsOffice, seat.Name, "")
	workedName     = graph.RelationNameFor(lutfur.Name, graph.FormerlyWorkedWith, rushanara.Name, "")
	criticisedName = graph.RelationNameFor(jose.Name, graph.Criticised, lutfur.Name, "")
	appearedName   = graph.RelationNameFor(jose.Name, graph.AppearedWith, rushanara.Name, "")

	founded = graph.Relation{Name: foundedName, Type: graph.Founded, From: lutfur.Name, To: aspire.Name,
		Date: graph.FuzzyDate{Year: 2018, Month: 7},
		Claims: []graph.Claim{
			{Name: graph.ClaimNameFor(foundedName, srcArticle.Name, ""), Source: graph.Source{Name: srcArticle.Name},
				Excerpt: "Rahman founded Aspire", Confidence: 0.9, Status: graph.StatusConfirmed},
			{Name: graph.ClaimNameFor(foundedName, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name},
				Excerpt: "he set it up", Confidence: 0.6, Status: graph.StatusReported, SaidBy: rushanara.Name},
		}}
	member = graph.Relation{Name: memberName, Type: graph.MemberOf, From: rushanara.Name, To: labour.Name, Role: "whip", Term: term.Name,
		ValidFrom: graph.FuzzyDate{Year: 2010},
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(memberName, srcRegister.Name, ""), Source: graph.Source{Name: srcRegister.Name},
			Record: "m-1", Confidence: 1, Status: graph.StatusConfirmed}}}
	holds = graph.Relation{Name: holdsName, Type: graph.HoldsOffice, From: rushanara.Name, To: seat.Name, Via: labour.Name, Term: term.Name,
		ValidFrom: graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}, ValidTo: graph.FuzzyDate{Year: 2024, Month: 5, Day: 30},
		DatesFrom: "public record: elected at the general election of 6 May 2010",
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(holdsName, srcRegister.Name, ""), Source: graph.Source{Name: srcRegister.Name},
			Record: "h-1", Confidence: 0.95, Status: graph.StatusConfirmed}}}
	worked = graph.Relation{Name: workedName, Type: graph.FormerlyWorkedWith, From: lutfur.Name, To: rushanara.Name,
		Claims: []graph.Claim{
			{Name: graph.ClaimNameFor(workedName, srcArticle.Name, ""), Source: graph.Source{Name: srcArticle.Name},
				Excerpt: "they never worked together", Confidence: 0.7, Status: graph.StatusDenied},
			{Name: graph.ClaimNameFor(workedName, srcPost.Name, "2"), Source: graph.Source{Name: srcPost.Name},
				Excerpt: "they worked together", Confidence: 0.4, Status: graph.StatusAlleged},
		}}
	criticised = graph.Relation{Name: criticisedName, Type: graph.Criticised, From: jose.Name, To: lutfur.Name,
		Date: graph.FuzzyDate{Year: 2021, Month: 6, Day: 2},
		Claims: []graph.Claim{{Name: graph.ClaimNameFor(criticisedName, srcPost.Name, ""), Source: graph.Source{Name: srcPost.Name},
			Excerpt: "a scathing post", Confidence: 0.5, Status: graph.StatusReported}}}
	appeared = graph.Relation{Name: appearedName, Type: graph.AppearedWith, From: jose.Name, To: rushanara.Name, Via: aspire.Name,
		Date: graph.FuzzyDate{Year: 2021}}
)

// fixture is the small graph.
type fixture struct {
	sources   []graph.Source
	entities  []graph.Entity
	relations []graph.Relation
}

func newFixture() fixture {
	return fixture{
		sources:   []graph.Source{srcArticle, srcPost, srcRegister},
		entities:  []graph.Entity{lutfur, rushanara, jose, aspire, labour, seat, term},
		relations: []graph.Relation{founded, member, holds, worked, criticised, appeared},
	}
}

// sourceMap is the fixture's sources by name.
func (f fixture) sourceMap() map[graph.SourceName]graph.Source {
	m := map[graph.SourceName]graph.Source{}
	for _, s := range f.sources {
		m[s.Name] = s
	}
	return m
}

// writeFixture writes the small graph (three writes: versions 1 to 3) and returns it.
func writeFixture(t *testing.T, s Subject) fixture {
	t.Helper()
	f := newFixture()
	write(t, s, f.sources, f.entities, f.relations)
	if v := version(t, s); v != 3 {
		t.Fatalf("after three writes into an empty graph the version is %d, want 3", v)
	}
	return f
}

// Days and lifetimes the tests expect.
var (
	open    = graph.OpenPeriod
	from    = func(d graph.FuzzyDate) graph.Period { return graph.Period{Start: d.FirstDay(), End: open.End} }
	between = func(a, b graph.FuzzyDate) graph.Period { return graph.Period{Start: a.FirstDay(), End: b.LastDay()} }
	// lutfur's lifetime: from his birth.
	lutfurLife = from(graph.FuzzyDate{Year: 1965})
)

// fixtureLinks are the links of the small graph, by relation, with every field written out.
func fixtureLinks() map[graph.RelationName]graph.Link {
	return map[graph.RelationName]graph.Link{
		foundedName: {Name: foundedName, Type: graph.Founded, From: lutfur.Name, To: aspire.Name,
			Period: graph.PeriodOf(graph.FuzzyDate{Year: 2018, Month: 7}), Dated: true,
			Life:    from(graph.FuzzyDate{Year: 2018}), // aspire's, within lutfur's
			Support: graph.Support{-1, 0.6, 0.9, -1}},
		memberName: {Name: memberName, Type: graph.MemberOf, From: rushanara.Name, To: labour.Name,
			Period: from(graph.FuzzyDate{Year: 2010}), Dated: true, Life: open, Support: graph.Support{-1, -1, 1, -1}},
		holdsName: {Name: holdsName, Type: graph.HoldsOffice, From: rushanara.Name, To: seat.Name,
			Period: between(graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}, graph.FuzzyDate{Year: 2024, Month: 5, Day: 30}), Dated: true,
			Life:    between(graph.FuzzyDate{Year: 2010, Month: 5, Day: 6}, graph.FuzzyDate{Year: 2024, Month: 5, Day: 30}), // the seat's
			Support: graph.Support{-1, -1, 0.95, -1}},
		workedName: {Name: workedName, Type: graph.FormerlyWorkedWith, From: lutfur.Name, To: rushanara.Name,
			Period: open, Dated: false, Life: lutfurLife, Support: graph.Support{0.4, -1, -1, 0.7}, Symmetric: true},
		criticisedName: {Name: criticisedName, Type: graph.Criticised, From: jose.Name, To: lutfur.Name,
			Period: graph.PeriodOf(graph.FuzzyDate{Year: 2021, Month: 6, Day: 2}), Dated: true, Life: lutfurLife,
			Support: graph.Support{-1, 0.5, -1, -1}},
		appearedName: {Name: appearedName, Type: graph.AppearedWith, From: jose.Name, To: rushanara.Name,
			Period: graph.PeriodOf(graph.FuzzyDate{Year: 2021}), Dated: true, Life: open, Support: graph.NoSupport, Symmetric: true},
	}
}

// pick returns the named links of m, sorted by name.
func pick(m map[graph.RelationName]graph.Link, names ...graph.RelationName) []graph.Link {
	var out []graph.Link
	for _, n := range names {
		out = append(out, m[n])
	}
	return byName(out)
}

// entityNames lists the fixture's entities by name, sorted.
func (f fixture) entityNames() []graph.EntityName {
	var out []graph.EntityName
	for _, e := range f.entities {
		out = append(out, e.Name)
	}
	slices.Sort(out)
	return out
}
