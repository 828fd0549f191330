package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// RestoreOptions say where and how to restore.
type RestoreOptions struct {
	Num     int    // the backup to restore to; 0: the latest
	Binary  string // the dgraph binary
	DataDir string // the local Dgraph's data folder to restore into: absent or empty
	// PortOffset moves the restoring Dgraph's ports, as `polgraph run` will (a Dgraph's zero keeps its
	// alpha's address). Scratch restores any free ports at or above it.
	PortOffset int
	// Scratch is a restore only to check the backup (verify): on free ports, the graph's id kept.
	Scratch bool
	Log     *slog.Logger
}

// Restored says what a restore restored.
type Restored struct {
	Point   Point
	Counts  map[string]int
	Version int64
	// GraphID is the graph's new id: snapshot files and shared copies of before the restore name
	// another, so replicas set them aside by themselves.
	GraphID string
	Seconds float64
}

// Restore restores backup o.Num of the folder f into a new local Dgraph in o.DataDir: it checks every file
// against the manifest, starts Dgraph there with the backup's credentials, has it restore the chain, then
// compares a whole-graph dump and its counts with the manifest, gives the graph a new id (unless
// Scratch) and stops Dgraph. It fails with an Invalid error, and removes what it wrote, when anything
// differs.
func Restore(ctx context.Context, f *Folder, o RestoreOptions) (r Restored, err error) {
	start := time.Now()
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := f.Point(o.Num)
	if err != nil {
		return r, err
	}
	r.Point = p
	if err := emptyDir(o.DataDir); err != nil {
		return r, err
	}
	if err := f.Check(p.Num); err != nil {
		return r, err
	}
	secrets, err := f.Secrets()
	if err != nil {
		return r, err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return r, err
	}
	// Nothing half written: a restore that fails leaves the data folder empty.
	defer func() {
		if err != nil {
			if entries, _ := os.ReadDir(dataDir); entries != nil {
				for _, e := range entries {
					os.RemoveAll(filepath.Join(dataDir, e.Name()))
				}
			}
		}
	}()
	sdir := dgraphlocal.SecretsDir(dataDir)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return r, err
	}
	for name, b := range secrets {
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return r, invalid("BACKUP_FILE_MISMATCH", "the backup's credentials name a file %q", name)
		}
		if err := os.WriteFile(filepath.Join(sdir, name), b, 0o600); err != nil {
			return r, err
		}
	}
	location := filepath.Join(dataDir, "restoring")
	if err := os.MkdirAll(location, 0o700); err != nil {
		return r, err
	}
	defer os.RemoveAll(location)
	series, num, err := f.Stage(p.Num, location)
	if err != nil {
		return r, err
	}
	cfg := dgraphlocal.Config{Binary: o.Binary, DataDir: dataDir, PortOffset: o.PortOffset, Logger: log}
	var cluster *dgraphlocal.Cluster
	if o.Scratch {
		cluster, _, err = dgraphlocal.StartOnFreePorts(ctx, cfg, o.PortOffset)
	} else {
		cluster, err = dgraphlocal.Start(ctx, cfg)
	}
	if err != nil {
		return r, fmt.Errorf("start a Dgraph to restore into: %w", err)
	}
	defer cluster.Stop()
	log.Info("restoring", "backup", p.Num, "series", series, "series_num", num, "data", dataDir)
	if err := cluster.Administrator().Restore(ctx, location, series, num); err != nil {
		return r, &graph.Error{Op: "backup.Restore", Kind: graph.Unavailable, Message: "Dgraph's restore failed", Err: err}
	}
	store, err := openRestored(ctx, cluster.Service(), log)
	if err != nil {
		return r, err
	}
	defer store.Close()
	h := sha256.New()
	sum, err := store.Dump(ctx, dgraph.ReadAt{}, h)
	if err != nil {
		return r, err
	}
	r.Counts, r.Version = sum.Counts, sum.Version
	if got := hex.EncodeToString(h.Sum(nil)); got != p.DumpSHA || !maps.Equal(sum.Counts, p.Counts) {
		return r, &graph.Error{Op: "backup.Restore", Kind: graph.Invalid, Reason: "BACKUP_RESTORE_MISMATCH",
			Message: fmt.Sprintf("the restored graph differs from backup %d's manifest: counts %v, want %v; dump SHA-256 %s, want %s",
				p.Num, countsText(sum.Counts), countsText(p.Counts), got, p.DumpSHA)}
	}
	if !o.Scratch {
		if r.GraphID, err = store.RenewGraphID(ctx); err != nil {
			return r, fmt.Errorf("give the restored graph a new id: %w", err)
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// openRestored logs in to a Dgraph just restored: its access rules come back with the data, a moment
// after the restore ends.
func openRestored(ctx context.Context, cfg dgraph.Config, log *slog.Logger) (*dgraph.Store, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := dgraph.Open(ctx, cfg, log)
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("log in to the restored Dgraph: %w", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// emptyDir checks that dir is absent or empty.
func emptyDir(dir string) error {
	if dir == "" {
		return invalid("RESTORE_TARGET_MISSING", "name the data folder to restore into (--data-dir)")
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return invalid("RESTORE_TARGET_UNREADABLE", "the data folder %s: %v", dir, err)
	}
	if len(entries) > 0 {
		return invalid("RESTORE_TARGET_NOT_EMPTY", "the data folder %s is not empty: restore into an empty or new folder (move the old one aside first)", dir)
	}
	return nil
}

func countsText(c map[string]int) string {
	keys := slices.Sorted(maps.Keys(c))
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%d", k, c[k])
	}
	return b.String()
}
