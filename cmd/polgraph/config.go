package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/polgraph/polgraph/deploy/dgraphlocal"
	"github.com/polgraph/polgraph/graph"
)

// Config is every setting of the polgraph binary, with defaults, overridden by environment variables,
// then by flags.
type Config struct {
	Addr       string        // gRPC listen address
	HTTP       string        // the graph explorer's HTTP listen address (run, serve); empty turns it off
	Dgraph     string        // Dgraph alpha gRPC address (serve, load, import)
	Timeout    time.Duration // server-side bound on every query
	LogLevel   string
	DataDir    string // run: where the local Dgraph keeps its data
	PortOffset int    // run: offset of the local Dgraph's ports
	DgraphBin  string // run: the dgraph binary
	Batch      int    // load, import: records per transaction
	WorkBudget int    // relations one query may read before it stops with RESOURCE_EXHAUSTED
	InMemory   bool   // keep the graph's links in memory for path and neighbourhood searches
}

func defaultConfig() Config {
	return Config{
		Addr:       "127.0.0.1:50051",
		HTTP:       "127.0.0.1:8080",
		Dgraph:     "127.0.0.1:9180",
		Timeout:    10 * time.Second,
		LogLevel:   "info",
		DataDir:    ".data/dgraph",
		PortOffset: dgraphlocal.DefaultPortOffset,
		DgraphBin:  dgraphlocal.DefaultBinary(),
		Batch:      2000,
		WorkBudget: graph.DefaultWorkBudget,
		InMemory:   true,
	}
}

// flags registers the settings a command uses, with values from the environment as defaults.
func (c *Config) flags(name string, stderr io.Writer, which ...string) *flag.FlagSet {
	fs := flag.NewFlagSet("polgraph "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(key, def string) string {
		if v, ok := os.LookupEnv(key); ok {
			return v
		}
		return def
	}
	for _, w := range which {
		switch w {
		case "addr":
			fs.StringVar(&c.Addr, "addr", env("POLGRAPH_ADDR", c.Addr), "gRPC listen address ($POLGRAPH_ADDR)")
		case "http":
			fs.StringVar(&c.HTTP, "http", env("POLGRAPH_HTTP", c.HTTP), "the graph explorer's HTTP listen address; empty turns it off ($POLGRAPH_HTTP)")
		case "dgraph":
			fs.StringVar(&c.Dgraph, "dgraph", env("POLGRAPH_DGRAPH", c.Dgraph), "Dgraph alpha gRPC address ($POLGRAPH_DGRAPH)")
		case "timeout":
			d, err := time.ParseDuration(env("POLGRAPH_TIMEOUT", c.Timeout.String()))
			if err == nil {
				c.Timeout = d
			}
			fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "server-side deadline of every query ($POLGRAPH_TIMEOUT)")
			fs.IntVar(&c.WorkBudget, "work-budget", c.WorkBudget, "relations one query may read before it stops with RESOURCE_EXHAUSTED")
			fs.BoolVar(&c.InMemory, "in-memory", env("POLGRAPH_IN_MEMORY", "true") == "true", "keep the graph's links in memory, in step with Dgraph, for path and neighbourhood searches ($POLGRAPH_IN_MEMORY)")
		case "log":
			fs.StringVar(&c.LogLevel, "log-level", env("POLGRAPH_LOG_LEVEL", c.LogLevel), "debug, info, warn or error ($POLGRAPH_LOG_LEVEL)")
		case "local":
			fs.StringVar(&c.DataDir, "data-dir", env("POLGRAPH_DATA_DIR", c.DataDir), "where the local Dgraph keeps its data ($POLGRAPH_DATA_DIR)")
			var off int
			if _, err := fmt.Sscan(env("POLGRAPH_DGRAPH_PORT_OFFSET", fmt.Sprint(c.PortOffset)), &off); err == nil {
				c.PortOffset = off
			}
			fs.IntVar(&c.PortOffset, "dgraph-port-offset", c.PortOffset, "added to Dgraph's standard ports: 100 puts the alpha's gRPC on 9180 ($POLGRAPH_DGRAPH_PORT_OFFSET)")
			fs.StringVar(&c.DgraphBin, "dgraph-bin", c.DgraphBin, "the dgraph binary ($POLGRAPH_DGRAPH_BIN)")
		case "batch":
			fs.IntVar(&c.Batch, "batch", c.Batch, "records per transaction")
		}
	}
	return fs
}

func (c Config) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(c.LogLevel))); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", c.LogLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}
