package dgraphlocal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRestoreSnapshotted reads alpha logs as Dgraph v25 writes them: a restore counts as recorded only
// once a snapshot at or past its proposal follows it.
func TestRestoreSnapshotted(t *testing.T) {
	t.Parallel()
	const (
		restore  = "I1206 12:11:37.628726   25641 draft.go:803] Got restore proposal at Index: 632, ReadTs: 1023\n"
		restore2 = "I1206 12:12:37.628726   25641 draft.go:803] Got restore proposal at Index: 700, ReadTs: 1100\n"
		snap633  = "I1206 12:11:39.748242   25641 draft.go:773] Creating snapshot at Index: 633, ReadTs: 145\n"
		snap500  = "I1206 12:11:39.748242   25641 draft.go:773] Creating snapshot at Index: 500, ReadTs: 145\n"
		skip640  = "I1206 12:11:39.748242   25641 draft.go:767] Skipping snapshot at 600, because found one at 640\n"
	)
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"snapshot after", restore + snap633, true},
		{"no snapshot yet", restore, false},
		{"an older snapshot", restore + snap500, false},
		{"a snapshot before the restore", snap633 + restore, false},
		{"one found past it", restore + skip640, true},
		{"the last restore counts", restore + snap633 + restore2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "alpha.log")
			os.WriteFile(path, []byte(tc.log), 0o600)
			got, err := restoreSnapshotted(path)
			if err != nil || got != tc.want {
				t.Errorf("restoreSnapshotted = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "alpha.log")
	os.WriteFile(path, []byte(snap633), 0o600)
	if _, err := restoreSnapshotted(path); err == nil {
		t.Error("a log without a restore passes")
	}
}
