package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/httpapi"
	"github.com/polgraph/polgraph/graph/rpc"
)

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("serve", stderr, "addr", "http", "dgraph", "data-dir", "timeout", "log")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	log, err := cfg.logger(stderr)
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
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	webLis, err := listenExplorer(cfg.HTTP)
	if err != nil {
		lis.Close()
		return err
	}
	return serve(ctx, lis, webLis, store, cfg, log, stdout)
}

// openStore connects to Dgraph and applies the schema.
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

// serve answers gRPC on lis and, when webLis is not nil, serves the graph explorer and the same API for
// browsers over HTTP on webLis (httpapi.Handler), until ctx is done or either server fails; then it stops
// both gracefully (in-flight calls get 10 s).
// Each option sees the service before it serves (tests use one to wait for the in-memory topology).
func serve(ctx context.Context, lis, webLis net.Listener, store graph.Store, cfg Config, log *slog.Logger, stdout io.Writer, options ...func(*graph.Service)) error {
	svc := &graph.Service{Store: store, Timeout: cfg.Timeout, Budget: cfg.WorkBudget}
	if cfg.InMemory {
		if feed, ok := store.(graph.ChangeFeed); ok {
			svc.Topology = graph.NewTopology(feed)
			go fillTopology(ctx, svc.Topology, log)
		}
	}
	for _, o := range options {
		o(svc)
	}
	limiter := rpc.NewLimiter(cfg.Limits, log, pb.GraphService_ServiceDesc)
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(logCalls(log), limiter.Unary()), grpc.ChainStreamInterceptor(limiter.Stream()),
		grpc.MaxRecvMsgSize(maxRequestBytes))
	pb.RegisterGraphServiceServer(srv, rpc.NewServer(svc, log))
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.GraphService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	docs, err := pb.DocumentedFiles()
	if err != nil {
		return err
	}
	refl := reflection.NewServerV1(reflection.ServerOptions{Services: srv, DescriptorResolver: docs})
	reflectionpb.RegisterServerReflectionServer(srv, refl)

	var webSrv *http.Server
	if webLis != nil {
		h, err := httpapi.Handler(srv, hs, httpapi.Options{AllowedHosts: cfg.HTTPAllowedHosts})
		if err != nil {
			return err
		}
		webSrv = httpapi.Server(h, httpapi.DefaultTimeouts(cfg.Timeout), log)
	}

	go watchDatabase(ctx, store, hs, log)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	log.Info("serving polgraph.v1.GraphService", "addr", lis.Addr().String())
	fmt.Fprintf(stdout, "polgraph is serving on %s; try: grpcurl -plaintext %s list\n", lis.Addr(), lis.Addr())
	if webSrv != nil {
		go func() { errc <- webSrv.Serve(webLis) }()
		log.Info("serving the graph explorer", "url", explorerURL(webLis))
		fmt.Fprintf(stdout, "the graph explorer is at %s\n", explorerURL(webLis))
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

// maxRequestBytes bounds a gRPC request: the largest read request (1,000 excluded names) is well under it.
const maxRequestBytes = 4 << 20

// fillTopology reads the graph's links into memory; until it is done, searches read them from Dgraph.
func fillTopology(ctx context.Context, t *graph.Topology, log *slog.Logger) {
	start := time.Now()
	if err := t.Sync(ctx); err != nil {
		log.Warn("cannot keep the graph in memory; searches read it from Dgraph", "err", err)
		return
	}
	entities, relations, version := t.Size()
	log.Info("graph held in memory", "entities", entities, "relations", relations, "version", version, "took", time.Since(start).Round(time.Millisecond))
}

// healthInterval is how often the health service asks the database whether it answers.
var healthInterval = 5 * time.Second

// watchDatabase reports NOT_SERVING on the health service while the database does not answer, so that a
// load balancer or an orchestrator can tell.
func watchDatabase(ctx context.Context, store graph.Store, hs *health.Server, log *slog.Logger) {
	tick := time.NewTicker(healthInterval)
	defer tick.Stop()
	serving := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := store.Ping(ctx)
		if ok := err == nil; ok != serving && ctx.Err() == nil {
			serving = ok
			st := healthpb.HealthCheckResponse_SERVING
			if !ok {
				st = healthpb.HealthCheckResponse_NOT_SERVING
				log.Warn("the database does not answer", "err", err)
			} else {
				log.Info("the database answers again")
			}
			hs.SetServingStatus("", st)
			hs.SetServingStatus(pb.GraphService_ServiceDesc.ServiceName, st)
		}
	}
}

// logCalls logs every call with its outcome and duration.
func logCalls(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		log.Debug("call", "method", info.FullMethod, "code", status.Code(err).String(), "duration", time.Since(start))
		return resp, err
	}
}
