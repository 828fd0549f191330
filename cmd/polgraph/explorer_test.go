package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// connectCall calls a GraphService method in the Connect protocol with a JSON body, as the explorer does.
func connectCall(t *testing.T, base, method, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/polgraph.v1.GraphService/"+method, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: the answer is not JSON: %v", method, err)
	}
	return resp.StatusCode, out
}

// TestExplorerServesPageAndAPI checks what the explorer's HTTP server answers, without a browser: the page,
// the API in the Connect protocol and in gRPC-Web (the very handlers gRPC clients reach, errors and all),
// and /healthz.
func TestExplorerServesPageAndAPI(t *testing.T) {
	base := "http://" + explorerAddr

	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `src="explorer.js"`) {
		t.Fatalf("GET /: %d\n%s", resp.StatusCode, page)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("GET /: Content-Security-Policy %q", csp)
	}
	for path, want := range map[string]int{"/explorer.js": 200, "/explorer-style.css": 200, "/nothing-here": 404, "/../go.mod": 404} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}

	code, got := connectCall(t, base, "SearchEntities", `{"query": "Lutfor Rahman", "page_size": 1}`)
	results, _ := got["results"].([]any)
	if code != 200 || len(results) != 1 || !strings.Contains(must(json.Marshal(results[0])), `"name":"actors/lutfur-rahman"`) {
		t.Errorf("SearchEntities over Connect: %d %v", code, got)
	}
	code, got = connectCall(t, base, "GetEntity", `{"name": "actors/nobody-at-all"}`)
	if code != 404 || got["code"] != "not_found" || !strings.Contains(must(json.Marshal(got["details"])), "google.rpc.ErrorInfo") {
		t.Errorf("GetEntity of an unknown entity over Connect: %d %v; want 404, not_found, with ErrorInfo", code, got)
	}
	code, got = connectCall(t, base, "FindPaths", `{"from": "Lutfur Rahman", "to": "Keir Starmer", "max_depth": 9}`)
	if code != 400 || got["code"] != "invalid_argument" || !strings.Contains(must(json.Marshal(got["details"])), "google.rpc.BadRequest") {
		t.Errorf("a bad FindPaths over Connect: %d %v; want 400, invalid_argument, with BadRequest", code, got)
	}

	// gRPC-Web: one length-prefixed message in, one message and a trailer frame out.
	msg, _ := proto.Marshal(&pb.GetEntityRequest{Name: "Lutfur Rahman"})
	frame := append([]byte{0, 0, 0, 0, 0}, msg...)
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
	req, _ := http.NewRequest(http.MethodPost, base+"/polgraph.v1.GraphService/GetEntity", bytes.NewReader(frame))
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var entity pb.GetEntityResponse
	if resp.StatusCode != 200 || len(body) < 5 || body[0] != 0 {
		t.Fatalf("GetEntity over gRPC-Web: %d %q", resp.StatusCode, body)
	}
	n := binary.BigEndian.Uint32(body[1:5])
	if err := proto.Unmarshal(body[5:5+n], &entity); err != nil || entity.GetEntity().GetName() != "actors/lutfur-rahman" {
		t.Errorf("GetEntity over gRPC-Web: %v %v", entity.GetEntity(), err)
	}
	if trailer := strings.ToLower(strings.ReplaceAll(string(body[5+n:]), " ", "")); !strings.Contains(trailer, "grpc-status:0\r\n") {
		t.Errorf("gRPC-Web trailer %q; want grpc-status: 0", trailer)
	}

	resp, err = http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	health, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(health), `"SERVING"`) {
		t.Errorf("/healthz: %d %s; want 200 SERVING", resp.StatusCode, health)
	}
}

func must(b []byte, err error) string {
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkExplorerSaysDown expects the explorer's server at base, whose Dgraph at dgraph has stopped, to
// answer /healthz with 503 and Connect calls with unavailable, naming the database's address.
func checkExplorerSaysDown(t *testing.T, base, dgraph string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "NOT_SERVING") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz still says %d %s 15 s after Dgraph stopped", resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, got := connectCall(t, base, "FindPaths", `{"from": "actors/a", "to": "actors/b"}`)
	if code != http.StatusServiceUnavailable || got["code"] != "unavailable" || !strings.Contains(got["message"].(string), dgraph) {
		t.Errorf("FindPaths over Connect with Dgraph down: %d %v; want 503, unavailable, naming %s", code, got, dgraph)
	}
}

// switchProxy forwards TCP connections to a backend until it is switched off, which closes its listener
// and every connection through it; switched on again, it listens on the same address. It stands for the
// explorer's server going away and coming back while the page stays open.
type switchProxy struct {
	addr, backend string

	mu    sync.Mutex
	lis   net.Listener
	conns map[net.Conn]bool
}

func (p *switchProxy) on() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lis != nil {
		return nil
	}
	lis, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.lis, p.addr = lis, lis.Addr().String()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
	return nil
}

func (p *switchProxy) forward(c net.Conn) {
	b, err := net.Dial("tcp", p.backend)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.lis == nil {
		p.mu.Unlock()
		c.Close()
		b.Close()
		return
	}
	p.conns[c], p.conns[b] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, c); done <- struct{}{} }()
	go func() { io.Copy(c, b); done <- struct{}{} }()
	<-done
	c.Close()
	b.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, b)
	p.mu.Unlock()
}

func (p *switchProxy) off() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lis != nil {
		p.lis.Close()
		p.lis = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// browserTest returns node and the web/ folder for a test that drives the explorer in headless Chromium.
// `make test` sets POLGRAPH_REQUIRE_BROWSER, which makes a missing browser or missing node_modules a
// failure; a plain `go test` skips then, saying what is missing.
func browserTest(t *testing.T) (node, web string) {
	t.Helper()
	missing := func(what, fix string) {
		t.Helper()
		if os.Getenv("POLGRAPH_REQUIRE_BROWSER") != "" {
			t.Fatalf("%s; %s", what, fix)
		}
		t.Skipf("%s (%s); `make test` requires it", what, fix)
	}
	if _, err := os.Stat(chromiumPath()); err != nil {
		missing("no Chromium at "+chromiumPath(), "install it: apt-get install -y chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH", "install Node.js 20 or later")
	}
	web, err = filepath.Abs("../../web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "playwright-core")); err != nil {
		missing("web/node_modules is not installed", "run `make web-deps` (npm ci in web/)")
	}
	return node, web
}

func chromiumPath() string {
	if p := os.Getenv("POLGRAPH_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// runBrowserScript runs one of web/e2e's scripts with the environment given, and fails the test if it does.
func runBrowserScript(t *testing.T, script string, env ...string) {
	t.Helper()
	node, web := browserTest(t)
	out, err := filepath.Abs("../../test-output/explorer")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "POLGRAPH_TEST_OUTPUT="+out, "POLGRAPH_CHROMIUM="+chromiumPath())
	cmd.Env = append(cmd.Env, env...)
	output, err := cmd.CombinedOutput()
	t.Logf("web/%s (screenshots in %s):\n%s", script, out, output)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}

// TestExplorerInBrowser runs web/e2e/explorer.mjs: headless Chromium, driven by playwright-core, uses the
// explorer against the service under test, through a proxy it can switch off to see the outage banner.
// POLGRAPH_UPDATE_SCREENSHOT=1 also writes the README's screenshot, docs/explorer.png.
func TestExplorerInBrowser(t *testing.T) {
	browserTest(t)
	proxy := &switchProxy{addr: "127.0.0.1:0", backend: explorerAddr, conns: map[net.Conn]bool{}}
	if err := proxy.on(); err != nil {
		t.Fatal(err)
	}
	defer proxy.off()
	control := http.NewServeMux()
	control.HandleFunc("POST /down", func(w http.ResponseWriter, r *http.Request) { proxy.off() })
	control.HandleFunc("POST /up", func(w http.ResponseWriter, r *http.Request) {
		if err := proxy.on(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	controlLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	controlSrv := &http.Server{Handler: control}
	go controlSrv.Serve(controlLis)
	defer controlSrv.Close()

	editor, _ := makeKey(t, uniqueName("explorer-views"), "editor")
	env := []string{
		"POLGRAPH_EDITOR_KEY=" + editor,
		"POLGRAPH_EXPLORER_URL=http://" + proxy.addr + "/",
		"POLGRAPH_EXPLORER_CONTROL=http://" + controlLis.Addr().String() + "/",
	}
	if os.Getenv("POLGRAPH_UPDATE_SCREENSHOT") != "" {
		docs, err := filepath.Abs("../../docs/explorer.png")
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "POLGRAPH_DOCS_SCREENSHOT="+docs)
	}
	runBrowserScript(t, "e2e/explorer.mjs", env...)
}

// TestExplorerFrameTime runs web/e2e/frames.mjs (make bench-explorer): the canvas's frame time at 200 and
// 1,000 synthetic entities, written to docs/bench/explorer-frames.md. A benchmark, not a check: it runs only
// with POLGRAPH_BENCH_FRAMES=1.
func TestExplorerFrameTime(t *testing.T) {
	if os.Getenv("POLGRAPH_BENCH_FRAMES") == "" {
		t.Skip("a benchmark: POLGRAPH_BENCH_FRAMES=1 (make bench-explorer) runs it")
	}
	out, err := filepath.Abs("../../docs/bench/explorer-frames.md")
	if err != nil {
		t.Fatal(err)
	}
	runBrowserScript(t, "e2e/frames.mjs", "POLGRAPH_EXPLORER_URL=http://"+explorerAddr+"/", "POLGRAPH_FRAMES_OUT="+out)
}
