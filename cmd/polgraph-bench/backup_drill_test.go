package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/synth"
)

// timedDgraph times Dgraph's part of a backup.
type timedDgraph struct {
	backup.Dgraph
	took time.Duration
}

func (d *timedDgraph) Backup(ctx context.Context, dest string, full bool) error {
	start := time.Now()
	err := d.Dgraph.Backup(ctx, dest, full)
	d.took = time.Since(start)
	return err
}

// progressWriter counts what a dump writes and logs its pace every half minute.
type progressWriter struct {
	t     *testing.T
	n     int64
	lines int
	start time.Time
	last  time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	for _, c := range b {
		if c == '\n' {
			p.lines++
		}
	}
	if time.Since(p.last) > 30*time.Second {
		p.last = time.Now()
		p.t.Logf("  dump: %d nodes, %s in %.0fs", p.lines, byteSize(p.n), time.Since(p.start).Seconds())
	}
	return len(b), nil
}

func byteSize(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// TestBackupDrillAtScale is the backup drill on a synthetic graph of POLGRAPH_DRILL_BACKUP_RELATIONS
// relations (`make drill-backup-1m`: 1M), opt-in: the graph is generated and bulk-loaded into a Dgraph
// closed as `polgraph run` starts it; then, each timed and logged as it ends: Dgraph's binary backup alone,
// Dgraph's restore of it alone, a whole-graph dump (what every check and restore compares), polgraph's
// full backup, a write and an incremental backup (the recovery point at one backup a minute), the data
// folder wiped and the latest backup restored by polgraph, and Dgraph started on it with the graph filled
// in memory (the recovery time).
func TestBackupDrillAtScale(t *testing.T) {
	v := os.Getenv("POLGRAPH_DRILL_BACKUP_RELATIONS")
	if v == "" || testing.Short() {
		t.Skip("opt-in: set POLGRAPH_DRILL_BACKUP_RELATIONS (make drill-backup-1m)")
	}
	relations, err := parseSize(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	root := t.TempDir()
	if d := os.Getenv("POLGRAPH_DRILL_DIR"); d != "" {
		root = d
	}
	bin := dgraphlocal.DefaultBinary()
	phase := func(name string, start time.Time) time.Duration {
		d := time.Since(start)
		t.Logf("%-44s %7.1fs", name, d.Seconds())
		return d
	}

	// The graph, bulk-loaded, then served by a closed Dgraph on the same zero and ports.
	start := time.Now()
	stats, _, err := writeGraph(synth.Config{Relations: relations, Seed: 1}, filepath.Join(root, "graph.jsonl"), filepath.Join(root, "generated.rdf"))
	if err != nil {
		t.Fatal(err)
	}
	open := opener(filepath.Join(root, "graph.jsonl"))
	checked, err := dataset.CheckOpened(open)
	if err != nil {
		t.Fatal(err)
	}
	rdf := filepath.Join(root, "polgraph.rdf")
	if _, err := writeNQuadsFile(checked, open, rdf, ""); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "generated.rdf"))
	data := filepath.Join(root, "data")
	node, err := bulkLoad(ctx, config{DgraphBin: bin}, &sizeResult{}, data, rdf, log)
	if err != nil {
		t.Fatal(err)
	}
	node.stop()
	os.RemoveAll(filepath.Join(data, "bulk"))
	os.RemoveAll(filepath.Join(data, "bulk-tmp"))
	cfg := dgraphlocal.Config{Binary: bin, DataDir: data, PortOffset: node.cfg.PortOffset, Logger: log}
	c, err := dgraphlocal.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Stop() }()
	store, err := dgraph.Open(ctx, c.Service(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	counts, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("graph: %d entities, %d relations, %d claims, %d sources (generated %d relations)", counts.Entities, counts.Relations, counts.Claims, counts.Sources, stats.Relations)
	phase("generated and bulk-loaded", start)
	secrets := dgraphlocal.SecretsDir(data)

	// Dgraph's backup and restore alone, without polgraph's check.
	raw := filepath.Join(root, "raw")
	start = time.Now()
	if err := c.Administrator().Backup(ctx, raw, true); err != nil {
		t.Fatal(err)
	}
	phase("Dgraph's full backup alone", start)
	series := rawSeries(t, raw)
	scratch := filepath.Join(root, "scratch")
	os.MkdirAll(dgraphlocal.SecretsDir(scratch), 0o700)
	copyDir(t, secrets, dgraphlocal.SecretsDir(scratch))
	start = time.Now()
	sc, _, err := dgraphlocal.StartOnFreePorts(ctx, dgraphlocal.Config{Binary: bin, DataDir: scratch, Logger: log}, 16000)
	if err != nil {
		t.Fatal(err)
	}
	started := phase("a scratch Dgraph started", start)
	start = time.Now()
	if err := sc.Administrator().Restore(ctx, raw, series, 1); err != nil {
		t.Fatal(err)
	}
	phase("Dgraph's restore alone", start)
	sc.Stop()
	os.RemoveAll(scratch)
	os.RemoveAll(raw)

	// The whole-graph dump that every check and restore compares with the manifest.
	start = time.Now()
	pw := &progressWriter{t: t, start: start, last: start}
	sum, err := store.Dump(ctx, pw)
	if err != nil {
		t.Fatal(err)
	}
	dumped := phase(fmt.Sprintf("whole-graph dump (%d nodes, %s)", pw.lines, byteSize(pw.n)), start)
	_ = sum

	// polgraph's backups: full, then incremental after a write.
	backups := filepath.Join(root, "backups")
	dg := &timedDgraph{Dgraph: c.Administrator()}
	check := &backup.Scratch{Binary: bin, SecretsDir: secrets, PortFrom: 16000, Log: log}
	defer check.Close()
	start = time.Now()
	full, err := backup.Take(ctx, backups, backup.Options{SecretsDir: secrets, Log: log}, dg, check)
	if err != nil {
		t.Fatal(err)
	}
	phase(fmt.Sprintf("polgraph's full backup (%s; Dgraph's part %.1fs)", byteSize(full.Bytes()), dg.took.Seconds()), start)
	if err := store.UpsertEntities(ctx, []graph.Entity{{Name: "actors/backup-drill-at-scale", Kind: graph.KindActor, DisplayName: "Backup Drill"}}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	incr, err := backup.Take(ctx, backups, backup.Options{SecretsDir: secrets, Log: log}, dg, check)
	if err != nil {
		t.Fatal(err)
	}
	incremental := phase(fmt.Sprintf("polgraph's incremental backup (%s; Dgraph's part %.1fs)", byteSize(incr.Bytes()), dg.took.Seconds()), start)
	check.Close()

	// The disk dies; the latest backup is restored into a new folder on the same ports and served.
	wiped := time.Now()
	c.Stop()
	store.Close()
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	f, err := backup.Open(backups, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	r, err := backup.Restore(ctx, f, backup.RestoreOptions{Binary: bin, DataDir: data, PortOffset: cfg.PortOffset, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	restored := phase("polgraph restore (checked against the manifest)", start)
	start = time.Now()
	if c, err = dgraphlocal.Start(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if store, err = dgraph.Open(ctx, c.Service(), log); err != nil {
		t.Fatal(err)
	}
	if err := memgraph.NewTopology(store).Sync(ctx); err != nil {
		t.Fatal(err)
	}
	phase("Dgraph started and the graph filled in memory", start)
	recovery := time.Since(wiped)
	if _, err := store.GetEntity(ctx, "actors/backup-drill-at-scale"); err != nil {
		t.Errorf("the write before the incremental backup is missing: %v", err)
	}
	t.Logf("restored %s: %v", countsOf(r.Counts), r.DumpSHA == incr.DumpSHA)
	t.Logf("recovery point at one backup a minute: at most 60s + %.0fs (one incremental backup); recovery time %.0fs (restore %.0fs, of which the dump %.0fs and a Dgraph start %.0fs)",
		incremental.Seconds(), recovery.Seconds(), restored.Seconds(), dumped.Seconds(), started.Seconds())
}

// rawSeries is the backup id of the only series in Dgraph's backup folder dir.
func rawSeries(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Manifests []struct {
			BackupID string `json:"backup_id"`
		}
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Manifests) == 0 {
		t.Fatalf("Dgraph's manifest.json: %v", err)
	}
	return m.Manifests[0].BackupID
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(filepath.Join(to, e.Name()), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(out, in)
		in.Close()
		out.Close()
	}
}

func countsOf(c map[string]int) string {
	return strconv.Itoa(c["Entity"]) + " entities, " + strconv.Itoa(c["Relation"]) + " relations, " + strconv.Itoa(c["Claim"]) + " claims"
}
