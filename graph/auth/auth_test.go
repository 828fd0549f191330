package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
)

func TestRequiredRoles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method string
		want   Role
		known  bool
	}{
		{"/grpc.health.v1.Health/Check", NoRole, true},
		{"/grpc.health.v1.Health/Watch", NoRole, true},
		{"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", NoRole, true},
		{"/polgraph.v1.GraphService/GetEntity", Reader, true},
		{"/polgraph.v1.GraphService/FindPaths", Reader, true},
		{"/polgraph.v1.GraphService/FindConnections", Reader, true},
		{"/polgraph.v1.WriteService/UpsertEntities", Editor, true},
		{"/polgraph.v1.WriteService/UpsertRelations", Editor, true},
		{"/polgraph.v1.WriteService/UpsertSources", Editor, true},
		{"/polgraph.v1.WriteService/Load", Editor, true},
		{"/polgraph.v1.WriteService/RetractClaim", Editor, true},
		{"/polgraph.v1.WriteService/DeleteRelation", Editor, true},
		{"/polgraph.v1.WriteService/ListChanges", Editor, true},
		{"/polgraph.v1.WriteService/DeleteEntity", Admin, true},
		{"/polgraph.v1.WriteService/MergeEntities", Admin, true},
		{"/polgraph.v1.WriteService/UnmergeEntities", Admin, true},
		{"/polgraph.v1.ViewService/ListViews", Reader, true},
		{"/polgraph.v1.ViewService/GetView", Reader, true},
		{"/polgraph.v1.ViewService/CreateView", Editor, true},
		{"/polgraph.v1.ViewService/UpdateView", Editor, true},
		{"/polgraph.v1.ViewService/DeleteView", Editor, true},
		// Not in the table: refused to everyone.
		{"/polgraph.v1.WriteService/DropEverything", NoRole, false},
		{"/polgraph.v1.GraphService/getentity", NoRole, false},
		{"/polgraph.v2.GraphService/GetEntity", NoRole, false},
		{"/grpc.health.v1.Health/Check/", NoRole, false},
		{"", NoRole, false},
	} {
		got, known := Required(tc.method)
		if got != tc.want || known != tc.known {
			t.Errorf("Required(%q) = %v, %v; want %v, %v", tc.method, got, known, tc.want, tc.known)
		}
	}
	// Every polgraph.v1 method needs a role: nothing of polgraph's own is open.
	for _, m := range Methods() {
		if r, _ := Required(m); strings.HasPrefix(m, "/polgraph.") && r == NoRole {
			t.Errorf("%s is open to anyone", m)
		}
	}
}

func TestPolicyAllow(t *testing.T) {
	t.Parallel()
	anon := Principal{Kind: Anonymous, Name: "anonymous", Address: "127.0.0.1"}
	key := func(r Role) Principal { return Principal{Kind: APIKey, Name: "k", KeyID: "keys/0123456789ab", Role: r} }
	cert := func(r Role) Principal { return Principal{Kind: Certificate, Name: "ingest.example.org", Role: r} }
	const (
		read  = "/polgraph.v1.GraphService/GetEntity"
		write = "/polgraph.v1.WriteService/UpsertEntities"
		merge = "/polgraph.v1.WriteService/MergeEntities"
		other = "/polgraph.v1.WriteService/Frobnicate"
		check = "/grpc.health.v1.Health/Check"
	)
	for _, tc := range []struct {
		name           string
		p              Principal
		method         string
		anonymousReads bool
		reason         string // "" when allowed
		says           string
	}{
		{"anonymous read, allowed", anon, read, true, "", ""},
		{"anonymous read, refused", anon, read, false, "API_KEY_MISSING", "--require-auth-for-reads"},
		{"anonymous write", anon, write, true, "API_KEY_MISSING", "the editor role"},
		{"anonymous health", anon, check, false, "", ""},
		{"reader reads", key(Reader), read, false, "", ""},
		{"reader writes", key(Reader), write, true, "ROLE_TOO_LOW", "needs the editor role; key k (keys/0123456789ab) has the reader role"},
		{"editor writes", key(Editor), write, false, "", ""},
		{"editor merges", key(Editor), merge, false, "ROLE_TOO_LOW", "needs the admin role"},
		{"admin merges", key(Admin), merge, false, "", ""},
		{"admin reads", key(Admin), read, false, "", ""},
		{"admin calls a method in no table", key(Admin), other, true, "METHOD_NOT_ALLOWED", "role table"},
		{"certificate editor writes", cert(Editor), write, false, "", ""},
		{"certificate without a role reads, anonymous reads on", cert(NoRole), read, true, "", ""},
		{"certificate without a role reads, anonymous reads off", cert(NoRole), read, false, "ROLE_TOO_LOW", "has no role"},
		{"certificate without a role writes", cert(NoRole), write, true, "ROLE_TOO_LOW", "certificate CN=ingest.example.org has no role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Policy{AnonymousReads: tc.anonymousReads}.Allow(tc.p, tc.method)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Reason != tc.reason || !strings.Contains(ge.Message, tc.says) {
				t.Fatalf("got %v; want reason %s saying %q", err, tc.reason, tc.says)
			}
			wantKind := graph.PermissionDenied
			if tc.reason == "API_KEY_MISSING" {
				wantKind = graph.Unauthenticated
			}
			if ge.Kind != wantKind {
				t.Errorf("kind %v, want %v", ge.Kind, wantKind)
			}
		})
	}
}

func TestParseRole(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Role{"reader": Reader, "Editor": Editor, " ADMIN ": Admin} {
		if got, err := ParseRole(in); err != nil || got != want {
			t.Errorf("ParseRole(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "none", "root", "readers"} {
		if _, err := ParseRole(bad); err == nil {
			t.Errorf("ParseRole(%q) took it", bad)
		}
	}
}

func TestNewKey(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 6_789_000, time.UTC)
	seen := map[string]bool{}
	ids := map[KeyID]bool{}
	for range 1000 {
		secret, k, err := NewKey("alice", Editor, now)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "pgk_") || len(secret) != 4+43 || !WellFormed(secret) {
			t.Fatalf("key %q is not pgk_ and 43 base64url characters", secret)
		}
		if seen[secret] || ids[k.ID] {
			t.Fatalf("a key or an id came twice: %s %s", secret, k.ID)
		}
		seen[secret], ids[k.ID] = true, true
		if !k.ID.Valid() || k.Name != "alice" || k.Role != Editor || !k.Created.Equal(now.Truncate(time.Millisecond)) || !k.Revoked.IsZero() {
			t.Fatalf("key record %+v", k)
		}
		sum := sha256.Sum256([]byte(secret))
		if k.Hash != hex.EncodeToString(sum[:]) || k.Hash != HashKey(secret) {
			t.Fatalf("hash %s is not the key's SHA-256", k.Hash)
		}
		if strings.Contains(k.Hash, secret[4:]) {
			t.Fatal("the hash holds the key")
		}
	}
	if _, _, err := NewKey("alice", NoRole, now); graph.KindOf(err) != graph.Invalid {
		t.Errorf("a key without a role: %v", err)
	}
	if _, _, err := NewKey("", Reader, now); graph.KindOf(err) != graph.Invalid {
		t.Errorf("a key without a name: %v", err)
	}
}

func TestHashKey(t *testing.T) {
	t.Parallel()
	// SHA-256 test vector (FIPS 180-2): "abc".
	if got := HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", got)
	}
	if !SameHash(HashKey("x"), HashKey("x")) || SameHash(HashKey("x"), HashKey("y")) || SameHash(HashKey("x"), "") {
		t.Error("SameHash compares wrongly")
	}
}

func TestWellFormed(t *testing.T) {
	t.Parallel()
	good := "pgk_" + strings.Repeat("A", 42) + "E" // 43 characters whose last carries no stray bits
	for _, tc := range []struct {
		name, key string
		want      bool
	}{
		{"a key", good, true},
		{"another prefix", "pgx_" + good[4:], false},
		{"no prefix", good[4:], false},
		{"short", good[:46], false},
		{"long", good + "A", false},
		{"padding", good[:46] + "=", false},
		{"standard base64", good[:45] + "+/", false},
		{"stray bits in the last character", good[:46] + "F", false},
		{"empty", "", false},
		{"a bearer prefix", "Bearer " + good, false},
	} {
		if got := WellFormed(tc.key); got != tc.want {
			t.Errorf("%s: WellFormed(%q) = %v", tc.name, tc.key, got)
		}
	}
}

func TestCheckKeyName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"alice", "ingest-bot", "a.b_c@example.org", "A1", strings.Repeat("x", 64)} {
		if err := CheckKeyName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-lead", "keys/0123456789ab", "two words", "new\nline", strings.Repeat("x", 65), "ü"} {
		if err := CheckKeyName(bad); graph.KindOf(err) != graph.Invalid {
			t.Errorf("%q: %v, want Invalid", bad, err)
		}
	}
}

// fakeKeys is a KeyStore in memory that counts lookups.
type fakeKeys struct {
	mu      sync.Mutex
	keys    map[string]Key // by hash
	lookups int
	fail    error
}

func (f *fakeKeys) CreateKey(_ context.Context, k Key) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[k.Hash] = k
	return nil
}

func (f *fakeKeys) KeyByHash(_ context.Context, hash string) (Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.fail != nil {
		return Key{}, f.fail
	}
	k, ok := f.keys[hash]
	if !ok {
		return Key{}, graph.E("fake", graph.NotFound, "no such key")
	}
	return k, nil
}

func (f *fakeKeys) ListKeys(context.Context) ([]Key, error) { return nil, nil }

func (f *fakeKeys) RevokeKey(_ context.Context, id string, at time.Time) (Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for h, k := range f.keys {
		if string(k.ID) == id {
			k.Revoked = at
			f.keys[h] = k
			return k, nil
		}
	}
	return Key{}, graph.E("fake", graph.NotFound, "no key %s", id)
}

func TestAuthenticatorCachesAndSeesRevocations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &fakeKeys{keys: map[string]Key{}}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := NewAuthenticator(store, 5*time.Second)
	a.now = func() time.Time { return clock }
	secret, k, _ := NewKey("alice", Editor, clock)
	store.CreateKey(ctx, k)

	reason := func(err error) string {
		var ge *graph.Error
		if errors.As(err, &ge) && ge.Kind == graph.Unauthenticated {
			return ge.Reason
		}
		return fmt.Sprintf("not Unauthenticated: %v", err)
	}
	p, err := a.Authenticate(ctx, secret)
	if err != nil || p.Kind != APIKey || p.Name != "alice" || p.KeyID != k.ID || p.Role != Editor {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	for range 100 {
		a.Authenticate(ctx, secret)
	}
	if store.lookups != 1 || !a.Cached(secret) {
		t.Errorf("101 calls within the cache time made %d lookups, want 1", store.lookups)
	}
	store.RevokeKey(ctx, string(k.ID), clock)
	clock = clock.Add(4 * time.Second)
	if _, err := a.Authenticate(ctx, secret); err != nil {
		t.Errorf("within the cache time the revocation is not seen yet: %v", err)
	}
	clock = clock.Add(1 * time.Second)
	_, err = a.Authenticate(ctx, secret)
	if reason(err) != "API_KEY_REVOKED" || !strings.Contains(err.Error(), string(k.ID)) {
		t.Errorf("5 s after the revocation: %v; want API_KEY_REVOKED naming the key", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), k.Hash) {
		t.Errorf("the error shows the key or its hash: %v", err)
	}

	// Unknown keys and text that is not a key.
	store.lookups = 0
	other, _, _ := NewKey("bob", Reader, clock)
	for range 3 {
		if _, err := a.Authenticate(ctx, other); reason(err) != "API_KEY_INVALID" {
			t.Errorf("an unknown key: %v", err)
		}
	}
	if store.lookups != 1 {
		t.Errorf("an unknown key was looked up %d times in the cache time, want 1", store.lookups)
	}
	for _, junk := range []string{"", "password", "pgk_short", strings.Repeat("x", 10_000)} {
		if _, err := a.Authenticate(ctx, junk); reason(err) != "API_KEY_INVALID" {
			t.Errorf("%.20q: %v", junk, err)
		}
	}
	if store.lookups != 1 {
		t.Errorf("text that is not a key reached the store (%d lookups)", store.lookups)
	}

	// The store's failures pass through and are not remembered.
	third, k3, _ := NewKey("carol", Admin, clock)
	store.CreateKey(ctx, k3)
	store.fail = graph.E("fake", graph.Unavailable, "cannot reach Dgraph")
	if _, err := a.Authenticate(ctx, third); graph.KindOf(err) != graph.Unavailable {
		t.Errorf("with the store down: %v, want Unavailable", err)
	}
	store.fail = nil
	if p, err := a.Authenticate(ctx, third); err != nil || p.Role != Admin {
		t.Errorf("the store's failure was remembered: %+v %v", p, err)
	}

	if _, err := NewAuthenticator(nil, 0).Authenticate(ctx, secret); reason(err) != "API_KEY_INVALID" {
		t.Errorf("without a key store: %v", err)
	}
}

func TestAuthenticatorCacheIsBounded(t *testing.T) {
	t.Parallel()
	store := &fakeKeys{keys: map[string]Key{}}
	a := NewAuthenticator(store, time.Minute)
	for range maxCachedKeys + 10 {
		k, _, _ := NewKey("x", Reader, time.Now())
		a.Authenticate(context.Background(), k)
	}
	if n := len(a.cache); n > maxCachedKeys {
		t.Errorf("the cache holds %d answers, more than %d", n, maxCachedKeys)
	}
}

func TestRateLimiter(t *testing.T) {
	t.Parallel()
	const read, write, admin = Reader, Editor, Admin
	alice := Principal{Kind: APIKey, Name: "alice", KeyID: "keys/aaaaaaaaaaaa", Role: Editor}
	bob := Principal{Kind: APIKey, Name: "bob", KeyID: "keys/bbbbbbbbbbbb", Role: Editor}
	anonA := Principal{Kind: Anonymous, Address: "10.0.0.1"}
	anonB := Principal{Kind: Anonymous, Address: "10.0.0.2"}
	type call struct {
		p    Principal
		need Role
		at   time.Duration // since the start
		ok   bool
		wait time.Duration // the retry delay when refused
	}
	for _, tc := range []struct {
		name  string
		rates Rates
		calls []call
	}{
		{"a burst, then the rate", Rates{Writes: Rate{PerSecond: 2, Burst: 3}}, []call{
			{alice, write, 0, true, 0}, {alice, write, 0, true, 0}, {alice, write, 0, true, 0},
			{alice, write, 0, false, 500 * time.Millisecond},
			{alice, write, 250 * time.Millisecond, false, 250 * time.Millisecond},
			{alice, write, 500 * time.Millisecond, true, 0},
			{alice, write, 500 * time.Millisecond, false, 500 * time.Millisecond},
		}},
		{"each principal has its own bucket", Rates{Writes: Rate{PerSecond: 1, Burst: 1}}, []call{
			{alice, write, 0, true, 0}, {alice, write, 0, false, time.Second}, {bob, write, 0, true, 0},
			{anonA, write, 0, true, 0}, {anonB, write, 0, true, 0}, {anonA, write, 0, false, time.Second},
		}},
		{"admin methods count as writes", Rates{Writes: Rate{PerSecond: 1, Burst: 1}}, []call{
			{alice, admin, 0, true, 0}, {alice, write, 0, false, time.Second},
		}},
		{"reads and writes apart", Rates{Reads: Rate{PerSecond: 1, Burst: 2}, Writes: Rate{PerSecond: 1, Burst: 1}}, []call{
			{alice, write, 0, true, 0}, {alice, read, 0, true, 0}, {alice, read, 0, true, 0}, {alice, read, 0, false, time.Second},
			{alice, write, 0, false, time.Second},
		}},
		{"no limit on reads by default", DefaultRates(), []call{
			{anonA, read, 0, true, 0}, {anonA, read, 0, true, 0}, {anonA, read, 0, true, 0},
		}},
		{"open methods are never limited", Rates{Reads: Rate{PerSecond: 1, Burst: 1}}, []call{
			{anonA, NoRole, 0, true, 0}, {anonA, NoRole, 0, true, 0}, {anonA, NoRole, 0, true, 0},
		}},
		{"a bucket fills no fuller than its burst", Rates{Writes: Rate{PerSecond: 10, Burst: 2}}, []call{
			{alice, write, time.Hour, true, 0}, {alice, write, time.Hour, true, 0}, {alice, write, time.Hour, false, 100 * time.Millisecond},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			l := NewRateLimiter(tc.rates)
			for i, c := range tc.calls {
				l.now = func() time.Time { return start.Add(c.at) }
				err := l.Allow(c.p, c.need)
				if (err == nil) != c.ok {
					t.Fatalf("call %d (%s at %v): %v, want ok=%v", i, c.p, c.at, err, c.ok)
				}
				if err != nil {
					var ge *graph.Error
					if !errors.As(err, &ge) || ge.Kind != graph.ResourceExhausted || ge.Reason != "RATE_LIMITED" || ge.RetryAfter != c.wait {
						t.Fatalf("call %d: %+v; want RESOURCE_EXHAUSTED, RATE_LIMITED, retry after %v", i, err, c.wait)
					}
				}
			}
		})
	}
}

func TestRateLimiterForgetsIdleBuckets(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewRateLimiter(Rates{Reads: Rate{PerSecond: 100, Burst: 1}})
	l.now = func() time.Time { return clock }
	for i := range 5000 {
		l.Allow(Principal{Address: "10.0.0." + string(rune('a'+i%26)) + strings.Repeat("x", i/26)}, Reader)
		clock = clock.Add(time.Millisecond)
	}
	if n := l.Buckets(); n > 1100 {
		t.Errorf("%d buckets held for 5000 addresses that each called once; full buckets should be forgotten", n)
	}
}

func TestFailedLookupsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	l := NewRateLimiter(DefaultRates())
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	for range failedLookups.Burst {
		if err := l.AllowLookup("10.0.0.1"); err != nil {
			t.Fatal(err)
		}
		l.LookupFailed("10.0.0.1")
	}
	err := l.AllowLookup("10.0.0.1")
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Reason != "TOO_MANY_INVALID_KEYS" || ge.RetryAfter <= 0 {
		t.Errorf("after %d failed lookups: %v", failedLookups.Burst, err)
	}
	if err := l.AllowLookup("10.0.0.2"); err != nil {
		t.Errorf("another address: %v", err)
	}
	clock = clock.Add(time.Second)
	if err := l.AllowLookup("10.0.0.1"); err != nil {
		t.Errorf("a second later: %v", err)
	}
}

func TestPrincipalInContext(t *testing.T) {
	t.Parallel()
	if _, ok := PrincipalFrom(context.Background()); ok {
		t.Error("a principal in an empty context")
	}
	p := Principal{Kind: APIKey, Name: "alice", KeyID: "keys/0123456789ab", Role: Editor}
	got, ok := PrincipalFrom(WithPrincipal(context.Background(), p))
	if !ok || got != p {
		t.Errorf("PrincipalFrom = %+v, %v", got, ok)
	}
	for want, p := range map[string]Principal{
		"key alice (keys/0123456789ab)": p,
		"certificate CN=ingest.example": {Kind: Certificate, Name: "ingest.example"},
		"anonymous (127.0.0.1)":         {Kind: Anonymous, Address: "127.0.0.1"},
	} {
		if p.String() != want {
			t.Errorf("String() = %q, want %q", p.String(), want)
		}
	}
}
