package rpc

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// TestLimiterGivesEachMethodItsOwnTurns floods one method past its limit and queue: the calls over both
// are refused at once with RESOURCE_EXHAUSTED and a retry delay, a queued call runs when a turn frees,
// and another method is not held up meanwhile.
func TestLimiterGivesEachMethodItsOwnTurns(t *testing.T) {
	l := NewLimiter(Limits{InFlight: 2, Queued: 1, MaxWait: time.Minute}, slog.New(slog.DiscardHandler), pb.GraphService_ServiceDesc)
	intercept := l.Unary()
	release := make(chan struct{})
	blocking := func(ctx context.Context, req any) (any, error) { <-release; return "done", nil }
	quick := func(ctx context.Context, req any) (any, error) { return "quick", nil }
	paths := &grpc.UnaryServerInfo{FullMethod: "/polgraph.v1.GraphService/FindPaths"}
	entity := &grpc.UnaryServerInfo{FullMethod: "/polgraph.v1.GraphService/GetEntity"}
	ctx := context.Background()

	var wg sync.WaitGroup
	results := make(chan error, 3)
	for range 3 { // two run, one waits
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := intercept(ctx, nil, paths, blocking)
			results <- err
		}()
	}
	waitFor(t, func() bool {
		return len(l.methods[paths.FullMethod].running) == 2 && l.methods[paths.FullMethod].waiting.Load() == 1
	})

	_, err := intercept(ctx, nil, paths, blocking)
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted {
		t.Fatalf("a call over the limit and the queue: %v, want RESOURCE_EXHAUSTED", err)
	}
	var retry *errdetails.RetryInfo
	for _, d := range st.Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 {
		t.Errorf("the refusal carries no retry delay: %v", st.Details())
	}
	if got := l.Refused(paths.FullMethod); got != 1 {
		t.Errorf("Refused = %d, want 1", got)
	}
	if out, err := intercept(ctx, nil, entity, quick); err != nil || out != "quick" {
		t.Errorf("another method while FindPaths is flooded: %v %v", out, err)
	}
	if out, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/grpc.health.v1.Health/Check"}, quick); err != nil || out != "quick" {
		t.Errorf("an unlimited method: %v %v", out, err)
	}
	close(release)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Errorf("a call that ran or waited its turn: %v", err)
		}
	}
}

// TestLimiterRefusesAfterMaxWait: a call that waits longer than MaxWait is refused, and one whose
// deadline passes while it waits ends DEADLINE_EXCEEDED.
func TestLimiterRefusesAfterMaxWait(t *testing.T) {
	l := NewLimiter(Limits{InFlight: 1, Queued: 5, MaxWait: 50 * time.Millisecond}, slog.New(slog.DiscardHandler), pb.GraphService_ServiceDesc)
	var mu sync.Mutex
	var told []string
	l.OnRefused(func(_ context.Context, method, reason string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, method+" "+reason)
	})
	intercept := l.Unary()
	info := &grpc.UnaryServerInfo{FullMethod: "/polgraph.v1.GraphService/ExploreNeighborhood"}
	release := make(chan struct{})
	defer close(release)
	go intercept(context.Background(), nil, info, func(ctx context.Context, req any) (any, error) { <-release; return nil, nil })
	waitFor(t, func() bool { return len(l.methods[info.FullMethod].running) == 1 })

	_, err := intercept(context.Background(), nil, info, func(ctx context.Context, req any) (any, error) { return nil, nil })
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("after MaxWait: %v, want RESOURCE_EXHAUSTED", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = intercept(ctx, nil, info, func(ctx context.Context, req any) (any, error) { return nil, nil })
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("deadline passed while waiting: %v, want DEADLINE_EXCEEDED", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{info.FullMethod + " TOO_MANY_REQUESTS", info.FullMethod + " DEADLINE_EXCEEDED"}
	if strings.Join(told, "|") != strings.Join(want, "|") {
		t.Errorf("the refusal hook was told %q, want %q", told, want)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLimiterCallsTheHookForWaitingCallsOnly: a call that gets its turn at once runs with its own context;
// one that waits has the BeforeWaiting hook called once, with its method, as it starts waiting, and runs
// with the hook's context, unary or streaming.
func TestLimiterCallsTheHookForWaitingCallsOnly(t *testing.T) {
	type key struct{}
	l := NewLimiter(Limits{InFlight: 1, Queued: 5, MaxWait: time.Minute}, slog.New(slog.DiscardHandler), pb.GraphService_ServiceDesc)
	var mu sync.Mutex
	var hooked []string
	l.BeforeWaiting(func(ctx context.Context, method string) context.Context {
		mu.Lock()
		hooked = append(hooked, method)
		mu.Unlock()
		return context.WithValue(ctx, key{}, method)
	})
	paths := &grpc.UnaryServerInfo{FullMethod: "/polgraph.v1.GraphService/FindPaths"}
	export := &grpc.StreamServerInfo{FullMethod: "/polgraph.v1.GraphService/ExportGraph", IsServerStream: true}
	release := make(chan struct{})
	seen := make(chan any, 3)
	blocking := func(ctx context.Context, req any) (any, error) { seen <- ctx.Value(key{}); <-release; return nil, nil }
	quick := func(ctx context.Context, req any) (any, error) { seen <- ctx.Value(key{}); return nil, nil }
	ctx := context.Background()

	done := make(chan error, 3)
	go func() { _, err := l.Unary()(ctx, nil, paths, blocking); done <- err }()
	if got := <-seen; got != nil {
		t.Errorf("a call that did not wait ran with the hook's context (%v)", got)
	}
	go func() { _, err := l.Unary()(ctx, nil, paths, quick); done <- err }()
	waitFor(t, func() bool { return l.methods[paths.FullMethod].waiting.Load() == 1 })

	// A stream of another method waits as well, behind a call of its own method.
	streamRelease := make(chan struct{})
	go func() {
		_ = l.Stream()(nil, fakeStream{ctx}, export, func(any, grpc.ServerStream) error { <-streamRelease; return nil })
	}()
	waitFor(t, func() bool { return len(l.methods[export.FullMethod].running) == 1 })
	go func() {
		done <- l.Stream()(nil, fakeStream{ctx}, export, func(_ any, ss grpc.ServerStream) error { seen <- ss.Context().Value(key{}); return nil })
	}()
	waitFor(t, func() bool { return l.methods[export.FullMethod].waiting.Load() == 1 })

	close(release)
	close(streamRelease)
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	close(seen)
	got := map[any]int{}
	for v := range seen {
		got[v]++
	}
	if got[paths.FullMethod] != 1 || got[export.FullMethod] != 1 {
		t.Errorf("the waiting calls ran with %v; want the hook's context for one FindPaths and one ExportGraph", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hooked) != 2 {
		t.Errorf("the hook was called for %v; want once for each waiting call", hooked)
	}
}

// fakeStream is a server stream that has only a context.
type fakeStream struct{ ctx context.Context }

func (s fakeStream) Context() context.Context   { return s.ctx }
func (fakeStream) SetHeader(metadata.MD) error  { return nil }
func (fakeStream) SendHeader(metadata.MD) error { return nil }
func (fakeStream) SetTrailer(metadata.MD)       {}
func (fakeStream) SendMsg(any) error            { return nil }
func (fakeStream) RecvMsg(any) error            { return nil }
