package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// reviewArticle is the document the review view's browser test reads into the queue: five proposals among
// councillors the default graph does not hold (so that approving them changes nothing another test looks
// at), one of them named by a misspelling of Rabina Khan to merge. Its first line has characters of two and
// three bytes in UTF-8, so that the highlights are only right if the page reads the spans' byte offsets
// as bytes. ref makes the text, and so the document, new to the queue.
func reviewArticle(ref string) string {
	return `Tower Hamlets’ quiet row — a test of the review view (ref ` + ref + `)

Councillor Zorba Quillfeather criticised Councillor Marisol Tenterden over the library closures on Monday.

Councillor Tenterden accused Councillor Quillfeather of misleading residents about the budget.

Councillor Rabena Kahn endorsed Councillor Quillfeather for the scrutiny committee.

Councillor Piers Vantongeren campaigned with Councillor Tenterden in Shadwell last spring.

Councillor Ottoline Brackwater criticised Councillor Vantongeren at the hustings.
`
}

// reviewProposal returns the proposal of a type between two entities, or fails the test.
func reviewProposal(t *testing.T, ps []*pb.Proposal, typ pb.RelationType, from, to string) *pb.Proposal {
	t.Helper()
	for _, p := range ps {
		if p.GetType() == typ && p.GetFrom() == from && p.GetTo() == to {
			return p
		}
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.GetFrom()+" "+p.GetType().String()+" "+p.GetTo())
	}
	t.Fatalf("no %s proposal from %s to %s; the proposals are:\n%s", typ, from, to, strings.Join(got, "\n"))
	return nil
}

// TestReviewInBrowser runs web/e2e/review.mjs: headless Chromium uses the explorer's review view against
// the service under test, on a document this test reads into the queue over gRPC. The page asks for an
// editor's key (a reader's is refused), lists the document, highlights each pending proposal's sentence,
// approves one in place, rejects one with a reason, merges a proposed entity into Rabina Khan, rejects and
// approves selections, shows an approved relation in the graph, and reads a second document into the
// queue from its form. Then this test checks over gRPC that the approved relations are in the graph with
// their claims, and the rejected ones are not. POLGRAPH_UPDATE_SCREENSHOT=1 also writes the README's
// screenshot of the review view, docs/review.png.
func TestReviewInBrowser(t *testing.T) {
	browserTest(t)
	ctx := context.Background()
	editor, _ := makeKey(t, uniqueName("review-explorer"), "editor")
	reader, _ := makeKey(t, uniqueName("review-explorer-reader"), "reader")
	reviews := pb.NewReviewServiceClient(conn)

	b := make([]byte, 4)
	rand.Read(b)
	const title, outlet, published = "A quiet row in Tower Hamlets", "Review Test News", "2025-01-06"
	ingested, err := reviews.IngestDocuments(withKey(ctx, editor), &pb.IngestDocumentsRequest{Documents: []*pb.DocumentInput{{
		Content: reviewArticle(hex.EncodeToString(b)), Format: "text", Path: "review-explorer-test.txt",
		Title: title, Outlet: outlet, Published: published,
	}}})
	if err != nil {
		t.Fatalf("IngestDocuments: %v", err)
	}
	doc := ingested.GetDocuments()[0]
	if doc.GetAlreadyRead() || doc.GetQueuedProposals() != 5 {
		t.Fatalf("the document should be new with 5 proposals queued: %v", doc)
	}
	ps := doc.GetProposals()
	const (
		zorba    = "actors/zorba-quillfeather"
		marisol  = "actors/marisol-tenterden"
		rabena   = "actors/rabena-kahn"
		piers    = "actors/piers-vantongeren"
		ottoline = "actors/ottoline-brackwater"
	)
	approve := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_CRITICISED, zorba, marisol)
	reject := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_ACCUSED, marisol, zorba)
	endorses := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_ENDORSES, rabena, zorba)
	campaigned := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_CAMPAIGNED_WITH, marisol, piers)
	criticised := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_CRITICISED, ottoline, piers)
	const reason = "a test: the accusation is the councillor’s, reported second-hand"

	// Two records of one name and birth year, which the page keeps apart as an admin.
	admin, _ := makeKey(t, uniqueName("review-explorer-admin"), "admin")
	u := hex.EncodeToString(b)
	one, two := graph.EntityName("actors/aaa-"+u+"-one"), graph.EntityName("actors/aaa-"+u+"-two")
	born := graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1950}}
	if err := store.UpsertEntities(ctx, []graph.Entity{
		{Name: one, Kind: graph.KindActor, DisplayName: "Aldous Zq" + u, Attributes: born},
		{Name: two, Kind: graph.KindActor, DisplayName: "Aldous Zq" + u, Attributes: born},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range []graph.EntityName{one, two} {
			_, _ = store.DeleteEntity(context.Background(), n, "test over")
		}
	})
	const apartReason = "a test: two men of one name"

	spec, err := json.Marshal(map[string]any{
		"editorKey": editor, "readerKey": reader, "adminKey": admin,
		"match":    map[string]string{"pair": string(one) + "~" + string(two), "reason": apartReason},
		"document": doc.GetDocument().GetHash(), "title": title, "outlet": outlet, "published": published,
		"approve": approve.GetName(), "reject": reject.GetName(), "bulkReject": endorses.GetName(),
		"bulkApprove": []string{campaigned.GetName(), criticised.GetName()},
		"excerpt":     approve.GetExcerpt(), "reason": reason,
		"merge": map[string]string{"entity": rabena, "into": "actors/rabina-khan", "intoName": "Rabina Khan"},
		"ingest": map[string]string{"title": "A hustings in Shadwell",
			"content": "Councillor Ottoline Brackwater criticised Councillor Zorba Quillfeather at the Shadwell hustings (ref " + hex.EncodeToString(b) + "). " +
				"The Labour leader criticised Councillor Ottoline Brackwater."},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"POLGRAPH_EXPLORER_URL=http://" + explorerAddr + "/", "POLGRAPH_REVIEW=" + string(spec)}
	if os.Getenv("POLGRAPH_UPDATE_SCREENSHOT") != "" {
		docs, err := filepath.Abs("../../docs/review.png")
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "POLGRAPH_DOCS_SCREENSHOT="+docs)
	}
	runBrowserScript(t, "e2e/review.mjs", env...)

	// The judgement the page made is kept, with the admin's name.
	js, err := store.Separated(ctx, []graph.EntityName{one})
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 1 || js[0].Reason != apartReason || !strings.Contains(js[0].By, "review-explorer-admin") {
		t.Errorf("the judgement kept: %+v", js)
	}

	// The queue says what the page did.
	listed, err := reviews.ListProposals(withKey(ctx, editor), &pb.ListProposalsRequest{Document: doc.GetDocument().GetHash()})
	if err != nil {
		t.Fatalf("ListProposals: %v", err)
	}
	states := map[string]string{}
	byName := map[string]*pb.Proposal{}
	for _, p := range listed.GetProposals() {
		states[p.GetName()] = p.GetState().String()
		byName[p.GetName()] = p
	}
	approved, rejected := pb.ReviewState_REVIEW_STATE_APPROVED.String(), pb.ReviewState_REVIEW_STATE_REJECTED.String()
	want := map[string]string{approve.GetName(): approved, reject.GetName(): rejected, endorses.GetName(): rejected,
		campaigned.GetName(): approved, criticised.GetName(): approved}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("the proposals' states after the review in the browser (-want +got):\n%s", diff)
	}
	if got := byName[reject.GetName()]; got.GetReason() != reason || !strings.Contains(got.GetReviewer(), "review-explorer") {
		t.Errorf("the rejection in place: reason %q by %q; want %q by the editor's key", got.GetReason(), got.GetReviewer(), reason)
	}
	if got := byName[endorses.GetName()]; got.GetFrom() != "actors/rabina-khan" {
		t.Errorf("after the merge the endorsement is from %s, want actors/rabina-khan", got.GetFrom())
	}

	// The approved relations are in the graph, each with its claim citing the document.
	for _, p := range []*pb.Proposal{approve, campaigned, criticised} {
		rel := byName[p.GetName()].GetRelation()
		resp, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: rel})
		if err != nil {
			t.Errorf("GetRelation(%q) of an approved proposal: %v", rel, err)
			continue
		}
		r := resp.GetRelation()
		if r.GetType() != p.GetType() || len(r.GetClaims()) != 1 || r.GetClaims()[0].GetExcerpt() != p.GetExcerpt() ||
			r.GetClaims()[0].GetSource().GetName() != doc.GetDocument().GetSource().GetName() {
			t.Errorf("the relation an approval wrote: %v; want a %s with one claim, %q, citing %s", r, p.GetType(), p.GetExcerpt(), doc.GetDocument().GetSource().GetName())
		}
	}
	// The rejected ones are not: no relation of their types, and Zorba Quillfeather's neighbourhood is his
	// one approved relation.
	for _, name := range []string{"relations/marisol-tenterden.accused.zorba-quillfeather", "relations/rabina-khan.endorses.zorba-quillfeather"} {
		if _, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: name}); status.Code(err) != codes.NotFound {
			t.Errorf("GetRelation(%q) of a rejected proposal: %v; want NOT_FOUND", name, err)
		}
	}
	hood, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: zorba, Depth: 1,
		Filter: &pb.RelationFilter{Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED, pb.ClaimStatus_CLAIM_STATUS_REPORTED,
			pb.ClaimStatus_CLAIM_STATUS_CONFIRMED, pb.ClaimStatus_CLAIM_STATUS_DENIED}}})
	if err != nil {
		t.Fatalf("ExploreNeighborhood(%s): %v", zorba, err)
	}
	var edges []string
	for _, e := range hood.GetEdges() {
		edges = append(edges, e.GetName())
	}
	if diff := cmp.Diff([]string{byName[approve.GetName()].GetRelation()}, edges); diff != "" {
		t.Errorf("%s's relations after the review (-want +got):\n%s", zorba, diff)
	}
	// The document the page read is queued, and what it proposes (Ottoline Brackwater criticised Zorba
	// Quillfeather) is pending: the neighbourhood above has none of it.
	docs, err := reviews.ListDocuments(withKey(ctx, editor), &pb.ListDocumentsRequest{})
	if err != nil {
		t.Fatalf("ListDocuments: %v", err)
	}
	var fromPage *pb.ReviewDocument
	for _, d := range docs.GetDocuments() {
		if d.GetSource().GetTitle() == "A hustings in Shadwell" {
			fromPage = d
		}
	}
	if fromPage == nil || fromPage.GetPending() < 1 || fromPage.GetSource().GetOutlet() != outlet || fromPage.GetSource().GetPublished() != published {
		t.Errorf("the document read from the page: %v; want it queued with its outlet, date and a pending proposal", fromPage)
	}
	// A rejected proposal stays rejected: approving it now is refused.
	if _, err := reviews.ApproveProposals(withKey(ctx, editor), &pb.ApproveProposalsRequest{Names: []string{reject.GetName()}}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("approving the rejected proposal: %v; want FAILED_PRECONDITION", err)
	}
}
