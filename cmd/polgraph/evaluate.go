package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/ingest/eval"
	"github.com/polgraph/polgraph/graph/review"
)

// evaluateCmd scores the ingest pipeline against hand annotations (or against a dataset's claims), or
// scores a proposals file that `polgraph ingest --dry-run --out` wrote.
func evaluateCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("polgraph evaluate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	annotations := fs.String("annotations", "", "a folder of hand annotations (*.json, see data/annotations/README.md)")
	against := fs.String("against", "", "a dataset file whose claims are the annotation: each source with a text_file is one document")
	texts := fs.String("texts", "", "the folder the annotated documents' paths (or the dataset's text files) are under (default: the annotations folder's sibling texts/, as in data/annotations)")
	known := fs.String("known", "", "a dataset file whose entities the reader links mentions to, and whose dated LEADS and HOLDS_OFFICE relations resolve descriptions such as \"the prime minister\" (default: none, only the gazetteer polgraph ships)")
	within := fs.String("within", "", "FROM/TO: the span undated documents date from (\"2004/2005\"); with --known, a description resolves to whoever held the post all through it")
	proposals := fs.String("proposals", "", "score this proposals file (written by `polgraph ingest --dry-run --out`) instead of reading the documents")
	verbose := fs.Bool("verbose", false, "list what was missed and what is not in the annotations")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polgraph evaluate (--annotations DIR | --against DATASET) [flags]\n\n"+
			"Reads the annotated documents as `polgraph ingest` does and scores the proposals: entity recall and\n"+
			"precision, relation recall and precision by type, denials kept as denials, and readings that must\n"+
			"not be proposed.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return errUsage
	}
	if (*annotations == "") == (*against == "") || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *texts == "" {
		if *against != "" && *proposals == "" {
			return errors.New("evaluate --against needs --texts: the folder the dataset's text files are in")
		}
		*texts = filepath.Join(filepath.Dir(filepath.Clean(*annotations)), "texts")
	}
	var anns []eval.Annotation
	var err error
	if *annotations != "" {
		anns, err = eval.ReadAnnotations(*annotations)
	} else {
		var ds *dataset.Dataset
		if ds, err = readDatasetFiles([]string{*against}); err == nil {
			anns = eval.FromDataset(ds)
		}
	}
	if err != nil {
		return err
	}
	var ents []graph.Entity
	var holdings []ingest.Holding
	if *known != "" {
		ds, err := readDatasetFiles([]string{*known})
		if err != nil {
			return err
		}
		ents, holdings = ds.Entities, ingest.HoldingsOf(ds.Relations)
	}
	var span graph.Period
	if *within != "" {
		from, to, ok := strings.Cut(*within, "/")
		a, errA := graph.ParseFuzzyDate(from)
		b, errB := graph.ParseFuzzyDate(to)
		if !ok || errA != nil || errB != nil || a.FirstDay() > b.LastDay() {
			return fmt.Errorf("--within %q: want FROM/TO, two dates YYYY, YYYY-MM or YYYY-MM-DD, the first not after the second", *within)
		}
		span = graph.Period{Start: a.FirstDay(), End: b.LastDay()}
	}
	var rep eval.Report
	if *proposals != "" {
		ds, err := readDatasetFiles([]string{*proposals})
		if err != nil {
			return err
		}
		rep = eval.Score(anns, predictionOf(ds, ents))
	} else if rep, err = eval.RunAsOf(anns, *texts, ents, holdings, span); err != nil {
		return err
	}
	return rep.Write(stdout, *verbose)
}

// predictionOf reads a proposals file back: its entities, and one proposal per claim of each relation.
func predictionOf(ds *dataset.Dataset, known []graph.Entity) eval.Prediction {
	var p eval.Prediction
	for _, e := range append(known, ds.Entities...) {
		p.Entities = append(p.Entities, eval.PredictedEntity{Name: e.Name, Kind: e.Kind, Names: append([]string{e.DisplayName}, e.Aliases...)})
	}
	for _, r := range ds.Relations {
		for _, c := range r.Claims {
			p.Relations = append(p.Relations, review.Proposal{Type: r.Type, From: r.From, To: r.To, Status: c.Status, Excerpt: c.Excerpt})
		}
	}
	return p
}
