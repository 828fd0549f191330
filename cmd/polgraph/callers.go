package main

import (
	"crypto/tls"
	"log/slog"
	"maps"
	"net"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/rpc"
)

// callerChecks returns the interceptors that authenticate every call and check its role and rate
// (graph/rpc.Auth, with the API keys the store holds), and the TLS configuration of polgraph's listeners
// (nil when TLS is off). Anonymous callers may read when every listener is on loopback, unless
// --require-auth-for-reads says otherwise.
func callerChecks(cfg Config, keys auth.KeyStore, log *slog.Logger, listeners ...net.Listener) (*rpc.Auth, *tls.Config, error) {
	tlsCfg, err := cfg.Auth.serverTLS()
	if err != nil {
		return nil, nil, err
	}
	anonymous, why := cfg.Auth.anonymousReads(listeners...)
	clientCerts := "off"
	if tlsCfg != nil && tlsCfg.ClientCAs != nil {
		clientCerts = "verified when given"
		if tlsCfg.ClientAuth == tls.RequireAndVerifyClientCert {
			clientCerts = "required"
		}
	}
	log.Info("callers", "tls", tlsCfg != nil, "client_certificates", clientCerts,
		"certificate_roles", slices.Sorted(maps.Keys(cfg.Auth.TLSClientRoles)), "anonymous_reads", anonymous, "because", why,
		"read_rate", cfg.Auth.Rates.Reads.PerSecond, "write_rate", cfg.Auth.Rates.Writes.PerSecond)
	return rpc.NewAuth(rpc.AuthOptions{Keys: keys, KeyCacheTime: cfg.Auth.KeyCacheTime, CertRoles: cfg.Auth.TLSClientRoles,
		AnonymousReads: anonymous, Rates: cfg.Auth.Rates}, log), tlsCfg, nil
}

// serverCreds is the gRPC server's transport security: TLS with t, or none when t is nil.
func serverCreds(t *tls.Config) grpc.ServerOption {
	if t == nil {
		return grpc.EmptyServerOption{}
	}
	return grpc.Creds(rpc.TLSOnly(credentials.NewTLS(t)))
}
