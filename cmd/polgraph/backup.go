package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

const backupUsage = `usage: polgraph backup [--full] [--keep N] [--key-file FILE] DIR
       polgraph backup list [--key-file FILE] DIR
       polgraph backup verify [--backup N] [--key-file FILE] DIR
       polgraph restore [--backup N] [--key-file FILE] [--alphas N --replicas R] --data-dir NEW DIR

backup takes a backup of the Dgraph of --dgraph, whose secrets are in --data-dir (as polgraph run starts
it), into the folder DIR:
Dgraph's binary backup, full the first time and with --full, else of what changed since the last,
restored at once in a scratch Dgraph, with a manifest of what it restores to (the graph's version, the
counts of every type, a digest of a whole-graph export) and each file's SHA-256; encrypted (AES-256-GCM) with --key-file, a file of 32 random bytes. --keep N
deletes all but the newest N full backups and their incrementals.
list shows the backups in DIR. verify restores one (default the latest) into a scratch Dgraph and
compares the restored graph with the manifest. restore does the same into the empty data folder NEW,
which polgraph run --data-dir NEW then serves (with --alphas, polgraph cluster --data-dir NEW: every
alpha restored); it refuses a backup whose manifest or files do not match. docs/operations.md says more.
`

// backupCmd is `polgraph backup [list|verify]`.
func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub := "take"
	if len(args) > 0 && (args[0] == "list" || args[0] == "verify") {
		sub, args = args[0], args[1:]
	}
	cfg := defaultConfig()
	fs := cfg.flags("backup", stderr, "dgraph", "data-dir", "local", "log")
	fs.Usage = func() {
		fmt.Fprint(stderr, backupUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	keyFile := fs.String("key-file", os.Getenv("POLGRAPH_BACKUP_KEY_FILE"), "encrypt the backups with the 32-byte key in this file, or read them with it ($POLGRAPH_BACKUP_KEY_FILE)")
	full := fs.Bool("full", false, "take a full backup, starting a new series")
	keep := fs.Int("keep", 0, "after the backup, delete all but the newest N full backups and their incrementals (0: keep all)")
	num := fs.Int("backup", 0, "verify: the backup to restore (its number in list); 0 for the latest")
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	dir := fs.Arg(0)
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	key, err := readBackupKey(*keyFile)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		f, err := backup.Open(dir, key, false)
		if err != nil {
			return err
		}
		listBackups(f, stdout)
		return nil
	case "verify":
		f, err := backup.Open(dir, key, false)
		if err != nil {
			return err
		}
		return verifyBackup(ctx, f, key, *num, cfg, log, stdout)
	}
	p, err := takeBackup(ctx, cfg, dir, key, *full, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup %d (%s) in %s: graph version %d, %s, %s in %.1fs\n", p.Num, p.Type, dir, p.Version, countsLine(p.Counts), byteSize(p.Bytes()), p.Seconds)
	if *keep > 0 {
		n, err := backup.Prune(dir, key, *keep, log)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(stdout, "deleted %d older backups, keeping the newest %d full backups and their incrementals\n", n, *keep)
		}
	}
	return nil
}

// backupSchedule is the schedule of backups the configuration asks for, or nil. admin reaches the alpha;
// nil: the alpha of --dgraph, its HTTP port 1000 below its gRPC port (as Dgraph places them), with the
// secrets in --data-dir.
func (c Config) backupSchedule(admin *dgraphlocal.Admin, log *slog.Logger) (*backup.Schedule, error) {
	if c.BackupDir == "" {
		return nil, nil
	}
	if c.BackupEvery < time.Second || c.BackupKeep < 0 {
		return nil, &graph.Error{Op: "config", Kind: graph.Invalid, Message: fmt.Sprintf("--backup-every must be a second or more (got %v) and --backup-keep 0 or more (got %d)", c.BackupEvery, c.BackupKeep)}
	}
	key, err := readBackupKey(c.BackupKeyFile)
	if err != nil {
		return nil, err
	}
	if admin == nil {
		addrs, err := dgraph.Alphas(c.Dgraph)
		if err != nil {
			return nil, err
		}
		a, err := dgraphlocal.AdministratorAt(c.DataDir, addrs[0])
		if err != nil {
			return nil, err
		}
		admin = &a
	}
	// Checked now, so that a wrong key or a folder of other backups stops the start, not the first tick.
	if _, err := backup.Open(c.BackupDir, key, true); err != nil {
		return nil, err
	}
	secrets := dgraphlocal.SecretsDir(c.DataDir)
	return &backup.Schedule{Dir: c.BackupDir, Every: c.BackupEvery, FullEvery: c.BackupFullEvery, Keep: c.BackupKeep,
		Options: backup.Options{Key: key, SecretsDir: secrets, Log: log}, Dgraph: *admin,
		Checker: &backup.Scratch{Binary: c.DgraphBin, SecretsDir: secrets, PortFrom: scratchPorts, Log: log}}, nil
}

// withBackups has serve take the scheduled backups s, reporting them in its metrics and /healthz.
func withBackups(s *backup.Schedule) serveOption {
	return func(sv *served) { sv.backups = s }
}

// scratchPorts is where the scratch Dgraphs that check backups look for free ports: clear of `make run`'s
// (100), the tests' (200 to 3700) and the benchmark's (from 10000).
const scratchPorts = 4000

// takeBackup backs up the Dgraph of --dgraph, whose secrets are in --data-dir, into dir, and restores it
// in a scratch Dgraph to check it.
func takeBackup(ctx context.Context, cfg Config, dir string, key []byte, full bool, log *slog.Logger) (backup.Point, error) {
	addrs, err := dgraph.Alphas(cfg.Dgraph)
	if err != nil {
		return backup.Point{}, err
	}
	admin, err := dgraphlocal.AdministratorAt(cfg.DataDir, addrs[0])
	if err != nil {
		return backup.Point{}, err
	}
	secrets := dgraphlocal.SecretsDir(cfg.DataDir)
	scratch := &backup.Scratch{Binary: cfg.DgraphBin, SecretsDir: secrets, PortFrom: scratchPorts, Log: log}
	defer scratch.Close()
	return backup.Take(ctx, dir, backup.Options{Key: key, Full: full, SecretsDir: secrets, Log: log}, admin, scratch)
}

func readBackupKey(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	return backup.ReadKey(path)
}

func listBackups(f *backup.Folder, stdout io.Writer) {
	const row = "%-4s  %-11s  %-20s  %7s  %9s  %6s  %s\n"
	fmt.Fprintf(stdout, row, "NUM", "TYPE", "TIME", "VERSION", "SIZE", "SECS", "COUNTS")
	for _, p := range f.Manifest.Points {
		version, counts := fmt.Sprint(p.Version), countsLine(p.Counts)
		if !p.IsChecked() {
			version, counts = "-", "not checked yet (polgraph backup verify checks it)"
		}
		fmt.Fprintf(stdout, row, fmt.Sprint(p.Num), p.Type, p.Time.Format("2006-01-02T15:04:05Z"), version, byteSize(p.Bytes()), fmt.Sprintf("%.1f", p.Seconds), counts)
	}
}

// verifyBackup restores backup num into a scratch Dgraph and compares it with the manifest.
func verifyBackup(ctx context.Context, f *backup.Folder, key []byte, num int, cfg Config, log *slog.Logger, stdout io.Writer) error {
	scratch, err := os.MkdirTemp("", "polgraph-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	r, err := backup.Restore(ctx, f, backup.RestoreOptions{Num: num, Binary: cfg.DgraphBin, DataDir: filepath.Join(scratch, "dgraph"),
		PortOffset: scratchPorts, Scratch: true, Log: log})
	if err != nil {
		return err
	}
	if r.Unchecked {
		// Not checked since it was taken: what verify found is now its check.
		if _, ok, err := backup.Record(ctx, f.Dir, key, r.Point, r); err != nil {
			return err
		} else if ok {
			fmt.Fprintf(stdout, "backup %d checked: restored in %.1fs, graph version %d, %s, whole-graph export of %d lines recorded in the manifest\n",
				r.Point.Num, r.Seconds, r.Version, countsLine(r.Counts), r.Fingerprint.Lines)
			return nil
		}
	}
	fmt.Fprintf(stdout, "backup %d verified: restored in %.1fs, graph version %d, %s, whole-graph export identical (%d lines)\n",
		r.Point.Num, r.Seconds, r.Version, countsLine(r.Counts), r.Fingerprint.Lines)
	return nil
}

// restoreCmd is `polgraph restore`.
func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	cfg.DataDir = ""
	fs := cfg.flags("restore", stderr, "data-dir", "local", "log")
	fs.Usage = func() {
		fmt.Fprint(stderr, backupUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	keyFile := fs.String("key-file", os.Getenv("POLGRAPH_BACKUP_KEY_FILE"), "the 32-byte key the backups were encrypted with ($POLGRAPH_BACKUP_KEY_FILE)")
	num := fs.Int("backup", 0, "the backup to restore to (its number in `polgraph backup list`); 0 for the latest")
	alphas := fs.Int("alphas", 1, "restore into a cluster of this many alphas, as `polgraph cluster --alphas` runs (its ports, offset 1400, unless --dgraph-port-offset says)")
	groupSize := fs.Int("replicas", 0, "how many alphas hold each group, as `polgraph cluster --replicas` (default: all of them, one replicated group)")
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 || *alphas < 1 || *alphas > 7 || *groupSize < 0 || *groupSize > *alphas {
		fs.Usage()
		return errUsage
	}
	offsetGiven := os.Getenv("POLGRAPH_DGRAPH_PORT_OFFSET") != ""
	fs.Visit(func(f *flag.Flag) { offsetGiven = offsetGiven || f.Name == "dgraph-port-offset" })
	if *alphas > 1 && !offsetGiven {
		cfg.PortOffset = clusterPortOffset
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	key, err := readBackupKey(*keyFile)
	if err != nil {
		return err
	}
	f, err := backup.Open(fs.Arg(0), key, false)
	if err != nil {
		return err
	}
	r, err := backup.Restore(ctx, f, backup.RestoreOptions{Num: *num, Binary: cfg.DgraphBin, DataDir: cfg.DataDir, PortOffset: cfg.PortOffset, Log: log,
		Alphas: *alphas, Replicas: *groupSize})
	if err != nil {
		return err
	}
	into := cfg.DataDir
	if *alphas > 1 {
		into = fmt.Sprintf("%s (%d alphas)", into, *alphas)
	}
	compared := "identical to the manifest"
	if r.Unchecked {
		compared = "not compared: the backup had not been checked yet (its files match the manifest)"
	}
	fmt.Fprintf(stdout, "restored backup %d (%s) into %s in %.1fs: graph version %d, %s, %s; new graph id %s\n",
		r.Point.Num, r.Point.Time.Format("2006-01-02T15:04:05Z"), into, r.Seconds, r.Version, countsLine(r.Counts), compared, r.GraphID)
	return nil
}

// countsLine shows the counts a user cares about first.
func countsLine(c map[string]int) string {
	var parts []string
	for _, k := range []string{"Entity", "Relation", "Claim", "Source", "Change", "Key", "ReviewProposal"} {
		parts = append(parts, fmt.Sprintf("%d %s", c[k], strings.ToLower(k)))
	}
	return strings.Join(parts, ", ")
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
