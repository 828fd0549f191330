package observe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// RequestIDHeader is the metadata (and, through the explorer, HTTP) header that carries a call's request
// id, both ways.
const RequestIDHeader = "x-request-id"

// MaxRequestIDLength bounds a request id a caller gives.
const MaxRequestIDLength = 64

type requestIDKey struct{}

// WithRequestID returns ctx carrying a request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the request id ctx carries, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestIDOf is the id of an incoming call: the caller's x-request-id when it gives a sane one (see
// saneRequestID), else a new one.
func requestIDOf(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(RequestIDHeader); len(v) > 0 && saneRequestID(v[0]) {
		return v[0]
	}
	return newRequestID()
}

// saneRequestID reports whether a caller's request id may go into logs as it is: 1 to 64 printable ASCII
// characters, no spaces.
func saneRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// newRequestID is 96 random bits, in hex.
func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// UnaryRequestID is the server interceptor that gives every unary call a request id: the caller's
// x-request-id when sane, else a new one. The id goes back in the response header x-request-id and into
// the context (RequestIDFrom), where LogHandler finds it. It goes first in the chain, so that every
// interceptor after it (refusals included) logs with the id.
func UnaryRequestID() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		id := requestIDOf(ctx)
		grpc.SetHeader(ctx, metadata.Pairs(RequestIDHeader, id))
		return handler(WithRequestID(ctx, id), req)
	}
}

// StreamRequestID is UnaryRequestID for streaming calls.
func StreamRequestID() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		id := requestIDOf(ss.Context())
		ss.SetHeader(metadata.Pairs(RequestIDHeader, id))
		return handler(srv, &contextStream{ServerStream: ss, ctx: WithRequestID(ss.Context(), id)})
	}
}

type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }

// LogHandler wraps h so that every record logged with a context (log.InfoContext and the like) carries
// the context's request id as request_id and, when a span is recording, its trace id as trace_id. Records
// logged without one are h's as they were. Attributes added after a WithGroup land in that group.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	id := RequestIDFrom(ctx)
	span := trace.SpanFromContext(ctx)
	recording := span.IsRecording()
	if id == "" && !recording {
		return h.Handler.Handle(ctx, r)
	}
	r = r.Clone()
	if id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if recording {
		r.AddAttrs(slog.String("trace_id", span.SpanContext().TraceID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler { return logHandler{h.Handler.WithGroup(name)} }
