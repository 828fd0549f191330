package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/resolve"
)

// resolveCmd is `polgraph resolve`: the pairs of entities of the graph that may be one, best first, each
// with the features of its score (graph/resolve), read from a whole-graph export.
func resolveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var limit *int
	var kind *string
	c, _, err := parseClientCommand("resolve", "usage: polgraph resolve [flags]\n\nThe pairs of entities of the graph that may be one, best first, each with why: people of one surname\nscored on their names, given-name forms, ids and birth years; parties and organisations of one name form.\nMerge one with MergeEntities (docs/writing.md).",
		0, 0, false, args, stderr, func(fs *flag.FlagSet) {
			limit = fs.Int("limit", 20, "how many pairs")
			kind = fs.String("kind", "", "only entities of this kind (actor, party, organisation, seat)")
		})
	if err != nil {
		return err
	}
	client, done, err := c.dial()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	stream, err := client.ExportGraph(ctx, &pb.ExportGraphRequest{Format: "polgraph"})
	if err != nil {
		return c.callError(err)
	}
	var buf bytes.Buffer
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.callError(err)
		}
		buf.Write(msg.GetData())
	}
	ds, err := dataset.Read([]dataset.File{{Name: "the graph", R: &buf}})
	if err != nil {
		return err
	}
	var ents []graph.Entity
	for _, e := range ds.Entities {
		if *kind == "" || strings.EqualFold(string(e.Kind), *kind) {
			ents = append(ents, e)
		}
	}
	pairs := resolve.Candidates(ents)
	fmt.Fprintf(stdout, "%d %s that may be one\n", len(pairs), plural(len(pairs), "pair", "pairs"))
	for _, p := range pairs[:min(len(pairs), max(*limit, 0))] {
		fmt.Fprintf(stdout, "%s (%s) ~ %s (%s): %s\n", p.A.Name, p.A.DisplayName, p.B.Name, p.B.DisplayName, p.Score)
	}
	return nil
}
