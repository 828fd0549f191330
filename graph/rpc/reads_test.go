package rpc

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// TestHostileReadsAreRefusedWithSmallAnswers: every cap of the reads is enforced before any work, as
// INVALID_ARGUMENT naming the field and its cap, and a request with several problems reports them all.
func TestHostileReadsAreRefusedWithSmallAnswers(t *testing.T) {
	t.Parallel()
	s := newTestServer()
	ctx := context.Background()
	big := strings.Repeat("x", 1<<20)
	manyStatuses := &pb.RelationFilter{Statuses: many(1_000_000, pb.ClaimStatus_CLAIM_STATUS_DENIED)}
	tests := []struct {
		name string
		call func() error
		want map[string]string // field → what its violation says
	}{
		{"GetEntity with a million filter types", func() error {
			_, err := s.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman",
				Filter: &pb.RelationFilter{IncludeTypes: many(1_000_000, pb.RelationType_RELATION_TYPE_ENDORSES)}})
			return err
		}, map[string]string{"filter.include_types": "1000000 items; at most 32"}},
		{"ListRelations with a megabyte entity, a million statuses, a bad direction and a big page", func() error {
			_, err := s.ListRelations(ctx, &pb.ListRelationsRequest{Entity: big, Filter: manyStatuses,
				Direction: pb.RelationDirection(99), PageSize: 101})
			return err
		}, map[string]string{"entity": "1048576 bytes; at most 200", "filter.statuses": "at most 8",
			"direction": "is not a direction", "page_size": "between 0 and 100, got 101"}},
		{"ListRelations without an entity", func() error {
			_, err := s.ListRelations(ctx, &pb.ListRelationsRequest{})
			return err
		}, map[string]string{"entity": "required"}},
		{"GetTimeline with a megabyte page token and a big page", func() error {
			_, err := s.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: "Lutfur Rahman", PageToken: big, PageSize: 1000})
			return err
		}, map[string]string{"page_token": "at most 200", "page_size": "between 0 and 200, got 1000"}},
		{"GetTimeline with a bad date", func() error {
			_, err := s.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: "Lutfur Rahman", Filter: &pb.RelationFilter{AsOf: big}})
			return err
		}, map[string]string{"filter.as_of": "is not a date"}},
		{"GetSource with a megabyte name", func() error {
			_, err := s.GetSource(ctx, &pb.GetSourceRequest{Name: "sources/" + big})
			return err
		}, map[string]string{"name": "is not a source name"}},
		{"GetSource of an entity's name, a big page and a foreign token", func() error {
			_, err := s.GetSource(ctx, &pb.GetSourceRequest{Name: "actors/lutfur-rahman", PageSize: 501, PageToken: "garbage"})
			return err
		}, map[string]string{"name": "is not a source name", "page_size": "between 0 and 500, got 501", "page_token": "not a page token"}},
		{"ListSources with a megabyte outlet and an unknown kind", func() error {
			_, err := s.ListSources(ctx, &pb.ListSourcesRequest{Outlet: big, Kind: pb.SourceKind(42)})
			return err
		}, map[string]string{"outlet": "1048576 bytes; at most 200", "kind": "is not a source kind"}},
		{"FindConnections with a million entities and bad caps", func() error {
			_, err := s.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: many(1_000_000, "Lutfur Rahman"), MaxShared: 101, MaxDepth: 9})
			return err
		}, map[string]string{"entities": "1000000 items; at most 10", "max_shared": "between 1 and 100, got 101", "max_depth": "between 1 and 8, got 9"}},
		{"FindConnections with one entity", func() error {
			_, err := s.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{"Lutfur Rahman"}})
			return err
		}, map[string]string{"entities": "1 given; at least 2"}},
		{"FindConnections with megabyte and empty names and a bad filter", func() error {
			_, err := s.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: []string{big, " ", "Lutfur Rahman"}, Filter: manyStatuses})
			return err
		}, map[string]string{"entities[0]": "1048576 bytes; at most 200", "entities[1]": "required", "filter.statuses": "at most 8"}},
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
			got := map[string]string{}
			for _, v := range fieldViolations(st) {
				got[v.GetField()] += v.GetDescription() + "; "
			}
			for field, says := range tt.want {
				if !strings.Contains(got[field], says) {
					t.Errorf("no violation of %s saying %q: %v", field, says, got)
				}
			}
		})
	}
}

// TestUnknownSourceIsNotFound: a well-formed name of no source is NOT_FOUND with its reason.
func TestUnknownSourceIsNotFound(t *testing.T) {
	t.Parallel()
	_, err := newTestServer().GetSource(context.Background(), &pb.GetSourceRequest{Name: "sources/nothing-here"})
	st := status.Convert(err)
	if st.Code() != codes.NotFound {
		t.Fatalf("got %v, want NOT_FOUND", err)
	}
	reason := ""
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	if reason != "SOURCE_NOT_FOUND" {
		t.Errorf("the reason is %q, want SOURCE_NOT_FOUND", reason)
	}
}
