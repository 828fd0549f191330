package main

import (
	"context"
	"fmt"
	"slices"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// loadStar writes a hub with 30 members (the last five joined in 2020; the others undated), a relative
// for each of the first three members, a campaign of members 01 and 02 together (a relation between two
// of the hub's neighbours), and the leadership of member 29 since 2021 (a second relation to the hub).
func loadStar(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	src := graph.Source{Name: "sources/star-test", Title: "star", Kind: graph.SourceOther}
	if err := store.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	ents := []graph.Entity{{Name: "organisations/star-hub", Kind: graph.KindOrganisation, DisplayName: "Star Hub"}}
	var rels []graph.Relation
	claim := func(rel graph.RelationName) []graph.Claim {
		return []graph.Claim{{Name: graph.ClaimNameFor(rel, src.Name, ""), Source: src, Excerpt: "x", Confidence: 0.9, Status: graph.StatusReported}}
	}
	for i := 0; i < 30; i++ {
		m := graph.EntityName(fmt.Sprintf("actors/star-member-%02d", i))
		ents = append(ents, graph.Entity{Name: m, Kind: graph.KindActor, DisplayName: fmt.Sprintf("Star Member %02d", i)})
		r := graph.Relation{Name: graph.RelationNameFor(m, graph.MemberOf, "organisations/star-hub", ""), Type: graph.MemberOf, From: m, To: "organisations/star-hub"}
		if i >= 25 {
			r.ValidFrom = graph.FuzzyDate{Year: 2020}
		}
		r.Claims = claim(r.Name)
		rels = append(rels, r)
		if i < 3 {
			k := graph.EntityName(fmt.Sprintf("actors/star-relative-%02d", i))
			ents = append(ents, graph.Entity{Name: k, Kind: graph.KindActor, DisplayName: fmt.Sprintf("Star Relative %02d", i)})
			f := graph.Relation{Name: graph.RelationNameFor(m, graph.Family, k, ""), Type: graph.Family, From: m, To: k}
			f.Claims = claim(f.Name)
			rels = append(rels, f)
		}
	}
	campaign := graph.Relation{Name: graph.RelationNameFor("actors/star-member-01", graph.CampaignedWith, "actors/star-member-02", ""),
		Type: graph.CampaignedWith, From: "actors/star-member-01", To: "actors/star-member-02"}
	campaign.Claims = claim(campaign.Name)
	leads := graph.Relation{Name: graph.RelationNameFor("actors/star-member-29", graph.Leads, "organisations/star-hub", ""),
		Type: graph.Leads, From: "actors/star-member-29", To: "organisations/star-hub", ValidFrom: graph.FuzzyDate{Year: 2021}}
	leads.Claims = claim(leads.Name)
	rels = append(rels, campaign, leads)
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
}

func nodeNames(resp *pb.ExploreNeighborhoodResponse) []string {
	var out []string
	for _, n := range resp.GetNodes() {
		out = append(out, n.GetEntity().GetName())
	}
	return out
}

func edgeNames(resp *pb.ExploreNeighborhoodResponse) []string {
	var out []string
	for _, e := range resp.GetEdges() {
		out = append(out, e.GetName())
	}
	return out
}

func members(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("actors/star-member-%02d", i))
	}
	return out
}

func TestExploreNeighborhood(t *testing.T) {
	loadStar(t)
	ctx := context.Background()
	explore := func(req *pb.ExploreNeighborhoodRequest) *pb.ExploreNeighborhoodResponse {
		t.Helper()
		resp, err := client.ExploreNeighborhood(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	leftOut := func(resp *pb.ExploreNeighborhoodResponse, entity string) (int32, []*pb.RelationCount) {
		for _, tr := range resp.GetTruncated() {
			if tr.GetEntity() == entity {
				return tr.GetLeftOut(), tr.GetByType()
			}
		}
		return 0, nil
	}
	relationsLeftOut := func(resp *pb.ExploreNeighborhoodResponse, entity string) int32 {
		for _, tr := range resp.GetTruncated() {
			if tr.GetEntity() == entity {
				return tr.GetRelationsLeftOut()
			}
		}
		return 0
	}

	t.Run("fan-out cap and what it left out", func(t *testing.T) {
		resp := explore(&pb.ExploreNeighborhoodRequest{Name: "organisations/star-hub", MaxPerNode: 10})
		want := append([]string{"organisations/star-hub"}, members(0, 10)...)
		if got := nodeNames(resp); !slices.Equal(got, want) {
			t.Fatalf("nodes %v, want %v", got, want)
		}
		// Left out: 20 entities (members 10 to 29), through 21 relations (member 29 also leads the hub).
		n, byType := leftOut(resp, "organisations/star-hub")
		if n != 20 || relationsLeftOut(resp, "organisations/star-hub") != 21 || len(byType) != 2 ||
			byType[0].GetType() != pb.RelationType_RELATION_TYPE_MEMBER_OF || byType[0].GetOutgoing() || byType[0].GetCount() != 20 {
			t.Errorf("left out %d entities, %d relations, %v; want 20 entities, 21 relations (20 incoming MEMBER_OF, 1 LEADS)", n, relationsLeftOut(resp, "organisations/star-hub"), byType)
		}
		// The edges are the subgraph of the shown entities: ten memberships, and the campaign of two members
		// that neither walk nor expansion went through.
		if len(resp.GetEdges()) != 11 || resp.GetTotalEdges() != 11 || resp.GetNodes()[1].GetDistance() != 1 || resp.GetNodes()[1].GetRelationCount() != 2 {
			t.Errorf("edges %d (want 11); first member %v", len(resp.GetEdges()), resp.GetNodes()[1])
		}
		campaign := "relations/star-member-01.campaigned-with.star-member-02"
		if !slices.Contains(edgeNames(resp), campaign) {
			t.Errorf("edges %v lack %s, between two shown members", edgeNames(resp), campaign)
		}
		for _, e := range resp.GetEdges() {
			if e.GetClaimCount() != 1 || !slices.Equal(e.GetStatuses(), []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_REPORTED}) ||
				e.GetVerdict().GetSupportingClaims() != 1 || e.GetVerdict().GetSummary() != "1 claim supports it" || !e.GetUndated() {
				t.Errorf("edge %v", e)
			}
		}
	})

	t.Run("edge cap", func(t *testing.T) {
		resp := explore(&pb.ExploreNeighborhoodRequest{Name: "organisations/star-hub", MaxPerNode: 10, MaxEdges: 4})
		if len(resp.GetEdges()) != 4 || resp.GetTotalEdges() != 4 || resp.GetEdgesLeftOut() != 7 {
			t.Errorf("%d edges (total %d), %d left out; want 4, 4, 7", len(resp.GetEdges()), resp.GetTotalEdges(), resp.GetEdgesLeftOut())
		}
	})

	t.Run("show more by excluding what is shown", func(t *testing.T) {
		resp := explore(&pb.ExploreNeighborhoodRequest{Name: "organisations/star-hub", MaxPerNode: 10, Exclude: members(0, 10)})
		want := append([]string{"organisations/star-hub"}, members(10, 20)...)
		if got := nodeNames(resp); !slices.Equal(got, want) {
			t.Errorf("nodes %v, want %v", got, want)
		}
		if len(resp.GetEdges()) != 20 {
			t.Errorf("%d edges; want 20 (10 to new members, 10 to the excluded ones)", len(resp.GetEdges()))
		}
		if n, _ := leftOut(resp, "organisations/star-hub"); n != 10 || relationsLeftOut(resp, "organisations/star-hub") != 11 {
			t.Errorf("left out %d entities, %d relations; want 10 and 11", n, relationsLeftOut(resp, "organisations/star-hub"))
		}
	})

	t.Run("overall node cap", func(t *testing.T) {
		resp := explore(&pb.ExploreNeighborhoodRequest{Name: "organisations/star-hub", MaxNodes: 5})
		if len(resp.GetNodes()) != 5 || resp.GetTotalNodes() != 5 {
			t.Errorf("%d nodes (total %d), want 5", len(resp.GetNodes()), resp.GetTotalNodes())
		}
		if n, _ := leftOut(resp, "organisations/star-hub"); n != 26 || relationsLeftOut(resp, "organisations/star-hub") != 27 {
			t.Errorf("left out %d entities, %d relations; want 26 and 27", n, relationsLeftOut(resp, "organisations/star-hub"))
		}
	})

	t.Run("time filter", func(t *testing.T) {
		for _, tt := range []struct {
			asOf    string
			undated pb.UndatedPolicy
			want    int
		}{
			{"2010", pb.UndatedPolicy_UNDATED_POLICY_UNSPECIFIED, 1}, // the undated memberships are not known to hold then
			{"2010", pb.UndatedPolicy_UNDATED_POLICY_INCLUDE, 26},    // ... unless asked for
			{"2021", pb.UndatedPolicy_UNDATED_POLICY_UNSPECIFIED, 6}, // the five who joined in 2020
			{"", pb.UndatedPolicy_UNDATED_POLICY_EXCLUDE, 6},         // dated relations only
			{"", pb.UndatedPolicy_UNDATED_POLICY_UNSPECIFIED, 31},    // everyone
		} {
			resp := explore(&pb.ExploreNeighborhoodRequest{Name: "organisations/star-hub", MaxPerNode: 100,
				Filter: &pb.RelationFilter{AsOf: tt.asOf, Undated: tt.undated}})
			if got := len(resp.GetNodes()); got != tt.want {
				t.Errorf("as of %q, undated %v: %d nodes, want %d", tt.asOf, tt.undated, got, tt.want)
			}
		}
	})

	t.Run("depth two", func(t *testing.T) {
		resp := explore(&pb.ExploreNeighborhoodRequest{Name: "actors/star-member-00", Depth: 2, MaxPerNode: 100})
		dist := map[string]int32{}
		for _, n := range resp.GetNodes() {
			dist[n.GetEntity().GetName()] = n.GetDistance()
		}
		if dist["organisations/star-hub"] != 1 || dist["actors/star-relative-00"] != 1 || dist["actors/star-member-29"] != 2 {
			t.Errorf("distances %v", dist)
		}
		if _, ok := dist["actors/star-relative-01"]; ok {
			t.Errorf("a relative three hops away was shown at depth 2")
		}
		if len(resp.GetNodes()) != 32 {
			t.Errorf("%d nodes, want 32 (member, relative, hub, 29 other members)", len(resp.GetNodes()))
		}
	})

	t.Run("pages fit together", func(t *testing.T) {
		whole := explore(&pb.ExploreNeighborhoodRequest{Name: "actors/star-member-00", Depth: 3, MaxPerNode: 100})
		req := &pb.ExploreNeighborhoodRequest{Name: "actors/star-member-00", Depth: 3, MaxPerNode: 100, PageSize: 7}
		var nodes, edges []string
		for i := 0; i < 20; i++ {
			resp := explore(req)
			nodes = append(nodes, nodeNames(resp)...)
			edges = append(edges, edgeNames(resp)...)
			if resp.GetNextPageToken() == "" {
				break
			}
			req.PageToken = resp.GetNextPageToken()
		}
		if !slices.Equal(nodes, nodeNames(whole)) {
			t.Errorf("paged nodes %v\nwhole %v", nodes, nodeNames(whole))
		}
		we := edgeNames(whole)
		slices.Sort(we)
		slices.Sort(edges)
		if !slices.Equal(edges, we) {
			t.Errorf("paged edges differ from the whole: %d vs %d", len(edges), len(we))
		}
		if len(we) != 35 {
			t.Errorf("%d edges, want 35 (30 memberships, 3 family ties, a campaign, a leadership)", len(we))
		}
	})
}
