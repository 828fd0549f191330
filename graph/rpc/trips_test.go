package rpc_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// The smaller trips of issue 52, over gRPC on the default graph.

// symmetricType reports whether a relation type of the API has no direction.
func symmetricType(t pb.RelationType) bool {
	return graph.RelationType(t.String()[len("RELATION_TYPE_"):]).Symmetric()
}

// TestRelationCountsOfSymmetricTypesHaveNoDirection: a symmetric type is counted once, undirected and not
// outgoing; every other type outgoing or incoming.
func TestRelationCountsOfSymmetricTypesHaveNoDirection(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	check := func(what string, cs []*pb.RelationCount) (undirected int) {
		t.Helper()
		seen := map[pb.RelationType]int{}
		for _, c := range cs {
			sym := symmetricType(c.GetType())
			if c.GetUndirected() != sym || sym && c.GetOutgoing() {
				t.Errorf("%s: %v counted undirected=%v outgoing=%v", what, c.GetType(), c.GetUndirected(), c.GetOutgoing())
			}
			if sym {
				undirected += int(c.GetCount())
				if seen[c.GetType()]++; seen[c.GetType()] > 1 {
					t.Errorf("%s: %v counted twice", what, c.GetType())
				}
			}
		}
		return undirected
	}
	tests := []struct {
		name   string
		filter *pb.RelationFilter
		want   int // Lutfur Rahman's symmetric relations: 2 APPEARED_WITH, 2 FORMERLY_WORKED_WITH
	}{
		{"every relation", nil, 4},
		{"the default filter", &pb.RelationFilter{}, 4},
		{"as of 2014", &pb.RelationFilter{AsOf: "2014"}, 2},
	}
	for _, tc := range tests {
		resp, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman", Filter: tc.filter})
		if err != nil {
			t.Fatal(err)
		}
		if got := check(tc.name, resp.GetRelationCounts()); got != tc.want {
			t.Errorf("%s: %d symmetric relations counted, want %d", tc.name, got, tc.want)
		}
	}
	around, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", MaxPerNode: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tr := range around.GetTruncated() {
		n += check("truncated "+tr.GetEntity(), tr.GetByType())
	}
	if n == 0 {
		t.Error("no symmetric relation left out around Lutfur Rahman with 5 per node; the test checks nothing")
	}
}

// TestSharedSourcesJoinTheInputs: a shared source's claims each join two of the inputs, directly or
// through one entity its other claims tie to another input; a source that speaks of the inputs apart is
// not shared.
func TestSharedSourcesJoinTheInputs(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		inputs []string
		want   map[string]int // shared source → joining claims
	}{
		// The election article ties both to Lutfur Rahman (worked with; Rabina Khan endorsed twice; the
		// disputed endorsement of Ajmal Masroor does not count) and to the seat both stood for (two
		// claims each).
		{"two candidates", []string{"actors/ajmal-masroor", "actors/rabina-khan"},
			map[string]int{"sources/tower-hamlets-general-election-2024": 8}},
		// The Daily Mail joins Lutfur Rahman and Keir Starmer through Labour (his membership, his defeat
		// of it, Starmer's leadership), not the 20-odd other claims it makes of them; the election
		// article joins Keir Starmer and Rushanara Ali through Labour.
		{"three people", []string{"actors/lutfur-rahman", "actors/keir-starmer", "actors/rushanara-ali"},
			map[string]int{"sources/daily-mail-2023-11-03-lutfur-rahman": 4, "sources/tower-hamlets-general-election-2024": 2}},
	}
	for _, tc := range tests {
		resp, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: tc.inputs, MaxShared: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, ss := range resp.GetSharedSources() {
			got[ss.GetSource().GetName()] = len(ss.GetClaims())
			isInput := map[string]bool{}
			for _, in := range ss.GetInputs() {
				isInput[in] = true
			}
			// Each claim's relation has an input at one end; the other end is an input, or an entity
			// another claim of the source ties to a different input.
			tied := map[string]map[string]bool{} // other end → inputs
			for _, c := range ss.GetClaims() {
				r := c.GetRelation()
				for _, e := range [][2]string{{r.GetFrom(), r.GetTo()}, {r.GetTo(), r.GetFrom()}} {
					if isInput[e[0]] {
						if tied[e[1]] == nil {
							tied[e[1]] = map[string]bool{}
						}
						tied[e[1]][e[0]] = true
					}
				}
			}
			for _, c := range ss.GetClaims() {
				r := c.GetRelation()
				ok := isInput[r.GetFrom()] && isInput[r.GetTo()] || !isInput[r.GetFrom()] && len(tied[r.GetFrom()]) >= 2 ||
					!isInput[r.GetTo()] && len(tied[r.GetTo()]) >= 2
				if !ok {
					t.Errorf("%s: %s's claim %s on %s joins no two inputs", tc.name, ss.GetSource().GetName(), c.GetName(), r.GetName())
				}
			}
		}
		if !maps.Equal(tc.want, got) {
			t.Errorf("%s: shared sources %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGetRelationNamedLoosely: a symmetric relation answers to its ends in either order; a name without
// the key its relations have is refused with their names.
func TestGetRelationNamedLoosely(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tests := []struct {
		name, asked string
		want        string   // the relation answered; "" for NotFound
		suggested   []string // names the NotFound message must hold
	}{
		{"as stored", "relations/ajmal-masroor.formerly-worked-with.lutfur-rahman", "relations/ajmal-masroor.formerly-worked-with.lutfur-rahman", nil},
		{"symmetric, ends reversed", "relations/lutfur-rahman.formerly-worked-with.ajmal-masroor", "relations/ajmal-masroor.formerly-worked-with.lutfur-rahman", nil},
		{"symmetric, reversed, appeared with", "relations/lutfur-rahman.appeared-with.george-galloway", "relations/george-galloway.appeared-with.lutfur-rahman", nil},
		{"directed, ends reversed", "relations/aspire.founded.lutfur-rahman", "", nil},
		{"key missing", "relations/lutfur-rahman.endorses.rabina-khan", "",
			[]string{"relations/lutfur-rahman.endorses.rabina-khan.2015", "relations/lutfur-rahman.endorses.rabina-khan.2024"}},
		{"wrong key", "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2018", "",
			[]string{"relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2010", "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022"}},
		{"no such ends", "relations/nobody.endorses.rabina-khan", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: tc.asked})
			if tc.want != "" {
				if err != nil || resp.GetRelation().GetName() != tc.want {
					t.Fatalf("got %v, %v; want %s", resp.GetRelation().GetName(), err, tc.want)
				}
				return
			}
			st := wantCode(t, err, codes.NotFound)
			if reason(err) != "RELATION_NOT_FOUND" {
				t.Errorf("reason %q", reason(err))
			}
			for _, s := range tc.suggested {
				if !strings.Contains(st.Message(), s) {
					t.Errorf("message %q does not suggest %s", st.Message(), s)
				}
			}
			if len(tc.suggested) == 0 && strings.Contains(st.Message(), "between these ends") {
				t.Errorf("message %q suggests relations", st.Message())
			}
		})
	}
}

// TestGetSourceByTitle: a source answers to its title, whole or in part, whatever the case; a title
// several sources share is refused with their names.
func TestGetSourceByTitle(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tests := []struct {
		name, asked, want string
		code              codes.Code
		reason            string
	}{
		{"resource name", dailyMail, dailyMail, codes.OK, ""},
		{"whole title, lower case", "amid the sea of flag-waving pro-palestinian protesters marching past parliament last week was an obscure local mayor", dailyMail, codes.OK, ""},
		{"words of a title", "Obscure Local Mayor", dailyMail, codes.OK, ""},
		{"words of a title, punctuation aside", "open civic data division ids", "sources/ocd-gb-constituencies", codes.OK, ""},
		{"words of two titles", "mayor", "", codes.InvalidArgument, "AMBIGUOUS_NAME"},
		{"no such title", "Guardian leader column", "", codes.NotFound, "SOURCE_NOT_FOUND"},
		{"part of a word only", "obscu", "", codes.NotFound, "SOURCE_NOT_FOUND"},
		{"no letters", "!!!", "", codes.InvalidArgument, "INVALID_ARGUMENT"},
		{"unknown resource name", "sources/nothing-like-it", "", codes.NotFound, "SOURCE_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := client.GetSource(ctx, &pb.GetSourceRequest{Name: tc.asked, PageSize: 1})
			if tc.code == codes.OK {
				if err != nil || resp.GetSource().GetName() != tc.want || resp.GetClaimCount() == 0 {
					t.Fatalf("got %v (%d claims), %v; want %s", resp.GetSource().GetName(), resp.GetClaimCount(), err, tc.want)
				}
				return
			}
			wantCode(t, err, tc.code)
			if reason(err) != tc.reason {
				t.Errorf("reason %q, want %q (%v)", reason(err), tc.reason, err)
			}
		})
	}
}

// TestNoPathSaysWhy: an empty FindPaths answer says why: an end without relations, an end whose
// relations the filter leaves out, or no route within the depth.
func TestNoPathSaysWhy(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	if err := store.UpsertEntities(ctx, []graph.Entity{{Name: "actors/path-loner", Kind: graph.KindActor, DisplayName: "Path Loner"}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		req      *pb.FindPathsRequest
		want     string
		relaxing bool // whether a looser filter would find a path
	}{
		{"isolated start", &pb.FindPathsRequest{From: "actors/path-loner", To: "Keir Starmer"},
			"Path Loner (actors/path-loner) takes part in no relation", false},
		{"isolated end", &pb.FindPathsRequest{From: "Keir Starmer", To: "actors/path-loner"},
			"Path Loner (actors/path-loner) takes part in no relation", false},
		{"the filter leaves out every relation of an end", &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer",
			Filter: &pb.RelationFilter{IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_FOUNDED}}},
			"none of the 5 relations of Ajmal Masroor (actors/ajmal-masroor) counts under the filter; none of the 9 relations of Keir Starmer (actors/keir-starmer) counts under the filter", true},
		{"too deep", &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxDepth: 2},
			"no route of at most 2 hops joins them under the filter", false},
		{"directed", &pb.FindPathsRequest{From: "Keir Starmer", To: "Ajmal Masroor", Directed: true},
			"no route of at most 4 hops joins them under the filter, following each relation's direction", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := client.FindPaths(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.GetPaths()) != 0 || resp.GetNoPath() != tc.want {
				t.Errorf("%d paths, no_path %q; want none and %q", len(resp.GetPaths()), resp.GetNoPath(), tc.want)
			}
			if (len(resp.GetIfRelaxed()) > 0) != tc.relaxing {
				t.Errorf("if_relaxed %v", resp.GetIfRelaxed())
			}
		})
	}
	found, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer"})
	if err != nil || len(found.GetPaths()) == 0 || found.GetNoPath() != "" {
		t.Errorf("with paths: %d paths, no_path %q, %v", len(found.GetPaths()), found.GetNoPath(), err)
	}
}

// TestCoTemporalRouteOmitsRelationsOutsideItsWindow: Lutfur Rahman → Keir Starmer at one time goes
// through Labour during 2022, by his defeat of it that year; his Labour membership, which ended in 2010,
// is not on the hop.
func TestCoTemporalRouteOmitsRelationsOutsideItsWindow(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	resp, err := client.FindPaths(context.Background(), &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Keir Starmer",
		CoTemporal: true, MaxPaths: 20})
	if err != nil {
		t.Fatal(err)
	}
	viaLabour := 0
	for _, p := range resp.GetPaths() {
		for i, h := range p.GetHops() {
			rels := []*pb.Relation{h.GetRelation()}
			for _, x := range h.GetParallel() {
				rels = append(rels, x.GetRelation())
			}
			for _, r := range rels {
				if r.GetName() == "relations/lutfur-rahman.member-of.labour" {
					t.Errorf("route %v lists the membership that ended in 2010", p.GetEntities())
				}
				if p.GetEntities()[i+1] == "parties/labour" && r.GetName() == "relations/lutfur-rahman.defeated.labour" {
					viaLabour++
				}
			}
		}
	}
	if viaLabour == 0 {
		t.Errorf("no route through his 2022 defeat of Labour: %v", resp.GetPaths())
	}
}

// TestCandidacyCountsBeforeItsSeatExists: Bethnal Green and Stepney exists from polling day, 2024-07-04;
// Ajmal Masroor stood for it before, so as of 2024-06 he is its candidate (graph.LifeOf), and the seat's
// own relations of that time (none) are not made to count.
func TestCandidacyCountsBeforeItsSeatExists(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tests := []struct {
		asOf string
		want bool
	}{{"2024-06", true}, {"2024-07", true}, {"2024", true}, {"2023", false}}
	for _, tc := range tests {
		resp, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Ajmal Masroor", PageSize: 100,
			Filter: &pb.RelationFilter{AsOf: tc.asOf, IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_CANDIDATE_FOR}}})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, r := range resp.GetRelations() {
			got = got || r.GetName() == "relations/ajmal-masroor.candidate-for.bethnal-green-and-stepney"
		}
		if got != tc.want {
			t.Errorf("as of %s: a candidate for Bethnal Green and Stepney %v, want %v", tc.asOf, got, tc.want)
		}
	}
	// The seat itself did not exist in 2024-06: a membership of it then would not count.
	if life := graph.LifeOf(graph.HoldsOffice, graph.OpenPeriod, graph.Period{Start: graph.FuzzyDate{Year: 2024, Month: 7, Day: 4}.FirstDay(), End: graph.OpenPeriod.End}); life.Start == graph.OpenPeriod.Start {
		t.Error("an office held is not bounded by its seat's creation")
	}
}

// TestLifetimesOfTheDefaultGraph: Aspire exists from its founding in 2018 (its FOUNDED relation; it has
// no dates of its own, and its dates_from says so), so as of 2010 nobody leads it, even counting undated relations; Tower Hamlets
// First ends in 2015, so as of 2023 Lutfur Rahman is a member of one party, Aspire.
func TestLifetimesOfTheDefaultGraph(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	aspire, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "parties/aspire"})
	if err != nil || aspire.GetEntity().GetValidFrom() != "2018" {
		t.Fatalf("Aspire: valid_from %q, %v; want 2018, from its founding", aspire.GetEntity().GetValidFrom(), err)
	}
	// Each entity's dates say where they come from: the relation they were taken from, or a citation.
	for name, want := range map[string]string{"parties/aspire": "valid_from from relations/lutfur-rahman.founded.aspire",
		"parties/tower-hamlets-first": "public record: struck off the Electoral Commission's register",
		"seats/bethnal-green-and-bow": "sources/ocd-gb-constituencies: the division list ends it on 2024-07-03"} {
		resp, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: name})
		if err != nil || !strings.HasPrefix(resp.GetEntity().GetDatesFrom(), want) {
			t.Errorf("%s: dates_from %q, %v; want it to start %q", name, resp.GetEntity().GetDatesFrom(), err, want)
		}
	}
	tests := []struct {
		name   string
		entity string
		typ    pb.RelationType
		asOf   string
		want   []string
	}{
		{"Aspire's leaders as of 2010", "parties/aspire", pb.RelationType_RELATION_TYPE_LEADS, "2010", nil},
		{"Aspire's leaders as of 2024", "parties/aspire", pb.RelationType_RELATION_TYPE_LEADS, "2024",
			[]string{"relations/k-m-abu-taher-chowdhury.leads.aspire"}},
		{"Lutfur Rahman's parties as of 2023", "actors/lutfur-rahman", pb.RelationType_RELATION_TYPE_MEMBER_OF, "2023",
			[]string{"relations/lutfur-rahman.member-of.aspire"}},
		{"Lutfur Rahman's parties as of 2014", "actors/lutfur-rahman", pb.RelationType_RELATION_TYPE_MEMBER_OF, "2014",
			[]string{"relations/lutfur-rahman.member-of.tower-hamlets-first"}},
	}
	for _, tc := range tests {
		resp, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: tc.entity, PageSize: 100, Filter: &pb.RelationFilter{
			AsOf: tc.asOf, Undated: pb.UndatedPolicy_UNDATED_POLICY_INCLUDE, IncludeTypes: []pb.RelationType{tc.typ}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range resp.GetRelations() {
			got = append(got, r.GetName())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSourceFiltersOverGRPC: FindPaths and ExploreNeighborhood keep only the claims of the sources asked
// for: around Lutfur Rahman by the Daily Mail's claims alone (its outlet in capitals), every relation
// shown has one; no route from Ajmal Masroor to Keir Starmer rests on datasets alone; a bad kind is
// refused with its field.
func TestSourceFiltersOverGRPC(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	around, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", MaxPerNode: 50,
		Sources: &pb.SourceFilter{Outlets: []string{"DAILY MAIL"}}})
	if err != nil {
		t.Fatal(err)
	}
	all, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", MaxPerNode: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(around.GetNodes()) < 5 || len(around.GetNodes()) >= len(all.GetNodes()) {
		t.Errorf("%d entities by the Daily Mail's claims, %d by all: want fewer, but some", len(around.GetNodes()), len(all.GetNodes()))
	}
	for _, e := range around.GetEdges() {
		rel, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: e.GetName()})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(rel.GetRelation().GetClaims(), func(c *pb.Claim) bool { return c.GetSource().GetOutlet() == "Daily Mail" }) {
			t.Errorf("%s is shown, but no Daily Mail claim backs it", e.GetName())
		}
	}
	paths, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer",
		Sources: &pb.SourceFilter{Kinds: []pb.SourceKind{pb.SourceKind_SOURCE_KIND_DATASET}}})
	if err != nil || len(paths.GetPaths()) != 0 || !strings.HasPrefix(paths.GetNoPath(), "none of the 5 relations of Ajmal Masroor") {
		t.Errorf("by datasets alone: %d paths, %q, %v", len(paths.GetPaths()), paths.GetNoPath(), err)
	}
	twoOutlets, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxDepth: 6,
		Sources: &pb.SourceFilter{MinOutlets: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range twoOutlets.GetPaths() {
		if p.GetScore() <= 0 || !strings.Contains(p.GetReason(), "in 2 outlets") && !strings.Contains(p.GetReason(), "in 3 outlets") {
			t.Errorf("a route with a hop from fewer than two outlets: %s", p.GetReason())
		}
	}
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer",
		Sources: &pb.SourceFilter{Kinds: []pb.SourceKind{pb.SourceKind(99)}, MinOutlets: 11}})
	wantCode(t, err, codes.InvalidArgument, "sources.kinds[0]", "sources.min_outlets")
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", LongerBy: 4})
	wantCode(t, err, codes.InvalidArgument, "longer_by")
	// One hop more must be paid for with 0.25 of score: the 4-hop route at 0.925 stays behind the 3-hop
	// one at 0.90.
	longer, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxPaths: 2, LongerBy: 1})
	if err != nil || len(longer.GetPaths()) != 2 || len(longer.GetPaths()[0].GetHops()) != 3 || longer.GetPaths()[1].GetScore() != 0.925 {
		t.Errorf("longer_by 1: %d paths, %v", len(longer.GetPaths()), err)
	}
}

// TestDatesFromThePublicRecordSaySo: a relation dated from the public record, not from its excerpts, says
// so with a citation in every answer that shows it; one dated by its excerpt says nothing.
func TestDatesFromThePublicRecordSaySo(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tests := []struct {
		relation, want string
	}{
		{"relations/keir-starmer.leads.labour", "public record: elected Labour leader on 4 April 2020 (Labour Party)"},
		{"relations/tony-blair.leads.labour", "public record: Labour leader from 21 July 1994 to 24 June 2007 (Labour Party)"},
		{"relations/lutfur-rahman.leads.tower-hamlets-council", ""}, // "from 2008 to 2010", the Daily Mail says
	}
	for _, tc := range tests {
		resp, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: tc.relation})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.GetRelation().GetDatesFrom(); got != tc.want {
			t.Errorf("%s: dates_from %q, want %q", tc.relation, got, tc.want)
		}
	}
	// Paths show it too.
	paths, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Keir Starmer", MaxPaths: 1})
	if err != nil || len(paths.GetPaths()) == 0 {
		t.Fatal(err)
	}
	last := paths.GetPaths()[0].GetHops()[len(paths.GetPaths()[0].GetHops())-1].GetRelation()
	if last.GetName() != "relations/keir-starmer.leads.labour" || !strings.HasPrefix(last.GetDatesFrom(), "public record:") {
		t.Errorf("the path's last hop %s says its dates come from %q", last.GetName(), last.GetDatesFrom())
	}
}
