package dgraphlocal

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"github.com/prometheus/procfs"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
)

// dgoClient logs in to Dgraph with plain dgo, for what polgraph's Store never does.
func dgoClient(t *testing.T, cfg dgraph.Config) *dgo.Dgraph {
	t.Helper()
	conn, err := grpc.NewClient(cfg.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	dg := dgo.NewDgraphClient(api.NewDgraphClient(conn))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "auth-token", cfg.AuthToken)
	if err := dg.Login(ctx, cfg.User, cfg.Password); err != nil {
		t.Fatal(err)
	}
	return dg
}

func TestReadSecretFileRefusesFilesOthersCanRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "pw")
	if err := os.WriteFile(p, []byte("s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecretFile(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a file others can read: %v, want a refusal saying chmod 600", err)
	}
	os.Chmod(p, 0o600)
	if v, err := ReadSecretFile(p); err != nil || v != "s3cret" {
		t.Errorf("got %q, %v", v, err)
	}
}

// TestLocalDgraphIsClosed starts a Dgraph as `polgraph run` does and checks what is closed: the files,
// the users and their rights, every HTTP endpoint that once answered anyone, and that a second start on
// the same data finds everything in place.
func TestLocalDgraphIsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	if _, err := os.Stat(DefaultBinary()); err != nil {
		t.Skip("no Dgraph binary; `make dgraph` builds it")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{Binary: DefaultBinary(), DataDir: dir, Logger: slog.New(slog.DiscardHandler)}
	c, cfg, err := StartOnFreePorts(ctx, cfg, 3000+os.Getpid()%50*7)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Stop() }()

	t.Run("files are the user's alone", func(t *testing.T) {
		for _, p := range []string{dir, SecretsDir(dir)} {
			if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v %v, want 0700", p, info.Mode().Perm(), err)
			}
		}
		for _, f := range secretFiles {
			if info, err := os.Stat(filepath.Join(SecretsDir(dir), f)); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, want 0600", f, err)
			}
		}
		_, alpha := c.PIDs()
		p, err := procfs.NewProc(alpha)
		if err != nil {
			t.Fatal(err)
		}
		args, err := p.CmdLine()
		if err != nil {
			t.Fatal(err)
		}
		if cmdline := strings.Join(args, " "); strings.Contains(cmdline, c.secrets.AuthToken) || strings.Contains(cmdline, c.secrets.GrootPassword) {
			t.Errorf("a secret is on the alpha's command line, which every local user can read")
		}
	})

	t.Run("Dgraph logs only into the data folder", func(t *testing.T) {
		zero, alpha := c.PIDs()
		for name, pid := range map[string]int{"zero": zero, "alpha": alpha} {
			// Dgraph's logger names its files dgraph.HOST.USER.log.LEVEL.TIME.PID in the temporary folder.
			stray, err := filepath.Glob(filepath.Join(os.TempDir(), "dgraph.*.log.*."+strconv.Itoa(pid)))
			if err != nil {
				t.Fatal(err)
			}
			if len(stray) > 0 {
				t.Errorf("the %s wrote log files others can read outside the data folder: %v", name, stray)
			}
			own, err := os.ReadFile(filepath.Join(dir, "logs", name+".log"))
			if err != nil {
				t.Fatal(err)
			}
			// A line of Dgraph's logger: level letter, date, time, thread, file:line.
			if !regexp.MustCompile(`(?m)^I\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.go:\d+\] `).Match(own) {
				t.Errorf("logs/%s.log holds no line of Dgraph's log:\n%.500s", name, own)
			}
			for what, secret := range map[string]string{"admin token": c.secrets.AuthToken, "groot's password": c.secrets.GrootPassword,
				"polgraph's password": c.secrets.ServicePassword} {
				if bytes.Contains(own, []byte(secret)) {
					t.Errorf("logs/%s.log holds the %s in clear", name, what)
				}
			}
		}
		// The alpha prints its configuration, admin token included, at every start: redacted.
		own, _ := os.ReadFile(filepath.Join(dir, "logs", "alpha.log"))
		if !regexp.MustCompile(`AuthToken:\[REDACTED\]`).Match(own) {
			t.Errorf("logs/alpha.log does not show the admin token redacted where the alpha prints its configuration")
		}
	})

	t.Run("polgraph's user has polgraph's predicates and nothing else", func(t *testing.T) {
		s, err := dgraph.Open(ctx, c.Service(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.ApplySchema(ctx); err != nil {
			t.Fatalf("apply polgraph's schema: %v", err)
		}
		if err := s.UpsertEntities(ctx, []graph.Entity{{Name: "actors/someone", Kind: graph.KindActor, DisplayName: "Someone"}}); err != nil {
			t.Fatalf("write: %v", err)
		}
		if e, err := s.GetEntity(ctx, "actors/someone"); err != nil || e.DisplayName != "Someone" {
			t.Fatalf("read back: %+v %v", e, err)
		}
		if err := s.DropAll(ctx); err == nil {
			t.Error("polgraph's user dropped all data")
		}
		dg := dgoClient(t, c.Service())
		if err := dg.Alter(ctx, &api.Operation{Schema: "evil: string ."}); err == nil {
			t.Error("polgraph's user added a predicate outside its schema")
		}
		resp, err := dg.NewReadOnlyTxn().Query(ctx, `{ q(func: has(dgraph.xid)) { dgraph.xid dgraph.password } }`)
		if err == nil && (bytes.Contains(resp.GetJson(), []byte("groot")) || bytes.Contains(resp.GetJson(), []byte("dgraph.password"))) {
			t.Errorf("polgraph's user reads the ACL's data: %s", resp.GetJson())
		}
	})

	t.Run("no login without the admin token", func(t *testing.T) {
		admin := c.Admin()
		admin.AuthToken = ""
		if s, err := dgraph.Open(ctx, admin, slog.New(slog.DiscardHandler)); err == nil {
			s.Close()
			t.Error("groot logged in without the admin token")
		}
		wrong := c.Service()
		wrong.Password = "password"
		if s, err := dgraph.Open(ctx, wrong, slog.New(slog.DiscardHandler)); err == nil || graph.KindOf(err) != graph.Unavailable || !strings.Contains(err.Error(), "refused polgraph's login") {
			if s != nil {
				s.Close()
			}
			t.Errorf("a wrong password: %v, want a refused login", err)
		}
	})

	t.Run("HTTP endpoints refuse requests without credentials", func(t *testing.T) {
		alpha := cfg.alphaHTTP()
		zero := "http://127.0.0.1:" + strconv.Itoa(6080+cfg.PortOffset)
		for _, tt := range []struct{ method, url, ctype, body, says string }{
			{"POST", alpha + "/query", "application/dql", `{ q(func: has(pg.name)) { pg.name } }`, "no accessJwt"},
			{"POST", alpha + "/mutate?commitNow=true", "application/json", `{"set": [{"pg.name": "x"}]}`, "no accessJwt"},
			{"POST", alpha + "/alter", "text/plain", `evil: string .`, "Token needed"},
			{"POST", alpha + "/alter", "application/json", `{"drop_all": true}`, "Token needed"},
			{"POST", alpha + "/login", "application/json", `{"userid": "groot", "password": "` + c.secrets.GrootPassword + `"}`, "Token needed"},
			{"POST", alpha + "/login", "application/json", `{"userid": "groot", "password": "password"}`, "Token needed"},
			{"POST", alpha + "/admin", "application/json", `{"query": "{ getGQLSchema { schema } }"}`, "X-Dgraph-AuthToken"},
			{"GET", alpha + "/state", "", "", "no accessJwt"},
			{"GET", zero + "/state", "", "", "404"},
			{"GET", zero + "/removeNode?id=1&group=1", "", "", "404"},
			{"GET", zero + "/assign?what=uids&num=1000000", "", "", "404"},
			{"GET", zero + "/moveTablet?tablet=pg.name&group=2", "", "", "404"},
		} {
			req, _ := http.NewRequestWithContext(ctx, tt.method, tt.url, strings.NewReader(tt.body))
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := strconv.Itoa(resp.StatusCode) + " " + string(b)
			if !strings.Contains(got, tt.says) || strings.Contains(got, "accessJWT\":\"ey") {
				t.Errorf("%s %s: %.200s; want a refusal saying %q", tt.method, tt.url, got, tt.says)
			}
		}
	})

	// Dgraph v25 serves /health to every origin and its debug endpoints to every local process, whatever
	// its flags (docs/security.md): what they show must hold no secret.
	t.Run("what the alpha shows anyone holds no secret", func(t *testing.T) {
		alpha := cfg.alphaHTTP()
		for _, path := range []string{"/health", "/health?all", "/debug/vars", "/debug/pprof/cmdline", "/debug/pprof/goroutine?debug=2"} {
			resp, err := http.Get(alpha + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for what, secret := range map[string]string{"admin token": c.secrets.AuthToken, "groot's password": c.secrets.GrootPassword,
				"polgraph's password": c.secrets.ServicePassword} {
				if strings.Contains(string(b), secret) {
					t.Errorf("%s shows the %s", path, what)
				}
			}
		}
	})

	t.Run("a second start finds its users", func(t *testing.T) {
		if err := c.Stop(); err != nil {
			t.Log(err)
		}
		c, err = Start(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := dgraph.Open(ctx, c.Service(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if e, err := s.GetEntity(ctx, "actors/someone"); err != nil || e.DisplayName != "Someone" {
			t.Errorf("after a restart: %+v %v", e, err)
		}
	})

	t.Run("replaced secrets are named", func(t *testing.T) {
		c.Stop()
		if err := os.WriteFile(filepath.Join(SecretsDir(dir), "groot-password"), []byte("not-the-one\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c2, err := Start(ctx, cfg)
		if err == nil {
			c2.Stop()
			t.Fatal("started with a groot password Dgraph does not know")
		}
		if !strings.Contains(err.Error(), "refuses groot's password") || !strings.Contains(err.Error(), SecretsDir(dir)) {
			t.Errorf("the error should say the secrets do not match: %v", err)
		}
	})
}
