package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
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
// closed as `polgraph run` starts it; then, each timed and logged as it ends: a whole-graph dump
// (POLGRAPH_DRILL_DUMP=0 skips it) beside the export fingerprint that replaced it in checks, polgraph's
// full backup with its check, two incremental backups a minute apart under a steady write load, recorded
// as the schedule records them (the recovery point), the data folder wiped, the latest backup restored by
// polgraph and Dgraph started on it with the graph filled in memory (the recovery time), and last that
// backup's check, which the restored graph must match.
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

	// The whole-graph dump that checks compared before the export's fingerprint, side by side with it
	// (POLGRAPH_DRILL_DUMP=0 skips it: 955 s at 1M on a loaded machine).
	var dumped time.Duration
	if os.Getenv("POLGRAPH_DRILL_DUMP") != "0" {
		start = time.Now()
		pw := &progressWriter{t: t, start: start, last: start}
		if _, err := store.Dump(ctx, pw); err != nil {
			t.Fatal(err)
		}
		dumped = phase(fmt.Sprintf("whole-graph dump (%d nodes, %s)", pw.lines, byteSize(pw.n)), start)
	}
	start = time.Now()
	fp, err := backup.FingerprintOf(ctx, c.Administrator(), c.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	fingerprinted := phase(fmt.Sprintf("whole-graph export fingerprint (%d lines)", fp.Lines), start)

	// polgraph's full backup, checked at once, as `polgraph backup` takes it.
	backups := filepath.Join(root, "backups")
	dg := &timedDgraph{Dgraph: c.Administrator()}
	check := &backup.Scratch{Binary: bin, SecretsDir: secrets, PortFrom: 16000, Log: log}
	defer check.Close()
	start = time.Now()
	full, err := backup.Take(ctx, backups, backup.Options{SecretsDir: secrets, Log: log}, dg, check)
	if err != nil {
		t.Fatal(err)
	}
	phase(fmt.Sprintf("polgraph's full backup and check (%s; Dgraph's part %.1fs)", byteSize(full.Bytes()), dg.took.Seconds()), start)

	// A steady write load, one entity after another, while incremental backups are taken a minute apart
	// as the schedule takes them (recorded as Dgraph ends them, checked later).
	type ack struct {
		name graph.EntityName
		at   time.Time
	}
	var mu sync.Mutex
	var acked []ack
	failed := 0
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := graph.EntityName(fmt.Sprintf("actors/backup-drill-at-scale-%d", i))
			err := store.UpsertEntities(ctx, []graph.Entity{{Name: name, Kind: graph.KindActor, DisplayName: "Backup Drill"}})
			mu.Lock()
			if err != nil {
				failed++
			} else {
				acked = append(acked, ack{name, time.Now()})
			}
			mu.Unlock()
		}
	}()
	const every = time.Minute
	var taken []time.Duration
	var last backup.Point
	loadStart := time.Now()
	for n := 1; n <= 2; n++ {
		time.Sleep(time.Until(loadStart.Add(time.Duration(n) * every)))
		start = time.Now()
		if last, err = backup.Take(ctx, backups, backup.Options{SecretsDir: secrets, Log: log, CheckLater: true}, dg, nil); err != nil {
			t.Fatal(err)
		}
		taken = append(taken, phase(fmt.Sprintf("incremental backup %d under writes, recorded (%s)", last.Num, byteSize(last.Bytes())), start))
	}
	// The disk dies a little after the last backup: the writes stop with it.
	time.Sleep(5 * time.Second)
	close(stop)
	<-stopped
	check.Close()

	// The latest backup, not checked yet, is restored into a new folder on the same ports and served.
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
	restored := phase("polgraph restore of the latest backup", start)
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
	lost, lostBefore := 0, 0
	for _, a := range acked {
		if _, err := store.GetEntity(ctx, a.name); err != nil {
			lost++
			if a.at.Before(last.Time) {
				lostBefore++
			}
		}
	}
	if lostBefore > 0 {
		t.Errorf("%d writes acknowledged before the last backup began are lost", lostBefore)
	}

	// Its check, as the schedule runs it beside the backups, then the restored graph compared with it.
	start = time.Now()
	last, _, err = backup.CheckLatest(ctx, backups, nil, check)
	if err != nil {
		t.Fatal(err)
	}
	checkTook := phase("the latest backup's check (its series restored)", start)
	if !r.Unchecked || r.Fingerprint.Sum != last.Fingerprint || !maps.Equal(r.Counts, last.Counts) {
		t.Errorf("the restored graph differs from what the check of its backup recorded: %+v, want %+v", r, last)
	}
	slowest := func(ds []time.Duration) float64 { return slices.Max(ds).Seconds() }
	t.Logf("restored %s, identical to what its check recorded", countsOf(r.Counts))
	t.Logf("recovery point: %d of %d acknowledged writes lost (%d failed), all acknowledged in the %.1fs between the last backup's start and the wipe; incremental backups recorded in at most %.1fs; a check takes %.0fs, beside the backups",
		lost, len(acked), failed, wiped.Sub(last.Time).Seconds(), slowest(taken), checkTook.Seconds())
	t.Logf("recovery time %.0fs (restore %.0fs, of which the export fingerprint about %.0fs; a dump instead: %.0fs)",
		recovery.Seconds(), restored.Seconds(), fingerprinted.Seconds(), dumped.Seconds())
}

// countsOf shows the counts the drill reports.
func countsOf(c map[string]int) string {
	return strconv.Itoa(c["Entity"]) + " entities, " + strconv.Itoa(c["Relation"]) + " relations, " + strconv.Itoa(c["Claim"]) + " claims"
}
