package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/bulkpath"
)

func loadCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("load", stderr, "dgraph", "data-dir", "log", "batch", "watch")
	// With --server, the files go to a running polgraph's WriteService.Load instead of to Dgraph.
	remote := &clientFlags{}
	remote.registerCall(fs)
	fs.Lookup("timeout").DefValue, remote.timeout = "10m0s", 10*time.Minute
	requestID := fs.String("request-id", "", "with --server: an id that makes a load sent again (after a cut) write once")
	nquads := fs.String("nquads", "", "write the graph as RDF N-Quads to this file (gzipped when it ends in .gz), for `dgraph bulk` to fill a new cluster, instead of writing to Dgraph")
	snapshot := fs.String("snapshot-file", "", "with --nquads: also write the graph held in memory to this file, for the first `polgraph serve --snapshot-file` (or run) on the cluster dgraph bulk fills from those N-Quads to read back instead of reading the whole graph from Dgraph")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polgraph load [flags] FILE...\n\nChecks every file first and writes nothing unless all are valid.\n"+
			"Writes to Dgraph (--dgraph), through a running polgraph (--server, with an editor's --api-key),\n"+
			"or, for a new cluster, to an N-Quads file for dgraph bulk (--nquads; see docs/operations.md).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	viaServer := false
	fs.Visit(func(f *flag.Flag) { viaServer = viaServer || f.Name == "server" })
	if *nquads != "" && !viaServer {
		return loadToNQuads(fs.Args(), *nquads, *snapshot, stdout)
	}
	if *snapshot != "" && !viaServer {
		fmt.Fprintln(stderr, "--snapshot-file goes with --nquads: a load into Dgraph leaves the graph's snapshot file to polgraph serve")
		return errUsage
	}
	target, err := writeTargetOf(fs, remote.server, cfg.Dgraph)
	if err != nil {
		return err
	}
	target.say(stderr)
	if viaServer {
		return loadThrough(ctx, remote, *requestID, fs.Args(), stdout)
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	in, err := checkDatasetFiles(fs.Args())
	if err != nil {
		return err
	}
	watch, err := cfg.startWatching(ctx, log)
	if err != nil {
		return err
	}
	defer watch.stop()
	store, err := cfg.openDgraph(ctx, log, watch.dialOptions()...)
	if err != nil {
		return err
	}
	defer store.Close()
	return loadRecords(ctx, store, in, "load", cfg.Batch, watch, stdout, stderr)
}

// loadInput is what a load writes: how many records of each kind, and how to write them.
type loadInput struct {
	sources, entities, relations, claims int
	write                                func(ctx context.Context, w graph.Writer, opts dataset.LoadOptions) error
}

// datasetInput is a dataset read whole.
func datasetInput(ds *dataset.Dataset) loadInput {
	claims := 0
	for _, r := range ds.Relations {
		claims += len(r.Claims)
	}
	return loadInput{sources: len(ds.Sources), entities: len(ds.Entities), relations: len(ds.Relations), claims: claims,
		write: func(ctx context.Context, w graph.Writer, opts dataset.LoadOptions) error {
			return dataset.LoadWith(ctx, w, ds, opts)
		}}
}

// checkDatasetFiles checks dataset files as one dataset, holding none of their records: the load reads
// them again as it writes them (dataset.Checked.Load), so that a file of any size loads in the memory
// its names take.
func checkDatasetFiles(paths []string) (loadInput, error) {
	open := func() ([]dataset.File, func(), error) { return openDatasetFiles(paths) }
	checked, err := dataset.CheckOpened(open)
	if err != nil {
		return loadInput{}, err
	}
	return loadInput{sources: checked.Sources, entities: checked.Entities, relations: checked.Relations, claims: checked.Claims,
		write: func(ctx context.Context, w graph.Writer, opts dataset.LoadOptions) error {
			return checked.Load(ctx, w, open, opts)
		}}, nil
}

// loadDataset writes a dataset read whole (see loadRecords).
func loadDataset(ctx context.Context, store *dgraph.Store, ds *dataset.Dataset, method string, batch int, watch *watching, stdout, stderr io.Writer) error {
	return loadRecords(ctx, store, datasetInput(ds), method, batch, watch, stdout, stderr)
}

// loadRecords writes checked records with progress on stderr (a counter on a terminal) and a summary on
// stdout; its progress goes to watch's metrics, and its calls to Dgraph are traced under one span (when
// watch is not nil).
func loadRecords(ctx context.Context, store *dgraph.Store, in loadInput, method string, batch int, watch *watching, stdout, stderr io.Writer) error {
	start := time.Now()
	ctx, watched, end := watch.startLoad(ctx, method, in.sources+in.entities+in.relations)
	defer end()
	ctx = graph.WithWriteMeta(ctx, localWriter(method))
	before, err := store.Counts(ctx)
	if err != nil {
		return err
	}
	tty := isTerminal(stderr)
	progress := func(stage string, done, total int) {
		if watched != nil {
			watched(stage, done, total)
		}
		if tty {
			fmt.Fprintf(stderr, "\rloading %-9s %6d/%-6d", stage, done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := dataset.LoadOptions{Batch: batch, Progress: progress, OnRetry: func(stage string, attempt int, err error) {
		log.Warn("Dgraph refused a batch; trying it again", "stage", stage, "attempt", attempt, "err", err)
	}}
	if err := in.write(ctx, store, opts); err != nil {
		var le *dataset.LoadError
		if errors.As(err, &le) {
			fmt.Fprint(stderr, loadReport(le))
		}
		return err
	}
	after, err := store.Counts(ctx)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "loaded %d sources, %d entities, %d relations, %d claims in %s (%.0f relations/s)\n",
		in.sources, in.entities, in.relations, in.claims, elapsed.Round(time.Millisecond),
		float64(in.relations)/elapsed.Seconds())
	fmt.Fprintf(stdout, "the graph now holds %s (new: %s)\n", countsText(after), countsText(diff(after, before)))
	return nil
}

// loadToNQuads checks dataset files as a load does and writes the graph as N-Quads for `dgraph bulk`: the
// nodes and values a load writes, the graph's version 1, every relation changed at it; with snapshot set,
// also the snapshot file a first fill of that graph reads back (internal/bulkpath). It reads the files twice,
// to check them and then to write them record by record, and holds no records: a file of any size
// converts in the memory its names take. The output appears whole or not at all.
func loadToNQuads(paths []string, out, snapshot string, stdout io.Writer) error {
	start := time.Now()
	open := func() ([]dataset.File, func(), error) { return openDatasetFiles(paths) }
	var written bulkpath.Written
	err := writeFileAtomically(out, strings.HasSuffix(out, ".gz"), func(w io.Writer) error {
		var err error
		written, err = bulkpath.Write(open, w, snapshot)
		return err
	})
	if err != nil {
		return err
	}
	c := written.Checked
	fmt.Fprintf(stdout, "wrote %d sources, %d entities, %d relations as %d N-Quads to %s in %s\n",
		c.Sources, c.Entities, c.Relations, written.Quads, out, time.Since(start).Round(time.Millisecond))
	switch {
	case snapshot != "" && written.NoSnapshot != "":
		fmt.Fprintf(stdout, "wrote no snapshot file: %s; the first polgraph serving the Dgraph that dgraph bulk fills from %s reads the graph from Dgraph\n", written.NoSnapshot, out)
	case snapshot != "":
		fmt.Fprintf(stdout, "wrote the graph's snapshot file %s: the first polgraph serving the Dgraph that dgraph bulk fills from %s reads it back\n", snapshot, out)
	}
	return nil
}

// writeFileAtomically writes a file through write (gzipped when gz is set) under a temporary name beside
// it, and renames it into place only once it is whole.
func writeFileAtomically(path string, gz bool, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())              // after the rename, nothing
	if err := f.Chmod(0o644); err != nil { // as os.Create would leave it, not the temporary file's 0600
		f.Close()
		return err
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
		w = zw
	}
	err = write(w)
	if zw != nil {
		err = errors.Join(err, zw.Close())
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// loadReport says what a load that stopped had committed, whether readers see it, and how to finish.
func loadReport(le *dataset.LoadError) string {
	var b strings.Builder
	b.WriteString("the load stopped before its end; committed by then:")
	for i, st := range le.Stages {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d of %d %s", st.Done, st.Total, st.Stage)
	}
	b.WriteString(".\n")
	if n := len(le.Stages); n > 0 && le.Stages[n-1].Stage == "relations" && le.Stages[n-1].Done > 0 {
		if le.Published {
			b.WriteString("What was committed stays in the graph and is visible now.\n")
		} else {
			b.WriteString("What was committed stays in the graph; its relations become visible when the load's hold on the graph version lapses, within a minute.\n")
		}
	} else {
		b.WriteString("What was committed stays in the graph and is visible now.\n")
	}
	b.WriteString("Run the same command again to write the rest: every write is an upsert by name, so it ends at exact counts.\n")
	return b.String()
}

// localWriter is who the audit trail says wrote what a command wrote straight to Dgraph: "local", with
// the operating system's user.
func localWriter(method string) graph.WriteMeta {
	m := graph.WriteMeta{Principal: "local", Aliases: []string{"local"}, Method: method}
	if u, err := user.Current(); err == nil && u.Username != "" {
		m.Principal = "local (" + u.Username + ")"
		m.Aliases = append(m.Aliases, u.Username)
	}
	return m
}

func countsText(c graph.GraphCounts) string {
	return fmt.Sprintf("%d entities, %d relations, %d claims, %d sources", c.Entities, c.Relations, c.Claims, c.Sources)
}

func diff(a, b graph.GraphCounts) graph.GraphCounts {
	return graph.GraphCounts{Entities: a.Entities - b.Entities, Relations: a.Relations - b.Relations,
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

// loadThrough sends dataset files to a running polgraph's WriteService.Load, a chunk of lines at a time,
// and prints what it wrote as a local load does. The service checks the files whole before it writes.
func loadThrough(ctx context.Context, c *clientFlags, requestID string, paths []string, stdout io.Writer) error {
	files, closeFiles, err := openDatasetFiles(paths)
	if err != nil {
		return err
	}
	defer closeFiles()
	return sendLoad(ctx, c, requestID, files, stdout)
}

// openDatasetFiles opens dataset files to read; closeFiles closes them.
func openDatasetFiles(paths []string) (files []dataset.File, closeFiles func(), err error) {
	var opened []*os.File
	closeFiles = func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			closeFiles()
			return nil, nil, err
		}
		opened = append(opened, f)
		files = append(files, dataset.File{Name: path, R: f})
	}
	return files, closeFiles, nil
}

// readDatasetFiles reads and checks dataset files, as one dataset.
func readDatasetFiles(paths []string) (*dataset.Dataset, error) {
	files, closeFiles, err := openDatasetFiles(paths)
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	return dataset.Read(files)
}

// sendLoad streams dataset files to WriteService.Load and prints what the service says it wrote.
func sendLoad(ctx context.Context, c *clientFlags, requestID string, files []dataset.File, stdout io.Writer) error {
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	start := time.Now()
	stream, err := pb.NewWriteServiceClient(conn).Load(ctx)
	if err != nil {
		return c.callError(err)
	}
	// A request holds whole lines, and never more than the service takes (maxRequestBytes): a line too
	// long for a request of its own is refused before it is sent, and the stream is left unclosed, so
	// that the service writes nothing of the load.
	const chunkLines, chunkBytes = 1000, 1 << 20
	send := func(req *pb.LoadRequest) error {
		if err := stream.Send(req); err != nil {
			_, err = stream.CloseAndRecv()
			return c.callError(err)
		}
		return nil
	}
	for _, file := range files {
		path := file.Name
		r := bufio.NewReaderSize(file.R, 1<<20)
		req := &pb.LoadRequest{File: path, RequestId: requestID}
		size, sent, lineNo := proto.Size(req), false, 0
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				lineNo++
				if n := len(line); n > 0 && line[n-1] == '\n' {
					line = line[:n-1]
				}
				more := protowire.SizeTag(2) + protowire.SizeBytes(len(line))
				if size+more > maxRequestBytes && len(req.Lines) > 0 {
					if err := send(req); err != nil {
						return err
					}
					req, sent = &pb.LoadRequest{File: path}, true
					size = proto.Size(req)
				}
				if size+more > maxRequestBytes {
					var v graph.Violations
					v.Add(fmt.Sprintf("%s:%d", path, lineNo), "the record is %d bytes; a request to polgraph holds at most %d MiB (%d bytes)",
						len(line), maxRequestBytes>>20, maxRequestBytes)
					return v.Err("load", "nothing was written: a record is too large to send through --server "+c.server)
				}
				req.Lines = append(req.Lines, line)
				size += more
			}
			last := errors.Is(err, io.EOF)
			if err != nil && !last {
				return fmt.Errorf("%s: %w", path, err)
			}
			if len(req.Lines) >= chunkLines || size >= chunkBytes || (last && (len(req.Lines) > 0 || !sent)) {
				if err := send(req); err != nil {
					return err
				}
				req, sent = &pb.LoadRequest{File: path}, true
				size = proto.Size(req)
			}
			if last {
				break
			}
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return c.callError(err)
	}
	if c.json {
		return printJSON(stdout, resp)
	}
	elapsed := time.Since(start)
	replayed := ""
	if resp.GetReplayed() {
		replayed = " (already loaded with this request id: nothing written again)"
	}
	fmt.Fprintf(stdout, "loaded %d sources, %d entities, %d relations, %d claims through %s in %s%s\n",
		resp.GetSources(), resp.GetEntities(), resp.GetRelations(), resp.GetClaims(), c.server, elapsed.Round(time.Millisecond), replayed)
	g := resp.GetGraph()
	fmt.Fprintf(stdout, "the graph now holds %s\n", countsText(graph.GraphCounts{Entities: int(g.GetEntities()), Relations: int(g.GetRelations()),
		Claims: int(g.GetClaims()), Sources: int(g.GetSources())}))
	return nil
}
