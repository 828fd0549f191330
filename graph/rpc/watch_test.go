package rpc

import (
	"context"
	"log/slog"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
)

// TestChangeFeedErrorsCarryWhereToResume: the change feed's errors reach the client with their reason and
// the metadata that says where to resume or resync from.
func TestChangeFeedErrorsCarryWhereToResume(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *graph.Error
		code codes.Code
		key  string
	}{
		{&graph.Error{Kind: graph.FailedPrecondition, Reason: graph.ReasonVersionTooOld, Message: "too old",
			Metadata: map[string]string{"oldest_version": "41"}}, codes.FailedPrecondition, "oldest_version"},
		{&graph.Error{Kind: graph.ResourceExhausted, Reason: graph.ReasonWatcherTooSlow, Message: "too slow",
			Metadata: map[string]string{"resume_token": "12:3"}}, codes.ResourceExhausted, "resume_token"},
	} {
		st := status.Convert(toStatus(context.Background(), slog.New(slog.DiscardHandler), "WatchChanges", tc.err))
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
		if st.Code() != tc.code || info == nil || info.GetReason() != tc.err.Reason || info.GetMetadata()[tc.key] != tc.err.Metadata[tc.key] {
			t.Errorf("%s: %v, details %v; want %v with %s=%s", tc.err.Reason, st.Code(), info, tc.code, tc.key, tc.err.Metadata[tc.key])
		}
	}
}
