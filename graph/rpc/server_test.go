package rpc

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
)

// newTestServer serves an empty graph: requests that pass validation reach it and get empty answers or
// NOT_FOUND.
func newTestServer() *Server {
	return NewServer(&service.Service{Store: memstore.New()}, slog.New(slog.DiscardHandler))
}

// many returns n copies of x.
func many[T any](n int, x T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// TestHostileRequestsAreRefusedWithSmallAnswers sends the requests that once cost seconds of CPU or
// megabytes of answer: each must be refused as INVALID_ARGUMENT naming the field and its cap, with a
// bounded answer.
func TestHostileRequestsAreRefusedWithSmallAnswers(t *testing.T) {
	t.Parallel()
	s := newTestServer()
	ctx := context.Background()
	big := strings.Repeat("x", 1<<20)
	paths := func(f *pb.RelationFilter) func() error {
		return func() error {
			_, err := s.FindPaths(ctx, &pb.FindPathsRequest{From: "actors/a", To: "actors/b", Filter: f})
			return err
		}
	}
	tests := []struct {
		name  string
		call  func() error
		field string
		says  string
	}{
		{"a million statuses", paths(&pb.RelationFilter{Statuses: many(1_000_000, pb.ClaimStatus_CLAIM_STATUS_DENIED)}),
			"filter.statuses", "1000000 items; at most 8"},
		{"a million excluded types", paths(&pb.RelationFilter{ExcludeTypes: many(1_000_000, pb.RelationType_RELATION_TYPE_ENDORSES)}),
			"filter.exclude_types", "at most 32"},
		{"100k bad enum values", paths(&pb.RelationFilter{IncludeTypes: many(100_000, pb.RelationType(999))}),
			"filter.include_types", "at most 32"},
		{"NaN confidence", paths(&pb.RelationFilter{MinConfidence: math.NaN()}), "filter.min_confidence", "between 0 and 1, got NaN"},
		{"infinite confidence", paths(&pb.RelationFilter{MinConfidence: math.Inf(1)}), "filter.min_confidence", "got +Inf"},
		{"negative infinite confidence", paths(&pb.RelationFilter{MinConfidence: math.Inf(-1)}), "filter.min_confidence", "got -Inf"},
		{"a megabyte as_of", paths(&pb.RelationFilter{AsOf: big}), "filter.as_of", "is not a date"},
		{"a megabyte name", func() error {
			_, err := s.GetEntity(ctx, &pb.GetEntityRequest{Name: big})
			return err
		}, "name", "at most 200"},
		{"a megabyte relation name", func() error {
			_, err := s.GetRelation(ctx, &pb.GetRelationRequest{Name: "relations/" + big})
			return err
		}, "name", "is not a relation name"},
		{"a million excluded names", func() error {
			_, err := s.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: "actors/a", Exclude: many(1_000_000, "actors/b")})
			return err
		}, "exclude", "1000000 items; at most 1000"},
		{"a megabyte page token", func() error {
			_, err := s.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Lutfur", PageToken: big})
			return err
		}, "page_token", "at most 200"},
		{"a million kinds", func() error {
			_, err := s.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: "Lutfur", Kinds: many(1_000_000, pb.EntityKind_ENTITY_KIND_ACTOR)})
			return err
		}, "kinds", "at most 4"},
		{"a megabyte query", func() error {
			_, err := s.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: big})
			return err
		}, "query", "at most 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Fatalf("got %v, want INVALID_ARGUMENT", err)
			}
			if size := proto.Size(st.Proto()); size > 4<<10 {
				t.Errorf("the answer is %d bytes; want a few hundred", size)
			}
			found := false
			for _, v := range fieldViolations(st) {
				if v.GetField() == tt.field && strings.Contains(v.GetDescription(), tt.says) {
					found = true
				}
			}
			if !found {
				t.Errorf("no violation of %s saying %q: %v", tt.field, tt.says, fieldViolations(st))
			}
		})
	}
}

func fieldViolations(st *status.Status) []*errdetails.BadRequest_FieldViolation {
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			return br.GetFieldViolations()
		}
	}
	return nil
}

// TestManyViolationsAreCountedNotListed: a request with more problems than MaxViolationsShown gets the
// first ones and a count of the rest.
func TestManyViolationsAreCountedNotListed(t *testing.T) {
	t.Parallel()
	f := &pb.RelationFilter{IncludeTypes: many(30, pb.RelationType(999)), ExcludeTypes: many(30, pb.RelationType(998)), AsOf: "never"}
	_, err := newTestServer().FindPaths(context.Background(), &pb.FindPathsRequest{From: "actors/a", To: "actors/b", Filter: f, MaxDepth: 99})
	vs := fieldViolations(status.Convert(err))
	if len(vs) != MaxViolationsShown+1 {
		t.Fatalf("%d violations, want %d and a count: %v", len(vs), MaxViolationsShown, vs)
	}
	if last := vs[len(vs)-1]; last.GetDescription() != "and 42 more problems" {
		t.Errorf("the last violation says %q, want the count of the 42 left out", last.GetDescription())
	}
}

// FuzzRequests sends arbitrary bytes, read as each request message, to every method: none may panic, and
// every answer is a success or a well-formed refusal: an expected code, a valid UTF-8 message, bounded
// details.
func FuzzRequests(f *testing.F) {
	seeds := []proto.Message{
		&pb.FindPathsRequest{From: "Lutfur Rahman", To: "actors/keir-starmer", MaxPaths: 5, Filter: &pb.RelationFilter{AsOf: "2015", Statuses: []pb.ClaimStatus{pb.ClaimStatus_CLAIM_STATUS_DENIED}}},
		&pb.ExploreNeighborhoodRequest{Name: "actors/lutfur-rahman", Depth: 2, Exclude: []string{"parties/labour"}, PageToken: "eyJxIjoiYSIsIm8iOjF9"},
		&pb.SearchEntitiesRequest{Query: "Rushnara", Kinds: []pb.EntityKind{pb.EntityKind_ENTITY_KIND_ACTOR}, PageSize: 3},
		&pb.GetRelationRequest{Name: "relations/lutfur-rahman.endorses.ajmal-masroor"},
		&pb.GetEntityRequest{Name: "parties/labour", Filter: &pb.RelationFilter{AsOf: "2020"}},
		&pb.ListRelationsRequest{Entity: "Lutfur Rahman", Direction: pb.RelationDirection_RELATION_DIRECTION_INCOMING, PageSize: 5,
			Filter: &pb.RelationFilter{IncludeTypes: []pb.RelationType{pb.RelationType_RELATION_TYPE_CRITICISED}}},
		&pb.GetTimelineRequest{Entity: "actors/lutfur-rahman", PageSize: 3, PageToken: "eyJxIjoiYSIsIm8iOjF9"},
		&pb.GetSourceRequest{Name: "sources/daily-mail-2023-11-03-lutfur-rahman", PageSize: 10},
		&pb.ListSourcesRequest{Kind: pb.SourceKind_SOURCE_KIND_ARTICLE, Outlet: "Daily Mail", PageSize: 2},
		&pb.GetGraphStatsRequest{},
		&pb.FindConnectionsRequest{Entities: []string{"Ajmal Masroor", "Rabina Khan", "parties/aspire"}, MaxShared: 5, MaxDepth: 3},
		&pb.BatchGetEntitiesRequest{Names: []string{"actors/lutfur-rahman", "parties/labour"}},
		&pb.LookupEntitiesRequest{Scheme: "ocd", Values: []string{"ocd-division/country:gb/parl:bethnal-green-and-stepney"}},
	}
	for i, m := range seeds {
		b, _ := proto.Marshal(m)
		f.Add(byte(i), b)
	}
	f.Add(byte(0), []byte{0x32, 0x05, 0x21, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // min_confidence NaN
	s := newTestServer()
	f.Fuzz(func(t *testing.T, method byte, b []byte) {
		ctx := context.Background()
		var err error
		switch method % 13 {
		case 0:
			var req pb.FindPathsRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.FindPaths(ctx, &req)
		case 1:
			var req pb.ExploreNeighborhoodRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.ExploreNeighborhood(ctx, &req)
		case 2:
			var req pb.SearchEntitiesRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.SearchEntities(ctx, &req)
		case 3:
			var req pb.GetRelationRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.GetRelation(ctx, &req)
		case 4:
			var req pb.GetEntityRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.GetEntity(ctx, &req)
		case 5:
			var req pb.ListRelationsRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.ListRelations(ctx, &req)
		case 6:
			var req pb.GetTimelineRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.GetTimeline(ctx, &req)
		case 7:
			var req pb.GetSourceRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.GetSource(ctx, &req)
		case 8:
			var req pb.ListSourcesRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.ListSources(ctx, &req)
		case 9:
			var req pb.GetGraphStatsRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.GetGraphStats(ctx, &req)
		case 10:
			var req pb.FindConnectionsRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.FindConnections(ctx, &req)
		case 11:
			var req pb.BatchGetEntitiesRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.BatchGetEntities(ctx, &req)
		case 12:
			var req pb.LookupEntitiesRequest
			if proto.Unmarshal(b, &req) != nil {
				return
			}
			_, err = s.LookupEntities(ctx, &req)
		}
		if err == nil {
			return
		}
		st := status.Convert(err)
		switch st.Code() {
		case codes.InvalidArgument, codes.NotFound:
		default:
			t.Fatalf("unexpected code: %v", err)
		}
		if !utf8.ValidString(st.Message()) {
			t.Errorf("the message is not valid UTF-8: %q", st.Message())
		}
		if len(st.Details()) == 0 {
			t.Errorf("no details (the details could not be encoded?): %v", err)
		}
		if vs := fieldViolations(st); len(vs) > MaxViolationsShown+1 {
			t.Errorf("%d violations, more than %d and a count", len(vs), MaxViolationsShown)
		}
		if size := proto.Size(st.Proto()); size > 16<<10 {
			t.Errorf("the answer is %d bytes", size)
		}
	})
}
