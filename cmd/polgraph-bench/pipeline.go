package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/bulkpath"
	"github.com/polgraph/polgraph/internal/snapfile"
	"github.com/polgraph/polgraph/internal/synth"
)

// sizeResult is what one graph size measured.
type sizeResult struct {
	Label     string
	Relations int

	Gen struct {
		Stats              synth.Stats
		Elapsed            time.Duration
		JSONBytes, RDFSize int64
		Quads              int64
	}
	Load polgraphLoadResult
	Live liveResult
	Bulk struct { // polgraph's bulk path, when its loader ran out of time: `polgraph load --nquads`, then dgraph bulk
		Convert time.Duration // `polgraph load --nquads`: checking the dataset file, then writing it as N-Quads
		Quads   int64         // those N-Quads
		// SnapshotBytes is the size of the snapshot file written with them (--snapshot-file), which the
		// first topology started on the bulk-loaded Dgraph reads back.
		SnapshotBytes int64
		Elapsed       time.Duration // dgraph bulk
		LoaderPeak    int64
	}
	Topology struct { // polgraph's in-memory topology
		Fill      time.Duration
		Memory    int64 // growth of this process's resident memory
		Relations int
		// Packed and Unpacked count the sources, entities and relations the fill read from their packs and
		// from their predicates; AlphaCPU and CPU are the CPU time the alpha and this process spent on it.
		Packed, Unpacked int64
		AlphaCPU, CPU    time.Duration
		// The fill also wrote the graph's snapshot file (internal/snapfile), of FileBytes; Restart is how long a
		// second topology took to fill from that file (and the store's catch-up since), as a restarted
		// polgraph does.
		FileBytes int64
		Restart   time.Duration
		// FromBulk is set when that second topology read back the bulk path's snapshot file instead, as
		// the first polgraph started on the bulk-loaded Dgraph does.
		FromBulk bool
		// Share is what the first of those that kept a file shared with Dgraph (internal/snapfile.Shared),
		// in the background; Replica how long a third topology with no file of its own, as a new
		// replica's, took to fetch that copy (Fetch), read it back and catch up, the alpha spending
		// ReplicaAlphaCPU.
		Share           snapfile.Share
		Replica, Fetch  time.Duration
		ReplicaAlphaCPU time.Duration
		// The alpha's memory along the way: resident (and of it anonymous, not pages of files it maps)
		// after the fill from Dgraph and after the share; its peak while the new replica fetched the copy.
		AlphaAfterFill, AlphaAfterShare alphaMem
		AlphaReplicaPeak                int64
	}
	Postgres    pgLoad // the PostgreSQL peer's load, when it ran
	Equivalence string // how the two loads compare
	Distances   map[int]int
	Query       struct {
		AlphaPeak, HarnessPeak int64
		AlphaPeakHow           string
		AlphaBeforeRestart     alphaMem      // the alpha's memory after the load, the fills and the share
		AlphaAtStart           int64         // the alpha's resident memory when the queries began
		Settle                 time.Duration // how long the alpha took to go quiet before them
		Settled                bool          // false when it was still busy when the wait ended
	}
	Results []result
}

// runSize generates, loads and measures one graph size.
func runSize(ctx context.Context, cfg config, label string, n int, log *slog.Logger, progress io.Writer) (*sizeResult, error) {
	res := &sizeResult{Label: label, Relations: n}
	dir, err := os.MkdirTemp(cfg.WorkDir, "polgraph-bench-"+label+"-")
	if err != nil {
		return nil, err
	}
	if cfg.Keep {
		fmt.Fprintf(progress, "files and data in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	step := func(format string, args ...any) {
		fmt.Fprintf(progress, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}

	// The graph, as a dataset file and as N-Quads.
	jsonPath, rdfPath := filepath.Join(dir, "graph.jsonl"), filepath.Join(dir, "graph.rdf")
	start := time.Now()
	stats, quads, err := writeGraph(synth.Config{Relations: n, Seed: cfg.Seed}, jsonPath, rdfPath)
	if err != nil {
		return nil, err
	}
	res.Gen.Stats, res.Gen.Elapsed, res.Gen.Quads = stats, time.Since(start), quads
	res.Gen.JSONBytes, res.Gen.RDFSize = fileSize(jsonPath), fileSize(rdfPath)
	step("generated %d relations, %d entities, %d claims in %s", stats.Relations, stats.Entities, stats.Claims, res.Gen.Elapsed.Round(time.Millisecond))

	// dgraph live into a Dgraph of its own; then a sample of what it holds, to compare with polgraph's load.
	sample := sampleEntities(stats, n)
	sampleNames, err := entityNames(jsonPath, sample)
	if err != nil {
		return nil, err
	}
	liveSample, err := liveLoadAndSample(ctx, cfg, res, dir, rdfPath, sampleNames, log)
	if err != nil {
		return nil, err
	}
	step("dgraph live: %s", res.Live.describe(res.Gen.Quads))

	// polgraph's loader into a fresh Dgraph, which then serves the queries, unless it ran out of time: then
	// `dgraph bulk` fills a fresh Dgraph with the same graph for the queries.
	node, err := startDgraph(ctx, cfg.DgraphBin, filepath.Join(dir, "dgraph"), log)
	if err != nil {
		return nil, err
	}
	defer func() { node.stop() }()
	store, err := dgraph.Open(ctx, node.cluster.Service(), log)
	if err != nil {
		return nil, err
	}
	defer func() { store.Close() }()
	if err := store.ApplySchema(ctx); err != nil {
		return nil, err
	}
	runtime.GC()
	resetPeak(0)
	open := opener(jsonPath)
	start = time.Now()
	checked, err := dataset.CheckOpened(open)
	if err != nil {
		return nil, err
	}
	res.Load.Read = time.Since(start)
	written, err := polgraphLoad(ctx, cfg, res, store, checked, open)
	if err != nil {
		return nil, err
	}
	res.Load.HarnessPeak, res.Load.AlphaPeak = peakRSS(0), peakRSS(node.alphaPID())
	// When the load ran out of time, the queries run on a Dgraph filled by polgraph's bulk path instead:
	// the dataset checked and written as N-Quads as `polgraph load --nquads` does (with the graph's
	// snapshot file), then `dgraph bulk`. The check is the load's, measured above (Load.Read), and counted
	// in the bulk path's time. It runs before the harness reads the dataset whole: as a command of its
	// own, it would not share a process with the harness's gigabytes.
	bulkRDF, bulkSnapshot := filepath.Join(dir, "polgraph.rdf"), filepath.Join(dir, "bulk.snapshot")
	if !res.Load.Complete {
		runtime.GC()
		start = time.Now()
		if res.Bulk.Quads, err = writeNQuadsFile(checked, open, bulkRDF, bulkSnapshot); err != nil {
			return nil, err
		}
		res.Bulk.Convert = res.Load.Read + time.Since(start)
		res.Bulk.SnapshotBytes = fileSize(bulkSnapshot)
		if res.Bulk.Quads != res.Gen.Quads {
			return nil, fmt.Errorf("polgraph's N-Quads of the dataset are %d, the generated file's %d: they must stand for the same graph", res.Bulk.Quads, res.Gen.Quads)
		}
	}
	// The harness reads the dataset whole, after the load, for what it needs of it: the quads written,
	// the floor, the inputs, the PostgreSQL peer's tables.
	files, closeFiles, err := open()
	if err != nil {
		return nil, err
	}
	ds, err := dataset.Read(files)
	closeFiles()
	if err != nil {
		return nil, err
	}
	countWritten(res, ds, written)
	step("polgraph load: checked in %s, then %s", res.Load.Read.Round(time.Millisecond), res.Load.describe())
	if res.Bulk.Convert > 0 {
		step("polgraph load --nquads --snapshot-file: %d quads and a snapshot file of %s in %s", res.Bulk.Quads, mb(res.Bulk.SnapshotBytes), res.Bulk.Convert.Round(time.Millisecond))
	}
	if cfg.LoadOnly {
		return res, nil
	}

	// The floor, the query inputs, and the answers every system is judged by; the PostgreSQL peer's
	// tables; then the dataset can go.
	counted, all := buildGraphs(ds.Entities, ds.Relations)
	in := chooseInputs(counted, ds.Entities, cfg.Seed, cfg.Pairs)
	res.Distances = in.distances
	var pg *pgServer
	if cfg.Postgres {
		if pg, err = startPostgres(ctx, dir); err != nil {
			return nil, fmt.Errorf("the PostgreSQL peer: %w", err)
		}
		defer pg.stop()
		if res.Postgres, err = pg.load(ctx, all, ds.Entities, ds.Relations); err != nil {
			return nil, err
		}
		step("PostgreSQL %s: %d arcs copied in %s, indexed in %s", res.Postgres.Version, res.Postgres.Arcs, res.Postgres.Copy.Round(time.Millisecond), res.Postgres.Indexes.Round(time.Millisecond))
	}
	ds = nil
	runtime.GC()
	debug.FreeOSMemory()
	ans := floorAnswers(counted, all, in)
	step("chose %d pairs (by distance: %v), %d centres, %d search texts", len(in.pairs), in.distances, len(in.centers), len(in.searches))
	if !res.Load.Complete {
		store.Close()
		if err := node.stop(); err != nil {
			log.Warn("stopping Dgraph", "err", err)
		}
		os.RemoveAll(filepath.Join(dir, "dgraph"))
		if node, err = bulkLoad(ctx, cfg, res, filepath.Join(dir, "bulk-dgraph"), bulkRDF, log); err != nil {
			return nil, err
		}
		step("dgraph bulk: %d quads in %s; the queries run on this Dgraph", res.Gen.Quads, res.Bulk.Elapsed.Round(time.Millisecond))
		if store, err = dgraph.Open(ctx, node.cluster.Service(), log); err != nil {
			return nil, err
		}
	}
	step("the alpha that serves the queries has %s resident", mb(residentMemory(node.alphaPID())))
	res.Equivalence, err = compareLoads(ctx, store, res, liveSample, sampleNames)
	if err != nil {
		return nil, err
	}
	step("the graph queried is %s", res.Equivalence)

	// polgraph's gRPC service, in-process, on the Dgraph its loader filled: reading links from Dgraph level
	// by level, and (as `polgraph serve` does by default) from the graph's topology held in memory.
	raw, err := dialRaw(node.cfg.AlphaAddr())
	if err != nil {
		return nil, err
	}
	defer raw.close()
	uids, err := raw.uids(ctx, in.names(counted))
	if err != nil {
		return nil, err
	}
	services := []namedClient{{system: sysPolgraph}}
	if cfg.Topology {
		// What the topology holds, not what the fill's garbage left the heap at: memory freed is returned
		// to the system before each reading.
		debug.FreeOSMemory()
		before := residentMemory(0)
		// The fill keeps a snapshot file, as `polgraph run` does, unless the bulk path wrote one: then the
		// second topology reads that one back instead.
		snapshot := filepath.Join(dir, "graph.snapshot")
		var feed graph.ChangeFeed = store
		var kept *snapfile.Feed
		if res.Load.Complete {
			kept = snapfile.New(store, snapshot, log)
			defer kept.Close()
			feed = kept
		}
		topo := memgraph.NewTopology(feed)
		packed, unpacked := store.Packs()
		alphaCPU, cpu := cpuTime(node.alphaPID()), cpuTime(os.Getpid())
		start = time.Now()
		if err := topo.Sync(ctx); err != nil {
			return nil, fmt.Errorf("filling the in-memory topology: %w", err)
		}
		res.Topology.Fill = time.Since(start)
		if kept != nil {
			kept.Close() // the file whole, for the restart below
		}
		if fi, err := os.Stat(snapshot); err == nil {
			res.Topology.FileBytes = fi.Size()
		}
		res.Topology.AlphaCPU, res.Topology.CPU = cpuTime(node.alphaPID())-alphaCPU, cpuTime(os.Getpid())-cpu
		p, u := store.Packs()
		res.Topology.Packed, res.Topology.Unpacked = p-packed, u-unpacked
		debug.FreeOSMemory()
		res.Topology.Memory = residentMemory(0) - before
		_, res.Topology.Relations, _ = topo.Size()
		res.Topology.AlphaAfterFill = readAlphaMem(node.alphaPID())
		step("in-memory topology: %d relations in %s (about %s); the alpha now has %s", res.Topology.Relations, res.Topology.Fill.Round(time.Millisecond), mb(res.Topology.Memory), res.Topology.AlphaAfterFill)
		// A restart: a second topology read back from the file the fill wrote, or, on a Dgraph the bulk path
		// filled, from the file written with its N-Quads, as the first polgraph started on it does. It
		// serves the queries.
		topo = nil
		debug.FreeOSMemory()
		if res.Bulk.Elapsed > 0 {
			snapshot, res.Topology.FromBulk = bulkSnapshot, true
		}
		restarted := snapfile.New(store, snapshot, log)
		defer restarted.Close()
		topo = memgraph.NewTopology(restarted)
		start = time.Now()
		if err := topo.Sync(ctx); err != nil {
			return nil, fmt.Errorf("filling the in-memory topology from its snapshot file: %w", err)
		}
		res.Topology.Restart = time.Since(start)
		if f := restarted.LastFill(); !f.FromFile {
			return nil, fmt.Errorf("the snapshot file the fill wrote was not read back: %s", f.Why)
		}
		if _, n, _ := topo.Size(); n != res.Topology.Relations {
			return nil, fmt.Errorf("the topology read back from its snapshot file holds %d relations, the one filled from Dgraph %d", n, res.Topology.Relations)
		}
		step("in-memory topology read back from %s in %s", snapshot, res.Topology.Restart.Round(time.Millisecond))
		// The first of those with a file shared it with Dgraph in the background (the fill's, or the one
		// read back when the fill kept none); a new replica with no file reads that copy back. Its topology
		// only shows that it holds the same graph.
		for _, f := range []*snapfile.Feed{kept, restarted} {
			if f == nil {
				continue
			}
			if err := f.WaitShared(); err != nil {
				return nil, fmt.Errorf("sharing the snapshot file with Dgraph: %w", err)
			}
			if sh := f.LastShare(); sh.Bytes > 0 {
				res.Topology.Share = sh
			}
		}
		if res.Topology.Share.Bytes == 0 {
			return nil, errors.New("no snapshot file was shared with Dgraph")
		}
		res.Topology.AlphaAfterShare = readAlphaMem(node.alphaPID())
		step("the snapshot file shared with Dgraph; the alpha now has %s", res.Topology.AlphaAfterShare)
		peakReset := resetPeak(node.alphaPID())
		replicaFile := filepath.Join(dir, "replica.snapshot")
		replica := snapfile.New(store, replicaFile, log)
		replicaTopo := memgraph.NewTopology(replica)
		alphaCPU = cpuTime(node.alphaPID())
		start = time.Now()
		if err := replicaTopo.Sync(ctx); err != nil {
			return nil, fmt.Errorf("filling a new replica's topology from Dgraph's copy: %w", err)
		}
		res.Topology.Replica, res.Topology.ReplicaAlphaCPU = time.Since(start), cpuTime(node.alphaPID())-alphaCPU
		if peakReset {
			res.Topology.AlphaReplicaPeak = peakRSS(node.alphaPID())
		}
		f := replica.LastFill()
		res.Topology.Fetch = f.Fetch
		if !f.FromShared {
			return nil, fmt.Errorf("a new replica did not read Dgraph's copy back: %s", f.SharedWhy)
		}
		if _, n, _ := replicaTopo.Size(); n != res.Topology.Relations {
			return nil, fmt.Errorf("the topology read back from Dgraph's copy holds %d relations, the one filled from Dgraph %d", n, res.Topology.Relations)
		}
		replica.Close()
		os.Remove(replicaFile)
		replicaTopo = nil
		debug.FreeOSMemory()
		step("a new replica's topology read back from Dgraph's copy (%s, shared in %s) in %s, %s of it fetching; the alpha peaked at %s and now has %s",
			mb(res.Topology.Share.Bytes), res.Topology.Share.Took.Round(time.Millisecond), res.Topology.Replica.Round(time.Millisecond), f.Fetch.Round(time.Millisecond),
			mb(res.Topology.AlphaReplicaPeak), readAlphaMem(node.alphaPID()))
		services = append(services, namedClient{system: sysPolgraphMem, topology: topo})
	}
	for i := range services {
		svc := &service.Service{Store: store, Timeout: 2 * cfg.Timeout, Budget: graph.DefaultWorkBudget}
		if t := services[i].topology; t != nil {
			svc.Reads = t.Reads(store)
		}
		client, stop, err := serveInProcess(svc, services[i].topology, cfg.Turns, log)
		if err != nil {
			return nil, err
		}
		defer stop()
		services[i].client = client
	}
	workloads := buildWorkloads(services, raw, pg, counted, all, in, ans, uids)

	// The alpha keeps the memory that loading and the fill made it grow to; restart it, so that its memory
	// in the rows below is what answering costs. Clients reconnect by themselves.
	res.Query.AlphaBeforeRestart = readAlphaMem(node.alphaPID())
	if err := node.restart(ctx); err != nil {
		return nil, fmt.Errorf("restarting Dgraph before the queries: %w", err)
	}
	for i := 0; ; i++ {
		var out any
		err := store.Ping(ctx)
		if err == nil {
			err = raw.query(ctx, `{ q(func: uid(0x1)) { uid } }`, nil, &out)
		}
		if err == nil {
			break
		}
		if i == 120 {
			return nil, fmt.Errorf("Dgraph did not answer after its restart: %w", err)
		}
		time.Sleep(250 * time.Millisecond)
	}

	// A Dgraph just filled keeps compacting for minutes; queries measured meanwhile measure that. Wait
	// (up to cfg.Settle) until the alpha uses under a quarter of a core.
	start = time.Now()
	res.Query.Settled = waitQuiet(ctx, node.alphaPID(), 0.25, startQuietWindow, cfg.Settle)
	res.Query.Settle = time.Since(start)
	res.Query.AlphaAtStart = residentMemory(node.alphaPID())
	step("the alpha went quiet after %s (%v), at %s resident", res.Query.Settle.Round(time.Second), res.Query.Settled, mb(res.Query.AlphaAtStart))

	runtime.GC()
	resetPeak(0)
	alphaPID := node.alphaPID()
	canReset := resetPeak(alphaPID)
	res.Query.AlphaPeakHow = "VmHWM, reset before each measurement, and VmRSS sampled every 100 ms"
	if !canReset {
		res.Query.AlphaPeakHow = "highest VmRSS sampled every 100 ms"
	}
	// polgraph's rows are measured first, raw Dgraph's after, so that the alpha's memory in polgraph's rows
	// is not what raw queries left behind (the alpha keeps what it grew to); the table keeps the
	// workloads' order.
	var order []int
	for _, raw := range []bool{false, true} {
		for i, w := range workloads {
			if (w.system != sysPolgraph && w.system != sysPolgraphMem) == raw { // peers after polgraph
				order = append(order, i)
			}
		}
	}
	results := make([][]result, len(workloads))
	rowsMeasured := 0
	for _, i := range order {
		w := workloads[i]
		warmUp(ctx, w, min(cfg.Duration, time.Second), cfg.Timeout)
		// A row must not measure what the row before it left behind: Dgraph keeps working on queries whose
		// client gave up at the deadline (a 64-client row that reads Dgraph leaves seconds of it), and the
		// next row's p99 was that work. Wait, briefly, until the alpha is quiet again.
		settle := func() (time.Duration, bool) {
			if rowsMeasured++; rowsMeasured == 1 || cfg.RowSettle <= 0 {
				return 0, false
			}
			start := time.Now()
			busy := !waitQuiet(ctx, alphaPID, 0.25, rowQuietWindow, cfg.RowSettle)
			return time.Since(start), busy
		}
		finish := func(r result) {
			res.Query.AlphaPeak = max(res.Query.AlphaPeak, r.AlphaPeak)
			results[i] = append(results[i], r)
			step("%-28s %-26s c=%d  n=%-5d p50=%-9s p99=%-9s %7.1f/s  alpha %s  cores %s  collections %d  errors: %s%s", r.Family, r.System, r.Conc, r.N,
				ms(r.P50), ms(r.P99), r.Throughput, mb(r.AlphaPeak), r.Cores, r.Collections, r.ErrorText(), wrongText(r))
		}
		if interleaved(w, cfg) {
			// The concurrencies take turns, slice by slice, so that a change in the machine's pace falls on
			// each alike and their ratios compare the same stretch of time (sliceOrder).
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			wait, busy := settle()
			rows := make([]*rowRun, len(cfg.Conc))
			for k, c := range cfg.Conc {
				rows[k] = newRowRun(w, c, alphaPID, canReset)
			}
			for _, row := range sliceOrder(rows, cfg.Slices) {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				row.slice(ctx, cfg.Duration/time.Duration(cfg.Slices), cfg.Timeout)
			}
			for k, row := range rows {
				r := row.result()
				if k == 0 {
					r.Settle, r.Busy = wait, busy
				}
				finish(r)
			}
			continue
		}
		for _, c := range cfg.Conc {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if rs := results[i]; len(rs) > 0 && rs[len(rs)-1].mostlyTimedOut() {
				prev := rs[len(rs)-1]
				after := cmp.Or(prev.SkippedAfter, prev.Conc)
				results[i] = append(results[i], result{Family: w.family, System: w.system, Conc: c, SkippedAfter: after})
				step("%-28s %-26s c=%d  not measured: most queries timed out at %d clients", w.family, w.system, c, after)
				continue
			}
			wait, busy := settle()
			row := newRowRun(w, c, alphaPID, canReset)
			row.slice(ctx, cfg.Duration, cfg.Timeout)
			r := row.result()
			r.Settle, r.Busy = wait, busy
			finish(r)
		}
	}
	for _, rs := range results {
		res.Results = append(res.Results, rs...)
	}
	res.Query.HarnessPeak = peakRSS(0)
	return res, nil
}

// interleaved reports whether w's concurrencies are measured side by side, in cfg.Slices slices taken in
// turn: polgraph's with the graph in memory, whose ratios the targets judge. The rows that read Dgraph or
// PostgreSQL stay whole: their 64-client slices would each end by waiting out their slowest queries (up to
// the deadline), and Dgraph goes on with queries their clients gave up.
func interleaved(w workload, cfg config) bool { return cfg.Slices > 1 && w.system == sysPolgraphMem }

// sliceOrder is the order in which rows measured side by side take their slices: in turn, fewest
// clients first, then back (1, 8, 64, 64, 8, 1, 1, 8, ...). Mirrored rounds cancel a steady drift in the
// machine's pace exactly, and with 1, 8 and 64 clients a one-client slice never follows a 64-client
// one, whose garbage the first answers of the next slice would otherwise pay for (docs/bench-changes.md,
// item 72).
func sliceOrder[T any](rows []T, slices int) []T {
	var out []T
	for s := range slices {
		for k := range rows {
			if s%2 == 1 {
				k = len(rows) - 1 - k
			}
			out = append(out, rows[k])
		}
	}
	return out
}

// rowRun is one row of the tables being measured: the workload's tally at one concurrency, with the CPU,
// the collections and the alpha's memory of the slices it is measured in.
type rowRun struct {
	t                      *tally
	cores                  *coresMeter
	gcs                    uint64
	alphaPID               int
	canReset, started      bool
	alphaBefore, alphaPeak int64
}

func newRowRun(w workload, conc, alphaPID int, canReset bool) *rowRun {
	return &rowRun{t: newTally(w, conc), cores: &coresMeter{alphaPID: alphaPID}, alphaPID: alphaPID, canReset: canReset}
}

// slice measures the row for about d more.
func (r *rowRun) slice(ctx context.Context, d, timeout time.Duration) {
	if r.canReset {
		resetPeak(r.alphaPID)
	}
	if !r.started {
		r.started, r.alphaBefore = true, residentMemory(r.alphaPID)
	}
	watch := watchRSS(r.alphaPID, 100*time.Millisecond)
	r.cores.resume()
	gcs := gcCycles()
	r.t.run(ctx, d, timeout)
	r.cores.pause()
	r.gcs += gcCycles() - gcs
	peak := watch.Stop()
	if r.canReset {
		peak = max(peak, peakRSS(r.alphaPID))
	}
	r.alphaPeak = max(r.alphaPeak, peak)
}

func (r *rowRun) result() result {
	res := r.t.result()
	res.Cores, res.Collections = r.cores.done(), r.gcs
	res.AlphaPeak, res.AlphaBefore = r.alphaPeak, r.alphaBefore
	return res
}

func wrongText(r result) string {
	if r.Wrong == 0 {
		return ""
	}
	return fmt.Sprintf("  WRONG %d/%d (%s)", r.Wrong, r.Checked, r.WrongExample)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// writeGraph generates a graph into a dataset file and an N-Quads file, as `polgraph gen` does.
func writeGraph(cfg synth.Config, jsonPath, rdfPath string) (synth.Stats, int64, error) {
	jf, err := os.Create(jsonPath)
	if err != nil {
		return synth.Stats{}, 0, err
	}
	defer jf.Close()
	rf, err := os.Create(rdfPath)
	if err != nil {
		return synth.Stats{}, 0, err
	}
	defer rf.Close()
	dw := dataset.NewWriter(jf, fmt.Sprintf("synthetic-%d-seed-%d", cfg.Relations, cfg.Seed), "A synthetic political graph for benchmarks.")
	nq := dgraph.NewNQuadWriter(rf)
	stats, err := synth.Generate(cfg, synth.Sinks{dw, nq})
	if err != nil {
		return stats, 0, err
	}
	if err := errors.Join(dw.Flush(), nq.Flush(), jf.Close(), rf.Close()); err != nil {
		return stats, 0, err
	}
	return stats, nq.Quads(), nil
}

// opener opens the dataset file at path, each time it is called, as one dataset.
func opener(path string) func() ([]dataset.File, func(), error) {
	return func() ([]dataset.File, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return []dataset.File{{Name: path, R: f}}, func() { f.Close() }, nil
	}
}

// writeNQuadsFile converts a dataset file to N-Quads as `polgraph load --nquads` does (dataset.Stream).
// writeNQuadsFile writes the dataset checked already as N-Quads at path, with the graph's snapshot file,
// as `polgraph load --nquads --snapshot-file` does after its check.
func writeNQuadsFile(checked *dataset.Checked, open func() ([]dataset.File, func(), error), path, snapshot string) (int64, error) {
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	written, err := bulkpath.WriteChecked(checked, open, out, snapshot)
	if err = errors.Join(err, out.Close()); err != nil {
		return 0, err
	}
	if written.NoSnapshot != "" {
		return 0, fmt.Errorf("no snapshot file was written with the N-Quads: %s", written.NoSnapshot)
	}
	return written.Quads, nil
}

// sampleEntities picks entities whose links both loads must give alike: the best connected and a spread.
func sampleEntities(stats synth.Stats, n int) []int {
	order := make([]int, len(stats.Degrees))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(stats.Degrees[b], stats.Degrees[a]) })
	picked := slices.Clone(order[:min(5, len(order))])
	for i := 0; i < 45 && len(order) > 0; i++ {
		picked = append(picked, order[(i*7919+n)%len(order)])
	}
	slices.Sort(picked)
	return slices.Compact(picked)
}

// linkSample is what a store says of the sampled entities' links, as comparable text.
type linkSample struct {
	counts graph.GraphCounts
	links  map[graph.EntityName]string
}

func takeSample(ctx context.Context, store *dgraph.Store, names []graph.EntityName) (linkSample, error) {
	s := linkSample{links: map[graph.EntityName]string{}}
	var err error
	if s.counts, err = store.Counts(ctx); err != nil {
		return s, err
	}
	links, err := store.Links(ctx, names)
	if err != nil {
		return s, err
	}
	for _, n := range names {
		ls := links[n]
		lines := make([]string, len(ls))
		for i, l := range ls {
			lines[i] = fmt.Sprintf("%s %s %s %s %v %v", l.Name, l.Type, l.From, l.To, l.Period, l.Support)
		}
		slices.Sort(lines)
		s.links[n] = strings.Join(lines, "\n")
	}
	return s, nil
}

// entityNames maps entity indices (the order Generate writes entities in, which Read keeps) to names,
// from a dataset file.
func entityNames(path string, idx []int) ([]graph.EntityName, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[int]bool{}
	for _, i := range idx {
		want[i] = true
	}
	var out []graph.EntityName
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	i := 0
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"record":"entity"`)) {
			continue
		}
		if want[i] {
			var e struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				return nil, err
			}
			out = append(out, graph.EntityName(e.Name))
		}
		i++
	}
	return out, sc.Err()
}

// liveLoadAndSample loads the N-Quads with dgraph live into a Dgraph of its own and, when the whole file
// went in, samples it; the Dgraph is then stopped and its data removed.
func liveLoadAndSample(ctx context.Context, cfg config, res *sizeResult, dir, rdfPath string, names []graph.EntityName, log *slog.Logger) (*linkSample, error) {
	node, err := startDgraph(ctx, cfg.DgraphBin, filepath.Join(dir, "live-dgraph"), log)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(dir, "live-dgraph"))
	defer node.stop()
	live, err := runLive(ctx, cfg.DgraphBin, node.cfg.AlphaAddr(), rdfPath, dir, cfg.LoadBudget)
	if err != nil {
		return nil, err
	}
	res.Live = live
	res.Live.AlphaPeak = peakRSS(node.alphaPID())
	quads := live.Quads
	if live.Complete {
		quads = res.Gen.Quads
	}
	res.Live.QuadsPS = float64(quads) / live.Elapsed.Seconds()
	res.Live.RelationsPS = float64(res.Relations) * float64(quads) / float64(res.Gen.Quads) / live.Elapsed.Seconds()
	if !live.Complete {
		return nil, nil
	}
	store, err := dgraph.Open(ctx, node.cluster.Service(), log)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	s, err := takeSample(ctx, store, names)
	return &s, err
}

// compareLoads checks the graph the queries run on: its counts against what was generated and, when
// dgraph live loaded the whole file, its sampled links against the live-loaded graph's.
func compareLoads(ctx context.Context, store *dgraph.Store, res *sizeResult, live *linkSample, names []graph.EntityName) (string, error) {
	mine, err := takeSample(ctx, store, names)
	if err != nil {
		return "", err
	}
	st := res.Gen.Stats
	want := graph.GraphCounts{Entities: st.Entities, Relations: st.Relations, Claims: st.Claims, Sources: st.Sources}
	var diffs []string
	if mine.counts != want {
		diffs = append(diffs, fmt.Sprintf("counts %+v, generated %+v", mine.counts, want))
	}
	if live != nil {
		if mine.counts != live.counts {
			diffs = append(diffs, fmt.Sprintf("dgraph live's counts are %+v", live.counts))
		}
		for _, n := range names {
			if mine.links[n] != live.links[n] {
				diffs = append(diffs, "the links of "+string(n)+" differ from dgraph live's")
			}
		}
	}
	if len(diffs) > 0 {
		return "NOT the graph generated: " + strings.Join(diffs[:min(len(diffs), 3)], "; "), nil
	}
	if live == nil {
		return "the graph generated (same counts of entities, relations, claims and sources)", nil
	}
	return fmt.Sprintf("the graph generated (same counts), and dgraph live's load of the N-Quads gives the same links (ends, type, period, support) for %d sampled entities", len(names)), nil
}

// --- query inputs -------------------------------------------------------------------------------------

type pair struct {
	from, to int32
	distance int // hops under the default filter; -1 when more than maxPairDistance
}

const maxPairDistance = 6

type inputs struct {
	pairs     []pair
	centers   []int32
	searches  []search
	distances map[int]int
}

type search struct {
	text   string
	target graph.EntityName
}

func (in inputs) names(g *memGraph) []graph.EntityName {
	var out []graph.EntityName
	for _, p := range in.pairs {
		out = append(out, g.names[p.from], g.names[p.to])
	}
	for _, c := range in.centers {
		out = append(out, g.names[c])
	}
	return out
}

// chooseInputs picks, deterministically from seed, entity pairs at distances 1 to 6 in turn (from a source
// chosen half the time in proportion to its links, so hubs are asked about as people do), neighbourhood
// centres chosen the same way, and search texts: names with one typo.
func chooseInputs(g *memGraph, ents []graph.Entity, seed uint64, n int) inputs {
	r := rand.New(rand.NewPCG(seed, 0xbe7c4))
	in := inputs{distances: map[int]int{}}
	var linked []int32
	for u := range g.names {
		if g.degree(int32(u)) > 0 {
			linked = append(linked, int32(u))
		}
	}
	pickNode := func(i int) int32 {
		if i%2 == 0 && len(g.adj) > 0 {
			return g.adj[r.IntN(len(g.adj))] // an end of a random link: in proportion to degree
		}
		return linked[r.IntN(len(linked))]
	}
	x := newSearcher(g, true)
	for i := 0; i < n; i++ {
		s := pickNode(i)
		want := 1 + i%maxPairDistance
		dist := x.distances(s, maxPairDistance)
		byDist := make([][]int32, maxPairDistance+1)
		for v, d := range dist {
			if d > 0 {
				byDist[d] = append(byDist[d], int32(v))
			}
		}
		d := want
		for d > 0 && len(byDist[d]) == 0 {
			d--
		}
		var t int32
		if d == 0 { // nothing within reach: an unconnected pair
			t, d = linked[r.IntN(len(linked))], -1
			if t == s {
				continue
			}
		} else {
			t = byDist[d][r.IntN(len(byDist[d]))]
		}
		in.pairs = append(in.pairs, pair{from: s, to: t, distance: d})
		in.distances[d]++
		in.centers = append(in.centers, pickNode(i))
	}
	for i := 0; i < n; i++ {
		e := ents[r.IntN(len(ents))]
		in.searches = append(in.searches, search{text: synth.Typo(r, e.DisplayName), target: e.Name})
	}
	return in
}

// answers holds the floor's answers: path lengths under the default filter and over every relation.
type answers struct {
	counted, all map[variant][][]int // by variant, then pair
}

type variant struct{ k, depth int }

var pathVariants = []variant{{1, 4}, {1, 6}, {5, 4}, {5, 6}}

func floorAnswers(counted, all *memGraph, in inputs) answers {
	a := answers{counted: map[variant][][]int{}, all: map[variant][][]int{}}
	xc, xa := newSearcher(counted, true), newSearcher(all, false) // polgraph answers routes; Dgraph's shortest, paths
	for _, v := range pathVariants {
		for _, p := range in.pairs {
			a.counted[v] = append(a.counted[v], xc.kShortest(p.from, p.to, v.k, v.depth))
			a.all[v] = append(a.all[v], xa.kShortest(p.from, p.to, v.k, v.depth))
		}
	}
	return a
}

// --- workloads ----------------------------------------------------------------------------------------

// floorPasses bounds how many times the floor goes over its inputs: it needs no more to be measured,
// and would otherwise keep both cores busy for the whole duration.
const floorPasses = 50

// namedClient is a polgraph service to measure, by the name the report gives it.
type namedClient struct {
	system   string
	client   pb.GraphServiceClient
	topology *memgraph.Topology
}

// serveInProcess serves svc over gRPC on a loopback port, as `polgraph serve` does, and connects to it.
func serveInProcess(svc *service.Service, topo *memgraph.Topology, turns bool, log *slog.Logger) (pb.GraphServiceClient, func(), error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	var opts []grpc.ServerOption
	if turns { // as `polgraph serve` gives them (item 49 of docs/bench-changes.md)
		limiter := rpc.NewLimiter(rpc.DefaultLimits(), log, pb.GraphService_ServiceDesc)
		if topo != nil {
			limiter.BeforeWaiting(rpc.ReadsVersionAhead(topo))
		}
		opts = append(opts, grpc.ChainUnaryInterceptor(limiter.Unary()), grpc.ChainStreamInterceptor(limiter.Stream()))
	}
	srv := grpc.NewServer(opts...)
	pb.RegisterGraphServiceServer(srv, rpc.NewServer(svc, log))
	go srv.Serve(lis)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20)))
	if err != nil {
		srv.Stop()
		return nil, nil, err
	}
	return pb.NewGraphServiceClient(conn), func() { conn.Close(); srv.Stop() }, nil
}

// System names, as the report shows them.
const (
	sysPolgraph    = "polgraph"
	sysPolgraphMem = "polgraph, graph in memory"
	sysShortest    = "Dgraph shortest"
	sysBFS         = "Dgraph client BFS"
	sysRecurse     = "Dgraph @recurse"
	sysFloor       = "in-memory floor"
	sysPostgres    = "PostgreSQL"
)

func pathsFamily(v variant) string { return fmt.Sprintf("FindPaths k=%d depth %d", v.k, v.depth) }

func nbhdFamily(depth int) string {
	return fmt.Sprintf("Neighbourhood depth %d", depth)
}

const searchFamily = "SearchEntities (typo)"

// sameLengths is a check: an answer's path lengths must be the floor's.
func sameLengths(want [][]int, in inputs, g *memGraph) check {
	return func(i int, got outcome) string {
		w := want[i]
		if slices.Equal(w, got.lengths) {
			return ""
		}
		p := in.pairs[i]
		return fmt.Sprintf("%s→%s: lengths %v, floor %v", g.names[p.from], g.names[p.to], got.lengths, w)
	}
}

func buildWorkloads(services []namedClient, raw *rawDgraph, pg *pgServer, counted, all *memGraph, in inputs, ans answers, uids map[graph.EntityName]string) []workload {
	var ws []workload
	floors := sync.Pool{New: func() any { return newSearcher(counted, true) }}
	for _, v := range pathVariants {
		v := v
		for _, s := range services {
			client := s.client
			ws = append(ws, workload{family: pathsFamily(v), system: s.system, n: len(in.pairs),
				check: sameLengths(ans.counted[v], in, counted),
				run: func(ctx context.Context, i int) (outcome, error) {
					p := in.pairs[i]
					resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: string(counted.names[p.from]), To: string(counted.names[p.to]),
						MaxPaths: int32(v.k), MaxDepth: int32(v.depth)})
					if err != nil {
						return outcome{}, err
					}
					var out outcome
					for _, path := range resp.GetPaths() {
						out.lengths = append(out.lengths, len(path.GetHops()))
					}
					return out, nil
				}})
		}
		ws = append(ws, workload{family: pathsFamily(v), system: sysShortest, n: len(in.pairs),
			check: sameLengths(ans.all[v], in, all),
			run: func(ctx context.Context, i int) (outcome, error) {
				p := in.pairs[i]
				l, err := raw.shortest(ctx, uids[counted.names[p.from]], uids[counted.names[p.to]], v.k, v.depth)
				return outcome{lengths: l}, err
			}})
		if v.k == 1 {
			ws = append(ws, workload{family: pathsFamily(v), system: sysBFS, n: len(in.pairs),
				check: sameLengths(ans.counted[v], in, counted),
				run: func(ctx context.Context, i int) (outcome, error) {
					p := in.pairs[i]
					l, err := raw.bfs(ctx, uids[counted.names[p.from]], uids[counted.names[p.to]], v.depth)
					return outcome{lengths: l}, err
				}})
		}
		if pg != nil {
			ws = append(ws, workload{family: pathsFamily(v), system: sysPostgres, n: len(in.pairs),
				check: sameLengths(ans.counted[v], in, counted),
				run: func(ctx context.Context, i int) (outcome, error) {
					p := in.pairs[i]
					l, err := pg.kShortest(ctx, p.from, p.to, v.k, v.depth)
					return outcome{lengths: l}, err
				}})
		}
		ws = append(ws, workload{family: pathsFamily(v), system: sysFloor, n: len(in.pairs), maxOps: floorPasses * len(in.pairs),
			run: func(ctx context.Context, i int) (outcome, error) {
				x := floors.Get().(*searcher)
				defer floors.Put(x)
				p := in.pairs[i]
				return outcome{lengths: x.kShortest(p.from, p.to, v.k, v.depth)}, nil
			}})
	}
	const perNode, maxNodes = 25, 100
	for _, depth := range []int{1, 2} {
		depth := depth
		for _, s := range services {
			client := s.client
			ws = append(ws, workload{family: nbhdFamily(depth), system: s.system, n: len(in.centers),
				run: func(ctx context.Context, i int) (outcome, error) {
					resp, err := client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: string(counted.names[in.centers[i]]),
						Depth: int32(depth), MaxPerNode: perNode, MaxNodes: maxNodes})
					return outcome{nodes: int(resp.GetTotalNodes())}, err
				}})
		}
		ws = append(ws, workload{family: nbhdFamily(depth), system: sysRecurse, n: len(in.centers),
			run: func(ctx context.Context, i int) (outcome, error) {
				nodes, err := raw.recurse(ctx, uids[counted.names[in.centers[i]]], depth, perNode)
				return outcome{nodes: nodes}, err
			}})
		if pg != nil {
			ws = append(ws, workload{family: nbhdFamily(depth), system: sysPostgres, n: len(in.centers),
				run: func(ctx context.Context, i int) (outcome, error) {
					nodes, err := pg.neighbourhood(ctx, in.centers[i], depth, perNode, maxNodes)
					return outcome{nodes: nodes}, err
				}})
		}
		ws = append(ws, workload{family: nbhdFamily(depth), system: sysFloor, n: len(in.centers), maxOps: floorPasses * len(in.centers),
			run: func(ctx context.Context, i int) (outcome, error) {
				x := floors.Get().(*searcher)
				defer floors.Put(x)
				return outcome{nodes: x.neighborhood(in.centers[i], depth, perNode, maxNodes)}, nil
			}})
	}
	for _, sc := range services {
		client := sc.client
		ws = append(ws, workload{family: searchFamily, system: sc.system, n: len(in.searches),
			check: searchFound(in),
			run: func(ctx context.Context, i int) (outcome, error) {
				s := in.searches[i]
				resp, err := client.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: s.text, PageSize: 10})
				if err != nil {
					return outcome{}, err
				}
				for _, r := range resp.GetResults() {
					if r.GetEntity().GetName() == string(s.target) {
						return outcome{nodes: 1}, nil
					}
				}
				return outcome{}, nil
			}})
	}
	if pg != nil {
		ws = append(ws, workload{family: searchFamily, system: sysPostgres, n: len(in.searches), check: searchFound(in),
			run: func(ctx context.Context, i int) (outcome, error) {
				s := in.searches[i]
				names, err := pg.search(ctx, s.text, 10)
				return outcome{nodes: boolInt(slices.Contains(names, string(s.target)))}, err
			}})
	}
	return ws
}

// searchFound is a check: the search's entity is on the first page.
func searchFound(in inputs) check {
	return func(i int, got outcome) string {
		if got.nodes == 1 {
			return ""
		}
		return fmt.Sprintf("%q did not find %s on the first page", in.searches[i].text, in.searches[i].target)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rowQuietWindow is how long the alpha must stay under a quarter of a core before a row is measured;
// startQuietWindow, before a size's first row, after the alpha's restart.
const (
	rowQuietWindow   = 200 * time.Millisecond
	startQuietWindow = 2 * time.Second
)

// waitQuiet waits until the process has used less than cores of CPU over one window, or until limit; it
// reports whether the process went quiet.
func waitQuiet(ctx context.Context, pid int, cores float64, window, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		before := cpuTime(pid)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(window):
		}
		if used := cpuTime(pid) - before; used >= 0 && used.Seconds() < cores*window.Seconds() {
			return true
		}
	}
	return false
}
