package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/history"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/live"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/resolve"
	"github.com/polgraph/polgraph/graph/review"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/httpapi"
	"github.com/polgraph/polgraph/internal/netcap"
	"github.com/polgraph/polgraph/internal/observe"
	"github.com/polgraph/polgraph/internal/snapfile"
)

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("serve", stderr, "addr", "http", "dgraph", "data-dir", "timeout", "log", "watch", "backup")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if err := cfg.Auth.check(); err != nil {
		return err
	}
	log, err := cfg.logger(stderr)
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
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	webLis, err := listenExplorer(cfg.HTTP)
	if err != nil {
		lis.Close()
		return err
	}
	sched, err := cfg.backupSchedule(nil, log)
	if err != nil {
		lis.Close()
		if webLis != nil {
			webLis.Close()
		}
		return err
	}
	return serve(ctx, lis, webLis, onDgraph(store), cfg, log, stdout, watchedBy(watch), withBackups(sched))
}

// openDgraph opens the Dgraph the configuration names, with its credentials, and applies the schema;
// dial adds to the connection's options (how its calls are watched).
func (c Config) openDgraph(ctx context.Context, log *slog.Logger, dial ...grpc.DialOption) (*dgraph.Store, error) {
	dc, err := c.dgraphConfig()
	if err != nil {
		return nil, err
	}
	dc.DialOptions = append(dc.DialOptions, dial...)
	return openStore(ctx, dc, log)
}

func openStore(ctx context.Context, dc dgraph.Config, log *slog.Logger) (*dgraph.Store, error) {
	store, err := dgraph.Open(ctx, dc, log)
	if err != nil {
		return nil, err
	}
	if err := store.ApplySchema(ctx); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// keptPastGraphs is how many graphs as known on past instants serve keeps rebuilt (graph/history): each
// is a copy of the graph in memory.
const keptPastGraphs = 2

// serve answers gRPC on lis and, when webLis is not nil, serves the graph explorer and the same API for
// browsers over HTTP on webLis (httpapi.Handler), until ctx is done or either server fails; then it stops
// both gracefully (in-flight calls get 10 s).
// Each option sees what serve sets up before it serves (watchedBy gives it the metrics and traces to
// report to; tests wait for the in-memory topology with withTopology).
func serve(ctx context.Context, lis, webLis net.Listener, st storage, cfg Config, log *slog.Logger, stdout io.Writer, options ...serveOption) error {
	store := st.graph
	s := served{svc: &service.Service{Store: store, Timeout: cfg.Timeout, Budget: cfg.WorkBudget}}
	svc := s.svc
	if cfg.InMemory {
		if feed := st.feed; feed != nil {
			if kept := st.kept; kept != nil && cfg.SnapshotFile != "" && cfg.SnapshotFile != "off" {
				f := snapfile.New(kept, cfg.SnapshotFile, log)
				defer f.Close()
				feed = f
			}
			s.topo = memgraph.NewTopology(feed)
			svc.Reads = s.topo.Reads(store)
		}
	}
	for _, o := range options {
		o(&s)
	}
	if s.metrics == nil {
		s.metrics = observe.NewMetrics()
	}
	metrics := s.metrics
	if s.topo != nil {
		go fillTopology(ctx, st.feed, s.topo, metrics, s.tracing, log)
	}
	var healthDetail func() map[string]any
	if b := s.backups; b != nil {
		b.Taken = func(p backup.Point) {
			metrics.BackupTaken(p.Time.Add(time.Duration(p.Seconds*float64(time.Second))), p.Bytes(), time.Duration(p.Seconds*float64(time.Second)))
		}
		b.Failed = func(error) { metrics.BackupFailed() }
		b.Checked = func(p backup.Point, d time.Duration) { metrics.BackupChecked(p.Checked, d) }
		b.CheckFailed = func(error) { metrics.BackupCheckFailed() }
		healthDetail = func() map[string]any { return map[string]any{"backups": b.Status()} }
		go b.Run(ctx)
	}
	limited := []grpc.ServiceDesc{pb.GraphService_ServiceDesc}
	if st.views != nil {
		limited = append(limited, pb.ViewService_ServiceDesc)
	}
	if cfg.Writes {
		limited = append(limited, pb.WriteService_ServiceDesc, pb.ReviewService_ServiceDesc)
	}
	limiter := rpc.NewLimiter(cfg.Limits, log, limited...)
	limiter.OnRefused(metrics.Refused)
	if s.topo != nil {
		// A read waiting for its turn reads the graph's version meanwhile, shared with the others waiting.
		limiter.BeforeWaiting(rpc.ReadsVersionAhead(s.topo))
	}
	// Credentials and roles are checked before a call takes its method's turn (authconfig.go, graph/rpc.Auth).
	authn, tlsCfg, err := callerChecks(cfg, st.keys, log, lis, webLis)
	if err != nil {
		return err
	}
	authn.OnRefused(metrics.Refused)
	hs := health.NewServer()
	if b := s.backups; b != nil {
		go reportBackupHealth(ctx, b, hs)
	}
	dbWatch := watchDatabase(store, hs, metrics, log, limited...)
	if s.onWatch != nil {
		s.onWatch(dbWatch)
	}
	// Every call gets its request id first, so that whatever is logged of it (its refusal too) carries
	// the id; then it is timed, logged, and only then turned away while the database does not answer,
	// checked, and given its turn, so that refused calls are timed and logged as well. The watch comes
	// before the credential check, whose key lookups need the database too: while it does not answer,
	// keyed calls are refused at once like the others, and a lookup under way ends with them.
	srv := grpc.NewServer(append(s.tracing.ServerOptions(),
		grpc.ChainUnaryInterceptor(observe.UnaryRequestID(), metrics.UnaryServer(), logCalls(log), dbWatch.Unary(), authn.Unary(), limiter.Unary()),
		grpc.ChainStreamInterceptor(observe.StreamRequestID(), metrics.StreamServer(), logStreams(log), dbWatch.Stream(), authn.Stream(), limiter.Stream()),
		grpc.MaxRecvMsgSize(maxRequestBytes), serverCreds(tlsCfg))...)
	graphServer := rpc.NewServer(svc, log)
	if past, err := history.New(svc, keptPastGraphs); err == nil {
		graphServer.WithHistory(past) // reads may ask for known_on
	}
	if hub := changeFeed(st, s.topo, log); hub != nil {
		graphServer.SetChangeFeed(hub)
		go hub.Run(ctx)
	}
	pb.RegisterGraphServiceServer(srv, graphServer)
	if st.views != nil {
		// Saved views are not graph writes, so they are served whether or not writes are: a server without
		// writes (--writes=false) lists and opens them and refuses changes, keeping the database as it is.
		pb.RegisterViewServiceServer(srv, rpc.NewViewServer(st.views, principalName, rpc.ViewOptions{ReadOnly: !cfg.Writes, Timeout: cfg.Timeout}, log))
	}
	if cfg.Writes {
		if st.writes != nil {
			writes := &intake.Service{Store: st.writes, Timeout: cfg.WriteTimeout,
				LoadProgress: func(records int) dataset.Progress { return metrics.StartLoad(records).Progress }}
			pb.RegisterWriteServiceServer(srv, rpc.NewWriteServer(writes, principalName, log))
			// The review queue approves through the same writes, so it is served with them.
			if q := st.review; q != nil {
				reviews := &review.Service{Queue: q, Intake: writes, Graph: st.matches, Timeout: cfg.WriteTimeout}
				readers := &rpc.ReaderCache{Entities: q.LiveEntities, Version: st.feed.Version, Links: st.graph}
				pb.RegisterReviewServiceServer(srv, rpc.NewReviewServer(reviews, readers.Reader, principalName, log))
			}
		}
	}
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.GraphService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	docs, err := pb.DocumentedFiles()
	if err != nil {
		return err
	}
	refl := reflection.NewServerV1(reflection.ServerOptions{Services: srv, DescriptorResolver: docs})
	reflectionpb.RegisterServerReflectionServer(srv, refl)
	if missing := rpc.UncoveredMethods(srv.GetServiceInfo()); len(missing) > 0 {
		log.Error("these methods have no role in graph/auth's table and are refused to every caller", "methods", missing)
	}

	// Connections are capped on both listeners (internal/netcap), so that silent connections from one client
	// cannot use up the process's file descriptors.
	lis = capConnections(lis, "grpc", cfg.ConnLimits, metrics)
	var webSrv *http.Server
	if webLis != nil {
		webLis = httpapi.CountHeaderRefusals(capConnections(webLis, "http", cfg.ConnLimits, metrics), metrics.HTTPRefused)
		h, err := httpapi.Handler(srv, hs, httpapi.Options{AllowedHosts: cfg.HTTPAllowedHosts, OnRefused: metrics.HTTPRefused, HealthDetail: healthDetail})
		if err != nil {
			return err
		}
		webSrv = httpapi.Server(h, httpapi.DefaultTimeouts(cfg.Timeout), log)
		if tlsCfg != nil {
			webSrv.TLSConfig = tlsCfg.Clone()
		}
	}

	go dbWatch.Run(ctx)
	if s.topo == nil {
		go sampleEvery(ctx, time.Second, func() { sampleVersions(ctx, st.feed, nil, metrics) })
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	log.Info("serving polgraph.v1.GraphService", "addr", lis.Addr().String(), "tls", tlsCfg != nil)
	if tlsCfg == nil {
		fmt.Fprintf(stdout, "polgraph is serving on %s; try: grpcurl -plaintext %s list\n", lis.Addr(), lis.Addr())
	} else {
		clientCert := ""
		if tlsCfg.ClientAuth == tls.RequireAndVerifyClientCert {
			clientCert = " -cert CLIENT.crt -key CLIENT.key"
		}
		fmt.Fprintf(stdout, "polgraph is serving on %s; over TLS, try: grpcurl -cacert CA.crt%s %s list\n", lis.Addr(), clientCert, lis.Addr())
	}
	if webSrv != nil {
		url := explorerURL(webLis)
		if tlsCfg != nil {
			url = "https://" + strings.TrimPrefix(url, "http://")
			go func() { errc <- webSrv.ServeTLS(webLis, "", "") }()
		} else {
			go func() { errc <- webSrv.Serve(webLis) }()
		}
		log.Info("serving the graph explorer", "url", url)
		fmt.Fprintf(stdout, "the graph explorer is at %s\n", url)
	}
	var failed error
	select {
	case failed = <-errc:
	case <-ctx.Done():
	}
	log.Info("shutting down")
	hs.Shutdown()
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		if webSrv != nil {
			webSrv.Shutdown(stopCtx)
		}
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-stopCtx.Done():
		if webSrv != nil {
			webSrv.Close()
		}
		srv.Stop()
	}
	return failed
}

// capConnections caps lis's connections (per client address and in all), reporting them in m.
func capConnections(lis net.Listener, name string, limits netcap.Limits, m *observe.Metrics) net.Listener {
	capped := netcap.Wrap(lis, limits, func(e netcap.Event) { m.ConnectionsCapped(name, e.Cap, e.Evicted) })
	m.ConnectionsOpen(name, func() float64 { return float64(capped.Open()) })
	return capped
}

// reviewStore is what the review queue needs of a store: the queue itself, and the graph's live entities,
// which the ingest reader is built from (rebuilt when the graph's version changes).
type reviewStore interface {
	review.Queue
	LiveEntities(ctx context.Context) ([]graph.Entity, error)
}

// storage is what serve needs of where the graph lives, each role as its consumer declares it, stated
// once where the service is wired. A nil role is a service without it: no graph in memory without feed,
// no snapshot file without kept, no writes, review queue, API keys or saved views without theirs (a review queue needs
// feed and writes too).
type storage struct {
	graph  graph.Store
	feed   graph.ChangeFeed
	kept   snapfile.Store
	writes intake.Store
	review reviewStore
	// matches is what the review queue draws match candidates from (the graph's entities and judgements).
	matches resolve.Reader
	keys    auth.KeyStore
	views   graph.Views
}

// onDgraph is every role, played by the store on Dgraph.
func onDgraph(s *dgraph.Store) storage {
	return storage{graph: s, feed: s, kept: s, writes: s, review: s.Queue(), matches: s, keys: s.Keys(), views: s}
}

// changeFeed is the hub of WatchChanges over the store's change log, or nil for a store that keeps none.
// Watchers wake on every newer version the store sees (this process's writes, and every version read)
// and on the hub's own poll; neighbourhood filters read the graph in memory once it is filled, and the
// store before.
func changeFeed(st storage, topo *memgraph.Topology, log *slog.Logger) *live.Hub {
	cl, ok := st.graph.(graph.ChangeLog)
	if !ok || st.feed == nil {
		return nil
	}
	links := live.LinksFunc(func(ctx context.Context, es []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
		if topo != nil && topo.Ready() {
			return topo.Links(ctx, es)
		}
		return st.graph.Links(ctx, es)
	})
	cfg := live.Config{Log: cl, Version: st.feed.Version, Links: links, Logger: log}
	if g, ok := st.feed.(graph.Generations); ok {
		cfg.Generation = g.Generation
	}
	hub := live.New(cfg)
	if n, ok := st.graph.(interface{ OnVersion(func(int64)) }); ok {
		n.OnVersion(hub.Notify)
	}
	return hub
}

// principalName is who the audit trail says made a write: the caller's credential, as graph/auth names it
// ("key alice (keys/…)", "certificate CN=…"), and the names the trail can be searched by (the key's name
// and id; the certificate's common name).
func principalName(ctx context.Context) (string, []string) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		return "anonymous", nil
	}
	switch p.Kind {
	case auth.APIKey:
		return p.String(), []string{p.Name, string(p.KeyID)}
	case auth.Certificate:
		return p.String(), []string{p.Name, "CN=" + p.Name}
	}
	return p.String(), nil
}

// maxRequestBytes bounds a gRPC request: the largest read request (1,000 excluded names) is well under it.
const maxRequestBytes = 4 << 20

// fillTopology reads the graph's links into memory (until it is done, searches read them from Dgraph),
// then keeps them up to date in the background, once a second. It records how long the fill took, and
// samples the graph's versions after each catch-up.
func fillTopology(ctx context.Context, feed graph.ChangeFeed, t *memgraph.Topology, m *observe.Metrics, tracing *observe.Tracing, log *slog.Logger) {
	fillCtx, span := tracing.Tracer().Start(ctx, "polgraph fill in-memory graph")
	start := time.Now()
	// A fill that fails (Dgraph unreachable at start, a snapshot file that could not be read back) is
	// tried again, less and less often: searches read the graph from Dgraph meanwhile.
	for wait := time.Second; ; wait = min(2*wait, time.Minute) {
		err := t.Sync(fillCtx)
		if err == nil {
			break
		}
		log.WarnContext(fillCtx, "cannot fill the graph held in memory yet; searches read it from Dgraph", "err", err, "next_try_in", wait)
		select {
		case <-ctx.Done():
			span.End()
			return
		case <-time.After(wait):
		}
	}
	took := time.Since(start)
	m.FillTook(took)
	entities, relations, version := t.Size()
	log.InfoContext(fillCtx, "graph held in memory", "entities", entities, "relations", relations, "version", version, "took", took.Round(time.Millisecond))
	span.End()
	sampleVersions(ctx, feed, t, m)
	failing := false
	t.Follow(ctx, time.Second, func(err error) {
		if err == nil {
			sampleVersions(ctx, feed, t, m)
		}
		if (err != nil) != failing && ctx.Err() == nil {
			failing = err != nil
			if failing {
				log.WarnContext(ctx, "the graph held in memory cannot catch up; searches read the graph from Dgraph meanwhile", "err", err)
			} else {
				log.InfoContext(ctx, "the graph held in memory caught up", "version", t.Version())
			}
		}
	})
}

// sampleEvery calls sample every interval until ctx is done.
func sampleEvery(ctx context.Context, interval time.Duration, sample func()) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			sample()
		}
	}
}

// backupHealthService is the name under which the gRPC health service tells whether scheduled backups
// are current: SERVING while their state is ok or pending, NOT_SERVING when failed or late (/healthz's
// "backups" object says the same and why). Its status alone: it does not turn callers away.
const backupHealthService = "polgraph.backups"

// reportBackupHealth keeps backupHealthService's status in step with the schedule's, every second.
func reportBackupHealth(ctx context.Context, b *backup.Schedule, hs *health.Server) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		st := healthpb.HealthCheckResponse_SERVING
		if !b.Status().OK() {
			st = healthpb.HealthCheckResponse_NOT_SERVING
		}
		hs.SetServingStatus(backupHealthService, st)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// healthInterval is how often the database is asked whether it answers while it does.
var healthInterval = rpc.DefaultWatchInterval

// watchDatabase is the watch that reports NOT_SERVING on the health service while the database does not
// answer (so that a load balancer or an orchestrator can tell), and polgraph_database_up the same, and
// refuses the calls that need it.
func watchDatabase(store graph.Store, hs *health.Server, m *observe.Metrics, log *slog.Logger, services ...grpc.ServiceDesc) *rpc.DatabaseWatch {
	m.DatabaseUp(true) // as the health service starts: the store answered when it was opened
	w := &rpc.DatabaseWatch{Ping: store.Ping, Log: log, Interval: healthInterval, OnRefused: m.Refused,
		OnChange: func(up bool, _ error) {
			m.DatabaseUp(up)
			st := healthpb.HealthCheckResponse_SERVING
			if !up {
				st = healthpb.HealthCheckResponse_NOT_SERVING
			}
			hs.SetServingStatus("", st)
			hs.SetServingStatus(pb.GraphService_ServiceDesc.ServiceName, st)
		}}
	for _, sd := range services {
		w.Services = append(w.Services, sd.ServiceName)
	}
	return w
}

// logCalls logs every unary call with its outcome and duration (at debug level), with its context: its
// request id.
func logCalls(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		log.DebugContext(ctx, "call", "method", info.FullMethod, "code", status.Code(err).String(), "duration", time.Since(start))
		return resp, err
	}
}

// logStreams is logCalls for streaming calls.
func logStreams(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		log.DebugContext(ss.Context(), "call", "method", info.FullMethod, "code", status.Code(err).String(), "duration", time.Since(start))
		return err
	}
}
