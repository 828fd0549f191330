package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/deploy/dgraphlocal"
	"github.com/polgraph/polgraph/graph/dataset"
)

// runAll is `make run`: a local Dgraph, the schema, the default graph, the gRPC service and the graph
// explorer, in the foreground until Ctrl-C.
func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("run", stderr, "addr", "http", "timeout", "log", "local", "data-dir", "batch", "watch")
	datasetFile := fs.String("dataset", "", "the dataset to load at start instead of the default Tower Hamlets graph; "+
		"\"none\" loads nothing (an empty graph, or the graph the data directory already holds)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	var ds *dataset.Dataset
	switch *datasetFile {
	case "":
		if ds, err = dataset.Read([]dataset.File{data.Default()}); err != nil {
			return fmt.Errorf("the default dataset is invalid: %w", err)
		}
	case "none":
	default:
		if ds, err = readDatasetFiles([]string{*datasetFile}); err != nil {
			return err
		}
	}
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another polgraph running? set --addr or POLGRAPH_ADDR)", cfg.Addr, err)
	}
	defer lis.Close()
	webLis, err := listenExplorer(cfg.HTTP)
	if err != nil {
		return err
	}
	if webLis != nil {
		defer webLis.Close()
	}
	watch, err := cfg.startWatching(ctx, log)
	if err != nil {
		return err
	}
	defer watch.stop()
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	local := dgraphlocal.Config{Binary: cfg.DgraphBin, DataDir: dataDir, PortOffset: cfg.PortOffset, Logger: log}
	cluster, err := dgraphlocal.Start(ctx, local)
	if err != nil {
		return err
	}
	defer func() {
		log.Info("stopping Dgraph")
		if err := cluster.Stop(); err != nil {
			log.Warn("stopping Dgraph", "err", err)
		}
	}()
	// A Dgraph process that dies is restarted (Dgraph recovers from its write-ahead log, and polgraph
	// reconnects by itself); one that keeps dying stops polgraph, with a message naming its log, since a
	// restart cannot mend what kills it and a supervisor above polgraph (systemd, Kubernetes) should know.
	ctx, giveUp := context.WithCancelCause(ctx)
	defer giveUp(nil)
	go func() {
		select {
		case err := <-cluster.Supervise(ctx):
			giveUp(err)
		case <-ctx.Done():
		}
	}()
	failed := func(err error) error {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("polgraph stops: %w", cause)
		}
		return err
	}
	dc := cluster.Service()
	dc.DialOptions = append(dc.DialOptions, watch.dialOptions()...)
	store, err := openStore(ctx, dc, log)
	if err != nil {
		return failed(err)
	}
	defer store.Close()
	if ds != nil {
		if err := loadDataset(ctx, store, ds, "run", cfg.Batch, watch, stdout, stderr); err != nil {
			return failed(err)
		}
	}
	return failed(serve(ctx, lis, webLis, store, cfg, log, stdout, watchedBy(watch)))
}
