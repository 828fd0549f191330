package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestUnits runs the explorer's unit tests of its pure modules (unit/units.mjs: where the review view's
// highlights fall in a text given in UTF-8 byte offsets, and the address of the review view) under node.
// `make test` (POLGRAPH_REQUIRE_BROWSER) makes missing node or node_modules a failure; a plain `go test`
// skips then.
func TestUnits(t *testing.T) {
	missing := func(what string) {
		t.Helper()
		if os.Getenv("POLGRAPH_REQUIRE_BROWSER") != "" {
			t.Fatal(what)
		}
		t.Skipf("%s; `make test` requires it", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "esbuild")); err != nil {
		missing("web/node_modules is not installed (`make web-deps`)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--test", "unit/units.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node --test unit/units.mjs: %v\n%s", err, out)
	}
}
