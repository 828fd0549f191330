package rpc

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
)

// DatabaseWatch knows whether the database answers, and acts on it:
//   - it asks the database every Interval, and at once when a call has just failed as unavailable or out
//     of time, so that its verdict follows a failure within a second;
//   - while the database does not answer, calls of the services it guards are refused at once with
//     UNAVAILABLE (reason DATABASE_UNAVAILABLE) and a retry delay, instead of each waiting out its deadline
//     (a Dgraph whose zero is gone takes every query's whole deadline to fail), and the calls already
//     waiting on the database are ended with the same answer;
//   - OnChange hears every change of verdict (the health service's status, a metric).
//
// Run must be running for the watch to change its verdict; it starts believing the database answers.
type DatabaseWatch struct {
	// Ping asks the database whether it answers; it must return once its context is done.
	Ping func(ctx context.Context) error
	// OnChange, when set, is called with each new verdict, from Run's goroutine.
	OnChange func(up bool, err error)
	Log      *slog.Logger
	// Interval is how often the database is asked while it answers (DefaultWatchInterval when 0); while
	// it does not, it is asked every RecheckInterval.
	Interval time.Duration
	// OnRefused, when set, hears of each call turned away (reason DATABASE_UNAVAILABLE).
	OnRefused RefusalHook
	// Services are the full names of the services guarded (e.g. polgraph.v1.GraphService); calls of
	// others (health, reflection) always pass.
	Services []string

	once  sync.Once
	kick  chan struct{}
	mu    sync.Mutex
	down  bool
	downs int             // how many times Down was called: a question asked before the last one says nothing
	why   string          // what the last failed question to the database said, for the callers refused
	epoch context.Context // done when the database is found down
	end   context.CancelCauseFunc
}

// DefaultWatchInterval is how often the database is asked whether it answers while it does.
const DefaultWatchInterval = time.Second

// RecheckInterval is how often the database is asked while it does not answer: how soon after its return
// polgraph serves again.
const RecheckInterval = 250 * time.Millisecond

// pingTimeout bounds one question to the database. A Dgraph that does not answer a trivial query within it
// is taken as down only when asked after a failed call or twice in a row, so that one slow answer under
// load does not turn callers away.
const pingTimeout = 900 * time.Millisecond

// errDatabaseDown is the cause of the contexts of calls ended because the database was found down.
var errDatabaseDown = errors.New("the database stopped answering")

func (w *DatabaseWatch) init() {
	w.once.Do(func() {
		w.kick = make(chan struct{}, 1)
		w.epoch, w.end = context.WithCancelCause(context.Background())
		if w.Log == nil {
			w.Log = slog.New(slog.DiscardHandler)
		}
	})
}

// Up reports the watch's verdict: whether the database answered when last asked.
func (w *DatabaseWatch) Up() bool {
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.down
}

// Down tells the watch the database cannot answer, for a reason it knows better than a question would
// (the process that runs it died): calls are refused and the calls waiting are ended at once, and the
// database is asked again every RecheckInterval until it answers.
func (w *DatabaseWatch) Down(err error) {
	w.init()
	w.mu.Lock()
	w.downs++
	w.mu.Unlock()
	w.set(false, err)
}

// Suspect asks the watch to ask the database now (a call has just failed as if it were down).
func (w *DatabaseWatch) Suspect() {
	w.init()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run asks the database until ctx is done.
func (w *DatabaseWatch) Run(ctx context.Context) {
	w.init()
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	slow := 0 // questions in a row that went unanswered in time while the database was up
	for {
		wait := interval
		if !w.Up() {
			wait = RecheckInterval
		}
		kicked := false
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-w.kick:
			kicked = true
		}
		w.mu.Lock()
		downs := w.downs
		w.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := w.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		stale := w.downs != downs
		w.mu.Unlock()
		if stale {
			continue // Down was told meanwhile: this answer may predate what it knew
		}
		if err != nil && w.Up() && !kicked && graph.KindOf(err) == graph.DeadlineExceeded {
			if slow++; slow < 2 {
				continue
			}
		}
		if err == nil {
			slow = 0
		}
		w.set(err == nil, err)
	}
}

// set records a verdict, ends the calls waiting on a database found down, and tells OnChange.
func (w *DatabaseWatch) set(up bool, err error) {
	w.mu.Lock()
	changed := w.down == up
	if !up {
		w.why = "the database does not answer"
		var ge *graph.Error
		if errors.As(err, &ge) && ge.Kind != graph.Internal {
			w.why = ge.Message
		}
	}
	if changed {
		w.down = !up
		if up {
			w.epoch, w.end = context.WithCancelCause(context.Background())
		} else {
			w.end(errDatabaseDown)
		}
	}
	w.mu.Unlock()
	if !changed {
		return
	}
	if up {
		w.Log.Info("the database answers again")
	} else {
		w.Log.Warn("the database does not answer; calls are refused with UNAVAILABLE until it does", "err", err)
	}
	if w.OnChange != nil {
		w.OnChange(up, err)
	}
}

// guards reports whether method belongs to a guarded service.
func (w *DatabaseWatch) guards(method string) bool {
	for _, s := range w.Services {
		if strings.HasPrefix(method, "/"+s+"/") {
			return true
		}
	}
	return false
}

// bind returns ctx ended (with errDatabaseDown as its cause) when the database is found down, or an
// error when it is down already.
func (w *DatabaseWatch) bind(ctx context.Context) (context.Context, func(), error) {
	w.mu.Lock()
	down, epoch := w.down, w.epoch
	w.mu.Unlock()
	if down {
		return nil, nil, errDatabaseDown
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(epoch, func() { cancel(errDatabaseDown) })
	return ctx, func() { stop(); cancel(nil) }, nil
}

// verdict turns a call's outcome into what the caller gets: a call ended because the database went down
// is UNAVAILABLE; a call that failed as unavailable or out of time makes the watch ask the database now.
func (w *DatabaseWatch) verdict(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(context.Cause(ctx), errDatabaseDown) {
		return w.refusal(ctx, method)
	}
	if c := status.Code(err); c == codes.Unavailable || c == codes.DeadlineExceeded {
		w.Suspect()
	}
	return err
}

func (w *DatabaseWatch) refusal(ctx context.Context, method string) error {
	if w.OnRefused != nil {
		w.OnRefused(ctx, method, "DATABASE_UNAVAILABLE")
	}
	w.mu.Lock()
	why := w.why
	w.mu.Unlock()
	return toStatus(ctx, w.Log, method, &graph.Error{Op: method, Kind: graph.Unavailable, Reason: "DATABASE_UNAVAILABLE",
		Message: why + "; polgraph serves again as soon as it does", RetryAfter: time.Second})
}

// Unary is the watch's interceptor for unary calls.
func (w *DatabaseWatch) Unary() grpc.UnaryServerInterceptor {
	w.init()
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if !w.guards(info.FullMethod) {
			return handler(ctx, req)
		}
		bound, release, err := w.bind(ctx)
		if err != nil {
			return nil, w.refusal(ctx, info.FullMethod)
		}
		defer release()
		resp, err := handler(bound, req)
		return resp, w.verdict(bound, info.FullMethod, err)
	}
}

// Stream is the watch's interceptor for streaming calls.
func (w *DatabaseWatch) Stream() grpc.StreamServerInterceptor {
	w.init()
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if !w.guards(info.FullMethod) {
			return handler(srv, ss)
		}
		bound, release, err := w.bind(ss.Context())
		if err != nil {
			return w.refusal(ss.Context(), info.FullMethod)
		}
		defer release()
		return w.verdict(bound, info.FullMethod, handler(srv, boundStream{ss, bound}))
	}
}

// boundStream is a server stream with the context the watch gave it.
type boundStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s boundStream) Context() context.Context { return s.ctx }
