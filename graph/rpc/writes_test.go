package rpc

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/intake"
)

// TestWritesRefuseHiddenNamesAndNonFiniteConfidences: a name that hides a character and a confidence
// that is not a number are refused as field violations that say what is wrong, however protojson writes
// them on their way to the format's checks.
func TestWritesRefuseHiddenNamesAndNonFiniteConfidences(t *testing.T) {
	t.Parallel()
	s := NewWriteServer(&intake.Service{Store: emptyWriteStore{}}, func(context.Context) (string, []string) { return "test", nil }, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	relation := func(conf float64) func() error {
		return func() error {
			_, err := s.UpsertRelations(ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{{Type: "ENDORSES", From: "actors/a", To: "actors/b",
				Claims: []*pb.ClaimRecord{{Source: "sources/a", Excerpt: "A backs B.", Confidence: &conf, Status: "REPORTED"}}}}})
			return err
		}
	}
	entity := func(e *pb.EntityRecord) func() error {
		return func() error {
			_, err := s.UpsertEntities(ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{e}})
			return err
		}
	}
	for _, tc := range []struct {
		name       string
		call       func() error
		field, say string
	}{
		{"NaN", relation(math.NaN()), "claims[0].confidence", "NaN is not a confidence: want a number from 0 to 1"},
		{"infinity", relation(math.Inf(1)), "claims[0].confidence", "Infinity is not a confidence: want a number from 0 to 1"},
		{"minus infinity", relation(math.Inf(-1)), "claims[0].confidence", "-Infinity is not a confidence: want a number from 0 to 1"},
		{"zero width space", entity(&pb.EntityRecord{Name: "actors/a", DisplayName: "Keir\u200b Starmer"}), "display_name",
			"contains the invisible character U+200B (zero width space) at byte 5"},
		{"right-to-left override", entity(&pb.EntityRecord{Name: "actors/a", DisplayName: "A", Aliases: []string{"\u202eremratS"}}), "aliases[0]",
			"contains the invisible character U+202E (right-to-left override) at byte 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.call()
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Fatalf("got %v; want INVALID_ARGUMENT", err)
			}
			var got []string
			for _, v := range fieldViolations(st) {
				if strings.HasSuffix(v.GetField(), tc.field) && strings.Contains(v.GetDescription(), tc.say) {
					return
				}
				got = append(got, v.GetField()+": "+v.GetDescription())
			}
			t.Errorf("no violation of %s saying %q; got:\n%s", tc.field, tc.say, strings.Join(got, "\n"))
		})
	}
}
