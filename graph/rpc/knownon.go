package rpc

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/history"
	"github.com/polgraph/polgraph/graph/service"
)

// WithHistory lets reads ask for the graph as known on a past instant (RelationFilter.known_on), rebuilt
// by h. Without it, such a read is refused as FailedPrecondition.
func (s *Server) WithHistory(h *history.Graphs) *Server {
	s.past = h
	return s
}

// at returns the service a read answers from: the live graph's, or, when the filter asks for known_on,
// the graph as it stood then, with what the answer says of it and the instant asked about.
func (s *Server) at(ctx context.Context, op string, f *pb.RelationFilter) (*service.Service, *pb.KnownGraph, time.Time, error) {
	if f.GetKnownOn() == "" {
		return s.svc, nil, time.Time{}, nil
	}
	t, err := history.ParseInstant(f.GetKnownOn())
	if err != nil {
		return nil, nil, t, &graph.Error{Op: op, Kind: graph.Invalid, Message: "invalid known_on",
			Violations: []graph.FieldViolation{{Field: "filter.known_on", Description: err.Error()}}}
	}
	if s.past == nil {
		return nil, nil, t, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Message: "this server keeps no history of the graph (its store has no audit trail): ask without known_on"}
	}
	g, err := s.past.At(ctx, t)
	if err != nil {
		return nil, nil, t, err
	}
	known := &pb.KnownGraph{KnownOn: t.Format(time.RFC3339Nano), Changes: int32(g.Changes), Undone: int32(g.Undone), Version: g.Version}
	if !g.Through.IsZero() {
		known.Through = g.Through.UTC().Format(time.RFC3339Nano)
	}
	return g.Service, known, t, nil
}

// withoutKnownOn is f without known_on, nil when nothing else is set: how the rest of a request reads it.
func withoutKnownOn(f *pb.RelationFilter) *pb.RelationFilter {
	if f.GetKnownOn() == "" {
		return f
	}
	c := proto.Clone(f).(*pb.RelationFilter)
	c.KnownOn = ""
	if proto.Equal(c, &pb.RelationFilter{}) {
		return nil
	}
	return c
}
