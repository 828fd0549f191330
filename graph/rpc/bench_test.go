package rpc_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/rpc"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// unreadStore is a store no answer may read: every call panics (its Store is nil).
type unreadStore struct{ graph.Store }

// BenchmarkNeighborhoodOverGRPC asks for depth-2 neighbourhoods (25 per entity, 100 in all, as the
// bench's workload) around random actors of a synthetic graph (100k relations, or
// POLGRAPH_BENCH_RELATIONS) held in memory with its evidence, through the gRPC server and a client over
// loopback TCP: the whole answer as a client gets it, its conversion to and from protobuf included,
// without Dgraph (the version query is not asked). Reports the answer's size on the wire and the CPU time
// the process used an answer, client and server together, the collector's included.
func BenchmarkNeighborhoodOverGRPC(b *testing.B) {
	c, topo, err := graphtest.SyntheticTopology(context.Background(), graphtest.BenchRelations())
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	pb.RegisterGraphServiceServer(srv, rpc.NewServer(&service.Service{Store: unreadStore{}, Reads: topo.Reads(unreadStore{})}, slog.New(slog.DiscardHandler)))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	client := pb.NewGraphServiceClient(conn)
	var actors []string
	for _, e := range c.Entities {
		if e.Kind == graph.KindActor {
			actors = append(actors, string(e.Name))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	bytes := 0
	cpu := processCPU(b)
	for b.Loop() {
		resp, err := client.ExploreNeighborhood(context.Background(), &pb.ExploreNeighborhoodRequest{
			Name: actors[r.IntN(len(actors))], Depth: 2, MaxPerNode: 25, MaxNodes: 100})
		if err != nil {
			b.Fatal(err)
		}
		bytes += proto.Size(resp)
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "wire-bytes/op")
	b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time this process has used, user and system: on a machine shared with other
// work, a steadier measure of what an answer costs than the time it takes.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
