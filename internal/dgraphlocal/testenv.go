package dgraphlocal

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/polgraph/polgraph/graph/dgraph"
)

// TestDgraph is a Dgraph for the tests of one package: how the service logs in (Service), how an
// administrator does (Admin), and DataDir, whose secrets `polgraph load` and `serve` find by themselves.
type TestDgraph struct {
	Service, Admin dgraph.Config
	DataDir        string
	// AlphaHTTP and ZeroHTTP are the base URLs of the alpha's and zero's HTTP ports.
	AlphaHTTP, ZeroHTTP string
	secrets             *Secrets // nil: a Dgraph without ACL
}

// ForTests gives a test package a Dgraph: a fresh zero and alpha, closed as `polgraph run` starts them,
// on free ports with data in a temporary folder; or the alpha at POLGRAPH_TEST_ALPHA when that is set
// (its data will be dropped; POLGRAPH_TEST_DATA_DIR names its data folder when its ACL is on, as with
// `make run`'s). stop ends what was started and removes its data.
func ForTests(ctx context.Context) (d TestDgraph, stop func(), err error) {
	if a := os.Getenv("POLGRAPH_TEST_ALPHA"); a != "" {
		return external(a, os.Getenv("POLGRAPH_TEST_DATA_DIR"))
	}
	dir, err := os.MkdirTemp("", "polgraph-test-dgraph-")
	if err != nil {
		return d, nil, err
	}
	// Offsets 200-999 keep every port (5280-10079) clear of `make run`'s (offset 100) and of the
	// benchmark's (offsets from 10000), and no two offsets in the range share a port.
	cfg := Config{Binary: DefaultBinary(), DataDir: dir,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	c, cfg, err := StartOnFreePorts(ctx, cfg, 200+os.Getpid()%100*7)
	if err != nil {
		os.RemoveAll(dir)
		return d, nil, fmt.Errorf("start a Dgraph for the tests: %w", err)
	}
	d = TestDgraph{Service: c.Service(), Admin: c.Admin(), DataDir: dir, AlphaHTTP: cfg.alphaHTTP(),
		ZeroHTTP: "http://127.0.0.1:" + strconv.Itoa(6080+cfg.PortOffset), secrets: &c.secrets}
	return d, func() { c.Stop(); os.RemoveAll(dir) }, nil
}

// external is a running alpha at addr, started as dgraphlocal starts them (its HTTP port 1000 below
// its gRPC port, zero's 3000 below), with its secrets in dataDir when it has ACL on.
func external(addr, dataDir string) (TestDgraph, func(), error) {
	d := TestDgraph{Service: dgraph.Config{Addr: addr}, Admin: dgraph.Config{Addr: addr}, DataDir: dataDir}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return d, nil, fmt.Errorf("POLGRAPH_TEST_ALPHA: %w", err)
	}
	p, _ := strconv.Atoi(port)
	d.AlphaHTTP = "http://" + net.JoinHostPort(host, strconv.Itoa(p-1000))
	d.ZeroHTTP = "http://" + net.JoinHostPort(host, strconv.Itoa(p-3000))
	if dataDir != "" {
		s, err := ReadSecrets(dataDir)
		if err != nil {
			return d, nil, err
		}
		d.secrets = &s
		d.Service = dgraph.Config{Addr: addr, User: ServiceUser, Password: s.ServicePassword, AuthToken: s.AuthToken}
		d.Admin = dgraph.Config{Addr: addr, User: "groot", Password: s.GrootPassword, AuthToken: s.AuthToken}
	}
	return d, func() {}, nil
}

// Reset drops every node and the schema, as the administrator, then gives polgraph's user back: Dgraph
// drops every user but groot with the data.
func (d TestDgraph) Reset(ctx context.Context) error {
	admin, err := dgraph.Open(ctx, d.Admin, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	err = admin.DropAll(ctx)
	admin.Close()
	if err != nil || d.secrets == nil {
		return err
	}
	return bootstrapACL(ctx, aclClient{base: d.AlphaHTTP, token: d.secrets.AuthToken, http: http.DefaultClient}, *d.secrets, slog.New(slog.DiscardHandler))
}
