package dgraphlocal

import (
	"context"
	"fmt"
	"log/slog"
	"os"
)

// ForTests gives a test package a Dgraph alpha: the one at POLGRAPH_TEST_ALPHA when that is set (its data
// will be dropped), else a fresh zero and alpha on free ports with data in a temporary folder. stop ends
// what was started and removes its data.
func ForTests(ctx context.Context) (addr string, stop func(), err error) {
	if a := os.Getenv("POLGRAPH_TEST_ALPHA"); a != "" {
		return a, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "polgraph-test-dgraph-")
	if err != nil {
		return "", nil, err
	}
	// Offsets 200-999 keep every port (5280-10079) clear of `make run`'s (offset 100) and of the
	// benchmark's (offsets from 10000), and no two offsets in the range share a port.
	cfg := Config{Binary: DefaultBinary(), DataDir: dir,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	c, cfg, err := StartOnFreePorts(ctx, cfg, 200+os.Getpid()%100*7)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("start a Dgraph for the tests: %w", err)
	}
	return cfg.AlphaAddr(), func() { c.Stop(); os.RemoveAll(dir) }, nil
}
