// Package rpc serves polgraph.v1.GraphService over gRPC: it converts between protos and the domain and maps
// domain errors to gRPC statuses, in one place.
package rpc

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/history"
	"github.com/polgraph/polgraph/graph/live"
	"github.com/polgraph/polgraph/graph/service"
)

// Server implements polgraph.v1.GraphService on a service.Service.
type Server struct {
	pb.UnimplementedGraphServiceServer
	svc  *service.Service
	past *history.Graphs // nil: no known_on
	log  *slog.Logger
	feed *live.Hub // WatchChanges' (SetChangeFeed)
}

// NewServer returns a Server.
func NewServer(svc *service.Service, log *slog.Logger) *Server { return &Server{svc: svc, log: log} }

// codeOf is the one table from domain error kinds to gRPC codes.
var codeOf = map[graph.ErrorKind]codes.Code{
	graph.Internal:           codes.Internal,
	graph.Invalid:            codes.InvalidArgument,
	graph.NotFound:           codes.NotFound,
	graph.Unavailable:        codes.Unavailable,
	graph.ResourceExhausted:  codes.ResourceExhausted,
	graph.DeadlineExceeded:   codes.DeadlineExceeded,
	graph.Unauthenticated:    codes.Unauthenticated,
	graph.PermissionDenied:   codes.PermissionDenied,
	graph.FailedPrecondition: codes.FailedPrecondition,
	graph.AlreadyExists:      codes.AlreadyExists,
	graph.Aborted:            codes.Aborted,
}

// errorDomain names polgraph in google.rpc.ErrorInfo.
const errorDomain = "polgraph"

// toStatus turns an error into a gRPC status: the user sees the message (and field violations); the cause
// goes to the log.
func (s *Server) toStatus(ctx context.Context, method string, err error) error {
	return toStatus(ctx, s.log, method, err)
}

// toStatus is the one place where domain errors become gRPC statuses.
func toStatus(ctx context.Context, log *slog.Logger, method string, err error) error {
	kind := graph.KindOf(err)
	code := codeOf[kind]
	msg, reason := "internal error", "INTERNAL"
	var ge *graph.Error
	if errors.As(err, &ge) {
		if kind != graph.Internal {
			msg = ge.Message
		}
		if ge.Reason != "" {
			reason = ge.Reason
		}
	}
	if (ctx.Err() == context.DeadlineExceeded || ge == nil && errors.Is(err, context.DeadlineExceeded)) && code != codes.DeadlineExceeded {
		// The caller's deadline (or, for an error the domain did not type, the service's own bound on a
		// query) passed while the call waited: whatever failed, it failed for lack of time.
		code, msg, reason = codes.DeadlineExceeded, "the call's deadline passed before the answer was ready", ""
	}
	if code == codes.DeadlineExceeded && (reason == "INTERNAL" || reason == "") {
		// Its own reason, so that a client tells a slow answer from a broken one.
		reason = "DEADLINE_EXCEEDED"
	}
	if kind == graph.Internal || kind == graph.Unavailable {
		log.ErrorContext(ctx, "request failed", "method", method, "code", code.String(), "err", err)
	} else {
		log.InfoContext(ctx, "request refused", "method", method, "code", code.String(), "err", err)
	}
	info := &errdetails.ErrorInfo{Reason: reason, Domain: errorDomain}
	if ge != nil && len(ge.Metadata) > 0 {
		info.Metadata = ge.Metadata
	}
	details := []protoadapt.MessageV1{info}
	if ge != nil && len(ge.Violations) > 0 {
		details = append(details, badRequest(ge.Violations))
	}
	if ge != nil && ge.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(ge.RetryAfter)})
		// Also as a header, in whole seconds (RFC 9110): the explorer's HTTP API answers 429 and 503 with
		// it, as HTTP clients and proxies expect. Outside a call it is not set, which is harmless.
		grpc.SetHeader(ctx, metadata.Pairs("retry-after", strconv.Itoa(int(math.Ceil(ge.RetryAfter.Seconds())))))
	}
	st, werr := status.New(code, msg).WithDetails(details...)
	if werr != nil {
		return status.Error(code, msg)
	}
	return st.Err()
}

// MaxViolationsShown bounds the field violations an error carries: the first ones, then one saying how
// many more there were, so that a request with a million bad values gets a small answer.
const MaxViolationsShown = 20

func badRequest(vs []graph.FieldViolation) *errdetails.BadRequest {
	br := &errdetails.BadRequest{}
	for i, v := range vs {
		if i == MaxViolationsShown {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
				Description: fmt.Sprintf("and %d more problems", len(vs)-MaxViolationsShown)})
			break
		}
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: v.Field, Description: v.Description})
	}
	return br
}

// GetEntity implements pb.GraphServiceServer.
func (s *Server) GetEntity(ctx context.Context, req *pb.GetEntityRequest) (*pb.GetEntityResponse, error) {
	var filter *graph.RelationFilter
	var v graph.Violations
	if f := withoutKnownOn(req.GetFilter()); f != nil {
		f := filterOf(f, &v)
		filter = &f
	}
	checkHistorySize(&v, req.GetHistorySize())
	if err := v.Err("GetEntity", "invalid entity request"); err != nil {
		return nil, s.toStatus(ctx, "GetEntity", err)
	}
	svc, known, instant, err := s.at(ctx, "GetEntity", req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, "GetEntity", err)
	}
	info, err := svc.GetEntity(ctx, req.GetName(), filter)
	if err != nil {
		return nil, s.toStatus(ctx, "GetEntity", err)
	}
	resp := &pb.GetEntityResponse{Entity: entityPB(info.Entity), RedirectedFrom: string(info.RedirectedFrom), Known: known}
	for _, c := range info.Counts {
		resp.RelationCounts = append(resp.RelationCounts, relationCountPB(c))
	}
	var until time.Time // with known_on, the changes made by then
	if known != nil {
		until = history.Until(instant)
	}
	if resp.History, err = s.history(ctx, string(info.Entity.Name), req.GetHistorySize(), until); err != nil {
		return nil, s.toStatus(ctx, "GetEntity", err)
	}
	return resp, nil
}

func checkHistorySize(v *graph.Violations, n int32) {
	if n < 0 || n > graph.MaxHistory {
		v.Add("history_size", "must be between 0 and %d, got %d", graph.MaxHistory, n)
	}
}

// history is a resource's last n changes, for GetEntity and GetRelation.
func (s *Server) history(ctx context.Context, resource string, n int32, until time.Time) ([]*pb.Change, error) {
	changes, err := s.svc.History(ctx, resource, int(n), until)
	var out []*pb.Change
	for _, c := range changes {
		out = append(out, changePB(c))
	}
	return out, err
}

// pageToken is what a page token holds: the request's fingerprint and where the next page starts.
type pageToken struct {
	Query  string `json:"q"`
	Offset int    `json:"o"`
}

// SearchEntities implements pb.GraphServiceServer.
func (s *Server) SearchEntities(ctx context.Context, req *pb.SearchEntitiesRequest) (*pb.SearchEntitiesResponse, error) {
	q := graph.SearchQuery{Text: req.GetQuery()}
	var v graph.Violations
	if graph.CheckCount(&v, "kinds", len(req.GetKinds()), len(graph.Collections)) {
		for i, k := range req.GetKinds() {
			kind, ok := kindOf(k)
			if !ok {
				v.Add("kinds["+strconv.Itoa(i)+"]", "%s is not an entity kind", k)
			}
			q.Kinds = append(q.Kinds, kind)
		}
	}
	fp := fingerprint(req, func(r *pb.SearchEntitiesRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err("SearchEntities", "invalid search"); err != nil {
		return nil, s.toStatus(ctx, "SearchEntities", err)
	}
	results, next, err := s.svc.Search(ctx, q, int(req.GetPageSize()), offset)
	if err != nil {
		return nil, s.toStatus(ctx, "SearchEntities", err)
	}
	resp := &pb.SearchEntitiesResponse{}
	for _, r := range results {
		resp.Results = append(resp.Results, &pb.SearchResult{Entity: entityPB(r.Entity), Matched: r.Matched, Score: r.Score, Summary: r.Summary})
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// BatchGetEntities implements pb.GraphServiceServer.
func (s *Server) BatchGetEntities(ctx context.Context, req *pb.BatchGetEntitiesRequest) (*pb.BatchGetEntitiesResponse, error) {
	found, missing, err := s.svc.BatchGetEntities(ctx, req.GetNames())
	if err != nil {
		return nil, s.toStatus(ctx, "BatchGetEntities", err)
	}
	resp := &pb.BatchGetEntitiesResponse{Missing: missing}
	for _, e := range found {
		resp.Entities = append(resp.Entities, entityPB(e))
	}
	return resp, nil
}

// LookupEntities implements pb.GraphServiceServer.
func (s *Server) LookupEntities(ctx context.Context, req *pb.LookupEntitiesRequest) (*pb.LookupEntitiesResponse, error) {
	matches, err := s.svc.LookupEntities(ctx, req.GetScheme(), req.GetValues())
	if err != nil {
		return nil, s.toStatus(ctx, "LookupEntities", err)
	}
	resp := &pb.LookupEntitiesResponse{}
	for _, m := range matches {
		im := &pb.IdentifierMatch{Value: m.Value}
		for _, e := range m.Entities {
			im.Entities = append(im.Entities, entityPB(e))
		}
		resp.Matches = append(resp.Matches, im)
	}
	return resp, nil
}

// GetRelation implements pb.GraphServiceServer.
func (s *Server) GetRelation(ctx context.Context, req *pb.GetRelationRequest) (*pb.GetRelationResponse, error) {
	var v graph.Violations
	checkHistorySize(&v, req.GetHistorySize())
	if err := v.Err("GetRelation", "invalid relation request"); err != nil {
		return nil, s.toStatus(ctx, "GetRelation", err)
	}
	r, ents, err := s.svc.GetRelation(ctx, graph.RelationName(req.GetName()))
	if err != nil {
		return nil, s.toStatus(ctx, "GetRelation", err)
	}
	resp := &pb.GetRelationResponse{Relation: relationPB(r)}
	if string(r.Name) != req.GetName() {
		resp.RedirectedFrom = req.GetName()
	}
	for _, e := range ents {
		resp.Entities = append(resp.Entities, entityPB(e))
	}
	if resp.History, err = s.history(ctx, string(r.Name), req.GetHistorySize(), time.Time{}); err != nil {
		return nil, s.toStatus(ctx, "GetRelation", err)
	}
	return resp, nil
}

// FindPaths implements pb.GraphServiceServer.
func (s *Server) FindPaths(ctx context.Context, req *pb.FindPathsRequest) (*pb.FindPathsResponse, error) {
	q := graph.PathQuery{From: graph.EntityName(req.GetFrom()), To: graph.EntityName(req.GetTo()),
		MaxPaths: int(req.GetMaxPaths()), MaxDepth: int(req.GetMaxDepth()), Directed: req.GetDirected(), CoTemporal: req.GetCoTemporal(),
		FollowVia: req.GetFollowVia(), LongerBy: int(req.GetLongerBy())}
	var v graph.Violations
	q.Filter = filterOf(req.GetFilter(), &v)
	q.Sources = sourceFilterOf(req.GetSources(), &v)
	if len(v) > 0 {
		// Report the other fields' problems too, in one answer.
		probe := q
		probe.Normalize()
		probe.Filter = graph.RelationFilter{}
		if probe.From == "" {
			probe.From = "actors/x"
		}
		if probe.To == "" || probe.To == probe.From {
			probe.To = "actors/y"
		}
		var ge *graph.Error
		if errors.As(probe.Validate(), &ge) {
			v = append(v, ge.Violations...)
		}
		return nil, s.toStatus(ctx, "FindPaths", v.Err("FindPaths", "invalid path query"))
	}
	svc, known, _, err := s.at(ctx, "FindPaths", req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, "FindPaths", err)
	}
	ans, err := svc.FindPaths(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, "FindPaths", err)
	}
	resp := &pb.FindPathsResponse{IfRelaxed: relaxationsPB(ans.IfRelaxed), NoPath: ans.NoPath, RankingCapped: ans.RankingCapped, Known: known}
	for _, p := range ans.Paths {
		resp.Paths = append(resp.Paths, pathPB(p, ans.Relations))
	}
	for _, e := range ans.Entities {
		resp.Entities = append(resp.Entities, entityPB(e))
	}
	return resp, nil
}

// sourceFilterOf converts a source filter, recording unconvertible kinds as violations (the rest is
// checked with the query).
func sourceFilterOf(f *pb.SourceFilter, v *graph.Violations) graph.SourceFilter {
	out := graph.SourceFilter{Outlets: f.GetOutlets(), MinOutlets: int(f.GetMinOutlets())}
	if graph.CheckCount(v, "sources.kinds", len(f.GetKinds()), 2*len(graph.SourceKinds)) {
		for i, k := range f.GetKinds() {
			sk, ok := sourceKindOf(k)
			if !ok {
				v.Add(graph.Indexed("sources.kinds", i), "%v is not a source kind", k)
			}
			out.Kinds = append(out.Kinds, sk)
		}
	}
	if graph.CheckCount(v, "sources.names", len(f.GetNames()), graph.MaxSourceFilterNames) {
		for _, n := range f.GetNames() {
			out.Sources = append(out.Sources, graph.SourceName(n))
		}
	}
	return out
}

// filterOf converts a filter, recording unconvertible values as violations. A list over its cap is
// reported once and not converted at all, so that a huge request costs no more than a small one.
func filterOf(f *pb.RelationFilter, v *graph.Violations) graph.RelationFilter {
	var out graph.RelationFilter
	if f == nil {
		return out
	}
	types := func(field string, in []pb.RelationType) []graph.RelationType {
		if !graph.CheckCount(v, field, len(in), graph.MaxFilterTypes) {
			return nil
		}
		var ts []graph.RelationType
		for i, t := range in {
			rt, ok := relationTypeOf(t)
			if !ok {
				v.Add(field+"["+strconv.Itoa(i)+"]", "%s is not a relation type", t)
			}
			ts = append(ts, rt)
		}
		return ts
	}
	out.IncludeTypes = types("filter.include_types", f.GetIncludeTypes())
	out.ExcludeTypes = types("filter.exclude_types", f.GetExcludeTypes())
	if graph.CheckCount(v, "filter.statuses", len(f.GetStatuses()), graph.MaxFilterStatuses) {
		for i, st := range f.GetStatuses() {
			cs, ok := statusOf(st)
			if !ok {
				v.Add("filter.statuses["+strconv.Itoa(i)+"]", "%s is not a claim status", st)
			}
			out.Statuses = append(out.Statuses, cs)
		}
	}
	if d, err := graph.ParseFuzzyDate(f.GetAsOf()); err != nil {
		v.Add("filter.as_of", "%v", err)
	} else {
		out.AsOf = d
	}
	out.MinConfidence = f.GetMinConfidence()
	graph.CheckFraction(v, "filter.min_confidence", out.MinConfidence)
	switch f.GetUndated() {
	case pb.UndatedPolicy_UNDATED_POLICY_UNSPECIFIED:
	case pb.UndatedPolicy_UNDATED_POLICY_INCLUDE:
		out.Undated = graph.UndatedInclude
	case pb.UndatedPolicy_UNDATED_POLICY_EXCLUDE:
		out.Undated = graph.UndatedExclude
	default:
		v.Add("filter.undated", "%s is not an undated policy", f.GetUndated())
	}
	return out
}

// ExploreNeighborhood implements pb.GraphServiceServer.
func (s *Server) ExploreNeighborhood(ctx context.Context, req *pb.ExploreNeighborhoodRequest) (*pb.ExploreNeighborhoodResponse, error) {
	q := graph.NeighborhoodQuery{Center: req.GetName(), Depth: int(req.GetDepth()), MaxPerNode: int(req.GetMaxPerNode()),
		MaxNodes: int(req.GetMaxNodes()), MaxEdges: int(req.GetMaxEdges()), PageSize: int(req.GetPageSize()), FollowVia: req.GetFollowVia()}
	var v graph.Violations
	q.Filter = filterOf(req.GetFilter(), &v)
	q.Sources = sourceFilterOf(req.GetSources(), &v)
	if graph.CheckCount(&v, "exclude", len(req.GetExclude()), graph.MaxExclude) {
		for _, n := range req.GetExclude() {
			q.Exclude = append(q.Exclude, graph.EntityName(n))
		}
	}
	fp := fingerprint(req, func(r *pb.ExploreNeighborhoodRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err("ExploreNeighborhood", "invalid neighbourhood query"); err != nil {
		return nil, s.toStatus(ctx, "ExploreNeighborhood", err)
	}
	svc, known, _, err := s.at(ctx, "ExploreNeighborhood", req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, "ExploreNeighborhood", err)
	}
	n, err := svc.ExploreNeighborhood(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, "ExploreNeighborhood", err)
	}
	defer n.Release() // the response holds copies of what it needs of the edges and nodes
	resp := &pb.ExploreNeighborhoodResponse{Center: entityPB(n.Center), TotalNodes: int32(n.Total), IfRelaxed: relaxationsPB(n.IfRelaxed),
		TotalEdges: int32(n.TotalEdges), EdgesLeftOut: int32(n.EdgesLeftOut), Known: known,
		Nodes: make([]*pb.NeighborhoodNode, len(n.Nodes)), Edges: edgesPB(n.Edges)}
	nodes := make([]pb.NeighborhoodNode, len(n.Nodes))
	for i, node := range n.Nodes {
		nodes[i].Entity, nodes[i].Distance, nodes[i].RelationCount = entityPB(node.Entity), int32(node.Distance), int32(node.RelationCount)
		resp.Nodes[i] = &nodes[i]
	}
	for _, t := range n.Truncated {
		tr := &pb.Truncation{Entity: string(t.Entity), LeftOut: int32(t.LeftOut), RelationsLeftOut: int32(t.RelationsLeftOut), Unexpanded: t.Unexpanded}
		for _, c := range t.ByType {
			tr.ByType = append(tr.ByType, relationCountPB(c))
		}
		resp.Truncated = append(resp.Truncated, tr)
	}
	if n.NextOffset > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: n.NextOffset})
	}
	return resp, nil
}

// fingerprint identifies a request apart from its paging fields (which clear removes), so that a page
// token is only accepted for the request that produced it.
func fingerprint[M proto.Message](req M, clear func(M)) string {
	c := proto.Clone(req).(M)
	clear(c)
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// pageOffset reads a page token given with a request of fingerprint fp: 0 for none, and a violation for a
// token that is not this service's or belongs to another request.
func pageOffset(token, fp string, v *graph.Violations) int {
	if token == "" {
		return 0
	}
	if len(token) > maxPageToken {
		v.Add("page_token", "%d bytes; a page token from this service is at most %d", len(token), maxPageToken)
		return 0
	}
	tok, ok := decodeToken(token)
	switch {
	case !ok:
		v.Add("page_token", "not a page token from this service")
	case tok.Query != fp:
		v.Add("page_token", "belongs to another request")
	default:
		return tok.Offset
	}
	return 0
}

// maxPageToken bounds page tokens: the ones this service makes are under 60 bytes.
const maxPageToken = 200

func encodeToken(t pageToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s string) (pageToken, bool) {
	var tok pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &tok)
	}
	return tok, err == nil && tok.Offset > 0
}

// relationCountPB is a count as the API gives it: a symmetric type's neither outgoing nor incoming.
func relationCountPB(c graph.RelationCount) *pb.RelationCount {
	return &pb.RelationCount{Type: relationTypePB(c.Type), Outgoing: c.Outgoing && !c.Undirected(), Count: int32(c.Count),
		Undirected: c.Undirected()}
}
