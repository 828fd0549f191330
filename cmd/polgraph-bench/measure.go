package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
)

// outcome is what one query answered, for the exactness check: path lengths, a node count, or nothing.
type outcome struct {
	lengths []int
	nodes   int
}

// check judges an answer to query i: "" when right, else what is wrong. nil checks nothing.
type check func(i int, got outcome) string

// workload is one kind of query asked one way, over a fixed list of inputs taken in turn.
type workload struct {
	family string // what is asked, e.g. "FindPaths k=1 depth 4"
	system string // who answers it: polgraph, a raw Dgraph query, or the in-memory floor
	n      int    // how many inputs there are
	maxOps int    // stop after this many queries, however short the time (0: no limit)
	run    func(ctx context.Context, i int) (outcome, error)
	check  check
}

// result is a workload's measurement at one concurrency.
type result struct {
	Family, System string
	Conc           int
	N, OK          int
	Errors         map[string]int // by kind: deadline, resource exhausted, ...
	P50, P99       time.Duration  // over every query, failed ones included
	Throughput     float64        // answered queries per second
	Checked, Wrong int
	WrongExample   string
	AlphaPeak      int64 // the Dgraph alpha's peak resident memory during the measurement
	AlphaBefore    int64 // its resident memory when the measurement began
	// Cores is the CPU the measurement took, in cores: the harness's process (polgraph's services
	// in-process and every system's clients), the alpha, and the whole machine (PostgreSQL's processes and
	// whatever else ran meanwhile included). On two cores, a row whose machine figure is near 2 was bound
	// by the CPU: more clients could only share it.
	Cores coresUsed
	// Collections counts the harness's garbage collections that ran during the measurement. polgraph's
	// services run in the harness's process, so a collection marks the graph they hold in memory, and an
	// answer that overlaps it waits longer.
	Collections uint64
	// Settle is how long the harness waited before the row for the alpha to go quiet; Busy says that it
	// was still busy when the wait ended.
	Settle time.Duration
	Busy   bool
	// SkippedAfter, when not 0, says that this concurrency was not measured: at SkippedAfter clients most
	// queries had timed out already, and more clients only wait out the deadline again.
	SkippedAfter int
}

// mostlyTimedOut reports whether most of a measurement's queries ran out of time.
func (r result) mostlyTimedOut() bool { return r.SkippedAfter != 0 || r.Errors["timeout"]*2 > r.N }

func (r result) ErrorCount() int {
	n := 0
	for _, c := range r.Errors {
		n += c
	}
	return n
}

func (r result) ErrorText() string {
	if len(r.Errors) == 0 {
		return "0"
	}
	keys := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", r.Errors[k], k)
	}
	return strings.Join(parts, ", ")
}

// warmUp asks each of w's inputs once, one at a time, untimed, for at most d: what every system keeps
// warm between queries (polgraph's caches, PostgreSQL's buffers, Dgraph's) is then warm for the inputs
// when the measured runs begin, whatever order the workloads run in.
func warmUp(ctx context.Context, w workload, d, timeout time.Duration) {
	deadline := time.Now().Add(d)
	for i := 0; i < w.n && time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		qctx, cancel := context.WithTimeout(ctx, timeout)
		w.run(qctx, i)
		cancel()
	}
}

// tally is one workload's measurement at one concurrency, taken in one stretch or in several slices
// (side by side with other concurrencies: interleaved). In each, conc workers take the next input in turn
// and ask it with its own deadline; queries started before the stretch ends are waited for, and every
// query counts in the latencies, those that failed too. A slice goes on with the inputs where the one
// before it stopped.
type tally struct {
	w         workload
	res       result
	next      atomic.Int64
	latencies []time.Duration
	elapsed   time.Duration
}

func newTally(w workload, conc int) *tally {
	return &tally{w: w, res: result{Family: w.family, System: w.system, Conc: conc, Errors: map[string]int{}}}
}

// run measures one slice of about d.
func (t *tally) run(ctx context.Context, d, timeout time.Duration) {
	w, res := t.w, &t.res
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range res.Conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				k := int(t.next.Add(1) - 1)
				if w.maxOps > 0 && k >= w.maxOps {
					return
				}
				i := k % w.n
				qctx, cancel := context.WithTimeout(ctx, timeout)
				t0 := time.Now()
				out, err := w.run(qctx, i)
				lat := time.Since(t0)
				cancel()
				mu.Lock()
				t.latencies = append(t.latencies, lat)
				res.N++
				if err != nil {
					res.Errors[errorKind(err)]++
				} else {
					res.OK++
					if w.check != nil {
						res.Checked++
						if msg := w.check(i, out); msg != "" {
							res.Wrong++
							if res.WrongExample == "" {
								res.WrongExample = msg
							}
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.elapsed += time.Since(start)
}

// result is the measurement over every slice: latencies over all of them, throughput over their time.
func (t *tally) result() result {
	res := t.res
	res.Errors = maps.Clone(t.res.Errors)
	sorted := slices.Sorted(slices.Values(t.latencies))
	res.P50, res.P99 = quantile(sorted, 0.50), quantile(sorted, 0.99)
	if t.elapsed > 0 {
		res.Throughput = float64(res.OK) / t.elapsed.Seconds()
	}
	return res
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// errorKind names a failure for the table: a gRPC code, a deadline, or "other".
func errorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	if s, ok := status.FromError(err); ok {
		switch code := s.Code().String(); code {
		case "DeadlineExceeded":
			return "timeout"
		case "ResourceExhausted":
			// The work budget, or no turn for the call in time (graph/rpc.Limiter's TOO_MANY_REQUESTS).
			for _, d := range s.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok && info.Reason == "TOO_MANY_REQUESTS" {
					return "refused"
				}
			}
			return "budget"
		default:
			return strings.ToLower(code)
		}
	}
	if strings.Contains(err.Error(), "context deadline exceeded") || strings.Contains(err.Error(), "DeadlineExceeded") {
		return "timeout"
	}
	return "other"
}

// gcCycles is how many garbage collections this process has completed.
func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
