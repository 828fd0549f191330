package rpc

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
)

// AuthOptions configure who may call what.
type AuthOptions struct {
	// Keys holds the API keys (nil: no key is valid); a lookup is trusted for KeyCacheTime
	// (auth.DefaultKeyCacheTime when 0).
	Keys         auth.KeyStore
	KeyCacheTime time.Duration
	// CertRoles gives client certificates verified by the TLS listener a role, by their subject's common
	// name. A verified certificate not named here is a principal with no role.
	CertRoles map[string]auth.Role
	// AnonymousReads lets callers without a credential read (the reader role); writes are never anonymous.
	AnonymousReads bool
	// Rates limit each principal's calls (auth.RateLimiter).
	Rates auth.Rates
}

// Auth authenticates every call and checks it against the role table (auth.Required) before the call's
// turn is taken or its handler runs, for gRPC clients and, since Vanguard calls the same *grpc.Server, for
// browsers and Connect clients too:
//
//   - the credential is an API key, from the metadata `authorization: Bearer <key>` or `x-api-key: <key>`,
//     or else a client certificate that polgraph's TLS listener verified (its subject's common name, given
//     a role by AuthOptions.CertRoles); without either the caller is anonymous;
//   - a missing credential where one is needed, an unknown key or a revoked one is UNAUTHENTICATED
//     (reasons API_KEY_MISSING, API_KEY_INVALID, API_KEY_REVOKED); a role too low is PERMISSION_DENIED
//     (ROLE_TOO_LOW, naming the role needed); a method the table does not name is PERMISSION_DENIED to
//     everyone (METHOD_NOT_ALLOWED);
//   - each principal has its own token buckets for reads and writes (anonymous callers one per network
//     address): past them, RESOURCE_EXHAUSTED with a google.rpc.RetryInfo delay (RATE_LIMITED);
//   - the handler finds the principal with auth.PrincipalFrom(ctx).
//
// Health checks and reflection are open to anyone and not limited.
type Auth struct {
	keys    *auth.Authenticator
	certs   map[string]auth.Role
	policy  auth.Policy
	limits  *auth.RateLimiter
	log     *slog.Logger
	refused RefusalHook
}

// NewAuth returns the interceptors' state.
func NewAuth(opts AuthOptions, log *slog.Logger) *Auth {
	return &Auth{keys: auth.NewAuthenticator(opts.Keys, opts.KeyCacheTime), certs: opts.CertRoles,
		policy: auth.Policy{AnonymousReads: opts.AnonymousReads}, limits: auth.NewRateLimiter(opts.Rates), log: log}
}

// OnRefused has hook told of every call refused for its credential, its role or its principal's rate
// (UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED); a key that cannot be looked up because the
// database does not answer is a failure, not a refusal. It must be called before the interceptors serve.
func (a *Auth) OnRefused(hook RefusalHook) { a.refused = hook }

// Unary is the interceptor for unary calls.
func (a *Auth) Unary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := a.admit(ctx, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// Stream is the interceptor for streaming calls: the credential is checked once, when the stream opens.
func (a *Auth) Stream() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := a.admit(ss.Context(), info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &principalStream{ServerStream: ss, ctx: ctx})
	}
}

type principalStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *principalStream) Context() context.Context { return s.ctx }

// admit returns the call's context with its principal, or the status refusing the call.
func (a *Auth) admit(ctx context.Context, method string) (context.Context, error) {
	need, known := auth.Required(method)
	if known && need == auth.NoRole {
		return ctx, nil
	}
	name := method[strings.LastIndexByte(method, '/')+1:]
	p, err := a.principal(ctx)
	if err == nil {
		err = a.policy.Allow(p, method)
	}
	if err == nil {
		err = a.limits.Allow(p, need)
	}
	if err != nil {
		st := toStatus(ctx, a.log, name, err)
		switch graph.KindOf(err) {
		case graph.Unauthenticated, graph.PermissionDenied, graph.ResourceExhausted:
			if a.refused != nil {
				a.refused(ctx, method, refusalReason(err, st))
			}
		}
		return nil, st
	}
	return auth.WithPrincipal(ctx, p), nil
}

// principal finds who calls: a key's holder, a verified certificate's subject, or an anonymous caller.
// A key that is presented decides, whatever certificate comes with it.
func (a *Auth) principal(ctx context.Context) (auth.Principal, error) {
	addr := remoteHost(ctx)
	key, err := keyFrom(ctx)
	if err != nil {
		return auth.Principal{}, err
	}
	if key != "" {
		// Only lookups cost the database anything: an address's failed ones are limited, answers the cache
		// holds (a revoked key sent again and again, say) are not, and neither are the lookups of keys
		// found valid lately, so that one client's made-up keys cannot lock out the valid keys sent from
		// the same address.
		lookup := !a.keys.Cached(key)
		if lookup && !a.keys.Known(key) {
			if err := a.limits.AllowLookup(addr); err != nil {
				return auth.Principal{}, err
			}
		}
		p, err := a.keys.Authenticate(ctx, key)
		if lookup && graph.KindOf(err) == graph.Unauthenticated {
			a.limits.LookupFailed(addr)
		}
		p.Address = addr
		return p, err
	}
	if cn, ok := verifiedCommonName(ctx); ok {
		return auth.Principal{Kind: auth.Certificate, Name: cn, Role: a.certs[cn], Address: addr}, nil
	}
	return auth.Principal{Kind: auth.Anonymous, Name: "anonymous", Address: addr}, nil
}

// keyFrom reads the API key a call carries: `authorization: Bearer <key>`, else `x-api-key: <key>`;
// "" when it carries none. An authorization of another scheme is refused (API_KEY_INVALID).
func keyFrom(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) > 0 {
		scheme, key, ok := strings.Cut(strings.TrimSpace(v[0]), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
			return "", &graph.Error{Op: "auth", Kind: graph.Unauthenticated, Reason: "API_KEY_INVALID",
				Message: "the authorization metadata must be `Bearer <key>`"}
		}
		return strings.TrimSpace(key), nil
	}
	if v := md.Get("x-api-key"); len(v) > 0 {
		return strings.TrimSpace(v[0]), nil
	}
	return "", nil
}

// verifiedCommonName is the subject common name of the client certificate the TLS listener verified
// against --tls-client-ca, if the caller presented one.
func verifiedCommonName(ctx context.Context) (string, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "", false
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.PeerCertificates) == 0 {
		return "", false
	}
	cn := info.State.PeerCertificates[0].Subject.CommonName
	return cn, cn != ""
}

// remoteHost is the caller's address without its port.
func remoteHost(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "unknown"
	}
	s := p.Addr.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}

// UncoveredMethods lists the methods of the services registered on a server (srv.GetServiceInfo()) that
// the role table does not name, sorted: each is refused to every caller until it is given a role.
func UncoveredMethods(services map[string]grpc.ServiceInfo) []string {
	var out []string
	for name, info := range services {
		for _, m := range info.Methods {
			full := "/" + name + "/" + m.Name
			if _, known := auth.Required(full); !known {
				out = append(out, full)
			}
		}
	}
	slices.Sort(out)
	return out
}
