package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/graphtest"
)

func TestHealthAndReflection(t *testing.T) {
	ctx := context.Background()
	h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "polgraph.v1.GraphService"})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", h, err)
	}
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{"polgraph.v1.GraphService", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} {
		if !slices.Contains(names, want) {
			t.Errorf("reflection lists %v; want %s among them", names, want)
		}
	}
}

// checkPaths asserts what every FindPaths answer must hold: simple, distinct paths no longer than the cap,
// in order, each hop joining its two entities and carrying claims, and every entity described.
func checkPaths(t *testing.T, resp *pb.FindPathsResponse, maxDepth int) {
	t.Helper()
	described := map[string]*pb.Entity{}
	for _, e := range resp.GetEntities() {
		described[e.GetName()] = e
	}
	seen := map[string]bool{}
	prevLen := 0
	for i, p := range resp.GetPaths() {
		ents, hops := p.GetEntities(), p.GetHops()
		if len(hops) > maxDepth || len(hops) == 0 || len(ents) != len(hops)+1 {
			t.Fatalf("path %d has %d hops and %d entities (max_depth %d)", i, len(hops), len(ents), maxDepth)
		}
		if len(hops) < prevLen {
			t.Errorf("path %d is shorter than the one before it", i)
		}
		prevLen = len(hops)
		onPath := map[string]bool{}
		var key []string
		for j, e := range ents {
			if onPath[e] {
				t.Errorf("path %d visits %s twice", i, e)
			}
			onPath[e] = true
			if d := described[e]; d == nil || d.GetDisplayName() == "" || d.GetKind() == pb.EntityKind_ENTITY_KIND_UNSPECIFIED {
				t.Errorf("entity %s on path %d is not described", e, i)
			}
			if j == len(hops) {
				break
			}
			r := hops[j].GetRelation()
			key = append(key, r.GetName())
			from, to := ents[j], ents[j+1]
			if !hops[j].GetForward() {
				from, to = to, from
			}
			if r.GetFrom() != from || r.GetTo() != to {
				t.Errorf("hop %d of path %d: relation %s joins %s and %s, not %s and %s", j, i, r.GetName(), r.GetFrom(), r.GetTo(), from, to)
			}
			if len(r.GetClaims()) == 0 {
				t.Errorf("relation %s has no claims", r.GetName())
			}
			for _, c := range r.GetClaims() {
				if c.GetSource().GetName() == "" || c.GetExcerpt() == "" || c.GetStatus() == pb.ClaimStatus_CLAIM_STATUS_UNSPECIFIED {
					t.Errorf("claim %s lacks its source, excerpt or status", c.GetName())
				}
			}
		}
		k := strings.Join(key, "|")
		if seen[k] {
			t.Errorf("path %d repeats an earlier path", i)
		}
		seen[k] = true
	}
}

func TestFindPathsDefaultGraph(t *testing.T) {
	ctx := context.Background()
	resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxPaths: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetPaths()) != 5 {
		t.Fatalf("want 5 paths from Ajmal Masroor to Keir Starmer, got %d", len(resp.GetPaths()))
	}
	checkPaths(t, resp, graph.DefaultMaxDepth)
	p := resp.GetPaths()[0]
	if p.GetEntities()[0] != "actors/ajmal-masroor" || p.GetEntities()[len(p.GetEntities())-1] != "actors/keir-starmer" {
		t.Errorf("the path runs %v", p.GetEntities())
	}
	// Resource names and aliases find the same entities as display names.
	alias, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Mashroor", To: "actors/keir-starmer", MaxPaths: 5})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(alias.GetPaths()) != fmt.Sprint(resp.GetPaths()) {
		t.Errorf("by alias and resource name the paths differ")
	}
}

func TestFindPathsHopCapIsExact(t *testing.T) {
	ctx := context.Background()
	for depth := 1; depth <= 5; depth++ {
		resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/ajmal-masroor", To: "actors/keir-starmer",
			MaxPaths: 20, MaxDepth: int32(depth)})
		if err != nil {
			t.Fatal(err)
		}
		checkPaths(t, resp, depth)
		if depth < 3 && len(resp.GetPaths()) != 0 {
			t.Errorf("max_depth %d: found %d paths, but the shortest has 3 hops", depth, len(resp.GetPaths()))
		}
		if depth >= 3 && len(resp.GetPaths()) == 0 {
			t.Errorf("max_depth %d: no path", depth)
		}
	}
}

func findRelation(t *testing.T, req *pb.FindPathsRequest) []string {
	t.Helper()
	resp, err := client.FindPaths(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, p := range resp.GetPaths() {
		for _, h := range p.GetHops() {
			rels = append(rels, h.GetRelation().GetName())
		}
	}
	return rels
}

func TestFindPathsHonoursTime(t *testing.T) {
	endorse := []pb.RelationType{pb.RelationType_RELATION_TYPE_ENDORSES}
	req := func(asOf string) *pb.FindPathsRequest {
		return &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Rabina Khan", MaxDepth: 1,
			Filter: &pb.RelationFilter{IncludeTypes: endorse, AsOf: asOf}}
	}
	// The 2015 endorsement of Rabina Khan's mayoral candidacy (the graph names it with the key 2015).
	const rel = "relations/lutfur-rahman.endorses.rabina-khan.2015"
	if got := findRelation(t, req("")); !slices.Contains(got, rel) {
		t.Fatalf("without a date the 2015 endorsement should link them; got %v", got)
	}
	if got := findRelation(t, req("2015")); !slices.Contains(got, rel) {
		t.Errorf("as of 2015 the 2015 endorsement should link them; got %v", got)
	}
	if got := findRelation(t, req("2010")); len(got) != 0 {
		t.Errorf("as of 2010 the 2015 endorsement must not count; got %v", got)
	}
}

func TestDeniedEndorsementIsNeverALink(t *testing.T) {
	const denied = "relations/lutfur-rahman.endorses.ajmal-masroor"
	all := findRelation(t, &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Ajmal Masroor", MaxPaths: 20, MaxDepth: 4})
	if len(all) == 0 {
		t.Fatal("Lutfur Rahman and Ajmal Masroor should be connected some other way")
	}
	if slices.Contains(all, denied) {
		t.Errorf("a path uses the denied endorsement %s", denied)
	}
	asked := findRelation(t, &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Ajmal Masroor", MaxDepth: 1,
		Filter: &pb.RelationFilter{IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_ENDORSES},
			Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_DENIED}}})
	if !slices.Contains(asked, denied) {
		t.Errorf("asking for denied claims should find the denial; got %v", asked)
	}
	r, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: denied})
	if err != nil {
		t.Fatal(err)
	}
	var statuses []pb.ClaimStatus
	for _, c := range r.GetRelation().GetClaims() {
		statuses = append(statuses, c.GetStatus())
	}
	if !slices.Contains(statuses, pb.ClaimStatus_CLAIM_STATUS_DENIED) {
		t.Errorf("the relation's claims are %v; want a DENIED one", statuses)
	}
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

// many returns n copies of x.
func many[T any](n int, x T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = x
	}
	return out
}

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

func TestErrors(t *testing.T) {
	ctx := context.Background()
	_, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "actors/nobody-at-all"})
	if st := wantCode(t, err, codes.NotFound); !strings.Contains(st.Message(), "actors/nobody-at-all") {
		t.Errorf("NOT_FOUND should name the entity: %q", st.Message())
	}
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Somebody Unheardof"})
	wantCode(t, err, codes.NotFound)
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "Lutfur Rahman", To: "Keir Starmer", MaxDepth: 9, MaxPaths: 21,
		Filter: &pb.RelationFilter{AsOf: "2015-13", MinConfidence: 2}})
	wantCode(t, err, codes.InvalidArgument, "max_depth", "max_paths", "filter.as_of", "filter.min_confidence")
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "", To: "Keir Starmer"})
	wantCode(t, err, codes.InvalidArgument, "from")
	_, err = client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", Depth: 4, MaxPerNode: 201, MaxNodes: -1})
	wantCode(t, err, codes.InvalidArgument, "depth", "max_per_node", "max_nodes")
	_, err = client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Lutfur", PageSize: 101})
	wantCode(t, err, codes.InvalidArgument, "page_size")
	_, err = client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Lutfur", PageToken: "garbage"})
	wantCode(t, err, codes.InvalidArgument, "page_token")
	_, err = client.GetRelation(ctx, &pb.GetRelationRequest{Name: "relations/nobody.endorses.nobody"})
	wantCode(t, err, codes.NotFound)
}

func TestAmbiguousNameListsCandidates(t *testing.T) {
	ctx := context.Background()
	err := store.UpsertEntities(ctx, []graph.Entity{
		{Name: "actors/ambiguous-one", Kind: graph.KindActor, DisplayName: "Ambiguous One", Aliases: []string{"A. Mbiguous"}},
		{Name: "actors/ambiguous-two", Kind: graph.KindActor, DisplayName: "Ambiguous Two", Aliases: []string{"A Mbiguous"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: "a mbiguous", To: "Keir Starmer"})
	st := wantCode(t, err, codes.InvalidArgument, "from")
	text := fmt.Sprint(st.Details())
	for _, want := range []string{"actors/ambiguous-one", "actors/ambiguous-two"} {
		if !strings.Contains(text, want) {
			t.Errorf("the error should list %s: %s", want, text)
		}
	}
}

func TestSearchFindsVariants(t *testing.T) {
	tests := []struct{ query, want string }{
		{"Rushnara Ali", "actors/rushanara-ali"},
		{"Rusnara", "actors/rushanara-ali"},
		{"Rushanra Ali", "actors/rushanara-ali"},
		{"Lutfor Rahman", "actors/lutfur-rahman"},
		{"lutfur", "actors/lutfur-rahman"},
		{"Labor", "parties/labour"},
		{"Keir Starmar", "actors/keir-starmer"},
		{"AJMAL MASHROOR", "actors/ajmal-masroor"},
		{"Apsana Begam", "actors/apsana-begum"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			resp, err := client.SearchEntities(context.Background(), &pb.SearchEntitiesRequest{Query: tc.query, PageSize: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.GetResults()) == 0 || resp.GetResults()[0].GetEntity().GetName() != tc.want {
				t.Errorf("top results %v; want %s first", resp.GetResults(), tc.want)
			}
		})
	}
	// Kind filter and paging.
	ctx := context.Background()
	parties, err := client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Labour", Kinds: []pb.EntityKind{pb.EntityKind_ENTITY_KIND_PARTY}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range parties.GetResults() {
		if r.GetEntity().GetKind() != pb.EntityKind_ENTITY_KIND_PARTY {
			t.Errorf("kind filter let through %s", r.GetEntity().GetName())
		}
	}
	whole, err := client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Labour", PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	var paged []string
	req := &pb.SearchEntitiesRequest{Query: "Labour", PageSize: 2}
	for i := 0; i < 50; i++ {
		resp, err := client.SearchEntities(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.GetResults() {
			paged = append(paged, r.GetEntity().GetName())
		}
		if resp.GetNextPageToken() == "" {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	var all []string
	for _, r := range whole.GetResults() {
		all = append(all, r.GetEntity().GetName())
	}
	if len(all) < 3 || fmt.Sprint(all) != fmt.Sprint(paged) {
		t.Errorf("pages of 2 give %v; one page gives %v", paged, all)
	}
}

// TestHostileInputIsInert sends strings that would change a query pasted together from text.
func TestHostileInputIsInert(t *testing.T) {
	ctx := context.Background()
	before := counts(t)
	hostile := []string{
		`"`, `'`, `}`, `{`, `") { uid } }`, `actors/x") @filter(has(pg.name)) { uid } q(func: has(pg.name)`,
		`{ q(func: has(pg.name)) { uid } }`, `delete { * * * . }`, `uid(0x1)`, `$n0`, `query q($n0: string)`,
		`<0x1> <pg.name> * .`, "Lutfur\x00Rahman", strings.Repeat("Lutfur Rahman ", 2000), `\u0022`, `/.*/`,
		`actors/../parties/labour`, "actors/lutfur-rahman\n", "रहमान", "🙂",
	}
	// These two are Lutfur Rahman's name with a NUL or a newline in it: found, harmlessly.
	benign := map[string]bool{"Lutfur\x00Rahman": true, "actors/lutfur-rahman\n": true}
	for _, s := range hostile {
		_, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: s})
		if c := status.Code(err); c != codes.NotFound && c != codes.InvalidArgument && !(benign[s] && c == codes.OK) {
			t.Errorf("GetEntity(%.40q): %v; want NOT_FOUND or INVALID_ARGUMENT", s, err)
		}
		_, err = client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: s})
		if c := status.Code(err); c != codes.OK && c != codes.InvalidArgument {
			t.Errorf("SearchEntities(%.40q): %v", s, err)
		}
		_, err = client.FindPaths(ctx, &pb.FindPathsRequest{From: s, To: "Keir Starmer"})
		if c := status.Code(err); c != codes.NotFound && c != codes.InvalidArgument && !(benign[s] && c == codes.OK) {
			t.Errorf("FindPaths(%.40q): %v", s, err)
		}
		_, err = client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Lutfur Rahman", Exclude: []string{s}})
		if c := status.Code(err); c != codes.OK && c != codes.InvalidArgument {
			t.Errorf("ExploreNeighborhood(exclude %.40q): %v", s, err)
		}
		_, err = client.GetRelation(ctx, &pb.GetRelationRequest{Name: "relations/" + s})
		if c := status.Code(err); c != codes.NotFound && c != codes.InvalidArgument {
			t.Errorf("GetRelation(%.40q): %v", s, err)
		}
	}
	// Bytes that are not UTF-8 cannot even be sent by a generated client; send them raw.
	raw := protowire.AppendTag(nil, 1, protowire.BytesType)
	raw = protowire.AppendBytes(raw, []byte("Lutfur \xff\xfe Rahman"))
	var out rawMessage
	err := conn.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", rawMessage(raw), &out, grpc.ForceCodec(rawCodec{}))
	if err == nil || !strings.Contains(status.Convert(err).Message(), "UTF-8") {
		t.Errorf("a name that is not UTF-8: %v; want a clean refusal naming UTF-8", err)
	}
	if after := counts(t); after != before {
		t.Errorf("hostile input changed the graph: %+v → %+v", before, after)
	}
	if _, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"}); err != nil {
		t.Errorf("the service no longer answers: %v", err)
	}
}

type rawMessage []byte

type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.(rawMessage), nil }
func (rawCodec) Unmarshal(b []byte, v any) error {
	*(v.(*rawMessage)) = append([]byte(nil), b...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// TestLimits runs a second server with a tiny work budget and a tiny deadline.
func TestLimits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dial := func(cfg Config) pb.GraphServiceClient {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go serve(ctx, lis, nil, onDgraph(store), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
		c, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return pb.NewGraphServiceClient(c)
	}
	cfg := defaultConfig()
	cfg.WorkBudget = 10
	small := dial(cfg)
	_, err := small.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxDepth: 8, MaxPaths: 20})
	wantCode(t, err, codes.ResourceExhausted)
	_, err = small.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "Labour", Depth: 3})
	wantCode(t, err, codes.ResourceExhausted)
	cfg = defaultConfig()
	cfg.Timeout = time.Microsecond
	hurried := dial(cfg)
	_, err = hurried.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxDepth: 8, MaxPaths: 20})
	wantCode(t, err, codes.DeadlineExceeded)
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

// TestFindPathsAgreesWithOracleOnRandomGraphs loads random multigraphs (parallel relations, entity
// lifetimes, events, undated relations) into Dgraph and checks every answer over gRPC, co-temporal ones
// included, against a plain enumeration of every route in memory, weighed by its evidence.
func TestFindPathsAgreesWithOracleOnRandomGraphs(t *testing.T) {
	ctx := context.Background()
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	const graphs, perGraph = 60, 10
	compared, nonEmpty := 0, 0
	for g := uint64(1); g <= graphs; g++ {
		n := 8 + int(g%12)
		ents, rels := graphtest.RandomGraph(1000+g, n, 3*n+int(g%uint64(n)))
		if err := store.UpsertEntities(ctx, ents); err != nil {
			t.Fatal(err)
		}
		if err := store.UpsertRelations(ctx, rels); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(g, 99))
		for i := 0; i < perGraph; i++ {
			q := graphtest.RandomQuery(r, ents)
			var want []graph.Path
			for _, rp := range graphtest.OracleRankedPaths(ents, rels, []graph.Source{{Name: "sources/random"}}, q) {
				rp.Path.Evidence = graph.RouteEvidence{Score: rp.Score, Weakest: rp.Weakest}
				want = append(want, rp.Path)
			}
			resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: string(q.From), To: string(q.To),
				MaxPaths: int32(q.MaxPaths), MaxDepth: int32(q.MaxDepth), Directed: q.Directed, Filter: toFilterPB(q.Filter),
				CoTemporal: q.CoTemporal})
			if err != nil {
				t.Fatalf("graph %d query %+v: %v", g, q, err)
			}
			checkPaths(t, resp, q.MaxDepth)
			var got []graph.Path
			for _, p := range resp.GetPaths() {
				var gp graph.Path
				for _, e := range p.GetEntities() {
					gp.Entities = append(gp.Entities, graph.EntityName(e))
				}
				for _, h := range p.GetHops() {
					gh := graph.Hop{Relations: []graph.PathStep{{Relation: graph.RelationName(h.GetRelation().GetName()), Forward: h.GetForward()}}}
					for _, pr := range h.GetParallel() {
						gh.Relations = append(gh.Relations, graph.PathStep{Relation: graph.RelationName(pr.GetRelation().GetName()), Forward: pr.GetForward()})
					}
					gp.Hops = append(gp.Hops, gh)
				}
				for _, d := range p.GetDuring() {
					period := graph.OpenPeriod
					if f, err := graph.ParseFuzzyDate(d.GetFrom()); err == nil && !f.IsZero() {
						period.Start = f.FirstDay()
					}
					if to, err := graph.ParseFuzzyDate(d.GetTo()); err == nil && !to.IsZero() {
						period.End = to.LastDay()
					}
					gp.During = append(gp.During, period)
				}
				gp.Evidence = graph.RouteEvidence{Score: p.GetScore(), Weakest: int(p.GetWeakestHop())}
				got = append(got, gp)
			}
			if resp.GetRankingCapped() {
				continue // ranked among the first routes of the last length only
			}
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("graph %d query %+v:\nwant %v\n got %v", g, q, want, got)
			}
			compared++
			if len(want) > 0 {
				nonEmpty++
			}
		}
	}
	if compared < 600 || nonEmpty < 150 {
		t.Errorf("compared %d answers, %d with paths; want at least 600 and 150", compared, nonEmpty)
	}
	t.Logf("compared %d answers with the oracle, %d with paths", compared, nonEmpty)
}

// TestDatabaseDown serves from a Dgraph of its own, stops that Dgraph, and expects UNAVAILABLE answers and
// a NOT_SERVING health status rather than a crash.
func TestDatabaseDown(t *testing.T) {
	if os.Getenv("POLGRAPH_TEST_ALPHA") != "" {
		t.Skip("needs a Dgraph of its own; POLGRAPH_TEST_ALPHA is set")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, stopDgraph, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stopDgraph()
	addr := d.Service.Addr
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	own, err := openStore(ctx, d.Service, log)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	saved := healthInterval
	healthInterval = 200 * time.Millisecond
	defer func() { healthInterval = saved }()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	webLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go serve(ctx, lis, webLis, onDgraph(own), defaultConfig(), log, io.Discard)
	c, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gs := pb.NewGraphServiceClient(c)
	if _, err := gs.GetEntity(ctx, &pb.GetEntityRequest{Name: "actors/anyone"}); status.Code(err) != codes.NotFound {
		t.Fatalf("with Dgraph up: %v, want NOT_FOUND", err)
	}
	stopDgraph()
	_, err = gs.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/a", To: "actors/b"})
	if st := wantCode(t, err, codes.Unavailable); !strings.Contains(st.Message(), addr) {
		t.Errorf("UNAVAILABLE should name the Dgraph address %s: %q", addr, st.Message())
	}
	hc := healthpb.NewHealthClient(c)
	deadline := time.Now().Add(15 * time.Second)
	for {
		h, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: "polgraph.v1.GraphService"})
		if err == nil && h.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health still says %v (%v) 15 s after Dgraph stopped", h.GetStatus(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkExplorerSaysDown(t, "http://"+webLis.Addr().String(), addr)
	t.Run("the explorer's banner says so", func(t *testing.T) {
		runBrowserScript(t, "e2e/database-down.mjs", "POLGRAPH_EXPLORER_URL=http://"+webLis.Addr().String()+"/", "POLGRAPH_DGRAPH_ADDR="+addr)
	})
}

// TestCallsWaitingForTurnsSeeEarlierWrites serves with one call of a method at a time, so that a burst of
// searches waits for its turns and reads the graph's version ahead, while waiting: every search still
// finds an entity written before the burst began, by name and by search, from the graph in memory.
func TestCallsWaitingForTurnsSeeEarlierWrites(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := defaultConfig()
	cfg.Limits = rpc.Limits{InFlight: 1, Queued: 64, MaxWait: 30 * time.Second}
	_, conn, _ := serveForTest(t, onDgraph(store), cfg, slog.New(slog.DiscardHandler))
	c := pb.NewGraphServiceClient(conn)
	for round := range 3 {
		name := fmt.Sprintf("actors/turns-%d-%d", round, time.Now().UnixNano())
		display := fmt.Sprintf("Turnwaiter Quillfeather%d", round)
		if err := store.UpsertEntities(ctx, []graph.Entity{{Name: graph.EntityName(name), Kind: graph.KindActor, DisplayName: display}}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					resp, err := c.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: display, PageSize: 1})
					switch {
					case err != nil:
						errs <- err
					case len(resp.GetResults()) == 0 || resp.GetResults()[0].GetEntity().GetName() != name:
						errs <- fmt.Errorf("a search for %q written before it found %v", display, resp.GetResults())
					}
					return
				}
				resp, err := c.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: name, Depth: 1})
				switch {
				case err != nil:
					errs <- fmt.Errorf("the neighbourhood of %s, written before it was asked: %w", name, err)
				case resp.GetCenter().GetName() != name:
					errs <- fmt.Errorf("the neighbourhood of %s is centred on %q", name, resp.GetCenter().GetName())
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}
