package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func mb(b int64) string {
	if b <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
}

func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func rate(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func checkedText(r result) string {
	switch {
	case r.Checked == 0:
		return "–"
	case r.Family == searchFamily:
		return fmt.Sprintf("%d/%d found", r.Checked-r.Wrong, r.Checked)
	case r.Wrong == 0:
		return fmt.Sprintf("%d/%d exact", r.Checked, r.Checked)
	}
	return fmt.Sprintf("**%d/%d WRONG**", r.Wrong, r.Checked)
}

// sliceOrderText shows the order of the slices of rows measured side by side, e.g. "1, 8, 64, 64, 8, 1, …".
func sliceOrderText(conc []int, slices int) string {
	text := joinInts(sliceOrder(conc, min(slices, 2)), ", ")
	if slices > 2 {
		text += ", …"
	}
	return text
}

// markdown renders the report.
func (rep *report) markdown() string {
	var b strings.Builder
	cfg := rep.Config
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# polgraph benchmarks\n\n")
	p("Measured by `cmd/polgraph-bench` on %s; the run took %s.\n\n", rep.Started.UTC().Format("2006-01-02 15:04 MST"), rep.Elapsed.Round(time.Second))
	p("- Command: `%s`\n", cfg.Command)
	p("- Machine: %d CPUs (%s), %.1f GiB memory. Load average (1, 5, 15 min) %s at the start and %s at the end: above %d, other work shared the CPUs and the numbers are that much noisier.\n",
		rep.Machine.CPUs, rep.Machine.Model, float64(rep.Machine.Memory)/(1<<30), rep.Machine.LoadAtStart, rep.Machine.LoadAtEnd, rep.Machine.CPUs)
	p("- Go %s; Dgraph %s; one zero and one alpha on loopback, started fresh for each load.\n", rep.GoVersion, rep.DgraphVersion)
	p("- Graphs from `internal/synth` with seed %d. Each workload ran for %s at each concurrency (%s clients), asking its %d inputs in turn, each with a %s deadline.\n",
		cfg.Seed, cfg.Duration, joinInts(cfg.Conc, " and "), cfg.Pairs, cfg.Timeout)
	if cfg.Topology && cfg.Slices > 1 && len(cfg.Conc) > 1 {
		p("- polgraph's in-memory rows, whose ratios the targets judge, ran side by side: their %s clients took turns, %d slices of %s, in turn and back (%s; docs/bench-changes.md, item 72). The other rows ran whole.\n",
			joinInts(cfg.Conc, " and "), cfg.Slices, ms(cfg.Duration/time.Duration(cfg.Slices))+" ms", sliceOrderText(cfg.Conc, cfg.Slices))
	}
	p("- Each workload first asks its inputs once, untimed (at most %s). One mostly timing out at a concurrency is not measured at higher ones.\n", min(cfg.Duration, time.Second))
	p("- p50 and p99 cover every query, failed ones included; per second counts answers. Errors: `timeout` the deadline, `budget` polgraph's work budget, `refused` no turn in time. *Cores*: CPU seconds a second of the harness, the alpha and the machine (of %d CPUs: near %d, CPU-bound). *GCs*: the harness's collections during the row.\n\n", rep.Machine.CPUs, rep.Machine.CPUs)

	rep.targetsSection(p)

	p("## Graphs\n\n")
	p("| size | entities | relations | claims | denied claims | relations with several claims | sources | max degree | generated in | dataset file | N-Quads |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Sizes {
		st := s.Gen.Stats
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s (%d quads) |\n", s.Label, st.Entities, st.Relations, st.Claims, st.DeniedClaims,
			st.MultiClaimRelations, st.Sources, slices.Max(append([]int32{0}, st.Degrees...)), secs(s.Gen.Elapsed), mb(s.Gen.JSONBytes), mb(s.Gen.RDFSize), s.Gen.Quads)
	}

	p("\n## Loading\n\n")
	p("polgraph loads as `polgraph load` does (check, then batches of %d records); `dgraph live` loads the same graph as N-Quads into a second fresh Dgraph. "+
		"Rates are per second of writing (*end to end* adds the check); both loaders' quads/s count the N-Quads that stand for what they wrote, so *live ÷ polgraph* compares them even on a partial load. "+
		"Peaks are resident memory (VmHWM).", cfg.Batch)
	if cfg.LoadBudget > 0 {
		p(" Each loader had %s per size; a load that ran out of time is marked *partial* and its rate is over what it wrote; the queries then ran on a Dgraph filled by polgraph's bulk path (`polgraph load --nquads`, then `dgraph bulk`).", cfg.LoadBudget)
	}
	p("\n\n| size | polgraph check | polgraph write | relations/s | claims/s | quads/s | end to end relations/s | alpha peak | polgraph peak | dgraph live | quads/s | relations/s | live ÷ polgraph | alpha peak | live loader peak |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Sizes {
		l, v := s.Load, s.Live
		write := secs(l.Write)
		if !l.Complete {
			write += fmt.Sprintf(" (partial: %d of %d relations)", l.Relations, s.Relations)
		}
		live := secs(v.Elapsed)
		if !v.Complete {
			live += fmt.Sprintf(" (partial: %d of %d quads)", v.Quads, s.Gen.Quads)
		}
		ratio := "–"
		if l.QuadsPS > 0 && v.QuadsPS > 0 {
			ratio = fmt.Sprintf("%.2f×", v.QuadsPS/l.QuadsPS)
		}
		p("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %.0f | %.0f | %s | %s | %s |\n", s.Label, secs(l.Read), write, l.RelationsPS, l.ClaimsPS,
			l.QuadsPS, l.EndToEndRate, mb(l.AlphaPeak), mb(l.HarnessPeak), live, v.QuadsPS, v.RelationsPS, ratio, mb(v.AlphaPeak), mb(v.LoaderPeak))
	}
	p("\n")
	for _, s := range rep.Sizes {
		if b := s.Bulk; b.Elapsed > 0 {
			all := b.Convert + b.Elapsed
			p("- %s: polgraph's bulk path filled the Dgraph the queries ran on: `polgraph load --nquads` checked the dataset file and then wrote it, "+
				"record by record, as %d N-Quads (as many as the generated file's) with the graph's snapshot file (%s) in %s, and `dgraph bulk` loaded them in %s (%.0f quads/s; loader peak %s): "+
				"%s in all, **%.2f×** the time of `dgraph bulk` alone on N-Quads.\n", s.Label, b.Quads, mb(b.SnapshotBytes), secs(b.Convert),
				secs(b.Elapsed), float64(b.Quads)/b.Elapsed.Seconds(), mb(b.LoaderPeak), secs(all), all.Seconds()/b.Elapsed.Seconds())
		}
		if !rep.Config.LoadOnly {
			p("- %s: the graph queried is %s.\n", s.Label, s.Equivalence)
		}
		if pl := s.Postgres; pl.Arcs > 0 {
			p("- %s: PostgreSQL %s took the graph's %d arcs (each relation both ways) by COPY in %s, then built its indexes and statistics in %s.\n",
				s.Label, pl.Version, pl.Arcs, secs(pl.Copy), secs(pl.Indexes))
		}
	}

	for _, s := range rep.Sizes {
		if rep.Config.LoadOnly {
			break
		}
		p("\n%s%s relations\n\n", queriesHeading, s.Label)
		p("Pairs by distance in hops under the default filter (-1: not within %d): %s. ", maxPairDistance, distanceText(s.Distances))
		settled := "went quiet"
		if !s.Query.Settled {
			settled = "was still busy"
		}
		p("Loading and filling polgraph's topologies left the alpha with %s; it was then restarted on the same data, so that its memory below is what answering costs. "+
			"Before the queries the harness waited %s, until the alpha used under a quarter of a core over %s (it %s), with %s resident. ",
			s.Query.AlphaBeforeRestart, secs(s.Query.Settle), secs(startQuietWindow), settled, mb(s.Query.AlphaAtStart))
		p("Peak memory during the queries: alpha %s (%s); this process %s (polgraph's services in-process, the floor's graphs, the clients).",
			mb(s.Query.AlphaPeak), s.Query.AlphaPeakHow, mb(s.Query.HarnessPeak))
		if s.Topology.Relations > 0 {
			t := s.Topology
			p(" polgraph's in-memory topology read %d relations in %s and added about %s: %d sources, entities and relations from their packs and %d from their predicates, the alpha using %s of CPU and polgraph %s (two cores).",
				t.Relations, secs(t.Fill), mb(t.Memory), t.Packed, t.Unpacked, secs(t.AlphaCPU), secs(t.CPU))
			switch {
			case t.Restart > 0 && t.FromBulk:
				p(" That fill, as a replica's on a Dgraph holding no copy of the file, kept none. A second topology, as the first polgraph started on the Dgraph the bulk path filled, read back the snapshot file written with the N-Quads (`polgraph load --nquads --snapshot-file`, %s) and caught up in %s, and answered the queries below.",
					mb(s.Bulk.SnapshotBytes), secs(t.Restart))
			case t.Restart > 0:
				p(" The fill also wrote the graph's snapshot file (%s); a second topology, as a restarted polgraph's, read it back and caught up in %s, and answered the queries below.",
					mb(t.FileBytes), secs(t.Restart))
			}
			if t.Replica > 0 {
				p(" That file went to Dgraph as its shared copy (%s of file in %s, in the background); a third topology, as a new replica's with no file of its own, fetched the copy and caught up in %s (%s of it fetching), the alpha using %s of CPU.",
					mb(t.Share.Bytes), secs(t.Share.Took), secs(t.Replica), secs(t.Fetch), secs(t.ReplicaAlphaCPU))
				p(" The alpha had %s after the fill from Dgraph and %s after the share", t.AlphaAfterFill, t.AlphaAfterShare)
				if t.AlphaReplicaPeak > 0 {
					p(", and peaked at %s resident while the replica fetched the copy", mb(t.AlphaReplicaPeak))
				}
				p(".")
			}
		}
		if rs := settleSummary(s.Results); rs != "" {
			p(" %s", rs)
		}
		p("\n\n")
		p("%s", tableHead)
		for _, r := range s.Results {
			if r.SkippedAfter != 0 {
				p("| %s | %s | %d | – | – | – | – | not measured: most queries timed out at %d clients | – | – | – | – | – |\n", r.Family, r.System, r.Conc, r.SkippedAfter)
				continue
			}
			p("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", r.Family, r.System, r.Conc, r.N, ms(r.P50), ms(r.P99), rate(r.Throughput), r.ErrorText(), checkedText(r), mb(r.AlphaBefore), mb(r.AlphaPeak), r.Cores, r.Collections)
		}
		var wrong []string
		for _, r := range s.Results {
			if r.Wrong > 0 && r.Family != searchFamily {
				wrong = append(wrong, fmt.Sprintf("%s, %s, %d clients: %s", r.Family, r.System, r.Conc, r.WrongExample))
			}
		}
		if len(wrong) > 0 {
			p("\nAnswers that differ from the floor's (first example of each):\n\n")
			for _, w := range wrong {
				p("- %s\n", w)
			}
		}
	}

	p("\n## What is compared\n\n")
	p("- **%s**: the gRPC API on loopback over `graph/dgraph.Store`: names resolved, paths by the engine (one `Store.Links` round trip a level, then Yen), every hop's relation and claims fetched; default filter.%s\n", sysPolgraph, turnsNote(rep.Config.Turns))
	p("- **%s**: the same with `memgraph.Topology`, as `polgraph serve` runs: names, searches, entities and relation headers from memory; claims from Dgraph.\n", sysPolgraphMem)
	p("- **%s**: DQL `shortest(numpaths: k, depth: 2×hops)` over the relation nodes; bare uids, no claims, so judged against the floor over every relation.\n", sysShortest)
	p("- **%s**: breadth first from one end, one DQL query a level, default filter; distance only.\n", sysBFS)
	p("- **%s**: DQL `@recurse` from the centre, `first: 25` a reverse edge, uids and names.\n", sysRecurse)
	p("- **%s**: BFS and Yen (k=5) on the same links in compressed sparse rows; its path lengths judge the others (*exact*: the k lengths are the floor's).\n", sysFloor)
	if cfg.Postgres {
		p("- **%s**: an edge table stored both ways with index-only scans and the default filter; paths by bidirectional BFS, one query a level, and Yen; neighbourhoods by lateral joins capped at 25; search by pg_trgm over a GIN index; lengths only, judged by the floor; fsync off.\n", sysPostgres)
	}
	p("- Search: one typo in the longest word of a random entity's name; *found*: on the first page of 10.\n")
	p("\n![latency by graph size](%s)\n", svgRef(cfg))
	p("\nWhat earlier runs taught, and what was changed because of them, is in [%s](%s).\n", changesFile, relativeTo(cfg.Out, changesFile))
	return b.String()
}

// changesFile holds the history of what the benchmarks changed, linked from every report.
const changesFile = "docs/bench-changes.md"

// svgRef is the chart's path as the report links it: relative to the report.
func svgRef(cfg config) string { return relativeTo(cfg.Out, cfg.SVG) }

// relativeTo is path as a file at from links it.
func relativeTo(from, path string) string {
	if rel, err := filepath.Rel(filepath.Dir(from), path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

func distanceText(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// settleSummary says how long the harness waited for a quiet alpha between rows, and where it waited
// longest; "" when it did not wait.
func settleSummary(rs []result) string {
	var total, longest time.Duration
	var at string
	waited, busy := 0, 0
	for _, r := range rs {
		total += r.Settle
		if r.Settle > 2*rowQuietWindow {
			waited++ // busy for at least one window
		}
		if r.Busy {
			busy++
		}
		if r.Settle > longest {
			longest, at = r.Settle, fmt.Sprintf("%s, %s, %d clients", r.Family, r.System, r.Conc)
		}
	}
	if total == 0 {
		return ""
	}
	out := fmt.Sprintf("Before each row after the first, the harness waited until the alpha had used under a quarter of a core over %s (Dgraph goes on with queries whose clients gave up at the deadline, and a row would measure what the one before it left): %s in all; the alpha was still busy at first before %s, longest before %s (%s)",
		secs(rowQuietWindow), secs(total), rows(waited), at, secs(longest))
	if busy > 0 {
		out += fmt.Sprintf(", and %s began with it still busy", rows(busy))
	}
	return out + "."
}

func rows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// turnsNote says, in the description of polgraph's systems, when they were served with turns.
func turnsNote(turns bool) string {
	if !turns {
		return " Served without the turns `polgraph serve` gives each method (`--turns=false`)."
	}
	return " Served with the turns `polgraph serve` gives each method (`--turns`: `graph/rpc.Limiter` at its defaults, eight calls of a method at once on two cores, the rest waiting and reading the graph's version meanwhile)."
}

// targetsSection writes how the run stands against the targets of "Performance round 2".
func (rep *report) targetsSection(p func(format string, args ...any)) {
	p("## Against the targets\n\n")
	p("The figures \"Performance round 2\" set, judged on this run's measurements alone (`cmd/polgraph-bench/targets.go`): a size or row the run did not measure, or a load its budget cut short, is *not measured*. Why a target is missed is measured in [Where the targets stand](%s#where-the-targets-stand).\n\n", relativeTo(rep.Config.Out, changesFile))
	p("| figure | target | this run | verdict |\n|---|---|---|---|\n")
	for _, t := range rep.targets() {
		p("| %s | %s | %s | %s |\n", t.Figure, t.Goal, t.Got, t.Verdict)
	}
	p("\n")
}
