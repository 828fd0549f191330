// Package dgraphlocal starts, watches and stops a local Dgraph (one zero and one alpha, or several alphas in
// replicated or sharded groups) on loopback, for `polgraph run`, `polgraph cluster` and for tests. The binary comes from deploy/build-dgraph.sh, which builds Dgraph from the Go module
// proxy and caches it by version.
//
// The Dgraph it starts is closed: ACL on, with generated secrets kept under the data folder (Secrets);
// every login, schema change and /admin call needs the admin token; zero's HTTP admin endpoints are off.
// polgraph logs in as its own user, which may touch polgraph's predicates only.
package dgraphlocal

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polgraph/polgraph/graph/dgraph"
)

// Version is the Dgraph release polgraph is built and tested against.
const Version = "v25.0.0"

// AlphaCache is the alphas' --cache: Dgraph's default size (1 GiB), all of it for Badger's block and
// index caches and none for the posting-list cache. Dgraph v25.0.0 counts each posting list in that cache
// as costing 1 (fixed after it, in dgraph-io/dgraph#9515), so the cache never evicts and the alpha grows
// with everything it has read: 10 GB after reading a graph of 1M relations once, 2.4 GB at 100k, where it
// stays near 1 GB without it.
const AlphaCache = "size-mb=1024; percentage=0,80,20;"

// DefaultPortOffset moves every Dgraph port by 100 (alpha gRPC on 9180), so that polgraph's Dgraph does
// not clash with one a user already runs on the standard ports.
const DefaultPortOffset = 100

// DefaultBinary is where deploy/build-dgraph.sh caches the binary: the user cache directory, keyed by
// version, so that a fresh clone on the same machine finds it. POLGRAPH_DGRAPH_BIN overrides it.
func DefaultBinary() string {
	if b := os.Getenv("POLGRAPH_DGRAPH_BIN"); b != "" {
		return b
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "polgraph", "dgraph-"+Version, "dgraph")
}

// Config says how to run the local Dgraph.
type Config struct {
	Binary     string // path to the dgraph binary
	DataDir    string // where zero and alpha keep their data and logs
	PortOffset int    // added to every Dgraph port (zero 5080/6080, alpha 7080/8080/9080)
	Logger     *slog.Logger
	// OnDeath, when set, is told at once of each Dgraph process that dies while supervised (its name:
	// "zero", "alpha", "alpha2", …), before it is restarted: a zero's death leaves the alphas up but
	// unable to answer, which a caller cannot see as quickly otherwise.
	OnDeath func(process string)
	// Open starts Dgraph without ACL and without the admin token, as it comes out of the box: for the
	// benchmark's raw-Dgraph baselines only, never for a Dgraph that serves users.
	Open bool
	// TLS, when set, makes the alpha's gRPC and HTTP ports speak TLS only (as a remote Dgraph would).
	TLS *TLSFiles
	// Alphas is how many alphas to start (1 when 0); alpha i moves its ports by i more than PortOffset.
	Alphas int
	// Replicas is zero's --replicas: how many alphas each group holds (1 when 0). Three alphas with
	// Replicas 3 are one replicated group; two alphas with Replicas 1 are two groups that share the
	// predicates between them.
	Replicas int
}

func (c Config) alphas() int { return max(c.Alphas, 1) }

// TLSFiles are the PEM files of an alpha that speaks TLS.
type TLSFiles struct {
	CA, Cert, Key string
	// RequireClientCert makes the alpha ask every client for a certificate signed by CA (mutual TLS);
	// dgraphlocal's own clients then show ClientCert.
	RequireClientCert     bool
	ClientCert, ClientKey string
}

// httpClient is a client for the alpha's HTTP port: one that trusts its CA when it speaks TLS.
func (c Config) httpClient() *http.Client {
	if c.TLS == nil {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: c.clientTLS()}}
}

// clientTLS is how a client trusts the alpha (and shows its certificate, when the alpha asks for one);
// nil when the alpha does not speak TLS.
func (c Config) clientTLS() *tls.Config {
	if c.TLS == nil {
		return nil
	}
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(c.TLS.CA); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	t := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if c.TLS.RequireClientCert {
		if pair, err := tls.LoadX509KeyPair(c.TLS.ClientCert, c.TLS.ClientKey); err == nil {
			t.Certificates = []tls.Certificate{pair}
		}
	}
	return t
}

// Cluster is a running zero and its alphas.
type Cluster struct {
	cfg     Config
	zero    *proc
	alphas  []*proc
	secrets Secrets

	mu       sync.Mutex
	stopping bool
	failed   chan error // one crash loop's verdict, for Supervise's caller
}

// Service is how polgraph logs in: as ServiceUser, which may read, write and alter polgraph's
// predicates only.
func (c *Cluster) Service() dgraph.Config {
	if c.cfg.Open {
		return dgraph.Config{Addr: c.cfg.AlphaAddrs()}
	}
	return dgraph.Config{Addr: c.cfg.AlphaAddrs(), User: ServiceUser, Password: c.secrets.ServicePassword, AuthToken: c.secrets.AuthToken, TLS: c.cfg.clientTLS()}
}

// Admin is how an administrator logs in: as groot, who may do anything, dropping all data included.
func (c *Cluster) Admin() dgraph.Config {
	if c.cfg.Open {
		return dgraph.Config{Addr: c.cfg.AlphaAddr()}
	}
	return dgraph.Config{Addr: c.cfg.AlphaAddr(), User: "groot", Password: c.secrets.GrootPassword, AuthToken: c.secrets.AuthToken, TLS: c.cfg.clientTLS()}
}

// AlphaAddr is the first alpha's gRPC address, for dgo.
func (c Config) AlphaAddr() string { return c.alphaAddr(0) }

// AlphaAddrs is every alpha's gRPC address, separated by commas, as polgraph's --dgraph takes them.
func (c Config) AlphaAddrs() string {
	addrs := make([]string, c.alphas())
	for i := range addrs {
		addrs[i] = c.alphaAddr(i)
	}
	return strings.Join(addrs, ",")
}

func (c Config) alphaAddr(i int) string { return "127.0.0.1:" + strconv.Itoa(9080+c.PortOffset+i) }

func (c Config) alphaHTTP() string { return c.alphaHTTPOf(0) }

// AlphaHTTP is alpha i's HTTP base URL.
func (c Config) alphaHTTPOf(i int) string {
	scheme := "http"
	if c.TLS != nil {
		scheme = "https"
	}
	return scheme + "://127.0.0.1:" + strconv.Itoa(8080+c.PortOffset+i)
}

func (c Config) ports() []int {
	o := c.PortOffset
	ps := []int{5080 + o, 6080 + o}
	for i := range c.alphas() {
		ps = append(ps, 7080+o+i, 8080+o+i, 9080+o+i)
	}
	return ps
}

// Healthy reports whether the first alpha answers /health on the configured ports.
func (c Config) Healthy(ctx context.Context) bool { return c.healthy(ctx, 0) }

// healthy reports whether alpha i answers /health.
func (c Config) healthy(ctx context.Context, i int) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.alphaHTTPOf(i)+"/health", nil)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// PortsFree reports the first configured port that something already listens on, or 0.
func (c Config) PortsFree() int {
	for _, p := range c.ports() {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return p
		}
		l.Close()
	}
	return 0
}

// ErrPortInUse is wrapped by Start's error when one of the ports it needs is taken.
var ErrPortInUse = errors.New("port in use")

// StartOnFreePorts is Start at the first port offset at or above from where every port is free, trying
// further offsets when another process takes a port between the check and the start (several test
// processes start Dgraphs at once). It returns the config used.
func StartOnFreePorts(ctx context.Context, cfg Config, from int) (*Cluster, Config, error) {
	for attempt := 0; ; attempt++ {
		o, err := freeOffset(from, cfg.alphas())
		if err != nil {
			return nil, cfg, err
		}
		cfg.PortOffset = o
		c, err := Start(ctx, cfg)
		if errors.Is(err, ErrPortInUse) && attempt < 5 {
			from = o + 7
			continue
		}
		return c, cfg, err
	}
}

// FreeOffset finds a port offset at or above from where all five ports of a one-alpha Dgraph are free.
func FreeOffset(from int) (int, error) { return freeOffset(from, 1) }

// freeOffset finds a port offset at or above from where every port of a Dgraph of n alphas is free.
func freeOffset(from, n int) (int, error) {
	for o := from; o < from+2000; o += 7 {
		if (Config{PortOffset: o, Alphas: n}).PortsFree() == 0 {
			return o, nil
		}
	}
	return 0, fmt.Errorf("no free port offset for Dgraph between %d and %d", from, from+2000)
}

// Start runs zero and alpha and waits until the alpha is healthy. It fails with a clear message when the
// binary is missing or a port is taken.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		cfg.Logger = log
	}
	if _, err := os.Stat(cfg.Binary); err != nil {
		return nil, fmt.Errorf("dgraph binary not found at %s: build it with `make dgraph` (or deploy/build-dgraph.sh), or set POLGRAPH_DGRAPH_BIN", cfg.Binary)
	}
	if p := cfg.PortsFree(); p != 0 {
		hint := "something else listens there"
		if cfg.Healthy(ctx) {
			hint = "a Dgraph alpha already answers on " + cfg.alphaHTTP() + " (another `make run`?)"
		}
		return nil, fmt.Errorf("port %d is in use: %s; stop it or choose other ports with POLGRAPH_DGRAPH_PORT_OFFSET: %w", p, hint, ErrPortInUse)
	}
	// The data folder is the user's alone: other local users can neither read the graph's files nor the
	// secrets and logs.
	logs := filepath.Join(cfg.DataDir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg}
	o := cfg.PortOffset
	tele := "reports=false; sentry=false;"
	// Dgraph's own log goes to its standard error, which is logs/NAME.log: by default it would also write
	// files of its own, readable by every local user, in the system's temporary folder.
	const logs2stderr = "--logtostderr"
	zeroArgs := []string{"zero",
		"--my=127.0.0.1:" + strconv.Itoa(5080+o), "--port_offset=" + strconv.Itoa(o), "--bindall=false",
		"--wal=" + filepath.Join(cfg.DataDir, "zw"), "--telemetry=" + tele, "--replicas=" + strconv.Itoa(max(cfg.Replicas, 1)), logs2stderr}
	alphaArgs := func(i int) []string {
		// The first alpha keeps the folder names a one-alpha Dgraph has always had.
		dir := func(name string) string {
			if i > 0 {
				name += strconv.Itoa(i + 1)
			}
			return filepath.Join(cfg.DataDir, name)
		}
		return []string{"alpha",
			"--my=127.0.0.1:" + strconv.Itoa(7080+o+i), "--zero=127.0.0.1:" + strconv.Itoa(5080+o),
			"--port_offset=" + strconv.Itoa(o+i), "--bindall=false",
			"--postings=" + dir("p"), "--wal=" + dir("w"), "--tmp=" + dir("t"), "--telemetry=" + tele, "--cache=" + AlphaCache, logs2stderr}
	}
	var extra []string
	var alphaEnv []string
	if t := cfg.TLS; t != nil {
		auth := "VERIFYIFGIVEN"
		if t.RequireClientCert {
			auth = "REQUIREANDVERIFY"
		}
		extra = append(extra, "--tls=ca-cert="+t.CA+"; server-cert="+t.Cert+"; server-key="+t.Key+"; client-auth-type="+auth+";")
	}
	if cfg.Open {
		extra = append(extra, "--security=whitelist=127.0.0.1/8")
	} else {
		var err error
		if c.secrets, err = EnsureSecrets(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("Dgraph's secrets in %s: %w", SecretsDir(cfg.DataDir), err)
		}
		// Zero's HTTP admin endpoints (/removeNode, /moveTablet, /assign, /state) take plain GETs with no
		// credentials at all: any web page could call them. polgraph needs none of them.
		zeroArgs = append(zeroArgs, "--limit=disable-admin-http=true")
		extra = append(extra, "--acl=secret-file="+c.secrets.HMACFile()+"; access-ttl=1h; refresh-ttl=720h;")
		// The token goes in the environment, which only the user can read, not on the command line,
		// which every local user can (ps, /proc/PID/cmdline).
		alphaEnv = append(alphaEnv, "DGRAPH_ALPHA_SECURITY=token="+c.secrets.AuthToken+"; whitelist=127.0.0.1/8;")
	}
	secrets := []string{c.secrets.AuthToken, c.secrets.GrootPassword, c.secrets.ServicePassword}
	c.zero = &proc{name: "zero", args: zeroArgs, secrets: secrets}
	if err := c.zero.start(cfg); err != nil {
		return nil, err
	}
	for i := range cfg.alphas() {
		name := "alpha"
		if i > 0 {
			name += strconv.Itoa(i + 1)
		}
		a := &proc{name: name, args: append(alphaArgs(i), extra...), env: alphaEnv, secrets: secrets}
		c.alphas = append(c.alphas, a)
		if err := a.start(cfg); err != nil {
			c.Stop()
			return nil, err
		}
	}
	log.Info("waiting for Dgraph", "alphas", len(c.alphas), "health", cfg.alphaHTTP()+"/health", "logs", logs)
	deadline := time.Now().Add(90 * time.Second)
	for i, a := range c.alphas {
		for !cfg.healthy(ctx, i) {
			select {
			case <-a.exited():
				c.Stop()
				return nil, fmt.Errorf("dgraph %s exited during start-up; see %s", a.name, filepath.Join(logs, a.name+".log"))
			case <-c.zero.exited():
				c.Stop()
				return nil, fmt.Errorf("dgraph zero exited during start-up; see %s", filepath.Join(logs, "zero.log"))
			case <-ctx.Done():
				c.Stop()
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				c.Stop()
				return nil, fmt.Errorf("dgraph %s not healthy after 90s; see %s", a.name, logs)
			}
		}
	}
	if !cfg.Open {
		if err := bootstrapACL(ctx, aclClient{base: cfg.alphaHTTP(), token: c.secrets.AuthToken, http: cfg.httpClient()}, c.secrets, log); err != nil {
			c.Stop()
			return nil, fmt.Errorf("set up Dgraph's users: %w", err)
		}
		if len(c.alphas) > 1 {
			if err := c.waitACL(ctx); err != nil {
				c.Stop()
				return nil, err
			}
		}
	}
	log.Info("Dgraph is up", "alphas", cfg.AlphaAddrs(), "data", cfg.DataDir, "acl", !cfg.Open)
	return c, nil
}
