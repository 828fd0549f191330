package dgraph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"github.com/polgraph/polgraph/graph"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// fakeAlpha is a gRPC server answering Dgraph's Query, counting the calls: with the graph version
// version when it is set (whatever the query), else with an empty answer.
type fakeAlpha struct {
	api.UnimplementedDgraphServer
	calls   atomic.Int64
	version atomic.Int64
	deny    atomic.Bool // refuse every call as Dgraph's ACL refuses a user's write
}

func (f *fakeAlpha) Query(context.Context, *api.Request) (*api.Response, error) {
	f.calls.Add(1)
	if f.deny.Load() {
		return nil, status.Error(codes.PermissionDenied, "unauthorized to mutate following predicates: dgraph.type pg.name")
	}
	if v := f.version.Load(); v > 0 {
		return &api.Response{Json: fmt.Appendf(nil, `{"q":[{"pg.version":%d}]}`, v)}, nil
	}
	return &api.Response{Json: []byte(`{}`)}, nil
}

// serveFake serves f on addr ("127.0.0.1:0" for any port) and returns the address and a stop function.
func serveFake(t *testing.T, f *fakeAlpha, addr string) (string, func()) {
	t.Helper()
	var lis net.Listener
	var err error
	for range 50 { // the port of a server just stopped may take a moment to be free again
		if lis, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	api.RegisterDgraphServer(srv, f)
	go srv.Serve(lis)
	return lis.Addr().String(), srv.Stop
}

// fakePool dials the alphas at addrs, and closes the pool when the test ends.
func fakePool(t *testing.T, addrs ...string) *alphaPool {
	t.Helper()
	pool, err := dialPool(addrs, []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

func TestAlphasRefusesBadLists(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "a:1,", "a:1,,b:2", "nohost", "a:1,a:1"} {
		if _, err := Alphas(bad); err == nil {
			t.Errorf("Alphas(%q) took it", bad)
		}
	}
	got, err := Alphas(" a:1, b:2 ")
	if err != nil || len(got) != 2 || got[0] != "a:1" || got[1] != "b:2" {
		t.Errorf("Alphas: %v %v", got, err)
	}
}

// TestPoolTriesAnotherAlphaAndSkipsThoseNotReady: a call goes to the next ready alpha; one that is down is
// tried and then set aside; one set aside gets no calls while another is ready.
func TestPoolTriesAnotherAlphaAndSkipsThoseNotReady(t *testing.T) {
	t.Parallel()
	up := &fakeAlpha{}
	upAddr, stop := serveFake(t, up, "127.0.0.1:0")
	defer stop()
	downAddr, stopDown := serveFake(t, &fakeAlpha{}, "127.0.0.1:0")
	stopDown() // nothing listens there any more
	pool := fakePool(t, downAddr, upAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 10 {
		if _, err := pool.Query(ctx, &api.Request{}); err != nil {
			t.Fatalf("call %d: %v; the other alpha was up", i, err)
		}
	}
	if up.calls.Load() != 10 {
		t.Errorf("the alpha that is up answered %d of 10 calls", up.calls.Load())
	}
	if pool.alphas[0].ready.Load() {
		t.Error("the alpha that is down was not set aside")
	}

	// Both up, one set aside as not ready: it gets nothing.
	other := &fakeAlpha{}
	otherAddr, stopOther := serveFake(t, other, "127.0.0.1:0")
	defer stopOther()
	pool2 := fakePool(t, otherAddr, upAddr)
	pool2.alphas[0].ready.Store(false)
	for range 10 {
		if _, err := pool2.Query(ctx, &api.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if other.calls.Load() != 0 {
		t.Errorf("an alpha set aside as not ready answered %d calls", other.calls.Load())
	}
	pool2.alphas[0].ready.Store(true)
	for range 10 {
		pool2.Query(ctx, &api.Request{})
	}
	if n := other.calls.Load(); n < 3 || n > 7 {
		t.Errorf("two ready alphas: one answered %d of 10 calls, want about half", n)
	}
}

// TestPingAsksAnotherAlphaWhenOneLags: an alpha that shows an older graph than the store has seen (a
// replica behind its leader, or just rejoined) does not make the database look down while another shows
// the graph seen; it is set aside. When every alpha lags, Ping says the database is not ready.
func TestPingAsksAnotherAlphaWhenOneLags(t *testing.T) {
	t.Parallel()
	lagging, current := &fakeAlpha{}, &fakeAlpha{}
	lagging.version.Store(355)
	current.version.Store(356)
	laggingAddr, stopLagging := serveFake(t, lagging, "127.0.0.1:0")
	defer stopLagging()
	currentAddr, stopCurrent := serveFake(t, current, "127.0.0.1:0")
	defer stopCurrent()
	pool := fakePool(t, laggingAddr, currentAddr)
	s := &Store{addr: laggingAddr + "," + currentAddr, pool: pool, dg: dgo.NewDgraphClient(pool), log: slog.New(slog.DiscardHandler), uids: map[string]string{}}
	s.sawVersion(356)
	ctx := context.Background()
	for i := range 6 { // the rotation sends some of these to the lagging alpha first
		if err := s.Ping(ctx); err != nil {
			t.Fatalf("ping %d: %v; one alpha shows the graph seen", i, err)
		}
	}
	if lagging.calls.Load() == 0 {
		t.Fatal("the lagging alpha was never asked: the test shows nothing")
	}
	if pool.alphas[0].ready.Load() {
		t.Error("the lagging alpha was not set aside")
	}
	if !pool.alphas[1].ready.Load() {
		t.Error("the alpha showing the graph seen was set aside")
	}

	current.version.Store(355) // both lag now
	err := s.Ping(ctx)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Unavailable || ge.Reason != "DATABASE_NOT_READY" {
		t.Errorf("every alpha shows an older graph than seen: Ping says %v, want Unavailable, DATABASE_NOT_READY", err)
	}
}

// TestReconnectsSoonAfterALongOutage stops an alpha for 20 s: polgraph must answer again within a few
// seconds of its return. gRPC's default backoff would wait up to about 25 s after a 20 s outage.
func TestReconnectsSoonAfterALongOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 20 s")
	}
	t.Parallel()
	f := &fakeAlpha{}
	addr, stop := serveFake(t, f, "127.0.0.1:0")
	pool := fakePool(t, addr)
	if _, err := pool.Query(context.Background(), &api.Request{}); err != nil {
		t.Fatal(err)
	}
	stop()
	// Calls during the outage fail, and each makes gRPC try to connect again, backing off.
	outage := time.Now()
	for time.Since(outage) < 20*time.Second {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		pool.Query(ctx, &api.Request{})
		cancel()
		time.Sleep(time.Second)
	}
	_, stop = serveFake(t, f, addr)
	defer stop()
	back := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := pool.Query(ctx, &api.Request{})
		cancel()
		if err == nil {
			break
		}
		if time.Since(back) > 5*time.Second {
			t.Fatalf("still failing %s after the alpha returned from a 20 s outage: %v", time.Since(back), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("answering again %s after the alpha returned", time.Since(back).Round(time.Millisecond))
}

// TestPinnedCallsStayOnOneAlpha: the calls made under a pinned context go to the alpha that answered the
// first, and, once it stops answering, to the one that answers instead.
func TestPinnedCallsStayOnOneAlpha(t *testing.T) {
	t.Parallel()
	a, b := &fakeAlpha{}, &fakeAlpha{}
	aAddr, stopA := serveFake(t, a, "127.0.0.1:0")
	defer stopA()
	bAddr, stopB := serveFake(t, b, "127.0.0.1:0")
	defer stopB()
	pool := fakePool(t, aAddr, bAddr)
	ctx := withPinnedAlpha(context.Background())
	for range 10 {
		if _, err := pool.Query(ctx, &api.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	first, second, stopFirst := a, b, stopA
	if b.calls.Load() > 0 {
		first, second, stopFirst = b, a, stopB
	}
	if first.calls.Load() != 10 || second.calls.Load() != 0 {
		t.Fatalf("pinned calls went %d and %d to the two alphas; want all 10 to one", a.calls.Load(), b.calls.Load())
	}
	stopFirst()
	for range 10 {
		if _, err := pool.Query(ctx, &api.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if second.calls.Load() != 10 {
		t.Errorf("after the pinned alpha stopped, the other answered %d of 10 calls; want all", second.calls.Load())
	}
}

// TestPoolTriesEveryAlphaBeforeARefusalOfRights: an alpha whose copy of the access rules lags refuses a
// call the others allow; the call goes to another, and the alpha is not set aside. When every alpha
// refuses, the refusal stands, each asked once.
func TestPoolTriesEveryAlphaBeforeARefusalOfRights(t *testing.T) {
	t.Parallel()
	denying, allowing := &fakeAlpha{}, &fakeAlpha{}
	denying.deny.Store(true)
	denyingAddr, stop1 := serveFake(t, denying, "127.0.0.1:0")
	defer stop1()
	allowingAddr, stop2 := serveFake(t, allowing, "127.0.0.1:0")
	defer stop2()
	pool := fakePool(t, denyingAddr, allowingAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 10 {
		if _, err := pool.Query(ctx, &api.Request{}); err != nil {
			t.Fatalf("call %d: %v; the other alpha allows it", i, err)
		}
	}
	if allowing.calls.Load() != 10 || denying.calls.Load() == 0 {
		t.Errorf("the allowing alpha answered %d of 10 calls, the refusing one was asked %d times", allowing.calls.Load(), denying.calls.Load())
	}
	if !pool.alphas[0].ready.Load() {
		t.Error("an alpha that refused a user's rights was set aside as not ready")
	}

	allowing.deny.Store(true)
	before := denying.calls.Load() + allowing.calls.Load()
	_, err := pool.Query(ctx, &api.Request{})
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("every alpha refuses: %v, want PermissionDenied", err)
	}
	if n := denying.calls.Load() + allowing.calls.Load() - before; n != 2 {
		t.Errorf("every alpha refuses: %d calls, want one to each", n)
	}
}
