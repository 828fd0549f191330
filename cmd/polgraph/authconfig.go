package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph/auth"
)

// AuthConfig is who may call polgraph (run, serve), and over what: TLS on polgraph's own listeners,
// client certificates and their roles, whether anonymous callers may read, and per-principal rates.
type AuthConfig struct {
	TLSCert, TLSKey string // polgraph's certificate and key: TLS on the gRPC and the HTTP listener
	// TLSClientCA verifies client certificates (mutual TLS); TLSRequireClientCert refuses connections
	// without one.
	TLSClientCA          string
	TLSRequireClientCert bool
	// TLSClientRoles gives verified client certificates a role, by their subject's common name.
	TLSClientRoles map[string]auth.Role
	// RequireAuthForReads: nil means "when a listener is not on loopback".
	RequireAuthForReads *bool
	Rates               auth.Rates
	// KeyCacheTime is how long an API key looked up is trusted (auth.DefaultKeyCacheTime when 0).
	KeyCacheTime time.Duration

	envErrs []error // values in the environment that do not parse, reported by check
}

func defaultAuthConfig() AuthConfig {
	return AuthConfig{Rates: auth.DefaultRates()}
}

// flags registers the settings of polgraph's own listeners and of who may call them, with values from the
// environment as defaults.
func (a *AuthConfig) flags(fs *flag.FlagSet) {
	fromEnv := func(key string, parse func(string) error) {
		if v, ok := os.LookupEnv(key); ok {
			if err := parse(v); err != nil {
				a.envErrs = append(a.envErrs, fmt.Errorf("$%s: %w", key, err))
			}
		}
	}
	str := func(p *string, name, key, usage string) {
		fromEnv(key, func(v string) error { *p = v; return nil })
		fs.StringVar(p, name, *p, usage+" ($"+key+")")
	}
	str(&a.TLSCert, "tls-cert", "POLGRAPH_TLS_CERT", "PEM certificate (chain) of polgraph's listeners: turns TLS on for gRPC and HTTP, with --tls-key")
	str(&a.TLSKey, "tls-key", "POLGRAPH_TLS_KEY", "PEM key of --tls-cert")
	str(&a.TLSClientCA, "tls-client-ca", "POLGRAPH_TLS_CLIENT_CA", "PEM CA certificate(s) that client certificates are verified against (mutual TLS); a verified certificate's common name gets its role from --tls-client-roles")

	boolean := func(p *bool, name, key, usage string) {
		fromEnv(key, func(v string) (err error) { *p, err = strconv.ParseBool(v); return err })
		fs.BoolVar(p, name, *p, usage+" ($"+key+")")
	}
	boolean(&a.TLSRequireClientCert, "tls-require-client-cert", "POLGRAPH_TLS_REQUIRE_CLIENT_CERT", "refuse connections without a client certificate that --tls-client-ca verifies")

	fromEnv("POLGRAPH_TLS_CLIENT_ROLES", func(v string) (err error) { a.TLSClientRoles, err = parseCertRoles(v); return err })
	fs.Func("tls-client-roles", "roles of client certificates by subject common name: NAME=ROLE,... (ROLE: reader, editor or admin), or @FILE with one NAME=ROLE a line ($POLGRAPH_TLS_CLIENT_ROLES)", func(v string) (err error) {
		a.TLSClientRoles, err = parseCertRoles(v)
		return err
	})

	fromEnv("POLGRAPH_REQUIRE_AUTH_FOR_READS", func(v string) error { return optionalBool{&a.RequireAuthForReads}.Set(v) })
	fs.Var(optionalBool{&a.RequireAuthForReads}, "require-auth-for-reads", "refuse reads without an API key or a client certificate with a role; default: true when a listener is not on loopback, false when all are ($POLGRAPH_REQUIRE_AUTH_FOR_READS)")

	rate := func(r *auth.Rate, kind, key string) {
		fromEnv(key+"_RATE", func(v string) (err error) { r.PerSecond, err = strconv.ParseFloat(v, 64); return err })
		fromEnv(key+"_BURST", func(v string) (err error) { r.Burst, err = strconv.Atoi(v); return err })
		fs.Float64Var(&r.PerSecond, kind+"-rate", r.PerSecond, kind+"s a second allowed to each key, certificate or anonymous address; 0 for no limit ($"+key+"_RATE)")
		fs.IntVar(&r.Burst, kind+"-burst", r.Burst, kind+"s one key, certificate or anonymous address may make at once, past --"+kind+"-rate ($"+key+"_BURST)")
	}
	rate(&a.Rates.Reads, "read", "POLGRAPH_READ")
	rate(&a.Rates.Writes, "write", "POLGRAPH_WRITE")
}

// check reports settings that cannot work together, or do not parse, before anything starts.
func (a AuthConfig) check() error {
	if len(a.envErrs) > 0 {
		return errors.Join(a.envErrs...)
	}
	for _, r := range []auth.Rate{a.Rates.Reads, a.Rates.Writes} {
		if r.PerSecond < 0 || r.Burst < 0 {
			return errors.New("--read-rate, --read-burst, --write-rate and --write-burst cannot be negative")
		}
	}
	_, err := a.serverTLS()
	return err
}

// serverTLS is the TLS configuration of polgraph's listeners, nil when TLS is off.
func (a AuthConfig) serverTLS() (*tls.Config, error) {
	if a.TLSCert == "" && a.TLSKey == "" {
		if a.TLSClientCA != "" || a.TLSRequireClientCert || len(a.TLSClientRoles) > 0 {
			return nil, errors.New("--tls-client-ca, --tls-require-client-cert and --tls-client-roles need TLS: --tls-cert and --tls-key")
		}
		return nil, nil
	}
	if a.TLSCert == "" || a.TLSKey == "" {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	pair, err := tls.LoadX509KeyPair(a.TLSCert, a.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	switch {
	case a.TLSClientCA != "":
		pem, err := os.ReadFile(a.TLSClientCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %w", err)
		}
		t.ClientCAs = x509.NewCertPool()
		if !t.ClientCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-client-ca: %s holds no PEM certificate", a.TLSClientCA)
		}
		t.ClientAuth = tls.VerifyClientCertIfGiven
		if a.TLSRequireClientCert {
			t.ClientAuth = tls.RequireAndVerifyClientCert
		}
	case a.TLSRequireClientCert || len(a.TLSClientRoles) > 0:
		return nil, errors.New("--tls-require-client-cert and --tls-client-roles need --tls-client-ca, to verify client certificates with")
	}
	return t, nil
}

// anonymousReads says whether callers without a credential may read, and why: as
// --require-auth-for-reads says, else when every listener is on loopback.
func (a AuthConfig) anonymousReads(listeners ...net.Listener) (bool, string) {
	if a.RequireAuthForReads != nil {
		return !*a.RequireAuthForReads, "--require-auth-for-reads=" + strconv.FormatBool(*a.RequireAuthForReads)
	}
	for _, l := range listeners {
		if l == nil {
			continue
		}
		if tcp, ok := l.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
			return false, "listening on " + l.Addr().String() + ", which is not loopback"
		}
	}
	return true, "every listener is on loopback"
}

// parseCertRoles reads NAME=ROLE,... or, after @, a file with one NAME=ROLE a line (blank lines and lines
// starting with # are skipped). NAME is a certificate's subject common name; the last = separates it
// from the role.
func parseCertRoles(v string) (map[string]auth.Role, error) {
	items := strings.Split(v, ",")
	if file, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		items = strings.Split(string(b), "\n")
	}
	out := map[string]auth.Role{}
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" || strings.HasPrefix(item, "#") {
			continue
		}
		i := strings.LastIndexByte(item, '=')
		if i <= 0 {
			return nil, fmt.Errorf("%q: want NAME=ROLE (the certificate's common name, then reader, editor or admin)", item)
		}
		role, err := auth.ParseRole(item[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		name := strings.TrimSpace(item[:i])
		if prev, dup := out[name]; dup && prev != role {
			return nil, fmt.Errorf("%s is given two roles, %s and %s", name, prev, role)
		}
		out[name] = role
	}
	return out, nil
}

// optionalBool is a boolean flag that can also be unset (nil).
type optionalBool struct{ p **bool }

func (o optionalBool) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatBool(**o.p)
}

func (o optionalBool) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*o.p = &b
	return nil
}

func (o optionalBool) IsBoolFlag() bool { return true }
