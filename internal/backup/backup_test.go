package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// fakeChecker "restores" a staged chain by reading it: it fails unless every backup of the chain is
// there in plaintext, and reports the last one's read timestamp as its counts.
type fakeChecker struct{ fail bool }

func (c fakeChecker) Check(_ context.Context, location, series string, num int) (Restored, error) {
	if c.fail {
		return Restored{}, errors.New("Dgraph went away")
	}
	var m struct {
		Manifests []struct {
			ReadTs   uint64 `json:"read_ts"`
			BackupID string `json:"backup_id"`
			Path     string
		}
	}
	b, err := os.ReadFile(filepath.Join(location, "manifest.json"))
	if err != nil {
		return Restored{}, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return Restored{}, err
	}
	if len(m.Manifests) != num {
		return Restored{}, fmt.Errorf("staged %d backups of series %s, want %d", len(m.Manifests), series, num)
	}
	for _, e := range m.Manifests {
		files, _ := filepath.Glob(filepath.Join(location, e.Path, "*.backup"))
		if len(files) != 1 {
			return Restored{}, fmt.Errorf("staged %s: %v", e.Path, files)
		}
		if b, err := os.ReadFile(files[0]); err != nil || !strings.HasPrefix(string(b), "backup ") || e.BackupID != series {
			return Restored{}, fmt.Errorf("staged %s: %v %q %v", e.Path, files, b, err)
		}
	}
	ts := m.Manifests[len(m.Manifests)-1].ReadTs
	return Restored{Counts: map[string]int{"Entity": int(ts)}, Version: int64(ts), Fingerprint: Fingerprint{Sum: fmt.Sprint(ts), Lines: int64(ts)}}, nil
}

func TestTakeChainsAndPrunes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	key := make([]byte, keySize)
	d := &fakeDgraph{}
	take := func(full bool, checker fakeChecker) (Point, error) {
		return Take(ctx, dir, Options{Key: key, Full: full}, d, checker)
	}
	for _, full := range []bool{false, false, false, true} {
		if _, err := take(full, fakeChecker{}); err != nil {
			t.Fatal(err)
		}
	}
	// A backup whose check fails leaves the folder as it was, in both manifests.
	before, _ := os.ReadFile(filepath.Join(dir, "dgraph", "manifest.json"))
	if _, err := take(false, fakeChecker{fail: true}); err == nil {
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
	p, err := take(false, fakeChecker{})
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

// TestCheckLater records backups unchecked, then checks the newest: the older one stays unchecked, the
// newest records what its (encrypted) chain restores to, and a second call finds nothing to check.
func TestCheckLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	key := make([]byte, keySize)
	d := &fakeDgraph{}
	for range 2 {
		p, err := Take(ctx, dir, Options{Key: key, CheckLater: true}, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.IsChecked() || p.Fingerprint != "" || p.Counts != nil {
			t.Fatalf("a backup taken to check later holds a check: %+v", p)
		}
	}
	if _, _, err := CheckLatest(ctx, dir, key, fakeChecker{fail: true}); err == nil {
		t.Error("a failed check succeeded")
	}
	p, checked, err := CheckLatest(ctx, dir, key, fakeChecker{})
	if err != nil || !checked || p.Num != 2 || p.Counts["Entity"] != 20 || p.Fingerprint != "20" || p.Checked.IsZero() {
		t.Fatalf("CheckLatest = %+v, %v, %v; want backup 2 checked, its counts 20", p, checked, err)
	}
	if _, checked, err := CheckLatest(ctx, dir, key, fakeChecker{fail: true}); checked || err != nil {
		t.Errorf("checked again: %v, %v", checked, err)
	}
	f, err := Open(dir, key, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Points[0].IsChecked() || !f.Manifest.Points[1].IsChecked() || f.Manifest.Points[1].Fingerprint != "20" {
		t.Errorf("the manifest: %+v", f.Manifest.Points)
	}
	// An empty folder has nothing to check.
	if _, checked, err := CheckLatest(ctx, t.TempDir(), nil, fakeChecker{}); checked || err != nil {
		t.Errorf("an empty folder: %v, %v", checked, err)
	}
}
