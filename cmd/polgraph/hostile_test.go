package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// servedProcess is `polgraph serve` in a process of its own, so that its CPU and memory can be read.
type servedProcess struct {
	cmd      *exec.Cmd
	grpcAddr string
	httpBase string
	pid      int
}

func startServedProcess(t *testing.T, extra ...string) *servedProcess {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--http", "127.0.0.1:0", "--log-level", "error"}, dgraphFlags()...)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "POLGRAPH_TEST_MAIN="+strings.Join(append(args, extra...), " "))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	p := &servedProcess{cmd: cmd, pid: cmd.Process.Pid}
	grpcLine := regexp.MustCompile(`serving on (\S+);`)
	httpLine := regexp.MustCompile(`explorer is at (\S+)/`)
	sc := bufio.NewScanner(out)
	for (p.grpcAddr == "" || p.httpBase == "") && sc.Scan() {
		if m := grpcLine.FindStringSubmatch(sc.Text()); m != nil {
			p.grpcAddr = m[1]
		}
		if m := httpLine.FindStringSubmatch(sc.Text()); m != nil {
			p.httpBase = m[1]
		}
	}
	if p.grpcAddr == "" || p.httpBase == "" {
		t.Fatal("the served process did not say where it serves")
	}
	go io.Copy(io.Discard, out)
	return p
}

// cpu is the process's user and system CPU time so far.
func (p *servedProcess) cpu(t *testing.T) time.Duration {
	t.Helper()
	st, err := p.proc(t).Stat()
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(st.CPUTime() * float64(time.Second))
}

// memory is the process's resident memory now and at its peak, in MB.
func (p *servedProcess) memory(t *testing.T) (rss, peak float64) {
	t.Helper()
	st, err := p.proc(t).NewStatus()
	if err != nil {
		t.Fatal(err)
	}
	return float64(st.VmRSS) / (1 << 20), float64(st.VmHWM) / (1 << 20)
}

// proc is the served process in /proc.
func (p *servedProcess) proc(t *testing.T) procfs.Proc {
	t.Helper()
	pr, err := procfs.NewProc(p.pid)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// TestHostileRequests sends the hostile requests of the lockdown review to a polgraph in a process of its
// own and checks each is answered as it should be; it logs (and, with POLGRAPH_HOSTILE_REPORT=FILE,
// writes) what each cost the server: wall time, CPU and memory. The figures are not asserted, since
// these machines are shared; docs/security.md holds a run.
func TestHostileRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	p := startServedProcess(t)
	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gc := pb.NewGraphServiceClient(conn)
	ctx := context.Background()
	if _, err := gc.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"}); err != nil {
		t.Fatal(err)
	}

	type row struct{ request, outcome, wall, cpu, rss string }
	var rows []row
	measure := func(request string, want string, f func() string) {
		t.Helper()
		cpu0, start := p.cpu(t), time.Now()
		got := f()
		wall := time.Since(start)
		cpu := p.cpu(t) - cpu0
		rss, peak := p.memory(t)
		rows = append(rows, row{request, got, wall.Round(time.Millisecond).String(), cpu.Round(10 * time.Millisecond).String(),
			fmt.Sprintf("%.0f MB (peak %.0f MB)", rss, peak)})
		if !strings.Contains(got, want) {
			t.Errorf("%s: %s; want %s", request, got, want)
		}
	}
	code := func(err error) string {
		st := status.Convert(err)
		out := st.Code().String()
		if st.Code() != codes.OK {
			out += ": " + st.Message()
		}
		return out
	}
	paths := func(f *pb.RelationFilter) func() string {
		return func() string {
			_, err := gc.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", Filter: f})
			return code(err)
		}
	}
	statuses := make([]pb.ClaimStatus, 1_000_000)
	for i := range statuses {
		statuses[i] = pb.ClaimStatus_CLAIM_STATUS_DENIED
	}
	types := make([]pb.RelationType, 1_000_000)
	for i := range types {
		types[i] = pb.RelationType_RELATION_TYPE_ENDORSES
	}
	badEnums := make([]pb.RelationType, 100_000)
	for i := range badEnums {
		badEnums[i] = pb.RelationType(1000 + i)
	}

	// A body trickled in, a byte every 3 s, for as long as the server keeps the connection: in the
	// background, since the read timeout is 15 s.
	var trickled atomic.Int64
	trickleDone := make(chan struct{})
	go func() {
		defer close(trickleDone)
		c, err := net.Dial("tcp", strings.TrimPrefix(p.httpBase, "http://"))
		if err != nil {
			return
		}
		defer c.Close()
		start := time.Now()
		fmt.Fprintf(c, "POST /polgraph.v1.GraphService/SearchEntities HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
		closed := make(chan struct{})
		go func() { io.Copy(io.Discard, c); close(closed) }()
		for {
			select {
			case <-closed:
				trickled.Store(int64(time.Since(start)))
				return
			case <-time.After(3 * time.Second):
				c.Write([]byte("{"))
			case <-time.After(60 * time.Second):
				return
			}
		}
	}()

	measure("FindPaths with a million statuses (2 MB)", "InvalidArgument", paths(&pb.RelationFilter{Statuses: statuses}))
	measure("two of them at once", "InvalidArgument", func() string {
		var wg sync.WaitGroup
		out := make([]string, 2)
		for i := range out {
			wg.Add(1)
			go func() { defer wg.Done(); out[i] = paths(&pb.RelationFilter{Statuses: statuses})() }()
		}
		wg.Wait()
		return out[0] + " (both)"
	})
	measure("FindPaths with a million exclude_types", "InvalidArgument", paths(&pb.RelationFilter{ExcludeTypes: types}))
	measure("FindPaths with 100,000 bad enum values", "InvalidArgument", func() string {
		_, err := gc.FindPaths(ctx, &pb.FindPathsRequest{From: "a", To: "b", Filter: &pb.RelationFilter{IncludeTypes: badEnums}})
		return code(err) + fmt.Sprintf(" (answer: %d bytes)", len(status.Convert(err).Proto().String()))
	})
	measure("FindPaths with min_confidence NaN", "InvalidArgument", paths(&pb.RelationFilter{MinConfidence: math.NaN()}))
	measure("GetEntity while two million-status calls run", "OK", func() string {
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); paths(&pb.RelationFilter{Statuses: statuses})() }()
		}
		start := time.Now()
		_, err := gc.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
		took := time.Since(start)
		wg.Wait()
		return code(err) + " in " + took.Round(time.Millisecond).String()
	})
	measure("2,000 FindPaths at once, and a GetEntity among them", "OK", func() string {
		var wg sync.WaitGroup
		var ok, refused, other atomic.Int64
		for range 2000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := gc.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxPaths: 20, MaxDepth: 6})
				switch status.Code(err) {
				case codes.OK:
					ok.Add(1)
				case codes.ResourceExhausted:
					refused.Add(1)
				default:
					other.Add(1)
				}
			}()
		}
		start := time.Now()
		_, err := gc.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
		took := time.Since(start)
		wg.Wait()
		if other.Load() > 0 {
			return fmt.Sprintf("%d calls failed otherwise than RESOURCE_EXHAUSTED", other.Load())
		}
		return fmt.Sprintf("%s: GetEntity in %v; FindPaths: %d answered, %d refused with RESOURCE_EXHAUSTED",
			code(err), took.Round(time.Millisecond), ok.Load(), refused.Load())
	})

	post := func(host string, body io.Reader, length int64, ctype string) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.httpBase+"/polgraph.v1.GraphService/SearchEntities", body)
		req.Host = host
		req.ContentLength = length
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "error: " + err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return strconv.Itoa(resp.StatusCode) + " " + strings.TrimSpace(string(b))
	}
	measure("HTTP: a 400 MB body, announced", "413", func() string {
		return post("localhost", io.LimitReader(zeros{}, 400<<20), 400<<20, "application/json")
	})
	measure("HTTP: a 400 MB body, chunked", "413", func() string {
		return post("localhost", io.LimitReader(zeros{}, 400<<20), -1, "application/json")
	})
	measure("HTTP: malformed JSON", "400", func() string {
		return post("localhost", strings.NewReader(`{"query": "Lutf`), -1, "application/json")
	})
	measure("HTTP: Host attacker.example (DNS rebinding)", "403", func() string {
		return post("attacker.example", strings.NewReader(`{"query": "Lutfur"}`), -1, "application/json")
	})
	<-trickleDone
	if d := time.Duration(trickled.Load()); d == 0 || d > 20*time.Second {
		t.Errorf("a trickled body held its connection %v (0: still open after 60 s); the read timeout is 15 s", d)
	} else {
		rows = append(rows, row{"HTTP: a body trickled a byte every 3 s", fmt.Sprintf("connection closed after %v", d.Round(100*time.Millisecond)), "", "", ""})
	}

	var b strings.Builder
	b.WriteString("| request | answer | wall | server CPU | server memory after |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		outcome := r.outcome
		if len(outcome) > 160 {
			outcome = outcome[:160] + "…"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.request, strings.ReplaceAll(outcome, "|", "\\|"), r.wall, r.cpu, r.rss)
	}
	t.Logf("\n%s", b.String())
	if path := os.Getenv("POLGRAPH_HOSTILE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
