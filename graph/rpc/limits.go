package rpc

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
)

// Limits bound how many calls of one method run at once and how many may wait for a turn.
type Limits struct {
	InFlight int           // calls of one method running at once
	Queued   int           // calls of one method waiting for a turn; more are refused at once
	MaxWait  time.Duration // the longest a call waits for a turn (and never past its deadline)
}

// DefaultLimits suit the machine: enough calls in flight to keep every core busy while some wait on the
// database, and a queue that absorbs bursts of many clients without letting a flood pile up.
func DefaultLimits() Limits {
	return Limits{InFlight: max(8, 4*runtime.GOMAXPROCS(0)), Queued: 256, MaxWait: 2 * time.Second}
}

// openEnded are the streams that last as long as their callers want: taking a turn for the whole of one
// would leave a handful of watchers holding every turn. The change feed bounds its watchers itself
// (graph/live).
var openEnded = map[string]bool{pb.GraphService_WatchChanges_FullMethodName: true}

// Limiter gives each method of the services it guards its own turns, so that a flood of one kind of call
// (a million searches) cannot starve the others: a call over its method's limit waits in a short queue,
// and is refused with RESOURCE_EXHAUSTED and a retry delay when the queue is full or its wait is over.
type Limiter struct {
	limits  Limits
	log     *slog.Logger
	methods map[string]*turns
	refused RefusalHook
	waiting func(ctx context.Context, method string) context.Context
}

type turns struct {
	running chan struct{}
	waiting atomic.Int64
	refused atomic.Int64
}

// NewLimiter returns a Limiter for the methods of the services named (e.g. "polgraph.v1.GraphService"),
// as srv would register them; other methods (health, reflection) are not limited.
func NewLimiter(limits Limits, log *slog.Logger, services ...grpc.ServiceDesc) *Limiter {
	l := &Limiter{limits: limits, log: log, methods: map[string]*turns{}}
	for _, sd := range services {
		for _, m := range sd.Methods {
			l.methods["/"+sd.ServiceName+"/"+m.MethodName] = &turns{running: make(chan struct{}, limits.InFlight)}
		}
		for _, m := range sd.Streams {
			name := "/" + sd.ServiceName + "/" + m.StreamName
			if openEnded[name] {
				continue
			}
			l.methods[name] = &turns{running: make(chan struct{}, limits.InFlight)}
		}
	}
	return l
}

// OnRefused has hook told of every call the limiter refuses. It must be called before the limiter serves.
func (l *Limiter) OnRefused(hook RefusalHook) { l.refused = hook }

// BeforeWaiting has hook called for every call that must wait for a turn, as it starts waiting; the call
// runs with the context the hook returns. A service starts there what the call will need whatever its
// turn (memgraph.Topology.VersionAhead reads the graph's version, shared by the calls waiting together). It
// must be called before the limiter serves.
func (l *Limiter) BeforeWaiting(hook func(ctx context.Context, method string) context.Context) {
	l.waiting = hook
}

// ReadsVersionAhead is the BeforeWaiting hook of a server whose reads come from topo: a call of the graph
// service that waits for its turn starts reading the graph's version meanwhile (memgraph.Topology.VersionAhead),
// shared with the other calls waiting.
func ReadsVersionAhead(topo *memgraph.Topology) func(ctx context.Context, method string) context.Context {
	prefix := "/" + pb.GraphService_ServiceDesc.ServiceName + "/"
	return func(ctx context.Context, method string) context.Context {
		if strings.HasPrefix(method, prefix) {
			return topo.VersionAhead(ctx)
		}
		return ctx
	}
}

// Refused returns how many calls of a method (its full name, /service/Method) were refused.
func (l *Limiter) Refused(method string) int64 {
	if t, ok := l.methods[method]; ok {
		return t.refused.Load()
	}
	return 0
}

// Unary is the interceptor that applies the limits to unary calls.
func (l *Limiter) Unary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		t, ok := l.methods[info.FullMethod]
		if !ok {
			return handler(ctx, req)
		}
		ctx, err := l.acquire(ctx, t, info.FullMethod)
		if err != nil {
			return nil, err
		}
		defer func() { <-t.running }()
		return handler(ctx, req)
	}
}

// Stream is the interceptor that applies the limits to streaming calls, for the whole stream.
func (l *Limiter) Stream() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		t, ok := l.methods[info.FullMethod]
		if !ok {
			return handler(srv, ss)
		}
		ctx, err := l.acquire(ss.Context(), t, info.FullMethod)
		if err != nil {
			return err
		}
		defer func() { <-t.running }()
		if ctx != ss.Context() {
			ss = streamWithContext{ss, ctx}
		}
		return handler(srv, ss)
	}
}

// streamWithContext is a stream whose handler runs with another context.
type streamWithContext struct {
	grpc.ServerStream
	ctx context.Context
}

func (s streamWithContext) Context() context.Context { return s.ctx }

// acquire takes a turn for a call of method, waiting for one if need be, and returns the context the call
// runs with (the BeforeWaiting hook's, when it waited).
func (l *Limiter) acquire(ctx context.Context, t *turns, method string) (context.Context, error) {
	select {
	case t.running <- struct{}{}:
		return ctx, nil
	default:
	}
	refuse := func(why string) error {
		t.refused.Add(1)
		name := method[strings.LastIndexByte(method, '/')+1:]
		return l.refuse(ctx, method, name, &graph.Error{Op: name, Kind: graph.ResourceExhausted, Reason: "TOO_MANY_REQUESTS",
			Message: "too many " + name + " calls at once (" + why + "); try again shortly", RetryAfter: time.Second})
	}
	if t.waiting.Add(1) > int64(l.limits.Queued) {
		t.waiting.Add(-1)
		return ctx, refuse("the queue is full")
	}
	defer t.waiting.Add(-1)
	if l.waiting != nil {
		ctx = l.waiting(ctx, method)
	}
	timer := time.NewTimer(l.limits.MaxWait)
	defer timer.Stop()
	select {
	case t.running <- struct{}{}:
		return ctx, nil
	case <-timer.C:
		return ctx, refuse("no turn within " + l.limits.MaxWait.String())
	case <-ctx.Done():
		return ctx, l.refuse(ctx, method, method, &graph.Error{Op: method, Kind: graph.DeadlineExceeded, Message: "the deadline passed while waiting for a turn", Err: ctx.Err()})
	}
}

// refuse turns err into the status refusing a call of method (logged as name), and tells the hook.
func (l *Limiter) refuse(ctx context.Context, method, name string, err error) error {
	st := toStatus(ctx, l.log, name, err)
	if l.refused != nil {
		l.refused(ctx, method, refusalReason(err, st))
	}
	return st
}
