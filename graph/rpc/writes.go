package rpc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/intake"
)

// WriteServer implements polgraph.v1.WriteService on an intake.Service. Who writes comes from the
// request's context (principal); authentication and roles are the interceptors' job.
type WriteServer struct {
	pb.UnimplementedWriteServiceServer
	svc       *intake.Service
	principal func(context.Context) (name string, aliases []string)
	log       *slog.Logger
}

// NewWriteServer returns a WriteServer; principal names who makes a call, as the trail shows it and by
// the other names the trail can be searched by (a key's name and id, a certificate's common name).
func NewWriteServer(svc *intake.Service, principal func(context.Context) (string, []string), log *slog.Logger) *WriteServer {
	return &WriteServer{svc: svc, principal: principal, log: log}
}

func (s *WriteServer) meta(ctx context.Context, method string, req identified) graph.WriteMeta {
	name, aliases := s.principal(ctx)
	m := graph.WriteMeta{Principal: name, Aliases: aliases, Method: method, RequestID: req.GetRequestId()}
	if m.RequestID != "" {
		m.Digest = requestDigest(req)
	}
	return m
}

// identified is a write request that may carry an idempotency key.
type identified interface {
	proto.Message
	GetRequestId() string
}

// requestDigest identifies a request by its content without its request id: SHA-256 of its deterministic
// wire form, in hex. The same request sent again has the same digest.
func requestDigest(req identified) string {
	m := proto.Clone(req)
	if fd := m.ProtoReflect().Descriptor().Fields().ByName("request_id"); fd != nil {
		m.ProtoReflect().Clear(fd)
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recordLines writes records as dataset lines: the proto fields are the format's, by name.
func recordLines[M proto.Message](record string, recs []M) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(r)
		if err != nil {
			b = []byte("{}")
		}
		body := strings.TrimSpace(string(b))
		body = strings.TrimSpace(strings.TrimPrefix(body, "{"))
		sep := ","
		if body == "}" {
			sep = ""
		}
		out[i] = `{"record":"` + record + `"` + sep + body
	}
	return out
}

func writeResultPB(r graph.WriteResult) *pb.WriteResult {
	out := &pb.WriteResult{Created: r.Created, Updated: r.Updated, Unchanged: int32(r.Unchanged), Replayed: r.Replayed, Version: r.Version}
	for _, m := range r.MayBe {
		d := pb.MatchDecision_MATCH_DECISION_PROPOSE
		if m.Merge {
			d = pb.MatchDecision_MATCH_DECISION_MERGE
		}
		out.PossibleDuplicates = append(out.PossibleDuplicates, &pb.PossibleDuplicate{Created: string(m.Created), Existing: string(m.Existing),
			Score: m.Score, Decision: d, Explanation: m.Explanation})
	}
	return out
}

// upsert writes one request's records, as the dataset format's record kind, from the request field
// that holds them: a request with more records than a batch takes is refused before they are converted.
func upsert[M proto.Message](ctx context.Context, s *WriteServer, method, field, record string, recs []M, req identified) (*pb.WriteResult, error) {
	var v graph.Violations
	graph.CheckCount(&v, field, len(recs), intake.MaxBatch)
	if err := v.Err(method, "invalid write"); err != nil {
		return nil, toStatus(ctx, s.log, method, err)
	}
	res, err := s.svc.Upsert(ctx, s.meta(ctx, method, req), intake.Batch{Field: field, Lines: recordLines(record, recs)})
	if err != nil {
		return nil, toStatus(ctx, s.log, method, err)
	}
	return writeResultPB(res), nil
}

// UpsertSources implements pb.WriteServiceServer.
func (s *WriteServer) UpsertSources(ctx context.Context, req *pb.UpsertSourcesRequest) (*pb.UpsertSourcesResponse, error) {
	res, err := upsert(ctx, s, "UpsertSources", "sources", "source", req.GetSources(), req)
	if err != nil {
		return nil, err
	}
	return &pb.UpsertSourcesResponse{Result: res}, nil
}

// UpsertEntities implements pb.WriteServiceServer.
func (s *WriteServer) UpsertEntities(ctx context.Context, req *pb.UpsertEntitiesRequest) (*pb.UpsertEntitiesResponse, error) {
	res, err := upsert(ctx, s, "UpsertEntities", "entities", "entity", req.GetEntities(), req)
	if err != nil {
		return nil, err
	}
	return &pb.UpsertEntitiesResponse{Result: res}, nil
}

// UpsertRelations implements pb.WriteServiceServer.
func (s *WriteServer) UpsertRelations(ctx context.Context, req *pb.UpsertRelationsRequest) (*pb.UpsertRelationsResponse, error) {
	res, err := upsert(ctx, s, "UpsertRelations", "relations", "relation", req.GetRelations(), req)
	if err != nil {
		return nil, err
	}
	return &pb.UpsertRelationsResponse{Result: res}, nil
}

// Load implements pb.WriteServiceServer: it reads the whole stream (within the size limits), then checks
// and writes it as one load.
func (s *WriteServer) Load(stream pb.WriteService_LoadServer) error {
	const m = "Load"
	ctx := stream.Context()
	var files []dataset.File
	var names []string
	var current *strings.Builder
	lines, size := 0, 0
	requestID := ""
	digest := sha256.New() // of the files' names and lines, as sent: the load's request, without its id
	tooBig := func(what string) error {
		return toStatus(ctx, s.log, m, &graph.Error{Op: m, Kind: graph.ResourceExhausted, Reason: "LOAD_TOO_LARGE",
			Message: "the load is over " + what + "; send it in several loads, or load it with `polgraph load` on the database's machine"})
	}
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err // the client went away: nothing was written
		}
		if req.GetRequestId() != "" {
			requestID = req.GetRequestId()
		}
		if f := req.GetFile(); current == nil || (f != "" && f != names[len(names)-1]) {
			if len(f) > 200 {
				var v graph.Violations
				v.Add("file", "%d bytes; at most 200", len(f))
				return toStatus(ctx, s.log, m, v.Err(m, "invalid load"))
			}
			if f == "" {
				f = "stream"
			}
			if len(names) == intake.MaxLoadFiles {
				return tooBig("100 files")
			}
			names = append(names, f)
			fmt.Fprintf(digest, "file %q\n", f)
			current = &strings.Builder{}
			files = append(files, dataset.File{Name: f})
		}
		for _, l := range req.GetLines() {
			fmt.Fprintf(digest, "%q\n", l)
			lines++
			size += len(l) + 1
			if lines > intake.MaxLoadLines {
				return tooBig("2,000,000 lines")
			}
			if size > intake.MaxLoadBytes {
				return tooBig("512 MiB")
			}
			current.WriteString(l)
			current.WriteByte('\n')
		}
		files[len(files)-1].R = strings.NewReader(current.String())
	}
	for i := range files {
		if files[i].R == nil {
			files[i].R = strings.NewReader("")
		}
	}
	meta := s.meta(ctx, m, &pb.LoadRequest{RequestId: requestID})
	if requestID != "" {
		meta.Digest = hex.EncodeToString(digest.Sum(nil))
	}
	res, err := s.svc.Load(ctx, meta, files)
	if err != nil {
		return toStatus(ctx, s.log, m, err)
	}
	return stream.SendAndClose(&pb.LoadResponse{Sources: int32(res.Sources), Entities: int32(res.Entities),
		Relations: int32(res.Relations), Claims: int32(res.Claims), Replayed: res.Replayed,
		Graph: &pb.GraphCounts{Entities: int32(res.Graph.Entities), Relations: int32(res.Graph.Relations),
			Claims: int32(res.Graph.Claims), Sources: int32(res.Graph.Sources)}})
}

// RetractClaim implements pb.WriteServiceServer.
func (s *WriteServer) RetractClaim(ctx context.Context, req *pb.RetractClaimRequest) (*pb.RetractClaimResponse, error) {
	res, err := s.svc.RetractClaim(ctx, s.meta(ctx, "RetractClaim", req), req.GetName(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, "RetractClaim", err)
	}
	return &pb.RetractClaimResponse{Result: writeResultPB(res)}, nil
}

// DeleteRelation implements pb.WriteServiceServer.
func (s *WriteServer) DeleteRelation(ctx context.Context, req *pb.DeleteRelationRequest) (*pb.DeleteRelationResponse, error) {
	res, err := s.svc.DeleteRelation(ctx, s.meta(ctx, "DeleteRelation", req), req.GetName(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, "DeleteRelation", err)
	}
	return &pb.DeleteRelationResponse{Result: writeResultPB(res)}, nil
}

// DeleteEntity implements pb.WriteServiceServer.
func (s *WriteServer) DeleteEntity(ctx context.Context, req *pb.DeleteEntityRequest) (*pb.DeleteEntityResponse, error) {
	res, err := s.svc.DeleteEntity(ctx, s.meta(ctx, "DeleteEntity", req), req.GetName(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, "DeleteEntity", err)
	}
	return &pb.DeleteEntityResponse{Result: writeResultPB(res)}, nil
}

// MergeEntities implements pb.WriteServiceServer.
func (s *WriteServer) MergeEntities(ctx context.Context, req *pb.MergeEntitiesRequest) (*pb.MergeEntitiesResponse, error) {
	res, err := s.svc.MergeEntities(ctx, s.meta(ctx, "MergeEntities", req), req.GetFrom(), req.GetInto(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, "MergeEntities", err)
	}
	return &pb.MergeEntitiesResponse{Result: writeResultPB(res)}, nil
}

// SeparateEntities implements pb.WriteServiceServer.
func (s *WriteServer) SeparateEntities(ctx context.Context, req *pb.SeparateEntitiesRequest) (*pb.SeparateEntitiesResponse, error) {
	res, err := s.svc.SeparateEntities(ctx, s.meta(ctx, "SeparateEntities", req), req.GetA(), req.GetB(), req.GetReason(), req.GetWithdraw())
	if err != nil {
		return nil, toStatus(ctx, s.log, "SeparateEntities", err)
	}
	return &pb.SeparateEntitiesResponse{Result: writeResultPB(res)}, nil
}

// UnmergeEntities implements pb.WriteServiceServer.
func (s *WriteServer) UnmergeEntities(ctx context.Context, req *pb.UnmergeEntitiesRequest) (*pb.UnmergeEntitiesResponse, error) {
	res, err := s.svc.UnmergeEntities(ctx, s.meta(ctx, "UnmergeEntities", req), req.GetName(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, "UnmergeEntities", err)
	}
	return &pb.UnmergeEntitiesResponse{Result: writeResultPB(res)}, nil
}

// ListChanges implements pb.WriteServiceServer.
func (s *WriteServer) ListChanges(ctx context.Context, req *pb.ListChangesRequest) (*pb.ListChangesResponse, error) {
	const m = "ListChanges"
	q := graph.ChangeQuery{Resource: req.GetResource(), Principal: req.GetPrincipal(), Limit: int(req.GetPageSize())}
	if req.GetSince() != nil {
		q.Since = req.GetSince().AsTime()
	}
	if req.GetUntil() != nil {
		q.Until = req.GetUntil().AsTime()
	}
	var v graph.Violations
	fp := fingerprint(req, func(r *pb.ListChangesRequest) { r.PageToken, r.PageSize = "", 0 })
	q.Offset = pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	changes, total, err := s.svc.ListChanges(ctx, q)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListChangesResponse{TotalSize: int32(total)}
	for _, c := range changes {
		resp.Changes = append(resp.Changes, changePB(c))
	}
	limit := q.Limit
	if limit == 0 {
		limit = 50
	}
	if next := q.Offset + limit; next < total && len(changes) > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

func changePB(c graph.Change) *pb.Change {
	return &pb.Change{Time: timestamppb.New(c.Time), Principal: c.Principal, Method: c.Method,
		RequestId: c.RequestID, Resource: c.Resource, Action: c.Action, Before: c.Before, After: c.After, Reason: c.Reason,
		Version: c.Version, Index: int32(c.Index)}
}
