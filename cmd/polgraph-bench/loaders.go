package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/schema"
)

// polgraphLoadResult is a run of polgraph's loader: dataset.CheckFiles, then Checked.Load over
// graph/dgraph.Store.
type polgraphLoadResult struct {
	Read, Write  time.Duration
	Complete     bool // false when the load budget ran out first
	Relations    int  // relations written
	Claims       int
	AlphaPeak    int64
	HarnessPeak  int64
	RelationsPS  float64 // relations written per second of Checked.Load
	ClaimsPS     float64
	Quads        int64   // what was written, counted as the N-Quads that stand for it in dgraph live's file
	QuadsPS      float64 // those quads per second of Checked.Load: the rate to compare with dgraph live's
	EndToEndRate float64 // relations per second of read and write together
}

func (l polgraphLoadResult) describe() string {
	s := fmt.Sprintf("wrote %d relations in %s (%.0f relations/s, %.0f claims/s)", l.Relations, l.Write.Round(time.Millisecond), l.RelationsPS, l.ClaimsPS)
	if !l.Complete {
		s += ", and ran out of its time budget"
	}
	return s
}

// polgraphLoad writes checked files as `polgraph load` does (reading them again as it writes them), for
// at most cfg.LoadBudget. It returns how many records of each stage were written.
func polgraphLoad(ctx context.Context, cfg config, res *sizeResult, store *dgraph.Store, checked *dataset.Checked, open func() ([]dataset.File, func(), error)) (map[string]int, error) {
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.LoadBudget > 0 {
		lctx, cancel = context.WithTimeout(ctx, cfg.LoadBudget)
	}
	defer cancel()
	written := map[string]int{}
	progress := func(stage string, n, _ int) { written[stage] = n }
	start := time.Now()
	// Audited, as `polgraph load` is: each change goes into the trail with the write.
	lctx = graph.WithWriteMeta(lctx, graph.WriteMeta{Principal: "local (bench)", Aliases: []string{"local"}, Method: "load"})
	err := checked.Load(lctx, store, open, dataset.LoadOptions{Batch: cfg.Batch, Progress: progress})
	l := &res.Load
	l.Write = time.Since(start)
	switch {
	case err == nil:
		l.Complete = true
	case ctx.Err() == nil && cfg.LoadBudget > 0 && (lctx.Err() != nil || graph.KindOf(err) == graph.DeadlineExceeded):
		// Out of time: what was written counts. (Dgraph may report the deadline a moment before the
		// budget's own timer fires; nothing else in the load has a deadline.)
	default:
		return nil, err
	}
	return written, nil
}

// countWritten counts what polgraphLoad wrote of ds, and its rates.
func countWritten(res *sizeResult, ds *dataset.Dataset, written map[string]int) {
	l := &res.Load
	done := written["relations"]
	l.Relations = done
	for _, r := range ds.Relations[:done] {
		l.Claims += len(r.Claims)
	}
	// Batches run in parallel, so what was written is not exactly a prefix; its size is.
	q := dgraph.NewNQuadWriter(io.Discard)
	for _, x := range ds.Sources[:written["sources"]] {
		q.WriteSource(x)
	}
	for _, x := range ds.Entities[:written["entities"]] {
		q.WriteEntity(x)
	}
	for _, x := range ds.Relations[:done] {
		q.WriteRelation(x)
	}
	l.Quads = q.Quads()
	l.RelationsPS = float64(done) / l.Write.Seconds()
	l.ClaimsPS = float64(l.Claims) / l.Write.Seconds()
	l.QuadsPS = float64(l.Quads) / l.Write.Seconds()
	l.EndToEndRate = float64(done) / (l.Read + l.Write).Seconds()
}

// liveResult is a run of Dgraph's live loader.
type liveResult struct {
	Elapsed     time.Duration
	Complete    bool  // false when the load budget ran out first
	Quads       int64 // quads loaded when it was stopped (from its progress report), when not complete
	AlphaPeak   int64
	LoaderPeak  int64 // of the dgraph live process
	QuadsPS     float64
	RelationsPS float64 // relations per second, counting a relation's share of the quads
}

func (l liveResult) describe(total int64) string {
	if l.Complete {
		return fmt.Sprintf("%d quads in %s (%.0f quads/s)", total, l.Elapsed.Round(time.Millisecond), l.QuadsPS)
	}
	return fmt.Sprintf("stopped at its time budget after %d of %d quads (%.0f quads/s)", l.Quads, total, l.QuadsPS)
}

// liveProgress matches the live loader's report every 5 s, e.g. "Elapsed: 01m05s Txns: 120 N-Quads:
// 120,000 N-Quads/s: ...".
var liveProgress = regexp.MustCompile(`Elapsed: (\w+) Txns: \d+ N-Quads: ([\d,]+)`)

// runLive loads an N-Quads file with `dgraph live` (the schema first) and waits for it to finish, or
// stops it when budget (if not 0) runs out.
func runLive(ctx context.Context, bin, alpha, rdf, dir string, budget time.Duration) (liveResult, error) {
	schemaFile := filepath.Join(dir, "schema.dql")
	if err := os.WriteFile(schemaFile, []byte(schema.DQL), 0o644); err != nil {
		return liveResult{}, err
	}
	httpAddr, err := freeAddr()
	if err != nil {
		return liveResult{}, err
	}
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if budget > 0 {
		lctx, cancel = context.WithTimeout(ctx, budget)
	}
	defer cancel()
	cmd := exec.CommandContext(lctx, bin, "live", "--files", rdf, "--schema", schemaFile, "--alpha", alpha,
		"--tmp", filepath.Join(dir, "live-tmp"), "--http", httpAddr, "--log_dir", dir)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	res := liveResult{Elapsed: time.Since(start), Complete: err == nil, LoaderPeak: maxRSS(cmd)}
	switch {
	case err == nil:
	case ctx.Err() == nil && lctx.Err() != nil:
		// Stopped: the rate is over its last progress report.
		if m := liveProgress.FindAllSubmatch(out, -1); len(m) > 0 {
			last := m[len(m)-1]
			res.Quads, _ = strconv.ParseInt(strings.ReplaceAll(string(last[2]), ",", ""), 10, 64)
			if d, err := time.ParseDuration(string(last[1])); err == nil && d > 0 {
				res.Elapsed = d
			}
		}
	default:
		return res, fmt.Errorf("dgraph live: %w\n%s", err, tail(string(out), 2000))
	}
	return res, nil
}

func maxRSS(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}

// bulkLoad fills a fresh Dgraph with `dgraph bulk`, for the queries, when polgraph's loader ran out of
// time: a zero and alpha are started so that the bulk loader leases uids and timestamps from the zero;
// then both stop, the bulk loader's postings replace the alpha's, and both start again.
func bulkLoad(ctx context.Context, cfg config, res *sizeResult, dir, rdf string, log *slog.Logger) (*dgraphNode, error) {
	node, err := startDgraph(ctx, cfg.DgraphBin, dir, log)
	if err != nil {
		return nil, err
	}
	schemaFile := filepath.Join(dir, "schema.dql")
	if err := os.WriteFile(schemaFile, []byte(schema.DQL), 0o644); err != nil {
		node.stop()
		return nil, err
	}
	httpAddr, err := freeAddr()
	if err != nil {
		node.stop()
		return nil, err
	}
	out := filepath.Join(dir, "bulk")
	cmd := exec.CommandContext(ctx, cfg.DgraphBin, "bulk", "--files", rdf, "--schema", schemaFile,
		"--zero", "127.0.0.1:"+strconv.Itoa(5080+node.cfg.PortOffset), "--out", out, "--tmp", filepath.Join(dir, "bulk-tmp"),
		"--map_shards", "1", "--reduce_shards", "1", "--mapoutput_mb", "1024", "--http", httpAddr, "--log_dir", dir,
		"--num_go_routines", strconv.Itoa(runtime.NumCPU()))
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	output, err := cmd.CombinedOutput()
	res.Bulk.Elapsed, res.Bulk.LoaderPeak = time.Since(start), maxRSS(cmd)
	if stopErr := node.stop(); stopErr != nil {
		log.Warn("stopping Dgraph", "err", stopErr)
	}
	if err != nil {
		return nil, fmt.Errorf("dgraph bulk: %w\n%s", err, tail(string(output), 2000))
	}
	for _, d := range []string{"p", "w", "t"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(filepath.Join(out, "0", "p"), filepath.Join(dir, "p")); err != nil {
		return nil, err
	}
	c, err := dgraphlocal.Start(ctx, node.cfg)
	if err != nil {
		return nil, err
	}
	node = &dgraphNode{cfg: node.cfg, cluster: c}
	if err := node.waitReady(ctx); err != nil {
		node.stop()
		return nil, err
	}
	return node, nil
}
