// Package auth owns who may call polgraph: API keys (their format, hashing and lookup), the roles reader,
// editor and admin, the one table of the role each RPC needs, the principal a call runs as, and the
// per-principal rate limits. It knows nothing of gRPC: graph/rpc reads credentials off a call and asks
// this package what they allow; graph/dgraph stores the keys.
package auth

import (
	"context"
	"fmt"
	"strings"
)

// Role is what a principal may do. Roles are ordered: each allows what the ones below it allow.
type Role int

// The roles.
const (
	// NoRole is an anonymous caller's, or that of a client certificate no role is given to. In the method
	// table it marks methods anyone may call (health, reflection).
	NoRole Role = iota
	Reader      // every read of polgraph.v1.GraphService
	Editor      // writes: upserts, loads, retractions, relation deletions, the audit trail
	Admin       // what rewrites identity: entity deletions, merges and unmerges
)

// Roles lists the roles a key or a certificate can be given, lowest first.
var Roles = []Role{Reader, Editor, Admin}

func (r Role) String() string {
	switch r {
	case NoRole:
		return "none"
	case Reader:
		return "reader"
	case Editor:
		return "editor"
	case Admin:
		return "admin"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// ParseRole reads a role's name: reader, editor or admin (in any case).
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if strings.EqualFold(strings.TrimSpace(s), r.String()) {
			return r, nil
		}
	}
	return NoRole, fmt.Errorf("%q is not a role: want reader, editor or admin", s)
}

// PrincipalKind says how a principal proved who it is.
type PrincipalKind int

// The kinds of principal.
const (
	Anonymous   PrincipalKind = iota // no credential
	APIKey                           // an API key (authorization: Bearer, or x-api-key)
	Certificate                      // a client certificate verified by polgraph's TLS listener
)

// Principal is who a call runs as.
type Principal struct {
	Kind PrincipalKind
	// Name is a key's name or a certificate's subject common name; "anonymous" for anonymous callers.
	Name string
	// KeyID is the key's resource name (keys/<id>) when Kind is APIKey.
	KeyID KeyID
	// Role is the role the credential holds (NoRole for anonymous callers and for certificates not given
	// one), not what an anonymous reader is let do.
	Role Role
	// Address is the caller's network address (host only), for anonymous callers' rate limits and logs.
	Address string
}

// String names the principal for logs and the audit trail: "key alice (keys/0123456789ab)",
// "certificate CN=ingest.example.org", or "anonymous (127.0.0.1)".
func (p Principal) String() string {
	switch p.Kind {
	case APIKey:
		return fmt.Sprintf("key %s (%s)", p.Name, p.KeyID)
	case Certificate:
		return "certificate CN=" + p.Name
	}
	if p.Address != "" {
		return "anonymous (" + p.Address + ")"
	}
	return "anonymous"
}

// bucketKey names the rate-limit bucket a principal draws from: its key, its certificate, or (anonymous)
// its network address.
func (p Principal) bucketKey() string {
	switch p.Kind {
	case APIKey:
		return "key:" + string(p.KeyID)
	case Certificate:
		return "cert:" + p.Name
	}
	return "addr:" + p.Address
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal a call runs as, which graph/rpc's interceptors put on the context
// of every call of polgraph.v1; false outside such a call.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
