// Command polgraph-bench measures polgraph on synthetic graphs of several sizes and writes the results as
// a Markdown report, an SVG chart and the rows of its query tables as TSV files.
//
// For each size it generates a graph (package internal/synth), loads it into a fresh local Dgraph with
// polgraph's own loader and, for comparison, into a second fresh Dgraph with `dgraph live`, then serves
// polgraph's gRPC API in-process and times FindPaths, ExploreNeighborhood and SearchEntities at
// concurrency 1 and 8, side by side with the raw Dgraph queries that answer the same questions and with
// an in-memory floor on the same links, which also judges the path lengths every answer gives.
//
//	polgraph-bench --sizes 10k                       a quick run
//	polgraph-bench --sizes 10k,100k,1m --duration 5s the full run
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/prometheus/procfs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "polgraph-bench:", err)
		}
		os.Exit(1)
	}
}

// config is every setting of a benchmark run.
type config struct {
	Sizes      []int
	Labels     []string // the sizes as written, e.g. 10k
	Seed       uint64
	Duration   time.Duration // how long each workload runs at each concurrency
	Timeout    time.Duration // each query's deadline, polgraph's and raw Dgraph's alike
	Pairs      int
	Conc       []int
	Batch      int
	LoadBudget time.Duration // how long each loader may run (0: no limit)
	Out, SVG   string
	Tables     string // the folder of the query rows, a TSV file a size ("": the tables stay in the report)
	Rewrite    bool   // write the report at Out again in this layout from what it holds, measuring nothing
	DgraphBin  string
	WorkDir    string
	Keep       bool
	Topology   bool          // also measure polgraph with its graph in memory
	Turns      bool          // serve polgraph with `polgraph serve`'s turns (graph/rpc.Limiter)
	LoadOnly   bool          // measure the loads only, no queries
	Postgres   bool          // also measure the PostgreSQL peer
	Settle     time.Duration // how long to wait at most for a quiet alpha before the queries
	RowSettle  time.Duration // how long to wait at most for a quiet alpha before each row after the first
	Slices     int           // polgraph's rows with the graph in memory: how many slices of Duration their concurrencies take in turn
	LogLevel   slog.Level
	Command    string // the command line, for the report
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("polgraph-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "10k,100k,1m", "comma-separated graph sizes in relations (k and m suffixes)")
	seed := fs.Uint64("seed", 1, "seed of the graphs and of the query inputs")
	duration := fs.Duration("duration", 5*time.Second, "how long each workload runs at each concurrency")
	timeout := fs.Duration("timeout", 5*time.Second, "deadline of each query")
	pairs := fs.Int("pairs", 60, "how many entity pairs (and neighbourhood centres, and search texts) to ask about")
	conc := fs.String("concurrency", "1,8", "comma-separated numbers of concurrent clients")
	loadBudget := fs.Duration("load-budget", 0, "how long polgraph's loader and dgraph live may each run per size (0: no limit); past it the rate so far is reported and the queries run on a Dgraph filled by dgraph bulk")
	batch := fs.Int("batch", 2000, "records per transaction for polgraph's loader (polgraph load's default)")
	out := fs.String("out", "BENCHMARKS.md", "where to write the Markdown report")
	svg := fs.String("svg", "docs/bench.svg", "where to write the SVG chart")
	tables := fs.String("tables", "docs/bench", "the folder where every row of the query tables goes, a TSV file a size (queries-<size>.tsv), linked from the report, which keeps a headline table a size (empty: every row in the report)")
	rewrite := fs.Bool("rewrite", false, "measure nothing: write the report at --out and its rows in --tables again in this layout, from what they hold (rows in the report, on a Markdown page it links, or in TSV files); the chart is left as it is")
	bin := fs.String("dgraph-bin", dgraphlocal.DefaultBinary(), "the dgraph binary ($POLGRAPH_DGRAPH_BIN)")
	work := fs.String("work-dir", os.TempDir(), "where each size's files and Dgraph data go (removed afterwards)")
	keep := fs.Bool("keep", false, "keep each size's files and Dgraph data")
	turns := fs.Bool("turns", true, "serve polgraph with the turns polgraph serve gives each method (graph/rpc.Limiter at its defaults); false: the service alone")
	topology := fs.Bool("in-memory", true, "also measure polgraph with the graph held in memory (memgraph.Topology), as polgraph serve does by default")
	postgres := fs.Bool("postgres", true, "also measure PostgreSQL, started on loopback, as a peer: the graph as an indexed edge table (needs Debian's postgresql package: make postgres)")
	loadOnly := fs.Bool("load-only", false, "measure the loads only (polgraph load and dgraph live, each into an empty Dgraph), without the queries")
	level := fs.String("log-level", "warn", "debug, info, warn or error")
	settle := fs.Duration("settle", 3*time.Minute, "before the queries, wait at most this long for the alpha to use under a quarter of a core (a Dgraph just filled keeps compacting)")
	slices := fs.Int("slices", 4, "measure polgraph's rows with the graph in memory side by side: their concurrencies take turns, each for this many slices of --duration divided by it (1: each row whole, one after another)")
	rowSettle := fs.Duration("row-settle", 20*time.Second, "before each row after a size's first, wait at most this long for the alpha to use under a quarter of a core over "+secs(rowQuietWindow)+" (Dgraph keeps working on queries a row's clients gave up on); 0: do not wait")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() != 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := config{Settle: *settle, RowSettle: *rowSettle, Slices: *slices, Seed: *seed, Duration: *duration, Timeout: *timeout, Pairs: *pairs, Batch: *batch, LoadBudget: *loadBudget, Out: *out,
		SVG: *svg, Tables: *tables, Rewrite: *rewrite, DgraphBin: *bin, WorkDir: *work, Keep: *keep, Topology: *topology, Turns: *turns, LoadOnly: *loadOnly, Postgres: *postgres}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(strings.TrimSpace(s))
		if err != nil {
			return config{}, err
		}
		cfg.Sizes, cfg.Labels = append(cfg.Sizes, n), append(cfg.Labels, strings.TrimSpace(s))
	}
	for _, s := range strings.Split(*conc, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			return config{}, fmt.Errorf("--concurrency: %q is not a positive number", s)
		}
		cfg.Conc = append(cfg.Conc, c)
	}
	if cfg.Pairs < 1 || cfg.Duration <= 0 || cfg.Timeout <= 0 || cfg.Batch < 1 || cfg.Slices < 1 {
		return config{}, fmt.Errorf("--pairs, --duration, --timeout, --batch and --slices must be positive")
	}
	if cfg.RowSettle < 0 || cfg.Settle < 0 {
		return config{}, fmt.Errorf("--settle and --row-settle cannot be negative")
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*level)); err != nil {
		return config{}, fmt.Errorf("--log-level: %w", err)
	}
	cfg.Command = "polgraph-bench " + strings.Join(args, " ")
	return cfg, nil
}

// parseSize reads a count such as 10000, 10k or 1m.
func parseSize(s string) (int, error) {
	mult, num := 1, strings.ToLower(s)
	switch {
	case strings.HasSuffix(num, "k"):
		mult, num = 1000, num[:len(num)-1]
	case strings.HasSuffix(num, "m"):
		mult, num = 1_000_000, num[:len(num)-1]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size: want e.g. 10000, 10k or 1m", s)
	}
	return n * mult, nil
}

// report is everything a run measured.
type report struct {
	Config        config
	Started       time.Time
	Elapsed       time.Duration
	GoVersion     string
	DgraphVersion string
	Machine       machine
	Sizes         []*sizeResult
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.Rewrite {
		return rewriteReport(cfg, stdout)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if _, err := os.Stat(cfg.DgraphBin); err != nil {
		return fmt.Errorf("dgraph binary not found at %s: build it with `make dgraph`, or set --dgraph-bin", cfg.DgraphBin)
	}
	rep := &report{Config: cfg, Started: time.Now(), GoVersion: runtime.Version(),
		DgraphVersion: dgraphVersion(cfg.DgraphBin), Machine: describeMachine()}
	for i, n := range cfg.Sizes {
		fmt.Fprintf(stderr, "== %s relations\n", cfg.Labels[i])
		res, err := runSize(ctx, cfg, cfg.Labels[i], n, log, stderr)
		if err != nil {
			return fmt.Errorf("size %s: %w", cfg.Labels[i], err)
		}
		rep.Sizes = append(rep.Sizes, res)
	}
	rep.Elapsed = time.Since(rep.Started)
	rep.Machine.LoadAtEnd = loadAverage()
	return writeReport(cfg, rep.markdown(), rep.svg(), stdout)
}

// rewriteReport writes the report at cfg.Out, and its query rows, again in this layout (--rewrite).
func rewriteReport(cfg config, stdout io.Writer) error {
	b, err := os.ReadFile(cfg.Out)
	if err != nil {
		return err
	}
	md, err := joinTables(string(b), cfg.Out, cfg.Tables, os.ReadFile)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.Out, err)
	}
	return writeReport(cfg, md, "", stdout)
}

// writeReport prints the report md and writes it, with its query rows in cfg.Tables (see splitTables)
// and the chart svg ("": none), removing the TSV files of sizes the report no longer has.
func writeReport(cfg config, md, svg string, stdout io.Writer) error {
	var tables []tableFile
	if cfg.Tables != "" {
		var err error
		if md, tables, err = splitTables(md, cfg.Out, cfg.Tables); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, md)
	for _, f := range append([]tableFile{{cfg.Out, md}, {cfg.SVG, svg}}, tables...) {
		if f.path == "" || f.text == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			return err
		}
	}
	if len(tables) == 0 {
		return nil
	}
	old, err := filepath.Glob(tablesFile(cfg.Tables, "*"))
	if err != nil {
		return err
	}
	for _, path := range old {
		if !slices.ContainsFunc(tables, func(f tableFile) bool { return f.path == path }) {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// machine describes where the run happened.
type machine struct {
	CPUs        int
	Model       string
	Memory      int64
	LoadAtStart string // /proc/loadavg's 1, 5 and 15 minute averages
	LoadAtEnd   string
}

// loadAverage is the 1, 5 and 15 minute load averages, as /proc/loadavg gives them.
func loadAverage() string {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return "unknown"
	}
	l, err := fs.LoadAvg()
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f %.2f %.2f", l.Load1, l.Load5, l.Load15)
}

func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), Model: "unknown", LoadAtStart: loadAverage()}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return m
	}
	if cpus, err := fs.CPUInfo(); err == nil && len(cpus) > 0 && cpus[0].ModelName != "" {
		m.Model = cpus[0].ModelName
	}
	if mem, err := fs.Meminfo(); err == nil && mem.MemTotalBytes != nil {
		m.Memory = int64(*mem.MemTotalBytes)
	}
	return m
}
