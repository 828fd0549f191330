// Package schema holds polgraph's Dgraph schema as a file, embedded so the binary carries it.
package schema

import _ "embed"

// DQL is the Dgraph schema, applied idempotently at start-up.
//
//go:embed schema.dql
var DQL string
