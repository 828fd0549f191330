package observe

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// collector is an OTLP/gRPC trace collector that keeps the names of the spans it receives, and the
// service.name they came from.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []string // service.name/span name
}

func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, service+"/"+s.GetName())
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// TestTracingSendsToACollectorAndFlushesOnShutdown: with an endpoint on loopback (plaintext), spans go to
// the collector as service polgraph, in batches, and Shutdown sends what is still buffered.
func TestTracingSendsToACollectorAndFlushesOnShutdown(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, c)
	go srv.Serve(lis)
	defer srv.Stop()

	for _, endpoint := range []string{lis.Addr().String(), "http://" + lis.Addr().String()} {
		c.mu.Lock()
		c.spans = nil
		c.mu.Unlock()
		tracing, err := StartTracing(context.Background(), endpoint)
		if err != nil {
			t.Fatal(err)
		}
		if !tracing.On() {
			t.Fatalf("%s: tracing is off", endpoint)
		}
		_, span := tracing.Tracer().Start(context.Background(), "work")
		span.End()
		if err := tracing.Shutdown(context.Background()); err != nil {
			t.Fatalf("%s: %v", endpoint, err)
		}
		c.mu.Lock()
		got := strings.Join(c.spans, " ")
		c.mu.Unlock()
		if got != "polgraph/work" {
			t.Errorf("%s: the collector received %q, want polgraph/work", endpoint, got)
		}
	}
}

func TestTracingIsOffUnlessAsked(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tracing, err := StartTracing(context.Background(), "")
	if err != nil || tracing.On() || tracing.ServerOptions() != nil || tracing.DialOptions() != nil {
		t.Errorf("without an endpoint: on %v, %v", tracing.On(), err)
	}
	_, span := tracing.Tracer().Start(context.Background(), "work")
	if span.IsRecording() {
		t.Error("a span records with tracing off")
	}
	var none *Tracing
	if none.On() || none.Shutdown(context.Background()) != nil {
		t.Error("a nil Tracing is not off")
	}
}

func TestCheckOTLPEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint string
		ok       bool
	}{
		{"localhost:4317", true},
		{"collector.internal:4317", true},
		{"[::1]:4317", true},
		{"http://localhost:4317", true},
		{"https://otel.example.org", true},
		{"collector", false},
		{"http://", false},
		{"ftp://collector:21", false},
		{"", false},
	} {
		if err := CheckOTLPEndpoint(tc.endpoint); (err == nil) != tc.ok {
			t.Errorf("CheckOTLPEndpoint(%q) = %v; want ok %v", tc.endpoint, err, tc.ok)
		}
	}
}
