//go:build tools

// Package dgraph pins the Dgraph server version that deploy/build-dgraph.sh builds.
// It is its own module so that Dgraph's large dependency graph stays out of polgraph's go.mod.
package dgraph

import _ "github.com/hypermodeinc/dgraph/v25/dgraph"
