package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// The reads analysts ask for, over gRPC, on the default graph and against the brute-force oracles on
// random graphs. Each test serves a graph of its own, held in memory (graph/memstore, which passes the
// same contract as the store on Dgraph: graph/storetest), and answered from the in-memory topology as
// polgraph serve answers once it has filled it.

// defaultDataset is the graph `polgraph run` loads (data/tower-hamlets).
const defaultDataset = "../../data/tower-hamlets/tower-hamlets.jsonl"

const dailyMail = "sources/daily-mail-2023-11-03-lutfur-rahman"

// serveDefaultGraph serves the default dataset, loaded twice into a store in memory (so that every read
// also checks that a second load leaves the graph intact), and returns a client of the server and the
// store, which the test may write to. Serving ends with the test.
func serveDefaultGraph(t *testing.T) (pb.GraphServiceClient, *memstore.Store) {
	t.Helper()
	ctx := context.Background()
	f, err := os.Open(defaultDataset)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Read([]dataset.File{{Name: defaultDataset, R: f}})
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	for i := 0; i < 2; i++ {
		if err := dataset.Load(ctx, store, ds, 2000, nil); err != nil {
			t.Fatalf("loading the default dataset, time %d: %v", i+1, err)
		}
	}
	return serveGraph(t, store), store
}

// serveGraph serves store over an in-memory connection, wired as polgraph serve wires it (service.Service
// reading the topology held in memory, which follows store's change feed), once the topology is filled.
func serveGraph(t *testing.T, store *memstore.Store) pb.GraphServiceClient {
	t.Helper()
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !topo.Ready() {
		t.Fatal("the topology is not ready after its first fill")
	}
	svc := &service.Service{Store: store, Reads: topo.Reads(store), Budget: graph.DefaultWorkBudget, Timeout: 10 * time.Second}
	srv := grpc.NewServer()
	pb.RegisterGraphServiceServer(srv, rpc.NewServer(svc, slog.New(slog.DiscardHandler)))
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///polgraph", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewGraphServiceClient(conn)
}

func counts(t *testing.T, store *memstore.Store) graph.GraphCounts {
	t.Helper()
	c, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reason is the ErrorInfo reason of a gRPC error ("" when it has none).
func reason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// wantCode fails t unless err has code and field violations naming each of fields; it returns err's status.
func wantCode(t *testing.T, err error, code codes.Code, fields ...string) *status.Status {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code {
		t.Fatalf("got %v, want %v", err, code)
	}
	var got []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				got = append(got, v.GetField())
			}
		}
	}
	for _, f := range fields {
		if !slices.Contains(got, f) {
			t.Errorf("field violations %v should name %s (%v)", got, f, err)
		}
	}
	return st
}

// toFilterPB converts a domain filter for the random-query test.
func toFilterPB(f graph.RelationFilter) *pb.RelationFilter {
	out := &pb.RelationFilter{AsOf: f.AsOf.String(), MinConfidence: f.MinConfidence,
		Undated: pb.UndatedPolicy(pb.UndatedPolicy_value["UNDATED_POLICY_"+string(f.Undated)])}
	for _, t := range f.IncludeTypes {
		out.IncludeTypes = append(out.IncludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+string(t)]))
	}
	for _, t := range f.ExcludeTypes {
		out.ExcludeTypes = append(out.ExcludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+string(t)]))
	}
	for _, s := range f.Statuses {
		out.Statuses = append(out.Statuses, pb.ClaimStatus(pb.ClaimStatus_value["CLAIM_STATUS_"+string(s)]))
	}
	return out
}

// many returns n copies of x.
func many[T any](n int, x T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func relationNames(rs []*pb.Relation) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.GetName())
	}
	return out
}

// startDay is the first day a relation holds, as ListRelations orders them (a state without a start:
// before everything).
func startDay(t *testing.T, r *pb.Relation) int {
	t.Helper()
	s := r.GetValidFrom()
	if s == "" && r.GetValidTo() == "" {
		s = r.GetDate()
	}
	if s == "" {
		return -1 << 31
	}
	d, err := graph.ParseFuzzyDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d.FirstDay()
}

func TestListRelationsDefaultGraph(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	criticised := &pb.RelationFilter{IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_CRITICISED}}
	// The default graph has four councillors criticising Lutfur Rahman, and no criticism by him.
	in, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", Filter: criticised,
		Direction: pb.RelationDirection_RELATION_DIRECTION_INCOMING})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"relations/amina-ali.criticised.lutfur-rahman", "relations/amy-lee.criticised.lutfur-rahman",
		"relations/asma-islam.criticised.lutfur-rahman", "relations/sabina-akhtar.criticised.lutfur-rahman"}
	if got := relationNames(in.GetRelations()); !reflect.DeepEqual(got, want) || in.GetTotalSize() != 4 || in.GetNextPageToken() != "" {
		t.Errorf("criticisms of Lutfur Rahman: %v (total %d); want %v", got, in.GetTotalSize(), want)
	}
	for _, r := range in.GetRelations() {
		if r.GetTo() != "actors/lutfur-rahman" || r.GetUndated() || len(r.GetClaims()) == 0 || r.GetVerdict().GetSummary() != "1 claim supports it" {
			t.Errorf("relation %s: to %s, undated %v, %d claims, verdict %q", r.GetName(), r.GetTo(), r.GetUndated(), len(r.GetClaims()), r.GetVerdict().GetSummary())
		}
	}
	var related []string
	for _, e := range in.GetRelatedEntities() {
		related = append(related, e.GetName())
	}
	if !reflect.DeepEqual(related, []string{"actors/amina-ali", "actors/amy-lee", "actors/asma-islam", "actors/sabina-akhtar"}) {
		t.Errorf("related entities %v; want the four critics", related)
	}
	out, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "actors/lutfur-rahman", Filter: criticised,
		Direction: pb.RelationDirection_RELATION_DIRECTION_OUTGOING})
	if err != nil || out.GetTotalSize() != 0 || len(out.GetRelations()) != 0 {
		t.Errorf("criticisms by Lutfur Rahman: %v %v; want none", relationNames(out.GetRelations()), err)
	}

	// Every relation, newest first, undated last; pages of 5 fit together into the whole.
	whole, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	all := whole.GetRelations()
	if len(all) < 20 || int(whole.GetTotalSize()) != len(all) {
		t.Fatalf("%d relations of Lutfur Rahman (total %d); want them all on one page", len(all), whole.GetTotalSize())
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		switch {
		case a.GetUndated() && !b.GetUndated():
			t.Errorf("undated %s before dated %s", a.GetName(), b.GetName())
		case !a.GetUndated() && !b.GetUndated() && startDay(t, a) < startDay(t, b):
			t.Errorf("%s starts before %s but is listed first", a.GetName(), b.GetName())
		}
	}
	if slices.Contains(relationNames(all), "relations/lutfur-rahman.endorses.ajmal-masroor") {
		t.Errorf("the disputed endorsement of Ajmal Masroor counts under the default filter")
	}
	var paged []string
	req := &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageSize: 5}
	for pages := 0; ; pages++ {
		resp, err := client.ListRelations(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, relationNames(resp.GetRelations())...)
		if resp.GetNextPageToken() == "" || pages > 20 {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	if !reflect.DeepEqual(paged, relationNames(all)) {
		t.Errorf("pages of 5 give\n%v\none page gives\n%v", paged, relationNames(all))
	}

	// Asking for denials lists the disputed endorsement too.
	withDenials, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageSize: 100,
		Filter: &pb.RelationFilter{Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_ALLEGED, pb.ClaimStatus_CLAIM_STATUS_DENIED}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range withDenials.GetRelations() {
		if r.GetName() == "relations/lutfur-rahman.endorses.ajmal-masroor" && r.GetVerdict().GetDenyingClaims() == 0 {
			t.Errorf("the disputed endorsement's verdict: %v", r.GetVerdict())
		}
	}
	if !slices.Contains(relationNames(withDenials.GetRelations()), "relations/lutfur-rahman.endorses.ajmal-masroor") {
		t.Errorf("with denials asked for, the disputed endorsement is missing")
	}

	// Bad requests.
	_, err = client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageSize: 101,
		Filter: &pb.RelationFilter{AsOf: "2015-13"}, Direction: pb.RelationDirection(7)})
	wantCode(t, err, codes.InvalidArgument, "page_size", "filter.as_of", "direction")
	_, err = client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageToken: whole.GetNextPageToken() + "x"})
	wantCode(t, err, codes.InvalidArgument, "page_token")
	_, err = client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Somebody Unheardof"})
	wantCode(t, err, codes.NotFound)
	if reason(err) != "ENTITY_NOT_FOUND" {
		t.Errorf("reason %q, want ENTITY_NOT_FOUND", reason(err))
	}
	first, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Rabina Khan", PageToken: first.GetNextPageToken()})
	wantCode(t, err, codes.InvalidArgument, "page_token")
}

func TestGetTimelineDefaultGraph(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	tl, err := client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: "Lutfur Rahman", PageSize: 200})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, e := range tl.GetEntries() {
		pos[e.GetRelation().GetName()] = i
		if e.GetRelation().GetUndated() {
			t.Errorf("undated %s among the dated entries", e.GetRelation().GetName())
		}
	}
	const mayor2010, mayor2022 = "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2010", "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022"
	p2010, ok2010 := pos[mayor2010]
	p2022, ok2022 := pos[mayor2022]
	if !ok2010 || !ok2022 || p2010 >= p2022 {
		t.Errorf("the 2010 mayoralty is at %d (%v), the 2022 one at %d (%v); want both, 2010 first", p2010, ok2010, p2022, ok2022)
	}
	e2010 := tl.GetEntries()[p2010]
	if e2010.GetKind() != pb.TimelineEntryKind_TIMELINE_ENTRY_KIND_STATE || e2010.GetPeriod().GetFrom() != "2010-01-01" || e2010.GetPeriod().GetTo() != "2015-12-31" {
		t.Errorf("the 2010 mayoralty: %v %v; want a state from 2010-01-01 to 2015-12-31", e2010.GetKind(), e2010.GetPeriod())
	}
	if e := tl.GetEntries()[p2022]; e.GetPeriod().GetTo() != "" {
		t.Errorf("the 2022 mayoralty ends %q; want it open", e.GetPeriod().GetTo())
	}
	for i := 1; i < len(tl.GetEntries()); i++ {
		if a, b := tl.GetEntries()[i-1].GetPeriod(), tl.GetEntries()[i].GetPeriod(); a.GetFrom() > b.GetFrom() && b.GetFrom() != "" {
			t.Errorf("entry %d starts %s, after entry %d's %s", i-1, a.GetFrom(), i, b.GetFrom())
		}
	}
	for _, e := range tl.GetEntries() {
		if e.GetRelation().GetName() == "relations/election-court.accused.lutfur-rahman" && e.GetKind() != pb.TimelineEntryKind_TIMELINE_ENTRY_KIND_EVENT {
			t.Errorf("the election court's finding is a %v, want an event", e.GetKind())
		}
	}
	undated := relationNames(tl.GetUndated())
	want := []string{"relations/ajmal-masroor.formerly-worked-with.lutfur-rahman", "relations/lutfur-rahman.formerly-worked-with.rabina-khan"}
	if !reflect.DeepEqual(undated, want) || int(tl.GetTotalUndated()) != len(want) || int(tl.GetTotalDated()) != len(tl.GetEntries()) {
		t.Errorf("undated %v (of %d, %d dated); want %v apart", undated, tl.GetTotalUndated(), tl.GetTotalDated(), want)
	}
	// Pages of 4 fit together: every dated entry, then the undated ones.
	var paged []string
	req := &pb.GetTimelineRequest{Entity: "actors/lutfur-rahman", PageSize: 4}
	for pages := 0; ; pages++ {
		resp, err := client.GetTimeline(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range resp.GetEntries() {
			paged = append(paged, e.GetRelation().GetName())
		}
		paged = append(paged, relationNames(resp.GetUndated())...)
		if resp.GetNextPageToken() == "" || pages > 20 {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	var whole []string
	for _, e := range tl.GetEntries() {
		whole = append(whole, e.GetRelation().GetName())
	}
	if whole = append(whole, undated...); !reflect.DeepEqual(paged, whole) {
		t.Errorf("pages of 4 give\n%v\none page gives\n%v", paged, whole)
	}
	// As of 2015: only what held then, and nothing undated.
	in2015, err := client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: "Lutfur Rahman", Filter: &pb.RelationFilter{AsOf: "2015"}})
	if err != nil {
		t.Fatal(err)
	}
	if in2015.GetTotalUndated() != 0 || len(in2015.GetEntries()) == 0 {
		t.Errorf("as of 2015: %d entries, %d undated", len(in2015.GetEntries()), in2015.GetTotalUndated())
	}
	for _, e := range in2015.GetEntries() {
		if p := e.GetPeriod(); (p.GetFrom() != "" && p.GetFrom() > "2015-12-31") || (p.GetTo() != "" && p.GetTo() < "2015-01-01") {
			t.Errorf("as of 2015 the timeline holds %s (%v)", e.GetRelation().GetName(), p)
		}
	}
	_, err = client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: "", PageSize: -1})
	wantCode(t, err, codes.InvalidArgument, "entity", "page_size")
}

// datasetClaims returns the default dataset's claims citing source, as relation name → claim count.
func datasetClaims(t *testing.T, source string) map[string]int {
	t.Helper()
	f, err := os.Open(defaultDataset)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r struct {
			Record, Type, From, To, Key string
			Claims                      []struct{ Source string }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Record != "relation" {
			continue
		}
		for _, c := range r.Claims {
			if c.Source == source {
				out[string(graph.RelationNameFor(graph.EntityName(r.From), graph.RelationType(r.Type), graph.EntityName(r.To), r.Key))]++
			}
		}
	}
	return out
}

func TestGetSourceDefaultGraph(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	want := datasetClaims(t, dailyMail)
	total := 0
	for _, n := range want {
		total += n
	}
	got := map[string]int{}
	var names []string
	req := &pb.GetSourceRequest{Name: dailyMail, PageSize: 7}
	for pages := 0; ; pages++ {
		resp, err := client.GetSource(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetSource().GetOutlet() != "Daily Mail" || int(resp.GetClaimCount()) != total {
			t.Fatalf("source %v with %d claims; want the Daily Mail's, with %d", resp.GetSource(), resp.GetClaimCount(), total)
		}
		related := map[string]bool{}
		for _, e := range resp.GetRelatedEntities() {
			related[e.GetName()] = true
		}
		for _, c := range resp.GetClaims() {
			r := c.GetRelation()
			got[r.GetName()]++
			names = append(names, c.GetName())
			if !strings.HasPrefix(c.GetName(), r.GetName()+"/claims/") || c.GetExcerpt() == "" || c.GetStatus() == pb.ClaimStatus_CLAIM_STATUS_UNSPECIFIED ||
				r.GetType() == pb.RelationType_RELATION_TYPE_UNSPECIFIED || !related[r.GetFrom()] || !related[r.GetTo()] {
				t.Errorf("claim %v", c)
			}
		}
		if resp.GetNextPageToken() == "" || pages > 30 {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the Daily Mail's claims by relation:\n got %v\nwant %v", got, want)
	}
	if !slices.IsSorted(names) {
		t.Errorf("the claims are not in name order: %v", names)
	}
	_, err := client.GetSource(ctx, &pb.GetSourceRequest{Name: "sources/nobody-wrote-this"})
	wantCode(t, err, codes.NotFound)
	if reason(err) != "SOURCE_NOT_FOUND" {
		t.Errorf("reason %q, want SOURCE_NOT_FOUND", reason(err))
	}
	_, err = client.GetSource(ctx, &pb.GetSourceRequest{Name: " ", PageSize: 501})
	wantCode(t, err, codes.InvalidArgument, "name", "page_size")
}

func TestListSourcesDefaultGraph(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	mail, err := client.ListSources(ctx, &pb.ListSourcesRequest{Kind: pb.SourceKind_SOURCE_KIND_ARTICLE, Outlet: "Daily Mail"})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, n := range datasetClaims(t, dailyMail) {
		want += n
	}
	if len(mail.GetSources()) != 1 || mail.GetTotalSize() != 1 || mail.GetSources()[0].GetSource().GetName() != dailyMail ||
		int(mail.GetSources()[0].GetClaimCount()) != want {
		t.Errorf("Daily Mail articles: %v (total %d); want the one with %d claims", mail.GetSources(), mail.GetTotalSize(), want)
	}
	none, err := client.ListSources(ctx, &pb.ListSourcesRequest{Kind: pb.SourceKind_SOURCE_KIND_DATASET, Outlet: "Daily Mail"})
	if err != nil || none.GetTotalSize() != 0 || len(none.GetSources()) != 0 {
		t.Errorf("Daily Mail data sets: %v %v; want none", none.GetSources(), err)
	}
	articles, err := client.ListSources(ctx, &pb.ListSourcesRequest{Kind: pb.SourceKind_SOURCE_KIND_ARTICLE, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range articles.GetSources() {
		if s.GetSource().GetKind() != pb.SourceKind_SOURCE_KIND_ARTICLE {
			t.Errorf("the kind filter let %s through", s.GetSource().GetName())
		}
	}
	// Pages of one fit together into the whole, in name order, and the total is the graph's.
	whole, err := client.ListSources(ctx, &pb.ListSourcesRequest{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	var all, paged []string
	for _, s := range whole.GetSources() {
		all = append(all, s.GetSource().GetName())
	}
	req := &pb.ListSourcesRequest{PageSize: 1}
	for pages := 0; ; pages++ {
		resp, err := client.ListSources(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range resp.GetSources() {
			paged = append(paged, s.GetSource().GetName())
		}
		if resp.GetNextPageToken() == "" || pages > 200 {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	if !reflect.DeepEqual(all, paged) || !slices.IsSorted(all) || int(whole.GetTotalSize()) != counts(t, store).Sources || len(all) != int(whole.GetTotalSize()) {
		t.Errorf("pages of one give %v; one page %v (total %d, the graph holds %d)", paged, all, whole.GetTotalSize(), counts(t, store).Sources)
	}
	_, err = client.ListSources(ctx, &pb.ListSourcesRequest{Kind: pb.SourceKind(9), Outlet: strings.Repeat("x", 201), PageSize: 101})
	wantCode(t, err, codes.InvalidArgument, "kind", "outlet", "page_size")
}

func TestGetGraphStats(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	before := time.Now()
	// A write raises the version and records when.
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/stats-test", Title: "stats", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertEntities(ctx, []graph.Entity{{Name: "actors/stats-a", Kind: graph.KindActor, DisplayName: "Stats A"},
		{Name: "actors/stats-b", Kind: graph.KindActor, DisplayName: "Stats B"}}); err != nil {
		t.Fatal(err)
	}
	rel := graph.Relation{Name: "relations/stats-a.endorses.stats-b", Type: graph.Endorses, From: "actors/stats-a", To: "actors/stats-b"}
	rel.Claims = []graph.Claim{{Name: graph.ClaimNameFor(rel.Name, "sources/stats-test", ""), Source: graph.Source{Name: "sources/stats-test"},
		Excerpt: "x", Confidence: 0.5, Status: graph.StatusReported}}
	if err := store.UpsertRelations(ctx, []graph.Relation{rel}); err != nil {
		t.Fatal(err)
	}
	st, err := client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	c := counts(t, store)
	version, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int(st.GetEntities()) != c.Entities || int(st.GetRelations()) != c.Relations || int(st.GetClaims()) != c.Claims || int(st.GetSources()) != c.Sources {
		t.Errorf("stats count %d entities, %d relations, %d claims, %d sources; the store %+v", st.GetEntities(), st.GetRelations(), st.GetClaims(), st.GetSources(), c)
	}
	if st.GetVersion() != version {
		t.Errorf("stats say version %d, the store %d", st.GetVersion(), version)
	}
	if at := st.GetWrittenAt().AsTime(); st.GetWrittenAt() == nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("written at %v; the last write was between %v and now", st.GetWrittenAt(), before)
	}
	sum := func(ms []proto.Message) int {
		n := 0
		for _, m := range ms {
			n += int(m.ProtoReflect().Get(m.ProtoReflect().Descriptor().Fields().ByName("count")).Int())
		}
		return n
	}
	lists := map[string][]proto.Message{}
	for _, x := range st.GetEntitiesByKind() {
		lists["entities"] = append(lists["entities"], x)
	}
	for _, x := range st.GetRelationsByType() {
		lists["relations"] = append(lists["relations"], x)
	}
	for _, x := range st.GetClaimsByStatus() {
		lists["claims"] = append(lists["claims"], x)
	}
	for _, x := range st.GetSourcesByKind() {
		lists["sources"] = append(lists["sources"], x)
	}
	for what, total := range map[string]int{"entities": c.Entities, "relations": c.Relations, "claims": c.Claims, "sources": c.Sources} {
		if got := sum(lists[what]); got != total {
			t.Errorf("the %s by group add up to %d, want %d", what, got, total)
		}
		for i := 1; i < len(lists[what]); i++ {
			if sum(lists[what][i-1:i]) < sum(lists[what][i:i+1]) {
				t.Errorf("the %s groups are not most first: %v", what, lists[what])
			}
		}
	}
	if k := st.GetEntitiesByKind(); len(k) == 0 || k[0].GetKind() != pb.EntityKind_ENTITY_KIND_ACTOR {
		t.Errorf("entities by kind %v; want actors first", k)
	}
}

func TestGetEntityWithFilter(t *testing.T) {
	t.Parallel()
	client, _ := serveDefaultGraph(t)
	ctx := context.Background()
	all, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
	if err != nil {
		t.Fatal(err)
	}
	crit, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman",
		Filter: &pb.RelationFilter{IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_CRITICISED}}})
	if err != nil {
		t.Fatal(err)
	}
	if rc := crit.GetRelationCounts(); len(rc) != 1 || rc[0].GetType() != pb.RelationType_RELATION_TYPE_CRITICISED || rc[0].GetOutgoing() || rc[0].GetCount() != 4 {
		t.Errorf("criticisms counted %v; want 4 incoming", rc)
	}
	byDefault, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman", Filter: &pb.RelationFilter{}})
	if err != nil {
		t.Fatal(err)
	}
	total := func(rc []*pb.RelationCount) int {
		n := 0
		for _, c := range rc {
			n += int(c.GetCount())
		}
		return n
	}
	list, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "Lutfur Rahman", Filter: &pb.RelationFilter{}})
	if err != nil {
		t.Fatal(err)
	}
	// Without a filter every relation counts, the disputed endorsement of Ajmal Masroor included; with the
	// default filter, what ListRelations lists.
	if total(all.GetRelationCounts()) != total(byDefault.GetRelationCounts())+1 || total(byDefault.GetRelationCounts()) != int(list.GetTotalSize()) {
		t.Errorf("%d relations counted without a filter, %d with the default one, %d listed", total(all.GetRelationCounts()),
			total(byDefault.GetRelationCounts()), list.GetTotalSize())
	}
	_, err = client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman", Filter: &pb.RelationFilter{MinConfidence: 3}})
	wantCode(t, err, codes.InvalidArgument, "filter.min_confidence")
}

func TestFindConnectionsDefaultGraph(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	resp, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "Rabina Khan"}})
	if err != nil {
		t.Fatal(err)
	}
	var lutfur *pb.SharedNeighbor
	var neighbours []string
	for _, n := range resp.GetSharedNeighbors() {
		neighbours = append(neighbours, n.GetEntity().GetName())
		if n.GetEntity().GetName() == "actors/lutfur-rahman" {
			lutfur = n
		}
	}
	if lutfur == nil || !slices.Contains(neighbours, "seats/bethnal-green-and-stepney") {
		t.Fatalf("shared neighbours %v; want Lutfur Rahman and Bethnal Green and Stepney", neighbours)
	}
	// Under a source filter only its claims count: no outlet of that name, nothing in common.
	none, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "Rabina Khan"},
		Sources: &pb.SourceFilter{Outlets: []string{"No Such Outlet"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.GetSharedNeighbors())+len(none.GetSharedSources()) != 0 || none.GetRoutes()[0].GetPath() != nil {
		t.Errorf("under a source filter no claim keeps: %v", none)
	}
	if lutfur.GetInputsJoined() != 2 || len(lutfur.GetJoins()) != 2 || lutfur.GetJoins()[0].GetInput() != "actors/ajmal-masroor" ||
		lutfur.GetJoins()[0].GetRelations()[0].GetName() != "relations/ajmal-masroor.formerly-worked-with.lutfur-rahman" {
		t.Errorf("Lutfur Rahman's joins: %v", lutfur.GetJoins())
	}
	var toRabina []string
	for _, e := range lutfur.GetJoins()[1].GetRelations() {
		toRabina = append(toRabina, e.GetName())
	}
	if !slices.Contains(toRabina, "relations/lutfur-rahman.endorses.rabina-khan.2015") || !slices.Contains(toRabina, "relations/lutfur-rahman.formerly-worked-with.rabina-khan") {
		t.Errorf("Lutfur Rahman's relations to Rabina Khan: %v", toRabina)
	}
	var sources []string
	for _, s := range resp.GetSharedSources() {
		sources = append(sources, s.GetSource().GetName())
		if len(s.GetInputs()) < 2 || len(s.GetClaims()) == 0 || s.GetSource().GetTitle() == "" {
			t.Errorf("shared source %v", s)
		}
	}
	if !slices.Contains(sources, "sources/tower-hamlets-general-election-2024") {
		t.Errorf("shared sources %v; want the 2024 election article, which speaks of both", sources)
	}
	if rs := resp.GetRoutes(); len(rs) != 1 || !rs[0].GetConnected() || len(rs[0].GetPath().GetHops()) != 2 ||
		rs[0].GetFrom() != "actors/ajmal-masroor" || rs[0].GetTo() != "actors/rabina-khan" {
		t.Errorf("routes %v; want one of 2 hops", rs)
	}

	// An entity with no relations shares nothing and is connected to nothing.
	if err := store.UpsertEntities(ctx, []graph.Entity{{Name: "actors/connections-loner", Kind: graph.KindActor, DisplayName: "Connections Loner"}}); err != nil {
		t.Fatal(err)
	}
	alone, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "Rabina Khan", "actors/connections-loner"}, MaxShared: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.GetRoutes()) != 3 || !alone.GetRoutes()[0].GetConnected() || alone.GetRoutes()[1].GetConnected() || alone.GetRoutes()[2].GetConnected() {
		t.Errorf("routes %v; want Ajmal Masroor–Rabina Khan connected, the loner not", alone.GetRoutes())
	}
	if len(alone.GetSharedNeighbors()) != 1 || int(alone.GetSharedNeighborsLeftOut()) != len(neighbours)-1 {
		t.Errorf("with max_shared 1: %d shared neighbours and %d left out; want 1 and %d", len(alone.GetSharedNeighbors()), alone.GetSharedNeighborsLeftOut(), len(neighbours)-1)
	}

	// Bad requests.
	_, err = client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor"}, MaxShared: 101, MaxDepth: 9})
	wantCode(t, err, codes.InvalidArgument, "entities", "max_shared", "max_depth")
	_, err = client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "actors/ajmal-masroor"}})
	wantCode(t, err, codes.InvalidArgument, "entities[1]")
	_, err = client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: many(11, "Ajmal Masroor")})
	wantCode(t, err, codes.InvalidArgument, "entities")
	_, err = client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "Nobody Heardof"}})
	wantCode(t, err, codes.NotFound)
}

// TestReadsAgreeWithOracleOnRandomGraphs loads random multigraphs, their claims spread over several
// sources, into the store and checks FindConnections, ListRelations and GetTimeline over gRPC against the
// brute-force oracles.
func TestReadsAgreeWithOracleOnRandomGraphs(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	compared, withShared := 0, 0
	for g := uint64(1); g <= 6; g++ {
		n := 8 + int(g%5)
		ents, rels := graphtest.RandomGraph(9100+g, n, 4*n)
		sources := graphtest.RandomSources(9100+g, rels, 3)
		if err := store.UpsertSources(ctx, sources); err != nil {
			t.Fatal(err)
		}
		if err := store.UpsertEntities(ctx, ents); err != nil {
			t.Fatal(err)
		}
		if err := store.UpsertRelations(ctx, rels); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(g, 17))
		for i := 0; i < 8; i++ {
			filter := graphtest.RandomQuery(r, ents).Filter
			var inputs []graph.EntityName
			var names []string
			for _, p := range r.Perm(len(ents))[:2+r.IntN(3)] {
				inputs = append(inputs, ents[p].Name)
				names = append(names, string(ents[p].Name))
			}
			maxShared := 1 + r.IntN(5)
			resp, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: names, Filter: toFilterPB(filter), MaxShared: int32(maxShared)})
			if err != nil {
				t.Fatalf("graph %d: %v", g, err)
			}
			want, leftN, leftS := graphtest.OracleShared(ents, rels, inputs, filter).Cap(maxShared)
			got := graphtest.Shared{Neighbours: []string{}, Sources: []string{}}
			for _, sn := range resp.GetSharedNeighbors() {
				var parts []string
				for _, j := range sn.GetJoins() {
					var rs []string
					for _, e := range j.GetRelations() {
						rs = append(rs, e.GetName())
					}
					parts = append(parts, fmt.Sprintf("%s:%v", j.GetInput(), rs))
				}
				got.Neighbours = append(got.Neighbours, fmt.Sprintf("%s inputs=%d strength=%g %s", sn.GetEntity().GetName(), sn.GetInputsJoined(), sn.GetStrength(), strings.Join(parts, " ")))
			}
			for _, ss := range resp.GetSharedSources() {
				var claims []string
				for _, c := range ss.GetClaims() {
					claims = append(claims, c.GetName())
				}
				got.Sources = append(got.Sources, fmt.Sprintf("%s inputs=%v claims=%v", ss.GetSource().GetName(), ss.GetInputs(), claims))
			}
			if !reflect.DeepEqual(want, got) || int(resp.GetSharedNeighborsLeftOut()) != leftN || int(resp.GetSharedSourcesLeftOut()) != leftS {
				t.Errorf("graph %d, %v under %+v:\n got %q (+%d, +%d)\nwant %q (+%d, +%d)", g, inputs, filter, got, resp.GetSharedNeighborsLeftOut(),
					resp.GetSharedSourcesLeftOut(), want, leftN, leftS)
			}
			if len(want.Neighbours)+len(want.Sources) > 0 {
				withShared++
			}

			e := inputs[0]
			dir := []pb.RelationDirection{pb.RelationDirection_RELATION_DIRECTION_ANY, pb.RelationDirection_RELATION_DIRECTION_OUTGOING,
				pb.RelationDirection_RELATION_DIRECTION_INCOMING}[i%3]
			list, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: string(e), Filter: toFilterPB(filter), Direction: dir, PageSize: 100})
			if err != nil {
				t.Fatal(err)
			}
			gdir := []graph.Direction{graph.DirectionAny, graph.DirectionOutgoing, graph.DirectionIncoming}[i%3]
			var wantRels []string
			for _, n := range graphtest.OracleRelations(ents, rels, e, filter, gdir) {
				wantRels = append(wantRels, string(n))
			}
			if got := relationNames(list.GetRelations()); fmt.Sprint(got) != fmt.Sprint(wantRels) {
				t.Errorf("graph %d: relations of %s (%v, %v):\n got %v\nwant %v", g, e, filter, dir, got, wantRels)
			}
			tl, err := client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: string(e), Filter: toFilterPB(filter), PageSize: 200})
			if err != nil {
				t.Fatal(err)
			}
			dated, undated := graphtest.OracleTimeline(ents, rels, e, filter)
			var gotDated []string
			for _, en := range tl.GetEntries() {
				gotDated = append(gotDated, en.GetRelation().GetName())
			}
			if fmt.Sprint(gotDated) != fmt.Sprint(dated) || fmt.Sprint(relationNames(tl.GetUndated())) != fmt.Sprint(undated) {
				t.Errorf("graph %d: timeline of %s (%v):\n got %v | %v\nwant %v | %v", g, e, filter, gotDated, relationNames(tl.GetUndated()), dated, undated)
			}
			compared++
		}
	}
	if withShared < compared/3 {
		t.Errorf("only %d of %d answers share anything: the graphs are too thin to test much", withShared, compared)
	}
	t.Logf("compared %d answers with the oracles, %d sharing something", compared, withShared)
}

// TestHostileInputToReadsIsInert sends strings that would change a query pasted together from text to
// every new read: each is found, refused or not found, and the graph is as it was.
func TestHostileInputToReadsIsInert(t *testing.T) {
	t.Parallel()
	client, store := serveDefaultGraph(t)
	ctx := context.Background()
	before := counts(t, store)
	hostile := []string{`"`, `}`, `") { uid } }`, `actors/x") @filter(has(pg.name)) { uid } q(func: has(pg.name)`,
		`$n0`, `query q($n0: string)`, `<0x1> <pg.name> * .`, `uid(0x1)`, "Lutfur\x00Rahman", "sources/../sources/x", "🙂"}
	ok := func(err error, want ...codes.Code) bool {
		return slices.Contains(want, status.Code(err))
	}
	for _, s := range hostile {
		if _, err := client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: s}); !ok(err, codes.OK, codes.NotFound, codes.InvalidArgument) {
			t.Errorf("ListRelations(%.40q): %v", s, err)
		}
		if _, err := client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: s}); !ok(err, codes.OK, codes.NotFound, codes.InvalidArgument) {
			t.Errorf("GetTimeline(%.40q): %v", s, err)
		}
		if _, err := client.GetSource(ctx, &pb.GetSourceRequest{Name: s}); !ok(err, codes.NotFound, codes.InvalidArgument) {
			t.Errorf("GetSource(%.40q): %v", s, err)
		}
		if _, err := client.GetSource(ctx, &pb.GetSourceRequest{Name: "sources/" + s}); !ok(err, codes.NotFound, codes.InvalidArgument) {
			t.Errorf("GetSource(sources/%.40q): %v", s, err)
		}
		if resp, err := client.ListSources(ctx, &pb.ListSourcesRequest{Outlet: s}); err != nil || resp.GetTotalSize() != 0 {
			t.Errorf("ListSources(outlet %.40q): %v sources, %v; want none", s, resp.GetTotalSize(), err)
		}
		if _, err := client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Lutfur Rahman", s}}); !ok(err, codes.NotFound, codes.InvalidArgument, codes.OK) {
			t.Errorf("FindConnections(%.40q): %v", s, err)
		}
	}
	if after := counts(t, store); after != before {
		t.Errorf("hostile input changed the graph: %+v → %+v", before, after)
	}
}
