package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/auth"
)

// The attacks and faults of the second hardening round, each against the real service.

// gzipBomb is a gzip body of about size compressed bytes that inflates to about 1,000 times as much:
// members of a megabyte of spaces, concatenated (a gzip stream may hold several).
func gzipBomb(t *testing.T, size int) []byte {
	t.Helper()
	var member bytes.Buffer
	w, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	w.Write(bytes.Repeat([]byte(" "), 1<<20))
	w.Close()
	return bytes.Repeat(member.Bytes(), size/member.Len())
}

// clearPeak resets the process's peak resident memory (VmHWM) to what it holds now.
func (p *servedProcess) clearPeak(t *testing.T) {
	t.Helper()
	if err := os.WriteFile("/proc/"+strconv.Itoa(p.pid)+"/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the served process's peak memory: %v", err)
	}
}

// TestDecompressionBombIsRefusedCheaply sends, with no credential, four 1 MB gzipped bodies that would
// inflate to about a gigabyte each, at once, in each way the HTTP port takes compressed bodies: each is
// refused, and the served process's peak resident memory grows by less than 64 MB.
func TestDecompressionBombIsRefusedCheaply(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	p := startServedProcess(t)
	bomb := gzipBomb(t, 1_000_000)
	send := func(header, value string) string {
		req, _ := http.NewRequest(http.MethodPost, p.httpBase+"/polgraph.v1.GraphService/SearchEntities", bytes.NewReader(bomb))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		req.Header.Set(header, value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "error: " + err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return strconv.Itoa(resp.StatusCode) + " " + string(b)
	}
	// Warm the process up (the graph held in memory, the API's first calls), so that the peak measures the
	// bombs only.
	conn := dialPlain(t, p.grpcAddr)
	if _, err := pb.NewGraphServiceClient(conn).FindPaths(context.Background(), &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer"}); err != nil {
		t.Fatal(err)
	}
	send("Content-Encoding", "identity")
	rss0, _ := p.memory(t)
	p.clearPeak(t)
	cpu0, start := p.cpu(t), time.Now()
	var wg sync.WaitGroup
	answers := make([]string, 4)
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = send("Content-Encoding", "gzip") }()
	}
	wg.Wait()
	rss, peak := p.memory(t)
	t.Logf("four %d-byte bombs refused in %v, %v of CPU; resident %.0f MB before, %.0f MB after, peak %.0f MB",
		len(bomb), time.Since(start).Round(time.Millisecond), (p.cpu(t) - cpu0).Round(10*time.Millisecond), rss0, rss, peak)
	for _, a := range answers {
		if !strings.HasPrefix(a, "429") || !strings.Contains(a, "inflates to over") {
			t.Errorf("a bomb was answered %.200s; want 429 saying it inflates past the limit", a)
		}
	}
	if peak-rss0 >= 64 {
		t.Errorf("the peak resident memory grew by %.0f MB; want under 64", peak-rss0)
	}
}

// raiseFileLimit lets the test process hold as many descriptors as the hard limit allows.
func raiseFileLimit(t *testing.T) uint64 {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	return lim.Cur
}

// openFiles counts a process's open descriptors.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	p, err := procfs.NewProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.FileDescriptorsLen()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSilentConnectionsLeaveCallsAnswered opens 25,000 connections to the served process's two listeners
// from one address, each sending nothing, as fast as it can (keeping at most as many open as its own
// descriptors allow): the process keeps its connections under its caps, and a new gRPC call and a new
// HTTP call from the same address are answered normally meanwhile.
func TestSilentConnectionsLeaveCallsAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	limit := raiseFileLimit(t)
	p := startServedProcess(t, "--max-connections-per-address", "512", "--max-connections", "4096")
	keep := int(limit) - 1000 // what this process may hold at once, with room for its own files
	httpAddr := strings.TrimPrefix(p.httpBase, "http://")
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	const total = 25_000
	maxFiles, failedDials := 0, 0
	for i := range total {
		addr := p.grpcAddr
		if i%2 == 1 {
			addr = httpAddr
		}
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			failedDials++
			continue
		}
		open = append(open, c)
		if len(open) > keep {
			open[0].Close()
			open = open[1:]
		}
		if i%2500 == 0 {
			maxFiles = max(maxFiles, openFiles(t, p.pid))
		}
	}
	maxFiles = max(maxFiles, openFiles(t, p.pid))
	// While the silent connections are held: a call on a new connection from the same address.
	conn := dialPlain(t, p.grpcAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, grpcErr := pb.NewGraphServiceClient(conn).GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
	resp, httpErr := (&http.Client{Timeout: 10 * time.Second}).Get(p.httpBase + "/healthz")
	httpStatus := 0
	if httpErr == nil {
		httpStatus = resp.StatusCode
		resp.Body.Close()
	}
	t.Logf("%d silent connections opened (%d dials failed); the served process held at most %d descriptors; GetEntity: %v; /healthz: %d %v",
		total-failedDials, failedDials, maxFiles, status.Code(grpcErr), httpStatus, httpErr)
	if grpcErr != nil {
		t.Errorf("a gRPC call among the silent connections: %v", grpcErr)
	}
	if httpErr != nil || httpStatus != http.StatusOK {
		t.Errorf("an HTTP call among the silent connections: %d %v", httpStatus, httpErr)
	}
	// Two listeners of 512 connections from one address, and the process's own files and Dgraph's
	// connections.
	if maxFiles > 2*512+300 {
		t.Errorf("the served process held %d descriptors; its caps allow about %d", maxFiles, 2*512+300)
	}
}

// TestNoOpWritesLeaveTheVersion: writing what the graph already holds, or retracting a claim already
// retracted, changes nothing, and the graph's version stays.
func TestNoOpWritesLeaveTheVersion(t *testing.T) {
	w := newWriter(t, "editor")
	src, a, b := "sources/"+w.slug("noop"), "actors/"+w.slug("noop-a"), "actors/"+w.slug("noop-b")
	if _, err := w.w.UpsertSources(w.ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "T", Kind: "OTHER"}}}); err != nil {
		t.Fatal(err)
	}
	entities := &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: a, DisplayName: "Noop A"}, {Name: b, DisplayName: "Noop B"}}}
	if _, err := w.w.UpsertEntities(w.ctx, entities); err != nil {
		t.Fatal(err)
	}
	relations := &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{{Type: "ENDORSES", From: a, To: b, Date: "2024",
		Claims: []*pb.ClaimRecord{claim(src, "A endorses B.", "REPORTED")}}}}
	first, err := w.w.UpsertRelations(w.ctx, relations)
	if err != nil {
		t.Fatal(err)
	}
	rel := first.GetResult().GetCreated()[0]
	claims, err := client.GetRelation(context.Background(), &pb.GetRelationRequest{Name: rel})
	if err != nil {
		t.Fatal(err)
	}
	claimName := claims.GetRelation().GetClaims()[0].GetName()
	if _, err := w.w.RetractClaim(w.ctx, &pb.RetractClaimRequest{Name: claimName, Reason: "Wrong."}); err != nil {
		t.Fatal(err)
	}
	version := func() int64 {
		v, err := store.Version(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	for i := range 3 {
		if _, err := w.w.UpsertSources(w.ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: src, Title: "T", Kind: "OTHER"}}}); err != nil {
			t.Fatal(err)
		}
		if r, err := w.w.UpsertEntities(w.ctx, entities); err != nil || r.GetResult().GetUnchanged() != 2 {
			t.Fatalf("the same entities again: %v %v", r, err)
		}
		if r, err := w.w.UpsertRelations(w.ctx, relations); err != nil || r.GetResult().GetUnchanged() != 1 {
			t.Fatalf("the same relation again (%d): %v %v", i, r, err)
		}
		if _, err := w.w.RetractClaim(w.ctx, &pb.RetractClaimRequest{Name: claimName, Reason: "Wrong."}); err != nil {
			t.Fatal(err)
		}
	}
	if after := version(); after != before {
		t.Errorf("writes that change nothing raised the graph's version from %d to %d", before, after)
	}
	// A write that changes something still raises it.
	entities.Entities[0].DisplayName = "Noop A Changed"
	if _, err := w.w.UpsertEntities(w.ctx, entities); err != nil {
		t.Fatal(err)
	}
	if after := version(); after != before+1 {
		t.Errorf("a write that changes an entity: version %d, then %d; want one more", before, after)
	}
}

// TestCredentialChangesInTheTrail: creating and revoking a key are in the audit trail, with who did it,
// and `polgraph history keys/ID` shows them.
func TestCredentialChangesInTheTrail(t *testing.T) {
	editor := newWriter(t, "editor")
	name := uniqueName("trail-key")
	_, id := makeKey(t, name, "reader")
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"keys", "revoke"}, append(dgraphFlags(), id)...), &out, &out); err != nil {
		t.Fatalf("keys revoke: %v\n%s", err, out.String())
	}
	cs, err := editor.w.ListChanges(editor.ctx, &pb.ListChangesRequest{Resource: id})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, c := range cs.GetChanges() {
		actions = append(actions, c.GetAction()+" by "+c.GetPrincipal()+" through "+c.GetMethod())
		if strings.Contains(c.GetAfter(), "hash") || strings.Contains(c.GetBefore(), "hash") {
			t.Errorf("the trail of a key holds its hash: %v", c)
		}
	}
	if len(actions) != 2 || !strings.HasPrefix(actions[0], "REVOKE by local") || !strings.HasSuffix(actions[0], "RevokeKey") ||
		!strings.HasPrefix(actions[1], "CREATE by local") || !strings.HasSuffix(actions[1], "CreateKey") {
		t.Errorf("the trail of a key created then revoked: %q", actions)
	}
	out.Reset()
	if err := realMain(context.Background(), []string{"history", "--server", serverAddr, "--api-key", editor.key, id}, &out, &out); err != nil ||
		!strings.Contains(out.String(), "REVOKE  by local") || !strings.Contains(out.String(), "CREATE  by local") {
		t.Errorf("polgraph history %s: %v\n%s", id, err, out.String())
	}
}

// TestMetricsListenerRefusesOtherHosts: the metrics (and profiles) listener answers its own names and IP
// addresses, not a name made to resolve to it (DNS rebinding), nor another web page; its refusals are
// counted.
func TestMetricsListenerRefusesOtherHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	addr := freeAddr(t)
	startServedProcess(t, "--metrics", addr, "--pprof")
	get := func(host, path string, headers ...string) (int, string) {
		return httpCall(t, http.MethodGet, "http://"+addr+path, host, nil, headers...)
	}
	for _, tc := range []struct {
		name, host, path string
		headers          []string
		code             int
	}{
		{"by address", addr, "/metrics", nil, 200},
		{"as localhost", "localhost", "/metrics", nil, 200},
		{"a rebound name", "attacker.example", "/metrics", nil, 403},
		{"the profiles under a rebound name", "attacker.example", "/debug/pprof/cmdline", nil, 403},
		{"from another web page", addr, "/debug/pprof/cmdline", []string{"Origin", "http://attacker.example", "Sec-Fetch-Site", "cross-site"}, 403},
	} {
		if code, _ := get(tc.host, tc.path, tc.headers...); code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
		}
	}
	_, metrics := get(addr, "/metrics")
	for _, want := range []string{`polgraph_http_refusals_total{reason="HOST_NOT_ALLOWED",status="403"} 2`, `polgraph_http_refusals_total{reason="CROSS_ORIGIN",status="403"} 1`,
		`polgraph_connections_open{listener="grpc"}`, `polgraph_connections_open{listener="http"}`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("the metrics do not show %s", want)
		}
	}
}

// TestHTTPRefusalsAreCounted: the explorer's listener counts what its guard refuses, and the headers
// net/http refuses itself.
func TestHTTPRefusalsAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	metricsAddr := freeAddr(t)
	p := startServedProcess(t, "--metrics", metricsAddr)
	do := func(host string, body io.Reader, headers ...string) int {
		code, _ := httpCall(t, http.MethodPost, p.httpBase+"/polgraph.v1.GraphService/SearchEntities", host, body,
			append([]string{"Content-Type", "application/json"}, headers...)...)
		return code
	}
	codes := []int{
		do("attacker.example", strings.NewReader("{}")),
		do("localhost", strings.NewReader("{}"), "Origin", "http://attacker.example"),
		do("localhost", bytes.NewReader(make([]byte, 2<<20))),
		do("localhost", strings.NewReader("{}"), "X-Padding", strings.Repeat("a", 80<<10)),
	}
	if fmt.Sprint(codes) != "[403 403 413 431]" {
		t.Errorf("refusals answered %v; want [403 403 413 431]", codes)
	}
	_, b := httpCall(t, http.MethodGet, "http://"+metricsAddr+"/metrics", "localhost", nil)
	for _, want := range []string{`reason="HOST_NOT_ALLOWED",status="403"} 1`, `reason="CROSS_ORIGIN",status="403"} 1`,
		`reason="BODY_TOO_LARGE",status="413"} 1`, `reason="HEADERS_TOO_LARGE",status="431"} 1`} {
		if !strings.Contains(b, "polgraph_http_refusals_total{"+want) {
			t.Errorf("the metrics do not count polgraph_http_refusals_total{%s", want)
		}
	}
}

// TestValidKeysPassAFloodOfMadeUpOnes sends 100 made-up keys a second from one address to a polgraph in a
// process of its own for longer than a key is cached, while an editor's key is used from the same address
// every 200 ms: every call with the valid key is answered, and the made-up keys are still refused before
// their lookup once the address's budget is spent.
func TestValidKeysPassAFloodOfMadeUpOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	p := startServedProcess(t)
	key, _ := makeKey(t, uniqueName("flood-editor"), "editor")
	gs := pb.NewGraphServiceClient(dialPlain(t, p.grpcAddr))
	ctx := context.Background()
	if _, err := gs.GetGraphStats(withKey(ctx, key), &pb.GetGraphStatsRequest{}); err != nil {
		t.Fatalf("the valid key before the flood: %v", err)
	}
	stop := make(chan struct{})
	floodDone := make(chan map[string]int)
	go func() {
		seen := map[string]int{}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				floodDone <- seen
				return
			case <-tick.C:
			}
			bogus, _, _ := auth.NewKey("x", auth.Reader, time.Now())
			_, err := gs.GetGraphStats(withKey(ctx, bogus), &pb.GetGraphStatsRequest{})
			seen[status.Code(err).String()+" "+reason(err)]++
		}
	}()
	valid, failed := 0, map[string]int{}
	deadline := time.Now().Add(auth.DefaultKeyCacheTime + 3*time.Second)
	for time.Now().Before(deadline) {
		if _, err := gs.GetGraphStats(withKey(ctx, key), &pb.GetGraphStatsRequest{}); err != nil {
			failed[status.Code(err).String()+" "+reason(err)]++
		} else {
			valid++
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	flood := <-floodDone
	t.Logf("the valid key: %d calls answered, failures %v; made-up keys: %v", valid, failed, flood)
	if len(failed) > 0 {
		t.Errorf("the valid key was refused during the flood: %v", failed)
	}
	if flood["ResourceExhausted TOO_MANY_INVALID_KEYS"] == 0 {
		t.Errorf("no made-up key was refused before its lookup: %v", flood)
	}
}

// freeAddr is a loopback address free a moment ago, for a listener a served process opens itself.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// httpCall makes one HTTP request with this Host and headers (name, value, …) and returns the status and
// the body.
func httpCall(t *testing.T, method, url, host string, body io.Reader, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
