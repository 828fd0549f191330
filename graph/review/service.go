package review

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/resolve"
)

// Queue is where the review queue is kept (graph/dgraph). It stores what it is given; the Service checks
// it. Methods return Unavailable, DeadlineExceeded or Internal errors unless they say otherwise.
type Queue interface {
	// AddDocument stores a document (with its text) unless one with its hash is stored, and reports
	// whether it stored it.
	AddDocument(ctx context.Context, d Document) (bool, error)
	// GetDocuments returns the stored documents with these hashes, with their texts; unknown ones are
	// absent.
	GetDocuments(ctx context.Context, hashes []string) (map[string]Document, error)
	// FindDocuments returns the hashes of at most limit stored documents whose hash starts with prefix, in
	// order.
	FindDocuments(ctx context.Context, prefix string, limit int) ([]string, error)
	// ListDocuments returns a page of the documents, newest first, without their texts, each with its
	// proposals counted by state, and how many documents there are.
	ListDocuments(ctx context.Context, offset, limit int) ([]DocumentSummary, int, error)

	// AddProposedEntities stores the proposed entities whose names are not stored yet, and returns their names.
	AddProposedEntities(ctx context.Context, es []Entity) ([]graph.EntityName, error)
	// GetProposedEntities returns the stored proposed entities with these names; unknown ones are absent.
	GetProposedEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]Entity, error)
	// ListProposedEntities returns a page of the proposed entities f asks for, in name order, and how many match.
	ListProposedEntities(ctx context.Context, f EntityFilter, offset, limit int) ([]Entity, int, error)
	// UpdateProposedEntities reads the named entities and stores what update makes of each, in one transaction
	// (retried whole, update included, when a concurrent write aborts it). An error from update is
	// returned as it is, and nothing is stored; an unknown name is NotFound.
	UpdateProposedEntities(ctx context.Context, names []graph.EntityName, update func(*Entity) error) ([]Entity, error)

	// AddProposals stores the proposals whose ids are not stored yet, and returns their ids: a proposal
	// stored once, in whatever state, is never stored again.
	AddProposals(ctx context.Context, ps []Proposal) ([]string, error)
	// GetProposals returns the stored proposals with these ids; unknown ones are absent.
	GetProposals(ctx context.Context, ids []string) (map[string]Proposal, error)
	// ListProposals returns a page of the proposals f asks for, newest document first and in the order
	// of its text, and how many match.
	ListProposals(ctx context.Context, f ProposalFilter, offset, limit int) ([]Proposal, int, error)
	// UpdateProposals is UpdateProposedEntities for proposals.
	UpdateProposals(ctx context.Context, ids []string, update func(*Proposal) error) ([]Proposal, error)
}

// ProposalFilter says which proposals to list; the zero value lists them all.
type ProposalFilter struct {
	Document string           // of this document (its hash)
	Entity   graph.EntityName // naming this entity (existing or proposed) as from, to or said_by
	State    State
	Type     graph.RelationType
}

// EntityFilter says which proposed entities to list.
type EntityFilter struct {
	Document string // first proposed by this document (its hash)
	State    State
}

// DocumentSummary is a document without its text, with its proposals counted by state.
type DocumentSummary struct {
	Document  Document
	Proposals map[State]int
}

// DocumentView is a document with its text, every proposal read from it, and the proposed entities they
// name.
type DocumentView struct {
	Document  Document
	Proposals []Proposal
	Entities  []Entity
}

// Limits of the review API.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
	// MaxDecision bounds the proposals one approval or rejection decides.
	MaxDecision = 1000
	// MaxText bounds a document's cleaned text, in bytes.
	MaxText = 4 << 20
	// MaxReadingProposals and MaxReadingEntities bound what one document may propose.
	MaxReadingProposals = 10_000
	MaxReadingEntities  = 5_000
	// MaxRule bounds a proposal's rule name.
	MaxRule = 100
	// MaxPath bounds a document's path.
	MaxPath = 1_000
)

// Service keeps the review queue: it takes what the ingest pipeline read, lists it for reviewers, and
// carries out their decisions. Approvals are written to the graph through Intake, as any write is,
// each change audited with the reviewer's name.
type Service struct {
	Queue  Queue
	Intake *intake.Service
	// Graph is what match candidates are drawn from (ListMatchCandidates is refused without it).
	Graph resolve.Reader
	// Timeout bounds every call (none when 0).
	Timeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	matches matchCache
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.Timeout > 0 {
		return context.WithTimeout(ctx, s.Timeout)
	}
	return context.WithCancel(ctx)
}

func (s *Service) graph() intake.Store { return s.Intake.Store }

// SubmitResult says what a submission queued.
type SubmitResult struct {
	Document string // the document's hash
	// AlreadyRead is set when the document was queued before: nothing was queued again.
	AlreadyRead bool
	// Proposals and Entities count what was queued; Repeated counts the proposals queued before (the
	// same reading from another document, or one rejected before), which were left as they are.
	Proposals, Entities, Repeated int
	// Rejected counts the proposals queued as rejected at once because they name an entity a reviewer
	// rejected.
	Rejected int
}

// Submit queues what the pipeline read from one document: the document (once per hash: a document
// queued before is reported AlreadyRead and nothing of it is queued again), the proposed entities the
// queue lacks, and the proposals it lacks (by id, which comes from the reading's signature: a proposal
// rejected before is not proposed again). Proposals that name a proposed entity a reviewer merged into an
// existing one name that entity instead; those naming a rejected one are queued rejected. Nothing goes
// into the graph.
//
// It returns Invalid, listing every problem of the reading (each end must be proposed by the reading, be
// in the queue or be in the graph, and the relation type must join their kinds).
func (s *Service) Submit(ctx context.Context, meta graph.WriteMeta, r Reading) (SubmitResult, error) {
	const op = "Submit"
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var v graph.Violations
	s.normalise(&r, &v)
	if err := v.Err(op, "invalid reading"); err != nil {
		return SubmitResult{}, err
	}
	hash := r.Document.Hash
	res := SubmitResult{Document: hash}
	have, err := s.Queue.GetDocuments(ctx, []string{hash})
	if err != nil {
		return res, err
	}
	if _, ok := have[hash]; ok {
		res.AlreadyRead = true
		return res, nil
	}

	// Every name the reading uses: proposed by it, in the queue, or in the graph.
	var names []graph.EntityName
	for _, p := range r.Proposals {
		names = append(names, p.From, p.To, p.SaidBy)
	}
	for _, e := range r.Entities {
		names = append(names, e.Name)
	}
	names = compact(names)
	queued, err := s.Queue.GetProposedEntities(ctx, names)
	if err != nil {
		return res, err
	}
	inGraph, _, err := s.graph().Known(ctx, names, nil)
	if err != nil {
		return res, err
	}
	proposed := map[graph.EntityName]bool{}
	for _, e := range r.Entities {
		proposed[e.Name] = true
	}
	for i, p := range r.Proposals {
		for _, end := range []struct {
			field string
			name  graph.EntityName
		}{{"from", p.From}, {"to", p.To}, {"said_by", p.SaidBy}} {
			_, q := queued[end.name]
			if end.name != "" && !proposed[end.name] && !q && inGraph[end.name] == "" {
				v.Add(fmt.Sprintf("proposals[%d].%s", i, end.field), "%s is neither proposed by the reading nor in the queue nor in the graph", end.name)
			}
		}
	}
	if err := v.Err(op, "invalid reading"); err != nil {
		return res, err
	}

	// Entities the graph or the queue already holds are not proposed again; proposals follow reviewers'
	// merges and rejections of the entities they name.
	var entities []Entity
	for _, e := range r.Entities {
		if _, ok := queued[e.Name]; ok || inGraph[e.Name] != "" {
			continue
		}
		e.Document, e.State, e.MergedInto, e.Reason, e.Reviewer, e.Reviewed = hash, Pending, "", "", "", time.Time{}
		entities = append(entities, e)
	}
	now := s.now()
	for i := range r.Proposals {
		p := &r.Proposals[i]
		for _, n := range []*graph.EntityName{&p.From, &p.To, &p.SaidBy} {
			if e, ok := queued[*n]; ok && e.State == Merged {
				*n = e.MergedInto
			}
		}
		for _, n := range []graph.EntityName{p.From, p.To} {
			if e, ok := queued[n]; ok && e.State == Rejected {
				p.State, p.Reason, p.Reviewer, p.Reviewed = Rejected, "names "+string(n)+", which a reviewer rejected", e.Reviewer, now
			}
		}
		if e, ok := queued[p.SaidBy]; ok && e.State == Rejected {
			p.SaidBy = ""
		}
		if p.From == p.To {
			p.State, p.Reason, p.Reviewed = Rejected, "both ends are "+string(p.From)+" (a proposed entity was merged into the other)", now
		}
	}
	added, err := s.Queue.AddProposedEntities(ctx, entities)
	if err != nil {
		return res, err
	}
	res.Entities = len(added)
	ids, err := s.Queue.AddProposals(ctx, r.Proposals)
	if err != nil {
		return res, err
	}
	res.Proposals, res.Repeated = len(ids), len(r.Proposals)-len(ids)
	isNew := set(ids)
	for _, p := range r.Proposals {
		if isNew[p.ID] && p.State == Rejected {
			res.Rejected++
		}
	}
	// The document last: a submission cut short is taken up by submitting it again.
	doc := r.Document
	if doc.Ingested.IsZero() {
		doc.Ingested = now
	}
	stored, err := s.Queue.AddDocument(ctx, doc)
	if err != nil {
		return res, err
	}
	res.AlreadyRead = !stored
	return res, nil
}

// normalise fills what a reading leaves to be derived (the hash, the source's name, title and kind, ids,
// states) and records every problem in v.
func (s *Service) normalise(r *Reading, v *graph.Violations) {
	d := &r.Document
	switch {
	case strings.TrimSpace(d.Text) == "":
		v.Add("document.text", "required: the document's cleaned text")
	case len(d.Text) > MaxText:
		v.Add("document.text", "%d bytes; at most %d", len(d.Text), MaxText)
	case !utf8.ValidString(d.Text):
		v.Add("document.text", "is not valid UTF-8")
	}
	if d.Hash == "" {
		d.Hash = HashText(d.Text)
	} else if d.Hash != HashText(d.Text) {
		v.Add("document.hash", "is not the SHA-256 of the text (HashText)")
	}
	switch d.Format {
	case "", "text", "html", "posts":
	default:
		v.Add("document.format", "%q: want text, html or posts", truncate(d.Format, 40))
	}
	d.Path = truncate(clean(d.Path), MaxPath)
	d.Source = SourceOf(*d)
	src := d.Source
	for _, f := range []struct {
		field, value string
		max          int
	}{{"outlet", src.Outlet, graph.MaxOutlet}, {"author", src.Author, graph.MaxAuthor}, {"url", src.URL, graph.MaxURL}} {
		checkText(v, "document.source."+f.field, f.value, f.max, false)
	}

	seen := map[graph.EntityName]bool{}
	for i := range r.Entities {
		e := &r.Entities[i]
		field := func(f string) string { return fmt.Sprintf("entities[%d].%s", i, f) }
		kind, err := graph.ParseEntityName(string(e.Name))
		if err != nil {
			v.Add(field("name"), "%v", err)
		} else if e.Kind != "" && e.Kind != kind {
			v.Add(field("kind"), "%s, but %s names a %s", e.Kind, e.Name, strings.ToLower(string(kind)))
		}
		e.Kind = kind
		if seen[e.Name] {
			v.Add(field("name"), "%s is proposed twice", e.Name)
		}
		seen[e.Name] = true
		if strings.TrimSpace(e.DisplayName) == "" {
			v.Add(field("display_name"), "required")
		}
		if len(e.DisplayName) > graph.MaxDisplayName {
			v.Add(field("display_name"), "%d bytes; at most %d", len(e.DisplayName), graph.MaxDisplayName)
		} else if p := graph.NameProblem(e.DisplayName); p != "" {
			v.Add(field("display_name"), "%s", p)
		}
		e.Aliases = cleanAliases(e.DisplayName, e.Aliases)
	}
	if len(r.Entities) > MaxReadingEntities {
		v.Add("entities", "%d entities; at most %d", len(r.Entities), MaxReadingEntities)
	}
	if len(r.Proposals) > MaxReadingProposals {
		v.Add("proposals", "%d proposals; at most %d", len(r.Proposals), MaxReadingProposals)
	}
	ids := map[string]bool{}
	var kept []Proposal
	for i, p := range r.Proposals {
		p.Document = d.Hash
		if p.ID == "" {
			p.ID = ProposalID(p.Signature())
		}
		if !ValidProposalID(p.ID) {
			v.Add(fmt.Sprintf("proposals[%d].id", i), "%q is not a proposal id (proposals/<16 hex digits>)", truncate(p.ID, 40))
		}
		if ids[p.ID] {
			continue // the same reading twice in one document: proposed once
		}
		ids[p.ID] = true
		p.State, p.Reason, p.Relation, p.Reviewer, p.Reviewed = Pending, "", "", "", time.Time{}
		checkProposal(v, fmt.Sprintf("proposals[%d].", i), p)
		if p.Span.Start < 0 || p.Span.End < p.Span.Start || p.Span.End > len(d.Text) {
			v.Add(fmt.Sprintf("proposals[%d].span", i), "[%d, %d) is not within the text (%d bytes)", p.Span.Start, p.Span.End, len(d.Text))
		}
		if len(p.Rule) > MaxRule {
			v.Add(fmt.Sprintf("proposals[%d].rule", i), "%d bytes; at most %d", len(p.Rule), MaxRule)
		}
		kept = append(kept, p)
	}
	r.Proposals = kept
}

// SourceOf is the source a document's approved claims cite: its own, named after its hash, with a title
// (the text's first words when the pipeline found none, cut to fit) and a kind (a social post for a stream
// of posts, an article otherwise).
func SourceOf(d Document) graph.Source {
	src := d.Source
	src.Name = SourceNameFor(d.Hash)
	if strings.TrimSpace(src.Title) == "" {
		src.Title = firstWords(d.Text, 12)
	}
	src.Title = truncate(clean(src.Title), graph.MaxTitle)
	if strings.TrimSpace(src.Title) == "" {
		src.Title = "document " + d.Hash[:min(16, len(d.Hash))]
	}
	if src.Kind == "" {
		src.Kind = graph.SourceArticle
		if d.Format == "posts" {
			src.Kind = graph.SourceSocialPost
		}
	}
	return src
}

// checkProposal records the problems of a proposal's relation and claim, each under prefix + its field.
func checkProposal(v *graph.Violations, prefix string, p Proposal) {
	if !p.Type.Valid() {
		v.Add(prefix+"type", "%q is not in the relation vocabulary (see data/FORMAT.md)", truncate(string(p.Type), 40))
	}
	kinds := map[string]graph.Kind{}
	for _, end := range []struct {
		field string
		name  graph.EntityName
	}{{"from", p.From}, {"to", p.To}, {"said_by", p.SaidBy}} {
		if end.name == "" {
			if end.field != "said_by" {
				v.Add(prefix+end.field, "required")
			}
			continue
		}
		k, err := graph.ParseEntityName(string(end.name))
		if err != nil {
			v.Add(prefix+end.field, "%v", err)
		}
		kinds[end.field] = k
	}
	if p.From != "" && p.From == p.To {
		v.Add(prefix+"to", "a relation cannot join %s to itself", p.From)
	}
	if fk, tk := kinds["from"], kinds["to"]; p.Type.Valid() && fk != "" && tk != "" && !p.Type.Joins(fk, tk) {
		v.Add(prefix+"type", "%s cannot join a %s (%s) to a %s (%s)", p.Type, strings.ToLower(string(fk)), p.From, strings.ToLower(string(tk)), p.To)
	}
	if p.Status.Index() < 0 {
		v.Add(prefix+"status", "%q is not a claim status (want ALLEGED, REPORTED, CONFIRMED or DENIED)", truncate(string(p.Status), 40))
	}
	graph.CheckFraction(v, prefix+"confidence", p.Confidence)
	switch n := utf8.RuneCountInString(p.Excerpt); {
	case strings.TrimSpace(p.Excerpt) == "":
		v.Add(prefix+"excerpt", "required")
	case n > graph.MaxExcerpt:
		v.Add(prefix+"excerpt", "%d characters; an excerpt is at most one sentence (%d characters)", n, graph.MaxExcerpt)
	}
	checkText(v, prefix+"excerpt", p.Excerpt, 4*graph.MaxExcerpt, true)
	checkText(v, prefix+"role", p.Role, graph.MaxRole, false)
	if !p.Date.IsZero() && (!p.ValidFrom.IsZero() || !p.ValidTo.IsZero()) {
		v.Add(prefix+"date", "a relation is an event (date) or a state (valid_from, valid_to), not both")
	}
	if !p.ValidFrom.IsZero() && !p.ValidTo.IsZero() && p.ValidFrom.FirstDay() > p.ValidTo.LastDay() {
		v.Add(prefix+"valid_to", "%s is before valid_from %s", p.ValidTo, p.ValidFrom)
	}
}

// checkText records a value that is too long or holds a control character.
func checkText(v *graph.Violations, field, s string, max int, freeText bool) {
	if len(s) > max {
		v.Add(field, "%d bytes; at most %d", len(s), max)
		return
	}
	if i, r := graph.ControlAt(s, freeText); i >= 0 {
		v.Add(field, "contains the control character %U at byte %d", r, i+1)
	}
}

// checkReason checks why a decision is made: required, one line, bounded.
func checkReason(v *graph.Violations, reason string) {
	if strings.TrimSpace(reason) == "" {
		v.Add("reason", "required: say why")
		return
	}
	checkText(v, "reason", reason, graph.MaxReason, false)
}

// ValidProposalID reports whether id has the shape of a proposal id, proposals/<16 hex digits>.
func ValidProposalID(id string) bool {
	h, ok := strings.CutPrefix(id, "proposals/")
	if !ok || len(h) != 16 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// --- reading the queue ----------------------------------------------------------------------------------

// checkPage checks a page's size and offset and returns the size to use.
func checkPage(v *graph.Violations, pageSize, offset int) int {
	if pageSize < 0 || pageSize > MaxPageSize {
		v.Add("page_size", "must be between 0 and %d, got %d", MaxPageSize, pageSize)
	}
	if offset < 0 {
		v.Add("page_token", "not a page of this list")
	}
	if pageSize == 0 {
		return DefaultPageSize
	}
	return pageSize
}

func checkState(v *graph.Violations, field string, st State, entity bool) {
	switch st {
	case "", Pending, Approved, Rejected:
	case Merged:
		if !entity {
			v.Add(field, "MERGED is a state of proposed entities, not of proposals")
		}
	default:
		v.Add(field, "%q is not a review state (PENDING, APPROVED, REJECTED%s)", truncate(string(st), 40), map[bool]string{true: ", MERGED"}[entity])
	}
}

// ListProposals returns a page of the proposals f asks for (newest document first, in the order of its
// text), the offset of the next page (0 on the last) and how many match. f.Document may be a document's
// hash, a prefix of it (at least 8 hex digits) or its name (documents/<hash>, or the source name its
// claims cite). Invalid for a bad filter or page; NotFound for an unknown document.
func (s *Service) ListProposals(ctx context.Context, f ProposalFilter, pageSize, offset int) ([]Proposal, int, int, error) {
	const op = "ListProposals"
	var v graph.Violations
	limit := checkPage(&v, pageSize, offset)
	checkState(&v, "state", f.State, false)
	if f.Type != "" && !f.Type.Valid() {
		v.Add("type", "%q is not in the relation vocabulary", truncate(string(f.Type), 40))
	}
	if f.Entity != "" {
		if _, err := graph.ParseEntityName(string(f.Entity)); err != nil {
			v.Add("entity", "%v", err)
		}
	}
	if err := v.Err(op, "invalid request"); err != nil {
		return nil, 0, 0, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var err error
	if f.Document, err = s.filterDocument(ctx, f.Document); err != nil {
		return nil, 0, 0, err
	}
	ps, total, err := s.Queue.ListProposals(ctx, f, offset, limit)
	if err != nil {
		return nil, 0, 0, err
	}
	return ps, nextOffset(offset, len(ps), total), total, nil
}

func nextOffset(offset, n, total int) int {
	if n > 0 && offset+n < total {
		return offset + n
	}
	return 0
}

// ListProposedEntities returns a page of the proposed entities f asks for, in name order, the offset of the next
// page and how many match.
func (s *Service) ListProposedEntities(ctx context.Context, f EntityFilter, pageSize, offset int) ([]Entity, int, int, error) {
	var v graph.Violations
	limit := checkPage(&v, pageSize, offset)
	checkState(&v, "state", f.State, true)
	if err := v.Err("ListProposedEntities", "invalid request"); err != nil {
		return nil, 0, 0, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var err error
	if f.Document, err = s.filterDocument(ctx, f.Document); err != nil {
		return nil, 0, 0, err
	}
	es, total, err := s.Queue.ListProposedEntities(ctx, f, offset, limit)
	if err != nil {
		return nil, 0, 0, err
	}
	return es, nextOffset(offset, len(es), total), total, nil
}

// ListDocuments returns a page of the documents read, newest first, each with its proposals counted by
// state, the offset of the next page and how many there are.
func (s *Service) ListDocuments(ctx context.Context, pageSize, offset int) ([]DocumentSummary, int, int, error) {
	var v graph.Violations
	limit := checkPage(&v, pageSize, offset)
	if err := v.Err("ListDocuments", "invalid request"); err != nil {
		return nil, 0, 0, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	ds, total, err := s.Queue.ListDocuments(ctx, offset, limit)
	if err != nil {
		return nil, 0, 0, err
	}
	return ds, nextOffset(offset, len(ds), total), total, nil
}

// GetDocument returns a document (by hash, a prefix of it of at least 8 hex digits, or its name) with
// its text, every proposal read from it, and the proposed entities they name or it proposed first. NotFound for an unknown
// document; Invalid for a prefix that several documents' hashes start with.
func (s *Service) GetDocument(ctx context.Context, ref string) (DocumentView, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	hash, err := s.resolveDocument(ctx, "name", ref)
	if err != nil {
		return DocumentView{}, err
	}
	docs, err := s.Queue.GetDocuments(ctx, []string{hash})
	if err != nil {
		return DocumentView{}, err
	}
	view := DocumentView{Document: docs[hash]}
	for offset := 0; ; {
		ps, total, err := s.Queue.ListProposals(ctx, ProposalFilter{Document: hash}, offset, MaxPageSize)
		if err != nil {
			return DocumentView{}, err
		}
		view.Proposals = append(view.Proposals, ps...)
		if offset = nextOffset(offset, len(ps), total); offset == 0 {
			break
		}
	}
	var names []graph.EntityName
	for _, p := range view.Proposals {
		names = append(names, p.From, p.To, p.SaidBy)
	}
	// And those it proposed first that no proposal names (a byline's author, say).
	for offset := 0; ; {
		es, total, err := s.Queue.ListProposedEntities(ctx, EntityFilter{Document: hash}, offset, MaxPageSize)
		if err != nil {
			return DocumentView{}, err
		}
		for _, e := range es {
			names = append(names, e.Name)
		}
		if offset = nextOffset(offset, len(es), total); offset == 0 {
			break
		}
	}
	ents, err := s.Queue.GetProposedEntities(ctx, compact(names))
	if err != nil {
		return DocumentView{}, err
	}
	for _, n := range compact(names) {
		if e, ok := ents[n]; ok {
			view.Entities = append(view.Entities, e)
		}
	}
	return view, nil
}

// resolveDocument finds the hash of the document ref names: a whole hash, a prefix of at least 8 hex
// digits, documents/<hash or prefix>, or the source name its claims cite (sources/ingest-<16 hex>).
// filterDocument resolves a list filter's document, which may be left out ("").
func (s *Service) filterDocument(ctx context.Context, ref string) (string, error) {
	if ref == "" {
		return "", nil
	}
	return s.resolveDocument(ctx, "document", ref)
}

func (s *Service) resolveDocument(ctx context.Context, field, ref string) (string, error) {
	const op = "Document"
	h := strings.TrimSpace(ref)
	h = strings.TrimPrefix(h, "documents/")
	h = strings.TrimPrefix(h, string(SourceNameFor("")))
	h = strings.ToLower(h)
	if _, err := hex.DecodeString(h + strings.Repeat("0", len(h)%2)); err != nil || len(h) < 8 || len(h) > 64 {
		var v graph.Violations
		v.Add(field, "%q is not a document: want its hash (at least 8 hex digits), documents/<hash> or sources/ingest-<hash>", truncate(ref, 80))
		return "", v.Err(op, "invalid document")
	}
	notFound := &graph.Error{Op: op, Kind: graph.NotFound, Reason: "DOCUMENT_NOT_FOUND", Message: field + ": no document read has the hash " + h}
	if len(h) == 64 {
		docs, err := s.Queue.GetDocuments(ctx, []string{h})
		if err != nil {
			return "", err
		}
		if _, ok := docs[h]; !ok {
			return "", notFound
		}
		return h, nil
	}
	found, err := s.Queue.FindDocuments(ctx, h, 2)
	switch {
	case err != nil:
		return "", err
	case len(found) == 0:
		return "", notFound
	case len(found) > 1:
		var v graph.Violations
		v.Add(field, "%s starts the hashes of several documents (%s, %s…); give more of it", h, found[0][:16], found[1][:16])
		return "", v.Err(op, "ambiguous document")
	}
	return found[0], nil
}

// --- decisions ------------------------------------------------------------------------------------------

// checkIDs checks the ids of a decision: 1 to MaxDecision proposal ids. It returns them without repeats.
func checkIDs(v *graph.Violations, ids []string) []string {
	switch {
	case len(ids) == 0:
		v.Add("ids", "required: at least one proposal id")
	case len(ids) > MaxDecision:
		v.Add("ids", "%d ids; at most %d in one call", len(ids), MaxDecision)
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for i, id := range ids {
		if !ValidProposalID(id) {
			v.Add(fmt.Sprintf("ids[%d]", i), "%q is not a proposal id (proposals/<16 hex digits>)", truncate(id, 40))
		} else if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// proposals reads the proposals with these ids, NotFound naming those the queue lacks.
func (s *Service) proposals(ctx context.Context, op string, ids []string) (map[string]Proposal, error) {
	got, err := s.Queue.GetProposals(ctx, ids)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, id := range ids {
		if _, ok := got[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		shown := missing[:min(len(missing), 5)]
		more := ""
		if len(missing) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
		}
		return nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "PROPOSAL_NOT_FOUND",
			Message: "no such proposal: " + strings.Join(shown, ", ") + more}
	}
	return got, nil
}

// --- small helpers --------------------------------------------------------------------------------------

// compact returns the names without "" and repeats, sorted.
func compact[N ~string](names []N) []N {
	out := slices.DeleteFunc(slices.Clone(names), func(n N) bool { return n == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// clean replaces control characters (line breaks among them) with spaces and trims.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\ufffd"))
	return strings.Join(strings.Fields(s), " ")
}

// truncate cuts s to at most n bytes, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// firstWords is the first n words of a text, with "…" when there are more.
func firstWords(text string, n int) string {
	words := strings.Fields(clean(text))
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + "…"
}

// cleanAliases drops empty aliases, the display name, repeats and what the format would refuse
// (over-long ones, invisible characters), and keeps at most MaxAliases.
func cleanAliases(display string, aliases []string) []string {
	seen := map[string]bool{display: true}
	var out []string
	for _, a := range aliases {
		a = clean(a)
		if a == "" || seen[a] || len(a) > graph.MaxAlias || graph.NameProblem(a) != "" {
			continue
		}
		seen[a] = true
		out = append(out, a)
		if len(out) == graph.MaxAliases {
			break
		}
	}
	return out
}

func aliasesOut(aliases []string) []graph.AliasOut {
	var out []graph.AliasOut
	for _, a := range aliases {
		out = append(out, graph.AliasOut{Name: a})
	}
	return out
}
