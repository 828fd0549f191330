package main

import (
	"fmt"
	"slices"
	"time"
)

// The figures that "Performance round 2" set for polgraph, judged on every run so that a report says by
// itself which it meets. A target is judged only on what the run measured: a size it did not run, a load
// cut short by its budget or a row not measured leaves the target "not measured" rather than met.

const (
	loadRatioGoal    = 1.5 // polgraph load's N-Quads a second over dgraph live's, at 100k and 1M
	wholeLoadGoal    = 10 * time.Minute
	bulkRatioGoal    = 1.5 // polgraph's bulk path over dgraph bulk alone, in time
	fillGoal         = 20 * time.Second
	fillAlphaGoal    = 4 << 30
	pathsK1P99Goal   = 15 * time.Millisecond
	pathsK5P99Goal   = 40 * time.Millisecond
	nbhdP99Goal      = 20 * time.Millisecond
	searchP99Goal    = 30 * time.Millisecond
	scale8Goal       = 1.8 // throughput at 8 clients over 1, every workload
	scale64Goal      = 1.0 // throughput at 64 clients over 8, every workload
	topologyMemGoal  = 2 << 30
	fullRunGoal      = 30 * time.Minute
	targetSize       = 1_000_000 // the size most targets are set at
	loadRatioMinSize = 100_000   // the load ratio is set at 100k and 1M
)

// verdict is how a run stands against one target.
type verdict int

const (
	notMeasured verdict = iota
	met
	missed
)

func (v verdict) String() string {
	switch v {
	case met:
		return "met"
	case missed:
		return "**not met**"
	}
	return "not measured"
}

func judge(ok bool) verdict {
	if ok {
		return met
	}
	return missed
}

// targetRow is one target as the report shows it.
type targetRow struct {
	Figure, Goal, Got string
	Verdict           verdict
}

// targets judges the run against every target it has figures for.
func (rep *report) targets() []targetRow {
	var rows []targetRow
	add := func(figure, goal string, v verdict, got string, args ...any) {
		rows = append(rows, targetRow{Figure: figure, Goal: goal, Got: fmt.Sprintf(got, args...), Verdict: v})
	}
	big := rep.size(targetSize)

	// Loading through transactions.
	for _, s := range rep.Sizes {
		if s.Relations < loadRatioMinSize {
			continue
		}
		figure := fmt.Sprintf("`polgraph load` at %s, N-Quads a second", s.Label)
		goal := fmt.Sprintf("≥ %.1f× `dgraph live`'s", loadRatioGoal)
		l, v := s.Load, s.Live
		if l.QuadsPS <= 0 || v.QuadsPS <= 0 {
			add(figure, goal, notMeasured, "a loader wrote nothing")
			continue
		}
		r := l.QuadsPS / v.QuadsPS
		add(figure, goal, judge(r >= loadRatioGoal), "%.0f against %.0f: %.2f×%s", l.QuadsPS, v.QuadsPS, r, partialNote(l.Complete && v.Complete))
	}
	if big != nil {
		goal := "≤ " + goalTime(wholeLoadGoal)
		figure := fmt.Sprintf("`polgraph load` of the %s relations into an empty Dgraph, check included", big.Label)
		if l := big.Load; l.Complete {
			add(figure, goal, judge(l.Read+l.Write <= wholeLoadGoal), "%s (`dgraph live` %s)", minSec(l.Read+l.Write), liveWhole(big.Live))
		} else {
			add(figure, goal, notMeasured, "the load stopped at its budget of %s (`make bench-load` runs it whole)", rep.Config.LoadBudget)
		}
	}

	// The bulk path.
	for _, s := range rep.Sizes {
		if b := s.Bulk; b.Elapsed > 0 {
			r := (b.Convert + b.Elapsed).Seconds() / b.Elapsed.Seconds()
			add(fmt.Sprintf("bulk path at %s (`polgraph load --nquads`, then `dgraph bulk`), time", s.Label), fmt.Sprintf("≤ %.1f× `dgraph bulk` alone", bulkRatioGoal),
				judge(r <= bulkRatioGoal), "%s against %s: %.2f×", secs(b.Convert+b.Elapsed), secs(b.Elapsed), r)
		}
	}
	if rep.Config.LoadOnly {
		return rows
	}
	if big == nil {
		add("the rows at 1M", "", notMeasured, "the run had no 1M size")
		return rows
	}

	// The fill.
	t := big.Topology
	if t.Relations > 0 {
		goal := "≤ " + goalTime(fillGoal)
		if t.Restart > 0 {
			from := "the graph's file written by the fill"
			if t.FromBulk {
				from = "the snapshot file written with the bulk path's N-Quads"
			}
			add(fmt.Sprintf("fill at %s from %s, caught up", big.Label, from), goal, judge(t.Restart <= fillGoal), "%s", secs(t.Restart))
		}
		if t.Replica > 0 {
			add(fmt.Sprintf("fill at %s of a new replica from Dgraph's copy of the file, caught up", big.Label), goal, judge(t.Replica <= fillGoal), "%s (%s of it fetching)", secs(t.Replica), secs(t.Fetch))
		}
		add(fmt.Sprintf("fill at %s from a Dgraph holding no copy of the file", big.Label), goal, judge(t.Fill <= fillGoal), "%s (CPU: alpha %s, polgraph %s)", secs(t.Fill), secs(t.AlphaCPU), secs(t.CPU))
		peak, at := t.AlphaAfterFill.RSS, "after the fill from Dgraph"
		if t.AlphaAfterShare.RSS > peak {
			peak, at = t.AlphaAfterShare.RSS, "after the share of the file"
		}
		if t.AlphaReplicaPeak > peak {
			peak, at = t.AlphaReplicaPeak, "while the replica fetched the copy"
		}
		if peak > 0 {
			add(fmt.Sprintf("alpha's resident memory at %s through the fills", big.Label), "≤ "+gib(fillAlphaGoal), judge(peak <= fillAlphaGoal), "%s at most, %s", mb(peak), at)
		}
		figure := fmt.Sprintf("memory the graph in memory adds to polgraph at %s", big.Label)
		if t.Memory > 0 {
			add(figure, "≤ "+gib(topologyMemGoal), judge(t.Memory <= topologyMemGoal), "%s", mb(t.Memory))
		} else {
			add(figure, "≤ "+gib(topologyMemGoal), notMeasured, "unknown")
		}
	}

	// Answers at 1M, one client, from polgraph as `polgraph serve` runs it.
	p99 := func(family, what string, goal time.Duration) *result {
		figure, want := fmt.Sprintf("%s at %s, 1 client", what, big.Label), "p99 ≤ "+goalTime(goal)
		r := big.row(family, sysPolgraphMem, 1)
		if r == nil {
			add(figure, want, notMeasured, "no row")
			return nil
		}
		add(figure, want, judge(r.measured() && r.P99 <= goal), "%s / %s ms (p50 / p99)", ms(r.P50), ms(r.P99))
		return r
	}
	p99(pathsFamily(variant{1, 4}), "FindPaths k=1 depth 4", pathsK1P99Goal)
	p99(pathsFamily(variant{5, 6}), "FindPaths k=5 depth 6", pathsK5P99Goal)
	if r := p99(nbhdFamily(2), "ExploreNeighborhood depth 2", nbhdP99Goal); r != nil {
		figure, goal := fmt.Sprintf("ExploreNeighborhood depth 2 at %s against PostgreSQL, 1 client", big.Label), "faster at p50 and p99"
		if pg := big.row(nbhdFamily(2), sysPostgres, 1); pg != nil && pg.measured() {
			add(figure, goal, judge(r.measured() && r.P50 < pg.P50 && r.P99 < pg.P99), "PostgreSQL %s / %s ms", ms(pg.P50), ms(pg.P99))
		} else {
			add(figure, goal, notMeasured, "PostgreSQL did not run")
		}
	}
	p99(searchFamily, "SearchEntities with a typo", searchP99Goal)

	// Throughput as clients are added, every workload of polgraph as served.
	rows = append(rows, rep.scaling(1, 8, scale8Goal), rep.scaling(8, 64, scale64Goal))

	// Every path answer exact.
	checked, wrong := 0, 0
	for _, s := range rep.Sizes {
		for _, r := range s.Results {
			if r.Family != searchFamily && (r.System == sysPolgraph || r.System == sysPolgraphMem) && r.Checked > 0 {
				checked, wrong = checked+r.Checked, wrong+r.Wrong
			}
		}
	}
	if checked > 0 {
		add("polgraph's path answers against the floor, every size", "every one exact", judge(wrong == 0), "%d of %d exact", checked-wrong, checked)
	} else {
		add("polgraph's path answers against the floor, every size", "every one exact", notMeasured, "none checked")
	}

	add("the whole run", "≤ "+goalTime(fullRunGoal), judge(rep.Elapsed <= fullRunGoal), "%s", minSec(rep.Elapsed))
	return rows
}

// scaling judges the throughput at `to` clients over that at `from`, for every workload of polgraph with
// the graph in memory at every size, by the lowest ratio.
func (rep *report) scaling(from, to int, goal float64) targetRow {
	row := targetRow{Figure: fmt.Sprintf("throughput at %d clients ÷ at %d, every workload of polgraph with the graph in memory, every size", to, from),
		Goal: fmt.Sprintf("≥ %.1f× (the lowest)", goal)}
	if !slices.Contains(rep.Config.Conc, from) || !slices.Contains(rep.Config.Conc, to) {
		row.Got = fmt.Sprintf("not measured: the run had no %d- and %d-client rows", from, to)
		return row
	}
	lowest, at, n := 0.0, "", 0
	var base result // the lowest ratio's row at `from` clients
	for _, s := range rep.Sizes {
		for _, r := range s.Results {
			if r.System != sysPolgraphMem || r.Conc != from {
				continue
			}
			hi := s.row(r.Family, r.System, to)
			if !r.measured() || hi == nil || !hi.measured() || r.Throughput <= 0 {
				continue
			}
			x := hi.Throughput / r.Throughput
			if n == 0 || x < lowest {
				lowest, at, base = x, fmt.Sprintf("%s at %s", r.Family, s.Label), r
			}
			n++
		}
	}
	if n == 0 {
		row.Got = "no rows"
		return row
	}
	// How busy the machine already was at `from` clients bounds what more clients can add: at 1.4 of 2
	// cores, no more than about 2 ÷ 1.4 (docs/bench-changes.md, item 71).
	if base.Cores.Machine > 0 && rep.Machine.CPUs > 0 {
		at += fmt.Sprintf("; with %d %s the machine was already at %.2f of its %d cores", from, plural(from, "client", "clients"), base.Cores.Machine, rep.Machine.CPUs)
	}
	row.Verdict = judge(lowest >= goal)
	row.Got = fmt.Sprintf("%.2f× (%s), over %d workloads", lowest, at, n)
	return row
}

// size is the run's size of n relations, or nil.
func (rep *report) size(n int) *sizeResult {
	for _, s := range rep.Sizes {
		if s.Relations == n {
			return s
		}
	}
	return nil
}

// row is the measurement of a family by a system at conc clients, or nil.
func (s *sizeResult) row(family, system string, conc int) *result {
	for i, r := range s.Results {
		if r.Family == family && r.System == system && r.Conc == conc {
			return &s.Results[i]
		}
	}
	return nil
}

// measured says that a row ran and answered.
func (r result) measured() bool { return r.SkippedAfter == 0 && r.OK > 0 }

func partialNote(complete bool) string {
	if complete {
		return ""
	}
	return " (over what each wrote in its budget)"
}

func liveWhole(v liveResult) string {
	if v.Complete {
		return minSec(v.Elapsed)
	}
	return "stopped at its budget"
}

// minSec writes a duration in minutes and seconds, as 13m35s.
func minSec(d time.Duration) string { return d.Round(time.Second).String() }

// goalTime writes a target's time in its own unit: 10 min, 20 s, 15 ms.
func goalTime(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second:
		return fmt.Sprintf("%g s", d.Seconds())
	}
	return fmt.Sprintf("%g ms", float64(d)/float64(time.Millisecond))
}

// gib writes a target's size in GiB.
func gib(b int64) string { return fmt.Sprintf("%g GiB", float64(b)/(1<<30)) }

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
