package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/ftm"
	"github.com/polgraph/polgraph/graph/popolo"
)

// importRecords imports Popolo or FollowTheMoney files: they are read and mapped (merging with what the
// graph holds), written in polgraph's format and read back, so that every limit of the format is checked
// before anything is written, and then loaded like a dataset.
func importRecords(ctx context.Context, format string, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("import "+format, stderr, "dgraph", "data-dir", "log", "batch")
	remote := &clientFlags{}
	remote.registerCall(fs)
	fs.Lookup("timeout").DefValue, remote.timeout = "10m0s", 10*time.Minute
	requestID := fs.String("request-id", "", "with --server: an id that makes an import sent again (after a cut) write once")
	var src graph.Source
	var retrieved string
	fs.StringVar((*string)(&src.Name), "source", "", "the dataset source its claims cite (default sources/<file name>-"+format+")")
	fs.StringVar(&src.Title, "title", "", "the source's title")
	fs.StringVar(&src.Outlet, "publisher", "", "who publishes the data")
	fs.StringVar(&src.URL, "url", "", "where the data was fetched from")
	fs.StringVar(&retrieved, "retrieved", "", "when the data was fetched (YYYY, YYYY-MM or YYYY-MM-DD)")
	fs.StringVar(&src.Licence, "licence", "", "the data's licence")
	confidence := fs.Float64("confidence", 0, "confidence of every claim (default 0.95 for Popolo, 0.9 for FollowTheMoney)")
	dryRun := fs.String("dry-run", "", "write the mapped records to this file (polgraph's format) and load nothing")
	fs.Usage = func() {
		fmt.Fprint(stderr, importUsage+"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return errUsage
	}
	if fs.NArg() < 1 || format == "ftm" && fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if retrieved != "" {
		d, err := graph.ParseFuzzyDate(retrieved)
		if err != nil {
			return fmt.Errorf("--retrieved: %w", err)
		}
		src.Retrieved = d
	}
	if math.IsNaN(*confidence) || *confidence < 0 || *confidence > 1 {
		return fmt.Errorf("--confidence must be a number from 0 to 1, got %g", *confidence)
	}
	target, err := writeTargetOf(fs, remote.server, cfg.Dgraph)
	if err != nil {
		return err
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	if *dryRun == "" {
		target.say(stderr)
	}
	viaServer := target.server != ""

	var g popolo.Graph
	var store *dgraph.Store
	if viaServer {
		conn, err := remote.dialConn()
		if err != nil {
			return err
		}
		defer conn.Close()
		g = remoteGraph{pb.NewGraphServiceClient(conn)}
	} else {
		if store, err = cfg.openDgraph(ctx, log); err != nil {
			return err
		}
		defer store.Close()
		g = store
	}

	var sub graph.Subgraph
	var lines []string
	name := fs.Arg(0)
	switch format {
	case "popolo":
		var inputs []popolo.Input
		for _, path := range fs.Args() {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			doc, err := popolo.Decode(f, path)
			f.Close()
			if err != nil {
				return err
			}
			in := popolo.Input{Name: path, File: doc, Source: src}
			if len(fs.Args()) > 1 && src.Name != "" {
				in.Source.Name = "" // one source per file
			}
			inputs = append(inputs, in)
		}
		lctx, cancel := context.WithTimeout(ctx, remote.timeout)
		defer cancel()
		var rep *popolo.Report
		sub, rep, err = popolo.Import(lctx, g, inputs, popolo.Options{Confidence: *confidence})
		if err != nil {
			return remote.callError(err)
		}
		lines = rep.Lines
		fmt.Fprintf(stdout, "%d entities created, %d merged with the graph's; %d relations (%d repeated records left out)\n",
			rep.Created, rep.Merged, rep.Relations, rep.Duplicates)
		if rep.NearDuplicates > 0 {
			fmt.Fprintf(stdout, "%d records left apart from entities they may be (each said below)\n", rep.NearDuplicates)
		}
	case "ftm":
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		var rep ftm.Report
		sub, rep, err = ftm.Read(f, name, ftm.Options{Source: src, Confidence: *confidence})
		if err != nil {
			return err
		}
		for _, p := range rep.Problems {
			lines = append(lines, p.String())
		}
		fmt.Fprintf(stdout, "%s: %d records read: %d entities, %d relations, %d skipped\n", name, rep.Read, rep.Entities, rep.Relations, rep.Skipped)
		lctx, cancel := context.WithTimeout(ctx, remote.timeout)
		defer cancel()
		merged, err := popolo.Reconcile(lctx, g, sub)
		if err != nil {
			return remote.callError(err)
		}
		sub, lines = merged.Subgraph, append(lines, merged.Lines...)
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, "  "+l)
	}

	// Written in polgraph's format and read back: every record is checked as a file would be.
	ds, text, err := dataset.Check(name+" (as a dataset)", sub)
	if err != nil {
		return err
	}
	if *dryRun != "" {
		return os.WriteFile(*dryRun, text, 0o644)
	}
	if viaServer {
		return sendLoad(ctx, remote, *requestID, []dataset.File{{Name: name + " (as a dataset)", R: bytes.NewReader(text)}}, stdout)
	}
	return loadDataset(ctx, store, ds, "import", cfg.Batch, nil, stdout, stderr)
}
