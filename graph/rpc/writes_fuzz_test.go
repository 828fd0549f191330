package rpc

import (
	"context"
	"log/slog"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/intake"
)

// emptyWriteStore is a graph with nothing in it that takes every write and keeps none: requests that pass
// the write API's checks reach it, and find nothing to retract, delete or merge. The fuzz target below
// checks the checks, and what they answer, not what is written (the end-to-end tests in cmd/polgraph and
// graph/intake do that against Dgraph).
type emptyWriteStore struct{ intake.Store }

func (emptyWriteStore) UpsertSources(context.Context, []graph.Source) error     { return nil }
func (emptyWriteStore) UpsertEntities(context.Context, []graph.Entity) error    { return nil }
func (emptyWriteStore) UpsertRelations(context.Context, []graph.Relation) error { return nil }
func (emptyWriteStore) Known(context.Context, []graph.EntityName, []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error) {
	return nil, nil, nil
}
func (emptyWriteStore) MergedInto(context.Context, []graph.EntityName) (map[graph.EntityName]graph.EntityName, error) {
	return nil, nil
}
func (emptyWriteStore) GetRelations(context.Context, []graph.RelationName) (map[graph.RelationName]graph.Relation, error) {
	return nil, nil
}
func (emptyWriteStore) Version(context.Context) (int64, error) { return 0, nil }
func (emptyWriteStore) RequestResult(context.Context, graph.WriteMeta, any) (bool, error) {
	return false, nil
}
func (emptyWriteStore) RecordRequest(context.Context, graph.WriteMeta, any) error { return nil }
func (emptyWriteStore) ListChanges(context.Context, graph.ChangeQuery) ([]graph.Change, int, error) {
	return nil, 0, nil
}
func notFound(string) error { return &graph.Error{Kind: graph.NotFound, Message: "nothing here"} }
func (emptyWriteStore) RetractClaim(_ context.Context, c, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(c)
}
func (emptyWriteStore) DeleteRelation(_ context.Context, n graph.RelationName, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(string(n))
}
func (emptyWriteStore) DeleteEntity(_ context.Context, n graph.EntityName, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(string(n))
}
func (emptyWriteStore) MergeEntity(_ context.Context, f, _ graph.EntityName, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(string(f))
}
func (emptyWriteStore) UnmergeEntity(_ context.Context, f graph.EntityName, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(string(f))
}
func (emptyWriteStore) SeparateEntities(_ context.Context, a, _ graph.EntityName, _ string) (graph.WriteResult, error) {
	return graph.WriteResult{}, notFound(string(a))
}
func (emptyWriteStore) WithdrawJudgement(context.Context, graph.EntityName, graph.EntityName, string) (graph.WriteResult, error) {
	return graph.WriteResult{Unchanged: 1}, nil
}
func (emptyWriteStore) Separated(context.Context, []graph.EntityName) ([]graph.Judgement, error) {
	return nil, nil
}
func (emptyWriteStore) FindByNames(context.Context, []string) (map[string][]graph.Entity, error) {
	return nil, nil
}

// FuzzWriteRequests sends arbitrary write requests through the write API's checks: none may panic, and
// each refusal is INVALID_ARGUMENT or NOT_FOUND with a small answer in valid UTF-8.
func FuzzWriteRequests(f *testing.F) {
	conf := 0.9
	seeds := []proto.Message{
		&pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: "sources/a", Title: "A", Kind: "ARTICLE", Published: "2024-07"}}, RequestId: "r1"},
		&pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: "actors/a", DisplayName: "A", Aliases: []string{"Ay"}, Identifiers: map[string]string{"wikidata": "Q1"}, ValidFrom: "1970"}}},
		&pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{{Type: "ENDORSES", From: "actors/a", To: "actors/b", Date: "2024",
			Claims: []*pb.ClaimRecord{{Source: "sources/a", Excerpt: "A backs B.", Confidence: &conf, Status: "REPORTED", SaidBy: "actors/c"}}}}},
		&pb.RetractClaimRequest{Name: "relations/a.endorses.b/claims/a", Reason: "corrected"},
		&pb.DeleteRelationRequest{Name: "relations/a.endorses.b", Reason: "mistake"},
		&pb.DeleteEntityRequest{Name: "actors/a", Reason: "duplicate"},
		&pb.MergeEntitiesRequest{From: "actors/a", Into: "actors/b", Reason: "one person"},
		&pb.UnmergeEntitiesRequest{Name: "actors/a", Reason: "two people"},
		&pb.ListChangesRequest{Resource: "actors/a", Principal: "alice", PageSize: 5},
		&pb.SeparateEntitiesRequest{A: "actors/a", B: "actors/b", Reason: "two people"},
	}
	for i, m := range seeds {
		b, _ := proto.Marshal(m)
		f.Add(byte(i), b)
	}
	s := NewWriteServer(&intake.Service{Store: emptyWriteStore{}}, func(context.Context) (string, []string) { return "fuzz", nil }, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, method byte, b []byte) {
		ctx := context.Background()
		var err error
		call := func(req proto.Message, do func() error) {
			if proto.Unmarshal(b, req) == nil {
				err = do()
			}
		}
		switch method % 10 {
		case 0:
			var req pb.UpsertSourcesRequest
			call(&req, func() error { _, e := s.UpsertSources(ctx, &req); return e })
		case 1:
			var req pb.UpsertEntitiesRequest
			call(&req, func() error { _, e := s.UpsertEntities(ctx, &req); return e })
		case 2:
			var req pb.UpsertRelationsRequest
			call(&req, func() error { _, e := s.UpsertRelations(ctx, &req); return e })
		case 3:
			var req pb.RetractClaimRequest
			call(&req, func() error { _, e := s.RetractClaim(ctx, &req); return e })
		case 4:
			var req pb.DeleteRelationRequest
			call(&req, func() error { _, e := s.DeleteRelation(ctx, &req); return e })
		case 5:
			var req pb.DeleteEntityRequest
			call(&req, func() error { _, e := s.DeleteEntity(ctx, &req); return e })
		case 6:
			var req pb.MergeEntitiesRequest
			call(&req, func() error { _, e := s.MergeEntities(ctx, &req); return e })
		case 7:
			var req pb.UnmergeEntitiesRequest
			call(&req, func() error { _, e := s.UnmergeEntities(ctx, &req); return e })
		case 8:
			var req pb.ListChangesRequest
			call(&req, func() error { _, e := s.ListChanges(ctx, &req); return e })
		case 9:
			var req pb.SeparateEntitiesRequest
			call(&req, func() error { _, e := s.SeparateEntities(ctx, &req); return e })
		}
		if err == nil {
			return
		}
		st := status.Convert(err)
		switch st.Code() {
		case codes.InvalidArgument, codes.NotFound:
		default:
			t.Fatalf("unexpected code: %v", err)
		}
		if !utf8.ValidString(st.Message()) {
			t.Errorf("the message is not valid UTF-8: %q", st.Message())
		}
		if vs := fieldViolations(st); len(vs) > MaxViolationsShown+1 {
			t.Errorf("%d violations, more than %d and a count", len(vs), MaxViolationsShown)
		}
		if size := proto.Size(st.Proto()); size > 16<<10 {
			t.Errorf("the answer is %d bytes", size)
		}
	})
}
