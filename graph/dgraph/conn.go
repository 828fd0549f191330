package dgraph

import (
	"fmt"
	"net"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

// alphasScheme names the resolver that hands gRPC the configured alphas.
const alphasScheme = "polgraph-alphas"

// Alphas splits a comma-separated list of alpha addresses, each host:port, refusing empty or malformed
// entries and repeats.
func Alphas(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			return nil, fmt.Errorf("Dgraph address %q: an empty entry in the list of alphas", list)
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("Dgraph address %q: want host:port: %v", a, err)
		}
		if seen[a] {
			return nil, fmt.Errorf("Dgraph address %q: listed twice", a)
		}
		seen[a] = true
		out = append(out, a)
	}
	return out, nil
}

// serviceConfig spreads calls over every alpha that is connected (round robin skips the ones that are
// not), and retries a call refused as UNAVAILABLE — the alpha was unreachable, so it never ran it — on
// the next alpha with a short backoff, as long as the call's deadline allows. Every write polgraph sends
// is an upsert by name, so even a retried write that had reached an alpha is written once.
const serviceConfig = `{
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [{
    "name": [{"service": "api.Dgraph"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.05s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
}`

// reconnect is how soon polgraph tries an alpha again after losing it: within a second, whatever the
// outage's length (gRPC's default grows to two minutes, so polgraph came back long after Dgraph did).
var reconnect = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
	MinConnectTimeout: 2 * time.Second,
}

// connectionOptions are the dial options for a connection to the alphas at addrs.
func connectionOptions(addrs []string) []grpc.DialOption {
	r := manual.NewBuilderWithScheme(alphasScheme)
	state := resolver.State{}
	for _, a := range addrs {
		host, _, _ := net.SplitHostPort(a)
		// ServerName: the name an alpha's TLS certificate must carry, each its own.
		state.Endpoints = append(state.Endpoints, resolver.Endpoint{Addresses: []resolver.Address{{Addr: a, ServerName: host}}})
	}
	r.InitialState(state)
	return []grpc.DialOption{grpc.WithResolvers(r), grpc.WithDefaultServiceConfig(serviceConfig), grpc.WithConnectParams(reconnect)}
}
