package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/emptypb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/httpapi"
)

// uniqueName is a key name no other test (or run on the same Dgraph) uses.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// makeKey runs `polgraph keys create` against the test Dgraph, as an operator would, and returns the key
// it shows and the key's id.
func makeKey(t *testing.T, name, role string) (secret, id string) {
	t.Helper()
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"keys", "create", "--name", name, "--role", role}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatalf("keys create: %v\n%s", err, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "key:"); ok {
			secret = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "id:"); ok {
			id = strings.TrimSpace(v)
		}
	}
	if !auth.WellFormed(secret) || !auth.KeyID(id).Valid() {
		t.Fatalf("keys create printed no key or id:\n%s", out.String())
	}
	return secret, id
}

// withKey is ctx carrying an API key as `authorization: Bearer`.
func withKey(ctx context.Context, key string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
}

func dialPlain(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// serveWith runs serve, as `polgraph serve` does, with cfg on loopback ports of its own, until the test
// ends; it returns the gRPC address and the HTTP base URL.
func serveWith(t *testing.T, cfg Config) (grpcAddr, httpBase string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	webLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.InMemory = false
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, lis, webLis, onDgraph(store), cfg, slog.New(slog.DiscardHandler), io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return lis.Addr().String(), "http://" + webLis.Addr().String()
}

// writeServer serves polgraph.v1.WriteService, every method unimplemented, behind the checks serve puts in
// front of every service (callerChecks), over gRPC and HTTP: a call answered UNIMPLEMENTED has passed them.
// It does not depend on what the write API does, nor on serve registering it.
func writeServer(t *testing.T, cfg Config) (grpcAddr, httpBase string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	authn, tlsCfg, err := callerChecks(cfg, store.Keys(), log, lis)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(authn.Unary()), grpc.ChainStreamInterceptor(authn.Stream()), serverCreds(tlsCfg))
	pb.RegisterWriteServiceServer(srv, pb.UnimplementedWriteServiceServer{})
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	reflectionpb.RegisterServerReflectionServer(srv, reflection.NewServerV1(reflection.ServerOptions{Services: srv}))
	h, err := httpapi.Handler(srv, hs, httpapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewUnstartedServer(h)
	if tlsCfg != nil {
		web.TLS = tlsCfg.Clone()
		web.StartTLS()
	} else {
		web.Start()
	}
	go srv.Serve(lis)
	t.Cleanup(func() { web.Close(); srv.Stop() })
	return lis.Addr().String(), web.URL
}

const (
	upsertEntities = "/polgraph.v1.WriteService/UpsertEntities"
	deleteEntity   = "/polgraph.v1.WriteService/DeleteEntity"
	listChanges    = "/polgraph.v1.WriteService/ListChanges"
	loadMethod     = "/polgraph.v1.WriteService/Load"
)

// TestKeysCommands creates, lists and revokes a key with the CLI, uses it on the service under test,
// and checks that a revoked key is refused within seconds.
func TestKeysCommands(t *testing.T) {
	ctx := context.Background()
	name := uniqueName("keys-cli")
	secret, id := makeKey(t, name, "reader")

	// Dgraph holds the key's hash, not the key.
	k, err := store.Keys().KeyByHash(ctx, auth.HashKey(secret))
	if err != nil || string(k.ID) != id || k.Name != name || k.Role != auth.Reader || k.Hash != auth.HashKey(secret) {
		t.Fatalf("stored key %+v, %v", k, err)
	}
	if strings.Contains(k.Hash, secret) || strings.Contains(k.Hash, secret[4:]) {
		t.Fatal("the stored hash holds the key")
	}

	var out bytes.Buffer
	if err := realMain(ctx, append([]string{"keys", "list"}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != "ID                 ROLE    CREATED               REVOKED               NAME" {
		t.Errorf("keys list header: %q", lines[0])
	}
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `  reader  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  -                     ` + name + `$`)
	if !row.MatchString(out.String()) {
		t.Errorf("keys list lacks the key:\n%s", out.String())
	}
	if strings.Contains(out.String(), secret[4:]) || strings.Contains(out.String(), k.Hash) {
		t.Errorf("keys list shows the key or its hash:\n%s", out.String())
	}

	// A second key with the name is refused until the first is revoked.
	out.Reset()
	err = realMain(ctx, append([]string{"keys", "create", "--name", name, "--role", "admin"}, dgraphFlags()...), &out, &out)
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "a key named "+name+" exists ("+id+")") {
		t.Errorf("a second key named %s: %v", name, err)
	}
	for _, bad := range [][]string{{"--name", name}, {"--role", "reader"}, {"--name", name, "--role", "root"}} {
		if err := realMain(ctx, append(append([]string{"keys", "create"}, bad...), dgraphFlags()...), io.Discard, io.Discard); err != errUsage {
			t.Errorf("keys create %v: %v, want the usage error", bad, err)
		}
	}

	// The key works on the service under test (whose anonymous reads are open, so a bad key would show).
	if _, err := client.GetGraphStats(withKey(ctx, secret), &pb.GetGraphStatsRequest{}); err != nil {
		t.Fatalf("a read with the new key: %v", err)
	}
	out.Reset()
	if err := realMain(ctx, []string{"stats", "--server", serverAddr, "--api-key", secret}, &out, &out); err != nil {
		t.Errorf("polgraph stats --api-key: %v\n%s", err, out.String())
	}

	out.Reset()
	if err := realMain(ctx, append([]string{"keys", "revoke", name}, dgraphFlags()...), &out, &out); err != nil {
		t.Fatal(err)
	}
	revokedAt := time.Now()
	if want := "writing to Dgraph at " + alphaAddr + "\nrevoked " + id + " (" + name + ", reader)\nEvery polgraph refuses it within 5s.\n"; out.String() != want {
		t.Errorf("keys revoke said %q, want %q", out.String(), want)
	}
	for {
		_, err := client.GetGraphStats(withKey(ctx, secret), &pb.GetGraphStatsRequest{})
		if status.Code(err) == codes.Unauthenticated {
			if reason(err) != "API_KEY_REVOKED" || !strings.Contains(status.Convert(err).Message(), id) {
				t.Errorf("the revoked key: %v (%s); want API_KEY_REVOKED naming %s", err, reason(err), id)
			}
			t.Logf("the revoked key was refused %v after the revocation", time.Since(revokedAt).Round(time.Millisecond))
			break
		}
		if time.Since(revokedAt) > auth.DefaultKeyCacheTime+time.Second {
			t.Fatalf("the key still works %v after it was revoked: %v", time.Since(revokedAt), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out.Reset()
	err = realMain(ctx, []string{"stats", "--server", serverAddr, "--api-key", secret}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "revoked") || !strings.Contains(err.Error(), "--api-key") {
		t.Errorf("polgraph stats with the revoked key: %v", err)
	}

	// Revoking again says so; the list shows when; revoking by id works too; the name is free again.
	out.Reset()
	if err := realMain(ctx, append([]string{"keys", "revoke", id}, dgraphFlags()...), &out, &out); err != nil || !strings.Contains(out.String(), "was already revoked") {
		t.Errorf("revoking twice: %v %s", err, out.String())
	}
	out.Reset()
	realMain(ctx, append([]string{"keys", "list"}, dgraphFlags()...), &out, &out)
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `  reader  \S+  \d{4}-\d\d-\d\dT\S+Z  ` + name + `$`).MatchString(out.String()) {
		t.Errorf("keys list does not show the revocation:\n%s", out.String())
	}
	if err := realMain(ctx, append([]string{"keys", "revoke", "nobody-" + name}, dgraphFlags()...), io.Discard, io.Discard); graph.KindOf(err) != graph.NotFound {
		t.Errorf("revoking an unknown name: %v", err)
	}
	makeKey(t, name, "editor")
}

// TestWritesNeedAnEditorKey calls the write API's methods (unimplemented, behind serve's checks) with no
// key, a reader's, an editor's and an admin's, over gRPC and over HTTP (Connect), and, when the service
// under test serves the write API, there too.
func TestWritesNeedAnEditorKey(t *testing.T) {
	ctx := context.Background()
	reader, _ := makeKey(t, uniqueName("writes-reader"), "reader")
	editor, _ := makeKey(t, uniqueName("writes-editor"), "editor")
	admin, _ := makeKey(t, uniqueName("writes-admin"), "admin")
	addr, base := writeServer(t, defaultConfig())
	wc := dialPlain(t, addr)
	call := func(ctx context.Context, method string) error {
		return wc.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{})
	}
	for _, tc := range []struct {
		name   string
		key    string
		method string
		code   codes.Code
		reason string
		says   string
	}{
		{"anonymous upsert", "", upsertEntities, codes.Unauthenticated, "API_KEY_MISSING", "needs an API key"},
		{"anonymous audit trail", "", listChanges, codes.Unauthenticated, "API_KEY_MISSING", "the editor role"},
		{"a reader's upsert", reader, upsertEntities, codes.PermissionDenied, "ROLE_TOO_LOW", "needs the editor role"},
		{"an editor's upsert", editor, upsertEntities, codes.Unimplemented, "", ""},
		{"an editor's entity deletion", editor, deleteEntity, codes.PermissionDenied, "ROLE_TOO_LOW", "needs the admin role"},
		{"an admin's entity deletion", admin, deleteEntity, codes.Unimplemented, "", ""},
		{"a made-up key", "pgk_" + strings.Repeat("A", 42) + "E", upsertEntities, codes.Unauthenticated, "API_KEY_INVALID", "not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctx
			if tc.key != "" {
				ctx = withKey(ctx, tc.key)
			}
			err := call(ctx, tc.method)
			if status.Code(err) != tc.code || reason(err) != tc.reason || !strings.Contains(status.Convert(err).Message(), tc.says) {
				t.Errorf("%v (reason %q); want %v, %q, saying %q", err, reason(err), tc.code, tc.reason, tc.says)
			}
		})
	}

	t.Run("Load, a client stream", func(t *testing.T) {
		load := func(ctx context.Context) error {
			cs, err := wc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true}, loadMethod)
			if err != nil {
				return err
			}
			cs.CloseSend()
			return cs.RecvMsg(&emptypb.Empty{})
		}
		if err := load(ctx); status.Code(err) != codes.Unauthenticated {
			t.Errorf("anonymous: %v", err)
		}
		if err := load(withKey(ctx, reader)); status.Code(err) != codes.PermissionDenied {
			t.Errorf("a reader: %v", err)
		}
		if err := load(withKey(ctx, editor)); status.Code(err) != codes.Unimplemented {
			t.Errorf("an editor: %v", err)
		}
	})

	t.Run("over HTTP", func(t *testing.T) {
		post := func(key, method string) (int, string) {
			req, _ := http.NewRequest(http.MethodPost, base+method, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Connect-Protocol-Version", "1")
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct{ Code, Message string }
			json.NewDecoder(resp.Body).Decode(&body)
			return resp.StatusCode, body.Code + ": " + body.Message
		}
		if code, body := post("", upsertEntities); code != http.StatusUnauthorized || !strings.HasPrefix(body, "unauthenticated: ") {
			t.Errorf("no key: %d %s; want 401 unauthenticated", code, body)
		}
		if code, body := post(reader, upsertEntities); code != http.StatusForbidden || !strings.HasPrefix(body, "permission_denied: ") {
			t.Errorf("a reader's key: %d %s; want 403 permission_denied", code, body)
		}
		if code, body := post(editor, upsertEntities); code != http.StatusNotImplemented {
			t.Errorf("an editor's key: %d %s; want 501 unimplemented (past the checks)", code, body)
		}
	})

	// The service under test, once it serves the write API.
	if slices.Contains(servedMethods(t, serverAddr), upsertEntities) {
		err := conn.Invoke(ctx, upsertEntities, &emptypb.Empty{}, &emptypb.Empty{})
		if status.Code(err) != codes.Unauthenticated || reason(err) != "API_KEY_MISSING" {
			t.Errorf("an anonymous UpsertEntities on the service under test: %v", err)
		}
		err = conn.Invoke(withKey(ctx, reader), upsertEntities, &emptypb.Empty{}, &emptypb.Empty{})
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("a reader's UpsertEntities on the service under test: %v", err)
		}
	} else {
		t.Log("the service under test does not serve polgraph.v1.WriteService yet")
	}
}

// servedMethods walks what a server says it serves, through reflection: every method of every service.
func servedMethods(t *testing.T, addr string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(dialPlain(t, addr)).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var out []string
	services := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
	for _, s := range services.GetListServicesResponse().GetService() {
		files := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: s.GetName()}})
		found := false
		for _, raw := range files.GetFileDescriptorResponse().GetFileDescriptorProto() {
			var fd descriptorpb.FileDescriptorProto
			if err := proto.Unmarshal(raw, &fd); err != nil {
				t.Fatal(err)
			}
			for _, sd := range fd.GetService() {
				if fd.GetPackage()+"."+sd.GetName() != s.GetName() {
					continue
				}
				found = true
				for _, m := range sd.GetMethod() {
					out = append(out, "/"+s.GetName()+"/"+m.GetName())
				}
			}
		}
		if !found {
			t.Errorf("reflection has no descriptor for %s", s.GetName())
		}
	}
	slices.Sort(out)
	return out
}

// TestRoleTableCoversEveryServedMethod walks the services the service under test serves, through
// reflection, and fails on any method the role table does not name (which every caller would be refused).
func TestRoleTableCoversEveryServedMethod(t *testing.T) {
	methods := servedMethods(t, serverAddr)
	if !slices.Contains(methods, "/polgraph.v1.GraphService/FindPaths") || !slices.Contains(methods, "/grpc.health.v1.Health/Check") {
		t.Fatalf("reflection lists too little: %v", methods)
	}
	for _, m := range methods {
		if _, known := auth.Required(m); !known {
			t.Errorf("%s is served but has no role in graph/auth's table (methodRoles): every call to it is refused", m)
		}
	}
	t.Logf("%d methods served, each with a role", len(methods))
}

// TestRequireAuthForReads serves with --require-auth-for-reads: anonymous reads are refused over gRPC,
// HTTP and the CLI, a reader's key passes, and health and reflection stay open.
func TestRequireAuthForReads(t *testing.T) {
	ctx := context.Background()
	cfg := defaultConfig()
	fs := cfg.flags("serve", io.Discard, "addr")
	if err := fs.Parse([]string{"--require-auth-for-reads"}); err != nil {
		t.Fatal(err)
	}
	addr, base := serveWith(t, cfg)
	reader, _ := makeKey(t, uniqueName("reads-reader"), "reader")
	gs := pb.NewGraphServiceClient(dialPlain(t, addr))
	_, err := gs.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
	if status.Code(err) != codes.Unauthenticated || reason(err) != "API_KEY_MISSING" || !strings.Contains(status.Convert(err).Message(), "--require-auth-for-reads") {
		t.Errorf("an anonymous read: %v (%s); want UNAUTHENTICATED, API_KEY_MISSING", err, reason(err))
	}
	if _, err := gs.GetEntity(withKey(ctx, reader), &pb.GetEntityRequest{Name: "Lutfur Rahman"}); err != nil {
		t.Errorf("a reader's read: %v", err)
	}
	ctxX := metadata.AppendToOutgoingContext(ctx, "x-api-key", reader)
	if _, err := gs.GetEntity(ctxX, &pb.GetEntityRequest{Name: "Lutfur Rahman"}); err != nil {
		t.Errorf("a reader's read with x-api-key: %v", err)
	}
	if h, err := healthpb.NewHealthClient(dialPlain(t, addr)).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health without a key: %v %v", h, err)
	}
	if methods := servedMethods(t, addr); len(methods) == 0 {
		t.Error("reflection without a key lists nothing")
	}

	code, body := connectCall(t, base, "GetEntity", `{"name": "Lutfur Rahman"}`)
	if code != http.StatusUnauthorized || body["code"] != "unauthenticated" {
		t.Errorf("an anonymous Connect read: %d %v; want 401 unauthenticated", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/polgraph.v1.GraphService/GetEntity", strings.NewReader(`{"name": "Lutfur Rahman"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("Authorization", "Bearer "+reader)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a Connect read with a key: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}

	var out bytes.Buffer
	err = realMain(ctx, []string{"stats", "--server", addr}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "Unauthenticated") || !strings.Contains(err.Error(), "--api-key or $POLGRAPH_API_KEY") {
		t.Errorf("polgraph stats without a key: %v", err)
	}
	t.Setenv("POLGRAPH_API_KEY", reader)
	out.Reset()
	if err := realMain(ctx, []string{"stats", "--server", addr}, &out, &out); err != nil {
		t.Errorf("polgraph stats with $POLGRAPH_API_KEY: %v\n%s", err, out.String())
	}
}

// TestAnonymousReadsDependOnTheListeners checks the default of --require-auth-for-reads: anonymous reads
// only when every listener is on loopback.
func TestAnonymousReadsDependOnTheListeners(t *testing.T) {
	listen := func(addr string) net.Listener {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	loop, loop2, all := listen("127.0.0.1:0"), listen("127.0.0.1:0"), listen(":0")
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		require   *bool
		listeners []net.Listener
		anonymous bool
	}{
		{"loopback", nil, []net.Listener{loop, loop2}, true},
		{"loopback, the explorer off", nil, []net.Listener{loop, nil}, true},
		{"every interface", nil, []net.Listener{loop, all}, false},
		{"loopback, reads required", &yes, []net.Listener{loop}, false},
		{"every interface, anonymous reads asked for", &no, []net.Listener{all}, true},
	} {
		a := AuthConfig{RequireAuthForReads: tc.require}
		if got, why := a.anonymousReads(tc.listeners...); got != tc.anonymous {
			t.Errorf("%s: anonymous reads %v (%s), want %v", tc.name, got, why, tc.anonymous)
		}
	}
	for _, env := range []struct {
		value string
		want  *bool
	}{{"true", &yes}, {"false", &no}, {"1", &yes}} {
		t.Setenv("POLGRAPH_REQUIRE_AUTH_FOR_READS", env.value)
		cfg := defaultConfig()
		cfg.flags("serve", io.Discard, "addr").Parse(nil)
		if cfg.Auth.RequireAuthForReads == nil || *cfg.Auth.RequireAuthForReads != *env.want || cfg.Auth.check() != nil {
			t.Errorf("POLGRAPH_REQUIRE_AUTH_FOR_READS=%s: %v", env.value, cfg.Auth.RequireAuthForReads)
		}
	}
	t.Setenv("POLGRAPH_REQUIRE_AUTH_FOR_READS", "maybe")
	cfg := defaultConfig()
	cfg.flags("serve", io.Discard, "addr").Parse(nil)
	if err := cfg.Auth.check(); err == nil || !strings.Contains(err.Error(), "POLGRAPH_REQUIRE_AUTH_FOR_READS") {
		t.Errorf("a value that is not a boolean: %v", err)
	}
}

// TestRateLimitsPerPrincipal serves with small read limits: past them, calls are refused with
// RESOURCE_EXHAUSTED and a RetryInfo delay, per principal.
func TestRateLimitsPerPrincipal(t *testing.T) {
	ctx := context.Background()
	cfg := defaultConfig()
	if err := cfg.flags("serve", io.Discard, "addr").Parse([]string{"--read-rate", "0.5", "--read-burst", "3"}); err != nil {
		t.Fatal(err)
	}
	addr, base := serveWith(t, cfg)
	gs := pb.NewGraphServiceClient(dialPlain(t, addr))
	for i := range 3 {
		if _, err := gs.GetGraphStats(ctx, &pb.GetGraphStatsRequest{}); err != nil {
			t.Fatalf("read %d: %v", i+1, err)
		}
	}
	_, err := gs.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
	st := status.Convert(err)
	var delay time.Duration
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			delay = ri.GetRetryDelay().AsDuration()
		}
	}
	if st.Code() != codes.ResourceExhausted || reason(err) != "RATE_LIMITED" || delay <= 0 || delay > 2*time.Second {
		t.Errorf("a fourth read: %v (reason %s, retry after %v); want RESOURCE_EXHAUSTED, RATE_LIMITED, up to 2 s", err, reason(err), delay)
	}
	// Over HTTP the same anonymous address shares the bucket.
	if code, body := connectCall(t, base, "GetGraphStats", `{}`); code != http.StatusTooManyRequests || body["code"] != "resource_exhausted" {
		t.Errorf("a Connect read past the limit: %d %v", code, body)
	}
	// With a Retry-After header, in whole seconds.
	req, _ := http.NewRequest(http.MethodPost, base+"/polgraph.v1.GraphService/GetGraphStats", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Error(err)
	} else {
		resp.Body.Close()
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || err != nil || s < 1 || s > 2 {
			t.Errorf("a Connect read past the limit: %d with Retry-After %q; want 429 with 1 or 2 (seconds)", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	// A key has buckets of its own.
	reader, _ := makeKey(t, uniqueName("rate-reader"), "reader")
	if _, err := gs.GetGraphStats(withKey(ctx, reader), &pb.GetGraphStatsRequest{}); err != nil {
		t.Errorf("a keyed read while anonymous reads are refused: %v", err)
	}
}

// TestSecretsNeverReachClients serves from a store whose connection to Dgraph is closed, and fails calls
// in other ways, and checks that no answer holds polgraph's Dgraph password, the admin token or groot's
// password.
func TestSecretsNeverReachClients(t *testing.T) {
	ctx := context.Background()
	secrets, err := dgraphlocal.ReadSecrets(testDgraph.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	hidden := []string{secrets.ServicePassword, secrets.AuthToken, secrets.GrootPassword}
	broken, err := dgraph.Open(ctx, testDgraph.Service, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	broken.Close()
	var answers []string
	check := func(what string, err error) {
		if err == nil {
			t.Errorf("%s succeeded on a closed store", what)
			return
		}
		answers = append(answers, what+": "+err.Error())
	}

	lis, _ := net.Listen("tcp", "127.0.0.1:0")
	webLis, _ := net.Listen("tcp", "127.0.0.1:0")
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	cfg := defaultConfig()
	cfg.InMemory = false
	go func() {
		done <- serve(sctx, lis, webLis, onDgraph(broken), cfg, slog.New(slog.DiscardHandler), io.Discard)
	}()
	defer func() { cancel(); <-done }()
	gs := pb.NewGraphServiceClient(dialPlain(t, lis.Addr().String()))
	_, err = gs.GetEntity(ctx, &pb.GetEntityRequest{Name: "Lutfur Rahman"})
	check("GetEntity", err)
	_, err = gs.FindPaths(ctx, &pb.FindPathsRequest{From: "a", To: "b"})
	check("FindPaths", err)
	k, _, _ := auth.NewKey("x", auth.Reader, time.Now())
	_, err = gs.GetGraphStats(withKey(ctx, k), &pb.GetGraphStatsRequest{})
	check("a key looked up on a closed store", err)
	_, body := connectCall(t, "http://"+webLis.Addr().String(), "GetEntity", `{"name": "Lutfur Rahman"}`)
	answers = append(answers, "Connect: "+body["code"].(string)+" "+body["message"].(string))

	// The CLI, given a wrong Dgraph password, says so without repeating it or the right one.
	wrong := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(wrong, []byte("not-the-password-4a1b\n"), 0o600)
	err = realMain(ctx, []string{"keys", "list", "--dgraph", alphaAddr, "--dgraph-user", dgraphlocal.ServiceUser, "--dgraph-password-file", wrong}, io.Discard, io.Discard)
	check("keys list with a wrong password", err)
	hidden = append(hidden, "not-the-password-4a1b")

	for _, a := range answers {
		for _, s := range hidden {
			if s != "" && strings.Contains(a, s) {
				t.Errorf("an answer holds a secret: %s", a)
			}
		}
	}
	t.Logf("answers:\n%s", strings.Join(answers, "\n"))
}

func TestParseCertRoles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "roles")
	os.WriteFile(file, []byte("# who may write\ningest.example.org=editor\n\nops=admin\n"), 0o600)
	for _, tc := range []struct {
		in   string
		want map[string]auth.Role
		bad  string
	}{
		{"client.polgraph=editor", map[string]auth.Role{"client.polgraph": auth.Editor}, ""},
		{" a=reader , b=Admin ,", map[string]auth.Role{"a": auth.Reader, "b": auth.Admin}, ""},
		{"odd=name=editor", map[string]auth.Role{"odd=name": auth.Editor}, ""},
		{"@" + file, map[string]auth.Role{"ingest.example.org": auth.Editor, "ops": auth.Admin}, ""},
		{"", map[string]auth.Role{}, ""},
		{"nobody", nil, "want NAME=ROLE"},
		{"=editor", nil, "want NAME=ROLE"},
		{"a=root", nil, "not a role"},
		{"a=reader,a=admin", nil, "two roles"},
		{"@" + file + ".missing", nil, "no such file"},
	} {
		got, err := parseCertRoles(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.bad)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %s is %v, want %v", tc.in, k, got[k], v)
			}
		}
	}
}

// TestKeysAreNotSentInTheClear checks that the CLI sends a key without TLS only to loopback.
func TestKeysAreNotSentInTheClear(t *testing.T) {
	for _, tc := range []struct {
		server, ca string
		ok         bool
	}{
		{"127.0.0.1:50051", "", true},
		{"localhost:50051", "", true},
		{"[::1]:50051", "", true},
		{"polgraph.example.org:50051", "", false},
		{"192.0.2.1:50051", "", false},
	} {
		c := &clientFlags{server: tc.server, apiKey: "pgk_x", tlsCA: tc.ca}
		_, err := c.dialOptions()
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.server, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--tls-ca") {
			t.Errorf("%s: %v does not say how to send the key safely", tc.server, err)
		}
	}
}
