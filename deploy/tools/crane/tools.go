//go:build tools

// Package crane pins crane, the tool deploy/build-image.sh assembles polgraph's container image with
// (no Docker engine needed). It is its own module so that go-containerregistry's dependencies stay out of
// polgraph's go.mod and of the other tools' builds.
package crane

import _ "github.com/google/go-containerregistry/cmd/crane"
