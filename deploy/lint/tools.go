//go:build tools

// Package lint pins the linters `make check` runs: staticcheck on the Go code, buf on the protos. It is a
// module of its own, apart from deploy/tools (grpcurl, whose dependencies the README's outputs were
// measured with), so that neither moves the other's dependencies, nor polgraph's go.mod.
package lint

import (
	_ "github.com/bufbuild/buf/cmd/buf"
	_ "honnef.co/go/tools/cmd/staticcheck"
)
