// Package schema holds polgraph's Dgraph schema as a file, embedded so the binary carries it.
package schema

import (
	_ "embed"
	"regexp"
)

// DQL is the Dgraph schema, applied idempotently at start-up.
//
//go:embed schema.dql
var DQL string

var (
	predicateLine = regexp.MustCompile(`(?m)^(p[gq]\.[a-z_]+):`)
	reverseLine   = regexp.MustCompile(`(?m)^(p[gq]\.[a-z_]+):.*@reverse`)
)

// Predicates lists every predicate the schema declares, in the order it declares them: the graph's (pg.*)
// and the review queue's (pq.*). They are what polgraph's Dgraph user is given access to, and nothing else.
func Predicates() []string {
	var out []string
	for _, m := range predicateLine.FindAllStringSubmatch(DQL, -1) {
		out = append(out, m[1])
	}
	return out
}

// Reverses lists the predicates the schema indexes in reverse (@reverse): queries walk them backwards as
// ~predicate, which Dgraph's ACL counts as a predicate of its own.
func Reverses() []string {
	var out []string
	for _, m := range reverseLine.FindAllStringSubmatch(DQL, -1) {
		out = append(out, m[1])
	}
	return out
}
