package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
)

func loadCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("load", stderr, "dgraph", "data-dir", "log", "batch")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polgraph load [flags] FILE...\n\nChecks every file first and writes nothing unless all are valid.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	var files []dataset.File
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		files = append(files, dataset.File{Name: path, R: f})
	}
	ds, err := dataset.Read(files)
	if err != nil {
		return err
	}
	dc, err := cfg.dgraphConfig()
	if err != nil {
		return err
	}
	store, err := openStore(ctx, dc, log)
	if err != nil {
		return err
	}
	defer store.Close()
	return loadDataset(ctx, store, ds, cfg.Batch, stdout, stderr)
}

// loadDataset writes a checked dataset with progress on stderr (a counter on a terminal) and a summary on
// stdout.
func loadDataset(ctx context.Context, store *dgraph.Store, ds *dataset.Dataset, batch int, stdout, stderr io.Writer) error {
	start := time.Now()
	before, err := store.Counts(ctx)
	if err != nil {
		return err
	}
	tty := isTerminal(stderr)
	progress := func(stage string, done, total int) {
		if tty {
			fmt.Fprintf(stderr, "\rloading %-9s %6d/%-6d", stage, done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	if err := dataset.Load(ctx, store, ds, batch, progress); err != nil {
		return err
	}
	after, err := store.Counts(ctx)
	if err != nil {
		return err
	}
	claims := 0
	for _, r := range ds.Relations {
		claims += len(r.Claims)
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "loaded %d sources, %d entities, %d relations, %d claims in %s (%.0f relations/s)\n",
		len(ds.Sources), len(ds.Entities), len(ds.Relations), claims, elapsed.Round(time.Millisecond),
		float64(len(ds.Relations))/elapsed.Seconds())
	fmt.Fprintf(stdout, "the graph now holds %s (new: %s)\n", countsText(after), countsText(diff(after, before)))
	return nil
}

func countsText(c graph.Counts) string {
	return fmt.Sprintf("%d entities, %d relations, %d claims, %d sources", c.Entities, c.Relations, c.Claims, c.Sources)
}

func diff(a, b graph.Counts) graph.Counts {
	return graph.Counts{Entities: a.Entities - b.Entities, Relations: a.Relations - b.Relations,
		Claims: a.Claims - b.Claims, Sources: a.Sources - b.Sources}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
