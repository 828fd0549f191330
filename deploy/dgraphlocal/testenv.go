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
	offset, err := FreeOffset(1000 + os.Getpid()%400*7)
	if err != nil {
		return "", nil, err
	}
	cfg := Config{Binary: DefaultBinary(), DataDir: dir, PortOffset: offset,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	c, err := Start(ctx, cfg)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("start a Dgraph for the tests: %w", err)
	}
	return cfg.AlphaAddr(), func() { c.Stop(); os.RemoveAll(dir) }, nil
}
