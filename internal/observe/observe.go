// Package observe is what an operator watches polgraph through: Prometheus metrics on a registry of the
// process's own, OpenTelemetry traces of the calls served and of the calls to Dgraph, profiles, and a
// request id in every log line written while a call is served.
//
// It is an adapter at the edge: the graph packages know nothing of Prometheus or OpenTelemetry. They offer
// hooks (gRPC options and interceptors, graph/rpc.RefusalHook, graph/dataset.Progress, dgraph.Config's
// DialOptions) and cmd/polgraph plugs this package into them.
package observe

import (
	"context"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Metrics are one process's Prometheus metrics, on a registry of their own (with the Go runtime's and the
// process's collectors), not the global one:
//
//	polgraph_rpc_duration_seconds{method,code}          histogram of the calls served (gRPC, and the
//	                                                    explorer's HTTP API, which calls the same server)
//	polgraph_dgraph_call_duration_seconds{op,outcome}   histogram of the calls to Dgraph (op: the method
//	                                                    of Dgraph's API: Query, which carries mutations
//	                                                    too, CommitOrAbort, Alter, Login, CheckVersion;
//	                                                    outcome: ok or the gRPC code)
//	polgraph_graph_version                              the graph version searches read
//	polgraph_graph_version_lag                          Dgraph's graph version minus that one
//	polgraph_graph_fill_seconds                         how long the last fill of the in-memory graph took
//	polgraph_load_relations_total                       relations written by loads in this process
//	polgraph_load_progress_ratio                        the share of the current load written, 0 to 1
//	polgraph_refusals_total{method,reason}              calls refused before their handler ran
//	polgraph_http_refusals_total{status,reason}         HTTP requests the explorer's guard refused
//	                                                    (403, 400, 413, 431) before any handler
//	polgraph_connections_open{listener}                 connections open, on "grpc" and "http"
//	polgraph_connections_capped_total{listener,cap,action}  connections closed to keep a cap
//	                                                    (cap: address or total; action: evicted, a
//	                                                    silent one making room, or refused)
//	polgraph_database_up                                1 when Dgraph answered the last health check
//	polgraph_backup_last_success_timestamp_seconds      when the last scheduled backup ended (Unix time)
//	polgraph_backup_last_size_bytes                     the size of its files
//	polgraph_backup_last_duration_seconds               how long it took
//	polgraph_backup_failures_total                      scheduled backups that failed
//	polgraph_backup_last_checked_timestamp_seconds      when the last check of a backup (its restore in a
//	                                                    scratch Dgraph) ended (Unix time)
//	polgraph_backup_last_check_duration_seconds         how long that check took
//	polgraph_backup_check_failures_total                checks that failed (a backup that did not restore)
type Metrics struct {
	reg             *prometheus.Registry
	rpcDuration     *prometheus.HistogramVec
	dgraphDuration  *prometheus.HistogramVec
	graphVersion    prometheus.Gauge
	graphVersionLag prometheus.Gauge
	fillSeconds     prometheus.Gauge
	loadRelations   prometheus.Counter
	loadProgress    prometheus.Gauge
	refusals        *prometheus.CounterVec
	httpRefusals    *prometheus.CounterVec
	connsCapped     *prometheus.CounterVec
	databaseUp      prometheus.Gauge
	backupLast      prometheus.Gauge
	backupBytes     prometheus.Gauge
	backupSeconds   prometheus.Gauge
	backupFailures  prometheus.Counter
	checkLast       prometheus.Gauge
	checkSeconds    prometheus.Gauge
	checkFailures   prometheus.Counter
}

// durationBuckets suit both a lookup answered from memory (a millisecond) and a large write (tens of
// seconds).
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// NewMetrics returns the metrics on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		rpcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "polgraph_rpc_duration_seconds",
			Help:    "How long the calls polgraph served took, by full gRPC method and gRPC status code (OK, InvalidArgument, ...); calls through the explorer's HTTP API included.",
			Buckets: durationBuckets}, []string{"method", "code"}),
		dgraphDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "polgraph_dgraph_call_duration_seconds",
			Help:    "How long polgraph's calls to Dgraph took, by method of Dgraph's API (Query, which carries mutations too, CommitOrAbort, Alter, Login, CheckVersion) and outcome (ok, or the gRPC status code).",
			Buckets: durationBuckets}, []string{"op", "outcome"}),
		graphVersion: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_graph_version",
			Help: "The graph version searches read: the in-memory graph's (0 until it is filled), or Dgraph's when the graph is not held in memory."}),
		graphVersionLag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_graph_version_lag",
			Help: "Dgraph's graph version minus polgraph_graph_version, when last sampled (every health check, and after the in-memory graph is filled); the in-memory graph catches up at the next search."}),
		fillSeconds: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_graph_fill_seconds",
			Help: "How long the last full fill of the in-memory graph from Dgraph took, in seconds."}),
		loadRelations: prometheus.NewCounter(prometheus.CounterOpts{Name: "polgraph_load_relations_total",
			Help: "Relations written by loads in this process (run's initial load, the load command, WriteService.Load)."}),
		loadProgress: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_load_progress_ratio",
			Help: "The share of the records of the current (or last) load written so far, 0 to 1."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "polgraph_refusals_total",
			Help: "Calls refused before their handler ran, by full gRPC method and reason: the refusal's google.rpc.ErrorInfo reason (API_KEY_MISSING, ROLE_TOO_LOW, RATE_LIMITED, TOO_MANY_REQUESTS, ...) or its status code (DEADLINE_EXCEEDED)."},
			[]string{"method", "reason"}),
		httpRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "polgraph_http_refusals_total",
			Help: "HTTP requests to the explorer's listener refused before any handler ran, by HTTP status and reason (HOST_NOT_ALLOWED, CROSS_ORIGIN, BODY_TOO_LARGE, BODY_UNREADABLE, HEADERS_TOO_LARGE, INFLATES_TOO_LARGE)."},
			[]string{"status", "reason"}),
		connsCapped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "polgraph_connections_capped_total",
			Help: "Connections closed to keep a listener's caps, by listener (grpc, http), cap (address: per client address; total) and action (evicted: a connection that had sent nothing, closed to make room; refused: the new connection)."},
			[]string{"listener", "cap", "action"}),
		databaseUp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_database_up",
			Help: "1 when Dgraph answered polgraph's last health check, else 0."}),
		backupLast: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_backup_last_success_timestamp_seconds",
			Help: "When the last scheduled backup (--backup-dir) ended, in Unix seconds; 0 until one has. Alert on time() minus it."}),
		backupBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_backup_last_size_bytes",
			Help: "The size of the files of the last scheduled backup."}),
		backupSeconds: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_backup_last_duration_seconds",
			Help: "How long the last scheduled backup took (its check runs after it)."}),
		backupFailures: prometheus.NewCounter(prometheus.CounterOpts{Name: "polgraph_backup_failures_total",
			Help: "Scheduled backups that failed (each is logged with its cause and tried again at the next tick)."}),
		checkLast: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_backup_last_checked_timestamp_seconds",
			Help: "When the last check of a scheduled backup (its restore in a scratch Dgraph, what it holds recorded) ended, in Unix seconds; 0 until one has."}),
		checkSeconds: prometheus.NewGauge(prometheus.GaugeOpts{Name: "polgraph_backup_last_check_duration_seconds",
			Help: "How long the last check of a scheduled backup took."}),
		checkFailures: prometheus.NewCounter(prometheus.CounterOpts{Name: "polgraph_backup_check_failures_total",
			Help: "Checks of scheduled backups that failed: a backup that did not restore (each is logged with its cause)."}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.rpcDuration, m.dgraphDuration, m.graphVersion, m.graphVersionLag, m.fillSeconds, m.loadRelations, m.loadProgress,
		m.refusals, m.httpRefusals, m.connsCapped, m.databaseUp, m.backupLast, m.backupBytes, m.backupSeconds, m.backupFailures,
		m.checkLast, m.checkSeconds, m.checkFailures)
	return m
}

// HTTPRefused counts an HTTP request refused by the explorer's guard.
func (m *Metrics) HTTPRefused(status int, reason string) {
	m.httpRefusals.WithLabelValues(strconv.Itoa(status), reason).Inc()
}

// ConnectionsCapped counts a connection closed to keep a listener's cap.
func (m *Metrics) ConnectionsCapped(listener, limit string, evicted bool) {
	action := "refused"
	if evicted {
		action = "evicted"
	}
	m.connsCapped.WithLabelValues(listener, limit, action).Inc()
}

// ConnectionsOpen reports, as polgraph_connections_open{listener}, what open says when scraped.
func (m *Metrics) ConnectionsOpen(listener string, open func() float64) {
	// A second registration for the same listener (serve called again on the same metrics) keeps the first.
	m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "polgraph_connections_open",
		Help: "Connections open on a listener (grpc, http).", ConstLabels: prometheus.Labels{"listener": listener}}, open))
}

// Registry is where the metrics are registered, for tests and for more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Mux serves GET /metrics and, when profiling, Go's profiles under /debug/pprof/ (net/http/pprof's
// handlers, mounted here: polgraph serves no http.DefaultServeMux). It is meant for a private listener,
// apart from the explorer's: profiles tell a great deal about the process.
func Mux(m *Metrics, profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index) // the index, and every named profile: goroutine, heap, ...
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// UnaryServer is the server interceptor that times unary calls (polgraph_rpc_duration_seconds).
func (m *Metrics) UnaryServer() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		m.rpcDuration.WithLabelValues(info.FullMethod, status.Code(err).String()).Observe(time.Since(start).Seconds())
		return resp, err
	}
}

// StreamServer is the server interceptor that times streaming calls, from open to end.
func (m *Metrics) StreamServer() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		m.rpcDuration.WithLabelValues(info.FullMethod, status.Code(err).String()).Observe(time.Since(start).Seconds())
		return err
	}
}

// UnaryClient is the client interceptor, for the connection to Dgraph, that times its calls
// (polgraph_dgraph_call_duration_seconds). Dgraph's API has no streaming calls.
func (m *Metrics) UnaryClient() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		start := time.Now()
		err := invoker(ctx, method, req, reply, cc, opts...)
		outcome := "ok"
		if c := status.Code(err); c != codes.OK {
			outcome = c.String()
		}
		m.dgraphDuration.WithLabelValues(method[strings.LastIndexByte(method, '/')+1:], outcome).Observe(time.Since(start).Seconds())
		return err
	}
}

// Refused counts a call refused before its handler ran; it has the shape of graph/rpc.RefusalHook.
func (m *Metrics) Refused(_ context.Context, method, reason string) {
	m.refusals.WithLabelValues(method, reason).Inc()
}

// DatabaseUp records whether Dgraph answered the last health check.
func (m *Metrics) DatabaseUp(up bool) {
	if up {
		m.databaseUp.Set(1)
	} else {
		m.databaseUp.Set(0)
	}
}

// GraphVersion records the graph version searches read and Dgraph's, sampled together.
func (m *Metrics) GraphVersion(read, inDgraph int64) {
	m.graphVersion.Set(float64(read))
	m.graphVersionLag.Set(float64(inDgraph - read))
}

// BackupTaken records a scheduled backup that ended at end, of so many bytes, taking d.
func (m *Metrics) BackupTaken(end time.Time, bytes int64, d time.Duration) {
	m.backupLast.Set(float64(end.UnixMilli()) / 1000)
	m.backupBytes.Set(float64(bytes))
	m.backupSeconds.Set(d.Seconds())
}

// BackupFailed counts a scheduled backup that failed.
func (m *Metrics) BackupFailed() { m.backupFailures.Inc() }

// BackupChecked records the check of a scheduled backup that ended at end, taking d.
func (m *Metrics) BackupChecked(end time.Time, d time.Duration) {
	m.checkLast.Set(float64(end.UnixMilli()) / 1000)
	m.checkSeconds.Set(d.Seconds())
}

// BackupCheckFailed counts a check of a scheduled backup that failed.
func (m *Metrics) BackupCheckFailed() { m.checkFailures.Inc() }

// FillTook records how long a full fill of the in-memory graph took.
func (m *Metrics) FillTook(d time.Duration) { m.fillSeconds.Set(d.Seconds()) }

// StartLoad follows a load of records: total is how many it writes in all stages. It sets
// polgraph_load_progress_ratio to 0 (to 1 for a load of nothing). A nil *Metrics follows nothing.
func (m *Metrics) StartLoad(total int) *Load {
	if m == nil {
		return nil
	}
	if total <= 0 {
		m.loadProgress.Set(1)
	} else {
		m.loadProgress.Set(0)
	}
	return &Load{m: m, total: total, done: map[string]int{}}
}

// Load is one load followed by the metrics.
type Load struct {
	m     *Metrics
	total int
	mu    sync.Mutex
	done  map[string]int // records written, by stage
}

// RelationsStage is the stage whose records are relations, as graph/dataset.Load names it.
const RelationsStage = "relations"

// Progress is told how many records of a stage are written so far; it has the shape of
// graph/dataset.Progress. Relations written are added to polgraph_load_relations_total, and the share of
// the load written is polgraph_load_progress_ratio. A nil *Load does nothing.
func (l *Load) Progress(stage string, done, _ int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if added := done - l.done[stage]; added > 0 && stage == RelationsStage {
		l.m.loadRelations.Add(float64(added))
	}
	l.done[stage] = max(l.done[stage], done)
	sum := 0
	for _, n := range l.done {
		sum += n
	}
	if l.total > 0 {
		l.m.loadProgress.Set(min(1, float64(sum)/float64(l.total)))
	}
}
