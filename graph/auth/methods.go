package auth

import (
	"sort"

	"github.com/polgraph/polgraph/graph"
)

// methodRoles is the one table of who may call what: every RPC polgraph serves, by its full name
// (/package.Service/Method), with the lowest role that may call it; NoRole marks methods anyone may call.
// A method that is not here is refused to everyone (Required), so a method added to a service stays
// closed until it is given a role here; a test walks the served services and fails on any such method.
//
// Writes are listed by name before their service exists, so they are closed from the first build that
// serves them.
var methodRoles = map[string]Role{
	// Health checks and server reflection (grpcurl's list and describe) are open: they read no graph data.
	"/grpc.health.v1.Health/Check":                                   NoRole,
	"/grpc.health.v1.Health/List":                                    NoRole,
	"/grpc.health.v1.Health/Watch":                                   NoRole,
	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo":      NoRole,
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": NoRole,

	// Reads.
	"/polgraph.v1.GraphService/GetEntity":           Reader,
	"/polgraph.v1.GraphService/SearchEntities":      Reader,
	"/polgraph.v1.GraphService/ExportGraph":         Reader,
	"/polgraph.v1.GraphService/BatchGetEntities":    Reader,
	"/polgraph.v1.GraphService/LookupEntities":      Reader,
	"/polgraph.v1.GraphService/GetRelation":         Reader,
	"/polgraph.v1.GraphService/FindPaths":           Reader,
	"/polgraph.v1.GraphService/ExploreNeighborhood": Reader,
	"/polgraph.v1.GraphService/ListRelations":       Reader,
	"/polgraph.v1.GraphService/GetTimeline":         Reader,
	"/polgraph.v1.GraphService/GetSource":           Reader,
	"/polgraph.v1.GraphService/ListSources":         Reader,
	"/polgraph.v1.GraphService/GetGraphStats":       Reader,
	"/polgraph.v1.GraphService/FindConnections":     Reader,
	"/polgraph.v1.GraphService/WatchChanges":        Reader,
	// Saved views: opened by whoever may read the graph, saved and changed by editors.
	"/polgraph.v1.ViewService/ListViews":  Reader,
	"/polgraph.v1.ViewService/GetView":    Reader,
	"/polgraph.v1.ViewService/CreateView": Editor,
	"/polgraph.v1.ViewService/UpdateView": Editor,
	"/polgraph.v1.ViewService/DeleteView": Editor,

	// Writes, and the audit trail (which names who wrote what).
	"/polgraph.v1.WriteService/UpsertSources":   Editor,
	"/polgraph.v1.WriteService/UpsertEntities":  Editor,
	"/polgraph.v1.WriteService/UpsertRelations": Editor,
	"/polgraph.v1.WriteService/Load":            Editor,
	"/polgraph.v1.WriteService/RetractClaim":    Editor,
	"/polgraph.v1.WriteService/DeleteRelation":  Editor,
	"/polgraph.v1.WriteService/ListChanges":     Editor,
	// The review queue: reading documents and every decision on what they propose. Listing needs the
	// editor role too: the queue holds unreviewed allegations, some of them false, which readers must not
	// see until a reviewer approves them.
	"/polgraph.v1.ReviewService/IngestDocuments":      Editor,
	"/polgraph.v1.ReviewService/ListDocuments":        Editor,
	"/polgraph.v1.ReviewService/GetDocument":          Editor,
	"/polgraph.v1.ReviewService/ListProposals":        Editor,
	"/polgraph.v1.ReviewService/ListProposedEntities": Editor,
	"/polgraph.v1.ReviewService/ApproveProposals":     Editor,
	"/polgraph.v1.ReviewService/RejectProposals":      Editor,
	"/polgraph.v1.ReviewService/UpdateProposal":       Editor,
	"/polgraph.v1.ReviewService/MergeProposedEntity":  Editor,
	"/polgraph.v1.ReviewService/RejectProposedEntity": Editor,
	"/polgraph.v1.ReviewService/ListMatchCandidates":  Editor,
	// What changes an entity's identity, for every relation and claim that names it.
	"/polgraph.v1.WriteService/DeleteEntity":     Admin,
	"/polgraph.v1.WriteService/MergeEntities":    Admin,
	"/polgraph.v1.WriteService/UnmergeEntities":  Admin,
	"/polgraph.v1.WriteService/SeparateEntities": Admin,
}

// Required returns the lowest role that may call a method (its full name, /package.Service/Method), and
// whether the method is in the table at all. NoRole with true means anyone may call it.
func Required(fullMethod string) (role Role, known bool) {
	role, known = methodRoles[fullMethod]
	return role, known
}

// Methods lists the methods of the table, sorted: for tests and documentation.
func Methods() []string {
	out := make([]string, 0, len(methodRoles))
	for m := range methodRoles {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Policy decides whether a principal may call a method.
type Policy struct {
	// AnonymousReads lets callers without a credential (and certificates given no role) call the methods
	// that need the reader role. Writes are never anonymous.
	AnonymousReads bool
}

// Allow returns nil when p may call fullMethod, else an Unauthenticated error (no credential, where one
// is needed) or a PermissionDenied one (the role is too low, or the method is in no table), whose
// message says which role the method needs.
func (pol Policy) Allow(p Principal, fullMethod string) error {
	need, known := Required(fullMethod)
	if !known {
		return &graph.Error{Op: "auth.Allow", Kind: graph.PermissionDenied, Reason: "METHOD_NOT_ALLOWED",
			Message: fullMethod + " is not open to any role (polgraph's role table does not name it)"}
	}
	have := p.Role
	if have == NoRole && pol.AnonymousReads {
		have = Reader
	}
	if have >= need {
		return nil
	}
	if p.Kind == Anonymous {
		msg := fullMethod + " needs an API key (authorization: Bearer <key>) or a client certificate with the " + need.String() + " role"
		if need == Reader {
			msg += "; this server does not answer anonymous reads (--require-auth-for-reads)"
		}
		return &graph.Error{Op: "auth.Allow", Kind: graph.Unauthenticated, Reason: "API_KEY_MISSING", Message: msg}
	}
	return &graph.Error{Op: "auth.Allow", Kind: graph.PermissionDenied, Reason: "ROLE_TOO_LOW",
		Message: fullMethod + " needs the " + need.String() + " role; " + p.String() + " has " + roleText(p.Role)}
}

func roleText(r Role) string {
	if r == NoRole {
		return "no role"
	}
	return "the " + r.String() + " role"
}
