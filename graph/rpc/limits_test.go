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
