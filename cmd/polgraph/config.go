package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/netcap"
	"github.com/polgraph/polgraph/internal/observe"
)

// Config is every setting of the polgraph binary, with defaults, overridden by environment variables,
// then by flags.
type Config struct {
	Addr string // gRPC listen address
	HTTP string // the graph explorer's HTTP listen address (run, serve); empty turns it off
	// HTTPAllowedHosts are the host names the explorer's HTTP server answers to (besides IP addresses);
	// empty: localhost only.
	HTTPAllowedHosts []string
	Dgraph           string // Dgraph alpha gRPC address (serve, load, import)
	// How to log in to Dgraph (serve, load, import); see dgraphConfig.
	DgraphUser          string
	DgraphPasswordFile  string
	DgraphAuthTokenFile string
	DgraphTLSCA         string // CA certificate(s) to verify the alpha with; setting any TLS field turns TLS on
	DgraphTLSCert       string // polgraph's client certificate, for an alpha that asks for one
	DgraphTLSKey        string
	DgraphTLSServerName string
	Timeout             time.Duration // server-side bound on every query
	LogLevel            string
	DataDir             string        // run: where the local Dgraph keeps its data
	PortOffset          int           // run: offset of the local Dgraph's ports
	DgraphBin           string        // run: the dgraph binary
	Batch               int           // load, import: records per transaction
	WorkBudget          int           // relations one query may read before it stops with RESOURCE_EXHAUSTED
	InMemory            bool          // keep the graph's links in memory for path and neighbourhood searches
	SnapshotFile        string        // keep the graph held in memory in this file too (internal/snapfile); "" or "off": none
	Limits              rpc.Limits    // how many calls of one method run at once, and wait
	ConnLimits          netcap.Limits // connections each listener keeps open, per client address and in all
	Writes              bool          // serve polgraph.v1.WriteService
	WriteTimeout        time.Duration // bounds every write (a Load included)
	// Who may call what (run, serve; see authconfig.go): polgraph's own TLS, client certificates' roles,
	// whether anonymous callers may read, and per-principal rate limits.
	Auth AuthConfig
	// How the process is watched (run, serve, load; see watch.go).
	Metrics string // where to serve Prometheus metrics at /metrics, host:port; empty: nowhere
	PProf   bool   // also serve Go's profiles at /debug/pprof/ on the metrics listener
	// MetricsAllowedHosts are the host names the metrics listener answers to, besides IP addresses;
	// empty: localhost only.
	MetricsAllowedHosts []string
	OTLPEndpoint        string // where to send traces over OTLP/gRPC; empty: $OTEL_EXPORTER_OTLP_ENDPOINT, or nowhere

	// Scheduled backups (run, serve; see backup.go): where, how often, a full one how often, how many
	// series to keep, and the key that encrypts them.
	BackupDir       string
	BackupEvery     time.Duration
	BackupFullEvery time.Duration
	BackupKeep      int
	BackupKeyFile   string

	envErrs []error // values in the environment that do not parse, reported by checkWatching
}

func defaultConfig() Config {
	return Config{
		Addr:            "127.0.0.1:50051",
		HTTP:            "127.0.0.1:8080",
		Dgraph:          "127.0.0.1:9180",
		Timeout:         10 * time.Second,
		LogLevel:        "info",
		DataDir:         ".data/dgraph",
		PortOffset:      dgraphlocal.DefaultPortOffset,
		DgraphBin:       dgraphlocal.DefaultBinary(),
		Batch:           2000,
		WorkBudget:      graph.DefaultWorkBudget,
		InMemory:        true,
		Writes:          true,
		WriteTimeout:    10 * time.Minute,
		BackupEvery:     time.Hour,
		BackupFullEvery: 24 * time.Hour,
		BackupKeep:      7,
		Limits:          rpc.DefaultLimits(),
		ConnLimits:      netcap.DefaultLimits,
		Auth:            defaultAuthConfig(),
	}
}

// flags registers the settings a command uses, with values from the environment as defaults.
func (c *Config) flags(name string, stderr io.Writer, which ...string) *flag.FlagSet {
	fs := flag.NewFlagSet("polgraph "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(key, def string) string {
		if v, ok := os.LookupEnv(key); ok {
			return v
		}
		return def
	}
	for _, w := range which {
		switch w {
		case "addr":
			fs.StringVar(&c.Addr, "addr", env("POLGRAPH_ADDR", c.Addr), "gRPC listen address ($POLGRAPH_ADDR)")
			c.Auth.flags(fs) // who may call the listeners, and over what (run and serve)
		case "http":
			fs.StringVar(&c.HTTP, "http", env("POLGRAPH_HTTP", c.HTTP), "the graph explorer's HTTP listen address; empty turns it off ($POLGRAPH_HTTP)")
			fs.Func("http-allowed-hosts", "comma-separated host names the explorer answers to, besides IP addresses (default localhost; * for any, e.g. behind a proxy that checks names) ($POLGRAPH_HTTP_ALLOWED_HOSTS)", func(v string) error {
				c.HTTPAllowedHosts = hostList(v)
				return nil
			})
			c.HTTPAllowedHosts = hostList(env("POLGRAPH_HTTP_ALLOWED_HOSTS", ""))
		case "dgraph":
			fs.StringVar(&c.Dgraph, "dgraph", env("POLGRAPH_DGRAPH", c.Dgraph), "Dgraph alpha gRPC address, or several alphas of one cluster separated by commas: reads are spread over them and retried on another when one is down ($POLGRAPH_DGRAPH)")
			fs.StringVar(&c.DgraphUser, "dgraph-user", env("POLGRAPH_DGRAPH_USER", ""), "the Dgraph user to log in as, for a Dgraph with ACL on; default: the local Dgraph's polgraph user, when --dgraph is on loopback and --data-dir holds its secrets ($POLGRAPH_DGRAPH_USER)")
			fs.StringVar(&c.DgraphPasswordFile, "dgraph-password-file", env("POLGRAPH_DGRAPH_PASSWORD_FILE", ""), "a file holding the Dgraph user's password, readable by its owner only; or set $POLGRAPH_DGRAPH_PASSWORD ($POLGRAPH_DGRAPH_PASSWORD_FILE)")
			fs.StringVar(&c.DgraphAuthTokenFile, "dgraph-auth-token-file", env("POLGRAPH_DGRAPH_AUTH_TOKEN_FILE", ""), "a file holding Dgraph's admin token (its --security token=), readable by its owner only; or set $POLGRAPH_DGRAPH_AUTH_TOKEN ($POLGRAPH_DGRAPH_AUTH_TOKEN_FILE)")
			fs.StringVar(&c.DgraphTLSCA, "dgraph-tls-ca", env("POLGRAPH_DGRAPH_TLS_CA", ""), "PEM CA certificate(s) to verify the Dgraph alpha with; turns TLS on ($POLGRAPH_DGRAPH_TLS_CA)")
			fs.StringVar(&c.DgraphTLSCert, "dgraph-tls-cert", env("POLGRAPH_DGRAPH_TLS_CERT", ""), "PEM client certificate for an alpha that asks for one ($POLGRAPH_DGRAPH_TLS_CERT)")
			fs.StringVar(&c.DgraphTLSKey, "dgraph-tls-key", env("POLGRAPH_DGRAPH_TLS_KEY", ""), "PEM key of the client certificate ($POLGRAPH_DGRAPH_TLS_KEY)")
			fs.StringVar(&c.DgraphTLSServerName, "dgraph-tls-server-name", env("POLGRAPH_DGRAPH_TLS_SERVER_NAME", ""), "the name the alpha's certificate must carry; default: the host of --dgraph ($POLGRAPH_DGRAPH_TLS_SERVER_NAME)")
		case "timeout":
			d, err := time.ParseDuration(env("POLGRAPH_TIMEOUT", c.Timeout.String()))
			if err == nil {
				c.Timeout = d
			}
			fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "server-side deadline of every query ($POLGRAPH_TIMEOUT)")
			fs.IntVar(&c.WorkBudget, "work-budget", c.WorkBudget, "relations one query may read before it stops with RESOURCE_EXHAUSTED")
			if b, err := strconv.ParseBool(env("POLGRAPH_WRITES", "true")); err == nil {
				c.Writes = b
			}
			fs.BoolVar(&c.Writes, "writes", c.Writes, "serve polgraph.v1.WriteService (writes need an editor's key or certificate); false for a read-only deployment ($POLGRAPH_WRITES)")
			if d, err := time.ParseDuration(env("POLGRAPH_WRITE_TIMEOUT", c.WriteTimeout.String())); err == nil {
				c.WriteTimeout = d
			}
			fs.DurationVar(&c.WriteTimeout, "write-timeout", c.WriteTimeout, "server-side deadline of every write, a whole Load included ($POLGRAPH_WRITE_TIMEOUT)")
			fs.IntVar(&c.Limits.InFlight, "max-in-flight", c.Limits.InFlight, "calls of one method served at once; more wait their turn")
			fs.IntVar(&c.Limits.Queued, "max-queued", c.Limits.Queued, "calls of one method that may wait for a turn (at most 2 s); more are refused with RESOURCE_EXHAUSTED")
			fs.IntVar(&c.ConnLimits.PerAddress, "max-connections-per-address", c.ConnLimits.PerAddress, "connections each listener keeps open from one client address; past it, the oldest that has sent nothing is closed, or the new one refused (0: no cap)")
			fs.IntVar(&c.ConnLimits.Total, "max-connections", c.ConnLimits.Total, "connections each listener keeps open in all, likewise (0: no cap)")
			fs.BoolVar(&c.InMemory, "in-memory", env("POLGRAPH_IN_MEMORY", "true") == "true", "keep the graph's links in memory, in step with Dgraph, for path and neighbourhood searches ($POLGRAPH_IN_MEMORY)")
			fs.StringVar(&c.SnapshotFile, "snapshot-file", env("POLGRAPH_SNAPSHOT_FILE", c.SnapshotFile), "keep the graph held in memory in this local file as well, so that a restart reads it back and asks Dgraph only for what changed since; off for none (run's default: graph.snapshot in --data-dir; serve's: off) ($POLGRAPH_SNAPSHOT_FILE)")
		case "log":
			fs.StringVar(&c.LogLevel, "log-level", env("POLGRAPH_LOG_LEVEL", c.LogLevel), "debug, info, warn or error ($POLGRAPH_LOG_LEVEL)")
		case "data-dir":
			fs.StringVar(&c.DataDir, "data-dir", env("POLGRAPH_DATA_DIR", c.DataDir), "where the local Dgraph keeps its data and secrets ($POLGRAPH_DATA_DIR)")
		case "local":
			var off int
			if _, err := fmt.Sscan(env("POLGRAPH_DGRAPH_PORT_OFFSET", fmt.Sprint(c.PortOffset)), &off); err == nil {
				c.PortOffset = off
			}
			fs.IntVar(&c.PortOffset, "dgraph-port-offset", c.PortOffset, "added to Dgraph's standard ports: 100 puts the alpha's gRPC on 9180 ($POLGRAPH_DGRAPH_PORT_OFFSET)")
			fs.StringVar(&c.DgraphBin, "dgraph-bin", c.DgraphBin, "the dgraph binary ($POLGRAPH_DGRAPH_BIN)")
		case "backup":
			fs.StringVar(&c.BackupDir, "backup-dir", env("POLGRAPH_BACKUP_DIR", ""), "take backups of the local Dgraph (its secrets in --data-dir) into this folder on a schedule, as `polgraph backup` does (default: none) ($POLGRAPH_BACKUP_DIR)")
			for _, d := range []struct {
				to        *time.Duration
				name, env string
				usage     string
			}{{&c.BackupEvery, "backup-every", "POLGRAPH_BACKUP_EVERY", "how often to back up: the most writes a lost disk can lose ($POLGRAPH_BACKUP_EVERY)"},
				{&c.BackupFullEvery, "backup-full-every", "POLGRAPH_BACKUP_FULL_EVERY", "how often a backup is full rather than incremental ($POLGRAPH_BACKUP_FULL_EVERY)"}} {
				if v, ok := os.LookupEnv(d.env); ok {
					if v, err := time.ParseDuration(v); err == nil {
						*d.to = v
					} else {
						c.envErrs = append(c.envErrs, fmt.Errorf("$%s: %w", d.env, err))
					}
				}
				fs.DurationVar(d.to, d.name, *d.to, d.usage)
			}
			fs.IntVar(&c.BackupKeep, "backup-keep", c.BackupKeep, "full backups to keep, each with its incrementals; older ones are deleted (0: keep all)")
			fs.StringVar(&c.BackupKeyFile, "backup-key-file", env("POLGRAPH_BACKUP_KEY_FILE", ""), "encrypt the scheduled backups with the 32-byte key in this file ($POLGRAPH_BACKUP_KEY_FILE)")
		case "batch":
			fs.IntVar(&c.Batch, "batch", c.Batch, "records per transaction")
		case "watch":
			fs.StringVar(&c.Metrics, "metrics", env("POLGRAPH_METRICS", c.Metrics), "serve Prometheus metrics at http://ADDR/metrics, on a listener of their own; keep it private (default: off) ($POLGRAPH_METRICS)")
			if v, ok := os.LookupEnv("POLGRAPH_PPROF"); ok {
				b, err := strconv.ParseBool(v)
				if err != nil {
					c.envErrs = append(c.envErrs, fmt.Errorf("$POLGRAPH_PPROF: %w", err))
				}
				c.PProf = b
			}
			fs.Func("metrics-allowed-hosts", "comma-separated host names the --metrics listener answers to, besides IP addresses (default localhost; e.g. the container's name a Prometheus scrapes) ($POLGRAPH_METRICS_ALLOWED_HOSTS)", func(v string) error {
				c.MetricsAllowedHosts = hostList(v)
				return nil
			})
			c.MetricsAllowedHosts = hostList(env("POLGRAPH_METRICS_ALLOWED_HOSTS", ""))
			fs.BoolVar(&c.PProf, "pprof", c.PProf, "also serve Go's profiles at /debug/pprof/ on the --metrics listener ($POLGRAPH_PPROF)")
			fs.StringVar(&c.OTLPEndpoint, "otlp-endpoint", env("POLGRAPH_OTLP_ENDPOINT", c.OTLPEndpoint), "send traces over OTLP/gRPC to a collector at HOST:PORT (plaintext on loopback, else TLS), http://HOST:PORT or https://HOST:PORT; "+
				"default: $OTEL_EXPORTER_OTLP_ENDPOINT when set, else no traces ($POLGRAPH_OTLP_ENDPOINT)")
		}
	}
	return fs
}

// logger logs at the configured level; every record logged with a call's context carries the call's
// request id (and trace id, when traced).
func (c Config) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(c.LogLevel))); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", c.LogLevel)
	}
	return slog.New(observe.LogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))), nil
}

// checkWatching reports watching settings that cannot work, before anything starts.
func (c Config) checkWatching() error {
	if len(c.envErrs) > 0 {
		return errors.Join(c.envErrs...)
	}
	if c.Metrics != "" {
		if _, _, err := net.SplitHostPort(c.Metrics); err != nil {
			return fmt.Errorf("--metrics %q: want HOST:PORT (e.g. 127.0.0.1:9464): %w", c.Metrics, err)
		}
	}
	if c.PProf && c.Metrics == "" {
		return errors.New("--pprof serves profiles on the --metrics listener: set --metrics too")
	}
	if c.OTLPEndpoint != "" {
		if err := observe.CheckOTLPEndpoint(c.OTLPEndpoint); err != nil {
			return fmt.Errorf("--otlp-endpoint: %w", err)
		}
	}
	return nil
}

// hostList reads a comma-separated list of host names, in lower case.
func hostList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, strings.ToLower(item))
		}
	}
	return out
}
