package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph/dataset"
)

func TestGen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, rdf := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "g.rdf.gz")
	var stdout bytes.Buffer
	if err := genCmd(t.Context(), []string{"--relations", "1500", "--seed", "4", "--out", out, "--rdf", rdf}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "1500 relations") {
		t.Errorf("gen says %q", stdout.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Read([]dataset.File{{Name: out, R: f}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Relations) != 1500 {
		t.Errorf("%d relations; want 1500", len(ds.Relations))
	}
	if st, err := os.Stat(rdf); err != nil || st.Size() == 0 {
		t.Errorf("no N-Quads written: %v", err)
	}
}

func TestGenUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--relations", "ten", "--out", "x"}, {"--out", "x", "extra"}} {
		if err := genCmd(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("gen %q: %v; want a usage error", args, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"10k": 10_000, "100K": 100_000, "1m": 1_000_000, "2500": 2500} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func isBulkID(line string) bool { return strings.Contains(line, "<pg.bulk_id>") }

// isLoadTime is the line dating the load's one change (when its N-Quads were written).
func isLoadTime(line string) bool { return strings.Contains(line, "<pg.change_at>") }

// `polgraph load --nquads` writes, for `dgraph bulk`, exactly the N-Quads that stand for the graph (those
// `gen --rdf` writes beside the same dataset, which the bench loads and compares with polgraph's own
// load), but for the load's id and the time of its change; a file with a bad record gets the reader's error
// and no output.
func TestLoadToNQuads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, rdf := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "gen.rdf")
	if err := genCmd(t.Context(), []string{"--relations", "1200", "--seed", "7", "--out", data, "--rdf", rdf}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{filepath.Join(dir, "load.rdf"), filepath.Join(dir, "load.rdf.gz")} {
		var stdout bytes.Buffer
		if err := realMain(t.Context(), []string{"load", "--nquads", out, data}, &stdout, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), "1200 relations as ") {
			t.Errorf("load --nquads says %q", stdout.String())
		}
		// Each names its load on the meta node, with an id of its own: the one line in which they differ.
		got, want := sortedLines(t, out), sortedLines(t, rdf)
		gotID, wantID := slices.IndexFunc(got, isBulkID), slices.IndexFunc(want, isBulkID)
		if gotID < 0 || wantID < 0 || got[gotID] == want[wantID] {
			t.Fatalf("%s: the load ids %d, %d (%q, %q)", out, gotID, wantID, got[max(gotID, 0)], want[max(wantID, 0)])
		}
		got, want = slices.Delete(got, gotID, gotID+1), slices.Delete(want, wantID, wantID+1)
		if slices.IndexFunc(got, isLoadTime) < 0 {
			t.Errorf("%s: no change records the load", out)
		}
		got, want = slices.DeleteFunc(got, isLoadTime), slices.DeleteFunc(want, isLoadTime)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d N-Quads, gen --rdf wrote %d; they differ", out, len(got), len(want))
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	b, _ := os.ReadFile(data)
	os.WriteFile(bad, append(b, []byte(`{"type":"relation","name":"relations/x","rel_type":"ENDORSES","from":"actors/nobody","to":"actors/nobody-else"}`+"\n")...), 0o644)
	out := filepath.Join(dir, "bad.rdf")
	err := realMain(t.Context(), []string{"load", "--nquads", out, bad}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:") {
		t.Errorf("a bad file: %v; want the reader's error naming the file and line", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "bad.rdf") || strings.HasPrefix(e.Name(), ".bad.rdf") {
			t.Errorf("a refused load left %s", e.Name())
		}
	}
}

func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines)
	return lines
}
