package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/synth"
)

const genUsage = `usage: polgraph gen --relations N --out FILE [--seed S] [--rdf FILE]

Writes a synthetic political graph of exactly N relations (10k, 100k and 1m are accepted) as a dataset
file that ` + "`polgraph load`" + ` reads, and, with --rdf, the same graph as RDF N-Quads for
` + "`dgraph live -f FILE -s schema/schema.dql`" + ` (gzipped when FILE ends in .gz). The same seed and size always
give the same files.
`

// genCmd writes a synthetic graph (package internal/synth) for benchmarks and load tests.
func genCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("polgraph gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("relations", "10k", "how many relations: a number, or with a k or m suffix")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "the dataset file to write (JSON Lines, data/FORMAT.md)")
	rdf := fs.String("rdf", "", "also write the graph as RDF N-Quads for dgraph live to this file")
	fs.Usage = func() {
		fmt.Fprint(stderr, genUsage+"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	n, err := parseSize(*size)
	if *out == "" || fs.NArg() != 0 || err != nil {
		if err != nil {
			fmt.Fprintln(stderr, "polgraph gen:", err)
		}
		fs.Usage()
		return errUsage
	}
	start := time.Now()
	stats, err := writeSynthetic(ctx, synth.Config{Relations: n, Seed: *seed}, *out, *rdf)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d sources, %d entities, %d relations, %d claims (%d denied) to %s in %s\n",
		stats.Sources, stats.Entities, stats.Relations, stats.Claims, stats.DeniedClaims, *out, time.Since(start).Round(time.Millisecond))
	if *rdf != "" {
		fmt.Fprintf(stdout, "wrote the same graph as RDF N-Quads to %s\n", *rdf)
	}
	return nil
}

// parseSize reads a count such as 10000, 10k or 1m.
func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(strings.ToLower(s), "k"):
		mult, s = 1000, s[:len(s)-1]
	case strings.HasSuffix(strings.ToLower(s), "m"):
		mult, s = 1_000_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size: want a positive number, e.g. 10000, 10k or 1m", s)
	}
	return n * mult, nil
}

// writeSynthetic generates the graph into a dataset file and, when rdfPath is set, an N-Quads file
// (gzipped when its name ends in .gz). Each file appears whole or not at all.
func writeSynthetic(ctx context.Context, cfg synth.Config, outPath, rdfPath string) (synth.Stats, error) {
	if err := ctx.Err(); err != nil {
		return synth.Stats{}, err
	}
	var stats synth.Stats
	err := writeFileAtomically(outPath, false, func(w io.Writer) error {
		ds := dataset.NewWriter(w, fmt.Sprintf("synthetic-%d-seed-%d", cfg.Relations, cfg.Seed),
			fmt.Sprintf("A synthetic political graph of %d relations made by `polgraph gen` with seed %d.", cfg.Relations, cfg.Seed))
		generate := func(sinks synth.Sinks) (err error) {
			if stats, err = synth.Generate(cfg, sinks); err != nil {
				return err
			}
			return ds.Flush()
		}
		if rdfPath == "" {
			return generate(synth.Sinks{ds})
		}
		return writeFileAtomically(rdfPath, strings.HasSuffix(rdfPath, ".gz"), func(rw io.Writer) error {
			nq := dgraph.NewNQuadWriter(rw)
			if err := generate(synth.Sinks{ds, nq}); err != nil {
				return err
			}
			return nq.Flush()
		})
	})
	return stats, err
}
