package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// A report's query tables hold every row of every workload at every size: some 300 rows for a full run.
// The report written keeps, for each size, what the harness saw of the alpha and the fills and a headline
// table (each system's p50 / p99 at the lowest concurrency, and polgraph's throughput at each); the rows
// themselves go to one TSV file a size, as data. joinTables puts them back, so that a report can be
// written again in this layout from what a run wrote, without measuring (--rewrite).

// queriesHeading starts each size's section of query tables in the report as markdown renders it.
const queriesHeading = "## Queries on "

// queriesSection is the heading of the report's section that stands for the query tables once split.
const queriesSection = "\n## Queries\n"

// tableHead is the header of a size's query table, as markdown renders it.
const tableHead = "| query | system | clients | queries | p50 ms | p99 ms | per s | errors | answers | alpha before | alpha peak | cores: harness / alpha / machine | GCs |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

// tsvHead is the header line of a size's TSV file: the table's columns with their units in their names,
// the cores in three. A cell the table shows as "–" is an empty field.
const tsvHead = "query\tsystem\tclients\tqueries\tp50 ms\tp99 ms\tper s\terrors\tanswers\talpha before MB\talpha peak MB\tcores harness\tcores alpha\tcores machine\tGCs\n"

// Columns of the query table.
const (
	colQuery = iota
	colSystem
	colClients
	colQueries
	colP50
	colP99
	colPerSecond
	colErrors
	colAnswers
	colAlphaBefore
	colAlphaPeak
	colCores
	colGCs
	tableColumns
)

// tablesFile is where the rows of the size labelled label go, in the folder dir.
func tablesFile(dir, label string) string { return filepath.Join(dir, "queries-"+label+".tsv") }

// querySection is one size's section of query tables.
type querySection struct {
	label string     // the size as the run wrote it, e.g. 10k
	about string     // the paragraph before the table: the pairs, the alpha's memory, the fills, the waits
	rows  [][]string // each row's cells, as the table shows them
	rest  string     // what follows the table (the answers that differ from the floor's): "" or from "\n"
}

// parseSection reads a section from the line after its heading's "## Queries on " (or "### ") on: "10k
// relations", the paragraph, a table, and what follows it.
func parseSection(s string) (querySection, error) {
	first, body, _ := strings.Cut(s, "\n")
	label, ok := strings.CutSuffix(first, " relations")
	if !ok {
		return querySection{}, fmt.Errorf("a query section is headed %q, not \"<size> relations\"", first)
	}
	lines := strings.Split(body, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "|") })
	if start < 0 || start+2 > len(lines) {
		return querySection{}, fmt.Errorf("the queries on %s relations have no table", label)
	}
	end := start
	for end < len(lines) && strings.HasPrefix(lines[end], "|") {
		end++
	}
	sec := querySection{label: label, about: strings.TrimSpace(strings.Join(lines[:start], "\n")), rest: strings.Join(lines[end:], "\n")}
	for _, l := range lines[start+2 : end] { // past the header and its separator
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		sec.rows = append(sec.rows, cells)
	}
	return sec, nil
}

// markdown is the section as the report's markdown renders it, from the line after its heading on.
func (s querySection) markdown() string {
	var b strings.Builder
	b.WriteString(s.label + " relations\n\n" + s.about + "\n\n" + tableHead)
	for _, r := range s.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String() + s.rest
}

// tsv is the section's rows as a TSV file.
func (s querySection) tsv() string {
	var b strings.Builder
	b.WriteString(tsvHead)
	for _, r := range s.rows {
		f := make([]string, 0, len(r)+2)
		for i, c := range r {
			switch {
			case c == "–" && i == colCores:
				f = append(f, "", "", "")
			case c == "–":
				f = append(f, "")
			case i == colCores:
				f = append(f, strings.Split(c, " / ")...)
			case i == colAlphaBefore || i == colAlphaPeak:
				f = append(f, strings.TrimSuffix(c, " MB"))
			case i == colAnswers:
				f = append(f, strings.Trim(c, "*"))
			default:
				f = append(f, c)
			}
		}
		b.WriteString(strings.Join(f, "\t") + "\n")
	}
	return b.String()
}

// parseTSV reads a section's rows back from its TSV file, as the table shows them.
func parseTSV(text string) ([][]string, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0]+"\n" != tsvHead {
		return nil, fmt.Errorf("the header is %q, want %q", lines[0], strings.TrimSuffix(tsvHead, "\n"))
	}
	var rows [][]string
	for n, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != tableColumns+2 {
			return nil, fmt.Errorf("line %d has %d fields, want %d", n+2, len(f), tableColumns+2)
		}
		cores := strings.Join(f[colCores:colCores+3], " / ")
		if cores == " /  / " {
			cores = ""
		}
		cells := append(f[:colCores:colCores], cores, f[colCores+3])
		for i, c := range cells {
			switch {
			case c == "":
				cells[i] = "–"
			case (i == colAlphaBefore || i == colAlphaPeak) && c != "?":
				cells[i] = c + " MB"
			case i == colAnswers && strings.Contains(c, "WRONG"):
				cells[i] = "**" + c + "**"
			}
		}
		rows = append(rows, cells)
	}
	return rows, nil
}

// headline is the section's table in the report: for each query, each system's p50 / p99 in ms at the
// lowest concurrency (with its errors, if any), and the throughput of polgraph with the graph in memory
// (or, when the run did not measure it, of polgraph) at each concurrency.
func (s querySection) headline() string {
	var queries, systems, conc []string
	for _, r := range s.rows {
		for _, x := range []struct {
			list *[]string
			v    string
		}{{&queries, r[colQuery]}, {&systems, r[colSystem]}, {&conc, r[colClients]}} {
			if !slices.Contains(*x.list, x.v) {
				*x.list = append(*x.list, x.v)
			}
		}
	}
	main := s.main()
	row := func(query, system, clients string) []string {
		for _, r := range s.rows {
			if r[colQuery] == query && r[colSystem] == system && r[colClients] == clients {
				return r
			}
		}
		return nil
	}
	var b strings.Builder
	b.WriteString("| query | " + strings.Join(systems, " | ") + " | " + main + ", per s |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(systems)+1) + "\n")
	for _, q := range queries {
		b.WriteString("| " + q + " |")
		for _, sys := range systems {
			cell := "–"
			if r := row(q, sys, conc[0]); r != nil && r[colP50] == "–" {
				cell = "not measured"
			} else if r != nil {
				cell = r[colP50] + " / " + r[colP99]
				if r[colErrors] != "0" {
					cell += " (" + r[colErrors] + ")"
				}
			}
			b.WriteString(" " + cell + " |")
		}
		perSecond := make([]string, len(conc))
		for i, c := range conc {
			perSecond[i] = "–"
			if r := row(q, main, c); r != nil {
				perSecond[i] = r[colPerSecond]
			}
		}
		b.WriteString(" " + strings.Join(perSecond, " / ") + " |\n")
	}
	return b.String()
}

// main is the system whose throughput the headline gives: polgraph with the graph in memory, or
// polgraph when the run did not measure it.
func (s querySection) main() string {
	for _, r := range s.rows {
		if r[colSystem] == sysPolgraphMem {
			return sysPolgraphMem
		}
	}
	return sysPolgraph
}

// clientsText is numbers of clients as a sentence gives them: "1 client", "1, 8 and 64 clients".
func clientsText(conc []string) string {
	if len(conc) == 1 && conc[0] == "1" {
		return "1 client"
	}
	return joinList(conc) + " clients"
}

// clients is the concurrencies of the section's rows, in the order they first appear.
func (s querySection) clients() []string {
	var conc []string
	for _, r := range s.rows {
		if !slices.Contains(conc, r[colClients]) {
			conc = append(conc, r[colClients])
		}
	}
	return conc
}

// tableFile is a file of query rows to write.
type tableFile struct{ path, text string }

// splitTables moves the rows of a report's query sections, md being the report as markdown renders it
// and out where it is written, to a TSV file a size in the folder dir, linked from the report, which keeps
// each size's paragraph and headline table. files is nil when md has no query tables (a run of the loads
// only).
func splitTables(md, out, dir string) (report string, files []tableFile, err error) {
	parts := strings.Split(md, "\n"+queriesHeading)
	if len(parts) == 1 {
		return md, nil, nil
	}
	last := parts[len(parts)-1]
	rest := ""
	if i := strings.Index(last, "\n## "); i >= 0 {
		last, rest = last[:i], last[i:]
	}
	var secs []querySection
	var links []string
	for _, p := range append(parts[1:len(parts)-1], last) {
		sec, err := parseSection(p)
		if err != nil {
			return "", nil, err
		}
		path := tablesFile(dir, sec.label)
		ref := relativeTo(out, path)
		secs, links = append(secs, sec), append(links, "["+ref+"]("+ref+")")
		files = append(files, tableFile{path, sec.tsv()})
	}
	var b strings.Builder
	b.WriteString(parts[0] + queriesSection + "\nEvery row of every workload at every size, with the machine's state before each, is in " +
		joinList(links) + " (tab-separated, a header line first, a field the tables would show as – empty); the targets above are judged from them. " +
		"Below, for each size: each system's p50 / p99 in ms with " + clientsText(secs[0].clients()[:1]) + " (errors in brackets), and the answers a second of *" +
		secs[0].main() + "* at " + clientsText(secs[0].clients()) + ".\n")
	for _, sec := range secs {
		b.WriteString("\n### " + sec.label + " relations\n\n" + sec.about + "\n\n" + sec.headline() + sec.rest)
	}
	return b.String() + rest, files, nil
}

// joinTables gives back the report as markdown rendered it, from a report written at out: one split by
// splitTables, its rows read from the TSV files in dir; one split to a Markdown page of query tables that
// its Queries section links (this command's earlier layout); or one never split. read reads a file.
func joinTables(report, out, dir string, read func(string) ([]byte, error)) (string, error) {
	start := strings.Index(report, queriesSection)
	if start < 0 || strings.Contains(report, "\n"+queriesHeading) {
		return report, nil
	}
	section, rest := report[start+len(queriesSection):], ""
	if i := strings.Index(section, "\n## "); i >= 0 {
		section, rest = section[:i], section[i:]
	}
	var secs []string
	if strings.Contains(section, "\n### ") {
		for _, p := range strings.Split(section, "\n### ")[1:] {
			sec, err := parseSection(p)
			if err != nil {
				return "", err
			}
			b, err := read(tablesFile(dir, sec.label))
			if err != nil {
				return "", err
			}
			if sec.rows, err = parseTSV(string(b)); err != nil {
				return "", fmt.Errorf("%s: %w", tablesFile(dir, sec.label), err)
			}
			secs = append(secs, sec.markdown())
		}
	} else {
		_, link, ok := strings.Cut(section, "](")
		link, _, _ = strings.Cut(link, ")")
		if !ok || !strings.HasSuffix(link, ".md") {
			return "", fmt.Errorf("the report's Queries section has neither tables nor a link to them")
		}
		b, err := read(filepath.Join(filepath.Dir(out), filepath.FromSlash(link)))
		if err != nil {
			return "", err
		}
		secs = strings.Split(strings.TrimRight(string(b), "\n")+"\n", "\n"+queriesHeading)[1:]
	}
	var b strings.Builder
	b.WriteString(report[:start])
	for _, sec := range secs {
		b.WriteString("\n" + queriesHeading + sec)
	}
	return b.String() + rest, nil
}

// joinList joins items as a sentence does: "a", "a and b", "a, b and c".
func joinList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
