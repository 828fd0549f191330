package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/internal/formats"
)

const exportUsage = `usage: polgraph export --format FORMAT [flags] [--out FILE]

Writes the graph, an entity's neighbourhood (--around NAME, --depth N) or the routes between two entities
(--from A --to B) in a format other tools read, with every relation's claims, sources and dates:
` + "  polgraph   the dataset format (JSON lines), which polgraph load reads back\n" +
	"  popolo     Popolo JSON: persons, organizations, areas, legislative periods, memberships\n" +
	"  ftm        FollowTheMoney entities (JSON lines)\n" +
	"  graphml    GraphML (yEd, Gephi, networkx)\n" +
	"  gexf       GEXF 1.3 (Gephi), dated where the graph is\n" +
	"  cytoscape  Cytoscape.js JSON\n" +
	"  nquads     RDF N-Quads, each claim in the named graph of its source\n" +
	`The export is read from a running polgraph (--server), as every analyst command is.`

// exportCmd is `polgraph export`.
func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var format, around, from, to, out *string
	var depth, maxPaths, maxDepth *int
	var followVia *bool
	c, _, err := parseClientCommand("export", exportUsage, 0, 0, true, args, stderr, func(fs *flag.FlagSet) {
		format = fs.String("format", "", "one of "+strings.Join(formats.Names, ", "))
		around = fs.String("around", "", "export this entity's neighbourhood")
		depth = fs.Int("depth", 1, "with --around: hops out, 1 to 3")
		from = fs.String("from", "", "export the routes from this entity...")
		to = fs.String("to", "", "...to this one")
		maxPaths = fs.Int("max-paths", 0, "with --from: how many routes (default 3)")
		maxDepth = fs.Int("max-depth", 0, "with --from: longest route in hops (default 4)")
		followVia = fs.Bool("follow-via", false, "routes and neighbourhoods also go from a relation's from to its via (an MP to their party)")
		out = fs.String("out", "", "write to this file instead of standard output")
	})
	if err != nil {
		return err
	}
	if *format == "" {
		fmt.Fprintln(stderr, exportUsage)
		return errUsage
	}
	client, done, err := c.dial()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	stream, err := client.ExportGraph(ctx, &pb.ExportGraphRequest{Format: *format, Center: *around, Depth: int32(*depth),
		From: *from, To: *to, MaxPaths: int32(*maxPaths), MaxDepth: int32(*maxDepth), FollowVia: *followVia, Filter: c.filter()})
	if err != nil {
		return c.callError(err)
	}
	var w io.Writer = stdout
	var f *os.File
	if *out != "" {
		// Written beside the target and renamed at the end, so a failed export leaves no half file.
		if f, err = os.CreateTemp(filepath.Dir(*out), ".polgraph-export-*"); err != nil {
			return err
		}
		defer os.Remove(f.Name())
		w = f
	}
	written := 0
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			return c.callError(err)
		}
		if _, err := w.Write(msg.GetData()); err != nil {
			return err
		}
		written += len(msg.GetData())
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(f.Name(), *out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%s, %d bytes)\n", *out, *format, written)
	}
	return nil
}
