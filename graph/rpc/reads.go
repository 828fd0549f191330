package rpc

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// withRest returns an Invalid error listing the conversion's violations v and, so that a bad request
// reports all its problems at once, the domain's own (check is the domain's Validate, run on the request
// with what failed to convert left out).
func withRest(op, message string, v graph.Violations, check func() error) error {
	var ge *graph.Error
	if errors.As(check(), &ge) {
		v = append(v, ge.Violations...)
	}
	return v.Err(op, message)
}

func directionOf(d pb.RelationDirection, v *graph.Violations) graph.Direction {
	switch d {
	case pb.RelationDirection_RELATION_DIRECTION_UNSPECIFIED, pb.RelationDirection_RELATION_DIRECTION_ANY:
		return graph.DirectionAny
	case pb.RelationDirection_RELATION_DIRECTION_OUTGOING:
		return graph.DirectionOutgoing
	case pb.RelationDirection_RELATION_DIRECTION_INCOMING:
		return graph.DirectionIncoming
	}
	v.Add("direction", "%s is not a direction", d)
	return graph.DirectionAny
}

// ListRelations implements pb.GraphServiceServer.
func (s *Server) ListRelations(ctx context.Context, req *pb.ListRelationsRequest) (*pb.ListRelationsResponse, error) {
	const op = "ListRelations"
	q := graph.RelationsQuery{Entity: req.GetEntity(), PageSize: int(req.GetPageSize())}
	var v graph.Violations
	q.Filter = filterOf(req.GetFilter(), &v)
	q.Sources = sourceFilterOf(req.GetSources(), &v)
	q.Direction = directionOf(req.GetDirection(), &v)
	fp := fingerprint(req, func(r *pb.ListRelationsRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if len(v) > 0 {
		probe := q
		probe.Filter = graph.RelationFilter{}
		return nil, s.toStatus(ctx, op, withRest(op, "invalid relations query", v, probe.Validate))
	}
	svc, known, _, err := s.at(ctx, op, req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	page, err := svc.ListRelations(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	resp := &pb.ListRelationsResponse{Entity: entityPB(page.Entity), TotalSize: int32(page.Total), Known: known}
	for _, r := range page.Relations {
		resp.Relations = append(resp.Relations, relationPB(r))
	}
	for _, e := range page.Related {
		resp.RelatedEntities = append(resp.RelatedEntities, entityPB(e))
	}
	if page.NextOffset > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: page.NextOffset})
	}
	return resp, nil
}

// GetTimeline implements pb.GraphServiceServer.
func (s *Server) GetTimeline(ctx context.Context, req *pb.GetTimelineRequest) (*pb.GetTimelineResponse, error) {
	const op = "GetTimeline"
	q := graph.TimelineQuery{Entity: req.GetEntity(), PageSize: int(req.GetPageSize())}
	var v graph.Violations
	q.Filter = filterOf(req.GetFilter(), &v)
	q.Sources = sourceFilterOf(req.GetSources(), &v)
	fp := fingerprint(req, func(r *pb.GetTimelineRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if len(v) > 0 {
		probe := q
		probe.Filter = graph.RelationFilter{}
		return nil, s.toStatus(ctx, op, withRest(op, "invalid timeline query", v, probe.Validate))
	}
	svc, known, _, err := s.at(ctx, op, req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	t, err := svc.GetTimeline(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	resp := &pb.GetTimelineResponse{Entity: entityPB(t.Entity), TotalSize: int32(t.TotalDated + t.TotalUndated), Known: known,
		TotalDated: int32(t.TotalDated), TotalUndated: int32(t.TotalUndated)}
	for _, e := range t.Entries {
		kind := pb.TimelineEntryKind_TIMELINE_ENTRY_KIND_STATE
		if e.Event {
			kind = pb.TimelineEntryKind_TIMELINE_ENTRY_KIND_EVENT
		}
		resp.Entries = append(resp.Entries, &pb.TimelineEntry{Kind: kind, Period: dateRangePB(e.Period), Relation: relationPB(e.Relation)})
	}
	for _, r := range t.Undated {
		resp.Undated = append(resp.Undated, relationPB(r))
	}
	for _, e := range t.Related {
		resp.RelatedEntities = append(resp.RelatedEntities, entityPB(e))
	}
	if t.NextOffset > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: t.NextOffset})
	}
	return resp, nil
}

// GetSource implements pb.GraphServiceServer.
func (s *Server) GetSource(ctx context.Context, req *pb.GetSourceRequest) (*pb.GetSourceResponse, error) {
	const op = "GetSource"
	q := graph.SourceRequest{Name: graph.SourceName(req.GetName()), PageSize: int(req.GetPageSize())}
	var v graph.Violations
	fp := fingerprint(req, func(r *pb.GetSourceRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if len(v) > 0 {
		return nil, s.toStatus(ctx, op, withRest(op, "invalid source request", v, q.Validate))
	}
	page, err := s.svc.GetSource(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	resp := &pb.GetSourceResponse{Source: sourcePB(page.Source), ClaimCount: int32(page.ClaimCount)}
	for _, c := range page.Claims {
		resp.Claims = append(resp.Claims, sourceClaimPB(c))
	}
	for _, e := range page.Related {
		resp.RelatedEntities = append(resp.RelatedEntities, entityPB(e))
	}
	if page.NextOffset > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: page.NextOffset})
	}
	return resp, nil
}

// ListSources implements pb.GraphServiceServer.
func (s *Server) ListSources(ctx context.Context, req *pb.ListSourcesRequest) (*pb.ListSourcesResponse, error) {
	const op = "ListSources"
	q := graph.SourceQuery{Outlet: req.GetOutlet(), Limit: int(req.GetPageSize())}
	var v graph.Violations
	if k := req.GetKind(); k != pb.SourceKind_SOURCE_KIND_UNSPECIFIED {
		if kind, ok := sourceKindOf(k); ok {
			q.Kind = kind
		} else {
			v.Add("kind", "%s is not a source kind", k)
		}
	}
	fp := fingerprint(req, func(r *pb.ListSourcesRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if len(v) > 0 {
		return nil, s.toStatus(ctx, op, withRest(op, "invalid sources query", v, q.Validate))
	}
	page, total, next, err := s.svc.ListSources(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	resp := &pb.ListSourcesResponse{TotalSize: int32(total)}
	for _, src := range page {
		resp.Sources = append(resp.Sources, &pb.SourceSummary{Source: sourcePB(src.Source), ClaimCount: int32(src.ClaimCount)})
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// GetGraphStats implements pb.GraphServiceServer.
func (s *Server) GetGraphStats(ctx context.Context, _ *pb.GetGraphStatsRequest) (*pb.GetGraphStatsResponse, error) {
	st, err := s.svc.GraphStats(ctx)
	if err != nil {
		return nil, s.toStatus(ctx, "GetGraphStats", err)
	}
	resp := &pb.GetGraphStatsResponse{Entities: int32(st.Counts.Entities), Relations: int32(st.Counts.Relations),
		Claims: int32(st.Counts.Claims), Sources: int32(st.Counts.Sources), Version: st.Version}
	if !st.WrittenAt.IsZero() {
		resp.WrittenAt = timestamppb.New(st.WrittenAt)
	}
	for _, c := range mostFirst(st.EntitiesByKind) {
		resp.EntitiesByKind = append(resp.EntitiesByKind, &pb.EntityKindCount{Kind: kindPB(c.key), Count: int32(c.n)})
	}
	for _, c := range mostFirst(st.RelationsByType) {
		resp.RelationsByType = append(resp.RelationsByType, &pb.RelationTypeCount{Type: relationTypePB(c.key), Count: int32(c.n)})
	}
	for _, c := range mostFirst(st.ClaimsByStatus) {
		resp.ClaimsByStatus = append(resp.ClaimsByStatus, &pb.ClaimStatusCount{Status: statusPB(c.key), Count: int32(c.n)})
	}
	for _, c := range mostFirst(st.SourcesByKind) {
		resp.SourcesByKind = append(resp.SourcesByKind, &pb.SourceKindCount{Kind: sourceKindPB(c.key), Count: int32(c.n)})
	}
	return resp, nil
}

type keyCount[K ~string] struct {
	key K
	n   int
}

// mostFirst orders counts most first, then by key.
func mostFirst[K ~string](m map[K]int) []keyCount[K] {
	out := make([]keyCount[K], 0, len(m))
	for k, n := range m {
		out = append(out, keyCount[K]{k, n})
	}
	slices.SortFunc(out, func(a, b keyCount[K]) int { return cmp.Or(-cmp.Compare(a.n, b.n), cmp.Compare(a.key, b.key)) })
	return out
}

// FindConnections implements pb.GraphServiceServer.
func (s *Server) FindConnections(ctx context.Context, req *pb.FindConnectionsRequest) (*pb.FindConnectionsResponse, error) {
	const op = "FindConnections"
	q := graph.ConnectionsQuery{MaxShared: int(req.GetMaxShared()), MaxDepth: int(req.GetMaxDepth())}
	var v graph.Violations
	q.Filter = filterOf(req.GetFilter(), &v)
	q.Sources = sourceFilterOf(req.GetSources(), &v)
	if graph.CheckCount(&v, "entities", len(req.GetEntities()), graph.MaxConnectionEntities) {
		q.Entities = req.GetEntities()
	}
	if len(v) > 0 {
		probe := q
		probe.Filter = graph.RelationFilter{}
		if probe.Entities == nil {
			probe.Entities = []string{"actors/x", "actors/y"} // reported above
		}
		probe.Normalize()
		return nil, s.toStatus(ctx, op, withRest(op, "invalid connections query", v, probe.Validate))
	}
	svc, known, _, err := s.at(ctx, op, req.GetFilter())
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	ans, err := svc.FindConnections(ctx, q)
	if err != nil {
		return nil, s.toStatus(ctx, op, err)
	}
	resp := &pb.FindConnectionsResponse{SharedNeighborsLeftOut: int32(ans.SharedLeftOut), SharedSourcesLeftOut: int32(ans.SourcesLeftOut),
		IfRelaxed: relaxationsPB(ans.IfRelaxed), Known: known}
	for _, e := range ans.Entities {
		resp.Entities = append(resp.Entities, entityPB(e))
	}
	for _, n := range ans.Shared {
		sn := &pb.SharedNeighbor{Entity: entityPB(n.Entity), InputsJoined: int32(len(n.Joins)), Strength: n.Strength}
		for _, j := range n.Joins {
			nj := &pb.NeighborJoin{Input: string(j.Input), Relations: edgesPB(j.Relations)}
			sn.Joins = append(sn.Joins, nj)
		}
		resp.SharedNeighbors = append(resp.SharedNeighbors, sn)
	}
	for _, src := range ans.Sources {
		ss := &pb.SharedSource{Source: sourcePB(src.Source)}
		for _, in := range src.Inputs {
			ss.Inputs = append(ss.Inputs, string(in))
		}
		for _, c := range src.Claims {
			ss.Claims = append(ss.Claims, sourceClaimPB(c))
		}
		resp.SharedSources = append(resp.SharedSources, ss)
	}
	for _, r := range ans.Routes {
		route := &pb.Route{From: string(r.From), To: string(r.To), Connected: r.Path != nil}
		if r.Path != nil {
			route.Path = pathPB(*r.Path, ans.Relations)
		}
		resp.Routes = append(resp.Routes, route)
	}
	for _, e := range ans.Related {
		resp.RelatedEntities = append(resp.RelatedEntities, entityPB(e))
	}
	return resp, nil
}
