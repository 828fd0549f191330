package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// Scratch is a restore only to check the backup (verify): on free ports, the graph's id kept, one
	// alpha for each of the backup's groups.
	Scratch bool
	// Alphas and Replicas shape the Dgraph restored into, as `polgraph cluster` shapes its own (0: one
	// alpha; Replicas 0: one group of them all). Every alpha is restored: the backup's groups must be
	// the cluster's.
	Alphas, Replicas int
	Log              *slog.Logger
}

// Restored says what a restore restored.
type Restored struct {
	Point   Point
	Counts  map[string]int
	Version int64
	// Fingerprint is the restored graph's whole-graph export's.
	Fingerprint Fingerprint
	// Unchecked: the backup was restored before its check recorded what it holds (Options.CheckLater),
	// so there was nothing to compare the restored graph with.
	Unchecked bool
	// DumpSHA and DumpBytes are the SHA-256 and size of the restored graph's whole-graph dump, taken only
	// to check a backup whose manifest has no fingerprint (polgraph's first backups).
	DumpSHA   string
	DumpBytes int64
	// GraphID is the graph's new id: snapshot files and shared copies of before the restore name
	// another, so replicas set them aside by themselves.
	GraphID string
	Seconds float64
}

// Restore restores backup o.Num of the folder f into a new local Dgraph in o.DataDir: it checks every file
// against the manifest, starts Dgraph there with the backup's credentials, has it restore the chain, then
// compares the fingerprint of a whole-graph export, the counts and the version with the manifest, gives the graph a new id (unless
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
	if err := emptyDir(o.DataDir); err != nil {
		return r, err
	}
	if err := f.Check(p.Num); err != nil {
		return r, err
	}
	alphas, replicas := max(o.Alphas, 1), o.Replicas
	if o.Scratch && o.Alphas == 0 {
		alphas, replicas = p.Groups(), 1
	}
	if replicas <= 0 {
		replicas = alphas
	}
	if groups := (alphas + replicas - 1) / replicas; groups != p.Groups() {
		return r, invalid("BACKUP_GROUPS_DIFFER", "backup %d holds %d groups of predicates; %d alphas in groups of %d make %d: restore into as many groups as were backed up",
			p.Num, p.Groups(), alphas, replicas, groups)
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
	if err := writeSecrets(dataDir, secrets); err != nil {
		return r, err
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
	cfg := dgraphlocal.Config{Binary: o.Binary, DataDir: dataDir, PortOffset: o.PortOffset, Logger: log, Alphas: alphas, Replicas: replicas}
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
	log.Info("restoring", "backup", p.Num, "series", series, "series_num", num, "data", dataDir, "alphas", alphas)
	r, store, err := restoreInto(ctx, cluster, location, series, num, p.DumpSHA != "" && p.Fingerprint == "", log)
	if err != nil {
		return r, err
	}
	defer store.Close()
	r.Point = p
	if !p.IsChecked() {
		// Taken, not yet checked: its files match the manifest, which says nothing yet of the graph.
		r.Unchecked = true
	} else if err := p.compare(r); err != nil {
		return r, err
	}
	if !o.Scratch {
		if r.GraphID, err = store.RenewGraphID(ctx); err != nil {
			return r, fmt.Errorf("give the restored graph a new id: %w", err)
		}
		// Stopped before each alpha records the restore in a snapshot, an alpha would replay it at its
		// next start from the staged folder, deleted by then, and lose everything.
		if err := cluster.WaitRestoreSnapshotted(ctx, 2*time.Minute); err != nil {
			return r, err
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// compare fails with an Invalid error when the restored graph r differs from what the point's manifest
// says it holds.
func (p Point) compare(r Restored) error {
	mismatch := func(what string, got, want any) error {
		return &graph.Error{Op: "backup.Restore", Kind: graph.Invalid, Reason: "BACKUP_RESTORE_MISMATCH",
			Message: fmt.Sprintf("the restored graph differs from backup %d's manifest: %s %v, want %v", p.Num, what, got, want)}
	}
	switch {
	case !maps.Equal(r.Counts, p.Counts):
		return mismatch("counts", countsText(r.Counts), countsText(p.Counts))
	case r.Version != p.Version:
		return mismatch("graph version", r.Version, p.Version)
	case p.Fingerprint != "" && r.Fingerprint != Fingerprint{Sum: p.Fingerprint, Lines: p.FingerprintLines}:
		return mismatch("export fingerprint", fmt.Sprintf("%s (%d lines)", r.Fingerprint.Sum, r.Fingerprint.Lines),
			fmt.Sprintf("%s (%d lines)", p.Fingerprint, p.FingerprintLines))
	case p.Fingerprint == "" && r.DumpSHA != p.DumpSHA:
		return mismatch("dump SHA-256", r.DumpSHA, p.DumpSHA)
	}
	return nil
}

// restoreInto has the running cluster restore a staged series up to num, then tells what it holds: each
// alpha's counts and graph version, which must agree (in a cluster every alpha restores its group on its
// own), and the fingerprint of the cluster's export; with dump, also a whole-graph dump. The store
// returned is logged in to the first alpha; the caller closes it.
func restoreInto(ctx context.Context, cluster *dgraphlocal.Cluster, location, series string, num int, dump bool, log *slog.Logger) (Restored, *dgraph.Store, error) {
	var r Restored
	if err := cluster.Administrator().Restore(ctx, location, series, num); err != nil {
		return r, nil, &graph.Error{Op: "backup.Restore", Kind: graph.Unavailable, Message: "Dgraph's restore failed", Err: err}
	}
	var first *dgraph.Store
	fail := func(err error) (Restored, *dgraph.Store, error) {
		if first != nil {
			first.Close()
		}
		return r, nil, err
	}
	for i := range cluster.AlphaCount() {
		if err := cluster.AdministratorOf(i).WaitRestored(ctx); err != nil {
			return fail(err)
		}
		store, sum, err := countRestored(ctx, cluster.AlphaService(i), log)
		if err != nil {
			return fail(err)
		}
		if i == 0 {
			first, r.Counts, r.Version = store, sum.Counts, sum.Version
			continue
		}
		store.Close()
		if !maps.Equal(sum.Counts, r.Counts) || sum.Version != r.Version {
			return fail(&graph.Error{Op: "backup.Restore", Kind: graph.Invalid, Reason: "BACKUP_RESTORE_MISMATCH",
				Message: fmt.Sprintf("alpha %d of %d restored another graph than the first: counts %v, version %d; the first %v, %d",
					i+1, cluster.AlphaCount(), countsText(sum.Counts), sum.Version, countsText(r.Counts), r.Version)})
		}
	}
	fp, err := FingerprintOf(ctx, cluster.Administrator(), cluster.DataDir())
	if err != nil {
		return fail(fmt.Errorf("export the restored graph: %w", err))
	}
	r.Fingerprint = fp
	if dump {
		h := sha256.New()
		cw := &countWriter{w: h}
		if _, err := first.Dump(ctx, cw); err != nil {
			return fail(fmt.Errorf("dump the restored graph: %w", err))
		}
		r.DumpSHA, r.DumpBytes = hex.EncodeToString(h.Sum(nil)), cw.n
	}
	return r, first, nil
}

// countRestored logs in to a restored alpha and counts what it holds, trying again for a minute while the
// alpha still restores (Dgraph refuses reads meanwhile).
func countRestored(ctx context.Context, cfg dgraph.Config, log *slog.Logger) (*dgraph.Store, dgraph.DumpSummary, error) {
	store, err := openRestored(ctx, cfg, log)
	if err != nil {
		return nil, dgraph.DumpSummary{}, err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		sum, err := store.TypeCounts(ctx)
		if err == nil {
			return store, sum, nil
		}
		if graph.KindOf(err) != graph.Unavailable || time.Now().After(deadline) || ctx.Err() != nil {
			store.Close()
			return nil, sum, fmt.Errorf("count what the restored alpha %s holds: %w", cfg.Addr, err)
		}
		log.Info("the restored alpha does not answer yet; asking again", "alpha", cfg.Addr, "err", err)
		time.Sleep(500 * time.Millisecond)
	}
}

// Scratch is a Dgraph of its own, in a temporary folder and on free ports, started at its first use, that
// restores each new backup to check it and tell what it holds (a Checker).
type Scratch struct {
	Binary string
	// SecretsDir holds the backed-up Dgraph's credentials, which its restored users keep.
	SecretsDir string
	PortFrom   int
	Log        *slog.Logger

	dir     string
	cluster *dgraphlocal.Cluster
}

// Check implements Checker.
func (s *Scratch) Check(ctx context.Context, location, series string, num int) (Restored, error) {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	groups, err := stagedGroups(location)
	if err != nil {
		return Restored{}, err
	}
	if s.cluster != nil && s.cluster.AlphaCount() != groups {
		s.Close()
	}
	if s.cluster == nil {
		secrets, err := readSecretsDir(s.SecretsDir)
		if err != nil {
			return Restored{}, err
		}
		if s.dir, err = os.MkdirTemp("", "polgraph-backup-check-"); err != nil {
			return Restored{}, err
		}
		if err := writeSecrets(s.dir, secrets); err != nil {
			s.Close()
			return Restored{}, err
		}
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg := dgraphlocal.Config{Binary: s.Binary, DataDir: s.dir, Logger: quiet, Alphas: groups, Replicas: 1}
		if s.cluster, _, err = dgraphlocal.StartOnFreePorts(ctx, cfg, s.PortFrom); err != nil {
			s.Close()
			return Restored{}, fmt.Errorf("start a scratch Dgraph: %w", err)
		}
	}
	// The whole series, as a restore does: Dgraph's incremental restore of the last backup alone onto the
	// one before gave, under a write load, another graph than the whole series (3 lines of 258,830).
	r, store, err := restoreInto(ctx, s.cluster, location, series, num, false, log)
	if err != nil {
		return r, err
	}
	store.Close()
	return r, nil
}

// stagedGroups is how many groups of predicates the last backup staged in location holds.
func stagedGroups(location string) (int, error) {
	b, err := os.ReadFile(filepath.Join(location, "manifest.json"))
	if err != nil {
		return 0, err
	}
	var m struct{ Manifests []json.RawMessage }
	if err := json.Unmarshal(b, &m); err != nil || len(m.Manifests) == 0 {
		return 0, fmt.Errorf("the staged manifest.json: %v", err)
	}
	return groupsOf(m.Manifests[len(m.Manifests)-1]), nil
}

// Close stops the scratch Dgraph and deletes its folder.
func (s *Scratch) Close() {
	if s.cluster != nil {
		s.cluster.Stop()
		s.cluster = nil
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

func readSecretsDir(dir string) (map[string][]byte, error) {
	s := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("Dgraph's credentials: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			s[e.Name()] = b
		}
	}
	return s, nil
}

// writeSecrets writes credentials as dgraphlocal keeps them in a data folder.
func writeSecrets(dataDir string, secrets map[string][]byte) error {
	sdir := dgraphlocal.SecretsDir(dataDir)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return err
	}
	for name, b := range secrets {
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return invalid("BACKUP_FILE_MISMATCH", "the backup's credentials name a file %q", name)
		}
		if err := os.WriteFile(filepath.Join(sdir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
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
