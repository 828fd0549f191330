package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// echo answers 200 with the body it read, so a test can see what passed the guard.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Write(b)
})

func TestGuard(t *testing.T) {
	t.Parallel()
	g := Guard(echo, Options{MaxBody: 100})
	named := Guard(echo, Options{AllowedHosts: []string{"polgraph.example.org"}})
	anyName := Guard(echo, Options{AllowedHosts: []string{"*"}})
	tests := []struct {
		name    string
		h       http.Handler
		method  string
		host    string
		headers map[string]string
		body    string
		chunked bool
		code    int
		says    string
	}{
		{"loopback name", g, "POST", "localhost:8080", nil, "{}", false, 200, "{}"},
		{"IP address", g, "POST", "127.0.0.1:8080", nil, "{}", false, 200, "{}"},
		{"IPv6 address", g, "POST", "[::1]:8080", nil, "{}", false, 200, "{}"},
		{"a name made to resolve to loopback (DNS rebinding)", g, "POST", "attacker.example:8080", nil, "{}", false, 403, `host name \"attacker.example\"`},
		{"the same, for the page", g, "GET", "attacker.example", nil, "", false, 403, "does not answer"},
		{"a configured name", named, "GET", "polgraph.example.org", nil, "", false, 200, ""},
		{"localhost when other names are configured", named, "GET", "localhost", nil, "", false, 403, "does not answer"},
		{"any name", anyName, "GET", "whatever.example", nil, "", false, 200, ""},
		{"same origin", g, "POST", "127.0.0.1:8080", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, "{}", false, 200, "{}"},
		{"another origin", g, "POST", "127.0.0.1:8080", map[string]string{"Origin": "http://attacker.example"}, "{}", false, 403, "another origin"},
		{"another port of the same host", g, "POST", "127.0.0.1:8080", map[string]string{"Origin": "http://127.0.0.1:9999"}, "{}", false, 403, "another origin"},
		{"a sandboxed page (Origin null)", g, "POST", "127.0.0.1:8080", map[string]string{"Origin": "null"}, "{}", false, 403, "another origin"},
		{"cross-site without Origin", g, "POST", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site"}, "{}", false, 403, "another origin"},
		{"same-site (another port)", g, "GET", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}, "", false, 403, "another origin"},
		{"a link from another site to the page", g, "GET", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, "", false, 200, ""},
		{"a form posted from another site", g, "POST", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Origin": "http://attacker.example"}, "{}", false, 403, "another origin"},
		{"a body at the limit", g, "POST", "localhost", nil, strings.Repeat("a", 100), false, 200, strings.Repeat("a", 100)},
		{"a body over the limit", g, "POST", "localhost", nil, strings.Repeat("a", 101), false, 413, "101 bytes; at most 100"},
		{"a chunked body over the limit", g, "POST", "localhost", nil, strings.Repeat("a", 1000), true, 413, "over 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(strings.NewReader(tt.body)) // no length: sent chunked
			}
			r := httptest.NewRequest(tt.method, "http://"+tt.host+"/polgraph.v1.GraphService/FindPaths", body)
			if tt.chunked {
				r.ContentLength = -1
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			tt.h.ServeHTTP(w, r)
			if w.Code != tt.code || !strings.Contains(w.Body.String(), tt.says) {
				t.Errorf("%d %s; want %d saying %q", w.Code, w.Body, tt.code, tt.says)
			}
			if w.Code != 200 {
				var e struct{ Code, Message string }
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Code == "" || e.Message == "" {
					t.Errorf("a refusal is not a Connect error: %s", w.Body)
				}
			}
			for _, h := range []string{"X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Content-Security-Policy", "Cross-Origin-Resource-Policy"} {
				if w.Header().Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
		})
	}
}

// TestHandlerAnswersBadJSONWith400: a body that is not the method's request in JSON is the client's
// mistake.
func TestHandlerAnswersBadJSONWith400(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	pb.RegisterGraphServiceServer(srv, pb.UnimplementedGraphServiceServer{})
	h, err := Handler(srv, health.NewServer(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"query": "Lutf`, `{"query": 5}`, `[1,2]`, "\x00\x01"} {
		r := httptest.NewRequest("POST", "http://localhost/polgraph.v1.GraphService/SearchEntities", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Connect-Protocol-Version", "1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 400 || !strings.Contains(w.Body.String(), `"code":"invalid_argument"`) || !strings.Contains(w.Body.String(), "SearchEntitiesRequest") {
			t.Errorf("body %q: %d %s; want 400 invalid_argument naming the request", body, w.Code, w.Body)
		}
	}
}

// TestServerCutsTrickledBodies: a client that sends its body a byte at a time does not hold a connection
// past the read timeout.
func TestServerCutsTrickledBodies(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := Server(Guard(echo, Options{}), Timeouts{ReadHeader: time.Second, Read: time.Second, Write: time.Second, Idle: time.Second}, slog.New(slog.DiscardHandler))
	go srv.Serve(lis)
	defer srv.Shutdown(context.Background())
	conn, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n")
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		br := bufio.NewReader(conn)
		io.Copy(io.Discard, br) // returns when the server closes the connection
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case took := <-closed:
			t.Logf("the server closed the trickling connection after %v", took.Round(10*time.Millisecond))
			return
		case <-tick.C:
			conn.Write([]byte("a"))
		case <-time.After(10 * time.Second):
			t.Fatal("the connection is still open 10 s into a body trickled in with a 1 s read timeout")
		}
	}
}

// searchCounter counts the SearchEntities calls that reach it.
type searchCounter struct {
	pb.UnimplementedGraphServiceServer
	calls atomic.Int64
}

func (s *searchCounter) SearchEntities(context.Context, *pb.SearchEntitiesRequest) (*pb.SearchEntitiesResponse, error) {
	s.calls.Add(1)
	return &pb.SearchEntitiesResponse{}, nil
}

// TestHandlerRefusesDecompressionBombs: a small gzipped body that inflates far past the body limit is
// refused before any handler runs, in every way the HTTP API takes compressed messages, after inflating
// no more than the limit; a small gzipped body is served.
func TestHandlerRefusesDecompressionBombs(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	counter := &searchCounter{}
	pb.RegisterGraphServiceServer(srv, counter)
	const limit = 64 << 10
	h, err := Handler(srv, health.NewServer(), Options{MaxBody: limit})
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	envelope := func(msg []byte) []byte {
		out := []byte{1, 0, 0, 0, 0} // flags: compressed
		binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
		return append(out, msg...)
	}
	// JSON padded with spaces, and a protobuf message, each inflating to 48 MiB: 768 times the limit, in
	// under 64 KiB compressed.
	bombJSON := gz(append(append([]byte(`{"query": "Lutfur"`), bytes.Repeat([]byte(" "), 48<<20)...), '}'))
	m, _ := proto.Marshal(&pb.SearchEntitiesRequest{Query: strings.Repeat("a", 48<<20)})
	bombProto := gz(m)
	m, _ = proto.Marshal(&pb.SearchEntitiesRequest{Query: "Lutfur"})
	smallProto := gz(m)
	connect := map[string]string{"Content-Type": "application/json", "Connect-Protocol-Version": "1", "Content-Encoding": "gzip"}
	grpcWeb := map[string]string{"Content-Type": "application/grpc-web+proto", "Grpc-Encoding": "gzip"}
	tests := []struct {
		name    string
		body    []byte
		headers map[string]string
		served  bool
		says    string
	}{
		{"Connect, Content-Encoding: gzip", bombJSON, connect, false, "inflates to over 65536 bytes"},
		{"Connect, a small body", gz([]byte(`{"query": "Lutfur"}`)), connect, true, `"results"`},
		{"gRPC-Web, a compressed message", envelope(bombProto), grpcWeb, false, ""},
		{"gRPC-Web, a small one", envelope(smallProto), grpcWeb, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.body) > limit {
				t.Fatalf("the body is %d bytes compressed: over the limit itself", len(tt.body))
			}
			r := httptest.NewRequest("POST", "http://localhost/polgraph.v1.GraphService/SearchEntities", bytes.NewReader(tt.body))
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			calls := counter.calls.Load()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			h.ServeHTTP(w, r)
			runtime.ReadMemStats(&after)
			if served := counter.calls.Load() > calls; served != tt.served {
				t.Errorf("the handler ran: %v; want %v (%d %.300s)", served, tt.served, w.Code, w.Body)
			}
			if !strings.Contains(w.Body.String(), tt.says) {
				t.Errorf("%d %.300s; want it to say %q", w.Code, w.Body, tt.says)
			}
			if !tt.served && w.Code == http.StatusOK && w.Header().Get("Grpc-Status") == "0" {
				t.Errorf("a bomb was answered OK")
			}
			// Allocation, not residence: what inflating cost, whatever the collector did meanwhile. The bomb
			// inflates to 48 MiB; bounded, it costs a few times the limit.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("answering allocated %d MiB", alloc>>20)
			}
		})
	}
}
