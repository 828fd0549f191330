package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// dgraphConfig is how to reach and log in to Dgraph, from the flags and environment:
//   - a user given with --dgraph-user logs in with the password from --dgraph-password-file or
//     $POLGRAPH_DGRAPH_PASSWORD;
//   - else, when --dgraph is on loopback and --data-dir holds the secrets of the local Dgraph that `polgraph
//     run` started, polgraph logs in as that Dgraph's polgraph user;
//   - else no login (a Dgraph without ACL).
//
// The admin token comes from --dgraph-auth-token-file or $POLGRAPH_DGRAPH_AUTH_TOKEN (or the local
// secrets); TLS is on when any --dgraph-tls-* flag is set.
func (c Config) dgraphConfig() (dgraph.Config, error) {
	out := dgraph.Config{Addr: c.Dgraph, User: c.DgraphUser}
	var err error
	if out.AuthToken, err = secret(c.DgraphAuthTokenFile, "POLGRAPH_DGRAPH_AUTH_TOKEN", "--dgraph-auth-token-file"); err != nil {
		return out, err
	}
	if c.DgraphUser != "" {
		if out.Password, err = secret(c.DgraphPasswordFile, "POLGRAPH_DGRAPH_PASSWORD", "--dgraph-password-file"); err != nil {
			return out, err
		}
		if out.Password == "" {
			return out, fmt.Errorf("--dgraph-user %s needs a password: --dgraph-password-file or $POLGRAPH_DGRAPH_PASSWORD", c.DgraphUser)
		}
	} else if allOnLoopback(c.Dgraph) {
		s, err := dgraphlocal.ReadSecrets(c.DataDir)
		switch {
		case err == nil:
			out.User, out.Password = dgraphlocal.ServiceUser, s.ServicePassword
			if out.AuthToken == "" {
				out.AuthToken = s.AuthToken
			}
		case !errors.Is(err, fs.ErrNotExist):
			return out, fmt.Errorf("the local Dgraph's secrets: %w", err)
		}
	}
	if c.DgraphTLSCA != "" || c.DgraphTLSCert != "" || c.DgraphTLSKey != "" || c.DgraphTLSServerName != "" {
		if out.TLS, err = c.dgraphTLS(); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (c Config) dgraphTLS() (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.DgraphTLSServerName}
	// Without --dgraph-tls-server-name, each alpha's certificate must carry its own host name (see
	// dgraph.Open).
	if c.DgraphTLSCA != "" {
		pem, err := os.ReadFile(c.DgraphTLSCA)
		if err != nil {
			return nil, fmt.Errorf("--dgraph-tls-ca: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--dgraph-tls-ca: %s holds no PEM certificate", c.DgraphTLSCA)
		}
	}
	if (c.DgraphTLSCert == "") != (c.DgraphTLSKey == "") {
		return nil, errors.New("--dgraph-tls-cert and --dgraph-tls-key go together")
	}
	if c.DgraphTLSCert != "" {
		pair, err := tls.LoadX509KeyPair(c.DgraphTLSCert, c.DgraphTLSKey)
		if err != nil {
			return nil, fmt.Errorf("--dgraph-tls-cert/--dgraph-tls-key: %w", err)
		}
		t.Certificates = []tls.Certificate{pair}
	}
	return t, nil
}

// secret reads a password or token from a file (which only its owner may read) or, when no file is
// given, from an environment variable.
func secret(file, envVar, flag string) (string, error) {
	if file == "" {
		return os.Getenv(envVar), nil
	}
	v, err := dgraphlocal.ReadSecretFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	return v, nil
}

// allOnLoopback reports whether every alpha of a comma-separated list is on loopback.
func allOnLoopback(list string) bool {
	addrs, err := dgraph.Alphas(list)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if !onLoopback(a) {
			return false
		}
	}
	return true
}

// onLoopback reports whether addr's host is a loopback address or localhost.
func onLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
