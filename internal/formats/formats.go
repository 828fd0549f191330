// Package formats writes a subgraph in every format polgraph exports, by name: the one place that knows
// them all, for the CLI and the API alike.
package formats

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/export"
	"github.com/polgraph/polgraph/graph/ftm"
	"github.com/polgraph/polgraph/graph/popolo"
)

// Names lists the formats, in the order help text shows them.
var Names = []string{"polgraph", "popolo", "ftm", "graphml", "gexf", "cytoscape", "nquads"}

// MediaType is a format's media type ("" for an unknown one).
func MediaType(format string) string {
	switch format {
	case "polgraph", "ftm":
		return "application/x-ndjson"
	case "popolo":
		return "application/json"
	}
	return export.Format(format).MediaType()
}

// Write writes g in the named format. An unknown format is an Invalid error naming the known ones.
func Write(w io.Writer, format string, g graph.Subgraph) error {
	switch format {
	case "polgraph":
		// A dataset file holds what the graph holds but its deleted entities and relations (the audit trail
		// keeps those): every claim, each retraction marked, so that polgraph load reads the export back
		// into the same graph. Its header says what part of the graph it is and under which filter.
		live := graph.Subgraph{Sources: g.Sources}
		for _, e := range g.Entities {
			if e.Deleted.IsZero() {
				live.Entities = append(live.Entities, e)
			}
		}
		for _, r := range g.Relations {
			if r.Deleted.IsZero() && len(r.Claims) > 0 {
				live.Relations = append(live.Relations, r)
			}
		}
		return dataset.WriteSubgraphHeaded(w, dataset.Header{Name: "export", Description: exportDescription(g), Filter: g.Filter, Exported: true}, live)
	case "popolo":
		return popolo.Write(w, g)
	case "ftm":
		return ftm.Write(w, g)
	}
	if !slices.Contains(Names, format) {
		return &graph.Error{Op: "formats.Write", Kind: graph.Invalid, Message: fmt.Sprintf("unknown format %q: want one of %s", format, strings.Join(Names, ", ")),
			Violations: []graph.FieldViolation{{Field: "format", Description: fmt.Sprintf("%q is not one of %s", format, strings.Join(Names, ", "))}}}
	}
	return export.Write(w, export.Format(format), g)
}

// exportDescription says in a header what part of the graph an export is, and under which filter.
func exportDescription(g graph.Subgraph) string {
	d := "exported from polgraph"
	if g.Scope != "" {
		d += ": " + g.Scope
	}
	if g.Filter == "" {
		return d + ", every relation whatever its claims, retracted claims marked"
	}
	return d + ", the relations that count under the filter (" + g.Filter + ")"
}
