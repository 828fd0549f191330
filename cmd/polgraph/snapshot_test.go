package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// TestRestartFromTheSnapshotFileMissesNoWrite serves with a snapshot file, stops, writes while no
// polgraph runs, and serves again: the graph is read back from the file, and answers hold the writes made
// meanwhile.
func TestRestartFromTheSnapshotFileMissesNoWrite(t *testing.T) {
	cfg := defaultConfig()
	cfg.SnapshotFile = filepath.Join(t.TempDir(), "graph.snapshot")
	cfg.HTTP = ""
	var logs lineWriter
	log := slog.New(slog.NewTextHandler(&logs, nil))

	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	})

	// serveOnce serves until ask returns, and gives ask a client once the graph is held in memory.
	serveOnce := func(ask func(pb.GraphServiceClient)) {
		t.Helper()
		_, conn, stop := serveForTest(t, onDgraph(store), cfg, log)
		ask(pb.NewGraphServiceClient(conn))
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	}
	pathBetween := func(c pb.GraphServiceClient, from, to string) int {
		t.Helper()
		resp, err := c.FindPaths(t.Context(), &pb.FindPathsRequest{From: from, To: to, MaxPaths: 1})
		if err != nil {
			t.Fatalf("FindPaths %s to %s: %v", from, to, err)
		}
		return len(resp.GetPaths())
	}

	serveOnce(func(c pb.GraphServiceClient) {
		if pathBetween(c, "Ajmal Masroor", "Keir Starmer") == 0 {
			t.Fatal("no path in the default graph")
		}
	})
	if _, err := os.Stat(cfg.SnapshotFile); err != nil {
		t.Fatalf("serving left no snapshot file: %v", err)
	}
	if strings.Contains(logs.String(), "graph read back from its snapshot file") {
		t.Fatal("the first fill says it read a file back")
	}

	// While no polgraph serves: two new actors, and a relation between them.
	file := filepath.Join(t.TempDir(), "meanwhile.jsonl")
	text := `{"record":"dataset","format":"polgraph/v1","name":"meanwhile"}
{"record":"source","name":"sources/meanwhile","title":"Meanwhile","kind":"OTHER"}
{"record":"entity","name":"actors/meanwhile-a","display_name":"Meanwhile Alpha"}
{"record":"entity","name":"actors/meanwhile-b","display_name":"Meanwhile Beta"}
{"record":"relation","type":"ENDORSES","from":"actors/meanwhile-a","to":"actors/meanwhile-b","claims":[{"source":"sources/meanwhile","excerpt":"endorsed","confidence":0.9,"status":"REPORTED"}]}
`
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := realMain(t.Context(), append([]string{"load"}, append(dgraphFlags(), file)...), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}

	serveOnce(func(c pb.GraphServiceClient) {
		if n := pathBetween(c, "Meanwhile Alpha", "Meanwhile Beta"); n != 1 {
			t.Fatalf("after the restart, %d paths between the actors written while polgraph was stopped, want 1", n)
		}
		ent, err := c.GetEntity(t.Context(), &pb.GetEntityRequest{Name: "actors/meanwhile-b"})
		if err != nil || ent.GetEntity().GetDisplayName() != "Meanwhile Beta" {
			t.Fatalf("after the restart, GetEntity: %v, %v", ent, err)
		}
	})
	if !strings.Contains(logs.String(), "graph read back from its snapshot file") {
		t.Fatalf("the restart did not read the file back; log:\n%s", logs.String())
	}
}
