package rpc

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
)

// memKeys is an auth.KeyStore in memory.
type memKeys struct {
	mu   sync.Mutex
	keys map[string]auth.Key
}

func (m *memKeys) CreateKey(_ context.Context, k auth.Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[k.Hash] = k
	return nil
}

func (m *memKeys) KeyByHash(_ context.Context, h string) (auth.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.keys[h]; ok {
		return k, nil
	}
	return auth.Key{}, graph.E("memKeys", graph.NotFound, "no such key")
}

func (m *memKeys) ListKeys(context.Context) ([]auth.Key, error) { return nil, nil }

func (m *memKeys) RevokeKey(_ context.Context, id string, at time.Time) (auth.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, k := range m.keys {
		if string(k.ID) == id {
			k.Revoked = at
			m.keys[h] = k
			return k, nil
		}
	}
	return auth.Key{}, graph.E("memKeys", graph.NotFound, "no such key")
}

// fakeService registers, under a polgraph.v1 service name, unary methods and a client stream that answer
// who called them (auth.PrincipalFrom), so that the interceptors can be tested on methods that need each
// role, and on one that is in no table.
func fakeService(name string, unary []string, streams []string) *grpc.ServiceDesc {
	whoami := func(ctx context.Context) *wrapperspb.StringValue {
		p, ok := auth.PrincipalFrom(ctx)
		if !ok {
			return wrapperspb.String("no principal")
		}
		return wrapperspb.String(p.String() + " as " + p.Role.String())
	}
	sd := &grpc.ServiceDesc{ServiceName: name, HandlerType: (*any)(nil)}
	for _, m := range unary {
		full := "/" + name + "/" + m
		sd.Methods = append(sd.Methods, grpc.MethodDesc{MethodName: m,
			Handler: func(srv any, ctx context.Context, dec func(any) error, intercept grpc.UnaryServerInterceptor) (any, error) {
				in := new(emptypb.Empty)
				if err := dec(in); err != nil {
					return nil, err
				}
				h := func(ctx context.Context, _ any) (any, error) { return whoami(ctx), nil }
				if intercept == nil {
					return h(ctx, in)
				}
				return intercept(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: full}, h)
			}})
	}
	for _, m := range streams {
		sd.Streams = append(sd.Streams, grpc.StreamDesc{StreamName: m, ClientStreams: true,
			Handler: func(_ any, ss grpc.ServerStream) error {
				for {
					if err := ss.RecvMsg(new(emptypb.Empty)); err != nil {
						break
					}
				}
				return ss.SendMsg(whoami(ss.Context()))
			}})
	}
	return sd
}

// authServer serves fake reads and writes behind Auth with these options (and refusals told to hook, when
// one is given), over an in-memory connection.
func authServer(t *testing.T, opts AuthOptions, hook ...RefusalHook) *grpc.ClientConn {
	t.Helper()
	a := NewAuth(opts, slog.New(slog.DiscardHandler))
	for _, h := range hook {
		a.OnRefused(h)
	}
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(a.Unary()), grpc.ChainStreamInterceptor(a.Stream()))
	srv.RegisterService(fakeService("polgraph.v1.WriteService", []string{"UpsertEntities", "DeleteEntity", "Frobnicate"}, []string{"Load"}), struct{}{})
	srv.RegisterService(fakeService("polgraph.v1.GraphService", []string{"GetEntity"}, nil), struct{}{})
	srv.RegisterService(fakeService("grpc.health.v1.Health", []string{"Check"}, nil), struct{}{})
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// reasonOf is the google.rpc.ErrorInfo reason of a status.
func reasonOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

func TestAuthInterceptors(t *testing.T) {
	t.Parallel()
	keys := &memKeys{keys: map[string]auth.Key{}}
	newKey := func(name string, r auth.Role) string {
		secret, k, err := auth.NewKey(name, r, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		keys.CreateKey(context.Background(), k)
		return secret
	}
	reader, editor, admin := newKey("rita", auth.Reader), newKey("ed", auth.Editor), newKey("ada", auth.Admin)
	revoked := newKey("gone", auth.Editor)
	k, _ := keys.KeyByHash(context.Background(), auth.HashKey(revoked))
	keys.RevokeKey(context.Background(), string(k.ID), time.Now())
	unknown, _, _ := auth.NewKey("nobody", auth.Admin, time.Now())

	open := authServer(t, AuthOptions{Keys: keys, AnonymousReads: true})
	closed := authServer(t, AuthOptions{Keys: keys, AnonymousReads: false})
	for _, tc := range []struct {
		name   string
		conn   *grpc.ClientConn
		method string
		md     []string // metadata pairs
		code   codes.Code
		reason string
		says   string // in the message, or (when OK) in the answer
	}{
		{"anonymous read", open, "/polgraph.v1.GraphService/GetEntity", nil, codes.OK, "", "anonymous (bufconn) as none"},
		{"anonymous read, reads closed", closed, "/polgraph.v1.GraphService/GetEntity", nil, codes.Unauthenticated, "API_KEY_MISSING", "--require-auth-for-reads"},
		{"anonymous write", open, "/polgraph.v1.WriteService/UpsertEntities", nil, codes.Unauthenticated, "API_KEY_MISSING", "with the editor role"},
		{"anonymous health, reads closed", closed, "/grpc.health.v1.Health/Check", nil, codes.OK, "", "no principal"},
		{"reader reads", closed, "/polgraph.v1.GraphService/GetEntity", []string{"authorization", "Bearer " + reader}, codes.OK, "", "key rita"},
		{"reader writes", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"authorization", "Bearer " + reader}, codes.PermissionDenied, "ROLE_TOO_LOW", "needs the editor role"},
		{"editor writes", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"authorization", "Bearer " + editor}, codes.OK, "", "key ed (keys/"},
		{"editor writes, lower-case scheme", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"authorization", "bearer " + editor}, codes.OK, "", "as editor"},
		{"editor writes with x-api-key", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"x-api-key", editor}, codes.OK, "", "as editor"},
		{"editor deletes an entity", open, "/polgraph.v1.WriteService/DeleteEntity", []string{"authorization", "Bearer " + editor}, codes.PermissionDenied, "ROLE_TOO_LOW", "needs the admin role"},
		{"admin deletes an entity", open, "/polgraph.v1.WriteService/DeleteEntity", []string{"authorization", "Bearer " + admin}, codes.OK, "", "key ada"},
		{"admin calls a method in no table", open, "/polgraph.v1.WriteService/Frobnicate", []string{"authorization", "Bearer " + admin}, codes.PermissionDenied, "METHOD_NOT_ALLOWED", "role table"},
		{"a revoked key", open, "/polgraph.v1.GraphService/GetEntity", []string{"authorization", "Bearer " + revoked}, codes.Unauthenticated, "API_KEY_REVOKED", "revoked"},
		{"an unknown key, even for an anonymous read", open, "/polgraph.v1.GraphService/GetEntity", []string{"authorization", "Bearer " + unknown}, codes.Unauthenticated, "API_KEY_INVALID", "not valid"},
		{"not a key", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"x-api-key", "hunter2"}, codes.Unauthenticated, "API_KEY_INVALID", "not valid"},
		{"another scheme", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"authorization", "Basic " + editor}, codes.Unauthenticated, "API_KEY_INVALID", "Bearer <key>"},
		{"an empty bearer", open, "/polgraph.v1.WriteService/UpsertEntities", []string{"authorization", "Bearer "}, codes.Unauthenticated, "API_KEY_INVALID", "Bearer <key>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.md != nil {
				ctx = metadata.AppendToOutgoingContext(ctx, tc.md...)
			}
			var out wrapperspb.StringValue
			err := tc.conn.Invoke(ctx, tc.method, &emptypb.Empty{}, &out)
			if status.Code(err) != tc.code {
				t.Fatalf("%v; want %v", err, tc.code)
			}
			if reasonOf(err) != tc.reason {
				t.Errorf("reason %q, want %q", reasonOf(err), tc.reason)
			}
			text := status.Convert(err).Message()
			if tc.code == codes.OK {
				text = out.GetValue()
			}
			if !strings.Contains(text, tc.says) {
				t.Errorf("%q does not say %q", text, tc.says)
			}
			for _, secret := range []string{reader, editor, admin, revoked, unknown} {
				if strings.Contains(text, secret) || strings.Contains(text, secret[4:]) {
					t.Errorf("the answer shows a key: %q", text)
				}
			}
		})
	}

	// A client stream is checked when it opens, and its handler finds the principal.
	load := func(md ...string) (string, error) {
		ctx := metadata.AppendToOutgoingContext(context.Background(), md...)
		cs, err := open.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true}, "/polgraph.v1.WriteService/Load")
		if err != nil {
			return "", err
		}
		cs.SendMsg(&emptypb.Empty{})
		cs.CloseSend()
		var out wrapperspb.StringValue
		err = cs.RecvMsg(&out)
		return out.GetValue(), err
	}
	if _, err := load(); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an anonymous Load: %v, want UNAUTHENTICATED", err)
	}
	if _, err := load("authorization", "Bearer "+reader); status.Code(err) != codes.PermissionDenied {
		t.Errorf("a reader's Load: %v, want PERMISSION_DENIED", err)
	}
	if who, err := load("authorization", "Bearer "+editor); err != nil || !strings.HasPrefix(who, "key ed") {
		t.Errorf("an editor's Load: %q, %v", who, err)
	}
}

func TestAuthRateLimits(t *testing.T) {
	t.Parallel()
	keys := &memKeys{keys: map[string]auth.Key{}}
	secret, k, _ := auth.NewKey("ed", auth.Editor, time.Now())
	keys.CreateKey(context.Background(), k)
	conn := authServer(t, AuthOptions{Keys: keys, AnonymousReads: true,
		Rates: auth.Rates{Reads: auth.Rate{PerSecond: 0.5, Burst: 2}, Writes: auth.Rate{PerSecond: 0.5, Burst: 1}}})
	call := func(method string, md ...string) error {
		ctx := metadata.AppendToOutgoingContext(context.Background(), md...)
		return conn.Invoke(ctx, method, &emptypb.Empty{}, &wrapperspb.StringValue{})
	}
	const read, write = "/polgraph.v1.GraphService/GetEntity", "/polgraph.v1.WriteService/UpsertEntities"
	for i := range 2 {
		if err := call(read); err != nil {
			t.Fatalf("anonymous read %d: %v", i+1, err)
		}
	}
	err := call(read)
	if status.Code(err) != codes.ResourceExhausted || reasonOf(err) != "RATE_LIMITED" {
		t.Fatalf("a third anonymous read: %v; want RESOURCE_EXHAUSTED, RATE_LIMITED", err)
	}
	var delay time.Duration
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			delay = ri.GetRetryDelay().AsDuration()
		}
	}
	if delay <= 0 || delay > 2*time.Second {
		t.Errorf("retry delay %v; want up to 2 s (0.5 calls/s)", delay)
	}
	// The key has buckets of its own: its reads pass while anonymous ones are refused.
	if err := call(read, "authorization", "Bearer "+secret); err != nil {
		t.Errorf("the key's read: %v", err)
	}
	if err := call(write, "authorization", "Bearer "+secret); err != nil {
		t.Errorf("the key's first write: %v", err)
	}
	if err := call(write, "authorization", "Bearer "+secret); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("the key's second write: %v; want RESOURCE_EXHAUSTED", err)
	}
	// Open methods are never limited.
	for range 5 {
		if err := call("/grpc.health.v1.Health/Check"); err != nil {
			t.Fatalf("health: %v", err)
		}
	}
}

func TestInvalidKeysAreLimitedBeforeTheLookup(t *testing.T) {
	t.Parallel()
	conn := authServer(t, AuthOptions{Keys: &memKeys{keys: map[string]auth.Key{}}, AnonymousReads: true})
	refused := 0
	for range 200 {
		k, _, _ := auth.NewKey("x", auth.Reader, time.Now())
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+k)
		err := conn.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{})
		if status.Code(err) == codes.ResourceExhausted && reasonOf(err) == "TOO_MANY_INVALID_KEYS" {
			refused++
		} else if status.Code(err) != codes.Unauthenticated {
			t.Fatalf("made-up key: %v", err)
		}
	}
	if refused < 100 {
		t.Errorf("of 200 made-up keys from one address, %d were refused before the lookup; want most", refused)
	}
	// Anonymous reads from the address still pass.
	if err := conn.Invoke(context.Background(), "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{}); err != nil {
		t.Errorf("an anonymous read after the flood: %v", err)
	}
}

// downKeys is a key store whose database does not answer.
type downKeys struct{ memKeys }

func (*downKeys) KeyByHash(context.Context, string) (auth.Key, error) {
	return auth.Key{}, graph.E("downKeys", graph.Unavailable, "the database does not answer")
}

// TestAuthTellsItsRefusals: every call refused for its credential, role or rate is told to the hook with
// its method and ErrorInfo reason; calls let through, and keys that cannot be looked up, are not.
func TestAuthTellsItsRefusals(t *testing.T) {
	t.Parallel()
	keys := &memKeys{keys: map[string]auth.Key{}}
	secret, k, _ := auth.NewKey("rita", auth.Reader, time.Now())
	keys.CreateKey(context.Background(), k)
	var mu sync.Mutex
	var told []string
	hook := func(_ context.Context, method, reason string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, method+" "+reason)
	}
	conn := authServer(t, AuthOptions{Keys: keys, AnonymousReads: true, Rates: auth.Rates{Reads: auth.Rate{PerSecond: 0.01, Burst: 1}}}, hook)
	down := authServer(t, AuthOptions{Keys: &downKeys{}, AnonymousReads: true}, hook)
	const read, write = "/polgraph.v1.GraphService/GetEntity", "/polgraph.v1.WriteService/UpsertEntities"
	for _, tc := range []struct {
		name   string
		conn   *grpc.ClientConn
		method string
		md     []string
		told   string // "" when the hook must not be told
	}{
		{"a read let through", conn, read, nil, ""},
		{"a read over the rate", conn, read, nil, read + " RATE_LIMITED"},
		{"a write without a key", conn, write, nil, write + " API_KEY_MISSING"},
		{"a reader's write", conn, write, []string{"x-api-key", secret}, write + " ROLE_TOO_LOW"},
		{"a key the database cannot look up", down, read, []string{"x-api-key", secret}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			told = nil
			mu.Unlock()
			ctx := metadata.AppendToOutgoingContext(context.Background(), tc.md...)
			err := tc.conn.Invoke(ctx, tc.method, &emptypb.Empty{}, &wrapperspb.StringValue{})
			want := []string(nil)
			if tc.told != "" {
				want = []string{tc.told}
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(told, "|") != strings.Join(want, "|") {
				t.Errorf("the hook was told %q, want %q (the call answered %v)", told, want, err)
			}
		})
	}
}

func TestUncoveredMethods(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	srv.RegisterService(fakeService("polgraph.v1.WriteService", []string{"UpsertEntities", "Frobnicate"}, []string{"Load", "Trickle"}), struct{}{})
	srv.RegisterService(fakeService("grpc.health.v1.Health", []string{"Check"}, nil), struct{}{})
	got := UncoveredMethods(srv.GetServiceInfo())
	want := []string{"/polgraph.v1.WriteService/Frobnicate", "/polgraph.v1.WriteService/Trickle"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("UncoveredMethods = %v, want %v", got, want)
	}
}

// TestMadeUpKeysDoNotLockOutValidOnes: a client sending made-up keys from an address empties that
// address's bad-key budget; valid keys seen before, sent from the same address once their cache entry has
// expired, still pass, and the flood itself is still refused.
func TestMadeUpKeysDoNotLockOutValidOnes(t *testing.T) {
	t.Parallel()
	keys := &memKeys{keys: map[string]auth.Key{}}
	secret, k, _ := auth.NewKey("editor", auth.Editor, time.Now())
	keys.CreateKey(context.Background(), k)
	conn := authServer(t, AuthOptions{Keys: keys, KeyCacheTime: time.Millisecond})
	call := func(key string) error {
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
		return conn.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{})
	}
	if err := call(secret); err != nil {
		t.Fatalf("the valid key before the flood: %v", err)
	}
	valid, floodRefused := 0, 0
	for i := range 400 {
		bogus, _, _ := auth.NewKey("x", auth.Reader, time.Now())
		if err := call(bogus); status.Code(err) == codes.ResourceExhausted && reasonOf(err) == "TOO_MANY_INVALID_KEYS" {
			floodRefused++
		}
		if i%16 == 0 {
			time.Sleep(2 * time.Millisecond) // the valid key's cache entry expires
			if err := call(secret); err != nil {
				t.Errorf("the valid key during the flood: %v", err)
			} else {
				valid++
			}
		}
	}
	if floodRefused < 300 {
		t.Errorf("of 400 made-up keys, %d were refused before their lookup; want most", floodRefused)
	}
	t.Logf("valid key: %d of %d calls passed; made-up keys: %d of 400 refused", valid, 25, floodRefused)
}

// TestKeyLookupsThatCannotBeAnsweredAreUnavailable: a key the database cannot look up (down, not ready)
// is UNAVAILABLE with a retry delay, never API_KEY_INVALID, and is looked up again at the next call.
func TestKeyLookupsThatCannotBeAnsweredAreUnavailable(t *testing.T) {
	t.Parallel()
	keys := &flakyKeys{memKeys: memKeys{keys: map[string]auth.Key{}}}
	secret, k, _ := auth.NewKey("editor", auth.Editor, time.Now())
	keys.CreateKey(context.Background(), k)
	keys.down.Store(true)
	conn := authServer(t, AuthOptions{Keys: keys})
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+secret)
	err := conn.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{})
	if status.Code(err) != codes.Unavailable || reasonOf(err) != "DATABASE_NOT_READY" {
		t.Fatalf("a lookup on a database not ready: %v; want UNAVAILABLE DATABASE_NOT_READY", err)
	}
	var retry *errdetails.RetryInfo
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 {
		t.Errorf("UNAVAILABLE without a retry delay: %v", status.Convert(err).Details())
	}
	keys.down.Store(false)
	if err := conn.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{}); err != nil {
		t.Errorf("once the database answers: %v (a lookup that was not answered was remembered)", err)
	}
}

// flakyKeys answers as a starting database does while down is set: no answer, not "no such key".
type flakyKeys struct {
	memKeys
	down atomic.Bool
}

func (f *flakyKeys) KeyByHash(ctx context.Context, h string) (auth.Key, error) {
	if f.down.Load() {
		return auth.Key{}, &graph.Error{Op: "flakyKeys", Kind: graph.Unavailable, Reason: "DATABASE_NOT_READY", Message: "not ready"}
	}
	return f.memKeys.KeyByHash(ctx, h)
}
