package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// The write API's end-to-end tests: the service under test (TestMain's), its WriteService over real
// gRPC, on the test Dgraph. Each test writes entities of its own (uniqueName slugs), next to the default
// graph, and checks what the reads and the graph's counts then say.

// writer is a WriteService client with an editor's key, and the key's name and id.
type writer struct {
	w       pb.WriteServiceClient
	ctx     context.Context
	key     string
	name    string
	keyID   string
	slugTag string
}

func newWriter(t *testing.T, role string) writer {
	t.Helper()
	name := uniqueName("writes-" + role)
	key, id := makeKey(t, name, role)
	return writer{w: pb.NewWriteServiceClient(conn), ctx: withKey(context.Background(), key), key: key, name: name, keyID: id,
		slugTag: uniqueName("wt")}
}

// principal is how the trail names the writer.
func (w writer) principal() string { return "key " + w.name + " (" + w.keyID + ")" }

func (w writer) slug(s string) string { return w.slugTag + "-" + s }

func graphCounts(t *testing.T) graph.GraphCounts {
	t.Helper()
	c, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// violations are the fields an INVALID_ARGUMENT error names, with their descriptions.
func violations(t *testing.T, err error) map[string]string {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("%v; want INVALID_ARGUMENT", err)
	}
	out := map[string]string{}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				out[v.GetField()] = v.GetDescription()
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%v names no field", err)
	}
	return out
}

func claim(source, excerpt, status string) *pb.ClaimRecord {
	conf := 0.9
	return &pb.ClaimRecord{Source: source, Excerpt: excerpt, Confidence: &conf, Status: status}
}

func TestWriteRPCsRoundTrip(t *testing.T) {
	w := newWriter(t, "editor")
	ctx := w.ctx
	src := "sources/" + w.slug("gazette")
	ann, bob := "actors/"+w.slug("ann"), "actors/"+w.slug("bob")
	before := graphCounts(t)

	rs, err := w.w.UpsertSources(ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{
		{Name: src, Title: "Ann backs Bob", Kind: "ARTICLE", Outlet: "Test Gazette", Published: "2025-03-02"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rs.GetResult().GetCreated(), []string{src}) || rs.GetResult().GetVersion() == 0 {
		t.Errorf("UpsertSources: %v", rs)
	}
	re, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: ann, DisplayName: "Ann Writetest", Aliases: []string{"A. Writetest"}, Description: "A councillor.", ValidFrom: "1970"},
		{Name: bob, DisplayName: "Bob Writetest"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(re.GetResult().GetCreated(), []string{ann, bob}) {
		t.Errorf("UpsertEntities: %v", re)
	}
	endorses := "relations/" + w.slug("ann") + ".endorses." + w.slug("bob")
	member := "relations/" + w.slug("ann") + ".member-of.labour"
	rr, err := w.w.UpsertRelations(ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{
		{Type: "ENDORSES", From: ann, To: bob, Date: "2025-03", Claims: []*pb.ClaimRecord{claim(src, "Ann said she backs Bob.", "REPORTED")}},
		{Type: "MEMBER_OF", From: ann, To: "parties/labour", ValidFrom: "2019", Claims: []*pb.ClaimRecord{claim(src, "Ann, a Labour member since 2019.", "CONFIRMED")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.GetResult().GetCreated(); !slices.Equal(got, []string{endorses, member}) {
		t.Errorf("UpsertRelations created %v; want %v", got, []string{endorses, member})
	}
	want := before
	want.Sources++
	want.Entities += 2
	want.Relations += 2
	want.Claims += 2
	if got := graphCounts(t); got != want {
		t.Errorf("counts %+v; want %+v", got, want)
	}

	// The running service sees the write at once: a route from Ann to Keir Starmer through Labour.
	paths, err := client.FindPaths(context.Background(), &pb.FindPathsRequest{From: ann, To: "Keir Starmer", MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths.GetPaths()) == 0 || paths.GetPaths()[0].GetHops()[0].GetRelation().GetName() != member {
		t.Errorf("no route from the new entity through Labour: %v", paths)
	}
	// By display name and alias too.
	if e, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: "A. Writetest"}); err != nil || e.GetEntity().GetName() != ann {
		t.Errorf("GetEntity by alias: %v %v", e, err)
	}

	// The same records again change nothing, not even the version; a changed one is an update.
	again, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: ann, DisplayName: "Ann Writetest", Aliases: []string{"A. Writetest"}, Description: "A councillor.", ValidFrom: "1970"},
		{Name: bob, DisplayName: "Bob Writetest"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := again.GetResult(); len(r.GetCreated())+len(r.GetUpdated()) != 0 || r.GetUnchanged() != 2 || r.GetVersion() != rr.GetResult().GetVersion() {
		t.Errorf("an unchanged write: %v (version before %d)", r, rr.GetResult().GetVersion())
	}
	upd, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: bob, DisplayName: "Bob Writetest", Description: "A candidate."}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := upd.GetResult(); !slices.Equal(r.GetUpdated(), []string{bob}) {
		t.Errorf("an update: %v", r)
	}

	// The trail: who, which method, before and after; the entity's history in GetEntity.
	ge, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: bob, HistorySize: 10})
	if err != nil {
		t.Fatal(err)
	}
	h := ge.GetHistory()
	if len(h) != 2 || h[0].GetAction() != "UPDATE" || h[1].GetAction() != "CREATE" || h[0].GetPrincipal() != w.principal() ||
		h[0].GetMethod() != "UpsertEntities" || !strings.Contains(h[0].GetBefore(), `"display_name":"Bob Writetest"`) ||
		strings.Contains(h[0].GetBefore(), "A candidate.") || !strings.Contains(h[0].GetAfter(), `"description":"A candidate."`) || h[1].GetBefore() != "" {
		t.Errorf("Bob's history: %v", h)
	}
	for _, by := range []string{w.name, w.keyID, w.principal()} {
		lc, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Principal: by})
		if err != nil {
			t.Fatal(err)
		}
		if lc.GetTotalSize() != 6 || len(lc.GetChanges()) != 6 || lc.GetChanges()[0].GetResource() != bob {
			t.Errorf("the changes by %s: %d in all, %v; want the 6 writes, newest (Bob's update) first", by, lc.GetTotalSize(), lc.GetChanges())
		}
	}
	// Paged, and by time range.
	page, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Principal: w.name, PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Principal: w.name, PageSize: 4, PageToken: page.GetNextPageToken()})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.GetChanges()) != 4 || page.GetNextPageToken() == "" || len(rest.GetChanges()) != 2 || rest.GetNextPageToken() != "" {
		t.Errorf("pages of 4: %d (next %q), then %d (next %q)", len(page.GetChanges()), page.GetNextPageToken(), len(rest.GetChanges()), rest.GetNextPageToken())
	}
	updatedAt := h[0].GetTime()
	later, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Principal: w.name, Since: updatedAt})
	if err != nil {
		t.Fatal(err)
	}
	earlier, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Principal: w.name, Until: updatedAt})
	if err != nil {
		t.Fatal(err)
	}
	if later.GetTotalSize() != 1 || earlier.GetTotalSize() != 5 {
		t.Errorf("since Bob's update: %d changes, before it: %d; want 1 and 5", later.GetTotalSize(), earlier.GetTotalSize())
	}

	// The CLI's history.
	var out bytes.Buffer
	t.Setenv("POLGRAPH_API_KEY", "")
	if err := realMain(context.Background(), []string{"history", "Bob Writetest", "--server", serverAddr}, &out, &out); err == nil || !strings.Contains(err.Error(), "needs an API key") {
		t.Errorf("history without a key: %v\n%s", err, out.String())
	}
	out.Reset()
	t.Setenv("POLGRAPH_API_KEY", w.key)
	if err := realMain(context.Background(), []string{"history", "Bob Writetest", "--server", serverAddr}, &out, &out); err != nil {
		t.Fatalf("history: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != bob+": 2 changes, newest first" ||
		!strings.HasSuffix(lines[1], "UPDATE  by "+w.principal()+" through UpsertEntities") || lines[2] != "    changed: description" ||
		!strings.HasSuffix(lines[3], "CREATE  by "+w.principal()+" through UpsertEntities") {
		t.Errorf("polgraph history:\n%s", out.String())
	}
}

func TestEveryClassOfBadRecordIsNamedAndNothingWritten(t *testing.T) {
	w := newWriter(t, "editor")
	ctx := w.ctx
	src := "sources/" + w.slug("src")
	ann := "actors/" + w.slug("ann")
	if _, err := w.w.UpsertSources(ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "T", Kind: "ARTICLE"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: ann, DisplayName: "Ann Badtest"}}}); err != nil {
		t.Fatal(err)
	}
	good := func() *pb.RelationRecord {
		return &pb.RelationRecord{Type: "MEMBER_OF", From: ann, To: "parties/labour", ValidFrom: "2020", Claims: []*pb.ClaimRecord{claim(src, "Ann joined.", "REPORTED")}}
	}
	newEntity := &pb.EntityRecord{Name: "actors/" + w.slug("fine"), DisplayName: "A fine record"}
	before := graphCounts(t)
	type call func() error
	ents := func(es ...*pb.EntityRecord) call {
		return func() error {
			_, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: append([]*pb.EntityRecord{newEntity}, es...)})
			return err
		}
	}
	srcs := func(ss ...*pb.SourceRecord) call {
		return func() error {
			_, err := w.w.UpsertSources(ctx, &pb.UpsertSourcesRequest{Sources: append([]*pb.SourceRecord{{Name: "sources/" + w.slug("fine"), Title: "Fine", Kind: "OTHER"}}, ss...)})
			return err
		}
	}
	rels := func(edit func(r *pb.RelationRecord)) call {
		return func() error {
			r := good()
			edit(r)
			_, err := w.w.UpsertRelations(ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{
				{Type: "ENDORSES", From: ann, To: "actors/lutfur-rahman", Date: "2024", Claims: []*pb.ClaimRecord{claim(src, "Fine.", "ALLEGED")}}, r}})
			return err
		}
	}
	for _, tc := range []struct {
		name  string
		call  call
		field string // a field the error must name
		says  string // in its description
	}{
		{"a bad entity name", ents(&pb.EntityRecord{Name: "actors/Ann Bad", DisplayName: "x"}), "entities[1].name", ""},
		{"an unknown entity kind", ents(&pb.EntityRecord{Name: "people/ann", DisplayName: "x"}), "entities[1].name", ""},
		{"no display name", ents(&pb.EntityRecord{Name: "actors/" + w.slug("x")}), "entities[1].display_name", "required"},
		{"a bad date", ents(&pb.EntityRecord{Name: "actors/" + w.slug("x"), DisplayName: "x", ValidFrom: "2020-13"}), "entities[1].valid_from", ""},
		{"an end before the start", ents(&pb.EntityRecord{Name: "actors/" + w.slug("x"), DisplayName: "x", ValidFrom: "2020", ValidTo: "2019"}), "entities[1].valid_to", ""},
		{"a control character", ents(&pb.EntityRecord{Name: "actors/" + w.slug("x"), DisplayName: "x\x00y"}), "entities[1].display_name", "control character"},
		{"an identifier that is not one", ents(&pb.EntityRecord{Name: "actors/" + w.slug("x"), DisplayName: "x", Identifiers: map[string]string{"ocd": "country:gb"}}), "entities[1].identifiers.ocd", "not an Open Civic Data division id"},
		{"the same entity twice", ents(newEntity), "entities[1].name", ""},
		{"a source kind", srcs(&pb.SourceRecord{Name: "sources/" + w.slug("x"), Title: "x", Kind: "NEWSPAPER"}), "sources[1].kind", ""},
		{"a source without a title", srcs(&pb.SourceRecord{Name: "sources/" + w.slug("x"), Kind: "ARTICLE"}), "sources[1].title", "required"},
		{"an unknown relation type", rels(func(r *pb.RelationRecord) { r.Type = "LIKES" }), "relations[1].type", ""},
		{"an undefined entity", rels(func(r *pb.RelationRecord) { r.To = "parties/" + w.slug("nowhere") }), "relations[1].to", "not defined in the input nor in the graph"},
		{"a type joining the wrong kinds", rels(func(r *pb.RelationRecord) { r.To = "actors/lutfur-rahman" }), "relations[1].type", "cannot join"},
		{"an event with a state's dates", rels(func(r *pb.RelationRecord) { r.Type, r.To, r.Date = "ENDORSES", "actors/keir-starmer", "2024" }), "relations[1].date", "not both"},
		{"the same relation twice", rels(func(r *pb.RelationRecord) {
			r.Type, r.To, r.ValidFrom, r.Date = "ENDORSES", "actors/lutfur-rahman", "", "2024"
		}), "relations[1].key", "already defined"},
		{"no claims", rels(func(r *pb.RelationRecord) { r.Claims = nil }), "relations[1].claims", ""},
		{"a claim's status", rels(func(r *pb.RelationRecord) { r.Claims[0].Status = "RUMOURED" }), "relations[1].claims[0].status", ""},
		{"a claim's confidence", rels(func(r *pb.RelationRecord) { c := 1.5; r.Claims[0].Confidence = &c }), "relations[1].claims[0].confidence", ""},
		{"no confidence", rels(func(r *pb.RelationRecord) { r.Claims[0].Confidence = nil }), "relations[1].claims[0].confidence", "required"},
		{"a claim's undefined source", rels(func(r *pb.RelationRecord) { r.Claims[0].Source = "sources/" + w.slug("none") }), "relations[1].claims[0].source", "not defined"},
		{"a claim without an excerpt", rels(func(r *pb.RelationRecord) { r.Claims[0].Excerpt = "" }), "relations[1].claims[0].excerpt", "required"},
		{"too many records", ents(slices.Repeat([]*pb.EntityRecord{{Name: "actors/x", DisplayName: "x"}}, 1000)...), "entities", "at most 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			v := violations(t, err)
			d, ok := v[tc.field]
			if !ok || !strings.Contains(d, tc.says) {
				t.Errorf("want a violation of %s saying %q; got %v", tc.field, tc.says, v)
			}
		})
	}
	// Every problem of every record, in one answer.
	err := ents(&pb.EntityRecord{Name: "actors/Bad", ValidFrom: "x"}, &pb.EntityRecord{Name: "actors/" + w.slug("y"), DisplayName: "y", ValidTo: "y"})()
	v := violations(t, err)
	for _, f := range []string{"entities[1].name", "entities[1].display_name", "entities[1].valid_from", "entities[2].valid_to"} {
		if _, ok := v[f]; !ok {
			t.Errorf("no violation of %s in %v", f, v)
		}
	}
	if got := graphCounts(t); got != before {
		t.Errorf("refused batches wrote: %+v, then %+v", before, got)
	}
	if _, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: newEntity.GetName()}); status.Code(err) != codes.NotFound {
		t.Errorf("the good record of a refused batch: %v", err)
	}
}

func TestIdempotentRetries(t *testing.T) {
	w := newWriter(t, "editor")
	ctx := w.ctx
	first := &pb.UpsertEntitiesRequest{RequestId: "req-" + w.slugTag, Entities: []*pb.EntityRecord{{Name: "actors/" + w.slug("c"), DisplayName: "C Retrytest"}}}
	a, err := w.w.UpsertEntities(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	before := graphCounts(t)
	// The retry, as a client does after a lost answer.
	b, err := w.w.UpsertEntities(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if r := b.GetResult(); !r.GetReplayed() || !slices.Equal(r.GetCreated(), a.GetResult().GetCreated()) || r.GetVersion() != a.GetResult().GetVersion() {
		t.Errorf("a retry's answer %v; want the first's %v, replayed", r, a.GetResult())
	}
	// The same id on another request (another body, another method) is refused, naming the reuse: it
	// neither replays the other request's answer nor writes.
	other := &pb.UpsertEntitiesRequest{RequestId: first.GetRequestId(), Entities: []*pb.EntityRecord{{Name: "actors/" + w.slug("d"), DisplayName: "D Retrytest"}}}
	_, errBody := w.w.UpsertEntities(ctx, other)
	_, errMethod := w.w.UpsertSources(ctx, &pb.UpsertSourcesRequest{RequestId: first.GetRequestId(),
		Sources: []*pb.SourceRecord{{Name: "sources/" + w.slug("s"), Title: "S", Kind: "OTHER"}}})
	_, errTombstone := w.w.RetractClaim(ctx, &pb.RetractClaimRequest{RequestId: first.GetRequestId(), Name: "relations/x/claims/y", Reason: "test"})
	for what, err := range map[string]error{"another body": errBody, "another method": errMethod, "a retraction": errTombstone} {
		if status.Code(err) != codes.InvalidArgument || reason(err) != graph.ReasonRequestIDReused || !strings.Contains(status.Convert(err).Message(), "UpsertEntities") {
			t.Errorf("the request id of an UpsertEntities sent with %s: %v; want INVALID_ARGUMENT %s naming UpsertEntities", what, err, graph.ReasonRequestIDReused)
		}
	}
	if a.GetResult().GetReplayed() {
		t.Error("the first call says it was replayed")
	}
	if got := graphCounts(t); got != before {
		t.Errorf("a retry wrote: %+v, then %+v", before, got)
	}
	if cs, err := w.w.ListChanges(ctx, &pb.ListChangesRequest{Resource: "actors/" + w.slug("c")}); err != nil || cs.GetTotalSize() != 1 {
		t.Errorf("the trail of a retried write: %v %v", cs, err)
	}
	// Another key's request with the same id is another request.
	w2 := newWriter(t, "editor")
	d, err := w2.w.UpsertEntities(w2.ctx, other)
	if err != nil || d.GetResult().GetReplayed() || !slices.Equal(d.GetResult().GetCreated(), []string{"actors/" + w.slug("d")}) {
		t.Errorf("another key's request with the same id: %v %v", d, err)
	}
	// A bad request id.
	_, err = w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{RequestId: strings.Repeat("x", 101), Entities: first.GetEntities()})
	if _, ok := violations(t, err)["request_id"]; !ok {
		t.Errorf("an over-long request id: %v", err)
	}
}

// loadFile is a dataset of n entities (one source, a chain of relations, each with one claim).
func loadFile(w writer, n int) (lines []string, want LoadCounts) {
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	src := "sources/" + w.slug("load")
	lines = append(lines, j(map[string]any{"record": "dataset", "format": "polgraph/v1", "name": w.slug("load")}),
		j(map[string]any{"record": "source", "name": src, "title": "A load", "kind": "DATASET"}))
	for i := 0; i < n; i++ {
		lines = append(lines, j(map[string]any{"record": "entity", "name": fmt.Sprintf("actors/%s-%03d", w.slugTag, i), "display_name": fmt.Sprintf("Loaded %s %d", w.slugTag, i)}))
	}
	for i := 1; i < n; i++ {
		lines = append(lines, j(map[string]any{"record": "relation", "type": "CAMPAIGNED_WITH", "from": fmt.Sprintf("actors/%s-%03d", w.slugTag, i-1),
			"to": fmt.Sprintf("actors/%s-%03d", w.slugTag, i), "valid_from": "2020",
			"claims": []map[string]any{{"source": src, "excerpt": fmt.Sprintf("%d worked with %d.", i-1, i), "confidence": 0.8, "status": "REPORTED"}}}))
	}
	return lines, LoadCounts{Sources: 1, Entities: n, Relations: n - 1, Claims: n - 1}
}

// LoadCounts is what a load says it read.
type LoadCounts struct{ Sources, Entities, Relations, Claims int }

// sendLoadStream sends lines as a Load stream in chunks of 25; cut > 0 cancels the stream after that many
// chunks.
func sendLoadStream(ctx context.Context, w writer, file, requestID string, lines []string, cut int) (*pb.LoadResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := w.w.Load(ctx)
	if err != nil {
		return nil, err
	}
	for i, n := 0, 0; i < len(lines); i, n = i+25, n+1 {
		if cut > 0 && n == cut {
			cancel()
			_, err := stream.CloseAndRecv()
			return nil, err
		}
		req := &pb.LoadRequest{File: file, Lines: lines[i:min(i+25, len(lines))]}
		if i == 0 {
			req.RequestId = requestID
		}
		if err := stream.Send(req); err != nil {
			break
		}
	}
	return stream.CloseAndRecv()
}

func TestLoadStreamCutAndSentAgain(t *testing.T) {
	w := newWriter(t, "editor")
	lines, want := loadFile(w, 120)
	before, loads := graphCounts(t), callsEnded(t, pb.WriteService_Load_FullMethodName)
	if _, err := sendLoadStream(w.ctx, w, "people.jsonl", "", lines, 3); status.Code(err) != codes.Canceled {
		t.Fatalf("a cut stream: %v", err)
	}
	// Nothing of a cut stream is written: once the service has ended the call, the graph is as it was.
	waitForCallsEnded(t, pb.WriteService_Load_FullMethodName, loads+1)
	if got := graphCounts(t); got != before {
		t.Fatalf("a cut stream wrote: %+v, then %+v", before, got)
	}
	resp, err := sendLoadStream(w.ctx, w, "people.jsonl", "load-"+w.slugTag, lines, 0)
	if err != nil {
		t.Fatal(err, violations(t, err))
	}
	got := LoadCounts{int(resp.GetSources()), int(resp.GetEntities()), int(resp.GetRelations()), int(resp.GetClaims())}
	after := graphCounts(t)
	exact := graph.GraphCounts{Entities: before.Entities + want.Entities, Relations: before.Relations + want.Relations,
		Claims: before.Claims + want.Claims, Sources: before.Sources + want.Sources}
	if got != want || after != exact || resp.GetReplayed() {
		t.Errorf("the load read %+v (want %+v); the graph went from %+v to %+v (want %+v)", got, want, before, after, exact)
	}
	if g := resp.GetGraph(); int(g.GetEntities()) != after.Entities || int(g.GetRelations()) != after.Relations {
		t.Errorf("the load says the graph holds %v; it holds %+v", g, after)
	}
	// Sent again with its request id: the first answer; without: an upsert that changes nothing.
	again, err := sendLoadStream(w.ctx, w, "people.jsonl", "load-"+w.slugTag, lines, 0)
	if err != nil || !again.GetReplayed() || again.GetRelations() != resp.GetRelations() {
		t.Errorf("the load sent again with its request id: %v %v", again, err)
	}
	if _, err := sendLoadStream(w.ctx, w, "people.jsonl", "", lines, 0); err != nil {
		t.Fatal(err)
	}
	if got := graphCounts(t); got != exact {
		t.Errorf("loading again changed the counts: %+v; want %+v", got, exact)
	}
	// Each entity's creation is in the trail once, by the key, through Load.
	cs, err := w.w.ListChanges(w.ctx, &pb.ListChangesRequest{Resource: "actors/" + w.slugTag + "-007"})
	if err != nil || cs.GetTotalSize() != 1 || cs.GetChanges()[0].GetMethod() != "Load" || cs.GetChanges()[0].GetPrincipal() != w.principal() {
		t.Errorf("the trail of a loaded entity: %v %v", cs, err)
	}

	// A bad line is named as FILE:LINE, and nothing is written.
	bad := slices.Clone(lines)
	bad[5] = strings.Replace(bad[5], `"display_name"`, `"display_nom"`, 1)
	_, err = sendLoadStream(w.ctx, w, "people.jsonl", "", bad, 0)
	if v := violations(t, err); !hasPrefixKey(v, "people.jsonl:6") {
		t.Errorf("a bad line: %v", v)
	}
	// The CLI sends files the same way.
	dir := t.TempDir()
	w2 := newWriter(t, "editor")
	lines2, want2 := loadFile(w2, 10)
	path := filepath.Join(dir, "more.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines2, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLGRAPH_API_KEY", w2.key)
	var out bytes.Buffer
	if err := realMain(context.Background(), []string{"load", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("load --server: %v\n%s", err, out.String())
	}
	wantLine := fmt.Sprintf("writing through polgraph at %s\nloaded %d sources, %d entities, %d relations, %d claims through %s in ", serverAddr, want2.Sources, want2.Entities, want2.Relations, want2.Claims, serverAddr)
	if !strings.HasPrefix(out.String(), wantLine) || !strings.Contains(out.String(), "the graph now holds ") {
		t.Errorf("load --server said:\n%s", out.String())
	}
}

func hasPrefixKey(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func TestRetractionsAndTombstones(t *testing.T) {
	w := newWriter(t, "editor")
	ctx := w.ctx
	src, src2 := "sources/"+w.slug("a"), "sources/"+w.slug("b")
	ann, bob := "actors/"+w.slug("ann"), "actors/"+w.slug("bob")
	if _, err := w.w.UpsertSources(ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "A", Kind: "ARTICLE"}, {Name: src2, Title: "B", Kind: "ARTICLE"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.w.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: ann, DisplayName: "Ann Tombtest"}, {Name: bob, DisplayName: "Bob Tombtest"}}}); err != nil {
		t.Fatal(err)
	}
	endorses := "relations/" + w.slug("ann") + ".endorses." + w.slug("bob")
	member := "relations/" + w.slug("bob") + ".member-of.labour"
	if _, err := w.w.UpsertRelations(ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{
		{Type: "ENDORSES", From: ann, To: bob, Date: "2025", Claims: []*pb.ClaimRecord{claim(src, "Ann backs Bob.", "REPORTED"), claim(src2, "Ann is for Bob.", "ALLEGED")}},
		{Type: "MEMBER_OF", From: bob, To: "parties/labour", ValidFrom: "2020", Claims: []*pb.ClaimRecord{claim(src, "Bob is Labour.", "CONFIRMED")}}}}); err != nil {
		t.Fatal(err)
	}
	route := func() int {
		t.Helper()
		p, err := client.FindPaths(context.Background(), &pb.FindPathsRequest{From: ann, To: bob, MaxDepth: 2})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.GetPaths())
	}
	if route() != 1 {
		t.Fatal("no route from Ann to Bob")
	}

	// Retracting one claim of two leaves the relation standing on the other.
	c1 := endorses + "/claims/" + w.slug("a")
	res, err := w.w.RetractClaim(ctx, &pb.RetractClaimRequest{Name: c1, Reason: "The outlet corrected the story."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.GetResult().GetUpdated(), c1) && !slices.Contains(res.GetResult().GetUpdated(), endorses) {
		t.Errorf("RetractClaim: %v", res)
	}
	rel, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: endorses, HistorySize: 5})
	if err != nil {
		t.Fatal(err)
	}
	var retracted, standing *pb.Claim
	for _, c := range rel.GetRelation().GetClaims() {
		if c.GetRetracted() != nil {
			retracted = c
		} else {
			standing = c
		}
	}
	if retracted == nil || retracted.GetRetracted().GetBy() != w.principal() || retracted.GetRetracted().GetReason() != "The outlet corrected the story." ||
		standing == nil || standing.GetSource().GetName() != src2 {
		t.Errorf("after one retraction the relation's claims are %v", rel.GetRelation().GetClaims())
	}
	if h := rel.GetHistory(); len(h) != 2 || h[0].GetAction() != "RETRACT" || h[0].GetPrincipal() != w.principal() {
		t.Errorf("the relation's history: %v", h)
	}
	if route() != 1 {
		t.Error("a relation with a standing claim is no route")
	}
	// Retracting the other: the relation is shown, but never counts.
	if _, err := w.w.RetractClaim(ctx, &pb.RetractClaimRequest{Name: endorses + "/claims/" + w.slug("b"), Reason: "Withdrawn."}); err != nil {
		t.Fatal(err)
	}
	if route() != 0 {
		t.Error("a relation whose claims are all retracted is a route")
	}
	if _, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: endorses}); err != nil {
		t.Errorf("a relation with retracted claims is no longer shown: %v", err)
	}

	// Deleting a relation keeps a tombstone; the searches no longer find it.
	if _, err := w.w.DeleteRelation(ctx, &pb.DeleteRelationRequest{Name: member, Reason: "Entered by mistake."}); err != nil {
		t.Fatal(err)
	}
	gr, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: member})
	if err != nil || gr.GetRelation().GetDeleted().GetReason() != "Entered by mistake." || gr.GetRelation().GetDeleted().GetBy() != w.principal() {
		t.Errorf("a deleted relation: %v %v", gr, err)
	}
	lr, err := client.ListRelations(context.Background(), &pb.ListRelationsRequest{Entity: bob})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lr.GetRelations() {
		if r.GetName() == member {
			t.Error("ListRelations lists a deleted relation")
		}
	}

	// Entity deletion is an admin's; an editor is refused.
	if _, err := w.w.DeleteEntity(ctx, &pb.DeleteEntityRequest{Name: bob, Reason: "A duplicate."}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("an editor's DeleteEntity: %v", err)
	}
	admin := newWriter(t, "admin")
	before := graphCounts(t)
	de, err := admin.w.DeleteEntity(admin.ctx, &pb.DeleteEntityRequest{Name: bob, Reason: "A duplicate."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(de.GetResult().GetUpdated(), bob) || !slices.Contains(de.GetResult().GetUpdated(), endorses) {
		t.Errorf("DeleteEntity: %v", de)
	}
	if got := graphCounts(t); got.Entities != before.Entities-1 || got.Relations != before.Relations-1 {
		t.Errorf("counts after deleting an entity with one live relation: %+v, then %+v", before, got)
	}
	ge, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: bob})
	if err != nil || ge.GetEntity().GetDeleted().GetBy() != admin.principal() {
		t.Errorf("a deleted entity: %v %v", ge, err)
	}
	se, err := client.SearchEntities(context.Background(), &pb.SearchEntitiesRequest{Query: "Bob Tombtest"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range se.GetResults() {
		if e.GetEntity().GetName() == bob {
			t.Error("a search finds a deleted entity")
		}
	}

	// What cannot be retracted or deleted.
	for _, tc := range []struct {
		name string
		err  error
		code codes.Code
	}{
		{"an unknown claim", func() error {
			_, err := w.w.RetractClaim(ctx, &pb.RetractClaimRequest{Name: member + "/claims/nothing", Reason: "x"})
			return err
		}(), codes.NotFound},
		{"no reason", func() error { _, err := w.w.RetractClaim(ctx, &pb.RetractClaimRequest{Name: c1}); return err }(), codes.InvalidArgument},
		{"an unknown relation", func() error {
			_, err := w.w.DeleteRelation(ctx, &pb.DeleteRelationRequest{Name: "relations/nobody.endorses.nobody-else", Reason: "x"})
			return err
		}(), codes.NotFound},
		{"not a relation's name", func() error {
			_, err := w.w.DeleteRelation(ctx, &pb.DeleteRelationRequest{Name: "actors/x", Reason: "x"})
			return err
		}(), codes.InvalidArgument},
	} {
		if status.Code(tc.err) != tc.code {
			t.Errorf("%s: %v; want %v", tc.name, tc.err, tc.code)
		}
	}
}

// TestConcurrentWritersOnOneHub has 16 writers, each with its own key, add members to Labour at once
// through the API: the counts come out exact, each relation once, and every acknowledged write is there.
func TestConcurrentWritersOnOneHub(t *testing.T) {
	const writers, perWriter = 16, 5
	ws := make([]writer, writers)
	for i := range ws {
		ws[i] = newWriter(t, "editor")
	}
	src := "sources/" + ws[0].slug("hub")
	if _, err := ws[0].w.UpsertSources(ws[0].ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "Hub", Kind: "DATASET"}}}); err != nil {
		t.Fatal(err)
	}
	before := graphCounts(t)
	var wg sync.WaitGroup
	errs := make(chan error, writers*4)
	acked := make(chan string, writers*perWriter*2)
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ents []*pb.EntityRecord
			var rels []*pb.RelationRecord
			for j := 0; j < perWriter; j++ {
				name := fmt.Sprintf("actors/%s-%d", w.slugTag, j)
				ents = append(ents, &pb.EntityRecord{Name: name, DisplayName: fmt.Sprintf("Member %s %d", w.slugTag, j)})
				rels = append(rels, &pb.RelationRecord{Type: "MEMBER_OF", From: name, To: "parties/labour", ValidFrom: "2024",
					Claims: []*pb.ClaimRecord{claim(src, "A member.", "REPORTED"), {Source: src, Key: "second", Excerpt: "Also a member.", Confidence: claim("", "", "").Confidence, Status: "ALLEGED"}}})
			}
			e, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: ents})
			if err != nil {
				errs <- err
				return
			}
			r, err := w.w.UpsertRelations(w.ctx, &pb.UpsertRelationsRequest{Relations: rels})
			if err != nil {
				errs <- err
				return
			}
			// The same again, racing the others: changes nothing.
			if _, err := w.w.UpsertRelations(w.ctx, &pb.UpsertRelationsRequest{Relations: rels}); err != nil {
				errs <- err
				return
			}
			for _, n := range append(e.GetResult().GetCreated(), r.GetResult().GetCreated()...) {
				acked <- n
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(acked)
	for err := range errs {
		t.Error(err)
	}
	want := before
	want.Entities += writers * perWriter
	want.Relations += writers * perWriter
	want.Claims += writers * perWriter * 2
	if got := graphCounts(t); got != want {
		t.Errorf("counts %+v; want %+v", got, want)
	}
	n := 0
	for name := range acked {
		n++
		var err error
		if strings.HasPrefix(name, "relations/") {
			_, err = client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: name})
		} else {
			_, err = client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: name})
		}
		if err != nil {
			t.Errorf("acknowledged %s, which is not there: %v", name, err)
		}
	}
	if n != writers*perWriter*2 {
		t.Errorf("%d resources acknowledged as created; want %d", n, writers*perWriter*2)
	}
}

// TestMergeOverGRPC merges two records of one person through the API, as an admin, and undoes it: the
// old name resolves, routes go through the entity that stays, the trail shows the merge, and undoing it
// restores the counts.
func TestMergeOverGRPC(t *testing.T) {
	editor, admin := newWriter(t, "editor"), newWriter(t, "admin")
	src := "sources/" + editor.slug("src")
	dup, main := "actors/"+editor.slug("dup"), "actors/"+editor.slug("main")
	if _, err := editor.w.UpsertSources(editor.ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "T", Kind: "ARTICLE"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := editor.w.UpsertEntities(editor.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: dup, DisplayName: "Merge Testperson Dup"}, {Name: main, DisplayName: "Merge Testperson"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := editor.w.UpsertRelations(editor.ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{
		{Type: "MEMBER_OF", From: dup, To: "parties/labour", ValidFrom: "2020", Claims: []*pb.ClaimRecord{claim(src, "A member.", "REPORTED")}}}}); err != nil {
		t.Fatal(err)
	}
	before := graphCounts(t)
	req := &pb.MergeEntitiesRequest{From: dup, Into: main, Reason: "One person, two records."}
	if _, err := editor.w.MergeEntities(editor.ctx, req); status.Code(err) != codes.PermissionDenied {
		t.Errorf("an editor's merge: %v", err)
	}
	res, err := admin.w.MergeEntities(admin.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	moved := "relations/" + editor.slug("main") + ".member-of.labour"
	if !slices.Equal(res.GetResult().GetCreated(), []string{moved}) {
		t.Errorf("MergeEntities: %v", res)
	}
	if got := graphCounts(t); got.Entities != before.Entities-1 || got.Relations != before.Relations || got.Claims != before.Claims {
		t.Errorf("counts after the merge: %+v, then %+v", before, got)
	}
	ge, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: dup})
	if err != nil || ge.GetEntity().GetName() != main || ge.GetRedirectedFrom() != dup || !slices.Contains(ge.GetEntity().GetAliases(), "Merge Testperson Dup") {
		t.Errorf("GetEntity of the merged name: %v %v", ge, err)
	}
	gr, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: "relations/" + editor.slug("dup") + ".member-of.labour"})
	if err != nil || gr.GetRelation().GetName() != moved || gr.GetRedirectedFrom() == "" {
		t.Errorf("GetRelation of a moved relation: %v %v", gr, err)
	}
	paths, err := client.FindPaths(context.Background(), &pb.FindPathsRequest{From: dup, To: "Keir Starmer", MaxDepth: 3})
	if err != nil || len(paths.GetPaths()) == 0 || paths.GetPaths()[0].GetHops()[0].GetRelation().GetName() != moved {
		t.Errorf("a route from the merged name: %v %v", paths, err)
	}
	cs, err := editor.w.ListChanges(editor.ctx, &pb.ListChangesRequest{Resource: dup})
	if err != nil || len(cs.GetChanges()) == 0 || cs.GetChanges()[0].GetAction() != "MERGE" || cs.GetChanges()[0].GetPrincipal() != admin.principal() {
		t.Errorf("the trail of the merged entity: %v %v", cs, err)
	}
	if _, err := admin.w.UnmergeEntities(admin.ctx, &pb.UnmergeEntitiesRequest{Name: dup, Reason: "Two people after all."}); err != nil {
		t.Fatal(err)
	}
	if got := graphCounts(t); got != before {
		t.Errorf("counts after undoing the merge: %+v; want %+v", got, before)
	}
	// The trail keeps the reasons given, the undoing's too, and `polgraph history` shows them.
	cs, err = editor.w.ListChanges(editor.ctx, &pb.ListChangesRequest{Resource: dup})
	reasons := map[string]string{}
	for _, c := range cs.GetChanges() {
		if _, ok := reasons[c.GetAction()]; !ok {
			reasons[c.GetAction()] = c.GetReason()
		}
	}
	if err != nil || reasons["MERGE"] != "One person, two records." || reasons["UNMERGE"] != "Two people after all." {
		t.Errorf("the reasons in the trail of the merged entity: %v (%v)", reasons, err)
	}
	var hist bytes.Buffer
	if err := realMain(context.Background(), []string{"history", "--server", serverAddr, "--api-key", editor.key, dup}, &hist, &hist); err != nil ||
		!strings.Contains(hist.String(), "reason: Two people after all.") {
		t.Errorf("polgraph history of the merged entity: %v\n%s", err, hist.String())
	}
	if ge, err := client.GetEntity(context.Background(), &pb.GetEntityRequest{Name: dup}); err != nil || ge.GetEntity().GetName() != dup || ge.GetRedirectedFrom() != "" {
		t.Errorf("GetEntity after undoing the merge: %v %v", ge, err)
	}
	_, err = admin.w.UnmergeEntities(admin.ctx, &pb.UnmergeEntitiesRequest{Name: dup, Reason: "Again."})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("undoing a merge that is not there: %v", err)
	}
}

// TestImportThroughTheServer imports an Open Civic Data list through the API: the seat the graph holds by
// its OCD id keeps its name, the new ones are created with their succession, and importing again changes
// nothing.
func TestImportThroughTheServer(t *testing.T) {
	w := newWriter(t, "editor")
	tag := strings.ReplaceAll(w.slugTag, "-", "_")
	text := "id,name,sameAs,sameAsNote,validThrough,validFrom\n" +
		"ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney,Bethnal Green and Stepney,,,,2024-07-04\n" +
		"ocd-division/country:gb/part:eng/region:uki/ed:old_" + tag + ",Old " + tag + ",ocd-division/country:gb/part:eng/region:uki/ed:new_" + tag + ",,2024-07-03,\n" +
		"ocd-division/country:gb/part:eng/region:uki/ed:new_" + tag + ",New " + tag + ",,,,2024-07-04\n"
	path := filepath.Join(t.TempDir(), "divisions.csv")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLGRAPH_API_KEY", w.key)
	before := graphCounts(t)
	var out bytes.Buffer
	if err := realMain(context.Background(), []string{"import", "ocd-divisions", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("import --server: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "writing through polgraph at "+serverAddr+"\n"+path+": 3 divisions, 1 of them already in the graph by OCD id\n") ||
		!strings.Contains(out.String(), "through "+serverAddr) {
		t.Errorf("import --server said:\n%s", out.String())
	}
	after := graphCounts(t)
	if after.Entities != before.Entities+2 || after.Relations != before.Relations+1 {
		t.Errorf("counts %+v, then %+v; want two seats and one succession more", before, after)
	}
	slug := strings.ReplaceAll(tag, "_", "-")
	lk, err := client.LookupEntities(context.Background(), &pb.LookupEntitiesRequest{Scheme: "ocd",
		Values: []string{"ocd-division/country:gb/part:eng/region:uki/ed:new_" + tag, "ocd-division/country:gb/part:eng/region:uki/ed:bethnal_green_and_stepney", "ocd-division/none"}})
	if err != nil || len(lk.GetMatches()) != 2 || lk.GetMatches()[0].GetEntities()[0].GetName() != "seats/new-"+slug ||
		lk.GetMatches()[1].GetEntities()[0].GetName() != "seats/bethnal-green-and-stepney" {
		t.Errorf("LookupEntities: %v %v", lk, err)
	}
	out.Reset()
	if err := realMain(context.Background(), []string{"import", "ocd-divisions", "--server", serverAddr, path}, &out, &out); err != nil {
		t.Fatalf("import --server again: %v\n%s", err, out.String())
	}
	if got := graphCounts(t); got != after || !strings.HasPrefix(out.String(), "writing through polgraph at "+serverAddr+"\n"+path+": 3 divisions, 3 of them already in the graph by OCD id\n") {
		t.Errorf("importing again: counts %+v (want %+v)\n%s", got, after, out.String())
	}
}

// TestBatchGetAndLookupEntities gets entities by name as stored, tombstones included, and finds them by
// identifiers of any scheme.
func TestBatchGetAndLookupEntities(t *testing.T) {
	w, admin := newWriter(t, "editor"), newWriter(t, "admin")
	a, gone := "actors/"+w.slug("a"), "actors/"+w.slug("gone")
	if _, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: a, DisplayName: "Lookup A", Identifiers: map[string]string{"wikidata": "Q" + w.slugTag}},
		{Name: gone, DisplayName: "Lookup Gone", Identifiers: map[string]string{"wikidata": "Q-gone-" + w.slugTag}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.w.DeleteEntity(admin.ctx, &pb.DeleteEntityRequest{Name: gone, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bg, err := client.BatchGetEntities(ctx, &pb.BatchGetEntitiesRequest{Names: []string{gone, "parties/labour", "actors/nobody-" + w.slugTag, a}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range bg.GetEntities() {
		names = append(names, e.GetName())
	}
	if !slices.Equal(names, []string{gone, "parties/labour", a}) || bg.GetEntities()[0].GetDeleted() == nil ||
		!slices.Equal(bg.GetMissing(), []string{"actors/nobody-" + w.slugTag}) {
		t.Errorf("BatchGetEntities: %v", bg)
	}
	lk, err := client.LookupEntities(ctx, &pb.LookupEntitiesRequest{Scheme: "wikidata", Values: []string{"Q-gone-" + w.slugTag, "Q" + w.slugTag}})
	if err != nil || len(lk.GetMatches()) != 1 || lk.GetMatches()[0].GetValue() != "Q"+w.slugTag || lk.GetMatches()[0].GetEntities()[0].GetName() != a {
		t.Errorf("LookupEntities by wikidata id (the deleted holder left out): %v %v", lk, err)
	}
	for _, bad := range []*pb.LookupEntitiesRequest{{Values: []string{"x"}}, {Scheme: "wikidata"}, {Scheme: "wikidata", Values: many(1001, "Q1")}} {
		if _, err := client.LookupEntities(ctx, bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("LookupEntities %v: %v", bad, err)
		}
	}
	if _, err := client.BatchGetEntities(ctx, &pb.BatchGetEntitiesRequest{Names: []string{"Lutfur Rahman"}}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("BatchGetEntities by a display name: %v", err)
	}
}

// TestUpsertEntitiesNamesPossibleDuplicates: an entity a write creates that may be one the graph holds (a
// form of the given name, the same birth year) comes back with the entity it may be and why; one of
// another family name, or one written again, does not.
func TestUpsertEntitiesNamesPossibleDuplicates(t *testing.T) {
	w := newWriter(t, "editor")
	surname := "Dupcheck" + strings.ReplaceAll(w.slugTag, "-", "")
	kenneth, ken, other := "actors/"+w.slug("kenneth"), "actors/"+w.slug("ken"), "actors/"+w.slug("other")
	if _, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: kenneth, DisplayName: "Kenneth " + surname, BirthDate: "1940"}}}); err != nil {
		t.Fatal(err)
	}
	res, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: ken, DisplayName: "Ken " + surname, BirthDate: "1940-05"},
		{Name: other, DisplayName: "Ken Other" + surname}}})
	if err != nil {
		t.Fatal(err)
	}
	dups := res.GetResult().GetPossibleDuplicates()
	if len(dups) != 1 || dups[0].GetCreated() != ken || dups[0].GetExisting() != kenneth ||
		dups[0].GetDecision() != pb.MatchDecision_MATCH_DECISION_MERGE || !strings.Contains(dups[0].GetExplanation(), "born +2.0") {
		t.Errorf("possible duplicates: %v", dups)
	}
	again, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{
		{Name: ken, DisplayName: "Ken " + surname, BirthDate: "1940-05", Description: "again"}}})
	if err != nil || len(again.GetResult().GetPossibleDuplicates()) != 0 {
		t.Errorf("an entity written again is named a possible duplicate again: %v %v", again, err)
	}
}
