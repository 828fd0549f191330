package eval

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ingest"
)

// Run reads every annotated document, its path resolved against root, with one Reader over known (so a
// name proposed in one document links in the next, as in one ingest run), and scores each document's
// proposals against its annotation; the report adds the documents' scores up.
func Run(anns []Annotation, root string, known []graph.Entity) (Report, error) {
	return RunAsOf(anns, root, known, nil, graph.Period{})
}

// RunAsOf is Run with what the graph knows of who held which post (ingest.Holdings), and the span the
// documents date from when they have no date of their own: descriptions ("the prime minister") then
// resolve through the graph, as `polgraph ingest` reads against a graph.
func RunAsOf(anns []Annotation, root string, known []graph.Entity, holdings []ingest.Holding, within graph.Period) (Report, error) {
	r := ingest.NewGraphReader(known, holdings)
	byName := map[graph.EntityName]graph.Entity{}
	for _, e := range known {
		byName[e.Name] = e
	}
	var rep Report
	for _, a := range anns {
		var pred Prediction
		path := filepath.Join(root, filepath.FromSlash(a.Document))
		b, err := os.ReadFile(path)
		if err != nil {
			return Report{}, fmt.Errorf("%s: document: %w", a.File, err)
		}
		rd, err := r.Read(ingest.Input{Path: path, Content: b, Within: within})
		if err != nil {
			return Report{}, fmt.Errorf("%s: %w", a.File, err)
		}
		pred.Add(rd, byName)
		rep.Add(Score([]Annotation{a}, pred))
	}
	return rep, nil
}

// FromDataset makes annotations of a dataset's relations as the given sources claim them, one per source
// (the document is the source's text file): what an analyst read out of each text. A relation whose
// claims from a source all deny it is annotated DENIED.
func FromDataset(ds *dataset.Dataset) []Annotation {
	ents := map[graph.EntityName]graph.Entity{}
	for _, e := range ds.Entities {
		ents[e.Name] = e
	}
	var out []Annotation
	for _, src := range ds.Sources {
		file := ds.TextFiles[src.Name]
		if file == "" {
			continue
		}
		a := Annotation{File: string(src.Name), Document: file}
		have := map[graph.EntityName]bool{}
		addEnt := func(n graph.EntityName) {
			if have[n] {
				return
			}
			have[n] = true
			e := ents[n]
			a.Entities = append(a.Entities, Entity{Name: string(n), Kind: e.Kind, Aliases: append([]string{e.DisplayName}, e.Aliases...)})
		}
		for _, rel := range ds.Relations {
			// One annotated relation per polarity the source gives it: support, denial or both.
			var support, deny graph.ClaimStatus
			for _, c := range rel.Claims {
				switch {
				case c.Source.Name != src.Name:
				case c.Status == graph.StatusDenied:
					deny = c.Status
				case support == "":
					support = c.Status
				}
			}
			for _, status := range []graph.ClaimStatus{support, deny} {
				if status == "" {
					continue
				}
				addEnt(rel.From)
				addEnt(rel.To)
				a.Relations = append(a.Relations, Relation{Type: rel.Type, From: string(rel.From), To: string(rel.To), Status: status})
			}
		}
		if len(a.Relations) > 0 {
			out = append(out, a)
		}
	}
	return out
}
