package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
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
	"github.com/polgraph/polgraph/graph/rpc"
)

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("serve", stderr, "addr", "dgraph", "timeout", "log")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg.Dgraph, log)
	if err != nil {
		return err
	}
	defer store.Close()
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	return serve(ctx, lis, store, cfg, log, stdout)
}

// openStore connects to Dgraph and applies the schema.
func openStore(ctx context.Context, addr string, log *slog.Logger) (*dgraph.Store, error) {
	store, err := dgraph.Open(ctx, addr, log)
	if err != nil {
		return nil, err
	}
	if err := store.ApplySchema(ctx); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// serve answers gRPC on lis until ctx is done, then stops gracefully (in-flight calls get 10 s).
func serve(ctx context.Context, lis net.Listener, store graph.Store, cfg Config, log *slog.Logger, stdout io.Writer) error {
	svc := &graph.Service{Store: store, Timeout: cfg.Timeout, Budget: cfg.WorkBudget}
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(logCalls(log)))
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

	go watchDatabase(ctx, store, hs, log)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	log.Info("serving polgraph.v1.GraphService", "addr", lis.Addr().String())
	fmt.Fprintf(stdout, "polgraph is serving on %s; try: grpcurl -plaintext %s list\n", lis.Addr(), lis.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	hs.Shutdown()
	done := make(chan struct{})
	go func() { srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		srv.Stop()
	}
	return nil
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
