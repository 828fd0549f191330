package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ocd"
)

const importUsage = `usage: polgraph import ocd-divisions [flags] FILE

Loads an Open Civic Data division list (CSV with the columns id,name,sameAs,sameAsNote,validThrough,
validFrom) as seats: one per row, named seats/<slug of the id's last part>, with its OCD id and dates, and
a SUCCEEDED_BY relation from each seat to its sameAs. A seat the graph already holds under the same OCD id
keeps its name. The file is checked first and nothing is written unless it is valid; importing it again
changes nothing.
`

// importCmd loads data in formats other than polgraph's own.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "ocd-divisions" {
		fmt.Fprint(stderr, importUsage)
		return errUsage
	}
	cfg := defaultConfig()
	fs := cfg.flags("import ocd-divisions", stderr, "dgraph", "data-dir", "log", "batch")
	fs.Usage = func() {
		fmt.Fprint(stderr, importUsage+"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	list, err := ocd.Read(dataset.File{Name: path, R: f})
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
	known, err := list.Lookup(ctx, store)
	if err != nil {
		return err
	}
	ds, err := list.Dataset(known)
	if err != nil {
		return err
	}
	log.Info("importing Open Civic Data divisions", "file", path, "divisions", len(list.Divisions),
		"already_in_graph", len(known.ByOCD), "source", list.Source().Name)
	fmt.Fprintf(stdout, "%s: %d divisions, %d of them already in the graph by OCD id\n", path, len(list.Divisions), len(known.ByOCD))
	return loadDataset(ctx, store, ds, "import", cfg.Batch, stdout, stderr)
}
