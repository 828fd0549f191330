package dgraph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
)

// Alphas splits a comma-separated list of alpha addresses, each host:port, refusing empty or malformed
// entries and repeats.
func Alphas(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			return nil, fmt.Errorf("Dgraph address %q: an empty entry in the list of alphas", list)
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("Dgraph address %q: want host:port: %v", a, err)
		}
		if seen[a] {
			return nil, fmt.Errorf("Dgraph address %q: listed twice", a)
		}
		seen[a] = true
		out = append(out, a)
	}
	return out, nil
}

// reconnect is how soon polgraph tries an alpha again after losing it: within a second, whatever the
// outage's length (gRPC's default grows to two minutes, so polgraph came back long after Dgraph did).
var reconnect = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
	MinConnectTimeout: 2 * time.Second,
}

// alphaPool is the api.DgraphClient polgraph's dgo client calls through: the alphas of one cluster, each
// on its own connection. Each call goes to the next ready alpha in turn; a call an alpha refuses as
// unavailable or not ready (it is down, starting, or its group has no leader) is tried on the next one,
// within the call's deadline, and that alpha is set aside until a probe finds it ready again. Every write
// polgraph sends is an upsert by name, so a write tried again is written once.
//
// An alpha is ready when it answers and shows at least the newest graph version the store has read: an
// alpha that restarted and rejoined its group shows polgraph's user nothing, then an old graph, until its
// access rules are loaded and it has caught up with the group, and must not answer meanwhile.
type alphaPool struct {
	alphas []*alpha
	next   atomic.Uint64
}

type alpha struct {
	addr  string
	conn  *grpc.ClientConn
	api   api.DgraphClient
	probe *dgo.Dgraph // a client of this alpha alone, for probes
	ready atomic.Bool

	loginMu  sync.Mutex
	loggedIn bool
}

var _ api.DgraphClient = (*alphaPool)(nil)

// dialPool connects to each alpha of addrs with opts.
func dialPool(addrs []string, opts []grpc.DialOption) (*alphaPool, error) {
	p := &alphaPool{}
	for _, addr := range addrs {
		conn, err := grpc.NewClient(addr, append(opts, grpc.WithConnectParams(reconnect))...)
		if err != nil {
			p.Close()
			return nil, err
		}
		c := api.NewDgraphClient(conn)
		a := &alpha{addr: addr, conn: conn, api: c, probe: dgo.NewDgraphClient(c)}
		a.ready.Store(true)
		p.alphas = append(p.alphas, a)
	}
	return p, nil
}

// Close closes every connection.
func (p *alphaPool) Close() error {
	var errs []error
	for _, a := range p.alphas {
		errs = append(errs, a.conn.Close())
	}
	return errors.Join(errs...)
}

// order is the alphas a call tries, in turn: the ready ones, from the next in the rotation, then those
// set aside (better a try than no answer when none is ready).
func (p *alphaPool) order() []*alpha {
	n := len(p.alphas)
	if n == 1 {
		return p.alphas
	}
	start := int(p.next.Add(1) % uint64(n))
	out := make([]*alpha, 0, n)
	var aside []*alpha
	for i := range n {
		a := p.alphas[(start+i)%n]
		if a.ready.Load() {
			out = append(out, a)
		} else {
			aside = append(aside, a)
		}
	}
	return append(out, aside...)
}

// pinned holds the alpha that the calls made under one context go to (withPinnedAlpha).
type pinned struct{ a atomic.Pointer[alpha] }

type pinnedKey struct{}

// withPinnedAlpha returns a context under which the pool's calls go to the alpha that answered the first
// of them, for as long as it answers (set aside or not), and then to the one that answers next: the
// queries of one transaction read one alpha's view of its snapshot. Any alpha answers any query at the
// transaction's timestamp, but one that lags behind its group answers with an older graph than the
// others (see alphaPool); spread over several alphas, a transaction could read the graph's version on one
// and the changes up to that version on another that lacks some of them.
func withPinnedAlpha(ctx context.Context) context.Context {
	return context.WithValue(ctx, pinnedKey{}, &pinned{})
}

// do runs call on the alphas in turn until one answers, or refuses for a reason another alpha would share
// (a refusal of polgraph's user's rights is tried on every alpha):
// first the alpha ctx is pinned to, if any (withPinnedAlpha), else the ready ones from the next in the
// rotation.
func (p *alphaPool) do(ctx context.Context, call func(api.DgraphClient) error) error {
	var err error
	order := p.order()
	pin, _ := ctx.Value(pinnedKey{}).(*pinned)
	if pin != nil {
		if a := pin.a.Load(); a != nil && order[0] != a {
			order = append([]*alpha{a}, slices.DeleteFunc(order, func(b *alpha) bool { return b == a })...)
		}
	}
	for _, a := range order {
		if err = call(a.api); err == nil && pin != nil {
			pin.a.Store(a)
		}
		if err == nil || ctx.Err() != nil {
			return err
		}
		if status.Code(err) == codes.PermissionDenied {
			// Each alpha applies the access rules from its own copy, updated on its own schedule: one can
			// refuse for a moment what the others allow (seen once in three cluster drills, on a load's
			// write after every alpha had allowed polgraph's writes). It is not set aside; the refusal
			// stands when every alpha refuses.
			continue
		}
		if !elsewhere(err) {
			return err
		}
		if len(p.alphas) > 1 {
			a.ready.Store(false)
		}
	}
	return err
}

// elsewhere reports whether another alpha may answer what this one refused: it could not be reached, or
// is not ready.
func elsewhere(err error) bool {
	return status.Code(err) == codes.Unavailable || notReady(err)
}

func (p *alphaPool) Login(ctx context.Context, in *api.LoginRequest, opts ...grpc.CallOption) (out *api.Response, err error) {
	err = p.do(ctx, func(c api.DgraphClient) (e error) { out, e = c.Login(ctx, in, opts...); return e })
	return out, err
}

func (p *alphaPool) Query(ctx context.Context, in *api.Request, opts ...grpc.CallOption) (out *api.Response, err error) {
	err = p.do(ctx, func(c api.DgraphClient) (e error) { out, e = c.Query(ctx, in, opts...); return e })
	return out, err
}

func (p *alphaPool) Alter(ctx context.Context, in *api.Operation, opts ...grpc.CallOption) (out *api.Payload, err error) {
	err = p.do(ctx, func(c api.DgraphClient) (e error) { out, e = c.Alter(ctx, in, opts...); return e })
	return out, err
}

func (p *alphaPool) CommitOrAbort(ctx context.Context, in *api.TxnContext, opts ...grpc.CallOption) (out *api.TxnContext, err error) {
	err = p.do(ctx, func(c api.DgraphClient) (e error) { out, e = c.CommitOrAbort(ctx, in, opts...); return e })
	return out, err
}

func (p *alphaPool) CheckVersion(ctx context.Context, in *api.Check, opts ...grpc.CallOption) (out *api.Version, err error) {
	err = p.do(ctx, func(c api.DgraphClient) (e error) { out, e = c.CheckVersion(ctx, in, opts...); return e })
	return out, err
}

// probeInterval is how often each alpha of a cluster is asked whether it is ready.
const probeInterval = time.Second

// watch probes every alpha every probeInterval until ctx is done (recheck). check tells, through one
// alpha's own client, whether it is ready; login logs that client in. A pool of one alpha is not probed:
// there is no other to send calls to.
func (p *alphaPool) watch(ctx context.Context, check func(context.Context, *dgo.Dgraph) error, login func(context.Context, *dgo.Dgraph) error, log *slog.Logger) {
	if len(p.alphas) < 2 {
		return
	}
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p.recheck(ctx, check, login, log)
	}
}

// recheck asks every alpha at once, each through its own client and within probeInterval, whether it is
// ready (check, after login), sets aside those that are not and takes back those that are, logging each
// change; nothing changes once ctx is done. It returns nil when one alpha is ready, else the first
// refusal.
func (p *alphaPool) recheck(ctx context.Context, check, login func(context.Context, *dgo.Dgraph) error, log *slog.Logger) error {
	errs := make([]error, len(p.alphas))
	var wg sync.WaitGroup
	for i, a := range p.alphas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx, cancel := context.WithTimeout(ctx, probeInterval)
			defer cancel()
			err := a.check(actx, check, login)
			errs[i] = err
			if ready := err == nil; ready != a.ready.Load() && ctx.Err() == nil {
				a.ready.Store(ready)
				if ready {
					log.Info("a Dgraph alpha is ready again; calls go to it", "alpha", a.addr)
				} else {
					log.Warn("a Dgraph alpha is not ready; calls go to the others", "alpha", a.addr, "err", err)
				}
			}
		}()
	}
	wg.Wait()
	if slices.Contains(errs, nil) {
		return nil
	}
	return errs[0]
}

// loginLost reports whether an alpha refused a call for want of a valid login (its session expired, or it
// restarted and lost it).
func loginLost(err error) bool {
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Reason == "DATABASE_LOGIN_REFUSED" {
		return true
	}
	return status.Code(err) == codes.Unauthenticated
}

// check asks the alpha, through its probe client logged in first, whether it is ready. A login the alpha
// no longer accepts is made again at the next check.
func (a *alpha) check(ctx context.Context, check, login func(context.Context, *dgo.Dgraph) error) error {
	if err := a.login(ctx, login); err != nil {
		return err
	}
	err := check(ctx, a.probe)
	if loginLost(err) {
		a.loginMu.Lock()
		a.loggedIn = false
		a.loginMu.Unlock()
	}
	return err
}

// login logs the alpha's probe client in, once.
func (a *alpha) login(ctx context.Context, login func(context.Context, *dgo.Dgraph) error) error {
	a.loginMu.Lock()
	defer a.loginMu.Unlock()
	if a.loggedIn {
		return nil
	}
	if err := login(ctx, a.probe); err != nil {
		return err
	}
	a.loggedIn = true
	return nil
}
