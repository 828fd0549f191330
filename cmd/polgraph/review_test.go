package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/review"
)

// The review queue end to end: documents read by the service under test (the ingest pipeline against the
// default graph), decided on over gRPC with an editor's key and through the CLI, on the test Dgraph. Each
// test writes about a person of its own (newcomer), whom nothing else in the graph is called.

// newcomer is a person's name that no other test, and nothing in the default graph, has.
func newcomer() (display string, name graph.EntityName) {
	b := make([]byte, 6)
	rand.Read(b)
	letters := []byte("Q")
	for _, x := range b {
		letters = append(letters, "aeioubdfgklmnprstvz"[int(x)%19])
	}
	surname := string(letters)
	return "Nia " + surname, graph.EntityName("actors/nia-" + strings.ToLower(surname))
}

// article is a short report in which a newcomer endorses Rabina Khan and Lutfur Rahman denies backing
// Ajmal Masroor.
func article(person string) string {
	return fmt.Sprintf(`Tower Hamlets: a new voice

Mayor Lutfur Rahman did not support Ajmal Masroor in the election, his party said on Friday.

%s, a councillor, endorsed Rabina Khan.

Rabina Khan criticised Lutfur Rahman over the council's budget.
`, person)
}

// find returns the proposal of a type between two entities, or fails the test.
func find(t *testing.T, ps []*pb.Proposal, typ pb.RelationType, from, to graph.EntityName) *pb.Proposal {
	t.Helper()
	for _, p := range ps {
		if p.GetType() == typ && p.GetFrom() == string(from) && p.GetTo() == string(to) {
			return p
		}
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.GetFrom()+" "+p.GetType().String()+" "+p.GetTo())
	}
	t.Fatalf("no %s %s %s among the proposals read: %v", from, typ, to, got)
	return nil
}

func TestReviewServiceNeedsAnEditor(t *testing.T) {
	ctx := context.Background()
	reader, _ := makeKey(t, uniqueName("review-reader"), "reader")
	editor, _ := makeKey(t, uniqueName("review-editor"), "editor")
	rc := pb.NewReviewServiceClient(conn)
	calls := map[string]func(context.Context) error{
		"IngestDocuments": func(ctx context.Context) error {
			_, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: []*pb.DocumentInput{{Content: "Text."}}, DryRun: true})
			return err
		},
		"ListProposals": func(ctx context.Context) error {
			_, err := rc.ListProposals(ctx, &pb.ListProposalsRequest{})
			return err
		},
		"GetDocument": func(ctx context.Context) error {
			_, err := rc.GetDocument(ctx, &pb.GetDocumentRequest{Name: "deadbeef00"})
			return err
		},
		"ApproveProposals": func(ctx context.Context) error {
			_, err := rc.ApproveProposals(ctx, &pb.ApproveProposalsRequest{Names: []string{"proposals/0000000000000000"}})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(ctx); status.Code(err) != codes.Unauthenticated {
				t.Errorf("anonymous: %v; want UNAUTHENTICATED", err)
			}
			if err := call(withKey(ctx, reader)); status.Code(err) != codes.PermissionDenied || !strings.Contains(status.Convert(err).Message(), "editor") {
				t.Errorf("a reader: %v; want PERMISSION_DENIED naming the editor role", err)
			}
			// An editor passes the checks (and gets the method's own answer).
			if err := call(withKey(ctx, editor)); status.Code(err) == codes.Unauthenticated || status.Code(err) == codes.PermissionDenied {
				t.Errorf("an editor: %v", err)
			}
		})
	}
}

func TestReviewEndToEnd(t *testing.T) {
	editor, editorID := makeKey(t, uniqueName("reviewer"), "editor")
	ctx := withKey(context.Background(), editor)
	rc := pb.NewReviewServiceClient(conn)
	person, nia := newcomer()
	rabina := graph.EntityName("actors/rabina-khan")
	text := article(person)
	docs := []*pb.DocumentInput{{Content: text, Path: "a-new-voice.txt", Outlet: "East End Gazette", Published: "2024-07-06"}}

	// A dry run reads and queues nothing.
	dry, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: docs, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	read := dry.GetDocuments()[0]
	denial := find(t, read.GetProposals(), pb.RelationType_RELATION_TYPE_ENDORSES, "actors/lutfur-rahman", "actors/ajmal-masroor")
	if denial.GetStatus() != pb.ClaimStatus_CLAIM_STATUS_DENIED {
		t.Errorf("the denial was read as %s", denial.GetStatus())
	}
	find(t, read.GetProposals(), pb.RelationType_RELATION_TYPE_ENDORSES, nia, rabina)
	if read.GetQueuedProposals() != 0 || !slices.ContainsFunc(read.GetEntities(), func(e *pb.ProposedEntity) bool { return e.GetName() == string(nia) }) {
		t.Errorf("the dry run: %d queued, entities %v", read.GetQueuedProposals(), read.GetEntities())
	}
	hash := read.GetDocument().GetHash()
	if _, err := rc.GetDocument(ctx, &pb.GetDocumentRequest{Name: hash}); status.Code(err) != codes.NotFound {
		t.Errorf("after a dry run, GetDocument: %v; want NOT_FOUND", err)
	}

	// Queued once.
	got, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	first := got.GetDocuments()[0]
	if first.GetAlreadyRead() || int(first.GetQueuedProposals()) != len(read.GetProposals()) || first.GetDocument().GetHash() != hash {
		t.Fatalf("the first ingest: already read %v, %d queued of %d", first.GetAlreadyRead(), first.GetQueuedProposals(), len(read.GetProposals()))
	}
	again, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	if d := again.GetDocuments()[0]; !d.GetAlreadyRead() || d.GetQueuedProposals() != 0 {
		t.Errorf("the second ingest: already read %v, %d queued", d.GetAlreadyRead(), d.GetQueuedProposals())
	}

	// The document, by a prefix of its hash: its text, its source, its proposals with their spans.
	doc, err := rc.GetDocument(ctx, &pb.GetDocumentRequest{Name: hash[:10]})
	if err != nil {
		t.Fatal(err)
	}
	if d := doc.GetDocument(); d.GetSource().GetName() != string(review.SourceNameFor(hash)) || d.GetSource().GetOutlet() != "East End Gazette" ||
		d.GetSource().GetPublished() != "2024-07-06" || int(d.GetPending()) != len(read.GetProposals()) {
		t.Errorf("the document: %v", d)
	}
	for _, p := range doc.GetProposals() {
		if s := doc.GetDocument().GetText()[p.GetSpanStart():p.GetSpanEnd()]; !strings.Contains(s, p.GetExcerpt()) && !strings.Contains(p.GetExcerpt(), s) {
			t.Errorf("%s: its span holds %q, its excerpt is %q", p.GetName(), s, p.GetExcerpt())
		}
	}
	endorses := find(t, doc.GetProposals(), pb.RelationType_RELATION_TYPE_ENDORSES, nia, rabina)

	// Pending: nowhere in the graph.
	gc := client
	if _, err := gc.GetEntity(context.Background(), &pb.GetEntityRequest{Name: string(nia)}); status.Code(err) != codes.NotFound {
		t.Errorf("GetEntity of the proposed person: %v; want NOT_FOUND", err)
	}
	if s, err := gc.SearchEntities(context.Background(), &pb.SearchEntitiesRequest{Query: person}); err != nil || len(s.GetResults()) != 0 {
		t.Errorf("searching for the proposed person: %v %v", s.GetResults(), err)
	}
	n, err := gc.ExploreNeighborhood(context.Background(), &pb.ExploreNeighborhoodRequest{Name: string(rabina), Depth: 1, MaxPerNode: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range n.GetNodes() {
		if node.GetEntity().GetName() == string(nia) {
			t.Errorf("Rabina Khan's neighbourhood holds the proposed person")
		}
	}

	// Listing by entity; an edit; refused edits.
	list, err := rc.ListProposals(ctx, &pb.ListProposalsRequest{Entity: string(nia), State: pb.ReviewState_REVIEW_STATE_PENDING})
	if err != nil || len(list.GetProposals()) == 0 || list.GetProposals()[0].GetName() != endorses.GetName() {
		t.Fatalf("proposals naming the person: %v, %v", list.GetProposals(), err)
	}
	_, err = rc.UpdateProposal(ctx, &pb.UpdateProposalRequest{Proposal: &pb.Proposal{Name: endorses.GetName(), Excerpt: "x"},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"excerpt"}}})
	if v := violations(t, err); v["update_mask.paths[0]"] == "" {
		t.Errorf("editing the excerpt: %v", v)
	}
	_, err = rc.UpdateProposal(ctx, &pb.UpdateProposalRequest{Proposal: &pb.Proposal{Name: endorses.GetName(), Type: pb.RelationType_RELATION_TYPE_HOLDS_OFFICE},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"type"}}})
	if v := violations(t, err); v["proposal.type"] == "" {
		t.Errorf("an actor holding an actor as office: %v", v)
	}
	edited, err := rc.UpdateProposal(ctx, &pb.UpdateProposalRequest{Proposal: &pb.Proposal{Name: endorses.GetName(), Confidence: 0.95, Date: "2024-07"},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"confidence", "date"}}})
	if err != nil {
		t.Fatal(err)
	}
	if p := edited.GetProposal(); p.GetConfidence() != 0.95 || p.GetDate() != "2024-07" || p.GetStatus() != endorses.GetStatus() {
		t.Errorf("the edited proposal: %v", p)
	}

	// Reject one, with a reason that is kept; approve the person's endorsement.
	criticised := find(t, doc.GetProposals(), pb.RelationType_RELATION_TYPE_CRITICISED, rabina, "actors/lutfur-rahman")
	_, err = rc.RejectProposals(ctx, &pb.RejectProposalsRequest{Names: []string{criticised.GetName()}})
	if v := violations(t, err); v["reason"] == "" {
		t.Errorf("a rejection without a reason: %v", v)
	}
	rej, err := rc.RejectProposals(ctx, &pb.RejectProposalsRequest{Names: []string{criticised.GetName()}, Reason: "not about the election"})
	if err != nil || len(rej.GetRejected()) != 1 || rej.GetRejected()[0].GetReason() != "not about the election" {
		t.Fatalf("RejectProposals: %v, %v", rej, err)
	}
	_, err = rc.ApproveProposals(ctx, &pb.ApproveProposalsRequest{Names: []string{endorses.GetName(), criticised.GetName()}})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("approving a rejected proposal: %v; want FAILED_PRECONDITION", err)
	}
	ok, err := rc.ApproveProposals(ctx, &pb.ApproveProposalsRequest{Names: []string{endorses.GetName()}})
	if err != nil {
		t.Fatal(err)
	}
	relName := "relations/" + graph.Slug(nia) + ".endorses.rabina-khan"
	if len(ok.GetApproved()) != 1 || ok.GetApproved()[0].GetRelation() != relName || !slices.Equal(ok.GetCreatedEntities(), []string{string(nia)}) {
		t.Fatalf("ApproveProposals: %v", ok)
	}

	// Approved: the relation, its claim and the person are in the graph, paths and the trail.
	rel, err := gc.GetRelation(context.Background(), &pb.GetRelationRequest{Name: relName, HistorySize: 5})
	if err != nil {
		t.Fatal(err)
	}
	c := rel.GetRelation().GetClaims()
	if len(c) != 1 || c[0].GetSource().GetName() != string(review.SourceNameFor(hash)) || c[0].GetConfidence() != 0.95 ||
		c[0].GetExcerpt() != endorses.GetExcerpt() || rel.GetRelation().GetDate() != "2024-07" {
		t.Errorf("the approved relation: %v", rel.GetRelation())
	}
	if h := rel.GetHistory(); len(h) != 1 || h[0].GetMethod() != "ApproveProposals" || !strings.Contains(h[0].GetPrincipal(), editorID) {
		t.Errorf("the trail of the approved relation: %v", h)
	}
	paths, err := gc.FindPaths(context.Background(), &pb.FindPathsRequest{From: string(nia), To: "actors/lutfur-rahman", MaxPaths: 1})
	if err != nil || len(paths.GetPaths()) == 0 || paths.GetPaths()[0].GetHops()[0].GetRelation().GetName() != relName {
		t.Errorf("a path from the approved person: %v, %v", paths.GetPaths(), err)
	}
	if s, err := gc.SearchEntities(context.Background(), &pb.SearchEntitiesRequest{Query: person}); err != nil || len(s.GetResults()) != 1 {
		t.Errorf("searching for the approved person: %v %v", s.GetResults(), err)
	}
	// Others pending stay out: the denial's relation holds only the default graph's claims.
	denied, err := gc.GetRelation(context.Background(), &pb.GetRelationRequest{Name: "relations/lutfur-rahman.endorses.ajmal-masroor"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range denied.GetRelation().GetClaims() {
		if c.GetSource().GetName() == string(review.SourceNameFor(hash)) {
			t.Errorf("a pending proposal's claim is in the graph: %v", c)
		}
	}

	// The same sentence in another document: the rejected reading is not proposed again.
	other := fmt.Sprintf("Another report.\n\nRabina Khan criticised Lutfur Rahman over the council's budget.\n\n%s appeared with Rabina Khan at a rally.\n", person)
	more, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: []*pb.DocumentInput{{Content: other, Path: "another.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	d2 := more.GetDocuments()[0]
	if d2.GetRepeatedProposals() < 1 {
		t.Errorf("the second document repeats the rejected reading, yet %d proposals were repeated", d2.GetRepeatedProposals())
	}
	again2 := find(t, d2.GetProposals(), pb.RelationType_RELATION_TYPE_CRITICISED, rabina, "actors/lutfur-rahman")
	if again2.GetName() != criticised.GetName() || again2.GetState() != pb.ReviewState_REVIEW_STATE_REJECTED || again2.GetReason() != "not about the election" {
		t.Errorf("the repeated reading: %v", again2)
	}
	// The person, now in the graph, is linked in the new document, not proposed again.
	if slices.ContainsFunc(d2.GetEntities(), func(e *pb.ProposedEntity) bool { return e.GetName() == string(nia) }) {
		t.Errorf("the approved person was proposed again")
	}
}

func TestReviewMergeOverGRPC(t *testing.T) {
	editor, _ := makeKey(t, uniqueName("merger"), "editor")
	ctx := withKey(context.Background(), editor)
	rc := pb.NewReviewServiceClient(conn)
	person, nia := newcomer()
	got, err := rc.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: []*pb.DocumentInput{{Content: article(person), Path: "merge.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	endorses := find(t, got.GetDocuments()[0].GetProposals(), pb.RelationType_RELATION_TYPE_ENDORSES, nia, "actors/rabina-khan")
	_, err = rc.MergeProposedEntity(ctx, &pb.MergeProposedEntityRequest{Name: string(nia), Into: "parties/labour"})
	if v := violations(t, err); v["into"] == "" {
		t.Errorf("merging a person into a party: %v", v)
	}
	res, err := rc.MergeProposedEntity(ctx, &pb.MergeProposedEntityRequest{Name: string(nia), Into: "actors/apsana-begum"})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetEntity().GetState() != pb.ReviewState_REVIEW_STATE_MERGED || res.GetEntity().GetMergedInto() != "actors/apsana-begum" ||
		!slices.ContainsFunc(res.GetRepointed(), func(p *pb.Proposal) bool {
			return p.GetName() == endorses.GetName() && p.GetFrom() == "actors/apsana-begum"
		}) {
		t.Fatalf("MergeProposedEntity: %v", res)
	}
	ok, err := rc.ApproveProposals(ctx, &pb.ApproveProposalsRequest{Names: []string{endorses.GetName()}})
	if err != nil {
		t.Fatal(err)
	}
	if r := ok.GetApproved()[0].GetRelation(); r != "relations/apsana-begum.endorses.rabina-khan" || len(ok.GetCreatedEntities()) != 0 {
		t.Errorf("the merged person's endorsement went to %s, creating %v", r, ok.GetCreatedEntities())
	}
	if _, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: string(nia)}); status.Code(err) != codes.NotFound {
		t.Errorf("the merged proposed person is in the graph: %v", err)
	}
}

func TestReviewCLI(t *testing.T) {
	editor, _ := makeKey(t, uniqueName("cli-reviewer"), "editor")
	dir := t.TempDir()
	person, nia := newcomer()
	articles := filepath.Join(dir, "articles")
	os.MkdirAll(filepath.Join(articles, "more"), 0o755)
	os.WriteFile(filepath.Join(articles, "one.txt"), []byte(article(person)), 0o644)
	os.WriteFile(filepath.Join(articles, "more", "two.txt"), []byte(fmt.Sprintf("Later.\n\n%s appeared with Apsana Begum at a rally.\n", person)), 0o644)
	os.WriteFile(filepath.Join(articles, ".hidden.txt"), []byte("Not read."), 0o644)
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := realMain(context.Background(), append(args, "--server", serverAddr, "--api-key", editor), &out, &out); err != nil {
			t.Fatalf("polgraph %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	contains := func(out string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("the output lacks %q:\n%s", w, out)
			}
		}
	}

	// A dry run written in the dataset format reads back with the graph's entities.
	proposals := filepath.Join(dir, "proposals.jsonl")
	out := run("ingest", articles, "--dry-run", "--out", proposals)
	contains(out, "one.txt: ", "two.txt: ", "read 2 documents: ", "nothing queued (dry run)", "wrote them to "+proposals)
	if strings.Contains(out, "hidden") {
		t.Errorf("a hidden file was read:\n%s", out)
	}
	exported := filepath.Join(dir, "graph.jsonl")
	var buf bytes.Buffer
	if err := realMain(context.Background(), []string{"export", "--format", "polgraph", "--out", exported, "--server", serverAddr}, &buf, &buf); err != nil {
		t.Fatalf("export: %v\n%s", err, buf.String())
	}
	checkReadsBack(t, exported, proposals, nia)

	// Queued, through the server.
	out = run("ingest", articles)
	contains(out, "one.txt: queued ", "two.txt: queued ", "read 2 documents (0 read before): queued ")
	out = run("ingest", filepath.Join(articles, "one.txt"))
	contains(out, "one.txt: read before", "read 1 document (1 read before): queued 0 proposals")

	out = run("review", "list", "--entity", string(nia))
	contains(out, "2 pending proposals", string(nia)+" ENDORSES actors/rabina-khan", "actors/apsana-begum APPEARED_WITH "+string(nia))
	id := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " ENDORSES actors/rabina-khan") {
			id = strings.Fields(line)[0]
		}
	}
	docs := run("review", "documents")
	contains(docs, "one.txt", "two.txt", " pending, 0 approved, 0 rejected")
	var hash string
	for _, line := range strings.Split(docs, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "documents/") && hash == "" {
			hash = strings.TrimPrefix(f[0], "documents/")
		}
	}
	out = run("review", "show", hash[:12], "--text")
	contains(out, "documents/"+hash, "approved claims cite sources/ingest-"+hash[:16], "«", "]")

	out = run("review", "edit", strings.TrimPrefix(id, "proposals/"), "--status", "confirmed", "--confidence", "0.9")
	contains(out, id+"  PENDING", "CONFIRMED 0.90")
	out = run("review", "entities", "--state", "all")
	contains(out, string(nia)+"  PENDING  \""+person+"\"")

	// Approve everything of the person's second document that is sure enough, then the endorsement.
	out = run("review", "list", "--entity", string(nia), "--type", "APPEARED_WITH")
	second := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "APPEARED_WITH") {
			second = strings.Fields(line)[0]
		}
	}
	out = run("review", "approve", id)
	contains(out, "approved 1 proposal", id+" → relations/"+graph.Slug(nia)+".endorses.rabina-khan", "new entity "+string(nia))
	out = run("review", "approve", id)
	contains(out, "approved 0 proposals (1 approved before)")
	out = run("review", "reject", second, "--reason", "a photo caption")
	contains(out, "rejected 1 proposal: a photo caption")
	out = run("review", "list", "--entity", string(nia), "--state", "all")
	contains(out, "CONFIRMED 0.90", "approved by key ", "rejected by key ", ": a photo caption")

	// --all approves what is left of a document, at least as sure as asked.
	out = run("review", "approve", "--all", "--document", hash[:12], "--min-confidence", "0.99")
	contains(out, "no pending proposal to approve")

	// Refusals read as the service words them.
	var errOut bytes.Buffer
	err := realMain(context.Background(), []string{"review", "reject", id, "--reason", "too late", "--server", serverAddr, "--api-key", editor}, &errOut, &errOut)
	if err == nil || !strings.Contains(err.Error(), "FailedPrecondition") || !strings.Contains(err.Error(), "retract the claim instead") {
		t.Errorf("rejecting an approved proposal: %v", err)
	}
}

// checkReadsBack reads a dry run's dataset with the graph's export (whose entities it names) and checks
// that the newcomer is proposed in it.
func checkReadsBack(t *testing.T, graphFile, proposals string, nia graph.EntityName) {
	t.Helper()
	g, err := os.ReadFile(graphFile)
	if err != nil {
		t.Fatal(err)
	}
	// The graph's entities only: the proposals may name relations the graph holds.
	var ents bytes.Buffer
	for i, line := range strings.Split(string(g), "\n") {
		if i == 0 || strings.Contains(line, `"record":"entity"`) {
			ents.WriteString(line + "\n")
		}
	}
	p, err := os.ReadFile(proposals)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Read([]dataset.File{{Name: "graph", R: &ents}, {Name: "proposals", R: bytes.NewReader(p)}})
	if err != nil {
		t.Fatalf("the dry run does not read back: %v", err)
	}
	if !slices.ContainsFunc(ds.Entities, func(e graph.Entity) bool { return e.Name == nia }) || len(ds.Sources) < 2 {
		t.Errorf("the dry run's dataset lacks the newcomer or the sources:\n%s", p)
	}
}

func TestIngestStraightToDgraph(t *testing.T) {
	dir := t.TempDir()
	person, nia := newcomer()
	path := filepath.Join(dir, "direct.txt")
	os.WriteFile(path, []byte(article(person)), 0o644)
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"ingest", path}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "direct.txt: queued ") || !strings.Contains(out.String(), "review them with `polgraph review list`") {
		t.Errorf("the output:\n%s", out.String())
	}
	queued, err := store.Queue().GetProposedEntities(context.Background(), []graph.EntityName{nia})
	if err != nil || queued[nia].State != review.Pending {
		t.Errorf("the newcomer in the queue: %+v, %v", queued[nia], err)
	}
	if _, err := store.GetEntity(context.Background(), nia); graph.KindOf(err) != graph.NotFound {
		t.Errorf("ingest wrote the newcomer to the graph: %v", err)
	}
	// Usage errors name the flag.
	err = realMain(context.Background(), []string{"ingest", path, "--out", filepath.Join(dir, "x.jsonl")}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "--dry-run") {
		t.Errorf("--out without --dry-run: %v", err)
	}
	err = realMain(context.Background(), []string{"ingest", filepath.Join(dir, "missing")}, &out, &out)
	if err == nil {
		t.Errorf("a missing file was taken")
	}
}

// TestIngestResolvesDescriptionsThroughTheGraph: a dated article's "the Labour leader" and "the Mayor of
// Tower Hamlets" are whoever the default graph says held the posts then, and the proposal says how.
func TestIngestResolvesDescriptionsThroughTheGraph(t *testing.T) {
	editor, _ := makeKey(t, uniqueName("describer"), "editor")
	rc := pb.NewReviewServiceClient(conn)
	resp, err := rc.IngestDocuments(withKey(context.Background(), editor), &pb.IngestDocumentsRequest{DryRun: true, Documents: []*pb.DocumentInput{{
		Content: "The Labour leader criticised the Mayor of Tower Hamlets over the budget.", Format: "text", Published: "2024-03-01"}}})
	if err != nil {
		t.Fatal(err)
	}
	ps := resp.GetDocuments()[0].GetProposals()
	p := reviewProposal(t, ps, pb.RelationType_RELATION_TYPE_CRITICISED, "actors/keir-starmer", "actors/lutfur-rahman")
	if want := []string{"The Labour leader → Keir Starmer, LEADS Labour 2020–",
		"the Mayor of Tower Hamlets → Lutfur Rahman, HOLDS_OFFICE Mayor of Tower Hamlets 2022–"}; !slices.Equal(p.GetResolved(), want) {
		t.Errorf("resolved: %q, want %q", p.GetResolved(), want)
	}
}
