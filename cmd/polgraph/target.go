package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// writeTarget is where a command that writes the graph writes: through a running polgraph, or straight to
// Dgraph.
type writeTarget struct {
	server string // polgraph's address, when the command writes through it
	dgraph string // else Dgraph's
}

// say prints where the command writes, as the first line it prints (on stderr, so that stdout stays the
// command's answer: JSON, a key).
func (t writeTarget) say(stderr io.Writer) {
	if t.server != "" {
		fmt.Fprintf(stderr, "writing through polgraph at %s\n", t.server)
		return
	}
	fmt.Fprintf(stderr, "writing to Dgraph at %s\n", t.dgraph)
}

// writeTargetOf reads where a command writes from its parsed flags (fs; server is --server's value, "" for
// a command without it) and refuses flags and environment that disagree: --server with --dgraph, or a
// polgraph address set in $POLGRAPH_ADDR while the command would write to the default Dgraph, which may
// be another instance's.
func writeTargetOf(fs *flag.FlagSet, server, dgraph string) (writeTarget, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case given["server"] && given["dgraph"]:
		return writeTarget{}, fmt.Errorf("--server %s and --dgraph %s are both given: pass --server to write through that polgraph, or --dgraph to write to that Dgraph", server, dgraph)
	case given["server"]:
		return writeTarget{server: server}, nil
	}
	// Refused, not sent through polgraph: that needs an editor's key and has limits of its own, so the user chooses.
	addr := os.Getenv("POLGRAPH_ADDR")
	if addr != "" && addr != defaultConfig().Addr && !given["dgraph"] && os.Getenv("POLGRAPH_DGRAPH") == "" {
		hint := "pass --server " + addr + " to write through that polgraph, or "
		if fs.Lookup("server") == nil {
			hint = ""
		}
		return writeTarget{}, fmt.Errorf("POLGRAPH_ADDR is set to %s, but this command uses the default Dgraph at %s, which may be another polgraph's: %s"+
			"pass --dgraph (or set POLGRAPH_DGRAPH) to choose the Dgraph, or unset POLGRAPH_ADDR", addr, dgraph, hint)
	}
	return writeTarget{dgraph: dgraph}, nil
}
