// Package httpapi serves polgraph to browsers over HTTP: the graph explorer's page, the gRPC services in
// the Connect protocol and gRPC-Web (transcoded onto the very *grpc.Server that gRPC clients reach), and
// /healthz — all behind a guard that keeps other web pages and hostile requests out (Guard).
package httpapi

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/web"
)

// Handler serves, over HTTP/1.1 and HTTP/2, behind Guard(opts):
//   - the graph explorer's page at /;
//   - every service registered on srv but server reflection (polgraph.v1's services, grpc.health.v1.Health)
//     in the Connect protocol and gRPC-Web, which Vanguard transcodes into calls on srv itself, so browsers
//     reach the very handlers, interceptors (credentials and roles among them) and errors that gRPC clients
//     do; a body that is not the method's request in JSON answers INVALID_ARGUMENT (400), not an internal
//     error; a gzipped message that inflates past MaxBody answers RESOURCE_EXHAUSTED, and is inflated no
//     further (boundedGzip);
//   - GET /healthz: 200 while hs reports polgraph.v1.GraphService SERVING, 503 otherwise (the database does
//     not answer, or the server is shutting down), as JSON: {"status": "SERVING"}.
//
// It must be called after every service is registered on srv.
func Handler(srv *grpc.Server, hs *health.Server, opts Options) (http.Handler, error) {
	api, err := vanguardgrpc.NewTranscoder(srv, vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec {
		return requestJSON{vanguard.NewJSONCodec(res)}
	}), vanguard.WithCompression("gzip", func() connect.Compressor { return gzip.NewWriter(io.Discard) }, newBoundedGzip(opts.maxBody(), opts.OnRefused)),
		// srv is sent every message uncompressed: every compressed one is inflated here, bounded.
		vanguard.WithDefaultServiceOptions(vanguard.WithNoTargetCompression()))
	if err != nil {
		return nil, fmt.Errorf("the explorer's API: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.Assets())
	for svc := range srv.GetServiceInfo() {
		if !strings.HasPrefix(svc, "grpc.reflection.") {
			mux.Handle("/"+svc+"/", api)
		}
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		st := healthpb.HealthCheckResponse_NOT_SERVING
		resp, err := hs.Check(r.Context(), &healthpb.HealthCheckRequest{Service: pb.GraphService_ServiceDesc.ServiceName})
		if err == nil {
			st = resp.GetStatus()
		}
		body := map[string]any{"status": st.String()}
		if opts.HealthDetail != nil {
			for k, v := range opts.HealthDetail() {
				body[k] = v
			}
		}
		code := http.StatusOK
		if st != healthpb.HealthCheckResponse_SERVING {
			code = http.StatusServiceUnavailable
			body["message"] = "polgraph is up but cannot serve: its database does not answer, or it is shutting down"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(body)
	})
	return Guard(mux, opts), nil
}

// requestJSON is Vanguard's JSON codec, except that a body it cannot read as the method's request is the
// client's mistake (INVALID_ARGUMENT, HTTP 400), not the server's (Vanguard says UNKNOWN, HTTP 500).
type requestJSON struct{ *vanguard.JSONCodec }

func (c requestJSON) Unmarshal(data []byte, msg proto.Message) error {
	if err := c.JSONCodec.Unmarshal(data, msg); err != nil {
		return connect.NewError(connect.CodeInvalidArgument,
			fmt.Errorf("the request body is not a %s in JSON: %v", msg.ProtoReflect().Descriptor().Name(), err))
	}
	return nil
}
