package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
)

// fakeDatabase answers pings as told: up, refusing at once, or hanging until the ping's deadline.
type fakeDatabase struct {
	mu    sync.Mutex
	state string // "up", "refusing", "hanging"
	pings atomic.Int64
}

func (d *fakeDatabase) set(state string) { d.mu.Lock(); d.state = state; d.mu.Unlock() }

func (d *fakeDatabase) ping(ctx context.Context) error {
	d.pings.Add(1)
	d.mu.Lock()
	state := d.state
	d.mu.Unlock()
	switch state {
	case "refusing":
		return &graph.Error{Kind: graph.Unavailable, Message: "cannot reach Dgraph at 127.0.0.1:1"}
	case "hanging":
		<-ctx.Done()
		return &graph.Error{Kind: graph.DeadlineExceeded, Message: "the query ran out of time"}
	}
	return nil
}

func startWatch(t *testing.T, db *fakeDatabase, changes chan bool) *DatabaseWatch {
	t.Helper()
	w := &DatabaseWatch{Ping: db.ping, Log: slog.New(slog.DiscardHandler), Interval: time.Hour, Services: []string{"polgraph.v1.GraphService"},
		OnChange: func(up bool, _ error) { changes <- up }}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go w.Run(ctx)
	return w
}

var guarded = &grpc.UnaryServerInfo{FullMethod: "/polgraph.v1.GraphService/FindPaths"}

func TestDatabaseWatchRefusesAtOnceWhileDown(t *testing.T) {
	t.Parallel()
	db := &fakeDatabase{state: "up"}
	changes := make(chan bool, 10)
	w := startWatch(t, db, changes)
	intercept := w.Unary()
	ok := func(context.Context, any) (any, error) { return "answer", nil }
	if got, err := intercept(context.Background(), nil, guarded, ok); err != nil || got != "answer" {
		t.Fatalf("with the database up: %v %v", got, err)
	}

	// A call fails as unavailable: the watch asks the database at once (its interval is an hour).
	db.set("refusing")
	failing := func(context.Context, any) (any, error) {
		return nil, status.Error(codes.Unavailable, "cannot reach Dgraph")
	}
	if _, err := intercept(context.Background(), nil, guarded, failing); status.Code(err) != codes.Unavailable {
		t.Fatalf("failed call: %v", err)
	}
	select {
	case up := <-changes:
		if up {
			t.Fatal("the watch says up after the database refused")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not act on a failed call")
	}
	if w.Up() {
		t.Error("Up() after the database refused")
	}

	// Now a guarded call is refused without running, with a reason, the cause's message and a retry delay;
	// other services pass.
	ran := false
	_, err := intercept(context.Background(), nil, guarded, func(context.Context, any) (any, error) { ran = true; return nil, nil })
	if ran {
		t.Error("a guarded call ran while the database was down")
	}
	st := status.Convert(err)
	if st.Code() != codes.Unavailable || st.Message() != "cannot reach Dgraph at 127.0.0.1:1; polgraph serves again as soon as it does" {
		t.Errorf("refusal: %v %q", st.Code(), st.Message())
	}
	var reason string
	var retry bool
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			reason = d.GetReason()
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration() > 0
		}
	}
	if reason != "DATABASE_UNAVAILABLE" || !retry {
		t.Errorf("refusal's reason %q, retry info %v", reason, retry)
	}
	health := &grpc.UnaryServerInfo{FullMethod: "/grpc.health.v1.Health/Check"}
	if _, err := intercept(context.Background(), nil, health, ok); err != nil {
		t.Errorf("an unguarded service was refused: %v", err)
	}

	// The database returns: the watch, asking every RecheckInterval, serves again.
	db.set("up")
	select {
	case up := <-changes:
		if !up {
			t.Fatal("the watch says down again")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not see the database return")
	}
	if _, err := intercept(context.Background(), nil, guarded, ok); err != nil {
		t.Errorf("after the database returned: %v", err)
	}
}

func TestDatabaseWatchEndsCallsWaitingOnAHungDatabase(t *testing.T) {
	t.Parallel()
	db := &fakeDatabase{state: "up"}
	changes := make(chan bool, 10)
	w := startWatch(t, db, changes)
	intercept := w.Unary()
	db.set("hanging")
	// A call waits on the database (as every query does when Dgraph's zero is gone) with a long deadline;
	// another fails for lack of time and makes the watch ask: the hung ping marks the database down, and
	// the waiting call ends UNAVAILABLE long before its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := intercept(ctx, nil, guarded, func(ctx context.Context, _ any) (any, error) {
			<-ctx.Done()
			return nil, status.FromContextError(ctx.Err()).Err()
		})
		done <- err
	}()
	intercept(context.Background(), nil, guarded, func(context.Context, any) (any, error) {
		return nil, status.Error(codes.DeadlineExceeded, "out of time")
	})
	select {
	case err := <-done:
		if status.Code(err) != codes.Unavailable {
			t.Errorf("the waiting call ended %v, want UNAVAILABLE", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting call was not ended when the database was found down")
	}
	if ctx.Err() != nil {
		t.Error("the call's own deadline passed first")
	}
}

func TestDatabaseWatchTakesOneSlowAnswerForSlowness(t *testing.T) {
	t.Parallel()
	db := &fakeDatabase{state: "hanging"}
	changes := make(chan bool, 10)
	w := &DatabaseWatch{Ping: db.ping, Log: slog.New(slog.DiscardHandler), Interval: 50 * time.Millisecond,
		OnChange: func(up bool, _ error) { changes <- up }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	// The first unanswered ping, not prompted by a failed call, leaves the verdict alone; the second in a
	// row turns it.
	for db.pings.Load() < 2 {
		time.Sleep(10 * time.Millisecond)
		if len(changes) > 0 {
			t.Fatal("one slow answer turned the verdict")
		}
	}
	select {
	case up := <-changes:
		if up {
			t.Fatal("up?")
		}
		if n := db.pings.Load(); n < 2 {
			t.Errorf("down after %d pings, want 2", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("two unanswered pings in a row did not turn the verdict")
	}
}

func TestDeadlineExceededHasItsOwnReason(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	for _, err := range []error{
		errors.New("a failure while the deadline passed"),
		&graph.Error{Kind: graph.DeadlineExceeded, Message: "the query ran out of time"},
		&graph.Error{Kind: graph.Unavailable, Message: "cannot reach Dgraph"},
	} {
		st := status.Convert(toStatus(ctx, slog.New(slog.DiscardHandler), "/m", err))
		if st.Code() != codes.DeadlineExceeded {
			t.Errorf("%v: code %v", err, st.Code())
		}
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() != "DEADLINE_EXCEEDED" {
				t.Errorf("%v: reason %q, want DEADLINE_EXCEEDED", err, info.GetReason())
			}
		}
	}
	// The service's own bound on a query passed, not the caller's deadline: an error the domain did not
	// type, wrapping the end of that bound, is a deadline too; a typed one keeps its kind.
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{fmt.Errorf("waiting: %w", context.DeadlineExceeded), codes.DeadlineExceeded},
		{errors.New("a failure"), codes.Internal},
		{&graph.Error{Kind: graph.Unavailable, Message: "cannot reach Dgraph", Err: context.DeadlineExceeded}, codes.Unavailable},
	} {
		if got := status.Code(toStatus(context.Background(), slog.New(slog.DiscardHandler), "/m", tc.err)); got != tc.want {
			t.Errorf("%v, the caller's deadline not passed: code %v, want %v", tc.err, got, tc.want)
		}
	}
}
