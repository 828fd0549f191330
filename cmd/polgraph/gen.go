package main

import (
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/synth"
)

const genUsage = `usage: polgraph gen --relations N --out FILE [--seed S] [--rdf FILE]

Writes a synthetic political graph of exactly N relations (10k, 100k and 1m are accepted) as a dataset
file that ` + "`polgraph load`" + ` reads, and, with --rdf, the same graph as RDF N-Quads for
` + "`dgraph live -f FILE -s schema/schema.dql`" + ` (gzipped when FILE ends in .gz). The same seed and size always
give the same files.
`

// genCmd writes a synthetic graph (package graph/synth) for benchmarks and load tests.
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

// writeSynthetic generates the graph into a dataset file and, when rdfPath is set, an N-Quads file.
func writeSynthetic(ctx context.Context, cfg synth.Config, outPath, rdfPath string) (synth.Stats, error) {
	if err := ctx.Err(); err != nil {
		return synth.Stats{}, err
	}
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	f, err := os.Create(outPath)
	if err != nil {
		return synth.Stats{}, err
	}
	closers = append(closers, f.Close)
	ds := dataset.NewWriter(f, fmt.Sprintf("synthetic-%d-seed-%d", cfg.Relations, cfg.Seed),
		fmt.Sprintf("A synthetic political graph of %d relations made by `polgraph gen` with seed %d.", cfg.Relations, cfg.Seed))
	sinks := synth.Sinks{ds}
	var nq *dgraph.NQuadWriter
	if rdfPath != "" {
		rf, err := os.Create(rdfPath)
		if err != nil {
			closeAll()
			return synth.Stats{}, err
		}
		closers = append(closers, rf.Close)
		var w io.Writer = rf
		if strings.HasSuffix(rdfPath, ".gz") {
			zw, _ := gzip.NewWriterLevel(rf, gzip.BestSpeed)
			closers = append(closers, zw.Close)
			w = zw
		}
		nq = dgraph.NewNQuadWriter(w)
		sinks = append(sinks, nq)
	}
	stats, err := synth.Generate(cfg, sinks)
	if err == nil {
		err = ds.Flush()
	}
	if err == nil && nq != nil {
		err = nq.Flush()
	}
	return stats, errors.Join(err, closeAll())
}
