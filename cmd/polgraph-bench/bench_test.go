package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/snapfile"
	"github.com/polgraph/polgraph/internal/synth"
)

// TestFloorMatchesOracle checks the floor, which judges every other answer, against the oracle that
// enumerates every route, on random graphs with parallel relations and disputed claims.
func TestFloorMatchesOracle(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 30; seed++ {
		ents, rels := graphtest.RandomGraph(seed, 12, 30)
		counted, _ := buildGraphs(ents, rels)
		x := newSearcher(counted, true)
		r := rand.New(rand.NewPCG(seed, 1))
		for range 20 {
			a, b := r.IntN(len(ents)), r.IntN(len(ents))
			if a == b {
				continue
			}
			q := graph.PathQuery{From: ents[a].Name, To: ents[b].Name, MaxPaths: 1 + r.IntN(8), MaxDepth: 1 + r.IntN(6)}
			var want []int
			for _, p := range graphtest.OraclePaths(ents, rels, q) {
				want = append(want, p.Len())
			}
			got := x.kShortest(int32(a), int32(b), q.MaxPaths, q.MaxDepth)
			if !slices.Equal(want, got) {
				t.Fatalf("graph %d, %s→%s, k=%d, depth %d: floor lengths %v, oracle %v", seed, q.From, q.To, q.MaxPaths, q.MaxDepth, got, want)
			}
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{{"10k", 10_000, true}, {"1m", 1_000_000, true}, {"1500", 1500, true}, {"100K", 100_000, true}, {"x", 0, false}, {"-1", 0, false}} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestBulkLoad checks polgraph's bulk path, the way the queries get their graph when polgraph's loader
// runs out of time: the dataset as N-Quads, then `dgraph bulk`.
func TestBulkLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Dgraph")
	}
	if _, err := os.Stat(dgraphlocal.DefaultBinary()); err != nil {
		t.Skip("no dgraph binary; run make dgraph")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	stats, genQuads, err := writeGraph(synth.Config{Relations: 800, Seed: 3}, filepath.Join(dir, "graph.jsonl"), filepath.Join(dir, "generated.rdf"))
	if err != nil {
		t.Fatal(err)
	}
	// polgraph's bulk path: the dataset checked and written as N-Quads, as `polgraph load --nquads` does.
	rdf, snapshot := filepath.Join(dir, "polgraph.rdf"), filepath.Join(dir, "bulk.snapshot")
	open := opener(filepath.Join(dir, "graph.jsonl"))
	checked, err := dataset.CheckOpened(open)
	if err != nil {
		t.Fatal(err)
	}
	quads, err := writeNQuadsFile(checked, open, rdf, snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if quads != genQuads {
		t.Errorf("polgraph wrote %d N-Quads for the dataset; the generator wrote %d", quads, genQuads)
	}
	log := slog.New(slog.DiscardHandler)
	res := &sizeResult{}
	node, err := bulkLoad(ctx, config{DgraphBin: dgraphlocal.DefaultBinary()}, res, filepath.Join(dir, "dgraph"), rdf, log)
	if err != nil {
		t.Fatal(err)
	}
	defer node.stop()
	store, err := dgraph.Open(ctx, node.cluster.Service(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	got, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := graph.GraphCounts{Entities: stats.Entities, Relations: stats.Relations, Claims: stats.Claims, Sources: stats.Sources}
	if got != want {
		t.Errorf("after dgraph bulk the graph holds %+v; generated %+v", got, want)
	}
	// The first topology on it reads the snapshot file written with the N-Quads back, and holds what one
	// filled from Dgraph holds.
	fromDgraph := memgraph.NewTopology(store)
	if err := fromDgraph.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	feed := snapfile.New(store, snapshot, log)
	defer feed.Close()
	fromFile := memgraph.NewTopology(feed)
	if err := fromFile.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f := feed.LastFill(); !f.FromFile || f.Version != 1 {
		t.Fatalf("the bulk path's snapshot file was not read back: %+v", f)
	}
	e1, r1, _ := fromDgraph.Size()
	e2, r2, _ := fromFile.Size()
	if e1 != e2 || r1 != r2 || r2 != stats.Relations {
		t.Errorf("from the snapshot file %d entities and %d relations, from Dgraph %d and %d; generated %d relations", e2, r2, e1, r1, stats.Relations)
	}
}

// TestSmoke runs the whole benchmark on a tiny graph against real Dgraph instances: generation, both
// loads and their comparison, every workload, the report and the chart.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Dgraph")
	}
	if _, err := os.Stat(dgraphlocal.DefaultBinary()); err != nil {
		t.Skip("no dgraph binary; run make dgraph")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	out, svg, tablesOut := filepath.Join(dir, "BENCHMARKS.md"), filepath.Join(dir, "docs", "bench.svg"), filepath.Join(dir, "docs", "bench")
	var stdout, stderr bytes.Buffer
	_, noPG := postgresBin()
	if noPG != nil && os.Getenv("POLGRAPH_REQUIRE_TOOLS") != "" {
		t.Fatal(noPG)
	}
	err := run(ctx, []string{"--sizes", "1500", "--settle", "5s", "--duration", "50ms", "--pairs", "6", "--concurrency", "1,2",
		"--work-dir", dir, "--out", out, "--svg", svg, "--tables", tablesOut, "--postgres=" + strconv.FormatBool(noPG == nil)}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(md) {
		t.Error("the report printed differs from the one written")
	}
	// The report links the rows and the bench changelog, and holds neither.
	for _, want := range []string{"[docs/bench/queries-1500.tsv](docs/bench/queries-1500.tsv)", "[docs/bench-changes.md](docs/bench-changes.md)",
		"### 1500 relations", "| query | polgraph | polgraph, graph in memory |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the report does not hold %s", want)
		}
	}
	if strings.Contains(string(md), "## Queries on ") || strings.Contains(string(md), "## What the measurements changed") {
		t.Error("the report holds the query tables or the changelog")
	}
	report, err := joinTables(string(md), out, tablesOut, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if again, _, err := splitTables(report, out, tablesOut); err != nil || again != string(md) {
		t.Errorf("the report split again differs from the one written (%v)", err)
	}
	for _, want := range []string{"## Loading", "| 1500 |", "## Queries on 1500 relations", "the graph generated (same counts), and dgraph live's load",
		"| FindPaths k=5 depth 6 | polgraph |", "| FindPaths k=1 depth 4 | Dgraph client BFS |", "| FindPaths k=1 depth 4 | Dgraph shortest |",
		"| Neighbourhood depth 2 | Dgraph @recurse |", "| SearchEntities (typo) | polgraph |", "in-memory floor", sysPolgraphMem, "ran side by side: their 1 and 2 clients took turns, 4 slices of 12.5 ms, in turn and back (1, 2, 2, 1, …",
		"it was then restarted on the same data", "anonymous) after the fill from Dgraph and", "while the replica fetched the copy",
		"## Against the targets", "| the rows at 1M |  | the run had no 1M size | not measured |"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if noPG == nil {
		for _, want := range []string{"| FindPaths k=5 depth 6 | PostgreSQL |", "| Neighbourhood depth 2 | PostgreSQL |", "| SearchEntities (typo) | PostgreSQL |", "arcs (each relation both ways) by COPY"} {
			if !strings.Contains(report, want) {
				t.Errorf("the report lacks %q:\n%s", want, report)
			}
		}
	}
	// polgraph answers every query of the tiny graph, the Dgraph restart before the queries notwithstanding;
	// every measured row says what CPU it took.
	polgraphRows := 0
	for _, line := range strings.Split(report, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) != 15 || strings.TrimSpace(cols[1]) == "query" || strings.HasPrefix(cols[1], "---") || strings.TrimSpace(cols[4]) == "–" {
			continue
		}
		if sys := strings.TrimSpace(cols[2]); sys == sysPolgraph || sys == sysPolgraphMem {
			polgraphRows++
			if strings.TrimSpace(cols[8]) != "0" {
				t.Errorf("polgraph failed queries: %s", line)
			}
		}
		// A row of 50 ms is too short for its cores ("–"; TestCoresMeter measures them), unless its slow
		// queries (Dgraph's) made it last half a second: then three figures, the machine's above 0.
		if got := strings.TrimSpace(cols[12]); got != "–" {
			var harness, alpha, machine float64
			if _, err := fmt.Sscanf(got, "%f / %f / %f", &harness, &alpha, &machine); err != nil || harness < 0 || alpha < 0 || machine <= 0 {
				t.Errorf("a row's cores are %q: neither – nor three figures with the machine's above 0: %s", got, line)
			}
		}
		if _, err := strconv.ParseUint(strings.TrimSpace(cols[13]), 10, 64); err != nil {
			t.Errorf("a row's collections are %q, not a count: %s", cols[13], line)
		}
	}
	if polgraphRows == 0 {
		t.Errorf("the report has no polgraph row in a table of 13 columns:\n%s", report)
	}
	for _, bad := range []string{"WRONG", "NOT the graph"} {
		if strings.Contains(report, bad) {
			t.Errorf("the report says %s:\n%s", bad, report)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
	}
	if !strings.Contains(string(b), "<polyline") && !strings.Contains(string(b), "<circle") {
		t.Error("the chart draws no data")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "polgraph-bench-*"))
	if len(left) > 0 {
		t.Errorf("the run left %v behind", left)
	}
}

// TestPostgresMatchesFloor checks the PostgreSQL peer against the floor on random graphs with parallel
// relations and disputed claims: the default filter in SQL, its k shortest routes, its neighbourhoods
// (whole, on graphs too small for the caps) and its search by name.
func TestPostgresMatchesFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if _, err := postgresBin(); err != nil {
		if os.Getenv("POLGRAPH_REQUIRE_TOOLS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pg, err := startPostgres(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer pg.stop()
	for seed := uint64(1); seed <= 8; seed++ {
		ents, rels := graphtest.RandomGraph(seed, 14, 40)
		counted, all := buildGraphs(ents, rels)
		if _, err := pg.pool.Exec(ctx, `DROP TABLE IF EXISTS arc, entity`); err != nil {
			t.Fatal(err)
		}
		load, err := pg.load(ctx, all, ents, rels)
		if err != nil {
			t.Fatal(err)
		}
		if load.Arcs != int64(2*len(rels)) {
			t.Fatalf("graph %d: %d arcs copied, want %d", seed, load.Arcs, 2*len(rels))
		}
		x := newSearcher(counted, true)
		r := rand.New(rand.NewPCG(seed, 3))
		for range 25 {
			a, b := int32(r.IntN(len(ents))), int32(r.IntN(len(ents)))
			k, depth := 1+r.IntN(6), 1+r.IntN(6)
			want := x.kShortest(a, b, k, depth)
			got, err := pg.kShortest(ctx, a, b, k, depth)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(want, got) {
				t.Fatalf("graph %d, %s→%s, k=%d, depth %d: PostgreSQL lengths %v, floor %v", seed, ents[a].Name, ents[b].Name, k, depth, got, want)
			}
		}
		for c := range int32(len(ents)) {
			for depth := 1; depth <= 2; depth++ {
				want := x.neighborhood(c, depth, 25, 100)
				got, err := pg.neighbourhood(ctx, c, depth, 25, 100)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("graph %d, around %s, depth %d: PostgreSQL %d entities, floor %d", seed, ents[c].Name, depth, got, want)
				}
			}
		}
		e := ents[r.IntN(len(ents))]
		names, err := pg.search(ctx, e.DisplayName, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, string(e.Name)) {
			t.Errorf("graph %d: searching %q found %v, not %s", seed, e.DisplayName, names, e.Name)
		}
	}
}

// TestWaitQuiet: a process spinning on a core never goes quiet, a sleeping one does. The bar is 2% of
// a core over half a second (one clock tick of CPU time): the spinner stays above it even when the
// tests running beside it on a shared machine leave it a small share of a core.
func TestWaitQuiet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
		quiet        bool
	}{{"spinning", "while :; do :; done", false}, {"sleeping", "sleep 30", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", tc.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			start := time.Now()
			got := waitQuiet(context.Background(), cmd.Process.Pid, 0.02, 500*time.Millisecond, 3*time.Second)
			if got != tc.quiet {
				t.Errorf("waitQuiet = %v after %s; want %v", got, time.Since(start), tc.quiet)
			}
		})
	}
}

// TestCoresMeter: a process spinning for the measured stretch takes about a core, one sleeping none,
// and the machine at least what the spinning one took.
func TestCoresMeter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
		min, max     float64
	}{{"spinning", "while :; do :; done", 0.2, 1.2}, {"sleeping", "sleep 30", 0, 0.05}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", tc.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			m := startCores(cmd.Process.Pid)
			time.Sleep(time.Second)
			u := m.done()
			if u.Alpha < tc.min || u.Alpha > tc.max {
				t.Errorf("the %s process took %.2f cores, want %.2f to %.2f (%s)", tc.name, u.Alpha, tc.min, tc.max, u)
			}
			if u.Harness < 0 || u.Machine < u.Alpha-0.1 {
				t.Errorf("harness / process / machine: %s; want the machine at least the process's", u)
			}
			if short := startCores(cmd.Process.Pid).done(); short.String() != "–" {
				t.Errorf("a stretch of no time took %s cores, want – (unknown)", short)
			}
		})
	}
}

// TestProcMemory: the memory figures read from /proc are those of the process asked about, in bytes,
// and the machine's description has its memory and its load (not every architecture names its model).
func TestProcMemory(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	self, child := residentMemory(0), readAlphaMem(cmd.Process.Pid)
	if self < 1<<20 || self > 1<<40 {
		t.Errorf("this process has %d bytes resident, want at least 1 MiB", self)
	}
	if child.RSS <= 0 || child.RSS >= self || child.Anon <= 0 || child.Anon > child.RSS {
		t.Errorf("sleep has %s, this process %s resident; want sleep's smaller, its anonymous part within it", child, mb(self))
	}
	if peak := peakRSS(0); peak < self {
		t.Errorf("this process's peak is %d bytes, under the %d resident", peak, self)
	}
	if got := residentMemory(1 << 30); got != 0 {
		t.Errorf("a process that does not exist has %d bytes resident, want 0 (unknown)", got)
	}
	m := describeMachine()
	if m.Model == "" || m.Memory < 1<<20 || len(strings.Fields(m.LoadAtStart)) != 3 {
		t.Errorf("describeMachine() = %+v; want the memory and three load averages", m)
	}
}

// TestCoresSum: stretches add up their wall time and CPU alone, so that the time a meter was paused (while
// other rows ran) counts for nothing; a figure unknown in any stretch is unknown in the sum.
func TestCoresSum(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 5, 21, 0, 0, 0, time.UTC)
	at := func(ms int, self, alpha time.Duration, busy, all float64) cpuSample {
		return cpuSample{at: t0.Add(time.Duration(ms) * time.Millisecond), self: self, alpha: alpha, busy: busy, all: all, cpus: 2}
	}
	type stretch struct{ from, to cpuSample }
	for _, tc := range []struct {
		name      string
		stretches []stretch
		want      coresUsed
	}{
		{"one stretch", []stretch{{at(0, 0, 0, 0, 1), at(1000, 500*time.Millisecond, time.Second, 1.5, 3)}},
			coresUsed{Harness: 0.5, Alpha: 1, Machine: 1.5}},
		{"two stretches and the pause between them left out", []stretch{
			{at(0, 0, 0, 0, 1), at(500, 0, 0, 0.5, 2)},
			// paused from 500 to 2000 ms: the alpha used 1.5 s of CPU meanwhile, the machine 3 s
			{at(2000, time.Second, 1500*time.Millisecond, 3.5, 5), at(2500, 1250*time.Millisecond, 2*time.Second, 4.5, 6)}},
			coresUsed{Harness: 0.25, Alpha: 0.5, Machine: 1.5}},
		{"the alpha unknown in one stretch", []stretch{
			{at(0, 0, 0, 0, 1), at(500, 0, 0, 0.5, 2)},
			{at(600, 0, -1, 0.5, 2), at(1100, 250*time.Millisecond, time.Second, 1, 3)}},
			coresUsed{Harness: 0.25, Alpha: -1, Machine: 1}},
		{"the machine unknown in one stretch", []stretch{
			{at(0, 0, 0, 0, 1), at(500, 0, 0, 0.5, 2)},
			{at(600, 0, 0, 0, 0), at(1100, 0, 0, 0, 0)}},
			coresUsed{Harness: 0, Alpha: 0, Machine: -1}},
		{"too short in all", []stretch{
			{at(0, 0, 0, 0, 1), at(200, 0, 0, 0.5, 2)},
			{at(300, 0, 0, 0.5, 2), at(500, 0, 0, 1, 3)}},
			coresUsed{Harness: -1, Alpha: -1, Machine: -1}},
	} {
		var sum coresSum
		for _, s := range tc.stretches {
			sum.add(s.from, s.to)
		}
		if got := sum.cores(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestSliceOrder: rows measured side by side take their slices in turn and back, so that each row has
// every slice, mirrored rounds cancel a steady drift, and (with three concurrencies or more) the fewest
// clients never follow the most.
func TestSliceOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		conc   []int
		slices int
		want   []int
		text   string
	}{
		{[]int{1, 8, 64}, 1, []int{1, 8, 64}, "1, 8, 64"},
		{[]int{1, 8, 64}, 2, []int{1, 8, 64, 64, 8, 1}, "1, 8, 64, 64, 8, 1"},
		{[]int{1, 8, 64}, 4, []int{1, 8, 64, 64, 8, 1, 1, 8, 64, 64, 8, 1}, "1, 8, 64, 64, 8, 1, …"},
		{[]int{1, 2}, 3, []int{1, 2, 2, 1, 1, 2}, "1, 2, 2, 1, …"},
	} {
		got := sliceOrder(tc.conc, tc.slices)
		if !slices.Equal(got, tc.want) {
			t.Errorf("sliceOrder(%v, %d) = %v, want %v", tc.conc, tc.slices, got, tc.want)
		}
		for i := 1; i < len(got) && len(tc.conc) > 2; i++ {
			if got[i] == slices.Min(tc.conc) && got[i-1] == slices.Max(tc.conc) {
				t.Errorf("sliceOrder(%v, %d) = %v: %d clients right after %d", tc.conc, tc.slices, got, got[i], got[i-1])
			}
		}
		if text := sliceOrderText(tc.conc, tc.slices); text != tc.text {
			t.Errorf("sliceOrderText(%v, %d) = %q, want %q", tc.conc, tc.slices, text, tc.text)
		}
	}
}

// TestTallyInSlices: a row measured in slices asks its inputs in turn across them (a slice goes on where
// the one before stopped), counts every query of every slice once, bounds its queries over all of them,
// and gives its throughput over the slices' time alone.
func TestTallyInSlices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		maxOps int
	}{{"no bound", 0}, {"bounded over the slices", 7}} {
		var asked []int
		w := workload{family: "f", system: "s", n: 5, maxOps: tc.maxOps,
			run: func(_ context.Context, i int) (outcome, error) {
				asked = append(asked, i) // one client: no two queries at once
				time.Sleep(2 * time.Millisecond)
				if i == 3 {
					return outcome{}, errors.New("input 3 fails")
				}
				return outcome{nodes: i}, nil
			},
			check: func(i int, got outcome) string {
				if got.nodes != i {
					return "wrong"
				}
				return ""
			}}
		tl := newTally(w, 1)
		var sliced time.Duration
		for range 3 {
			start := time.Now()
			tl.run(context.Background(), 30*time.Millisecond, time.Second)
			sliced += time.Since(start)
			time.Sleep(50 * time.Millisecond) // other rows' slices
		}
		r := tl.result()
		for k, i := range asked {
			if i != k%5 {
				t.Fatalf("%s: query %d asked input %d, want %d (inputs in turn across slices): %v", tc.name, k, i, k%5, asked)
			}
		}
		if tc.maxOps > 0 && len(asked) != tc.maxOps {
			t.Errorf("%s: %d queries asked, want the bound, %d", tc.name, len(asked), tc.maxOps)
		}
		if tc.maxOps == 0 && len(asked) < 3*5 {
			t.Errorf("%s: %d queries asked in three slices of 30 ms at 2 ms each, want at least 15", tc.name, len(asked))
		}
		fails := 0
		for _, i := range asked {
			if i == 3 {
				fails++
			}
		}
		if r.N != len(asked) || r.OK != len(asked)-fails || r.Errors["other"] != fails || r.Checked != r.OK || r.Wrong != 0 {
			t.Errorf("%s: N %d, OK %d, errors %v, checked %d, wrong %d; want N %d with %d failed", tc.name, r.N, r.OK, r.Errors, r.Checked, r.Wrong, len(asked), fails)
		}
		// Throughput over the slices' time, not the pauses between them.
		if want := float64(r.OK) / sliced.Seconds(); r.Throughput < want*0.95 || r.Throughput > want*1.05 {
			t.Errorf("%s: throughput %.1f/s, want %d answers over the %s the slices took, %.1f/s", tc.name, r.Throughput, r.OK, sliced, want)
		}
		if r.P50 < 2*time.Millisecond {
			t.Errorf("%s: p50 %s under the 2 ms each query sleeps", tc.name, r.P50)
		}
	}
}

// TestSettleSummary: the report says how long rows waited for the alpha, where longest, and how many
// began with it still busy; nothing when no row waited.
func TestSettleSummary(t *testing.T) {
	t.Parallel()
	row := func(family string, conc int, settle time.Duration, busy bool) result {
		return result{Family: family, System: "polgraph", Conc: conc, Settle: settle, Busy: busy}
	}
	for _, tc := range []struct {
		name string
		rows []result
		want []string // fragments, in order
		none bool
	}{
		{name: "no wait", rows: []result{row("a", 1, 0, false)}, none: true},
		{name: "quiet at once", rows: []result{row("a", 1, 0, false), row("a", 8, 2*rowQuietWindow, false)},
			want: []string{secs(2*rowQuietWindow) + " in all", "before 0 rows", "longest before a, polgraph, 8 clients (" + secs(2*rowQuietWindow) + ")."}},
		{name: "busy", rows: []result{row("a", 1, 2*rowQuietWindow, false), row("b", 64, 20*time.Second, true), row("c", 1, 3*time.Second, false)},
			want: []string{secs(23*time.Second+2*rowQuietWindow) + " in all", "before 2 rows", "longest before b, polgraph, 64 clients (20.0 s)", "and 1 row began with it still busy."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := settleSummary(tc.rows)
			if tc.none {
				if got != "" {
					t.Errorf("settleSummary = %q, want nothing", got)
				}
				return
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("settleSummary = %q, want %q in it (after the fragments before)", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestTargets: the report judges a run against the targets on what it measured, naming the lowest
// scaling; a figure the run lacks is not measured rather than met.
func TestTargets(t *testing.T) {
	t.Parallel()
	// good is a run at 100k and 1M that meets every target.
	good := func() *report {
		rep := &report{Config: config{Conc: []int{1, 8, 64}, LoadBudget: 30 * time.Second}, Elapsed: 28 * time.Minute}
		for _, n := range []int{100_000, 1_000_000} {
			s := &sizeResult{Label: fmt.Sprint(n), Relations: n}
			s.Load = polgraphLoadResult{Complete: true, QuadsPS: 60_000, Read: time.Minute, Write: 7 * time.Minute}
			s.Live = liveResult{Complete: true, QuadsPS: 39_000, Elapsed: 10 * time.Minute}
			s.Bulk.Convert, s.Bulk.Elapsed = 50*time.Second, 200*time.Second
			s.Topology.Relations, s.Topology.Fill, s.Topology.Restart, s.Topology.Replica = n, 19*time.Second, 12*time.Second, 15*time.Second
			s.Topology.Memory, s.Topology.AlphaReplicaPeak = 900<<20, 3900<<20
			for _, fam := range []string{pathsFamily(variant{1, 4}), pathsFamily(variant{5, 6}), nbhdFamily(2), searchFamily} {
				for _, c := range []int{1, 8, 64} {
					r := result{Family: fam, System: sysPolgraphMem, Conc: c, OK: 100, P50: 3 * time.Millisecond, P99: 10 * time.Millisecond,
						Throughput: 100 * float64(min(c, 8)) / 4, Checked: 100}
					if fam == searchFamily {
						r.Checked = 0
					}
					s.Results = append(s.Results, r)
				}
			}
			s.Results = append(s.Results, result{Family: nbhdFamily(2), System: sysPostgres, Conc: 1, OK: 100, P50: 8 * time.Millisecond, P99: 30 * time.Millisecond})
			rep.Sizes = append(rep.Sizes, s)
		}
		return rep
	}
	big := func(rep *report) *sizeResult { return rep.Sizes[1] }
	for _, tc := range []struct {
		name   string
		change func(*report)
		want   map[string]verdict // figure prefix → verdict; every other row must be met
	}{
		{name: "every target met", change: func(*report) {}},
		{name: "load slower than live", change: func(rep *report) { big(rep).Load.QuadsPS = 30_000 },
			want: map[string]verdict{"`polgraph load` at 1000000": missed}},
		{name: "load cut short by its budget", change: func(rep *report) { big(rep).Load.Complete = false },
			want: map[string]verdict{"`polgraph load` of the": notMeasured}},
		{name: "whole load too slow", change: func(rep *report) { big(rep).Load.Write = 10 * time.Minute },
			want: map[string]verdict{"`polgraph load` of the": missed}},
		{name: "bulk path slow", change: func(rep *report) { big(rep).Bulk.Convert = 150 * time.Second },
			want: map[string]verdict{"bulk path at 1000000": missed}},
		{name: "first fill slow", change: func(rep *report) { big(rep).Topology.Fill = 41 * time.Second },
			want: map[string]verdict{"fill at 1000000 from a Dgraph holding no copy": missed}},
		{name: "alpha over 4 GiB", change: func(rep *report) { big(rep).Topology.AlphaAfterShare.RSS = 4097 << 20 },
			want: map[string]verdict{"alpha's resident memory": missed}},
		{name: "neighbourhood p99 over and behind PostgreSQL", change: func(rep *report) { big(rep).row(nbhdFamily(2), sysPolgraphMem, 1).P99 = 31 * time.Millisecond },
			want: map[string]verdict{"ExploreNeighborhood depth 2 at 1000000, 1 client": missed, "ExploreNeighborhood depth 2 at 1000000 against": missed}},
		{name: "no PostgreSQL", change: func(rep *report) {
			s := big(rep)
			s.Results = slices.DeleteFunc(s.Results, func(r result) bool { return r.System == sysPostgres })
		}, want: map[string]verdict{"ExploreNeighborhood depth 2 at 1000000 against": notMeasured}},
		{name: "collapse at 64 clients", change: func(rep *report) { rep.Sizes[0].row(searchFamily, sysPolgraphMem, 64).Throughput = 190 },
			want: map[string]verdict{"throughput at 64 clients": missed}},
		{name: "no 64-client rows", change: func(rep *report) { rep.Config.Conc = []int{1, 8} },
			want: map[string]verdict{"throughput at 64 clients": notMeasured}},
		{name: "a wrong path", change: func(rep *report) { rep.Sizes[0].row(pathsFamily(variant{5, 6}), sysPolgraphMem, 8).Wrong = 1 },
			want: map[string]verdict{"polgraph's path answers": missed}},
		{name: "search row not measured", change: func(rep *report) { big(rep).row(searchFamily, sysPolgraphMem, 1).SkippedAfter = 1 },
			want: map[string]verdict{"SearchEntities with a typo at 1000000": missed}},
		{name: "long run", change: func(rep *report) { rep.Elapsed = 31 * time.Minute }, want: map[string]verdict{"the whole run": missed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := good()
			tc.change(rep)
			rows := rep.targets()
			if len(rows) < 16 {
				t.Fatalf("%d targets judged, want at least 16: %+v", len(rows), rows)
			}
			seen := map[string]bool{}
			for _, r := range rows {
				want := met
				for prefix, v := range tc.want {
					if strings.HasPrefix(r.Figure, prefix) {
						want, seen[prefix] = v, true
					}
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", r.Figure, r.Verdict, r.Got, want)
				}
			}
			for prefix := range tc.want {
				if !seen[prefix] {
					t.Errorf("no target %q judged", prefix)
				}
			}
		})
	}
	t.Run("lowest scaling named", func(t *testing.T) {
		rep := good()
		rep.Sizes[1].row(nbhdFamily(2), sysPolgraphMem, 8).Throughput = 45 // 1.8× the 25 of one client
		r := rep.scaling(1, 8, scale8Goal)
		if r.Verdict != met || !strings.Contains(r.Got, "1.80× (Neighbourhood depth 2 at 1000000), over 8 workloads") {
			t.Errorf("scaling = %+v, want met at 1.80× naming the 1M depth-2 neighbourhoods over 8 workloads", r)
		}
		if strings.Contains(r.Got, "machine") {
			t.Errorf("scaling = %+v: it tells of the machine's cores, which the run did not measure", r)
		}
	})
	t.Run("lowest scaling with the machine's cores", func(t *testing.T) {
		// How busy the machine was at the lower number of clients is told with the lowest ratio, for that
		// row only, in the run's own number of CPUs.
		for _, tc := range []struct {
			from, to int
			want     string
		}{
			{1, 8, "1.50× (Neighbourhood depth 2 at 1000000; with 1 client the machine was already at 1.38 of its 2 cores)"},
			{8, 64, "0.90× (Neighbourhood depth 2 at 1000000; with 8 clients the machine was already at 1.93 of its 2 cores)"},
		} {
			rep := good()
			rep.Machine.CPUs = 2
			for _, s := range rep.Sizes {
				for i := range s.Results {
					s.Results[i].Cores.Machine = 1.1 // every other row: not the one to name
				}
			}
			one, eight, many := rep.Sizes[1].row(nbhdFamily(2), sysPolgraphMem, 1), rep.Sizes[1].row(nbhdFamily(2), sysPolgraphMem, 8), rep.Sizes[1].row(nbhdFamily(2), sysPolgraphMem, 64)
			one.Cores.Machine, eight.Cores.Machine = 1.38, 1.93
			eight.Throughput = 1.5 * one.Throughput
			many.Throughput = 0.9 * eight.Throughput
			r := rep.scaling(tc.from, tc.to, 1)
			if !strings.Contains(r.Got, tc.want) {
				t.Errorf("scaling(%d, %d) = %q, want it to hold %q", tc.from, tc.to, r.Got, tc.want)
			}
		}
	})
	t.Run("load only", func(t *testing.T) {
		rep := good()
		rep.Config.LoadOnly = true
		for _, r := range rep.targets() {
			if !strings.Contains(r.Figure, "load") && !strings.Contains(r.Figure, "bulk") {
				t.Errorf("a load-only run judged %q", r.Figure)
			}
		}
	})
}

// startCores is a meter started at once.
func startCores(alphaPID int) *coresMeter {
	m := &coresMeter{alphaPID: alphaPID}
	m.resume()
	return m
}

// TestTablesSplitAndJoin: a report's query rows go to a TSV file a size, the report keeping a headline
// table a size, and come back as they were, from those files or from the Markdown page of the layout
// before; --rewrite writes a report again in this layout, measuring nothing.
func TestTablesSplitAndJoin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, rows := filepath.Join(dir, "BENCHMARKS.md"), filepath.Join(dir, "docs", "bench")
	rep := &report{Config: config{Conc: []int{1, 8, 64}, Out: out, SVG: filepath.Join(dir, "docs", "bench.svg"), Topology: true, Slices: 1}, Machine: machine{CPUs: 2}}
	for _, label := range []string{"10k", "1m"} {
		s := &sizeResult{Label: label, Distances: map[int]int{1: 3}}
		for _, fam := range []string{pathsFamily(variant{1, 4}), nbhdFamily(2)} {
			for _, sys := range []string{sysPolgraph, sysPolgraphMem, sysPostgres} {
				for _, c := range rep.Config.Conc {
					r := result{Family: fam, System: sys, Conc: c, N: 10 * c, OK: 10 * c, P50: time.Duration(c) * time.Millisecond, P99: 9 * time.Millisecond,
						Throughput: float64(100 * c), Checked: 10, AlphaBefore: 300 << 20, AlphaPeak: 400 << 20, Cores: coresUsed{0.5, 1, 1.5}, Collections: 2}
					switch {
					case sys == sysPostgres && c == 1:
						r.Errors, r.Cores, r.AlphaBefore = map[string]int{"timeout": 2}, coresUsed{-1, -1, -1}, 0
					case sys == sysPostgres && c == 64:
						r.SkippedAfter = 8
					case sys == sysPolgraph && c == 8:
						r.Wrong, r.WrongExample = 1, "a → b: 3 hops, the floor's 2"
					}
					s.Results = append(s.Results, r)
				}
			}
		}
		rep.Sizes = append(rep.Sizes, s)
	}
	md := rep.markdown()
	report, files, err := splitTables(md, out, rows)
	if err != nil {
		t.Fatal(err)
	}
	read := func(written []tableFile) func(string) ([]byte, error) {
		return func(path string) ([]byte, error) {
			for _, f := range written {
				if f.path == path {
					return []byte(f.text), nil
				}
			}
			return nil, fmt.Errorf("no file %s", path)
		}
	}
	if len(files) != 2 || files[0].path != filepath.Join(rows, "queries-10k.tsv") || files[1].path != filepath.Join(rows, "queries-1m.tsv") {
		t.Fatalf("files %+v, want queries-10k.tsv and queries-1m.tsv", files)
	}
	for _, want := range []string{
		"0.50\t1.00\t1.50\t2\n", "\t0\t10/10 exact\t300\t400\t", "WRONG", "not measured: most queries timed out at 8 clients\t\t\t\t\t\t\t\n", "\t2 timeout\t10/10 exact\t?\t400\t\t\t\t2\n"} {
		if !strings.Contains(files[0].text, want) {
			t.Errorf("the TSV file lacks %q:\n%s", want, files[0].text)
		}
	}
	if n := strings.Count(files[0].text, "\n"); !strings.HasPrefix(files[0].text, tsvHead) || n != 1+18 {
		t.Errorf("the TSV file has %d lines, want a header and 18 rows:\n%s", n, files[0].text)
	}
	for _, want := range []string{"[docs/bench/queries-10k.tsv](docs/bench/queries-10k.tsv) and [docs/bench/queries-1m.tsv](docs/bench/queries-1m.tsv)",
		"with 1 client (errors in brackets), and the answers a second of *polgraph, graph in memory* at 1, 8 and 64 clients.", "\n### 1m relations\n\nPairs by distance",
		"| query | polgraph | polgraph, graph in memory | PostgreSQL | polgraph, graph in memory, per s |\n|---|---|---|---|---|\n",
		"| FindPaths k=1 depth 4 | 1.00 / 9.00 | 1.00 / 9.00 | 1.00 / 9.00 (2 timeout) | 100 / 800 / 6400 |\n", "Answers that differ from the floor's"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, queriesHeading) || strings.Contains(report, "| 10/10 exact |") {
		t.Errorf("the report holds the full tables:\n%s", report)
	}
	if got, err := joinTables(report, out, rows, read(files)); err != nil || got != md {
		t.Errorf("joined from the TSV files (%v):\n%s\nwant:\n%s", err, got, md)
	}
	if got, err := joinTables(md, out, rows, read(nil)); err != nil || got != md {
		t.Errorf("a report never split is not left as it is (%v)", err)
	}
	// The layout before: the rows on a Markdown page that the Queries section links.
	parts := strings.Split(md, "\n"+queriesHeading)
	last, rest, _ := strings.Cut(parts[len(parts)-1], "\n## What is compared")
	page := "# polgraph benchmarks: every query row\n\nThe tables.\n"
	for _, sec := range append(parts[1:len(parts)-1], last) {
		page += "\n" + queriesHeading + sec
	}
	old := parts[0] + "\n## Queries\n\nEvery row is in [docs/bench-tables.md](docs/bench-tables.md); the targets above are judged from them.\n\n## What is compared" + rest
	oldPage := tableFile{filepath.Join(dir, "docs", "bench-tables.md"), page}
	if got, err := joinTables(old, out, rows, read([]tableFile{oldPage})); err != nil || got != md {
		t.Errorf("joined from the Markdown page (%v):\n%s\nwant:\n%s", err, got, md)
	}
	// --rewrite: from the layout before to this one, then again, a stale size's file removed.
	for _, f := range []tableFile{{out, old}, oldPage, {filepath.Join(rows, "queries-100k.tsv"), tsvHead}} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := run(context.Background(), []string{"--rewrite", "--out", out, "--tables", rows}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, f := range append(files, tableFile{out, report}) {
			if b, err := os.ReadFile(f.path); err != nil || string(b) != f.text {
				t.Errorf("%s rewritten (%v):\n%s\nwant:\n%s", f.path, err, b, f.text)
			}
		}
		if _, err := os.Stat(filepath.Join(rows, "queries-100k.tsv")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the stale size's file is left (%v)", err)
		}
	}
}
