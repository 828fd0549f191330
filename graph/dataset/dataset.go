// Package dataset reads, checks and loads polgraph's dataset format (data/FORMAT.md): JSON Lines files of
// sources, entities and relations with their claims.
package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// Format is the version this package writes. It reads it and FormatV1, the first version, whose files
// hold none of the fields version 2 added (entity attributes, aliases with a language, several values of
// one identifier scheme, a relation's term, claims from records, a source's retrieval date and licence).
const Format = "polgraph/v2"

// FormatV1 is the first version of the format, still read.
const FormatV1 = "polgraph/v1"

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
	Filter      string `json:"filter,omitempty"`
	// Exported marks a file polgraph wrote from a graph: it holds what the graph held, and loads back as
	// it is, without the check of relations against lifetimes (the graph's writes were checked).
	Exported bool `json:"exported,omitempty"`
}

type sourceRecord struct {
	Retrieved string `json:"retrieved"`
	Licence   string `json:"licence"`
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
	Record      string                     `json:"record"`
	Name        string                     `json:"name"`
	DisplayName string                     `json:"display_name"`
	Aliases     []aliasValue               `json:"aliases"`
	Description string                     `json:"description"`
	Identifiers map[string]identifierValue `json:"identifiers"`
	ValidFrom   string                     `json:"valid_from"`
	ValidTo     string                     `json:"valid_to"`
	DatesFrom   string                     `json:"dates_from"`
	BirthDate   string                     `json:"birth_date"`
	DeathDate   string                     `json:"death_date"`
	Gender      string                     `json:"gender"`
	Links       []linkObject               `json:"links"`
	Images      []linkObject               `json:"images"`
	Contacts    []contactObject            `json:"contact_details"`
}

// aliasValue is an alias as written: a string, or an object with its language and a note.
type aliasValue struct{ graph.Alias }

// aliasObject is the object form of an alias.
type aliasObject struct {
	Name string `json:"name"`
	Lang string `json:"lang"`
	Note string `json:"note"`
}

func (a *aliasValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &a.Name)
	}
	var o aliasObject
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	a.Alias = graph.Alias(o)
	return nil
}

// identifierValue is an identifier scheme's value as written: a string, or a list of strings.
type identifierValue []string

func (v *identifierValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*v = identifierValue{s}
		return err
	}
	return json.Unmarshal(b, (*[]string)(v))
}

type linkObject struct {
	URL  string `json:"url"`
	Note string `json:"note"`
}

type contactObject struct {
	Type  string `json:"type"`
	Value string `json:"value"`
	Note  string `json:"note"`
}

type claimRecord struct {
	Source     string   `json:"source"`
	Excerpt    string   `json:"excerpt"`
	RecordID   string   `json:"record_id"`
	Confidence *float64 `json:"confidence"`
	Status     string   `json:"status"`
	SaidBy     string   `json:"said_by"`
	Key        string   `json:"key"`
	// Retracted marks a retracted claim, as an export of the graph writes it.
	Retracted *retractedRecord `json:"retracted"`
}

// retractedRecord is a claim's retraction: when, by whom and why.
type retractedRecord struct {
	Time   string `json:"time"`
	By     string `json:"by"`
	Reason string `json:"reason"`
}

type relationRecord struct {
	Record    string        `json:"record"`
	Type      string        `json:"type"`
	From      string        `json:"from"`
	To        string        `json:"to"`
	Key       string        `json:"key"`
	Role      string        `json:"role"`
	Via       string        `json:"via"`
	Term      string        `json:"term"`
	ValidFrom string        `json:"valid_from"`
	ValidTo   string        `json:"valid_to"`
	Date      string        `json:"date"`
	DatesFrom string        `json:"dates_from"`
	Claims    []claimRecord `json:"claims"`
}

// File is one named input.
type File struct {
	Name string
	R    io.Reader
}

// Limits of the file format beyond those of the records (graph/limits.go); data/FORMAT.md lists them all.
const (
	// MaxExcerpt is graph.MaxExcerpt, kept here for the readers of other formats that make excerpts.
	MaxExcerpt = graph.MaxExcerpt
	// MaxDatasetName bounds the header's name.
	MaxDatasetName = 200
	// MaxTextFile bounds a source's text_file, a file name.
	MaxTextFile = 255
	// MaxProblems is how many problems Read lists; it counts the rest and says how many there were.
	MaxProblems = 1_000
)

// where remembers the line a resource was defined on, for messages about references to it.
type where struct {
	file string
	line int
}

func (w where) String() string { return fmt.Sprintf("%s:%d", w.file, w.line) }

// reader accumulates the dataset and every problem found.
type reader struct {
	ds            Dataset
	problems      graph.Violations
	found         int   // problems found, listed or not
	firstUnlisted where // where the first problem past MaxProblems was found
	entityAt      map[graph.EntityName]where
	kinds         map[graph.EntityName]graph.Kind
	sourceAt      map[graph.SourceName]where
	relationAt    map[graph.RelationName]where
	slugAt        map[string]where
	refs          []reference
	orGraph       string // " nor in the graph" when the graph was asked about missing references
	v1            bool   // the file being read is of the first version of the format
	// stream, when set, makes the reader hold no records: Check keeps only what the checks need (briefs,
	// termDates), and Each hands each record to sink as it is read.
	stream    bool
	briefs    []relationBrief
	claims    int                                     // of the relations read, when stream
	lastKind  int                                     // the stage of the last record read (stageSources, stageEntities, stageRelations)
	unordered bool                                    // a record came after one of a later stage
	termDates map[graph.EntityName][2]graph.FuzzyDate // the dates of the organisations, which a term is
	// lives, ownStart and ownEnd hold, while checking, each entity's lifetime and whether it gives its own
	// start and end (checkLifetimes).
	lives            map[graph.EntityName]graph.Period
	ownStart, ownEnd map[graph.EntityName]bool
	// founded is, for each party or organisation without dates of its own, the dates its relations give
	// it: it exists from its earliest dated FOUNDED relation and until its latest dated DISSOLVED one
	// (checkLifetimes finds them; Each applies them).
	founded  map[graph.EntityName]lifeDates
	exported bool // some file is an export of a graph: checkLifetimes refuses nothing
	sink     Sink
	sinkErr  error
}

// relationBrief is what checkReferences needs of a relation.
type relationBrief struct {
	name           graph.RelationName
	typ            graph.RelationType
	from, to, term graph.EntityName
	period         graph.Period    // Relation.Period
	since          graph.FuzzyDate // its date, or its valid_from
	dated, event   bool
}

// briefOf is what the checks after reading need of a relation.
func briefOf(rel *graph.Relation) relationBrief {
	since := rel.Date
	if since.IsZero() {
		since = rel.ValidFrom
	}
	return relationBrief{name: rel.Name, typ: rel.Type, from: rel.From, to: rel.To, term: rel.Term, period: rel.Period(),
		since: since, dated: rel.Dated(), event: graph.IsEvent(*rel)}
}

type reference struct {
	at    where
	field string
	name  string
	isSrc bool
}

// Read parses and checks files. It reports every problem in every file, each as "FILE:LINE: FIELD:
// message", in one Invalid *graph.Error; the Dataset is returned only when there is none. It lists the
// first MaxProblems problems and then one saying how many more there were.
func Read(files []File) (*Dataset, error) {
	return ReadWith(files, nil)
}

// Known tells, of the entities and sources an input refers to without defining them, which the graph
// already holds: each entity's kind, and the sources.
type Known func(entities []graph.EntityName, sources []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error)

// ReadWith is Read for an input that may refer to entities and sources the graph already holds (a write
// through the API): known says which. With known nil, every reference must be defined in the input.
func ReadWith(files []File, known Known) (*Dataset, error) {
	r := newReader()
	if err := r.check(files, known); err != nil {
		return nil, err
	}
	for k := range r.ds.Entities {
		r.lifeFrom(&r.ds.Entities[k])
	}
	return &r.ds, nil
}

func newReader() *reader {
	return &reader{ds: Dataset{TextFiles: map[graph.SourceName]string{}},
		entityAt: map[graph.EntityName]where{}, kinds: map[graph.EntityName]graph.Kind{},
		sourceAt: map[graph.SourceName]where{}, relationAt: map[graph.RelationName]where{}, slugAt: map[string]where{},
		termDates: map[graph.EntityName][2]graph.FuzzyDate{}, lives: map[graph.EntityName]graph.Period{},
		ownStart: map[graph.EntityName]bool{}, ownEnd: map[graph.EntityName]bool{}, founded: map[graph.EntityName]lifeDates{}}
}

// Sink takes the records of a dataset one at a time (graph/dgraph.NQuadWriter is one).
type Sink interface {
	WriteSource(graph.Source) error
	WriteEntity(graph.Entity) error
	WriteRelation(graph.Relation) error
}

// Checked is what CheckFiles learnt of valid files: enough to hand their records to a Sink in a second pass,
// as Read would have returned them.
type Checked struct {
	Sources, Entities, Relations, Claims int
	// InStageOrder reports whether the files give every source before any entity, and every entity
	// before any relation (as polgraph writes them): Load then reads them once, not once per stage.
	InStageOrder bool
	termDates    map[graph.EntityName][2]graph.FuzzyDate
	founded      map[graph.EntityName]lifeDates
}

// CheckFiles checks files exactly as Read does (the same problems, in the same error) but holds none of their
// records, only what the checks need: every name, and each relation's ends, type and term. Files too big
// to read whole are checked this way, then read again by Each.
func CheckFiles(files []File) (*Checked, error) {
	r := newReader()
	r.stream = true
	if err := r.check(files, nil); err != nil {
		return nil, err
	}
	return &Checked{Sources: len(r.sourceAt), Entities: len(r.entityAt), Relations: len(r.relationAt), Claims: r.claims,
		InStageOrder: !r.unordered, termDates: r.termDates, founded: r.founded}, nil
}

// Each reads the files CheckFiles found valid again and gives each record to sink, in file order, as Read
// would have returned it (an undated relation holds during its term). It stops at the first error of
// sink; it returns Read's error should the files have changed since and no longer be valid.
func (c *Checked) Each(files []File, sink Sink) error {
	r := newReader()
	r.stream, r.sink, r.termDates, r.founded = true, sink, c.termDates, c.founded
	for _, f := range files {
		r.readFile(f)
		if r.sinkErr != nil {
			return r.sinkErr
		}
	}
	return r.problems.Err("dataset.Each", fmt.Sprintf("%d problem(s) in the input, which changed since it was checked", r.found))
}

// Stream checks the files open gives, as CheckFiles does, then opens them again and hands each record to
// sink (Checked.Each): a dataset of any size reaches sink in the memory its names take. Nothing reaches
// sink unless every file is valid.
func Stream(open func() (files []File, closeFiles func(), err error), sink Sink) (*Checked, error) {
	checked, err := CheckOpened(open)
	if err != nil {
		return nil, err
	}
	return checked, checked.eachOpened(open, sink)
}

// EachStaged is Each over the files open gives, in stage order whatever the files' order: every source,
// then every entity, then every relation. Files in stage order are read once, others once per stage.
func (c *Checked) EachStaged(open func() ([]File, func(), error), sink Sink) error {
	if c.InStageOrder {
		return c.eachOpened(open, sink)
	}
	for _, stage := range []stageSink{{source: sink.WriteSource}, {entity: sink.WriteEntity}, {relation: sink.WriteRelation}} {
		if err := c.eachOpened(open, stage); err != nil {
			return err
		}
	}
	return nil
}

// CheckOpened is CheckFiles over the files open gives, closed after: open gives them again to Load or
// Each.
func CheckOpened(open func() (files []File, closeFiles func(), err error)) (*Checked, error) {
	files, closeFiles, err := open()
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	return CheckFiles(files)
}

// eachOpened is Each over the files open gives, closed after.
func (c *Checked) eachOpened(open func() ([]File, func(), error), sink Sink) error {
	files, closeFiles, err := open()
	if err != nil {
		return err
	}
	defer closeFiles()
	return c.Each(files, sink)
}

// check reads every file and checks the whole, reporting every problem in one error.
func (r *reader) check(files []File, known Known) error {
	for _, f := range files {
		r.readFile(f)
	}
	if known != nil {
		if err := r.lookUp(known); err != nil {
			return err
		}
		r.orGraph = " nor in the graph"
	}
	r.checkReferences()
	if unlisted := r.found - len(r.problems); unlisted > 0 {
		r.problems = append(r.problems, graph.FieldViolation{Field: r.firstUnlisted.String(),
			Description: fmt.Sprintf("... and %d more problems from here on (only the first %d are listed)", unlisted, MaxProblems)})
	}
	return r.problems.Err("dataset.Read", fmt.Sprintf("%d problem(s) in the input; nothing was written", r.found))
}

func (r *reader) add(at where, field, format string, args ...any) {
	r.found++
	if len(r.problems) >= MaxProblems {
		if r.found == MaxProblems+1 {
			r.firstUnlisted = at
		}
		return
	}
	f := at.String()
	if field != "" {
		f += ": " + field
	}
	r.problems.Add(f, format, args...)
}

// headerExample is how a file must start.
var headerExample = fmt.Sprintf(`{"record":"dataset","format":%q,"name":...}`, Format)

// fileState is what reading a file has seen so far.
type fileState struct {
	records int  // lines that are not blank
	headers int  // dataset headers
	warned  bool // the first record was not the header, and that was said
}

func (r *reader) readFile(f File) {
	lines := newLineReader(f.R, graph.MaxRecordBytes)
	var st fileState
	r.v1 = false
	line := 0
	for {
		text, n, err := lines.next()
		if err == io.EOF {
			break
		}
		line++
		at := where{f.Name, line}
		if err != nil {
			r.add(at, "", "cannot read: %v", err)
			break
		}
		if n > graph.MaxRecordBytes {
			st.records++
			r.add(at, "", "the line is %d bytes, longer than %d MiB (the longest record polgraph reads); it was skipped", n, graph.MaxRecordBytes>>20)
			continue
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		st.records++
		r.record(at, text, &st)
		if r.sinkErr != nil {
			return
		}
	}
	if st.records == 0 {
		r.add(where{f.Name, 1}, "", "the file holds no records; the first must be the dataset header %s", headerExample)
	}
}

// record reads one line that is not blank.
func (r *reader) record(at where, text []byte, st *fileState) {
	if !utf8.Valid(text) {
		i := 0
		for i < len(text) {
			c, n := utf8.DecodeRune(text[i:])
			if c == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		r.add(at, "", "not valid UTF-8 (at byte %d)", i+1)
		return
	}
	if !json.Valid(text) {
		var v struct{}
		_, msg := decodeProblem(json.Unmarshal(text, &v))
		r.add(at, "", "%s", msg)
		return
	}
	if text[0] != '{' {
		r.add(at, "", "not a JSON object: the line holds %s", kindAt(text[0]).article())
		return
	}
	kind, got, found := recordType(text)
	switch {
	case !found:
		r.add(at, "record", "required: say what the line is (dataset, source, entity or relation)")
		return
	case got != jsonString:
		r.add(at, "record", "want a string, got %s", got.article())
		return
	}
	switch {
	case kind == "dataset":
		if st.headers++; st.headers > 1 {
			r.add(at, "record", "a second dataset header")
		}
	case st.headers == 0 && !st.warned:
		r.add(at, "record", "the first record must be the dataset header %s", headerExample)
		st.warned = true // say it once
	}
	sh, ok := recordShapes[kind]
	if !ok {
		r.add(at, "record", "%s is not a record type (want dataset, source, entity or relation)", quote(kind))
		return
	}
	bad := r.found
	w := &walker{text: text, problem: func(field, format string, args ...any) { r.add(at, field, format, args...) }}
	w.value(sh)
	if r.found > bad {
		return // the record cannot be read as it stands
	}
	switch kind {
	case "dataset":
		var h header
		if r.decode(at, text, &h) {
			r.header(at, h)
		}
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
	}
}

// decode unmarshals one record, rejecting unknown fields so that a misspelt field is reported.
func (r *reader) decode(at where, text []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		field, msg := decodeProblem(err)
		r.add(at, field, "%s", msg)
		return false
	}
	return true
}

// lineReader reads lines of at most max bytes, holding no more than that: a longer line is read through
// and its length returned, so that the next line can be read.
type lineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte
	done bool
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line break and its length; the line is nil when the length is
// over max. It returns io.EOF after the last line. The line is valid until the next call.
func (l *lineReader) next() ([]byte, int, error) {
	if l.done {
		return nil, 0, io.EOF
	}
	l.buf = l.buf[:0]
	n := 0
	for {
		chunk, err := l.br.ReadSlice('\n')
		n += len(chunk)
		if err == nil {
			n-- // the line break
			chunk = chunk[:len(chunk)-1]
		}
		switch {
		case n > l.max:
			l.buf = l.buf[:0]
		case err == nil && len(l.buf) == 0:
			return chunk, n, nil // the whole line was in the buffer
		default:
			l.buf = append(l.buf, chunk...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
		case io.EOF:
			l.done = true
			if n == 0 {
				return nil, 0, io.EOF
			}
		default:
			l.done = true
			return nil, n, err
		}
		if n > l.max {
			return nil, n, nil
		}
		return l.buf, n, nil
	}
}

// text checks a value the format leaves free: its length in bytes and its characters. Free text (a
// title, a description) may hold tabs; see graph.ControlAt.
func (r *reader) text(at where, field, s string, most int, freeText bool) {
	if len(s) > most {
		r.add(at, field, "%d bytes; at most %d", len(s), most)
	}
	r.control(at, field, s, freeText)
}

// nameText checks a display name or an alias: its length, and the characters a name may not hold
// (graph.NameProblem).
func (r *reader) nameText(at where, field, s string, most int) {
	if len(s) > most {
		r.add(at, field, "%d bytes; at most %d", len(s), most)
	}
	if p := graph.NameProblem(s); p != "" {
		r.add(at, field, "%s", p)
	}
}

func (r *reader) control(at where, field, s string, freeText bool) {
	if i, c := graph.ControlAt(s, freeText); i >= 0 {
		r.add(at, field, "contains the control character %s at byte %d", graph.RuneName(c), i+1)
	}
}

// name checks that a resource name, or a reference to one, is short enough to be worth reading; an
// over-long one is reported and not read further.
func (r *reader) name(at where, field, s string) bool {
	if len(s) > graph.MaxName {
		r.add(at, field, "%d bytes; a name is at most %d", len(s), graph.MaxName)
		return false
	}
	return true
}

// show shows a name from the input in a message: as it stands when it looks like one, else quoted.
func show(name string) string {
	if len(name) <= graph.MaxName && graph.LooksLikeResourceName(name) {
		return name
	}
	return quote(name)
}

func (r *reader) header(at where, h header) {
	switch h.Format {
	case Format:
	case FormatV1:
		r.v1 = true
	default:
		r.add(at, "format", "is %s; this version of polgraph reads %q and %q", quote(h.Format), Format, FormatV1)
	}
	if strings.TrimSpace(h.Name) == "" {
		r.add(at, "name", "required")
	}
	r.text(at, "name", h.Name, MaxDatasetName, false)
	r.text(at, "description", h.Description, graph.MaxDescription, true)
	r.needsV2(at, "filter", h.Filter != "")
	r.needsV2(at, "exported", h.Exported)
	if h.Exported {
		r.exported = true
	}
	r.text(at, "filter", h.Filter, graph.MaxDescription, false)
}

// longestDate is the length of the longest date, YYYY-MM-DD.
const longestDate = len("2006-01-02")

func (r *reader) date(at where, field, s string) graph.FuzzyDate {
	if len(s) > longestDate {
		r.add(at, field, "%s is not a date: want YYYY, YYYY-MM or YYYY-MM-DD", quote(s))
		return graph.FuzzyDate{}
	}
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
	if r.name(at, "name", s.Name) {
		coll, slug, _ := strings.Cut(s.Name, "/")
		if coll != "sources" || !graph.ValidSlug(slug) {
			r.add(at, "name", "%s is not a source name: want sources/<slug>", quote(s.Name))
		} else if prev, ok := r.sourceAt[name]; ok {
			r.add(at, "name", "%s is already defined at %s", s.Name, prev)
		} else {
			r.sourceAt[name] = at
		}
	}
	if strings.TrimSpace(s.Title) == "" {
		r.add(at, "title", "required")
	}
	r.text(at, "title", s.Title, graph.MaxTitle, true)
	kind := graph.SourceKind(s.Kind)
	if !slices.Contains([]graph.SourceKind{graph.SourceArticle, graph.SourceSocialPost, graph.SourceDataset, graph.SourceOther}, kind) {
		r.add(at, "kind", "%s is not a source kind (want ARTICLE, SOCIAL_POST, DATASET or OTHER)", quote(s.Kind))
	}
	r.text(at, "outlet", s.Outlet, graph.MaxOutlet, false)
	r.text(at, "author", s.Author, graph.MaxAuthor, false)
	r.text(at, "url", s.URL, graph.MaxURL, false)
	r.text(at, "text_file", s.TextFile, MaxTextFile, false)
	r.needsV2(at, "retrieved", s.Retrieved != "")
	r.needsV2(at, "licence", s.Licence != "")
	r.text(at, "licence", s.Licence, graph.MaxLicence, false)
	src := graph.Source{Name: name, Title: s.Title, Kind: kind, Outlet: s.Outlet, Author: s.Author,
		Published: r.date(at, "published", s.Published), URL: s.URL,
		Retrieved: r.date(at, "retrieved", s.Retrieved), Licence: s.Licence}
	r.stage(stageSources)
	switch {
	case r.sink != nil:
		r.emit(func() error { return r.sink.WriteSource(src) })
	case !r.stream:
		r.ds.Sources = append(r.ds.Sources, src)
		if s.TextFile != "" {
			r.ds.TextFiles[name] = s.TextFile
		}
	}
}

// The stages of a load, in its order.
const (
	stageSources = iota
	stageEntities
	stageRelations
)

// stage notes a record of stage k, read after the records before it.
func (r *reader) stage(k int) {
	if k < r.lastKind {
		r.unordered = true
	}
	r.lastKind = max(r.lastKind, k)
}

// emit hands a record to the sink, unless a problem was found already or the sink failed.
func (r *reader) emit(write func() error) {
	if r.found == 0 && r.sinkErr == nil {
		r.sinkErr = write()
	}
}

func (r *reader) entity(at where, e entityRecord) {
	name := graph.EntityName(e.Name)
	var kind graph.Kind
	if r.name(at, "name", e.Name) {
		var err error
		if kind, err = graph.ParseEntityName(e.Name); err != nil {
			r.add(at, "name", "%v", err)
		} else if prev, ok := r.entityAt[name]; ok {
			r.add(at, "name", "%s is already defined at %s", e.Name, prev)
		} else {
			r.entityAt[name] = at
			r.kinds[name] = kind
			r.slug(at, e.Name)
		}
	}
	if strings.TrimSpace(e.DisplayName) == "" {
		r.add(at, "display_name", "required")
	}
	r.nameText(at, "display_name", e.DisplayName, graph.MaxDisplayName)
	if len(e.Aliases) > graph.MaxAliases {
		r.add(at, "aliases", "%d aliases; at most %d", len(e.Aliases), graph.MaxAliases)
	}
	var aliases []string
	var attrs graph.Attributes
	for i, a := range e.Aliases {
		field := fmt.Sprintf("aliases[%d]", i)
		if strings.TrimSpace(a.Name) == "" {
			r.add(at, field, "empty alias")
		}
		r.nameText(at, field, a.Name, graph.MaxAlias)
		aliases = append(aliases, a.Name)
		if a.Lang != "" || a.Note != "" {
			r.needsV2(at, field, true)
			r.lang(at, field+".lang", a.Lang)
			r.text(at, field+".note", a.Note, graph.MaxNote, false)
			attrs.OtherNames = append(attrs.OtherNames, a.Alias)
		}
	}
	r.text(at, "description", e.Description, graph.MaxDescription, true)
	ids := graph.Identifiers{}
	for k, vs := range e.Identifiers {
		ids[k] = vs
	}
	if n := ids.Count(); n > graph.MaxIdentifiers {
		r.add(at, "identifiers", "%d ids; at most %d", n, graph.MaxIdentifiers)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Identifiers)) { // sorted: the same input, the same report
		vs := e.Identifiers[k]
		field := keyPath("identifiers", k)
		if len(vs) != 1 {
			r.needsV2(at, field, true)
		}
		if len(vs) == 0 {
			r.add(at, field, "an empty list of ids")
		}
		for i, v := range vs {
			if slices.Index(vs, v) < i {
				r.add(at, field, "%s is given twice", quote(v))
			}
			r.identifier(at, field, k, v)
		}
	}
	r.text(at, "gender", e.Gender, graph.MaxGender, false)
	attrs.Gender = e.Gender
	attrs.BirthDate, attrs.DeathDate = r.date(at, "birth_date", e.BirthDate), r.date(at, "death_date", e.DeathDate)
	if (e.BirthDate != "" || e.DeathDate != "") && kind != "" && kind != graph.KindActor {
		r.add(at, "birth_date", "only people are born and die; when a party, seat or organisation began and ended is valid_from and valid_to")
	}
	if !attrs.BirthDate.IsZero() && !attrs.DeathDate.IsZero() && attrs.BirthDate.FirstDay() > attrs.DeathDate.LastDay() {
		r.add(at, "death_date", "%s is before birth_date %s", attrs.DeathDate, attrs.BirthDate)
	}
	attrs.Links = r.links(at, "links", e.Links)
	attrs.Images = r.links(at, "images", e.Images)
	if len(e.Contacts) > graph.MaxLinks {
		r.add(at, "contact_details", "%d contact details; at most %d", len(e.Contacts), graph.MaxLinks)
	}
	for i, c := range e.Contacts {
		field := fmt.Sprintf("contact_details[%d]", i)
		if strings.TrimSpace(c.Type) == "" {
			r.add(at, field+".type", "required (email, phone, twitter...)")
		}
		if strings.TrimSpace(c.Value) == "" {
			r.add(at, field+".value", "required")
		}
		r.text(at, field+".type", c.Type, graph.MaxContactType, false)
		r.text(at, field+".value", c.Value, graph.MaxContactValue, false)
		r.text(at, field+".note", c.Note, graph.MaxNote, false)
		attrs.ContactDetails = append(attrs.ContactDetails, graph.ContactDetail(c))
	}
	for _, f := range []struct {
		field string
		set   bool
	}{{"birth_date", e.BirthDate != ""}, {"death_date", e.DeathDate != ""}, {"gender", e.Gender != ""},
		{"links", len(e.Links) > 0}, {"images", len(e.Images) > 0}, {"contact_details", len(e.Contacts) > 0}} {
		r.needsV2(at, f.field, f.set)
	}
	if len(ids) == 0 {
		ids = nil
	}
	ent := graph.Entity{Name: name, Kind: kind, DisplayName: e.DisplayName,
		Aliases: aliases, Description: e.Description, Identifiers: ids, Attributes: attrs,
		ValidFrom: r.date(at, "valid_from", e.ValidFrom), ValidTo: r.date(at, "valid_to", e.ValidTo)}
	if !ent.ValidFrom.IsZero() && !ent.ValidTo.IsZero() && ent.ValidFrom.FirstDay() > ent.ValidTo.LastDay() {
		r.add(at, "valid_to", "%s is before valid_from %s", ent.ValidTo, ent.ValidFrom)
	}
	r.needsV2(at, "dates_from", e.DatesFrom != "")
	r.text(at, "dates_from", e.DatesFrom, graph.MaxDatesFrom, true)
	if e.DatesFrom != "" && ent.ValidFrom.IsZero() && ent.ValidTo.IsZero() && attrs.BirthDate.IsZero() && attrs.DeathDate.IsZero() {
		r.add(at, "dates_from", "says where the entity's dates come from, and it has none")
	}
	ent.Attributes.DatesFrom = e.DatesFrom
	if kind == graph.KindOrganisation && (!ent.ValidFrom.IsZero() || !ent.ValidTo.IsZero()) && r.sink == nil {
		r.termDates[name] = [2]graph.FuzzyDate{ent.ValidFrom, ent.ValidTo}
	}
	if r.sink == nil {
		r.lives[name] = ent.Lifetime()
		if !ent.ValidFrom.IsZero() || kind == graph.KindActor && !ent.Attributes.BirthDate.IsZero() || kind == graph.KindSeat {
			r.ownStart[name] = true // a seat is not founded
		}
		if !ent.ValidTo.IsZero() || kind == graph.KindActor && !ent.Attributes.DeathDate.IsZero() || kind == graph.KindSeat {
			r.ownEnd[name] = true
		}
	}
	r.stage(stageEntities)
	switch {
	case r.sink != nil:
		r.lifeFrom(&ent)
		r.emit(func() error { return r.sink.WriteEntity(ent) })
	case !r.stream:
		r.ds.Entities = append(r.ds.Entities, ent)
	}
}

// identifier checks one value of an external id.
func (r *reader) identifier(at where, field, k, v string) {
	switch {
	case k == "":
		r.add(at, field, "an id needs a name (ocd, wikidata)")
	case len(k) > graph.MaxIdentifierKey:
		r.add(at, field, "the id's name is %d bytes; at most %d", len(k), graph.MaxIdentifierKey)
	}
	if i, c := graph.ControlAt(k, false); i >= 0 {
		r.add(at, field, "the id's name contains the control character %s at byte %d", graph.RuneName(c), i+1)
	}
	if strings.TrimSpace(v) == "" {
		r.add(at, field, "empty id")
	}
	r.text(at, field, v, graph.MaxIdentifierValue, false)
	if k == "ocd" && v != "" && !strings.HasPrefix(v, "ocd-division/") {
		r.add(at, field, "%s is not an Open Civic Data division id (ocd-division/...)", quote(v))
	}
}

// needsV2 reports a field that only the second version of the format holds, in a file of the first.
func (r *reader) needsV2(at where, field string, set bool) {
	if set && r.v1 {
		r.add(at, field, "needs format %q (the file's header says %q)", Format, FormatV1)
	}
}

// lang checks a language tag: BCP 47's letters, digits and hyphens (en, cy, gd, bn-Latn).
func (r *reader) lang(at where, field, s string) {
	if s != "" && !graph.ValidLang(s) {
		r.add(at, field, "%s is not a language tag (en, cy, gd, bn-Latn)", quote(s))
	}
}

// links checks an entity's links or images.
func (r *reader) links(at where, field string, ls []linkObject) []graph.WebLink {
	if len(ls) > graph.MaxLinks {
		r.add(at, field, "%d entries; at most %d", len(ls), graph.MaxLinks)
	}
	var out []graph.WebLink
	for i, l := range ls {
		f := fmt.Sprintf("%s[%d]", field, i)
		if strings.TrimSpace(l.URL) == "" {
			r.add(at, f+".url", "required")
		}
		r.text(at, f+".url", l.URL, graph.MaxURL, false)
		r.text(at, f+".note", l.Note, graph.MaxNote, false)
		out = append(out, graph.WebLink(l))
	}
	return out
}

// ref checks a reference to a resource and remembers it, to look it up once every file is read.
func (r *reader) ref(at where, field, name string, isSrc bool) {
	if !r.name(at, field, name) || r.sink != nil { // a second pass (Each) has checked them already
		return
	}
	// A reference to what the input has defined already holds: only those to names not defined yet wait
	// for the end (most inputs define sources and entities before the relations that name them).
	if isSrc {
		if _, ok := r.sourceAt[graph.SourceName(name)]; ok {
			return
		}
	} else if _, ok := r.entityAt[graph.EntityName(name)]; ok {
		return
	}
	r.refs = append(r.refs, reference{at: at, field: field, name: name, isSrc: isSrc})
}

func (r *reader) relation(at where, rec relationRecord) {
	t := graph.RelationType(rec.Type)
	if !t.Valid() {
		r.add(at, "type", "%s is not in the relation vocabulary (see data/FORMAT.md)", quote(rec.Type))
	}
	r.needsV2(at, "term", rec.Term != "")
	for _, f := range []struct{ field, name string }{{"from", rec.From}, {"to", rec.To}, {"via", rec.Via}, {"term", rec.Term}} {
		if f.name == "" && f.field != "via" && f.field != "term" {
			r.add(at, f.field, "required")
		} else if f.name != "" {
			r.ref(at, f.field, f.name, false)
		}
	}
	if rec.From != "" && rec.From == rec.To {
		r.add(at, "to", "a relation cannot join %s to itself", show(rec.From))
	}
	if t.Symmetric() && rec.From > rec.To {
		r.add(at, "from", "%s is symmetric: write it once with from < to (%s before %s)", t, show(rec.To), show(rec.From))
	}
	if rec.Key != "" && !graph.ValidSlug(rec.Key) {
		r.add(at, "key", "%s must be a slug (lower-case letters and digits joined by hyphens)", quote(rec.Key))
	}
	r.text(at, "role", rec.Role, graph.MaxRole, false)
	rel := graph.Relation{Type: t, From: graph.EntityName(rec.From), To: graph.EntityName(rec.To), Role: rec.Role,
		Via: graph.EntityName(rec.Via), Term: graph.EntityName(rec.Term), ValidFrom: r.date(at, "valid_from", rec.ValidFrom),
		ValidTo: r.date(at, "valid_to", rec.ValidTo), Date: r.date(at, "date", rec.Date)}
	if !rel.ValidFrom.IsZero() && !rel.ValidTo.IsZero() && rel.ValidFrom.FirstDay() > rel.ValidTo.LastDay() {
		r.add(at, "valid_to", "%s is before valid_from %s", rel.ValidTo, rel.ValidFrom)
	}
	if !rel.Date.IsZero() && (!rel.ValidFrom.IsZero() || !rel.ValidTo.IsZero()) {
		r.add(at, "date", "a relation is an event (date) or a state (valid_from, valid_to), not both")
	}
	r.needsV2(at, "dates_from", rec.DatesFrom != "")
	r.text(at, "dates_from", rec.DatesFrom, graph.MaxDatesFrom, true)
	if rec.DatesFrom != "" && !rel.Dated() {
		r.add(at, "dates_from", "says where the relation's dates come from, and it has none")
	}
	rel.DatesFrom = rec.DatesFrom
	key := rec.Key
	if key == "" && rec.Term != "" && graph.ValidSlug(graph.Slug(rec.Term)) {
		key = graph.Slug(rec.Term) // parallel memberships of one pair are told apart by their terms
	}
	rel.Name = graph.RelationNameFor(rel.From, t, rel.To, key)
	if prev, ok := r.relationAt[rel.Name]; ok {
		r.add(at, "key", "%s is already defined at %s; give one of them a key", show(string(rel.Name)), prev)
	} else {
		r.relationAt[rel.Name] = at
	}
	switch {
	case len(rec.Claims) == 0:
		r.add(at, "claims", "a relation needs at least one claim")
	case len(rec.Claims) > graph.MaxClaims:
		r.add(at, "claims", "%d claims; at most %d", len(rec.Claims), graph.MaxClaims)
	}
	claimNames := map[string]bool{}
	for i, c := range rec.Claims {
		field := func(f string) string { return fmt.Sprintf("claims[%d].%s", i, f) }
		if c.Source == "" {
			r.add(at, field("source"), "required")
		} else {
			r.ref(at, field("source"), c.Source, true)
		}
		if c.SaidBy != "" {
			r.ref(at, field("said_by"), c.SaidBy, false)
		}
		r.needsV2(at, field("record_id"), c.RecordID != "")
		r.text(at, field("record_id"), c.RecordID, graph.MaxRecordID, false)
		switch n := utf8.RuneCountInString(c.Excerpt); {
		case strings.TrimSpace(c.Excerpt) == "" && c.RecordID != "" && c.Excerpt == "":
			// a claim from a structured record: the record is the evidence
		case strings.TrimSpace(c.Excerpt) == "":
			r.add(at, field("excerpt"), "required (or, for a claim from structured data, record_id)")
		case n > MaxExcerpt:
			r.add(at, field("excerpt"), "%d characters; an excerpt is at most one sentence (%d characters)", n, MaxExcerpt)
		}
		r.control(at, field("excerpt"), c.Excerpt, true)
		if c.Confidence == nil {
			r.add(at, field("confidence"), "required")
		} else if *c.Confidence < 0 || *c.Confidence > 1 {
			r.add(at, field("confidence"), "must be between 0 and 1, got %g", *c.Confidence)
		}
		status := graph.ClaimStatus(c.Status)
		if status.Index() < 0 {
			r.add(at, field("status"), "%s is not a claim status (want ALLEGED, REPORTED, CONFIRMED or DENIED)", quote(c.Status))
		}
		if c.Key != "" && !graph.ValidSlug(c.Key) {
			r.add(at, field("key"), "%s must be a slug", quote(c.Key))
		}
		name := graph.ClaimNameFor(rel.Name, graph.SourceName(c.Source), c.Key)
		if claimNames[name] {
			r.add(at, field("key"), "a second claim from %s; give it a key", show(c.Source))
		}
		claimNames[name] = true
		conf := 0.0
		if c.Confidence != nil {
			conf = *c.Confidence
		}
		rel.Claims = append(rel.Claims, graph.Claim{Name: name, Source: graph.Source{Name: graph.SourceName(c.Source)},
			Excerpt: c.Excerpt, Record: c.RecordID, Confidence: conf, Status: status, SaidBy: graph.EntityName(c.SaidBy),
			Retracted: r.retraction(at, field("retracted"), c.Retracted)})
	}
	r.stage(stageRelations)
	switch {
	case r.sink != nil:
		r.fillFromTerm(&rel)
		r.emit(func() error { return r.sink.WriteRelation(rel) })
	case r.stream:
		r.claims += len(rel.Claims)
		r.briefs = append(r.briefs, briefOf(&rel))
	default:
		r.ds.Relations = append(r.ds.Relations, rel)
	}
}

// retraction checks a claim's retraction and returns it (none for nil).
func (r *reader) retraction(at where, field string, t *retractedRecord) graph.Tombstone {
	if t == nil {
		return graph.Tombstone{}
	}
	r.needsV2(at, field, true)
	when, err := time.Parse(time.RFC3339, t.Time)
	if err != nil || t.Time != when.UTC().Format("2006-01-02T15:04:05Z") {
		r.add(at, field+".time", "%s is not a time in UTC to the second (2024-05-01T09:30:00Z)", quote(t.Time))
	}
	if strings.TrimSpace(t.By) == "" {
		r.add(at, field+".by", "required: who retracted it")
	}
	r.text(at, field+".by", t.By, graph.MaxDisplayName, false)
	r.text(at, field+".reason", t.Reason, graph.MaxReason, true)
	return graph.Tombstone{Time: when.UTC(), By: t.By, Reason: t.Reason}
}

// fillFromTerm dates an undated relation with a term by its term: it holds during the term.
func (r *reader) fillFromTerm(rel *graph.Relation) {
	if rel.Term == "" || rel.Dated() {
		return
	}
	if d, ok := r.termDates[rel.Term]; ok {
		rel.ValidFrom, rel.ValidTo = d[0], d[1]
	}
}

// checkReferences runs once every file is read, so that records may refer forwards and across files.
// lookUp asks known about the references the input does not define, and takes those the graph holds as
// defined (at no line).
func (r *reader) lookUp(known Known) error {
	var ents []graph.EntityName
	var srcs []graph.SourceName
	for _, ref := range r.refs {
		if ref.isSrc {
			if _, ok := r.sourceAt[graph.SourceName(ref.name)]; !ok {
				srcs = append(srcs, graph.SourceName(ref.name))
			}
		} else if _, ok := r.entityAt[graph.EntityName(ref.name)]; !ok {
			ents = append(ents, graph.EntityName(ref.name))
		}
	}
	if len(ents) == 0 && len(srcs) == 0 {
		return nil
	}
	kinds, sources, err := known(ents, srcs)
	if err != nil {
		return err
	}
	for n, k := range kinds {
		r.entityAt[n], r.kinds[n] = where{file: "the graph"}, k
	}
	for n := range sources {
		r.sourceAt[n] = where{file: "the graph"}
	}
	return nil
}

func (r *reader) checkReferences() {
	for _, ref := range r.refs {
		if ref.isSrc {
			if _, ok := r.sourceAt[graph.SourceName(ref.name)]; !ok {
				r.add(ref.at, ref.field, "%s is not defined in the input%s", show(ref.name), r.orGraph)
			}
			continue
		}
		if _, ok := r.entityAt[graph.EntityName(ref.name)]; !ok {
			r.add(ref.at, ref.field, "%s is not defined in the input%s", show(ref.name), r.orGraph)
		}
	}
	briefs := r.briefs
	if !r.stream {
		briefs = make([]relationBrief, len(r.ds.Relations))
		for i := range r.ds.Relations {
			rel := &r.ds.Relations[i]
			briefs[i] = briefOf(rel)
			r.fillFromTerm(rel)
		}
	}
	for _, rel := range briefs {
		if rel.term == "" {
			continue
		}
		if k, ok := r.kinds[rel.term]; ok && k != graph.KindOrganisation {
			r.add(r.relationAt[rel.name], "term", "%s is not an organisation; a term is one (organisations/<legislature>-<term>)", rel.term)
		}
	}
	for _, rel := range briefs {
		fk, ok1 := r.kinds[rel.from]
		tk, ok2 := r.kinds[rel.to]
		if ok1 && ok2 && rel.typ.Valid() && !rel.typ.Joins(fk, tk) {
			r.add(r.relationAt[rel.name], "type", "%s cannot join a %s (%s) to a %s (%s)", rel.typ, strings.ToLower(string(fk)), rel.from, strings.ToLower(string(tk)), rel.to)
		}
	}
	r.checkLifetimes(briefs)
}

// lifeDates are the dates a party or organisation takes from its FOUNDED and DISSOLVED relations, and
// those relations' names.
type lifeDates struct {
	from, to       graph.FuzzyDate
	fromRel, toRel graph.RelationName
}

// checkLifetimes refuses a dated relation that cannot have held: one outside the lifetime of an end the
// input defines (graph.LifeOf: a candidacy may come before its seat). A party or organisation with no
// valid_from of its own exists from the earliest FOUNDED relation the input dates, and one with no
// valid_to until the latest DISSOLVED one, as the graph reads them.
func (r *reader) checkLifetimes(briefs []relationBrief) {
	if r.exported {
		return
	}
	lives := maps.Clone(r.lives)
	for _, typ := range []graph.RelationType{graph.Founded, graph.Dissolved} { // foundings first
		for _, rel := range briefs {
			life, ok := lives[rel.to]
			if rel.typ != typ || !rel.dated || !ok {
				continue
			}
			d := r.founded[rel.to]
			switch {
			case typ == graph.Founded && !r.ownStart[rel.to] && (d.fromRel == "" || rel.period.Start < life.Start):
				life.Start, d.from, d.fromRel = rel.period.Start, rel.since, rel.name
			case typ == graph.Dissolved && !r.ownEnd[rel.to] && (d.toRel == "" || rel.period.End > life.End) && rel.period.End >= life.Start:
				// (a dissolution before the founding ends nothing: the check below refuses it)
				life.End, d.to, d.toRel = rel.period.End, rel.since, rel.name
			default:
				continue
			}
			lives[rel.to] = life
			r.founded[rel.to] = d
		}
	}
	for _, rel := range briefs {
		fromLife, ok1 := lives[rel.from]
		toLife, ok2 := lives[rel.to]
		if !rel.dated || !ok1 || !ok2 || rel.period.Overlaps(graph.LifeOf(rel.typ, fromLife, toLife)) {
			continue
		}
		end, life := rel.to, graph.LifeOf(rel.typ, graph.OpenPeriod, toLife)
		if !rel.period.Overlaps(fromLife) {
			end, life = rel.from, fromLife
		}
		field := "valid_from"
		if rel.event {
			field = "date"
		}
		r.add(r.relationAt[rel.name], field, "%s holds %s, outside the lifetime of %s (%s)", show(string(rel.name)), periodWords(rel.period),
			show(string(end)), periodWords(life))
	}
}

// lifeFrom gives a party or organisation without dates of its own those of its founding and dissolution,
// when the input dates them (FOUNDED and DISSOLVED relations), and says which relations they come from.
func (r *reader) lifeFrom(e *graph.Entity) {
	d, ok := r.founded[e.Name]
	if !ok {
		return
	}
	var from []string
	if d.fromRel != "" && e.ValidFrom.IsZero() {
		e.ValidFrom = d.from
		from = append(from, "valid_from from "+string(d.fromRel))
	}
	if d.toRel != "" && e.ValidTo.IsZero() {
		e.ValidTo = d.to
		from = append(from, "valid_to from "+string(d.toRel))
	}
	if len(from) > 0 && e.Attributes.DatesFrom == "" {
		e.Attributes.DatesFrom = strings.Join(from, "; ")
	}
}

// periodWords is a period in words: "2010-01-01 to 2015-12-31", "from 2018-01-01", "until 1999-12-31".
func periodWords(p graph.Period) string {
	switch {
	case p.Start == graph.OpenPeriod.Start && p.End == graph.OpenPeriod.End:
		return "at all times"
	case p.Start == graph.OpenPeriod.Start:
		return "until " + graph.DayString(p.End)
	case p.End == graph.OpenPeriod.End:
		return "from " + graph.DayString(p.Start)
	}
	return graph.DayString(p.Start) + " to " + graph.DayString(p.End)
}

// Redirect returns relations as a merge of entities left them, for relations that name an entity merged
// into another (into maps each such name to where it now resolves): that entity at their ends, as their
// via and as who said a claim, and each named anew (a symmetric relation ordered anew). Two relations
// that become one keep each claim once (the first's); one that would join an entity to itself is left
// out, as the merge deleted it. Relations that name no merged entity are returned as they are.
func Redirect(relations []graph.Relation, into map[graph.EntityName]graph.EntityName) []graph.Relation {
	if len(into) == 0 {
		return relations
	}
	to := func(n graph.EntityName) graph.EntityName {
		if m, ok := into[n]; ok {
			return m
		}
		return n
	}
	out := make([]graph.Relation, 0, len(relations))
	at := map[graph.RelationName]int{}
	for _, r := range relations {
		nr := r
		nr.From, nr.To, nr.Via, nr.Term = to(r.From), to(r.To), to(r.Via), to(r.Term)
		saidBy := false
		for _, c := range r.Claims {
			saidBy = saidBy || to(c.SaidBy) != c.SaidBy
		}
		if nr.From != r.From || nr.To != r.To || nr.Via != r.Via || nr.Term != r.Term || saidBy {
			if nr.From == nr.To {
				continue
			}
			key, err := graph.RelationKey(r)
			if err != nil {
				key = ""
			}
			if nr.Type.Symmetric() && nr.From > nr.To {
				nr.From, nr.To = nr.To, nr.From
			}
			nr.Name = graph.RelationNameFor(nr.From, nr.Type, nr.To, key)
			nr.Claims = make([]graph.Claim, len(r.Claims))
			for i, c := range r.Claims {
				_, suffix, _ := strings.Cut(c.Name, "/claims/")
				c.Name, c.SaidBy = string(nr.Name)+"/claims/"+suffix, to(c.SaidBy)
				nr.Claims[i] = c
			}
		}
		i, ok := at[nr.Name]
		if !ok {
			at[nr.Name] = len(out)
			out = append(out, nr)
			continue
		}
		held := out[i]
		held.Claims = slices.Clone(held.Claims)
		for _, c := range nr.Claims {
			if !slices.ContainsFunc(held.Claims, func(h graph.Claim) bool { return h.Name == c.Name }) {
				held.Claims = append(held.Claims, c)
			}
		}
		out[i] = held
	}
	return out
}

// Redirector tells where merged entities now resolve (graph.Merger's MergedInto); a Writer that is one
// gets relations as Redirect rewrites them.
type Redirector interface {
	MergedInto(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.EntityName, error)
}

// Redirected is Redirect with what w says of the entities relations name (when w is a Redirector).
func Redirected(ctx context.Context, w any, relations []graph.Relation) ([]graph.Relation, error) {
	rd, ok := w.(Redirector)
	if !ok || len(relations) == 0 {
		return relations, nil
	}
	seen := map[graph.EntityName]bool{}
	var names []graph.EntityName
	add := func(n graph.EntityName) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, r := range relations {
		add(r.From)
		add(r.To)
		add(r.Via)
		for _, c := range r.Claims {
			add(c.SaidBy)
		}
	}
	into, err := rd.MergedInto(ctx, names)
	if err != nil {
		return nil, err
	}
	return Redirect(relations, into), nil
}

// Progress is told how many records of each stage have been written.
type Progress func(stage string, done, total int)

// LoadOptions tune LoadWith.
type LoadOptions struct {
	// Batch is how many records go in one transaction.
	Batch int
	// Progress, when set, is told how many records of each stage have been committed.
	Progress Progress
	// OnRetry, when set, is told of each batch tried again after a transient refusal, from the goroutine
	// writing the batch (several at once).
	OnRetry func(stage string, attempt int, err error)
	// RetryFor is how long one batch is tried again while the database refuses it as unavailable or out
	// of time (DefaultRetryFor when 0; a negative value: never).
	RetryFor time.Duration
}

// DefaultRetryFor is how long a load keeps trying a batch the database refuses as unavailable: long
// enough for a restarted alpha to come back or a cluster to elect a new leader.
const DefaultRetryFor = 2 * time.Minute

// LoadError is a load that stopped before its end: what it had committed, stage by stage, and why it
// stopped. Every record counted as committed is in the graph; loading the same dataset again writes the
// rest (every write is an upsert by name, so it ends at exact counts).
type LoadError struct {
	Stages []StageCount // the stages begun, in load order
	// Published reports whether the relations committed are visible to readers already: a bulk load holds
	// the graph's next version until it ends, and one that could not release its hold leaves it to lapse
	// (within the store's lease, a minute for Dgraph), when they become visible.
	Published bool
	Err       error
}

// StageCount is how many of a stage's records were committed.
type StageCount struct {
	Stage       string
	Done, Total int
}

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// Load writes a checked dataset: sources, then entities, then relations with their claims, in batches.
// Every write is an upsert by name, so loading the same dataset twice changes nothing. Batches of sources
// and of entities go several at a time (they are independent); batches of relations one after another,
// since each raises the graph's version.
func Load(ctx context.Context, w graph.Writer, ds *Dataset, batch int, progress Progress) error {
	return LoadWith(ctx, w, ds, LoadOptions{Batch: batch, Progress: progress})
}

// LoadWith is Load with options. A batch the database refuses as unavailable or out of time is tried again
// with backoff for RetryFor. A load that stops before its end returns a *LoadError saying what it had
// committed.
func LoadWith(ctx context.Context, w graph.Writer, ds *Dataset, opts LoadOptions) error {
	return load(ctx, w, records{
		counts:    [3]int{len(ds.Sources), len(ds.Entities), len(ds.Relations)},
		sources:   eachOf(ds.Sources),
		entities:  eachOf(ds.Entities),
		relations: eachOf(ds.Relations),
	}, opts)
}

// Load writes files that CheckFiles found valid, as LoadWith writes a dataset (the same stages, batches,
// retries and LoadError), holding no more of their records than the batches being written: a dataset of
// any size loads in the memory its names take. open gives the files, each time they are to be read
// again: once more when they hold their records in stage order (c.InStageOrder; polgraph writes them
// so), else once per stage. It returns Read's error should the files have changed since the check and no
// longer be valid; what was committed before is then in the graph, as after any load that stops early.
func (c *Checked) Load(ctx context.Context, w graph.Writer, open func() (files []File, closeFiles func(), err error), opts LoadOptions) error {
	pass := func(sink Sink) error { return c.eachOpened(open, sink) }
	rs := records{counts: [3]int{c.Sources, c.Entities, c.Relations}}
	if !c.InStageOrder {
		rs.sources = func(emit func(graph.Source) error) error { return pass(stageSink{source: emit}) }
		rs.entities = func(emit func(graph.Entity) error) error { return pass(stageSink{entity: emit}) }
		rs.relations = func(emit func(graph.Relation) error) error { return pass(stageSink{relation: emit}) }
		return load(ctx, w, rs, opts)
	}
	// One pass, handing each stage its records as the stage asks for them: a record of the next stage
	// waits until the stage before has been written.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sources, entities, relations := make(chan graph.Source), make(chan graph.Entity), make(chan graph.Relation)
	passDone := make(chan error, 1)
	var passErr error // set before the channels still open are closed: a stage that sees its channel closed reads it
	go func() {
		stage := 0 // the channels of the stages before are closed
		next := func(k int) {
			for ; stage < k; stage++ {
				switch stage {
				case stageSources:
					close(sources)
				case stageEntities:
					close(entities)
				}
			}
		}
		err := pass(stageSink{
			source:   func(x graph.Source) error { next(stageSources); return send(ctx, sources, x) },
			entity:   func(x graph.Entity) error { next(stageEntities); return send(ctx, entities, x) },
			relation: func(x graph.Relation) error { next(stageRelations); return send(ctx, relations, x) },
		})
		passErr = err
		next(stageRelations)
		close(relations)
		passDone <- err
	}()
	failed := func() error { return passErr }
	rs.sources, rs.entities, rs.relations = received(sources, failed), received(entities, failed), received(relations, failed)
	err := load(ctx, w, rs, opts)
	cancel() // a load that stopped early leaves the pass waiting to send
	if perr := <-passDone; err == nil && perr != nil && !errors.Is(perr, context.Canceled) {
		err = perr // the files changed since the check: the load wrote what came before
	}
	return err
}

// send sends x on ch, unless ctx is done first.
func send[T any](ctx context.Context, ch chan<- T, x T) error {
	select {
	case ch <- x:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// received gives the records of ch until it is closed, and then failed's error: why the records
// stopped, if they did not all come.
func received[T any](ch <-chan T, failed func() error) func(emit func(T) error) error {
	return func(emit func(T) error) error {
		for x := range ch {
			if err := emit(x); err != nil {
				return err
			}
		}
		return failed()
	}
}

// eachOf gives the records of xs.
func eachOf[T any](xs []T) func(emit func(T) error) error {
	return func(emit func(T) error) error {
		for _, x := range xs {
			if err := emit(x); err != nil {
				return err
			}
		}
		return nil
	}
}

// stageSink takes one stage's records and drops the others'.
type stageSink struct {
	source   func(graph.Source) error
	entity   func(graph.Entity) error
	relation func(graph.Relation) error
}

func (s stageSink) WriteSource(x graph.Source) error     { return callIfSet(s.source, x) }
func (s stageSink) WriteEntity(x graph.Entity) error     { return callIfSet(s.entity, x) }
func (s stageSink) WriteRelation(x graph.Relation) error { return callIfSet(s.relation, x) }

func callIfSet[T any](f func(T) error, x T) error {
	if f == nil {
		return nil
	}
	return f(x)
}

// records are a load's records, stage by stage: how many, and a function giving them in turn.
type records struct {
	counts    [3]int // sources, entities, relations
	sources   func(emit func(graph.Source) error) error
	entities  func(emit func(graph.Entity) error) error
	relations func(emit func(graph.Relation) error) error
}

func load(ctx context.Context, w graph.Writer, rs records, opts LoadOptions) error {
	l := &loader{opts: opts}
	if l.opts.Progress == nil {
		l.opts.Progress = func(string, int, int) {}
	}
	if l.opts.RetryFor == 0 {
		l.opts.RetryFor = DefaultRetryFor
	}
	batch := opts.Batch
	// Relations name their ends as they were when the relation was written: those merged since are
	// redirected to the entity they were merged into, batch by batch.
	// Claims the records mark retracted are written as they are, and retracted once every relation is.
	var mu sync.Mutex
	var retracted []graph.Claim
	redirected := func(upsert func(context.Context, []graph.Relation) error) func(context.Context, []graph.Relation) error {
		return func(ctx context.Context, rels []graph.Relation) error {
			rels, err := Redirected(ctx, w, rels)
			if err != nil {
				return err
			}
			if err := upsert(ctx, rels); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rels {
				for _, c := range r.Claims {
					if !c.Retracted.IsZero() {
						retracted = append(retracted, c)
					}
				}
			}
			return nil
		}
	}
	retract := func() error {
		if len(retracted) == 0 {
			return nil
		}
		t, ok := w.(graph.Tombstones)
		if !ok {
			return &graph.Error{Op: "dataset.Load", Kind: graph.Invalid, Message: "the dataset marks claims retracted, and this store cannot record retractions"}
		}
		for _, c := range retracted {
			if _, err := t.RetractClaim(graph.WithRecordedTombstone(ctx, c.Retracted), c.Name, c.Retracted.Reason); err != nil {
				return fmt.Errorf("load retractions: %w", err)
			}
		}
		return nil
	}
	bw, ok := w.(graph.BulkWriter)
	if !ok {
		// Each write raises the graph's version, and parallel ones would conflict on it: one at a time.
		if err := inStages(ctx, l.stage("sources", rs.counts[0]), rs.counts[0], rs.sources, batch, 1, retrying(l, "sources", w.UpsertSources), l.progress); err != nil {
			return l.failed(err, true)
		}
		if err := inStages(ctx, l.stage("entities", rs.counts[1]), rs.counts[1], rs.entities, batch, 1, retrying(l, "entities", w.UpsertEntities), l.progress); err != nil {
			return l.failed(err, true)
		}
		err := inStages(ctx, l.stage("relations", rs.counts[2]), rs.counts[2], rs.relations, max(batch/4, 1), 1, retrying(l, "relations", redirected(w.UpsertRelations)), l.progress)
		if err == nil {
			err = retract()
		}
		return l.failed(err, true)
	}
	// Batches of sources, then of entities, then of relations, in parallel, all under one version that
	// readers see once the load ends (each write raises the version, and parallel ones would conflict on
	// it). No merge commits while the load holds the version, so the merged entities read after BeginBulk
	// stay so until the load ends.
	b, err := bw.BeginBulk(ctx)
	if err != nil {
		return l.failed(fmt.Errorf("load sources: %w", err), true)
	}
	err = inStages(ctx, l.stage("sources", rs.counts[0]), rs.counts[0], rs.sources, batch, parallelWriters, retrying(l, "sources", b.UpsertSources), l.progress)
	if err == nil {
		err = inStages(ctx, l.stage("entities", rs.counts[1]), rs.counts[1], rs.entities, batch, parallelWriters, retrying(l, "entities", b.UpsertEntities), l.progress)
	}
	if err == nil {
		err = inStages(ctx, l.stage("relations", rs.counts[2]), rs.counts[2], rs.relations, max(batch/4, 1), parallelWriters, retrying(l, "relations", redirected(b.UpsertRelations)), l.progress)
	}
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	endErr := b.End(endCtx)
	if endErr != nil && err == nil {
		err = fmt.Errorf("load relations: %w", endErr)
	}
	if err == nil {
		err = retract() // a retraction is a write of its own, after the load's version is published
	}
	return l.failed(err, endErr == nil)
}

// loader keeps the counts of one load, for its report.
type loader struct {
	opts   LoadOptions
	mu     sync.Mutex
	stages []StageCount
}

func (l *loader) stage(name string, total int) string {
	l.mu.Lock()
	l.stages = append(l.stages, StageCount{Stage: name, Total: total})
	l.mu.Unlock()
	return name
}

func (l *loader) progress(stage string, done, total int) {
	l.mu.Lock()
	for i := range l.stages {
		if l.stages[i].Stage == stage {
			l.stages[i].Done = done
		}
	}
	l.mu.Unlock()
	l.opts.Progress(stage, done, total)
}

// failed wraps a load's error in a LoadError, or returns nil.
func (l *loader) failed(err error, published bool) error {
	if err == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return &LoadError{Stages: slices.Clone(l.stages), Published: published, Err: err}
}

// retrying is write, tried again with backoff while the database refuses it as unavailable or out of time,
// for the load's RetryFor. A bulk load whose hold lapsed is not retried: its version was published.
func retrying[T any](l *loader, stage string, write func(context.Context, []T) error) func(context.Context, []T) error {
	return func(ctx context.Context, xs []T) error {
		start := time.Now()
		backoff := 250 * time.Millisecond
		for attempt := 1; ; attempt++ {
			err := write(ctx, xs)
			if err == nil || ctx.Err() != nil || !transient(err) || l.opts.RetryFor < 0 || time.Since(start)+backoff > l.opts.RetryFor {
				return err
			}
			if l.opts.OnRetry != nil {
				l.opts.OnRetry(stage, attempt, err)
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 5*time.Second)
		}
	}
}

// transient reports whether a write's error may pass by itself: the database unreachable, not ready, or
// out of time.
func transient(err error) bool {
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Reason == "LOAD_LEASE_LAPSED" {
		return false
	}
	k := graph.KindOf(err)
	return k == graph.Unavailable || k == graph.DeadlineExceeded
}

// parallelWriters is how many batches of independent records are written at once.
const parallelWriters = 4

// inStages writes the total records that produce gives, one at a time, in batches of n, with up to
// workers batches in flight, and stops at the first error; it holds only the batches being filled and
// written. progress is told how many records are written, in order, from one goroutine at a time.
func inStages[T any](ctx context.Context, stage string, total int, produce func(emit func(T) error) error, n, workers int, write func(context.Context, []T) error, progress Progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type span struct {
		start int
		xs    []T
	}
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
				if err := write(ctx, sp.xs); err != nil {
					errs <- fmt.Errorf("load %s %d-%d: %w", stage, sp.start+1, sp.start+len(sp.xs), err)
					cancel()
					return
				}
				mu.Lock()
				done += len(sp.xs)
				progress(stage, done, total)
				mu.Unlock()
			}
		}()
	}
	next, batch := 0, make([]T, 0, n)
	flush := func() error {
		select {
		case spans <- span{next, batch}:
			next += len(batch)
			batch = make([]T, 0, n)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := produce(func(x T) error {
		if batch = append(batch, x); len(batch) == n {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	close(spans)
	wg.Wait()
	select {
	case werr := <-errs:
		return werr
	default:
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("load %s: %w", stage, err) // the records could not be read
	}
	return ctx.Err()
}
