package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// TestWatchChangesOverGRPC: a watcher over gRPC from before a writer's writes (sixteen at once) gets
// each once, in version order, with who wrote it and through what; `polgraph watch` from the same version
// prints them as JSON lines; a bad request is refused with its field named.
func TestWatchChangesOverGRPC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stats, err := client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	from := stats.GetVersion()
	w := newWriter(t, "editor")
	stream, err := client.WatchChanges(ctx, &pb.WatchChangesRequest{SinceVersion: &from, Entities: []string{"parties/labour"}})
	if err != nil {
		t.Fatal(err)
	}
	src := "sources/" + watchSource(t, w)
	const writers = 16
	errs := make(chan error, writers)
	for i := range writers {
		go func() {
			name := fmt.Sprintf("actors/%s", w.slug(fmt.Sprint(i)))
			_, err := w.w.UpsertEntities(w.ctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: name, DisplayName: "Watched " + fmt.Sprint(i)}}})
			if err == nil {
				_, err = w.w.UpsertRelations(w.ctx, &pb.UpsertRelationsRequest{Relations: []*pb.RelationRecord{{Type: "MEMBER_OF", From: name, To: "parties/labour",
					Claims: []*pb.ClaimRecord{claim(src, "A member.", "REPORTED")}}}})
			}
			errs <- err
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// The filter names Labour: the sixteen memberships, and nothing of the entities alone.
	var got []*pb.Change
	var token string
	for len(got) < writers {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("after %d changes: %v", len(got), err)
		}
		got = append(got, resp.GetChanges()...)
		token = resp.GetResumeToken()
	}
	seen := map[string]bool{}
	for i, c := range got {
		if !strings.Contains(c.GetResource(), ".member-of.labour") || c.GetAction() != "CREATE" || c.GetMethod() != "UpsertRelations" ||
			c.GetPrincipal() != w.principal() || c.GetVersion() <= from || c.GetAfter() == "" {
			t.Errorf("change %d: %v", i, c)
		}
		if i > 0 && c.GetVersion() <= got[i-1].GetVersion() {
			t.Errorf("change %d at version %d after one at %d", i, c.GetVersion(), got[i-1].GetVersion())
		}
		if seen[c.GetResource()] {
			t.Errorf("%s sent twice", c.GetResource())
		}
		seen[c.GetResource()] = true
	}
	if token == "" {
		t.Error("no resume token")
	}

	// The CLI, from the same version, until caught up: the same changes as JSON lines.
	var out, errOut bytes.Buffer
	if err := realMain(ctx, []string{"watch", "--server", serverAddr, "--since", fmt.Sprint(from), "--entities", "parties/labour", "--until-caught-up", "--json"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < writers {
		t.Fatalf("polgraph watch printed %d lines, want at least %d:\n%s", len(lines), writers, out.String())
	}
	for i, l := range lines[:writers] {
		var c struct {
			Resource string `json:"resource"`
			Version  string `json:"version"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil || c.Resource != got[i].GetResource() || c.Version != fmt.Sprint(got[i].GetVersion()) {
			t.Errorf("line %d: %s (%v); want %s at %d", i, l, err, got[i].GetResource(), got[i].GetVersion())
		}
	}

	// Refused: a depth without a center.
	bad, err := client.WatchChanges(ctx, &pb.WatchChangesRequest{Depth: 2})
	if err == nil {
		_, err = bad.Recv()
	}
	if v := violations(t, err); v["depth"] == "" {
		t.Errorf("a depth without a center: %v", err)
	}
}

// watchSource writes a source for w's claims, once, and returns its slug.
func watchSource(t *testing.T, w writer) string {
	slug := w.slug("watch-gazette")
	_, err := w.w.UpsertSources(w.ctx, &pb.UpsertSourcesRequest{Sources: []*pb.SourceRecord{{Name: "sources/" + slug, Title: "Watch", Kind: "DATASET"}}})
	if err != nil {
		t.Error(err)
	}
	return slug
}
