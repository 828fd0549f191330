package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/review"
	"github.com/polgraph/polgraph/graph/rpc"
)

const ingestUsage = `usage: polgraph ingest [flags] PATH...

Reads articles and social posts (plain text, HTML, or streams of posts; each PATH a file, or a folder read
recursively) against the graph's entities, and queues what it reads for review: each document once (by the
hash of its cleaned text), the entities the graph lacks, and candidate relations, each with the sentence
that says it, a confidence and a claim status. Nothing goes into the graph until a reviewer approves it
(polgraph review). Writes to Dgraph (--dgraph), or through a running polgraph (--server, with an
editor's --api-key).

With --dry-run it queues nothing: it prints what it read, or with --out FILE writes it in the dataset
format (data/FORMAT.md: the documents' sources, the proposed entities, one relation per proposal), which
reads back together with a file that defines the graph's entities it names.`

// ingestCmd is `polgraph ingest PATH...`.
func ingestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := defaultConfig()
	fs := cfg.flags("ingest", stderr, "dgraph", "data-dir", "log")
	remote := &clientFlags{}
	remote.registerCall(fs)
	fs.Lookup("timeout").DefValue, remote.timeout = "10m0s", 10*time.Minute
	dryRun := fs.Bool("dry-run", false, "read, and queue nothing: print what was read, or write it to --out")
	out := fs.String("out", "", "with --dry-run: write the proposals to this file in the dataset format")
	var in ingest.Input
	var published string
	fs.StringVar(&in.Format, "format", "", "what every input is: text, html or posts (default: detected for each)")
	fs.StringVar(&in.Outlet, "outlet", "", "the publisher of every input, where the text does not say")
	fs.StringVar(&published, "published", "", "when every input was published (YYYY, YYYY-MM or YYYY-MM-DD), where the text does not say")
	var knownFiles []string
	fs.Func("known", "with --dry-run: take the graph's entities from this dataset file instead of the graph (repeatable)", func(v string) error {
		knownFiles = append(knownFiles, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprint(stderr, ingestUsage+"\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	viaServer := false
	fs.Visit(func(f *flag.Flag) { viaServer = viaServer || f.Name == "server" })
	switch {
	case *out != "" && !*dryRun:
		return errors.New("--out goes with --dry-run: approved proposals reach the graph through polgraph review")
	case len(knownFiles) > 0 && (!*dryRun || viaServer):
		return errors.New("--known goes with --dry-run, without --server: a queue links to the graph's own entities")
	case remote.json && !viaServer:
		return errors.New("--json needs --server")
	}
	switch in.Format {
	case "", "text", "html", "posts":
	default:
		return fmt.Errorf("--format %q: want text, html or posts", in.Format)
	}
	if published != "" {
		d, err := graph.ParseFuzzyDate(published)
		if err != nil {
			return fmt.Errorf("--published: %w", err)
		}
		in.Published = d
	}
	paths, err := inputFiles(fs.Args())
	if err != nil {
		return err
	}
	if len(knownFiles) == 0 { // with --known, a dry run reads no graph
		target, err := writeTargetOf(fs, remote.server, cfg.Dgraph)
		if err != nil {
			return err
		}
		if !*dryRun {
			target.say(stderr)
		}
	}
	if viaServer {
		return ingestThrough(ctx, remote, in, paths, *dryRun, *out, stdout, stderr)
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}

	// The reader links mentions to the graph's entities, or to those of --known files, and resolves
	// descriptions ("the Tory leader") through who held the posts.
	var known []graph.Entity
	var holdings []ingest.Holding
	var queue *review.Service
	if len(knownFiles) > 0 {
		ds, err := readDatasetFiles(knownFiles)
		if err != nil {
			return err
		}
		known = ds.Entities
		mem := memstore.New()
		if err := dataset.Load(ctx, mem, ds, 1000, nil); err != nil {
			return err
		}
		if holdings, err = ingest.Holdings(ctx, mem, known); err != nil {
			return err
		}
	} else {
		store, err := cfg.openDgraph(ctx, log)
		if err != nil {
			return err
		}
		defer store.Close()
		if known, err = store.Queue().LiveEntities(ctx); err != nil {
			return err
		}
		if holdings, err = ingest.Holdings(ctx, store, known); err != nil {
			return err
		}
		queue = &review.Service{Queue: store.Queue(), Intake: &intake.Service{Store: store}}
	}
	reader := ingest.NewGraphReader(known, holdings)
	var sum ingestSummary
	var readings []review.Reading
	for _, path := range paths {
		input, err := readInput(path, in)
		if err == nil {
			var r review.Reading
			if r, err = reader.Read(input); err == nil {
				if *dryRun {
					readings = append(readings, r)
					sum.read(stdout, path, r, *out == "")
					continue
				}
				var res review.SubmitResult
				if res, err = queue.Submit(ctx, localWriter("ingest"), r); err == nil {
					sum.queued(stdout, path, r, res)
					continue
				}
			}
		}
		sum.failed++
		fmt.Fprintf(stderr, "%s: %v\n", path, err)
	}
	if *dryRun && *out != "" {
		if err := writeProposalsFile(*out, readings); err != nil {
			return err
		}
	}
	return sum.end(stdout, *dryRun, *out)
}

// inputFiles lists the files of the paths: files as given, folders' documents (recursively, leaving out
// hidden files and what readableInFolder refuses) in name order.
func inputFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != a && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && readableInFolder(d.Name()) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	if len(out) == 0 {
		return nil, errors.New("no files to read in " + strings.Join(args, ", "))
	}
	return out, nil
}

// readableInFolder says whether a file met in a folder is a document to read: text, HTML or posts by its
// extension, and not the folder's own README, LICENCE or notes. A file named on the command line is read
// whatever its name.
func readableInFolder(name string) bool {
	lower := strings.ToLower(name)
	for _, p := range []string{"readme", "license", "licence", "copying", "notice", "changelog", "authors"} {
		if strings.HasPrefix(lower, p) {
			return false
		}
	}
	switch filepath.Ext(lower) {
	case ".txt", ".text", ".html", ".htm", ".xhtml", ".posts", "":
		return true
	}
	return false
}

// readInput reads a file as an input, with what the flags say of every input.
func readInput(path string, defaults ingest.Input) (ingest.Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return ingest.Input{}, err
	}
	if st.Size() > ingest.MaxInputBytes {
		return ingest.Input{}, fmt.Errorf("%d bytes, more than the %d a document may have", st.Size(), ingest.MaxInputBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ingest.Input{}, err
	}
	in := defaults
	in.Path, in.Content = path, b
	return in, nil
}

// writeProposalsFile writes readings in the dataset format.
func writeProposalsFile(path string, readings []review.Reading) error {
	var buf bytes.Buffer
	if err := review.WriteDataset(&buf, readings); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ingestSummary counts what an ingest read and queued, and prints a line per document.
type ingestSummary struct {
	documents, before, failed       int
	proposals, entities             int
	queuedProposals, queuedEntities int
	repeated                        int
}

// read prints what was read of a document (a dry run), with every proposal when all is set.
func (s *ingestSummary) read(w io.Writer, path string, r review.Reading, all bool) {
	s.documents++
	s.proposals += len(r.Proposals)
	s.entities += len(r.Entities)
	fmt.Fprintf(w, "%s: %d %s, %d proposed %s (documents/%s…)\n", path, len(r.Proposals), plural(len(r.Proposals), "proposal", "proposals"),
		len(r.Entities), plural(len(r.Entities), "entity", "entities"), r.Document.Hash[:12])
	if !all {
		return
	}
	for _, e := range r.Entities {
		fmt.Fprintf(w, "  new %s %q\n", e.Name, e.DisplayName)
	}
	for _, p := range r.Proposals {
		fmt.Fprintf(w, "  %s %s %s%s: %s %.2f %q\n", p.From, p.Type, p.To, whenOf(p.Date.String(), p.ValidFrom.String(), p.ValidTo.String()),
			p.Status, p.Confidence, shorten(p.Excerpt, 100))
	}
}

// queued prints what a submission queued of a document.
func (s *ingestSummary) queued(w io.Writer, path string, r review.Reading, res review.SubmitResult) {
	s.documents++
	s.proposals += len(r.Proposals)
	s.entities += len(r.Entities)
	if res.AlreadyRead {
		s.before++
		fmt.Fprintf(w, "%s: read before (documents/%s…); nothing queued\n", path, r.Document.Hash[:12])
		return
	}
	s.queuedProposals += res.Proposals
	s.queuedEntities += res.Entities
	s.repeated += res.Repeated
	repeated := ""
	if res.Repeated > 0 {
		repeated = fmt.Sprintf(" (%d proposed before)", res.Repeated)
	}
	fmt.Fprintf(w, "%s: queued %d %s%s and %d proposed %s (documents/%s…)\n", path, res.Proposals, plural(res.Proposals, "proposal", "proposals"),
		repeated, res.Entities, plural(res.Entities, "entity", "entities"), r.Document.Hash[:12])
}

// end prints the totals, and fails when a document could not be read.
func (s *ingestSummary) end(w io.Writer, dryRun bool, out string) error {
	docs := fmt.Sprintf("%d %s", s.documents, plural(s.documents, "document", "documents"))
	switch {
	case dryRun:
		fmt.Fprintf(w, "read %s: %d %s, %d proposed %s; nothing queued (dry run)\n", docs, s.proposals, plural(s.proposals, "proposal", "proposals"),
			s.entities, plural(s.entities, "entity", "entities"))
		if out != "" {
			fmt.Fprintf(w, "wrote them to %s\n", out)
		}
	default:
		fmt.Fprintf(w, "read %s (%d read before): queued %d %s and %d proposed %s", docs, s.before,
			s.queuedProposals, plural(s.queuedProposals, "proposal", "proposals"), s.queuedEntities, plural(s.queuedEntities, "entity", "entities"))
		if s.repeated > 0 {
			fmt.Fprintf(w, " (%d proposed before were left as they were)", s.repeated)
		}
		fmt.Fprintln(w, "; review them with `polgraph review list`")
	}
	if s.failed > 0 {
		return fmt.Errorf("%d of %d %s could not be read (see above)", s.failed, s.failed+s.documents, plural(s.failed+s.documents, "file", "files"))
	}
	return nil
}

// ingestThrough sends the files to a running polgraph's IngestDocuments, as many to a request as its
// limits allow.
func ingestThrough(ctx context.Context, c *clientFlags, defaults ingest.Input, paths []string, dryRun bool, out string, stdout, stderr io.Writer) error {
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := pb.NewReviewServiceClient(conn)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var sum ingestSummary
	var readings []review.Reading
	var batch []*pb.DocumentInput
	size := 0
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		resp, err := client.IngestDocuments(ctx, &pb.IngestDocumentsRequest{Documents: batch, DryRun: dryRun})
		if err != nil {
			return c.callError(err)
		}
		if c.json {
			if err := printJSON(stdout, resp); err != nil {
				return err
			}
		}
		for i, d := range resp.GetDocuments() {
			r := readingOf(d)
			switch {
			case c.json:
				sum.documents++
			case dryRun:
				readings = append(readings, r)
				sum.read(stdout, batch[i].GetPath(), r, out == "")
			default:
				sum.queued(stdout, batch[i].GetPath(), r, review.SubmitResult{AlreadyRead: d.GetAlreadyRead(),
					Proposals: int(d.GetQueuedProposals()), Entities: int(d.GetQueuedEntities()), Repeated: int(d.GetRepeatedProposals())})
			}
		}
		batch, size = nil, 0
		return nil
	}
	for _, path := range paths {
		in, err := readInput(path, defaults)
		if err == nil && len(in.Content) > rpc.MaxIngestBytes {
			err = fmt.Errorf("%d bytes, more than a request to polgraph may hold (%d); read it without --server", len(in.Content), rpc.MaxIngestBytes)
		}
		if err != nil {
			sum.failed++
			fmt.Fprintf(stderr, "%s: %v\n", path, err)
			continue
		}
		if len(batch) == rpc.MaxIngestDocuments || size+len(in.Content) > rpc.MaxIngestBytes {
			if err := send(); err != nil {
				return err
			}
		}
		batch = append(batch, &pb.DocumentInput{Content: strings.ToValidUTF8(string(in.Content), "\ufffd"), Format: in.Format, Path: path,
			Outlet: in.Outlet, Published: in.Published.String()})
		size += len(in.Content)
	}
	if err := send(); err != nil {
		return err
	}
	if c.json {
		return nil
	}
	if dryRun && out != "" {
		if err := writeProposalsFile(out, readings); err != nil {
			return err
		}
	}
	return sum.end(stdout, dryRun, out)
}

// readingOf is what the service read of a document, back in the domain's terms.
func readingOf(d *pb.IngestedDocument) review.Reading {
	doc := d.GetDocument()
	src := doc.GetSource()
	r := review.Reading{Document: review.Document{Hash: doc.GetHash(), Format: doc.GetFormat(), Path: doc.GetPath(),
		Source: graph.Source{Name: graph.SourceName(src.GetName()), Title: src.GetTitle(),
			Kind: graph.SourceKind(strings.TrimPrefix(src.GetKind().String(), "SOURCE_KIND_")), Outlet: src.GetOutlet(),
			Author: src.GetAuthor(), Published: fuzzy(src.GetPublished()), URL: src.GetUrl()}}}
	if r.Document.Source.Kind == "UNSPECIFIED" {
		r.Document.Source.Kind = ""
	}
	for _, e := range d.GetEntities() {
		r.Entities = append(r.Entities, review.Entity{Name: graph.EntityName(e.GetName()),
			Kind: graph.Kind(strings.TrimPrefix(e.GetKind().String(), "ENTITY_KIND_")), DisplayName: e.GetDisplayName(), Aliases: e.GetAliases()})
	}
	for _, p := range d.GetProposals() {
		r.Proposals = append(r.Proposals, review.Proposal{ID: p.GetName(), Document: p.GetDocument(),
			Type: graph.RelationType(strings.TrimPrefix(p.GetType().String(), "RELATION_TYPE_")), From: graph.EntityName(p.GetFrom()),
			To: graph.EntityName(p.GetTo()), Role: p.GetRole(), Date: fuzzy(p.GetDate()), ValidFrom: fuzzy(p.GetValidFrom()),
			ValidTo: fuzzy(p.GetValidTo()), Status: graph.ClaimStatus(strings.TrimPrefix(p.GetStatus().String(), "CLAIM_STATUS_")),
			Confidence: p.GetConfidence(), Excerpt: p.GetExcerpt(), Span: review.Span{Start: int(p.GetSpanStart()), End: int(p.GetSpanEnd())},
			SaidBy: graph.EntityName(p.GetSaidBy()), Rule: p.GetRule()})
	}
	return r
}

func fuzzy(s string) graph.FuzzyDate {
	d, _ := graph.ParseFuzzyDate(s)
	return d
}

// whenOf says when a relation holds, as " (2024)", " (2010–2015)", or "" when undated.
func whenOf(date, from, to string) string {
	switch {
	case date != "":
		return " (" + date + ")"
	case from != "" || to != "":
		return " (" + from + "–" + to + ")"
	}
	return ""
}

// shorten cuts text to at most n characters, with "…" when it is cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
