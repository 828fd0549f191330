// Package dataset reads, checks and loads polgraph's dataset format (data/FORMAT.md): JSON Lines files of
// sources, entities and relations with their claims.
package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// Format is the version this package reads and writes.
const Format = "polgraph/v1"

// Dataset is the content of one or more dataset files, checked.
type Dataset struct {
	Sources   []graph.Source
	Entities  []graph.Entity
	Relations []graph.Relation
	// TextFiles maps a source to the file name of its text, when the dataset gives one.
	TextFiles map[graph.SourceName]string
}

type header struct {
	Record      string `json:"record"`
	Format      string `json:"format"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type sourceRecord struct {
	Record    string `json:"record"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	Outlet    string `json:"outlet"`
	Author    string `json:"author"`
	Published string `json:"published"`
	URL       string `json:"url"`
	TextFile  string `json:"text_file"`
}

type entityRecord struct {
	Record      string            `json:"record"`
	Name        string            `json:"name"`
	DisplayName string            `json:"display_name"`
	Aliases     []string          `json:"aliases"`
	Description string            `json:"description"`
	Identifiers map[string]string `json:"identifiers"`
	ValidFrom   string            `json:"valid_from"`
	ValidTo     string            `json:"valid_to"`
}

type claimRecord struct {
	Source     string   `json:"source"`
	Excerpt    string   `json:"excerpt"`
	Confidence *float64 `json:"confidence"`
	Status     string   `json:"status"`
	SaidBy     string   `json:"said_by"`
	Key        string   `json:"key"`
}

type relationRecord struct {
	Record    string        `json:"record"`
	Type      string        `json:"type"`
	From      string        `json:"from"`
	To        string        `json:"to"`
	Key       string        `json:"key"`
	Role      string        `json:"role"`
	Via       string        `json:"via"`
	ValidFrom string        `json:"valid_from"`
	ValidTo   string        `json:"valid_to"`
	Date      string        `json:"date"`
	Claims    []claimRecord `json:"claims"`
}

// File is one named input.
type File struct {
	Name string
	R    io.Reader
}

// where remembers the line a resource was defined on, for messages about references to it.
type where struct {
	file string
	line int
}

func (w where) String() string { return fmt.Sprintf("%s:%d", w.file, w.line) }

// reader accumulates the dataset and every problem found.
type reader struct {
	ds         Dataset
	problems   graph.Violations
	entityAt   map[graph.EntityName]where
	kinds      map[graph.EntityName]graph.Kind
	sourceAt   map[graph.SourceName]where
	relationAt map[graph.RelationName]where
	slugAt     map[string]where
	refs       []reference
}

type reference struct {
	at    where
	field string
	name  string
	isSrc bool
}

// Read parses and checks files. It reports every problem in every file, each as "FILE:LINE: FIELD:
// message", in one Invalid *graph.Error; the Dataset is returned only when there is none.
func Read(files []File) (*Dataset, error) {
	r := &reader{ds: Dataset{TextFiles: map[graph.SourceName]string{}},
		entityAt: map[graph.EntityName]where{}, kinds: map[graph.EntityName]graph.Kind{},
		sourceAt: map[graph.SourceName]where{}, relationAt: map[graph.RelationName]where{}, slugAt: map[string]where{}}
	for _, f := range files {
		r.readFile(f)
	}
	r.checkReferences()
	if err := r.problems.Err("dataset.Read", fmt.Sprintf("%d problem(s) in the input; nothing was written", len(r.problems))); err != nil {
		return nil, err
	}
	return &r.ds, nil
}

func (r *reader) add(at where, field, format string, args ...any) {
	f := at.String()
	if field != "" {
		f += ": " + field
	}
	r.problems.Add(f, format, args...)
}

func (r *reader) readFile(f File) {
	sc := bufio.NewScanner(f.R)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line, sawHeader := 0, false
	for sc.Scan() {
		line++
		at := where{f.Name, line}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if !utf8.Valid(text) {
			r.add(at, "", "not valid UTF-8")
			continue
		}
		var probe struct {
			Record string `json:"record"`
		}
		if err := json.Unmarshal(text, &probe); err != nil {
			r.add(at, "", "not a JSON object: %v", err)
			continue
		}
		if !sawHeader && probe.Record != "dataset" {
			r.add(at, "record", "the first record must be the dataset header {\"record\":\"dataset\",\"format\":%q,...}", Format)
			sawHeader = true // say it once
		}
		switch probe.Record {
		case "dataset":
			var h header
			if r.decode(at, text, &h) {
				if h.Format != Format {
					r.add(at, "format", "is %q; this version of polgraph reads %q", h.Format, Format)
				}
				if sawHeader {
					r.add(at, "record", "a second dataset header")
				}
			}
			sawHeader = true
		case "source":
			var s sourceRecord
			if r.decode(at, text, &s) {
				r.source(at, s)
			}
		case "entity":
			var e entityRecord
			if r.decode(at, text, &e) {
				r.entity(at, e)
			}
		case "relation":
			var rel relationRecord
			if r.decode(at, text, &rel) {
				r.relation(at, rel)
			}
		default:
			r.add(at, "record", "%q is not a record type (want dataset, source, entity or relation)", probe.Record)
		}
	}
	if err := sc.Err(); err != nil {
		r.add(where{f.Name, line + 1}, "", "cannot read: %v", err)
	}
	if line == 0 {
		r.add(where{f.Name, 1}, "", "the file is empty")
	}
}

// decode unmarshals one record, rejecting unknown fields so that a misspelt field is reported.
func (r *reader) decode(at where, text []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			r.add(at, strings.Trim(f, `"`), "unknown field")
			return false
		}
		r.add(at, "", "%s", msg)
		return false
	}
	return true
}

func (r *reader) date(at where, field, s string) graph.FuzzyDate {
	d, err := graph.ParseFuzzyDate(s)
	if err != nil {
		r.add(at, field, "%v", err)
	}
	return d
}

func (r *reader) slug(at where, name string) {
	slug := graph.Slug(name)
	if prev, ok := r.slugAt[slug]; ok {
		r.add(at, "name", "slug %q is already used at %s; slugs are unique across collections", slug, prev)
		return
	}
	r.slugAt[slug] = at
}

func (r *reader) source(at where, s sourceRecord) {
	name := graph.SourceName(s.Name)
	coll, slug, _ := strings.Cut(s.Name, "/")
	if coll != "sources" || !graph.ValidSlug(slug) {
		r.add(at, "name", "%q is not a source name: want sources/<slug>", s.Name)
	} else if prev, ok := r.sourceAt[name]; ok {
		r.add(at, "name", "%s is already defined at %s", s.Name, prev)
	} else {
		r.sourceAt[name] = at
	}
	if strings.TrimSpace(s.Title) == "" {
		r.add(at, "title", "required")
	}
	kind := graph.SourceKind(s.Kind)
	if !slices.Contains([]graph.SourceKind{graph.SourceArticle, graph.SourceSocialPost, graph.SourceDataset, graph.SourceOther}, kind) {
		r.add(at, "kind", "%q is not a source kind (want ARTICLE, SOCIAL_POST, DATASET or OTHER)", s.Kind)
	}
	src := graph.Source{Name: name, Title: s.Title, Kind: kind, Outlet: s.Outlet, Author: s.Author,
		Published: r.date(at, "published", s.Published), URL: s.URL}
	r.ds.Sources = append(r.ds.Sources, src)
	if s.TextFile != "" {
		r.ds.TextFiles[name] = s.TextFile
	}
}

func (r *reader) entity(at where, e entityRecord) {
	name := graph.EntityName(e.Name)
	kind, err := graph.ParseEntityName(e.Name)
	if err != nil {
		r.add(at, "name", "%v", err)
	} else if prev, ok := r.entityAt[name]; ok {
		r.add(at, "name", "%s is already defined at %s", e.Name, prev)
	} else {
		r.entityAt[name] = at
		r.kinds[name] = kind
		r.slug(at, e.Name)
	}
	if strings.TrimSpace(e.DisplayName) == "" {
		r.add(at, "display_name", "required")
	}
	for i, a := range e.Aliases {
		if strings.TrimSpace(a) == "" {
			r.add(at, fmt.Sprintf("aliases[%d]", i), "empty alias")
		}
	}
	for k, v := range e.Identifiers {
		if k == "ocd" && !strings.HasPrefix(v, "ocd-division/") {
			r.add(at, "identifiers.ocd", "%q is not an Open Civic Data division id (ocd-division/...)", v)
		}
	}
	r.ds.Entities = append(r.ds.Entities, graph.Entity{Name: name, Kind: kind, DisplayName: e.DisplayName,
		Aliases: e.Aliases, Description: e.Description, Identifiers: e.Identifiers,
		ValidFrom: r.date(at, "valid_from", e.ValidFrom), ValidTo: r.date(at, "valid_to", e.ValidTo)})
}

// MaxExcerpt bounds an excerpt's length; an excerpt is at most one sentence.
const MaxExcerpt = 600

func (r *reader) relation(at where, rec relationRecord) {
	t := graph.RelationType(rec.Type)
	if !t.Valid() {
		r.add(at, "type", "%q is not in the relation vocabulary (see data/FORMAT.md)", rec.Type)
	}
	for _, f := range []struct{ field, name string }{{"from", rec.From}, {"to", rec.To}, {"via", rec.Via}} {
		if f.name == "" && f.field != "via" {
			r.add(at, f.field, "required")
		} else if f.name != "" {
			r.refs = append(r.refs, reference{at: at, field: f.field, name: f.name})
		}
	}
	if rec.From != "" && rec.From == rec.To {
		r.add(at, "to", "a relation cannot join %s to itself", rec.From)
	}
	if t.Symmetric() && rec.From > rec.To {
		r.add(at, "from", "%s is symmetric: write it once with from < to (%s before %s)", t, rec.To, rec.From)
	}
	if rec.Key != "" && !graph.ValidSlug(rec.Key) {
		r.add(at, "key", "%q must be a slug (lower-case letters and digits joined by hyphens)", rec.Key)
	}
	rel := graph.Relation{Type: t, From: graph.EntityName(rec.From), To: graph.EntityName(rec.To), Role: rec.Role,
		Via: graph.EntityName(rec.Via), ValidFrom: r.date(at, "valid_from", rec.ValidFrom),
		ValidTo: r.date(at, "valid_to", rec.ValidTo), Date: r.date(at, "date", rec.Date)}
	if !rel.ValidFrom.IsZero() && !rel.ValidTo.IsZero() && rel.ValidFrom.FirstDay() > rel.ValidTo.LastDay() {
		r.add(at, "valid_to", "%s is before valid_from %s", rel.ValidTo, rel.ValidFrom)
	}
	rel.Name = graph.RelationNameFor(rel.From, t, rel.To, rec.Key)
	if prev, ok := r.relationAt[rel.Name]; ok {
		r.add(at, "key", "%s is already defined at %s; give one of them a key", rel.Name, prev)
	} else {
		r.relationAt[rel.Name] = at
	}
	if len(rec.Claims) == 0 {
		r.add(at, "claims", "a relation needs at least one claim")
	}
	claimNames := map[string]bool{}
	for i, c := range rec.Claims {
		field := func(f string) string { return fmt.Sprintf("claims[%d].%s", i, f) }
		if c.Source == "" {
			r.add(at, field("source"), "required")
		} else {
			r.refs = append(r.refs, reference{at: at, field: field("source"), name: c.Source, isSrc: true})
		}
		if c.SaidBy != "" {
			r.refs = append(r.refs, reference{at: at, field: field("said_by"), name: c.SaidBy})
		}
		switch n := utf8.RuneCountInString(c.Excerpt); {
		case strings.TrimSpace(c.Excerpt) == "":
			r.add(at, field("excerpt"), "required")
		case n > MaxExcerpt:
			r.add(at, field("excerpt"), "%d characters; an excerpt is at most one sentence (%d characters)", n, MaxExcerpt)
		}
		if c.Confidence == nil {
			r.add(at, field("confidence"), "required")
		} else if *c.Confidence < 0 || *c.Confidence > 1 {
			r.add(at, field("confidence"), "must be between 0 and 1, got %g", *c.Confidence)
		}
		status := graph.ClaimStatus(c.Status)
		if status.Index() < 0 {
			r.add(at, field("status"), "%q is not a claim status (want ALLEGED, REPORTED, CONFIRMED or DENIED)", c.Status)
		}
		if c.Key != "" && !graph.ValidSlug(c.Key) {
			r.add(at, field("key"), "%q must be a slug", c.Key)
		}
		name := graph.ClaimNameFor(rel.Name, graph.SourceName(c.Source), c.Key)
		if claimNames[name] {
			r.add(at, field("key"), "a second claim from %s; give it a key", c.Source)
		}
		claimNames[name] = true
		conf := 0.0
		if c.Confidence != nil {
			conf = *c.Confidence
		}
		rel.Claims = append(rel.Claims, graph.Claim{Name: name, Source: graph.Source{Name: graph.SourceName(c.Source)},
			Excerpt: c.Excerpt, Confidence: conf, Status: status, SaidBy: graph.EntityName(c.SaidBy)})
	}
	r.ds.Relations = append(r.ds.Relations, rel)
}

// checkReferences runs once every file is read, so that records may refer forwards and across files.
func (r *reader) checkReferences() {
	for _, ref := range r.refs {
		if ref.isSrc {
			if _, ok := r.sourceAt[graph.SourceName(ref.name)]; !ok {
				r.add(ref.at, ref.field, "%s is not defined in the input", ref.name)
			}
			continue
		}
		if _, ok := r.entityAt[graph.EntityName(ref.name)]; !ok {
			r.add(ref.at, ref.field, "%s is not defined in the input", ref.name)
		}
	}
	for _, rel := range r.ds.Relations {
		fk, ok1 := r.kinds[rel.From]
		tk, ok2 := r.kinds[rel.To]
		if ok1 && ok2 && rel.Type.Valid() && !rel.Type.Joins(fk, tk) {
			r.add(r.relationAt[rel.Name], "type", "%s cannot join a %s (%s) to a %s (%s)", rel.Type, strings.ToLower(string(fk)), rel.From, strings.ToLower(string(tk)), rel.To)
		}
	}
}

// Progress is told how many records of each stage have been written.
type Progress func(stage string, done, total int)

// Load writes a checked dataset: sources, then entities, then relations with their claims, in batches.
// Every write is an upsert by name, so loading the same dataset twice changes nothing. Batches of sources
// and of entities go several at a time (they are independent); batches of relations one after another,
// since each raises the graph's version.
func Load(ctx context.Context, w graph.Writer, ds *Dataset, batch int, progress Progress) error {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if err := inBatches(ctx, "sources", ds.Sources, batch, parallelWriters, w.UpsertSources, progress); err != nil {
		return err
	}
	if err := inBatches(ctx, "entities", ds.Entities, batch, parallelWriters, w.UpsertEntities, progress); err != nil {
		return err
	}
	bw, ok := w.(graph.BulkWriter)
	if !ok {
		return inBatches(ctx, "relations", ds.Relations, max(batch/4, 1), 1, w.UpsertRelations, progress)
	}
	// Batches of relations in parallel, all under one version that readers see once the load ends.
	b, err := bw.BeginBulk(ctx)
	if err != nil {
		return fmt.Errorf("load relations: %w", err)
	}
	err = inBatches(ctx, "relations", ds.Relations, max(batch/4, 1), parallelWriters, b.UpsertRelations, progress)
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if endErr := b.End(endCtx); endErr != nil && err == nil {
		err = fmt.Errorf("load relations: %w", endErr)
	}
	return err
}

// parallelWriters is how many batches of independent records are written at once.
const parallelWriters = 4

// inBatches writes xs in batches of n, with up to workers batches in flight, and stops at the first error.
// progress is told how many records are written, in order, from one goroutine at a time.
func inBatches[T any](ctx context.Context, stage string, xs []T, n, workers int, write func(context.Context, []T) error, progress Progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type span struct{ start, end int }
	spans := make(chan span)
	errs := make(chan error, workers)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sp := range spans {
				if ctx.Err() != nil {
					continue // another batch failed: drain without writing
				}
				if err := write(ctx, xs[sp.start:sp.end]); err != nil {
					errs <- fmt.Errorf("load %s %d-%d: %w", stage, sp.start+1, sp.end, err)
					cancel()
					return
				}
				mu.Lock()
				done += sp.end - sp.start
				progress(stage, done, len(xs))
				mu.Unlock()
			}
		}()
	}
feed:
	for i := 0; i < len(xs); i += n {
		select {
		case spans <- span{i, min(i+n, len(xs))}:
		case <-ctx.Done():
			break feed
		}
	}
	close(spans)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return ctx.Err()
	}
}
