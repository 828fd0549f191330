package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/observe"
)

// scrape reads the metrics a watching serves at /metrics, as Prometheus would.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return families
}

// series finds the series of a family whose labels include these (name, value, name, value, ...); nil
// when there is none.
func series(families map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := families[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return m
	}
	return nil
}

// TestMetricsTracesAndRequestIDs serves the default graph as `polgraph serve --metrics 127.0.0.1:0` does,
// from a connection to the test Dgraph opened with the watching's dial options, traced into memory; loads
// the default dataset again through it; makes calls that succeed, are refused and are invalid, over gRPC
// and the explorer's HTTP API, and a Load stream; then scrapes /metrics and reads the spans and the log.
func TestMetricsTracesAndRequestIDs(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs lineWriter
	log := slog.New(observe.LogHandler(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	cfg := defaultConfig()
	cfg.Metrics = "127.0.0.1:0"
	watch, err := cfg.startWatching(ctx, log)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.stop()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	watch.tracing = observe.TracingTo(tp)

	dc := testDgraph.Service
	dc.DialOptions = watch.dialOptions()
	own, err := openStore(ctx, dc, log)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	ds, err := readDatasetFiles([]string{defaultDataset})
	if err != nil {
		t.Fatal(err)
	}
	if err := loadDataset(ctx, own, ds, "load", cfg.Batch, watch, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	webLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	services := make(chan *memgraph.Topology, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, lis, webLis, onDgraph(own), cfg, log, io.Discard, watchedBy(watch), withTopology(func(t *memgraph.Topology) { services <- t }))
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	svc := <-services
	for deadline := time.Now().Add(30 * time.Second); !svc.Ready(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the in-memory graph was not filled in 30 s")
		}
	}
	conn := dialPlain(t, lis.Addr().String())
	gs, ws := pb.NewGraphServiceClient(conn), pb.NewWriteServiceClient(conn)
	withID := func(id string) context.Context {
		return metadata.AppendToOutgoingContext(ctx, observe.RequestIDHeader, id)
	}

	// One call that succeeds, one refused (no key for a write), one invalid; each with a request id.
	var header metadata.MD
	if _, err := gs.GetEntity(withID("test-ok"), &pb.GetEntityRequest{Name: "actors/lutfur-rahman"}, grpc.Header(&header)); err != nil {
		t.Fatal(err)
	}
	if got := header.Get(observe.RequestIDHeader); len(got) != 1 || got[0] != "test-ok" {
		t.Errorf("the response header %s is %q, want the id sent", observe.RequestIDHeader, got)
	}
	_, err = ws.UpsertEntities(withID("test-refused"), &pb.UpsertEntitiesRequest{})
	wantCode(t, err, codes.Unauthenticated)
	_, err = gs.FindPaths(withID("test-invalid"), &pb.FindPathsRequest{From: "actors/lutfur-rahman"})
	wantCode(t, err, codes.InvalidArgument)
	// The explorer's API reaches the same server, interceptors and all.
	req, _ := http.NewRequest(http.MethodPost, "http://"+webLis.Addr().String()+"/polgraph.v1.GraphService/GetEntity",
		strings.NewReader(`{"name": "actors/lutfur-rahman"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("X-Request-Id", "test-http")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") != "test-http" {
		t.Errorf("the explorer's API answered %s with X-Request-Id %q; want 200 OK and the id sent", resp.Status, resp.Header.Get("X-Request-Id"))
	}

	// A Load through the WriteService, a stream, with an editor's key.
	w := newWriter(t, "editor")
	w.w, w.ctx = ws, withKey(withID("test-load"), w.key)
	lines, loaded := loadFile(w, 5)
	if _, err := sendLoadStream(w.ctx, w, "watch.jsonl", "", lines, 0); err != nil {
		t.Fatal(err)
	}

	t.Run("metrics", func(t *testing.T) {
		families := scrape(t, watch.addr)
		const rpc, dgraph = "polgraph_rpc_duration_seconds", "polgraph_dgraph_call_duration_seconds"
		for _, c := range []struct {
			method, code string
			atLeast      uint64
		}{
			{"/polgraph.v1.GraphService/GetEntity", "OK", 2}, // over gRPC and over HTTP
			{"/polgraph.v1.WriteService/UpsertEntities", "Unauthenticated", 1},
			{"/polgraph.v1.GraphService/FindPaths", "InvalidArgument", 1},
			{"/polgraph.v1.WriteService/Load", "OK", 1},
		} {
			if n := series(families, rpc, "method", c.method, "code", c.code).GetHistogram().GetSampleCount(); n < c.atLeast {
				t.Errorf("%s{method=%q,code=%q} counts %d calls, want at least %d", rpc, c.method, c.code, n, c.atLeast)
			}
		}
		// Dgraph's API writes through Query too (a request with mutations); the store logs in as polgraph's
		// user of the test Dgraph.
		for _, op := range []string{"Query", "Login"} {
			if n := series(families, dgraph, "op", op, "outcome", "ok").GetHistogram().GetSampleCount(); n == 0 {
				t.Errorf("%s{op=%q,outcome=\"ok\"} has no observations; have %v", dgraph, op, families[dgraph].GetMetric())
			}
		}
		refused := series(families, "polgraph_refusals_total", "method", "/polgraph.v1.WriteService/UpsertEntities", "reason", "API_KEY_MISSING")
		if refused.GetCounter().GetValue() != 1 {
			t.Errorf("polgraph_refusals_total for the anonymous write: %v, want 1 with reason API_KEY_MISSING; have %v",
				refused.GetCounter().GetValue(), families["polgraph_refusals_total"].GetMetric())
		}
		gauge := func(name string) float64 {
			m := series(families, name)
			if m == nil {
				t.Errorf("no %s", name)
			}
			return m.GetGauge().GetValue()
		}
		if v := gauge("polgraph_database_up"); v != 1 {
			t.Errorf("polgraph_database_up = %v, want 1", v)
		}
		if v := gauge("polgraph_graph_version"); v < 1 {
			t.Errorf("polgraph_graph_version = %v after a load, want at least 1", v)
		}
		if v := gauge("polgraph_graph_version_lag"); v < 0 {
			t.Errorf("polgraph_graph_version_lag = %v, want 0 or more", v)
		}
		if v := gauge("polgraph_graph_fill_seconds"); v <= 0 {
			t.Errorf("polgraph_graph_fill_seconds = %v, want the time the fill took", v)
		}
		if v := gauge("polgraph_load_progress_ratio"); v != 1 {
			t.Errorf("polgraph_load_progress_ratio = %v after the load, want 1", v)
		}
		if v, want := series(families, "polgraph_load_relations_total").GetCounter().GetValue(), len(ds.Relations)+loaded.Relations; v != float64(want) {
			t.Errorf("polgraph_load_relations_total = %v, want the dataset's %d relations and the Load's %d", v, len(ds.Relations), loaded.Relations)
		}
		for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
			if families[name] == nil {
				t.Errorf("no %s: the Go and process collectors are missing", name)
			}
		}
	})

	t.Run("traces", func(t *testing.T) {
		all := spans.GetSpans()
		byID := map[trace.SpanID]tracetest.SpanStub{}
		for _, s := range all {
			byID[s.SpanContext.SpanID()] = s
		}
		// The Dgraph calls a span led to, by the span's name.
		children := map[string][]string{}
		for _, s := range all {
			if s.SpanKind == trace.SpanKindClient {
				if p, ok := byID[s.Parent.SpanID()]; ok {
					children[p.Name] = append(children[p.Name], s.Name)
				}
			}
		}
		for _, parent := range []string{"polgraph.v1.GraphService/GetEntity", "polgraph load", "polgraph fill in-memory graph"} {
			if !strings.Contains(strings.Join(children[parent], " "), "api.Dgraph/Query") {
				t.Errorf("%s led to no traced Dgraph query; its client spans: %v", parent, children[parent])
			}
		}
		for _, s := range all {
			if s.SpanKind == trace.SpanKindClient && !s.Parent.IsValid() {
				t.Errorf("a Dgraph call traced on its own, with no span above it: %s", s.Name)
			}
		}
	})

	t.Run("logs carry the request id", func(t *testing.T) {
		want := map[string]string{ // request id → a message logged with it
			"test-ok":      "call",
			"test-refused": "request refused",
			"test-invalid": "request refused",
			"test-http":    "call",
			"test-load":    "call",
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(logs.String(), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(line), &r) != nil {
				continue
			}
			id, _ := r["request_id"].(string)
			if msg, ok := want[id]; ok && r["msg"] == msg {
				seen[id] = true
				if _, traced := r["trace_id"]; !traced {
					t.Errorf("a record of a traced call has no trace_id: %s", line)
				}
			}
		}
		for id, msg := range want {
			if !seen[id] {
				t.Errorf("no %q record with request_id %s", msg, id)
			}
		}
	})
}

// TestProfilesOnlyWithPprof: the metrics listener serves Go's profiles only when --pprof says so.
func TestProfilesOnlyWithPprof(t *testing.T) {
	for _, tc := range []struct {
		pprof bool
		code  int
	}{{false, http.StatusNotFound}, {true, http.StatusOK}} {
		cfg := defaultConfig()
		cfg.Metrics, cfg.PProf = "127.0.0.1:0", tc.pprof
		w, err := cfg.startWatching(context.Background(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get("http://" + w.addr + "/debug/pprof/goroutine?debug=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		w.stop()
		if resp.StatusCode != tc.code || (tc.pprof && !strings.Contains(string(body), "goroutine profile:")) {
			t.Errorf("--pprof=%v: /debug/pprof/goroutine answered %s, want %d", tc.pprof, resp.Status, tc.code)
		}
	}
}

// TestWatchingFlags reads the watching flags from the command line and the environment, and refuses
// settings that cannot work before anything starts.
func TestWatchingFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want Config // Metrics, PProf and OTLPEndpoint only
		err  string // in the error, when one is wanted
	}{
		{name: "off by default"},
		{name: "flags", args: []string{"--metrics", "127.0.0.1:9464", "--pprof", "--otlp-endpoint", "localhost:4317"},
			want: Config{Metrics: "127.0.0.1:9464", PProf: true, OTLPEndpoint: "localhost:4317"}},
		{name: "environment", env: map[string]string{"POLGRAPH_METRICS": ":9464", "POLGRAPH_PPROF": "true", "POLGRAPH_OTLP_ENDPOINT": "https://otel.example:4317"},
			want: Config{Metrics: ":9464", PProf: true, OTLPEndpoint: "https://otel.example:4317"}},
		{name: "a flag over the environment", args: []string{"--metrics", "127.0.0.1:1"}, env: map[string]string{"POLGRAPH_METRICS": ":9464"},
			want: Config{Metrics: "127.0.0.1:1"}},
		{name: "pprof without metrics", args: []string{"--pprof"}, err: "--pprof serves profiles on the --metrics listener"},
		{name: "metrics without a port", args: []string{"--metrics", "localhost"}, err: "--metrics \"localhost\": want HOST:PORT"},
		{name: "an OTLP endpoint without a port", args: []string{"--otlp-endpoint", "collector"}, err: "--otlp-endpoint"},
		{name: "an OTLP URL without a host", args: []string{"--otlp-endpoint", "http://"}, err: "no host"},
		{name: "POLGRAPH_PPROF not a boolean", env: map[string]string{"POLGRAPH_PPROF": "sometimes"}, err: "$POLGRAPH_PPROF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"POLGRAPH_METRICS", "POLGRAPH_PPROF", "POLGRAPH_OTLP_ENDPOINT"} {
				t.Setenv(k, "") // restored when the test ends
				if v, ok := tc.env[k]; ok {
					os.Setenv(k, v)
				} else {
					os.Unsetenv(k)
				}
			}
			cfg := defaultConfig()
			fs := cfg.flags("serve", io.Discard, "watch")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := cfg.checkWatching()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("got %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := Config{Metrics: cfg.Metrics, PProf: cfg.PProf, OTLPEndpoint: cfg.OTLPEndpoint}
			if got.Metrics != tc.want.Metrics || got.PProf != tc.want.PProf || got.OTLPEndpoint != tc.want.OTLPEndpoint {
				t.Errorf("got --metrics %q --pprof %v --otlp-endpoint %q; want %q %v %q", got.Metrics, got.PProf, got.OTLPEndpoint,
					tc.want.Metrics, tc.want.PProf, tc.want.OTLPEndpoint)
			}
		})
	}
}
