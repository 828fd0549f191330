package review

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// WriteDataset writes what the pipeline read, unreviewed, in the dataset format (data/FORMAT.md), so that
// proposals can be diffed, scored and loaded like any file: one header; each document's source (SourceOf);
// the proposed entities (each once, with its kind in its name, its display name and every alias met);
// and one relation per proposal, with one claim citing its document (excerpt, confidence, status,
// said_by), its ends in the order a symmetric type wants. A relation whose name an earlier one of the
// file has is keyed by its proposal's id, so that every proposal stays a relation of its own.
//
// Ends that are existing entities are referred to by name and not defined: the file reads back with
// dataset.Read together with a file that defines them (the graph's export, or the dataset it was loaded
// from), or with dataset.ReadWith against the graph; on its own when every end is proposed.
func WriteDataset(w io.Writer, readings []Reading) error {
	bw := bufio.NewWriter(w)
	var failed error
	write := func(v any) {
		if failed != nil {
			return
		}
		b, err := json.Marshal(v)
		if err == nil {
			b = append(b, '\n')
			_, err = bw.Write(b)
		}
		failed = err
	}
	write(struct {
		Record      string `json:"record"`
		Format      string `json:"format"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}{"dataset", dataset.Format, "ingest", "proposals read from documents by polgraph ingest, not reviewed"})

	sources := map[graph.SourceName]bool{}
	for _, r := range readings {
		d := r.Document
		if d.Hash == "" {
			d.Hash = HashText(d.Text)
		}
		if src := SourceOf(d); !sources[src.Name] {
			sources[src.Name] = true
			write(graph.SourceRecord(src))
		}
	}
	var order []graph.EntityName
	entities := map[graph.EntityName]*Entity{}
	for _, r := range readings {
		for _, e := range r.Entities {
			if have, ok := entities[e.Name]; ok {
				have.Aliases = cleanAliases(have.DisplayName, append(have.Aliases, append([]string{e.DisplayName}, e.Aliases...)...))
				continue
			}
			e.Aliases = cleanAliases(e.DisplayName, e.Aliases)
			entities[e.Name] = &e
			order = append(order, e.Name)
		}
	}
	for _, n := range order {
		e := entities[n]
		write(graph.EntityOut{Record: "entity", Name: string(e.Name), DisplayName: e.DisplayName, Aliases: aliasesOut(e.Aliases)})
	}
	written := map[graph.RelationName]bool{}
	for _, r := range readings {
		hash := r.Document.Hash
		if hash == "" {
			hash = HashText(r.Document.Text)
		}
		for _, p := range r.Proposals {
			from, to := p.From, p.To
			if p.Type.Symmetric() && from > to {
				from, to = to, from
			}
			key := ""
			if name := graph.RelationNameFor(from, p.Type, to, ""); written[name] {
				id := p.ID
				if id == "" {
					id = ProposalID(p.Signature())
				}
				key = strings.TrimPrefix(id, "proposals/")
			}
			written[graph.RelationNameFor(from, p.Type, to, key)] = true
			write(graph.RelationOut{Record: "relation", Type: string(p.Type), From: string(from), To: string(to), Key: key,
				Role: p.Role, ValidFrom: p.ValidFrom.String(), ValidTo: p.ValidTo.String(), Date: p.Date.String(),
				Claims: []graph.ClaimOut{{Source: string(SourceNameFor(hash)), Excerpt: p.Excerpt, Confidence: p.Confidence,
					Status: string(p.Status), SaidBy: string(p.SaidBy)}}})
		}
	}
	if failed != nil {
		return failed
	}
	return bw.Flush()
}
