package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// runAll is `make run`: a local Dgraph, the schema, the default graph, the gRPC service and the graph
// explorer, in the foreground until Ctrl-C.
func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("run", stderr, "addr", "http", "timeout", "log", "local", "data-dir", "batch", "watch", "backup")
	datasetFile := fs.String("dataset", "", "the dataset to load at start instead of the default Tower Hamlets graph; "+
		"\"none\" loads nothing (an empty graph, or the graph the data directory already holds)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	ds, err := startDataset(*datasetFile)
	if err != nil {
		return err
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
	if cfg.SnapshotFile == "" {
		cfg.SnapshotFile = filepath.Join(dataDir, "graph.snapshot")
	}
	// The supervisor sees a Dgraph process die before any query can: the watch hears it at once, so that
	// calls are refused (UNAVAILABLE, with a retry delay) rather than left waiting on an alpha whose zero
	// is gone.
	var dbWatch atomic.Pointer[rpc.DatabaseWatch]
	onDeath := func(process string) {
		if w := dbWatch.Load(); w != nil {
			w.Down(&graph.Error{Kind: graph.Unavailable, Message: "Dgraph's " + process + " died and is being restarted"})
		}
	}
	cluster, ctx, failed, stop, err := startLocalDgraph(ctx, dgraphlocal.Config{Binary: cfg.DgraphBin, DataDir: dataDir, PortOffset: cfg.PortOffset, Logger: log, OnDeath: onDeath}, log)
	if err != nil {
		return err
	}
	defer stop()
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
	admin := cluster.Administrator()
	sched, err := cfg.backupSchedule(&admin, log)
	if err != nil {
		return err
	}
	return failed(serve(ctx, lis, webLis, onDgraph(store), cfg, log, stdout, watchedBy(watch), withDatabaseWatch(dbWatch.Store), withBackups(sched)))
}

// startDataset is the dataset run and cluster load at start: the default graph (""), nothing ("none"), or
// a file.
func startDataset(name string) (*dataset.Dataset, error) {
	switch name {
	case "":
		ds, err := dataset.Read([]dataset.File{data.Default()})
		if err != nil {
			return nil, fmt.Errorf("the default dataset is invalid: %w", err)
		}
		return ds, nil
	case "none":
		return nil, nil
	}
	return readDatasetFiles([]string{name})
}

// startLocalDgraph starts the local Dgraph cfg describes and supervises it: a process that dies is
// restarted (Dgraph recovers from its write-ahead log, and polgraph reconnects by itself); one that keeps
// dying ends the context returned, since a restart cannot mend what kills it and a supervisor above
// polgraph (systemd, Kubernetes) should know. failed turns a command's error into that verdict when it is
// why the command ends; stop ends supervision and Dgraph.
func startLocalDgraph(ctx context.Context, cfg dgraphlocal.Config, log *slog.Logger) (cluster *dgraphlocal.Cluster, supervised context.Context, failed func(error) error, stop func(), err error) {
	cluster, err = dgraphlocal.Start(ctx, cfg)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	supervised, giveUp := context.WithCancelCause(ctx)
	go func() {
		select {
		case err := <-cluster.Supervise(supervised):
			giveUp(err)
		case <-supervised.Done():
		}
	}()
	failed = func(err error) error {
		if cause := context.Cause(supervised); cause != nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("polgraph stops: %w", cause)
		}
		return err
	}
	stop = func() {
		giveUp(nil)
		log.Info("stopping Dgraph")
		if err := cluster.Stop(); err != nil {
			log.Warn("stopping Dgraph", "err", err)
		}
	}
	return cluster, supervised, failed, stop, nil
}
