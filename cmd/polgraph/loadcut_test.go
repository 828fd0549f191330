package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// TestLoadCutHalfwayResumesToExactCounts cuts a load of a generated graph halfway, gracefully (SIGTERM)
// and outright (SIGKILL), and loads the same file again: the graph ends with exactly the file's counts.
// The graceful cut reports what it had committed, and that much is in the graph. A service that held the
// graph in memory before the loads answers the first search after them within its deadline, with the
// answer it gives once it has caught up.
func TestLoadCutHalfwayResumesToExactCounts(t *testing.T) {
	if os.Getenv("POLGRAPH_TEST_ALPHA") != "" {
		t.Skip("needs a Dgraph of its own; POLGRAPH_TEST_ALPHA is set")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, stopDgraph, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stopDgraph()
	file := filepath.Join(t.TempDir(), "generated.jsonl")
	if err := realMain(ctx, []string{"gen", "--relations", "6000", "--seed", "9", "--out", file}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Read([]dataset.File{{Name: file, R: f}})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	claims := 0
	for _, r := range ds.Relations {
		claims += len(r.Claims)
	}
	want := graph.GraphCounts{Entities: len(ds.Entities), Relations: len(ds.Relations), Claims: claims, Sources: len(ds.Sources)}
	log := slog.New(slog.DiscardHandler)
	watcher, err := dgraph.Open(ctx, d.Service, log)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { watcher.Close() }()
	if err := watcher.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}

	flags := []string{"--dgraph", d.Service.Addr, "--data-dir", d.DataDir}
	load := append(append([]string{"load"}, flags...), file)
	// cut starts a load in a process of its own and sends it sig once Dgraph holds at least 1,500 of its
	// relations; it returns what the load printed on stderr.
	cut := func(t *testing.T, sig syscall.Signal) string {
		t.Helper()
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "POLGRAPH_TEST_MAIN="+strings.Join(load, " "))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			c, err := watcher.Counts(ctx)
			if err == nil && c.Relations >= 1500 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("the load wrote too few relations in two minutes: %+v %v\n%s", c, err, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if err == nil {
			t.Fatalf("the load cut by %v finished: cut it earlier", sig)
		}
		return stderr.String()
	}
	resume := func(t *testing.T) {
		t.Helper()
		var out, errOut strings.Builder
		if err := realMain(ctx, load, &out, &errOut); err != nil {
			t.Fatalf("the load run again: %v\n%s", err, errOut.String())
		}
		got, err := watcher.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after the load ran again the graph holds %+v, want exactly the file's %+v", got, want)
		}
	}

	t.Run("SIGKILL: the next load waits for the cut one's hold to lapse and finishes", func(t *testing.T) {
		cut(t, syscall.SIGKILL)
		start := time.Now()
		resume(t)
		t.Logf("the load after the SIGKILL finished in %s, waiting for the cut load's hold to lapse", time.Since(start).Round(time.Second))
	})

	// Again from an empty graph, with the service serving it from memory meanwhile.
	if err := d.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	watcher.Close()
	if watcher, err = dgraph.Open(ctx, d.Service, log); err != nil {
		t.Fatal(err)
	}
	if err := watcher.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	// The service, on the empty graph, holding it in memory.
	svc, conn, _ := serveForTest(t, onDgraph(watcher), defaultConfig(), log)
	client := pb.NewGraphServiceClient(conn)

	t.Run("SIGTERM: what was committed is reported", func(t *testing.T) {
		report := cut(t, syscall.SIGTERM)
		m := regexp.MustCompile(`committed by then: (\d+) of (\d+) sources, (\d+) of (\d+) entities, (\d+) of (\d+) relations\.`).FindStringSubmatch(report)
		if m == nil || !strings.Contains(report, "visible now") || !strings.Contains(report, "Run the same command again") {
			t.Fatalf("the cut load's report: %q", report)
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		if n(1) != want.Sources || n(3) != want.Entities || n(6) != want.Relations || n(5) == 0 || n(5) >= want.Relations {
			t.Errorf("report %q: want every source and entity and part of the %d relations", m[0], want.Relations)
		}
		got, err := watcher.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Everything reported committed is in the graph (a batch in flight when the cut came may be too).
		if got.Relations < n(5) || got.Sources != want.Sources || got.Entities != want.Entities {
			t.Errorf("reported %s, but the graph holds %+v", m[0], got)
		}
		resume(t)
	})

	pathReq := &pb.FindPathsRequest{From: string(ds.Relations[0].From), To: string(ds.Relations[len(ds.Relations)-1].To), MaxPaths: 3, MaxDepth: 4}

	t.Run("the first search after the load answers within its deadline", func(t *testing.T) {
		sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		first, err := client.FindPaths(sctx, pathReq)
		if err != nil {
			t.Fatalf("the first search after the load: %v", err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			v, err := watcher.Version(ctx)
			if err == nil && svc.Version() >= v {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the service's graph did not catch up within a minute")
			}
			time.Sleep(50 * time.Millisecond)
		}
		before, err := client.FindPaths(ctx, pathReq)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.GetPaths()) == 0 {
			t.Fatalf("no path from %s to %s: choose two entities a path joins", pathReq.From, pathReq.To)
		}
		if got, want := pathsText(first), pathsText(before); got != want {
			t.Errorf("the first search answered\n%s\nthe caught-up graph answers\n%s", got, want)
		}
	})
}

// pathsText is a path answer's routes, one line each.
func pathsText(r *pb.FindPathsResponse) string {
	var b strings.Builder
	for _, p := range r.GetPaths() {
		for _, e := range p.GetEntities() {
			b.WriteString(e + " ")
		}
		b.WriteString("\n")
	}
	return b.String()
}
