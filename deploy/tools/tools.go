//go:build tools

// Package tools pins the command-line tools polgraph's README and benchmarks use. It is its own module so
// that their dependencies stay out of polgraph's go.mod.
package tools

import _ "github.com/fullstorydev/grpcurl/cmd/grpcurl"
