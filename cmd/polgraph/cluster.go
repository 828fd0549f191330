package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// clusterCmd is `make cluster`: a local Dgraph cluster (a zero and several alphas in replicated or
// sharded groups, every process restarted when it dies), the default graph loaded, and several polgraph
// replicas, each a process of its own serving the same graph through every alpha; in the foreground until
// Ctrl-C. It is what the operations drills run against, on one machine.
func clusterCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	cfg.Addr, cfg.HTTP, cfg.DataDir, cfg.PortOffset = "127.0.0.1:50061", "127.0.0.1:8091", ".data/cluster", clusterPortOffset
	fs := cfg.flags("cluster", stderr, "addr", "http", "log", "local", "data-dir", "batch", "watch")
	alphas := fs.Int("alphas", 3, "how many Dgraph alphas")
	groupSize := fs.Int("replicas", 3, "how many alphas hold each group (zero's --replicas): 3 alphas with 3 make one replicated group, with 1 three groups sharing the predicates")
	replicas := fs.Int("serve", 2, "how many polgraph replicas; replica i serves gRPC on --addr's port + i, the explorer on --http's port + i, metrics on --metrics's port + i")
	datasetFile := fs.String("dataset", "", "the dataset to load at start instead of the default Tower Hamlets graph; \"none\" loads nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polgraph cluster [flags]\n\nStarts a local Dgraph cluster and polgraph replicas serving it, until Ctrl-C; see docs/operations.md.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *alphas < 1 || *alphas > 7 || *groupSize < 1 || *groupSize > *alphas || *replicas < 1 || *replicas > 9 {
		return fmt.Errorf("cluster: want 1 to 7 alphas, --replicas between 1 and --alphas, and 1 to 9 polgraph replicas (--serve): %w", errUsage)
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	ds, err := startDataset(*datasetFile)
	if err != nil {
		return err
	}
	// Every replica's ports are checked before anything starts.
	addrs := make([][3]string, *replicas) // gRPC, explorer, metrics
	for i := range addrs {
		for j, base := range []string{cfg.Addr, cfg.HTTP, cfg.Metrics} {
			if base == "" {
				continue
			}
			if addrs[i][j], err = portPlus(base, i); err != nil {
				return err
			}
			l, err := net.Listen("tcp", addrs[i][j])
			if err != nil {
				return fmt.Errorf("replica %d cannot listen on %s: %w", i+1, addrs[i][j], err)
			}
			l.Close()
		}
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	local := dgraphlocal.Config{Binary: cfg.DgraphBin, DataDir: dataDir, PortOffset: cfg.PortOffset, Logger: log, Alphas: *alphas, Replicas: *groupSize}
	cluster, ctx, failed, stop, err := startLocalDgraph(ctx, local, log)
	if err != nil {
		return err
	}
	defer stop()
	alphaList := local.AlphaAddrs()
	if ds != nil {
		store, err := openStore(ctx, cluster.Service(), log)
		if err != nil {
			return failed(err)
		}
		err = loadDataset(ctx, store, ds, "cluster", cfg.Batch, nil, stdout, stderr)
		store.Close()
		if err != nil {
			return failed(err)
		}
	}
	// The replicas stop (draining their calls) before Dgraph does.
	replicaCtx, stopReplicas := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() { stopReplicas(); running.Wait() }()
	for i, a := range addrs {
		args := []string{"serve", "--addr", a[0], "--http=" + a[1], "--dgraph", alphaList, "--data-dir", dataDir, "--log-level", cfg.LogLevel}
		if a[2] != "" {
			args = append(args, "--metrics", a[2])
			if cfg.PProf {
				args = append(args, "--pprof")
			}
		}
		if cfg.OTLPEndpoint != "" {
			args = append(args, "--otlp-endpoint", cfg.OTLPEndpoint)
		}
		r := &replica{n: i + 1, args: args, addr: a[0], log: log, stderr: stderr}
		running.Add(1)
		go func() { defer running.Done(); r.keep(replicaCtx) }()
		if err := waitServing(ctx, a[0]); err != nil {
			return failed(fmt.Errorf("replica %d: %w", i+1, err))
		}
		fmt.Fprintf(stdout, "polgraph replica %d serves gRPC on %s", i+1, a[0])
		if a[1] != "" {
			fmt.Fprintf(stdout, ", the explorer on http://%s/", a[1])
		}
		if a[2] != "" {
			fmt.Fprintf(stdout, ", metrics on http://%s/metrics", a[2])
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "Dgraph: %d alphas in groups of %d (%s), data in %s; Ctrl-C stops everything\n", *alphas, *groupSize, alphaList, dataDir)
	<-ctx.Done()
	return failed(nil)
}

// clusterPortOffset moves `polgraph cluster`'s Dgraph ports clear of `make run`'s.
const clusterPortOffset = 1400

// portPlus is host:port with the port moved by n.
func portPlus(addr string, n int) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q: want host:port: %w", addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p == 0 {
		return "", fmt.Errorf("%q: a cluster's replicas need a fixed port, not %q", addr, port)
	}
	return net.JoinHostPort(host, strconv.Itoa(p+n)), nil
}

// waitServing waits until the gRPC health service at addr says SERVING, for at most a minute.
func waitServing(ctx context.Context, addr string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		h, err := hc.Check(cctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && h.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving on %s a minute after it started: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// replicaCommand is how a replica's process is made: this very binary, serving (tests run it another way).
var replicaCommand = func(args []string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, args...)
}

// replica is one polgraph replica's process, started again when it dies.
type replica struct {
	n      int
	args   []string
	addr   string
	log    *slog.Logger
	stderr io.Writer
}

// keep runs the replica until ctx is done, restarting it a second after it dies; then stops it with
// SIGTERM, so that it drains its calls.
func (r *replica) keep(ctx context.Context) {
	for ctx.Err() == nil {
		cmd := replicaCommand(r.args)
		cmd.Stderr = r.stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		if err := cmd.Start(); err != nil {
			r.log.Error("cannot start a polgraph replica", "replica", r.n, "err", err)
			return
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			r.log.Warn("a polgraph replica died; restarting it", "replica", r.n, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		}
	}
}
