package rpc

import (
	"fmt"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/internal/formats"
)

// exportChunk is how many bytes each message of an export carries.
const exportChunk = 64 << 10

// ExportGraph implements pb.GraphServiceServer.
func (s *Server) ExportGraph(req *pb.ExportGraphRequest, stream pb.GraphService_ExportGraphServer) error {
	const method = "ExportGraph"
	ctx := stream.Context()
	var v graph.Violations
	filter := filterOf(req.GetFilter(), &v)
	media := formats.MediaType(req.GetFormat())
	if media == "" {
		v.Add("format", "%q is not a format: want one of polgraph, popolo, ftm, graphml, gexf, cytoscape, nquads", req.GetFormat())
	}
	if (req.GetFrom() == "") != (req.GetTo() == "") {
		v.Add("to", "a path export needs both from and to")
	}
	if req.GetCenter() != "" && req.GetFrom() != "" {
		v.Add("center", "export a neighbourhood (center) or a path answer (from, to), not both")
	}
	if err := v.Err(method, "invalid export request"); err != nil {
		return s.toStatus(ctx, method, err)
	}
	// A whole-graph export asked for with no filter (or an empty one) holds everything the graph holds.
	q := graph.ExportQuery{Filter: filter, Unfiltered: withoutKnownOn(req.GetFilter()) == nil || proto.Equal(req.GetFilter(), &pb.RelationFilter{})}
	switch {
	case req.GetCenter() != "":
		q.Neighborhood = graph.NeighborhoodQuery{Center: req.GetCenter(), Depth: int(req.GetDepth()), Filter: filter, FollowVia: req.GetFollowVia()}
	case req.GetFrom() != "":
		q.Paths = graph.PathQuery{From: graph.EntityName(req.GetFrom()), To: graph.EntityName(req.GetTo()), MaxPaths: int(req.GetMaxPaths()),
			MaxDepth: int(req.GetMaxDepth()), Filter: filter, FollowVia: req.GetFollowVia()}
	}
	svc, known, _, err := s.at(ctx, method, req.GetFilter())
	if err != nil {
		return s.toStatus(ctx, method, err)
	}
	sub, err := svc.Export(ctx, q)
	if err != nil {
		return s.toStatus(ctx, method, err)
	}
	if known != nil {
		// The header says which past graph this is.
		sub.Scope += fmt.Sprintf(" as known on %s (%d changes undone)", known.GetKnownOn(), known.GetUndone())
	}
	w := &chunkWriter{send: func(b []byte, first bool) error {
		resp := &pb.ExportGraphResponse{Data: b}
		if first {
			resp.MediaType = media
		}
		return stream.Send(resp)
	}}
	if err := formats.Write(w, req.GetFormat(), sub); err != nil {
		return s.toStatus(ctx, method, err)
	}
	if err := w.flush(); err != nil {
		return s.toStatus(ctx, method, err)
	}
	return nil
}

// chunkWriter sends what is written in chunks of exportChunk bytes.
type chunkWriter struct {
	buf  []byte
	sent bool
	send func(b []byte, first bool) error
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for len(w.buf) >= exportChunk {
		if err := w.send(w.buf[:exportChunk], !w.sent); err != nil {
			return 0, err
		}
		w.sent = true
		w.buf = append(w.buf[:0], w.buf[exportChunk:]...)
	}
	return len(p), nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 && w.sent {
		return nil
	}
	err := w.send(w.buf, !w.sent)
	w.sent, w.buf = true, nil
	return err
}
