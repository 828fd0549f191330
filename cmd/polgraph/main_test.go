package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/observe"
)

// The tests in this package run the binary's own code (realMain, serve) against a real Dgraph that
// TestMain starts, and talk to the service over real gRPC; those of withoutDgraph serve a store in memory
// instead, and are the ones that run under -short.
var (
	// testDgraph is the Dgraph the tests use; alphaAddr its address.
	testDgraph dgraphlocal.TestDgraph
	alphaAddr  string
	client     pb.GraphServiceClient
	conn       *grpc.ClientConn
	store      *dgraph.Store
	// serverAddr is where the service under test listens.
	serverAddr string
	// explorerAddr is where the same service serves the graph explorer over HTTP.
	explorerAddr string
	// servedMetrics are the metrics of the service under test: tests tell from them when it has ended a call.
	servedMetrics = observe.NewMetrics()
)

const defaultDataset = "../../data/tower-hamlets/tower-hamlets.jsonl"

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

// withMetrics has serve record its metrics in m.
func withMetrics(m *observe.Metrics) serveOption {
	return func(s *served) { s.metrics = m }
}

// callsEnded is how many calls of method (its full gRPC name) the service under test has ended, by its
// metrics.
func callsEnded(t *testing.T, method string) uint64 {
	t.Helper()
	families, err := servedMetrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() != "polgraph_rpc_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" && l.GetValue() == method {
					n += m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	return n
}

// waitForCallsEnded waits until the service under test has ended n calls of method in all.
func waitForCallsEnded(t *testing.T, method string, n uint64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); callsEnded(t, method) < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the service has ended %d %s calls after 10 s, want %d", callsEnded(t, method), method, n)
		}
	}
}

func testMain(m *testing.M) int {
	// The test binary doubles as the polgraph binary, for tests that need the service in a process of its
	// own (to measure it, or kill it): POLGRAPH_TEST_MAIN holds the command line.
	if args := os.Getenv("POLGRAPH_TEST_MAIN"); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := realMain(ctx, strings.Fields(args), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "polgraph:", err)
			return exitCode(err)
		}
		return 0
	}
	flag.Parse()
	if testing.Short() {
		return runWithoutDgraph(m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, stop, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	testDgraph, alphaAddr = d, d.Service.Addr
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := d.Reset(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The service logs in as polgraph's own Dgraph user, as `polgraph run` does: the tests would fail if
	// that user lacked a right the service needs.
	store, err = dgraph.Open(ctx, d.Service, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Loaded twice, so that every query test also checks that a second load leaves the graph intact.
	for i := 0; i < 2; i++ {
		if err := realMain(ctx, append([]string{"load"}, append(dgraphFlags(), defaultDataset)...), io.Discard, io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, "loading the default dataset:", err)
			return 1
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	webLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	explorerAddr = webLis.Addr().String()
	cfg := defaultConfig()
	served := make(chan error, 1)
	services := make(chan *memgraph.Topology, 1)
	go func() {
		served <- serve(ctx, lis, webLis, onDgraph(store), cfg, log, io.Discard, withTopology(func(t *memgraph.Topology) { services <- t }),
			withMetrics(servedMetrics))
	}()
	// Every test runs on the in-memory topology, as the service does once it has started.
	if svc := <-services; svc == nil {
		fmt.Fprintln(os.Stderr, "the service under test does not keep the graph in memory")
		return 1
	} else {
		for !svc.Ready() {
			time.Sleep(20 * time.Millisecond)
		}
	}
	conn, err = grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	client = pb.NewGraphServiceClient(conn)
	serverAddr = lis.Addr().String()
	code := m.Run()
	cancel()
	if err := <-served; err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return code
}

// withoutDgraph are the tests that need no Dgraph: each serves a graph of its own from a store in memory.
// Under -short they are the only tests that run.
var withoutDgraph = []string{"TestCLIRelations", "TestCLITimeline", "TestCLISources", "TestCLIStats", "TestCLIConnections", "TestEmptyAnswersSayWhatWouldFillThem"}

// runWithoutDgraph runs the tests of withoutDgraph that -run picks (all of them when -run is not given),
// starting no Dgraph.
func runWithoutDgraph(m *testing.M) int {
	run := flag.Lookup("test.run")
	top, sub, _ := strings.Cut(run.Value.String(), "/")
	picks, err := regexp.Compile(top)
	if err != nil {
		fmt.Fprintln(os.Stderr, "-run:", err)
		return 1
	}
	var names []string
	for _, name := range withoutDgraph {
		if picks.MatchString(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		fmt.Println("skipping tests that need Dgraph under -short")
		return 0
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	if sub != "" {
		pattern += "/" + sub
	}
	if err := run.Value.Set(pattern); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// dgraphFlags are the flags that point a command at the test Dgraph: its address, and the data folder
// whose secrets log in to it.
func dgraphFlags() []string {
	return []string{"--dgraph", alphaAddr, "--data-dir", testDgraph.DataDir}
}

func counts(t *testing.T) graph.GraphCounts {
	t.Helper()
	c, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSchemaAppliesTwice(t *testing.T) {
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := store.ApplySchema(ctx); err != nil {
			t.Fatalf("applying the schema, time %d: %v", i+1, err)
		}
	}
	if _, err := store.GetEntity(ctx, "actors/lutfur-rahman"); err != nil {
		t.Fatalf("after applying the schema again: %v", err)
	}
}

func TestLoadTwiceChangesNoCounts(t *testing.T) {
	before := counts(t)
	if before.Relations < 100 || before.Claims < before.Relations {
		t.Fatalf("the default graph looks too small: %+v", before)
	}
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"load"}, append(dgraphFlags(), defaultDataset)...), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if after := counts(t); after != before {
		t.Errorf("counts changed on a second load: before %+v, after %+v", before, after)
	}
	if !strings.Contains(out.String(), "(new: 0 entities, 0 relations, 0 claims, 0 sources)") {
		t.Errorf("the summary should say nothing is new; got:\n%s", out.String())
	}
}

func TestChangedClaimUpdatesNotDuplicates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(excerpt string, conf float64) string {
		p := filepath.Join(dir, "change.jsonl")
		text := `{"record":"dataset","format":"polgraph/v1","name":"change"}
{"record":"source","name":"sources/change-test","title":"T","kind":"OTHER"}
{"record":"entity","name":"actors/change-a","display_name":"Change A"}
{"record":"entity","name":"actors/change-b","display_name":"Change B","aliases":["Changeling B"]}
{"record":"relation","type":"ENDORSES","from":"actors/change-a","to":"actors/change-b","claims":[{"source":"sources/change-test","excerpt":"` + excerpt + `","confidence":` + fmt.Sprint(conf) + `,"status":"REPORTED"}]}
`
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := realMain(ctx, append([]string{"load"}, append(dgraphFlags(), write("first words", 0.5))...), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	before := counts(t)
	if err := realMain(ctx, append([]string{"load"}, append(dgraphFlags(), write("second words", 0.7))...), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if after := counts(t); after != before {
		t.Errorf("counts changed when a claim changed: before %+v, after %+v", before, after)
	}
	resp, err := client.GetRelation(ctx, &pb.GetRelationRequest{Name: "relations/change-a.endorses.change-b"})
	if err != nil {
		t.Fatal(err)
	}
	cs := resp.GetRelation().GetClaims()
	if len(cs) != 1 || cs[0].GetExcerpt() != "second words" || cs[0].GetConfidence() != 0.7 {
		t.Errorf("want the one claim updated to \"second words\" at 0.7; got %v", cs)
	}
	e, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "actors/change-b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.GetEntity().GetAliases(); len(got) != 1 {
		t.Errorf("aliases after two loads: %v; want one", got)
	}
}

func TestInvalidFileWritesNothing(t *testing.T) {
	before := counts(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"record":"dataset","format":"polgraph/v1","name":"good"}
{"record":"entity","name":"actors/valid-person","display_name":"Valid Person"}
`), 0o644)
	os.WriteFile(bad, []byte(`{"record":"dataset","format":"polgraph/v1","name":"bad"}
{"record":"entity","name":"actors/Not A Slug","display_name":"X"}
{"record":"relation","type":"LIKES","from":"actors/valid-person","to":"actors/nobody","claims":[{"source":"sources/none","excerpt":"","confidence":2,"status":"MAYBE"}]}
{"record":"entity","name":"actors/valid-person","display_name":"Again","colour":"red"}
not json
`), 0o644)
	var stderr bytes.Buffer
	err := realMain(context.Background(), append([]string{"load"}, append(dgraphFlags(), good, bad)...), io.Discard, &stderr)
	if graph.KindOf(err) != graph.Invalid {
		t.Fatalf("got %v, want an Invalid error", err)
	}
	msg := err.Error()
	for _, want := range []string{
		bad + ":2: name", bad + ":3: type", bad + ":3: to", bad + ":3: claims[0].source", bad + ":3: claims[0].excerpt",
		bad + ":3: claims[0].confidence", bad + ":3: claims[0].status", bad + ":4: colour", bad + ":5:",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error should name %q; got:\n%s", want, msg)
		}
	}
	if after := counts(t); after != before {
		t.Errorf("an invalid input wrote something: before %+v, after %+v", before, after)
	}
	if _, err := store.GetEntity(context.Background(), "actors/valid-person"); graph.KindOf(err) != graph.NotFound {
		t.Errorf("the valid file was written although another was invalid: %v", err)
	}
}

func TestLoadSaysWhereDgraphIsMissing(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := realMain(ctx, []string{"load", "--dgraph", dead, defaultDataset}, io.Discard, io.Discard)
	if graph.KindOf(err) != graph.Unavailable || !strings.Contains(err.Error(), dead) || !strings.Contains(err.Error(), "make run") {
		t.Fatalf("got %v; want an Unavailable error naming %s and how to start Dgraph", err, dead)
	}
	if exitCode(err) != 4 {
		t.Errorf("exit code %d, want 4", exitCode(err))
	}
}

// TestHostileFilesWriteNothing loads the files that once passed the check and failed in Dgraph, or were
// taken silently: each is refused with FILE:LINE and the graph is as it was.
func TestHostileFilesWriteNothing(t *testing.T) {
	header := `{"record":"dataset","format":"polgraph/v1","name":"hostile"}` + "\n"
	source := `{"record":"source","name":"sources/hostile","title":"A hostile source","kind":"OTHER"}` + "\n"
	tests := []struct {
		name, content, says string
	}{
		{"a display name over 64 KB", header + source +
			`{"record":"entity","name":"actors/huge","display_name":"` + strings.Repeat("x", 70_000) + `"}` + "\n",
			":3: display_name: 70000 bytes; at most 500"},
		{"a million blank lines and no header", strings.Repeat("\n", 1_000_000), ":1: the file holds no records"},
		{"NUL in a name", header + `{"record":"entity","name":"actors/nul","display_name":"Nul\u0000Person"}` + "\n",
			":2: display_name: contains the control character U+0000"},
		{"a duplicate key", header + `{"record":"entity","name":"actors/one","name":"actors/two","display_name":"Two"}` + "\n",
			":2: name: duplicate key"},
		{"a line over 16 MiB", header + `{"record":"entity","name":"actors/long","display_name":"` + strings.Repeat("y", 17<<20) + `"}` + "\n",
			":2: the line is 17825850 bytes, longer than 16 MiB"},
		{"wrong JSON types", header + `{"record":"entity","name":"actors/typed","display_name":5,"aliases":"one"}` + "\n",
			":2: display_name: want a string, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := counts(t)
			path := filepath.Join(t.TempDir(), "hostile.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := realMain(context.Background(), append([]string{"load"}, append(dgraphFlags(), path)...), io.Discard, io.Discard)
			if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), path+tt.says) {
				t.Errorf("got %.500v\nwant an Invalid error saying %q", err, path+tt.says)
			}
			if strings.Contains(fmt.Sprint(err), "json:") || strings.Contains(fmt.Sprint(err), "Go struct") {
				t.Errorf("the message speaks of Go, not of the record: %.300v", err)
			}
			if after := counts(t); after != before {
				t.Errorf("a refused file wrote something: before %+v, after %+v", before, after)
			}
		})
	}
}

// serveForTest serves store with cfg on a loopback port, and returns the service and a connection to it
// once the service holds the graph in memory (failing t when serve ends first, or when the graph is not
// held within a minute), with stop, which ends serving and returns what serve returned. Serving ends with
// the test if stop was not called before; an error serve returns then fails the test.
func serveForTest(t *testing.T, st storage, cfg Config, log *slog.Logger) (*memgraph.Topology, *grpc.ClientConn, func() error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	services := make(chan *memgraph.Topology, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, lis, nil, st, cfg, log, io.Discard, withTopology(func(t *memgraph.Topology) { services <- t }))
	}()
	var conn *grpc.ClientConn
	stop := sync.OnceValue(func() error {
		if conn != nil {
			conn.Close()
		}
		cancel()
		return <-done
	})
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	var svc *memgraph.Topology
	select {
	case svc = <-services:
	case err := <-done:
		t.Fatalf("serve ended before serving: %v", err)
	}
	for deadline := time.Now().Add(time.Minute); !svc.Ready(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the graph was not held in memory within a minute")
		}
	}
	conn = dialPlain(t, lis.Addr().String())
	return svc, conn, stop
}
