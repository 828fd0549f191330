// Command polgraph loads political graphs into Dgraph and serves them over gRPC.
//
//	polgraph run                  start a local Dgraph, load the default graph, serve gRPC
//	polgraph serve                serve gRPC on an existing Dgraph
//	polgraph load FILE...         check dataset files, then load them
//	polgraph path FROM TO         how two entities are connected, with evidence
//	polgraph around NAME          what surrounds an entity
//	polgraph relations NAME       an entity's relations, newest first, with evidence
//	polgraph timeline NAME        an entity's relations in time
//	polgraph source NAME          a source and every claim that cites it
//	polgraph sources              the sources, with how many claims cite each
//	polgraph stats                what the graph holds
//	polgraph connections A B ...  what entities have in common
//	polgraph ingest PATH...       read articles and posts into the review queue
//	polgraph review COMMAND       the review queue: list, show, approve, reject, edit, merge
//	polgraph keys create|list|revoke  API keys for the service
//	polgraph backup, restore      backups of the local Dgraph, verified restores
//
// Run `polgraph help` for flags and environment variables.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/polgraph/polgraph/graph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := realMain(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "polgraph:", err)
		}
		os.Exit(exitCode(err))
	}
}

var errUsage = errors.New("usage")

func exitCode(err error) int {
	switch {
	case errors.Is(err, errUsage):
		return 2
	case graph.KindOf(err) == graph.Invalid:
		return 3
	case graph.KindOf(err) == graph.Unavailable:
		return 4
	}
	return 1
}

const usage = `polgraph: a political knowledge graph on Dgraph, served over gRPC.

Commands:
  run                 start a local Dgraph, apply the schema, load the default graph, serve gRPC and
                      the graph explorer (what ` + "`make run`" + ` does); Ctrl-C stops everything
  serve               serve gRPC and the graph explorer on a running Dgraph (applies the schema first)
  cluster             a local Dgraph cluster (3 alphas replicating one group, by default) and 2 polgraph
                      replicas serving it, every process restarted when it dies (what make cluster
                      does; docs/operations.md); Ctrl-C stops everything
  load FILE...        check dataset files (data/FORMAT.md), report every problem, and load them only
                      when there is none: into Dgraph (--dgraph), or through a running polgraph
                      (--server, with an editor's API key), each change in its audit trail
  path FROM TO        how two entities are connected: the shortest paths, each hop with its evidence
                      (asks a running polgraph; --max-depth, --types, --as-of, --json, ...)
  entity NAME         one entity: its names (with their languages), ids, dates, links, contacts and
                      relations by type; NAME may be an id such as wikidata:Q467112
  around NAME         what surrounds an entity, hop by hop (--depth 1-3, --as-of, --json, ...)
  relations NAME      an entity's relations, newest first, each with its claims (--direction out|in,
                      --types, --as-of, ...)
  timeline NAME       an entity's relations in time: events and states by when they start, undated
                      ones apart
  source NAME         a source (sources/...) and every claim that cites it, with the relation it backs
  sources             the sources, each with how many claims cite it (--kind, --outlet)
  stats               what the graph holds, and when it was last written
  connections A B [C...]
                      what 2 to 10 entities have in common: shared neighbours, shared sources, and
                      the shortest route between each pair (--max-shared, --max-depth, --types, ...)
  history NAME        the changes of an entity, relation or source in the audit trail, newest first
                      (asks a running polgraph, with an editor's API key)
  watch               the graph's changes as they are committed, one a line or --json lines: --since
                      VERSION, --entities, --around NAME --depth N, --types, --kinds, --until-caught-up
  resolve             the pairs of entities that may be one, best first, each with why (--kind, --limit)
  import ocd-divisions FILE
                      load a constituency list in the Open Civic Data CSV format as seats, linking
                      each seat to its successor: into Dgraph, or through a running polgraph (--server)
  import popolo FILE...
                      load Popolo JSON (persons, parties, areas, posts, terms, memberships), merged with
                      what the graph holds by ids or unambiguous names
  import ftm FILE     load FollowTheMoney entities (people, companies, memberships, directorships...)
  export --format popolo|ftm|graphml|gexf|cytoscape|nquads|polgraph [--around NAME | --from A --to B]
                      write the graph or part of it, with claims and sources, for other tools
  ingest PATH...      read articles and social posts (text, HTML, post streams; files or folders) into
                      the review queue: proposed entities and relations, each with its sentence, none
                      in the graph until approved; into Dgraph, or through a running polgraph (--server);
                      --dry-run prints what it reads, or writes it in the dataset format (--out FILE)
  review documents|list|show|entities|approve|reject|edit|merge|reject-entity
                      the review queue of a running polgraph (with an editor's API key): what was read,
                      and the decisions on it; approve makes proposals claims, many at once
  keys create --name NAME --role reader|editor|admin
  keys list
  keys revoke NAME|keys/ID
                      API keys for the service, kept hashed in Dgraph (talks to Dgraph directly,
                      like load); a key is shown once, when it is created
  backup [list|verify] DIR
                      back up the local Dgraph (graph, audit trail, review queue, keys) into DIR, full
                      or incremental, optionally encrypted; list them; verify one in a scratch Dgraph
  restore --data-dir NEW DIR
                      restore a backup into an empty data folder, checked against its manifest
  gen                 write a synthetic political graph in the dataset format (and as N-Quads), for
                      benchmarks: --relations N --seed S --out FILE [--rdf FILE]
  evaluate --annotations DIR | --against DATASET [--verbose]
                      score what ingest proposes against hand annotations (data/annotations) or
                      against a dataset's claims: entity and relation recall and precision, denials
  help                this text

Run "polgraph COMMAND -h" for a command's flags. Every flag can also be set in the environment:
POLGRAPH_ADDR, POLGRAPH_HTTP, POLGRAPH_DGRAPH, POLGRAPH_TIMEOUT, POLGRAPH_IN_MEMORY, POLGRAPH_LOG_LEVEL, POLGRAPH_DATA_DIR,
POLGRAPH_DGRAPH_PORT_OFFSET, POLGRAPH_DGRAPH_BIN; for polgraph's own listeners POLGRAPH_TLS_CERT, POLGRAPH_TLS_KEY,
POLGRAPH_TLS_CLIENT_CA, POLGRAPH_TLS_REQUIRE_CLIENT_CERT, POLGRAPH_TLS_CLIENT_ROLES, POLGRAPH_REQUIRE_AUTH_FOR_READS,
POLGRAPH_READ_RATE, POLGRAPH_READ_BURST, POLGRAPH_WRITE_RATE, POLGRAPH_WRITE_BURST, POLGRAPH_WRITES; for watching it
POLGRAPH_METRICS, POLGRAPH_PPROF, POLGRAPH_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT); for the analyst commands
POLGRAPH_API_KEY, POLGRAPH_TLS_CA, POLGRAPH_CLIENT_TLS_CERT, POLGRAPH_CLIENT_TLS_KEY.
`

// realMain runs one command; main only wires signals and exit codes, so tests can run the same code.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return runAll(ctx, rest, stdout, stderr)
	case "serve":
		return serveCmd(ctx, rest, stdout, stderr)
	case "cluster":
		return clusterCmd(ctx, rest, stdout, stderr)
	case "load":
		return loadCmd(ctx, rest, stdout, stderr)
	case "path":
		return pathCmd(ctx, rest, stdout, stderr)
	case "around":
		return aroundCmd(ctx, rest, stdout, stderr)
	case "relations":
		return relationsCmd(ctx, rest, stdout, stderr)
	case "timeline":
		return timelineCmd(ctx, rest, stdout, stderr)
	case "source":
		return sourceCmd(ctx, rest, stdout, stderr)
	case "sources":
		return sourcesCmd(ctx, rest, stdout, stderr)
	case "stats":
		return statsCmd(ctx, rest, stdout, stderr)
	case "connections":
		return connectionsCmd(ctx, rest, stdout, stderr)
	case "history":
		return historyCmd(ctx, rest, stdout, stderr)
	case "watch":
		return watchCmd(ctx, rest, stdout, stderr)
	case "resolve":
		return resolveCmd(ctx, rest, stdout, stderr)
	case "import":
		return importCmd(ctx, rest, stdout, stderr)
	case "export":
		return exportCmd(ctx, rest, stdout, stderr)
	case "entity":
		return entityCmd(ctx, rest, stdout, stderr)
	case "gen":
		return genCmd(ctx, rest, stdout, stderr)
	case "evaluate":
		return evaluateCmd(ctx, rest, stdout, stderr)
	case "keys":
		return keysCmd(ctx, rest, stdout, stderr)
	case "ingest":
		return ingestCmd(ctx, rest, stdout, stderr)
	case "review":
		return reviewCmd(ctx, rest, stdout, stderr)
	case "backup":
		return backupCmd(ctx, rest, stdout, stderr)
	case "restore":
		return restoreCmd(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "polgraph: unknown command %q\n\n%s", cmd, usage)
	return errUsage
}
