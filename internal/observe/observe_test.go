package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/emptypb"
)

// syncBuffer is a log destination the server's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// records are the JSON log records written so far.
func (s *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		out = append(out, r)
	}
	return out
}

// echoServer serves /test.Echo/Ping (unary) and /test.Echo/Pings (a client stream), each of which logs
// "handled" with its context, behind the request-id interceptors and the given server options, over an
// in-memory connection dialled with the given options.
func echoServer(t *testing.T, log *slog.Logger, opts []grpc.ServerOption, dial ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	sd := &grpc.ServiceDesc{ServiceName: "test.Echo", HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Ping",
			Handler: func(_ any, ctx context.Context, dec func(any) error, intercept grpc.UnaryServerInterceptor) (any, error) {
				in := new(emptypb.Empty)
				if err := dec(in); err != nil {
					return nil, err
				}
				h := func(ctx context.Context, _ any) (any, error) {
					log.InfoContext(ctx, "handled")
					return &emptypb.Empty{}, nil
				}
				return intercept(ctx, in, &grpc.UnaryServerInfo{FullMethod: "/test.Echo/Ping"}, h)
			}}},
		Streams: []grpc.StreamDesc{{StreamName: "Pings", ClientStreams: true,
			Handler: func(_ any, ss grpc.ServerStream) error {
				for ss.RecvMsg(new(emptypb.Empty)) == nil {
				}
				log.InfoContext(ss.Context(), "handled")
				return ss.SendMsg(&emptypb.Empty{})
			}}},
	}
	opts = append(opts, grpc.ChainUnaryInterceptor(UnaryRequestID()), grpc.ChainStreamInterceptor(StreamRequestID()))
	srv := grpc.NewServer(opts...)
	srv.RegisterService(sd, struct{}{})
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn", append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })}, dial...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil)))
	conn := echoServer(t, log, nil)
	long := strings.Repeat("x", MaxRequestIDLength)
	for _, tc := range []struct {
		name, given string
		kept        bool
	}{
		{"a sane id is kept", "req-42/retry.1", true},
		{"an id of 64 characters is kept", long, true},
		{"none given", "", false},
		{"too long", long + "x", false},
		{"a space", "two words", false},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += ", stream"
			}
			t.Run(name, func(t *testing.T) {
				buf.reset()
				ctx := context.Background()
				if tc.given != "" {
					ctx = metadata.AppendToOutgoingContext(ctx, RequestIDHeader, tc.given)
				}
				var header metadata.MD
				if stream {
					cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true}, "/test.Echo/Pings")
					if err != nil {
						t.Fatal(err)
					}
					cs.CloseSend()
					if err := cs.RecvMsg(new(emptypb.Empty)); err != nil {
						t.Fatal(err)
					}
					if header, err = cs.Header(); err != nil {
						t.Fatal(err)
					}
				} else if err := conn.Invoke(ctx, "/test.Echo/Ping", &emptypb.Empty{}, &emptypb.Empty{}, grpc.Header(&header)); err != nil {
					t.Fatal(err)
				}
				got := header.Get(RequestIDHeader)
				if len(got) != 1 {
					t.Fatalf("response header %s: %q, want one id", RequestIDHeader, got)
				}
				id := got[0]
				if tc.kept && id != tc.given {
					t.Errorf("the id given, %q, came back as %q", tc.given, id)
				}
				if !tc.kept && (id == tc.given || len(id) != 24 || !saneRequestID(id)) {
					t.Errorf("given %q, the id is %q; want a new one of 24 hex digits", tc.given, id)
				}
				recs := buf.records(t)
				if len(recs) != 1 || recs[0]["msg"] != "handled" || recs[0]["request_id"] != id {
					t.Errorf("logged %v; want the handler's record with request_id %q", recs, id)
				}
			})
		}
	}
}

// TestRequestIDRefusesWhatClientsOughtNotSend: ids that grpc-go will not send (but another client, or a
// browser through the explorer, might) are replaced too, so that no log line can be forged with one.
func TestRequestIDRefusesWhatClientsOughtNotSend(t *testing.T) {
	t.Parallel()
	intercept := UnaryRequestID()
	for _, given := range []string{"forged\nlevel=ERROR msg=boo", "tab\there", "café", "del\x7f"} {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(RequestIDHeader, given))
		var got string
		intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/test.Echo/Ping"}, func(ctx context.Context, _ any) (any, error) {
			got = RequestIDFrom(ctx)
			return nil, nil
		})
		if got == given || !saneRequestID(got) {
			t.Errorf("given %q, the call's id is %q; want a new one", given, got)
		}
	}
}

func TestLogHandlerAddsTraceIDOfRecordingSpans(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("component", "test")
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("test").Start(WithRequestID(context.Background(), "abc"), "op")
	log.InfoContext(ctx, "in a span")
	span.End()
	log.Info("without a context")
	notRecording := trace.ContextWithSpanContext(context.Background(), span.SpanContext())
	log.InfoContext(notRecording, "in a span that is not recording")

	recs := buf.records(t)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	if recs[0]["request_id"] != "abc" || recs[0]["trace_id"] != span.SpanContext().TraceID().String() || recs[0]["component"] != "test" {
		t.Errorf("in a span: %v; want request_id abc, the trace id and the logger's own attributes", recs[0])
	}
	for _, r := range recs[1:] {
		if _, ok := r["request_id"]; ok {
			t.Errorf("%v: a request id out of nowhere", r)
		}
		if _, ok := r["trace_id"]; ok {
			t.Errorf("%v: a trace id without a recording span", r)
		}
	}
}

func TestMuxServesProfilesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	for _, tc := range []struct {
		name      string
		profiling bool
		path      string
		code      int
		says      string
	}{
		{"metrics", false, "/metrics", http.StatusOK, "go_goroutines"},
		{"metrics, profiling", true, "/metrics", http.StatusOK, "polgraph_database_up"},
		{"no profiles by default", false, "/debug/pprof/goroutine?debug=1", http.StatusNotFound, ""},
		{"no profile index by default", false, "/debug/pprof/", http.StatusNotFound, ""},
		{"goroutines when profiling", true, "/debug/pprof/goroutine?debug=1", http.StatusOK, "goroutine profile:"},
		{"the index when profiling", true, "/debug/pprof/", http.StatusOK, "heap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(Mux(m, tc.profiling))
			defer srv.Close()
			resp, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.says) {
				t.Errorf("GET %s: %d, want %d saying %q; got:\n%.300s", tc.path, resp.StatusCode, tc.code, tc.says, body)
			}
		})
	}
}

func TestLoadProgress(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	steps := []struct {
		stage       string
		done, total int
		relations   float64
		ratio       float64
	}{
		{"sources", 2, 2, 0, 0.2},
		{"entities", 3, 3, 0, 0.5},
		{"relations", 2, 5, 2, 0.7},
		{"relations", 5, 5, 5, 1},
	}
	load := m.StartLoad(10)
	if got := testutil.ToFloat64(m.loadProgress); got != 0 {
		t.Errorf("a load started at %v, want 0", got)
	}
	for _, s := range steps {
		load.Progress(s.stage, s.done, s.total)
		if got := testutil.ToFloat64(m.loadRelations); got != s.relations {
			t.Errorf("after %s %d/%d: %v relations, want %v", s.stage, s.done, s.total, got, s.relations)
		}
		if got := testutil.ToFloat64(m.loadProgress); got != s.ratio {
			t.Errorf("after %s %d/%d: ratio %v, want %v", s.stage, s.done, s.total, got, s.ratio)
		}
	}
	// A second load counts on, and starts its ratio again.
	m.StartLoad(4).Progress("relations", 1, 4)
	if got := testutil.ToFloat64(m.loadRelations); got != 6 {
		t.Errorf("after a second load: %v relations, want 6", got)
	}
	if got := testutil.ToFloat64(m.loadProgress); got != 0.25 {
		t.Errorf("the second load's ratio: %v, want 0.25", got)
	}
	var none *Metrics
	none.StartLoad(3).Progress("relations", 1, 3) // followed by nothing, and no panic
}

func TestDgraphCallsByOpAndOutcome(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	intercept := m.UnaryClient()
	for _, c := range []struct {
		method string
		err    error
	}{
		{"/api.Dgraph/Query", nil},
		{"/api.Dgraph/Query", nil},
		{"/api.Dgraph/Mutate", status.Error(codes.Aborted, "conflict")},
		{"/api.Dgraph/Login", status.Error(codes.Unavailable, "down")},
	} {
		intercept(context.Background(), c.method, nil, nil, nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
			return c.err
		})
	}
	got := map[string]uint64{}
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "polgraph_dgraph_call_duration_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[strings.Join(labels, ",")] = s.GetHistogram().GetSampleCount()
		}
	}
	want := map[string]uint64{"op=Query,outcome=ok": 2, "op=Mutate,outcome=Aborted": 1, "op=Login,outcome=Unavailable": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls to Dgraph by op and outcome (-want +got):\n%s", diff)
	}
}

// TestOnlyCallsWithinASpanAreTraced: a client call made within a span gets a client span, child of it,
// and the server's span is that one's child; a call made on its own (a health check's ping) gets none.
func TestOnlyCallsWithinASpanAreTraced(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	tracing := TracingTo(tp)
	conn := echoServer(t, slog.New(slog.DiscardHandler), tracing.ServerOptions(), tracing.DialOptions()...)
	ping := func(ctx context.Context) {
		if err := conn.Invoke(ctx, "/test.Echo/Ping", &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	ping(context.Background())
	for _, s := range spans.GetSpans() {
		if s.SpanKind == trace.SpanKindClient {
			t.Fatalf("a call made on its own has a client span: %v", s)
		}
	}
	spans.Reset()
	ctx, parent := tracing.Tracer().Start(context.Background(), "work")
	ping(ctx)
	parent.End()
	byKind := map[trace.SpanKind]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		byKind[s.SpanKind] = s
	}
	client, server := byKind[trace.SpanKindClient], byKind[trace.SpanKindServer]
	if len(spans.GetSpans()) != 3 || client.Name != "test.Echo/Ping" || server.Name != "test.Echo/Ping" {
		t.Fatalf("spans %v; want the work's, a client span and a server span of test.Echo/Ping", spans.GetSpans().Snapshots())
	}
	if client.Parent.SpanID() != parent.SpanContext().SpanID() || server.Parent.SpanID() != client.SpanContext.SpanID() ||
		server.SpanContext.TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("the spans are not linked work → client → server: client's parent %v, server's parent %v", client.Parent, server.Parent)
	}
}
