package history_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/history"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/synth"
)

// TestHistoryBenchmark measures what a known_on read costs on graphs whose whole history is in the audit
// trail (a generated graph loaded through the audited write path): the first read of an instant, which
// rebuilds the graph then (at the end of the history, nothing undone; before it, everything undone), a
// read of an instant already rebuilt, and the memory a rebuilt graph holds. It runs only when
// POLGRAPH_HISTORY_BENCH names the Markdown file to write (make bench-history); it empties the test Dgraph.
func TestHistoryBenchmark(t *testing.T) {
	out := os.Getenv("POLGRAPH_HISTORY_BENCH")
	if out == "" {
		t.Skip("set POLGRAPH_HISTORY_BENCH to the report's path (make bench-history)")
	}
	ctx := context.Background()
	var rows []string
	for _, size := range []int{10_000, 100_000} {
		if err := testGraph.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := dgraph.Open(ctx, testGraph.Service, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ApplySchema(ctx); err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		w := dataset.NewWriter(&file, "generated", "")
		if _, err := synth.Generate(synth.Config{Relations: size, Seed: 1}, synth.Sinks{w}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		time.Sleep(5 * time.Millisecond)
		loadStart := time.Now()
		writes := &intake.Service{Store: st}
		if _, err := writes.Load(ctx, graph.WriteMeta{Principal: "bench", Method: "LoadDataset"},
			[]dataset.File{{Name: "generated.jsonl", R: strings.NewReader(file.String())}}); err != nil {
			t.Fatal(err)
		}
		loaded := time.Since(loadStart)
		time.Sleep(5 * time.Millisecond)
		after := time.Now()
		live := &service.Service{Store: st, Budget: graph.DefaultWorkBudget, Timeout: 10 * time.Minute}
		past, err := history.New(live, 1)
		if err != nil {
			t.Fatal(err)
		}
		timed := func(at time.Time) (*history.Graph, time.Duration, uint64) {
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			start := time.Now()
			g, err := past.At(ctx, at)
			if err != nil {
				t.Fatal(err)
			}
			d := time.Since(start)
			runtime.GC()
			runtime.ReadMemStats(&m1)
			return g, d, m1.HeapInuse - min(m0.HeapInuse, m1.HeapInuse)
		}
		now, rebuildNow, heap := timed(after)
		_, cached, _ := timed(after.Add(time.Millisecond))
		start := time.Now()
		if _, err := now.Service.GetEntity(ctx, "parties/p0", nil); err != nil && graph.KindOf(err) != graph.NotFound {
			t.Fatal(err)
		}
		read := time.Since(start)
		empty, rebuildBefore, _ := timed(before)
		if empty.Undone != now.Changes || now.Undone != 0 {
			t.Fatalf("%d changes: %d undone before the load, %d after", now.Changes, empty.Undone, now.Undone)
		}
		rows = append(rows, fmt.Sprintf("| %d | %d | %.1f s | %.2f s | %.2f s | %.1f ms | %.2f ms | %d MB |", size, now.Changes, loaded.Seconds(),
			rebuildNow.Seconds(), rebuildBefore.Seconds(), cached.Seconds()*1000, read.Seconds()*1000, heap>>20))
		st.Close()
	}
	var load [3]float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Sscan(string(b), &load[0], &load[1], &load[2])
	}
	report := fmt.Sprintf(`# "As known on": what a past graph costs

`+"`make bench-history`"+` on %s, %d CPUs, load average %.2f %.2f %.2f at the end: generated graphs loaded
through the audited writes, then the graph as known at the load's end (nothing undone) and before it.

| relations | changes | load | rebuild, none undone | rebuild, all undone | same instant again | a read | heap held |
|---|---|---|---|---|---|---|---|
%s

A rebuild is a whole-graph export, the undoing, and a load into memory: its cost follows the graph's size.
`, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), load[0], load[1], load[2], strings.Join(rows, "\n"))
	if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(report)
}
