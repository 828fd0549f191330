package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/httpapi"
	"github.com/polgraph/polgraph/internal/observe"
)

// watching is how one run of a command is watched (internal/observe): its metrics, its traces, and the
// private listener serving the metrics (and profiles, with --pprof) when --metrics names one.
type watching struct {
	metrics *observe.Metrics
	tracing *observe.Tracing
	srv     *http.Server // nil without --metrics
	addr    string       // where srv listens
	log     *slog.Logger
}

// startWatching checks the watching settings, opens the metrics listener and serves it at once (so that a
// load before serving can be watched too), and starts tracing. stop undoes it all, flushing the traces.
func (c Config) startWatching(ctx context.Context, log *slog.Logger) (*watching, error) {
	if err := c.checkWatching(); err != nil {
		return nil, err
	}
	w := &watching{metrics: observe.NewMetrics(), log: log}
	var lis net.Listener
	if c.Metrics != "" {
		var err error
		if lis, err = net.Listen("tcp", c.Metrics); err != nil {
			return nil, fmt.Errorf("listen on %s for metrics: %w (set --metrics or POLGRAPH_METRICS to another address)", c.Metrics, err)
		}
	}
	tracing, err := observe.StartTracing(ctx, c.OTLPEndpoint)
	if err != nil {
		if lis != nil {
			lis.Close()
		}
		return nil, err
	}
	w.tracing = tracing
	if tracing.On() {
		endpoint := c.OTLPEndpoint
		for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
			if endpoint == "" {
				endpoint = os.Getenv(v)
			}
		}
		log.Info("sending traces over OTLP/gRPC", "endpoint", endpoint)
	}
	if lis != nil {
		w.serveMetrics(lis, c.PProf, c.MetricsAllowedHosts)
	}
	return w, nil
}

// serveMetrics serves the metrics (and, when profiling, Go's profiles) on lis until stop.
func (w *watching) serveMetrics(lis net.Listener, profiling bool, hosts []string) {
	w.addr = lis.Addr().String()
	// The guard answers only loopback names and IP addresses, and no other web page: a page whose name was
	// made to resolve to this address (DNS rebinding) cannot read the metrics or the profiles.
	w.srv = &http.Server{Handler: httpapi.Guard(observe.Mux(w.metrics, profiling), httpapi.Options{AllowedHosts: hosts, OnRefused: w.metrics.HTTPRefused}), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(w.log.Handler(), slog.LevelWarn)}
	go func() {
		if err := w.srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.log.Error("the metrics listener failed", "err", err)
		}
	}()
	w.log.Info("serving metrics", "url", "http://"+w.addr+"/metrics", "pprof", profiling)
}

// stop closes the metrics listener and flushes the traces not yet sent (for up to 5 s each).
func (w *watching) stop() {
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if w.srv != nil {
		w.srv.Shutdown(ctx)
	}
	if err := w.tracing.Shutdown(ctx); err != nil {
		w.log.Warn("flushing traces", "err", err)
	}
}

// dialOptions measure and trace the calls to Dgraph.
func (w *watching) dialOptions() []grpc.DialOption {
	if w == nil {
		return nil
	}
	return append([]grpc.DialOption{grpc.WithChainUnaryInterceptor(w.metrics.UnaryClient())}, w.tracing.DialOptions()...)
}

// startLoad follows a load of so many records: its progress in the metrics, and a span its calls to
// Dgraph are traced under. A nil *watching follows nothing.
func (w *watching) startLoad(ctx context.Context, method string, records int) (context.Context, dataset.Progress, func()) {
	if w == nil {
		return ctx, nil, func() {}
	}
	ctx, span := w.tracing.Tracer().Start(ctx, "polgraph load", trace.WithAttributes(attribute.String("polgraph.command", method),
		attribute.Int("polgraph.records", records)))
	return ctx, w.metrics.StartLoad(records).Progress, func() { span.End() }
}

// A serveOption changes what serve sets up, before it serves.
type serveOption func(*served)

// served is what serve sets up.
type served struct {
	onWatch func(*rpc.DatabaseWatch) // told the database watch once it is made
	svc     *service.Service
	topo    *memgraph.Topology // the graph held in memory, when the service keeps it
	metrics *observe.Metrics   // a registry served nowhere unless an option gives one
	backups *backup.Schedule   // scheduled backups, when configured
	tracing *observe.Tracing   // none unless an option gives one
}

// withTopology lets f see the in-memory graph (nil when the service keeps none) before it serves: tests
// wait for it to fill.
func withTopology(f func(*memgraph.Topology)) serveOption {
	return func(s *served) { f(s.topo) }
}

// withDatabaseWatch lets f see the watch that decides whether the database answers.
func withDatabaseWatch(f func(*rpc.DatabaseWatch)) serveOption {
	return func(s *served) { s.onWatch = f }
}

// watchedBy has serve record its metrics in w's and trace its calls with w's tracing. The store must have
// been opened with w.dialOptions() for its calls to Dgraph to be measured and traced.
func watchedBy(w *watching) serveOption {
	return func(s *served) { s.metrics, s.tracing = w.metrics, w.tracing }
}

// sampleVersions samples the graph version searches read (the in-memory graph's, or Dgraph's when the
// graph is not held in memory) and Dgraph's, into the metrics. With the graph in memory it reads the
// versions the topology's own syncs saw; without, it costs one small query.
func sampleVersions(ctx context.Context, feed graph.ChangeFeed, topology *memgraph.Topology, m *observe.Metrics) {
	if topology != nil {
		m.GraphVersion(topology.Version(), max(topology.FeedVersion(), topology.Version()))
		return
	}
	if feed == nil {
		return
	}
	inDgraph, err := feed.Version(ctx)
	if err != nil {
		return
	}
	m.GraphVersion(inDgraph, inDgraph)
}
