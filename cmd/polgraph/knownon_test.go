package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// TestKnownOnOverGRPC: a read with known_on answers as the served graph stood then (graph/history's tests
// check whole exports; this one the wiring): an entity written between two instants is unknown at the
// first and known at the second, with where its dates come from, over gRPC and in the CLI; a bad instant
// is refused naming the field.
func TestKnownOnOverGRPC(t *testing.T) {
	w := newWriter(t, "editor")
	name := "actors/" + w.slug("known")
	t.Cleanup(func() { _, _ = store.DeleteEntity(context.Background(), graph.EntityName(name), "test over") })
	instant := func() time.Time {
		time.Sleep(5 * time.Millisecond) // the audit trail keeps milliseconds
		at := time.Now()
		time.Sleep(5 * time.Millisecond)
		return at
	}
	before := instant()
	if _, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: name, DisplayName: "Known Writetest",
		ValidFrom: "1990", DatesFrom: "public record: founded in 1990 (a test)"}}}); err != nil {
		t.Fatal(err)
	}
	after := instant()
	client := pb.NewGraphServiceClient(conn)
	ctx := context.Background()
	at := func(when time.Time) *pb.RelationFilter {
		return &pb.RelationFilter{KnownOn: when.Format(time.RFC3339Nano)}
	}

	if _, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: name, Filter: at(before)}); status.Code(err) != codes.NotFound {
		t.Errorf("known on %s, before it was written: %v, want NotFound", before, err)
	}
	resp, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: name, Filter: at(after)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetEntity().GetDatesFrom() != "public record: founded in 1990 (a test)" || resp.GetKnown().GetChanges() == 0 ||
		resp.GetKnown().GetThrough() == "" || resp.GetKnown().GetVersion() == 0 || resp.GetKnown().GetKnownOn() != after.UTC().Format(time.RFC3339Nano) {
		t.Errorf("known on %s: %v", after, resp)
	}
	// A later update is not known then: neither its description nor its change in the entity's history.
	if _, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: name, DisplayName: "Known Writetest",
		Description: "Updated later.", ValidFrom: "1990", DatesFrom: "public record: founded in 1990 (a test)"}}}); err != nil {
		t.Fatal(err)
	}
	then, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: name, Filter: at(after), HistorySize: 10})
	if err != nil || then.GetEntity().GetDescription() != "" || len(then.GetHistory()) != 1 || then.GetHistory()[0].GetAction() != "CREATE" {
		t.Errorf("known on %s, before the update: %v, %v", after, then, err)
	}
	// Without known_on, nothing says which past graph answered.
	if now, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: name, HistorySize: 10}); err != nil || now.GetKnown() != nil ||
		now.GetEntity().GetDescription() != "Updated later." || len(now.GetHistory()) != 2 {
		t.Errorf("now: %v, %v", now, err)
	}
	out, err := runCLI(t, "entity", name, "--known-on", after.Format(time.RFC3339Nano))
	if err != nil || !strings.Contains(out, "As known on "+after.UTC().Format(time.RFC3339Nano)) || !strings.Contains(out, "public record: founded in 1990") {
		t.Errorf("polgraph entity --known-on: %v\n%s", err, out)
	}
	_, err = client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: "actors/lutfur-rahman", Filter: &pb.RelationFilter{KnownOn: "last Tuesday"}})
	if v := violations(t, err); status.Code(err) != codes.InvalidArgument || !strings.Contains(v["filter.known_on"], `"last Tuesday" is not a time`) {
		t.Errorf("a bad instant: %v", err)
	}
}
