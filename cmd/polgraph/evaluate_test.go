package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evaluate scores the pipeline on annotations, and scores a proposals file that ingest --dry-run wrote:
// both agree that the seed's denial is kept and none is proposed as support.
func TestEvaluate(t *testing.T) {
	t.Parallel()
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := realMain(context.Background(), args, &out, &out); err != nil {
			t.Fatalf("polgraph %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	const texts = "../../data/annotations/texts"
	direct := run("evaluate", "--annotations", "../../data/annotations/seeds")
	for _, want := range []string{"documents: 3", "denials kept as denials: 1/1; denials proposed as support: 0; must-not readings proposed: 0"} {
		if !strings.Contains(direct, want) {
			t.Errorf("evaluate --annotations: no %q in\n%s", want, direct)
		}
	}

	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte(`{"record":"dataset","format":"polgraph/v2","name":"empty"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "proposals.jsonl")
	run("ingest", "--dry-run", "--known", empty, "--out", out, texts+"/seeds")
	scored := run("evaluate", "--annotations", "../../data/annotations/seeds", "--proposals", out, "--known", empty)
	if !strings.Contains(scored, "denials proposed as support: 0") || !strings.Contains(scored, "denials kept as denials: 1/1") {
		t.Errorf("evaluate --proposals:\n%s", scored)
	}

	var msg bytes.Buffer
	err := realMain(context.Background(), []string{"evaluate", "--against", "../../data/tower-hamlets/tower-hamlets.jsonl"}, &msg, &msg)
	if err == nil || !strings.Contains(err.Error(), "--texts") {
		t.Errorf("evaluate --against without --texts: err = %v", err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "x.json"), []byte(`{"document": "", "entities": [], "relations": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err = realMain(context.Background(), []string{"evaluate", "--annotations", bad}, &msg, &msg)
	if err == nil || !strings.Contains(err.Error(), "x.json: document: required") {
		t.Errorf("a bad annotation: err = %v", err)
	}
}
