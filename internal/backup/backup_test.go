package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph/dgraph"
)

// fakeDgraph writes backups as Dgraph does: a folder per backup with one file, and an entry appended to
// manifest.json, a full backup starting a new series.
type fakeDgraph struct{ n, series int }

func (d *fakeDgraph) Backup(_ context.Context, dest string, full bool) error {
	var m struct{ Manifests []map[string]any }
	if b, err := os.ReadFile(filepath.Join(dest, "manifest.json")); err == nil {
		json.Unmarshal(b, &m)
	}
	if len(m.Manifests) == 0 {
		full = true
	}
	d.n++
	typ, num := "incremental", 1
	if full {
		d.series++
	} else {
		num = int(m.Manifests[len(m.Manifests)-1]["backup_num"].(float64)) + 1
	}
	if full {
		typ = "full"
	}
	path := fmt.Sprintf("dgraph.%03d", d.n)
	os.MkdirAll(filepath.Join(dest, path), 0o700)
	os.WriteFile(filepath.Join(dest, path, fmt.Sprintf("r%d-g1.backup", d.n)), []byte(fmt.Sprint("backup ", d.n)), 0o600)
	m.Manifests = append(m.Manifests, map[string]any{"type": typ, "read_ts": d.n * 10, "backup_id": fmt.Sprint("series", d.series), "backup_num": num, "path": path})
	b, _ := json.Marshal(m)
	return os.WriteFile(filepath.Join(dest, "manifest.json"), b, 0o600)
}

type fakeDumper struct{ fail bool }

func (f fakeDumper) Dump(_ context.Context, at dgraph.ReadAt, w io.Writer) (dgraph.DumpSummary, error) {
	if f.fail {
		return dgraph.DumpSummary{}, errors.New("Dgraph went away")
	}
	fmt.Fprintf(w, "graph at %d\n", at.Ts)
	return dgraph.DumpSummary{Counts: map[string]int{"Entity": int(at.Ts)}, Version: int64(at.Ts)}, nil
}

func TestTakeChainsAndPrunes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	key := make([]byte, keySize)
	d := &fakeDgraph{}
	take := func(full bool, dumper fakeDumper) (Point, error) {
		return Take(ctx, dir, Options{Key: key, Full: full}, d, dumper)
	}
	for _, full := range []bool{false, false, false, true} {
		if _, err := take(full, fakeDumper{}); err != nil {
			t.Fatal(err)
		}
	}
	// A backup whose dump fails leaves the folder as it was, in both manifests.
	before, _ := os.ReadFile(filepath.Join(dir, "dgraph", "manifest.json"))
	if _, err := take(false, fakeDumper{fail: true}); err == nil {
		t.Fatal("a backup whose dump failed succeeded")
	}
	after, _ := os.ReadFile(filepath.Join(dir, "dgraph", "manifest.json"))
	var b, a struct{ Manifests []json.RawMessage }
	json.Unmarshal(before, &b)
	json.Unmarshal(after, &a)
	if len(a.Manifests) != len(b.Manifests) {
		t.Errorf("Dgraph's manifest lists %d backups after a failed one, want %d", len(a.Manifests), len(b.Manifests))
	}
	if _, err := os.Stat(filepath.Join(dir, "dgraph", "dgraph.005")); err == nil {
		t.Error("the failed backup's folder is still there")
	}
	p, err := take(false, fakeDumper{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir, key, false)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Num       int
		Type      string
		Series    string
		SeriesNum int
		ReadTs    uint64
	}
	var got []row
	for _, p := range f.Manifest.Points {
		got = append(got, row{p.Num, p.Type, p.Series, p.SeriesNum, p.ReadTs})
	}
	// The failed backup took Dgraph's fifth folder, and its read timestamp 50.
	want := []row{{1, "full", "series1", 1, 10}, {2, "incremental", "series1", 2, 20}, {3, "incremental", "series1", 3, 30},
		{4, "full", "series2", 1, 40}, {5, "incremental", "series2", 2, 60}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backups (-want +got):\n%s", diff)
	}
	if p.Num != 5 || p.Counts["Entity"] != 60 {
		t.Errorf("the last backup is %+v", p)
	}
	chain, err := f.Chain(3)
	if err != nil || len(chain) != 3 || chain[0].Num != 1 {
		t.Errorf("Chain(3) = %v, %v; want backups 1 to 3", chain, err)
	}
	loc := t.TempDir()
	if _, _, err := f.Stage(5, loc); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(loc, "dgraph.006", "r6-g1.backup")); err != nil || string(b) != "backup 6" {
		t.Errorf("staged file: %q, %v", b, err)
	}
	// Keeping one series deletes the first, and restoring into it is refused.
	n, err := Prune(dir, key, 1, nil)
	if err != nil || n != 3 {
		t.Fatalf("Prune = %d, %v; want 3 deleted", n, err)
	}
	if f, err = Open(dir, key, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Point(2); err == nil {
		t.Error("backup 2 is still listed")
	}
	if err := f.Check(5); err != nil {
		t.Errorf("the kept series: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dgraph", "dgraph.001")); err == nil {
		t.Error("the first series' files are still there")
	}
}
