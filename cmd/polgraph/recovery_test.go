package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// startRun runs `polgraph run` in the test's process on a data folder and ports of its own, and returns
// a client of the service it serves once it serves, the data folder, and the flags that point a command at
// its Dgraph.
func startRun(t *testing.T, args ...string) (pb.GraphServiceClient, string, []string) {
	t.Helper()
	dir := t.TempDir()
	offset, err := dgraphlocal.FreeOffset(1500 + os.Getpid()%100*7)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runAll(ctx, append([]string{"--data-dir", dir, "--addr", "127.0.0.1:0", "--http", "", "--dgraph-port-offset", strconv.Itoa(offset), "--log-level", "warn"}, args...), w, io.Discard)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run ended with %v", err)
		}
	})
	serving := regexp.MustCompile(`serving on (\S+);`)
	sc := bufio.NewScanner(r)
	addr := ""
	for addr == "" && sc.Scan() {
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("run did not serve: %v", <-done)
	}
	go io.Copy(io.Discard, r)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewGraphServiceClient(conn), dir, []string{"--dgraph", "127.0.0.1:" + strconv.Itoa(9080+offset), "--data-dir", dir}
}

// dgraphProcess finds the process id of the zero or the alpha started on a data folder.
func dgraphProcess(t *testing.T, dataDir, name string) int {
	t.Helper()
	mark := map[string]string{"zero": "--wal=" + filepath.Join(dataDir, "zw"), "alpha": "--postings=" + filepath.Join(dataDir, "p")}[name]
	procs, _ := procfs.AllProcs()
	for _, p := range procs {
		if args, err := p.CmdLine(); err == nil && slices.Contains(args, mark) {
			return p.PID
		}
	}
	t.Fatalf("no dgraph %s runs on %s", name, dataDir)
	return 0
}

// outage is what callers saw while a Dgraph process was down: how long until the service answered again,
// the codes and reasons of the failed calls, and the slowest failure.
type outage struct {
	recovered     time.Duration
	failed        int
	codes         map[string]int
	slowestFailed time.Duration
}

// watchOutage calls GetGraphStats every 50 ms (each call with a 10 s deadline, as a client's default)
// from the kill until the service answers with the graph it held before, for at most a minute; an answer
// that shows another graph (an alpha that restarted without its data yet) fails the test.
func watchOutage(t *testing.T, client pb.GraphServiceClient, want *pb.GetGraphStatsResponse, kill func()) outage {
	t.Helper()
	o := outage{codes: map[string]int{}}
	start := time.Now()
	kill()
	for time.Since(start) < time.Minute {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		callStart := time.Now()
		got, err := client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
		cancel()
		if err == nil {
			if got.GetVersion() != want.GetVersion() || got.GetRelations() != want.GetRelations() {
				t.Fatalf("%s after the kill, the service answered graph version %d with %d relations, want version %d with %d",
					time.Since(start), got.GetVersion(), got.GetRelations(), want.GetVersion(), want.GetRelations())
			}
			o.recovered = time.Since(start)
			return o
		}
		st := status.Convert(err)
		key := st.Code().String()
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok {
				key += " " + info.GetReason()
			}
		}
		o.codes[key]++
		o.failed++
		o.slowestFailed = max(o.slowestFailed, time.Since(callStart))
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the service did not answer again within a minute; failures: %v", o.codes)
	return o
}

// TestRunRecoversFromDgraphDeaths kills `run`'s alpha, then its zero, with SIGKILL, and expects the
// service to answer again by itself, with the same graph, and every call in between to be turned away as
// UNAVAILABLE rather than left to hang until its deadline.
func TestRunRecoversFromDgraphDeaths(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	client, dir, dgraphAt := startRun(t)
	ctx := context.Background()
	// Keyed callers too: their keys are looked up in the same Dgraph, which must never make a valid key
	// look invalid while it comes back.
	var out strings.Builder
	if err := realMain(ctx, append([]string{"keys", "create", "--name", "recovery-editor", "--role", "editor"}, dgraphAt...), &out, &out); err != nil {
		t.Fatalf("keys create: %v\n%s", err, out.String())
	}
	key := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "key:"); ok {
			key = strings.TrimSpace(v)
		}
	}
	keyed := withKey(ctx, key)
	if _, err := client.GetGraphStats(keyed, &pb.GetGraphStatsRequest{}); err != nil {
		t.Fatalf("a keyed call before any death: %v", err)
	}
	before, err := client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if before.GetRelations() == 0 {
		t.Fatal("run loaded no graph")
	}
	for _, name := range []string{"alpha", "zero", "alpha"} {
		pid := dgraphProcess(t, dir, name)
		// Keyed callers, each call with a key whose cache entry has expired by then (5 s), from the kill
		// until a while after the service answers again.
		stopKeyed := make(chan struct{})
		keyedDone := make(chan map[string]int)
		go func() {
			seen := map[string]int{}
			for {
				select {
				case <-stopKeyed:
					keyedDone <- seen
					return
				default:
				}
				cctx, cancel := context.WithTimeout(keyed, 10*time.Second)
				_, err := client.GetGraphStats(cctx, &pb.GetGraphStatsRequest{})
				cancel()
				seen[status.Code(err).String()+" "+reason(err)]++
				time.Sleep(20 * time.Millisecond)
			}
		}()
		o := watchOutage(t, client, before, func() { syscall.Kill(pid, syscall.SIGKILL) })
		time.Sleep(6 * time.Second) // past the key cache's 5 s: keyed calls look the key up again
		close(stopKeyed)
		keyedSeen := <-keyedDone
		t.Logf("dgraph %s killed: keyed calls answered %v", name, keyedSeen)
		for k := range keyedSeen {
			if !strings.HasPrefix(k, "OK") && !strings.HasPrefix(k, "Unavailable") {
				t.Errorf("dgraph %s killed: keyed calls failed with %s; want UNAVAILABLE only, then answers", name, k)
			}
		}
		t.Logf("dgraph %s killed: answering again after %s; %d calls failed meanwhile %v, the slowest in %s",
			name, o.recovered.Round(time.Millisecond), o.failed, o.codes, o.slowestFailed.Round(time.Millisecond))
		for key := range o.codes {
			if !strings.HasPrefix(key, "Unavailable") {
				t.Errorf("dgraph %s killed: calls failed with %s; want UNAVAILABLE only", name, key)
			}
		}
		// A call hung on a Dgraph without its zero would end at its 10 s deadline, DEADLINE_EXCEEDED, or
		// when the watch found the zero gone, seconds later: `run` sees its processes die and refuses
		// calls at once.
		if o.slowestFailed > 2*time.Second {
			t.Errorf("dgraph %s killed: a failed call took %s to fail", name, o.slowestFailed)
		}
		if p := dgraphProcess(t, dir, name); p == pid {
			t.Errorf("dgraph %s was not restarted", name)
		}
	}
}

// TestZeroDownIsUnavailableAtOnce stops the zero of a Dgraph nobody restarts: once the service has seen
// it, calls are refused with UNAVAILABLE at once, and its health says NOT_SERVING.
func TestZeroDownIsUnavailableAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	client, dir, _ := startRun(t, "--dataset", "none")
	zero := dgraphProcess(t, dir, "zero")
	// SIGSTOP: the zero is there but answers nothing, as a zero on a machine gone away; and it is not
	// restarted, since it has not died.
	syscall.Kill(zero, syscall.SIGSTOP)
	defer syscall.Kill(zero, syscall.SIGCONT)
	start := time.Now()
	var last error
	for time.Since(start) < 30*time.Second {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		callStart := time.Now()
		_, last = client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
		took := time.Since(callStart)
		cancel()
		if status.Code(last) == codes.DeadlineExceeded {
			t.Fatalf("a call waited out its deadline: %v", last)
		}
		if status.Code(last) == codes.Unavailable && took < time.Second {
			t.Logf("refused at once (in %s) %s after the zero stopped", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("30 s after the zero stopped, calls are still not refused at once: %v", last)
}
