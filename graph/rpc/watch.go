package rpc

import (
	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/live"
)

// SetChangeFeed has the server answer WatchChanges from h; without it, WatchChanges is refused.
func (s *Server) SetChangeFeed(h *live.Hub) { s.feed = h }

// WatchChanges implements pb.GraphServiceServer.
func (s *Server) WatchChanges(req *pb.WatchChangesRequest, stream pb.GraphService_WatchChangesServer) error {
	const method = "WatchChanges"
	ctx := stream.Context()
	if s.feed == nil {
		return s.toStatus(ctx, method, &graph.Error{Op: method, Kind: graph.FailedPrecondition, Reason: "NO_CHANGE_FEED",
			Message: "this server keeps no change feed"})
	}
	var v graph.Violations
	var after *graph.ChangeCursor
	switch {
	case req.GetResumeToken() != "":
		c, err := graph.ParseChangeToken(req.GetResumeToken())
		if err != nil {
			v.Add("resume_token", "%v", err)
		}
		after = &c
	case req.SinceVersion != nil:
		if req.GetSinceVersion() < 0 {
			v.Add("since_version", "a version is 0 or more")
		}
		after = &graph.ChangeCursor{Version: req.GetSinceVersion()}
	}
	f := live.Filter{Center: graph.EntityName(req.GetCenter()), Depth: int(req.GetDepth()), UntilCaughtUp: req.GetUntilCaughtUp()}
	for _, e := range req.GetEntities() {
		f.Entities = append(f.Entities, graph.EntityName(e))
	}
	for _, t := range req.GetRelationTypes() {
		rt, ok := relationTypeOf(t)
		if !ok {
			v.Add("relation_types", "%v is not a relation type", t)
			continue
		}
		f.RelationTypes = append(f.RelationTypes, rt)
	}
	for _, k := range req.GetKinds() {
		kind, ok := kindOf(k)
		if !ok {
			v.Add("kinds", "%v is not an entity kind", k)
			continue
		}
		f.Kinds = append(f.Kinds, kind)
	}
	f.Check(&v)
	if err := v.Err(method, "invalid watch request"); err != nil {
		return s.toStatus(ctx, method, err)
	}
	err := s.feed.Watch(ctx, after, f, func(b live.Batch) error {
		resp := &pb.WatchChangesResponse{ResumeToken: b.Next.Token(), Version: b.Version}
		for _, c := range b.Changes {
			resp.Changes = append(resp.Changes, changePB(c))
		}
		return stream.Send(resp)
	})
	if err != nil && ctx.Err() == nil {
		return s.toStatus(ctx, method, err)
	}
	return nil
}
