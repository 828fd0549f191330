package resolve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/resolve"
)

func TestOrgKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Conservative", "Conservatives"},
		{"The Conservative Party", "conservative"},
		{"Liberal Democrats", "Liberal Democrat"},
		{"Labour Party", "The Labour Party"},
		{"Greens", "Green Party"},
		{"Democratic Unionist Party", "Democratic Unionist"},
		{"Plaid Cymru", "Plaid Cymru"},
		{"Social Democratic & Labour Party", "Social Democratic and Labour"},
	} {
		if ka, kb := resolve.OrgKey(c.a), resolve.OrgKey(c.b); ka != kb || ka == "" {
			t.Errorf("OrgKey(%q) = %q, OrgKey(%q) = %q; want one key", c.a, ka, c.b, kb)
		}
	}
	for _, c := range []struct{ a, b string }{
		{"Labour", "Scottish Labour"},
		{"Green", "Scottish Green Party"},
		{"Progress", "Progres"}, // "ss" is no plural
		{"Labour", "Co-operative"},
	} {
		if ka, kb := resolve.OrgKey(c.a), resolve.OrgKey(c.b); ka == kb {
			t.Errorf("OrgKey(%q) = OrgKey(%q) = %q; want two keys", c.a, c.b, ka)
		}
	}
}

func TestOrgVariantsHoldTheGraphsForms(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string // each must be among the variants, as normalised
	}{
		{"Conservative", []string{"conservative", "conservatives", "conservative party", "the conservative party"}},
		{"Conservatives", []string{"conservative", "conservatives", "conservative party"}},
		{"The Labour Party", []string{"labour", "labour party"}},
		{"Liberal Democrat", []string{"liberal democrats"}},
	} {
		var got []string
		for _, v := range resolve.OrgVariants(c.name) {
			got = append(got, graph.NormalizeName(v))
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("OrgVariants(%q) = %q, lacks %q", c.name, got, w)
			}
		}
	}
}

func TestBranch(t *testing.T) {
	for _, c := range []struct {
		name            string
		others          []string
		regional, party string
	}{
		{"Labour", []string{"Partido Laborista Escocés", "Scottish Labour Party"}, "Scottish Labour Party", "Labour"},
		{"Welsh Labour", nil, "Welsh Labour", "Labour"},
		{"Welsh Conservative Party", nil, "Welsh Conservative Party", "Conservative Party"},
		{"Liberal Democrat", []string{"Scottish Liberal Democrats"}, "Scottish Liberal Democrats", "Liberal Democrat"},
		{"Scottish National Party", nil, "Scottish National Party", "National Party"}, // a party of its own unless a National Party is known
		{"SSP", []string{"Scottish Socialist Party"}, "", ""},                         // another name, not a region's form of this one
		{"Plaid Cymru", []string{"Plaid Cymru"}, "", ""},
		{"Scottish Party", nil, "", ""},
	} {
		regional, party, ok := resolve.Branch(c.name, c.others)
		if ok != (c.regional != "") || regional != c.regional || party != c.party {
			t.Errorf("Branch(%q, %q) = %q, %q, %v; want %q, %q", c.name, c.others, regional, party, ok, c.regional, c.party)
		}
	}
}

func TestComparePeople(t *testing.T) {
	person := func(name string, born int, ids ...string) graph.Entity {
		e := graph.Entity{Kind: graph.KindActor, DisplayName: name, Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: born}}}
		for _, id := range ids {
			scheme, value, _ := strings.Cut(id, ":")
			e.Identifiers.Add(scheme, value)
		}
		return e
	}
	ken := person("Kenneth Clarke", 1940, "wikidata:Q1", "popolo:commons/p1")
	for _, c := range []struct {
		name  string
		other graph.Entity
		want  resolve.Decision
	}{
		{"the same name", person("Kenneth Clarke", 0), resolve.Merge},
		{"a short form and the same birth year", person("Ken Clarke", 1940), resolve.Merge},
		{"a short form alone", person("Ken Clarke", 0), resolve.Propose},
		{"a short form, another birth year", person("Ken Clarke", 1950), resolve.Apart},
		{"the same name, another birth year", person("Kenneth Clarke", 1962), resolve.Apart},
		{"the same name, another wikidata id", person("Kenneth Clarke", 0, "wikidata:Q2"), resolve.Apart},
		{"the same name, another file's own id", person("Kenneth Clarke", 0, "popolo:copy/p7"), resolve.Merge},
		{"another name, the same wikidata id", person("K. H. Clarke", 0, "wikidata:Q1"), resolve.Merge},
		{"the same initial alone", person("Karl Clarke", 0), resolve.Apart},
		{"an honorific and letters after", person("Rt Hon Kenneth Clarke QC MP", 0), resolve.Merge},
		{"a typo and the same birth year", person("Kennth Clarke", 1940), resolve.Merge},
		{"a typo alone", person("Kennth Clarke", 0), resolve.Propose},
		{"a typo in the surname and the same birth year", person("Kenneth Clerke", 1940), resolve.Merge},
		{"another surname", person("Kenneth Baker", 1940), resolve.Apart},
		{"an organisation of that name", graph.Entity{Kind: graph.KindOrganisation, DisplayName: "Kenneth Clarke"}, resolve.Apart},
	} {
		s := resolve.ComparePeople(ken, c.other)
		if s.Decision != c.want {
			t.Errorf("%s: %v, want %v", c.name, s, c.want)
		}
		if len(s.Features) == 0 || !strings.Contains(s.String(), s.Features[0].Why) {
			t.Errorf("%s: the score explains nothing: %v", c.name, s)
		}
	}
}

func TestCandidates(t *testing.T) {
	e := func(name graph.EntityName, kind graph.Kind, display string, born int, aliases ...string) graph.Entity {
		return graph.Entity{Name: name, Kind: kind, DisplayName: display, Aliases: aliases, Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: born}}}
	}
	ents := []graph.Entity{
		e("actors/kenneth-clarke", graph.KindActor, "Kenneth Clarke", 1940),
		e("actors/ken-clarke", graph.KindActor, "Ken Clarke", 1940),
		e("actors/ken-clarke-2", graph.KindActor, "Ken Clarke", 1970), // another birth year: apart
		e("actors/nick-brown", graph.KindActor, "Nick Brown", 0),
		e("actors/nicholas-brown", graph.KindActor, "Nicholas Brown", 0),
		e("parties/conservatives", graph.KindParty, "Conservatives", 0, "Tory"),
		e("parties/conservative", graph.KindParty, "Conservative", 0),
		e("organisations/conservative", graph.KindOrganisation, "Conservative Party", 0), // another kind
		e("parties/labour", graph.KindParty, "Labour", 0),
	}
	gone := e("actors/kenny-clarke", graph.KindActor, "Kenny Clarke", 1940)
	gone.MergedInto = "actors/kenneth-clarke"
	ents = append(ents, gone)
	list := func(apart graph.Apart) []string {
		var got []string
		for _, p := range resolve.Candidates(ents, apart) {
			got = append(got, string(p.A.Name)+" ~ "+string(p.B.Name)+" "+p.Score.Decision.String())
		}
		return got
	}
	want := []string{
		"actors/ken-clarke ~ actors/kenneth-clarke merge",
		"parties/conservative ~ parties/conservatives merge",
		"actors/nicholas-brown ~ actors/nick-brown propose",
	}
	if got := list(nil); !slices.Equal(got, want) {
		t.Errorf("Candidates:\n got %q\nwant %q", got, want)
	}
	// A pair judged apart, named in either order, is left out.
	apart := graph.NewApart([]graph.Judgement{{A: "parties/conservatives", B: "parties/conservative"}})
	if got := list(apart); !slices.Equal(got, []string{want[0], want[2]}) {
		t.Errorf("Candidates with a pair judged apart:\n got %q\nwant %q", got, []string{want[0], want[2]})
	}
}
