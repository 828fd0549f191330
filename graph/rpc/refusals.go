package rpc

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
)

// RefusalHook is told of every call refused before its handler ran, by Auth (no credential, a bad one,
// a role too low, a principal over its rate) or by a Limiter (no turn for the method): the method's full
// name (/service/Method) and why, as the refusal's google.rpc.ErrorInfo reason says (RATE_LIMITED,
// TOO_MANY_REQUESTS, API_KEY_MISSING, ...), or the status code's canonical name (DEADLINE_EXCEEDED) when
// it names no reason. It is called on the call's goroutine, with the call's context, and must not block.
type RefusalHook func(ctx context.Context, method, reason string)

// refusalReason is why a call was refused: the reason of the domain error, which becomes the ErrorInfo
// reason, else the canonical name of the status code it became.
func refusalReason(err, st error) string {
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Reason != "" {
		return ge.Reason
	}
	return code.Code(status.Code(st)).String()
}
