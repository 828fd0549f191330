package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"

	"connectrpc.com/vanguard/vanguardgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/web"
)

// listenExplorer opens the graph explorer's HTTP listener; it returns nil when addr is empty (the explorer
// is turned off).
func listenExplorer(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the graph explorer: %w (set --http or POLGRAPH_HTTP to another address, or to \"\" to turn the explorer off)", addr, err)
	}
	return lis, nil
}

// explorerHandler serves, over HTTP/1.1 and HTTP/2:
//   - the graph explorer's page at /;
//   - the services registered on srv (polgraph.v1.GraphService, grpc.health.v1.Health) in the Connect
//     protocol and gRPC-Web, which Vanguard transcodes into calls on srv itself, so browsers reach the very
//     handlers, interceptors and errors that gRPC clients do;
//   - GET /healthz: 200 while hs reports polgraph.v1.GraphService SERVING, 503 otherwise (the database does
//     not answer, or the server is shutting down), as JSON: {"status": "SERVING"}.
//
// It must be called after every service is registered on srv.
func explorerHandler(srv *grpc.Server, hs *health.Server) (http.Handler, error) {
	api, err := vanguardgrpc.NewTranscoder(srv)
	if err != nil {
		return nil, fmt.Errorf("the explorer's API: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.Assets())
	mux.Handle("/"+pb.GraphService_ServiceDesc.ServiceName+"/", api)
	mux.Handle("/"+healthpb.Health_ServiceDesc.ServiceName+"/", api)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		st := healthpb.HealthCheckResponse_NOT_SERVING
		resp, err := hs.Check(r.Context(), &healthpb.HealthCheckRequest{Service: pb.GraphService_ServiceDesc.ServiceName})
		if err == nil {
			st = resp.GetStatus()
		}
		body := map[string]string{"status": st.String()}
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
	return mux, nil
}

// explorerURL is the address to print for a listener: loopback in place of an unspecified host.
func explorerURL(lis net.Listener) string {
	host, port, err := net.SplitHostPort(lis.Addr().String())
	if err != nil {
		return "http://" + lis.Addr().String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
