package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/resolve"
	"github.com/polgraph/polgraph/graph/review"
)

// ReviewServer implements polgraph.v1.ReviewService on a review.Service, reading documents with the
// readers a ReaderSource gives. Who decides comes from the request's context (principal).
type ReviewServer struct {
	pb.UnimplementedReviewServiceServer
	svc       *review.Service
	readers   ReaderSource
	principal func(context.Context) (name string, aliases []string)
	log       *slog.Logger
}

// Reader reads one document (ingest.Reader is one).
type Reader interface {
	Read(ingest.Input) (review.Reading, error)
}

// ReaderSource gives the reader that links documents to the graph as it stands.
type ReaderSource func(context.Context) (Reader, error)

// NewReviewServer returns a ReviewServer.
func NewReviewServer(svc *review.Service, readers ReaderSource, principal func(context.Context) (string, []string), log *slog.Logger) *ReviewServer {
	return &ReviewServer{svc: svc, readers: readers, principal: principal, log: log}
}

func (s *ReviewServer) meta(ctx context.Context, method string) graph.WriteMeta {
	name, aliases := s.principal(ctx)
	return graph.WriteMeta{Principal: name, Aliases: aliases, Method: method}
}

// ReaderCache keeps the ingest reader built over the graph's entities while the graph's version stays
// the same (every write that changes a source, an entity or a relation raises it), and at most MaxAge
// whatever the version: building one reads every entity, which a request should not pay for each time.
type ReaderCache struct {
	// Entities lists the graph's live entities; Version is the graph's version.
	Entities func(context.Context) ([]graph.Entity, error)
	Version  func(context.Context) (int64, error)
	// Links, when set, gives the links of the parties and offices, for who held them (ingest.Holdings).
	Links graph.LinkSource
	// MaxAge is how long a reader is kept at most (DefaultReaderAge when 0).
	MaxAge time.Duration

	mu      sync.Mutex
	reader  *ingest.Reader
	version int64
	built   time.Time
}

// DefaultReaderAge is how long a ReaderCache keeps a reader at most.
const DefaultReaderAge = time.Minute

// Reader returns the cached reader, built anew when the graph's version changed or it is too old.
func (c *ReaderCache) Reader(ctx context.Context) (Reader, error) {
	v, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	age := c.MaxAge
	if age == 0 {
		age = DefaultReaderAge
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reader != nil && c.version == v && time.Since(c.built) < age {
		return c.reader, nil
	}
	ents, err := c.Entities(ctx)
	if err != nil {
		return nil, err
	}
	var holdings []ingest.Holding
	if c.Links != nil {
		if holdings, err = ingest.Holdings(ctx, c.Links, ents); err != nil {
			return nil, err
		}
	}
	c.reader, c.version, c.built = ingest.NewGraphReader(ents, holdings), v, time.Now()
	return c.reader, nil
}

// Limits of IngestDocuments.
const (
	MaxIngestDocuments = 100
	MaxIngestBytes     = 3 << 20 // under the 4 MiB a request may hold
)

// IngestDocuments implements pb.ReviewServiceServer.
func (s *ReviewServer) IngestDocuments(ctx context.Context, req *pb.IngestDocumentsRequest) (*pb.IngestDocumentsResponse, error) {
	const m = "IngestDocuments"
	var v graph.Violations
	docs := req.GetDocuments()
	if len(docs) == 0 {
		v.Add("documents", "required: at least one document")
	}
	graph.CheckCount(&v, "documents", len(docs), MaxIngestDocuments)
	size := 0
	var inputs []ingest.Input
	for i, d := range docs {
		field := func(f string) string { return fmt.Sprintf("documents[%d].%s", i, f) }
		size += len(d.GetContent())
		if strings.TrimSpace(d.GetContent()) == "" {
			v.Add(field("content"), "required")
		}
		switch d.GetFormat() {
		case "", "text", "html", "posts":
		default:
			v.Add(field("format"), "%q: want text, html or posts, or nothing to detect it", truncate(d.GetFormat(), 40))
		}
		published, err := graph.ParseFuzzyDate(d.GetPublished())
		if err != nil {
			v.Add(field("published"), "%v", err)
		}
		path := d.GetPath()
		if path == "" {
			path = fmt.Sprintf("documents[%d]", i)
		}
		inputs = append(inputs, ingest.Input{Path: path, Content: []byte(d.GetContent()), Format: d.GetFormat(), Title: d.GetTitle(),
			Outlet: d.GetOutlet(), Author: d.GetAuthor(), URL: d.GetUrl(), Published: published})
	}
	if size > MaxIngestBytes {
		v.Add("documents", "%d bytes of content; at most %d in one request", size, MaxIngestBytes)
	}
	if err := v.Err(m, "invalid documents"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	reader, err := s.readers(ctx)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	// Every document is read before any is queued, so that one that cannot be read queues nothing.
	readings := make([]review.Reading, len(inputs))
	for i, in := range inputs {
		if readings[i], err = reader.Read(in); err != nil {
			var ge *graph.Error
			if errors.As(err, &ge) && ge.Kind == graph.Invalid {
				v.Add(fmt.Sprintf("documents[%d].content", i), "%s", ge.Message)
				continue
			}
			return nil, toStatus(ctx, s.log, m, err)
		}
	}
	if err := v.Err(m, "documents that cannot be read; nothing was queued"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.IngestDocumentsResponse{}
	for _, r := range readings {
		out := &pb.IngestedDocument{Document: reviewDocumentPB(review.DocumentSummary{Document: r.Document}, false)}
		out.Document.Source = sourcePB(review.SourceOf(r.Document))
		if !req.GetDryRun() {
			res, err := s.svc.Submit(ctx, s.meta(ctx, m), r)
			if err != nil {
				return nil, toStatus(ctx, s.log, m, err)
			}
			out.AlreadyRead, out.QueuedProposals, out.QueuedEntities, out.RepeatedProposals = res.AlreadyRead, int32(res.Proposals), int32(res.Entities), int32(res.Repeated)
			// The proposals as the queue holds them: a reading proposed before keeps its state.
			if err := s.queued(ctx, &r); err != nil {
				return nil, toStatus(ctx, s.log, m, err)
			}
		}
		for _, p := range r.Proposals {
			out.Proposals = append(out.Proposals, proposalPB(p))
		}
		for _, e := range r.Entities {
			out.Entities = append(out.Entities, proposedEntityPB(e))
		}
		resp.Documents = append(resp.Documents, out)
	}
	return resp, nil
}

// queued replaces a reading's proposals and entities with what the queue holds of them.
func (s *ReviewServer) queued(ctx context.Context, r *review.Reading) error {
	var ids []string
	var names []graph.EntityName
	for _, p := range r.Proposals {
		ids = append(ids, p.ID)
	}
	for _, e := range r.Entities {
		names = append(names, e.Name)
	}
	ps, err := s.svc.Queue.GetProposals(ctx, ids)
	if err != nil {
		return err
	}
	es, err := s.svc.Queue.GetProposedEntities(ctx, names)
	if err != nil {
		return err
	}
	for i, p := range r.Proposals {
		if q, ok := ps[p.ID]; ok {
			r.Proposals[i] = q
		}
	}
	for i, e := range r.Entities {
		if q, ok := es[e.Name]; ok {
			r.Entities[i] = q
		}
	}
	return nil
}

// ListDocuments implements pb.ReviewServiceServer.
func (s *ReviewServer) ListDocuments(ctx context.Context, req *pb.ListDocumentsRequest) (*pb.ListDocumentsResponse, error) {
	const m = "ListDocuments"
	var v graph.Violations
	fp := fingerprint(req, func(r *pb.ListDocumentsRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	docs, next, total, err := s.svc.ListDocuments(ctx, int(req.GetPageSize()), offset)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListDocumentsResponse{TotalSize: int32(total)}
	for _, d := range docs {
		resp.Documents = append(resp.Documents, reviewDocumentPB(d, false))
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// GetDocument implements pb.ReviewServiceServer.
func (s *ReviewServer) GetDocument(ctx context.Context, req *pb.GetDocumentRequest) (*pb.GetDocumentResponse, error) {
	const m = "GetDocument"
	view, err := s.svc.GetDocument(ctx, req.GetName())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	sum := review.DocumentSummary{Document: view.Document, Proposals: map[review.State]int{}}
	for _, p := range view.Proposals {
		sum.Proposals[p.State]++
	}
	resp := &pb.GetDocumentResponse{Document: reviewDocumentPB(sum, true)}
	for _, p := range view.Proposals {
		resp.Proposals = append(resp.Proposals, proposalPB(p))
	}
	for _, e := range view.Entities {
		resp.Entities = append(resp.Entities, proposedEntityPB(e))
	}
	return resp, nil
}

// ListProposals implements pb.ReviewServiceServer.
func (s *ReviewServer) ListProposals(ctx context.Context, req *pb.ListProposalsRequest) (*pb.ListProposalsResponse, error) {
	const m = "ListProposals"
	var v graph.Violations
	f := review.ProposalFilter{Document: req.GetDocument(), Entity: graph.EntityName(req.GetEntity()), State: stateOf(req.GetState(), "state", &v)}
	if t := req.GetType(); t != pb.RelationType_RELATION_TYPE_UNSPECIFIED {
		rt, ok := relationTypeOf(t)
		if !ok {
			v.Add("type", "%s is not a relation type", t)
		}
		f.Type = rt
	}
	fp := fingerprint(req, func(r *pb.ListProposalsRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	ps, next, total, err := s.svc.ListProposals(ctx, f, int(req.GetPageSize()), offset)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListProposalsResponse{TotalSize: int32(total)}
	for _, p := range ps {
		resp.Proposals = append(resp.Proposals, proposalPB(p))
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// ListProposedEntities implements pb.ReviewServiceServer.
func (s *ReviewServer) ListProposedEntities(ctx context.Context, req *pb.ListProposedEntitiesRequest) (*pb.ListProposedEntitiesResponse, error) {
	const m = "ListProposedEntities"
	var v graph.Violations
	f := review.EntityFilter{Document: req.GetDocument(), State: stateOf(req.GetState(), "state", &v)}
	fp := fingerprint(req, func(r *pb.ListProposedEntitiesRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	es, next, total, err := s.svc.ListProposedEntities(ctx, f, int(req.GetPageSize()), offset)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListProposedEntitiesResponse{TotalSize: int32(total)}
	for _, e := range es {
		resp.Entities = append(resp.Entities, proposedEntityPB(e))
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// ApproveProposals implements pb.ReviewServiceServer.
func (s *ReviewServer) ApproveProposals(ctx context.Context, req *pb.ApproveProposalsRequest) (*pb.ApproveProposalsResponse, error) {
	const m = "ApproveProposals"
	res, err := s.svc.Approve(ctx, s.meta(ctx, m), req.GetNames())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, renamed(err, map[string]string{"ids": "names"}))
	}
	resp := &pb.ApproveProposalsResponse{Unchanged: res.Unchanged, Result: writeResultPB(res.Write)}
	for _, p := range res.Approved {
		resp.Approved = append(resp.Approved, proposalPB(p))
	}
	for _, e := range res.Created {
		resp.CreatedEntities = append(resp.CreatedEntities, string(e))
	}
	return resp, nil
}

// RejectProposals implements pb.ReviewServiceServer.
func (s *ReviewServer) RejectProposals(ctx context.Context, req *pb.RejectProposalsRequest) (*pb.RejectProposalsResponse, error) {
	const m = "RejectProposals"
	res, err := s.svc.Reject(ctx, s.meta(ctx, m), req.GetNames(), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, renamed(err, map[string]string{"ids": "names"}))
	}
	resp := &pb.RejectProposalsResponse{Unchanged: res.Unchanged}
	for _, p := range res.Rejected {
		resp.Rejected = append(resp.Rejected, proposalPB(p))
	}
	return resp, nil
}

// UpdateProposal implements pb.ReviewServiceServer.
func (s *ReviewServer) UpdateProposal(ctx context.Context, req *pb.UpdateProposalRequest) (*pb.UpdateProposalResponse, error) {
	const m = "UpdateProposal"
	var v graph.Violations
	p := req.GetProposal()
	var c review.Changes
	if len(req.GetUpdateMask().GetPaths()) == 0 {
		v.Add("update_mask", "required: the fields to change (type, from, to, status, confidence, role, date, valid_from, valid_to)")
	}
	str := func(s string) *string { return &s }
	for i, path := range req.GetUpdateMask().GetPaths() {
		switch path {
		case "type":
			t, ok := relationTypeOf(p.GetType())
			if !ok {
				v.Add("proposal.type", "%s is not a relation type", p.GetType())
			}
			c.Type = &t
		case "from", "to":
			n := graph.EntityName(strings.TrimSpace(map[string]string{"from": p.GetFrom(), "to": p.GetTo()}[path]))
			if path == "from" {
				c.From = &n
			} else {
				c.To = &n
			}
		case "status":
			st, ok := statusOf(p.GetStatus())
			if !ok {
				v.Add("proposal.status", "%s is not a claim status", p.GetStatus())
			}
			c.Status = &st
		case "confidence":
			x := p.GetConfidence()
			c.Confidence = &x
		case "role":
			c.Role = str(p.GetRole())
		case "date":
			c.Date = str(p.GetDate())
		case "valid_from":
			c.ValidFrom = str(p.GetValidFrom())
		case "valid_to":
			c.ValidTo = str(p.GetValidTo())
		default:
			v.Add(fmt.Sprintf("update_mask.paths[%d]", i), "%q cannot be changed: name type, from, to, status, confidence, role, date, valid_from or valid_to", truncate(path, 40))
		}
	}
	if err := v.Err(m, "invalid edit"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	out, err := s.svc.Edit(ctx, s.meta(ctx, m), p.GetName(), c)
	if err != nil {
		fields := map[string]string{"id": "proposal.name"}
		for _, f := range []string{"type", "from", "to", "status", "confidence", "role", "date", "valid_from", "valid_to", "excerpt"} {
			fields[f] = "proposal." + f
		}
		return nil, toStatus(ctx, s.log, m, renamed(err, fields))
	}
	return &pb.UpdateProposalResponse{Proposal: proposalPB(out)}, nil
}

// MergeProposedEntity implements pb.ReviewServiceServer.
func (s *ReviewServer) MergeProposedEntity(ctx context.Context, req *pb.MergeProposedEntityRequest) (*pb.MergeProposedEntityResponse, error) {
	const m = "MergeProposedEntity"
	res, err := s.svc.MergeEntity(ctx, s.meta(ctx, m), graph.EntityName(req.GetName()), graph.EntityName(req.GetInto()))
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.MergeProposedEntityResponse{Entity: proposedEntityPB(res.Entity)}
	for _, p := range res.Repointed {
		resp.Repointed = append(resp.Repointed, proposalPB(p))
	}
	for _, p := range res.Rejected {
		resp.Rejected = append(resp.Rejected, proposalPB(p))
	}
	return resp, nil
}

// RejectProposedEntity implements pb.ReviewServiceServer.
func (s *ReviewServer) RejectProposedEntity(ctx context.Context, req *pb.RejectProposedEntityRequest) (*pb.RejectProposedEntityResponse, error) {
	const m = "RejectProposedEntity"
	res, err := s.svc.RejectEntity(ctx, s.meta(ctx, m), graph.EntityName(req.GetName()), req.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.RejectProposedEntityResponse{Entity: proposedEntityPB(res.Entity)}
	for _, p := range res.Rejected {
		resp.Rejected = append(resp.Rejected, proposalPB(p))
	}
	return resp, nil
}

// renamed returns err with its violations' fields named as the request names them: a field f, or f[i]
// or f.more, becomes fields[f] in its place.
func renamed(err error, fields map[string]string) error {
	var ge *graph.Error
	if !errors.As(err, &ge) || len(ge.Violations) == 0 {
		return err
	}
	out := *ge
	out.Violations = make([]graph.FieldViolation, len(ge.Violations))
	for i, fv := range ge.Violations {
		head, rest := fv.Field, ""
		if j := strings.IndexAny(head, "[."); j >= 0 {
			head, rest = head[:j], head[j:]
		}
		if to, ok := fields[head]; ok {
			fv.Field = to + rest
		}
		out.Violations[i] = fv
	}
	return &out
}

// truncate cuts user text quoted back in a message to at most n bytes, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// --- conversion -----------------------------------------------------------------------------------------

func statePB(s review.State) pb.ReviewState {
	return pb.ReviewState(pb.ReviewState_value["REVIEW_STATE_"+string(s)])
}

// stateOf is a requested state ("" for UNSPECIFIED: any), recording one that is not a state.
func stateOf(s pb.ReviewState, field string, v *graph.Violations) review.State {
	if s == pb.ReviewState_REVIEW_STATE_UNSPECIFIED {
		return ""
	}
	name, ok := pb.ReviewState_name[int32(s)]
	if !ok {
		v.Add(field, "%d is not a review state", s)
		return ""
	}
	return review.State(strings.TrimPrefix(name, "REVIEW_STATE_"))
}

func timestampPB(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func reviewDocumentPB(d review.DocumentSummary, withText bool) *pb.ReviewDocument {
	doc := d.Document
	out := &pb.ReviewDocument{Name: "documents/" + doc.Hash, Hash: doc.Hash, Source: sourcePB(doc.Source), Format: doc.Format,
		Path: doc.Path, Ingested: timestampPB(doc.Ingested), Pending: int32(d.Proposals[review.Pending]),
		Approved: int32(d.Proposals[review.Approved]), Rejected: int32(d.Proposals[review.Rejected])}
	if withText {
		out.Text = doc.Text
	}
	return out
}

func proposalPB(p review.Proposal) *pb.Proposal {
	return &pb.Proposal{Name: p.ID, Document: p.Document, Type: relationTypePB(p.Type), From: string(p.From), To: string(p.To),
		Role: p.Role, Date: p.Date.String(), ValidFrom: p.ValidFrom.String(), ValidTo: p.ValidTo.String(), Status: statusPB(p.Status),
		Confidence: p.Confidence, Excerpt: p.Excerpt, SpanStart: int32(p.Span.Start), SpanEnd: int32(p.Span.End), SaidBy: string(p.SaidBy),
		Rule: p.Rule, Resolved: p.Resolved, State: statePB(p.State), Reason: p.Reason, Relation: string(p.Relation), Reviewer: p.Reviewer,
		Reviewed: timestampPB(p.Reviewed)}
}

func proposedEntityPB(e review.Entity) *pb.ProposedEntity {
	return &pb.ProposedEntity{Name: string(e.Name), Kind: kindPB(e.Kind), DisplayName: e.DisplayName, Aliases: e.Aliases,
		Document: e.Document, State: statePB(e.State), MergedInto: string(e.MergedInto), Reason: e.Reason, Reviewer: e.Reviewer,
		Reviewed: timestampPB(e.Reviewed)}
}

// ListMatchCandidates implements pb.ReviewServiceServer.
func (s *ReviewServer) ListMatchCandidates(ctx context.Context, req *pb.ListMatchCandidatesRequest) (*pb.ListMatchCandidatesResponse, error) {
	const m = "ListMatchCandidates"
	var v graph.Violations
	q := review.MatchQuery{Entity: graph.EntityName(req.GetEntity()), Judged: req.GetJudged()}
	if k := req.GetKind(); k != pb.EntityKind_ENTITY_KIND_UNSPECIFIED {
		kind, ok := kindOf(k)
		if !ok {
			v.Add("kind", "%d is not an entity kind", k)
		}
		q.Kind = kind
	}
	fp := fingerprint(req, func(r *pb.ListMatchCandidatesRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	cs, next, total, err := s.svc.ListMatchCandidates(ctx, q, int(req.GetPageSize()), offset)
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListMatchCandidatesResponse{TotalSize: int32(total)}
	for _, c := range cs {
		mc := &pb.MatchCandidate{A: entityPB(c.A), B: entityPB(c.B), Score: c.Score.Total,
			Decision: matchDecisionPB(c.Score.Decision), Explanation: c.Score.String()}
		for _, f := range c.Score.Features {
			mc.Features = append(mc.Features, &pb.MatchFeature{Name: f.Name, Weight: f.Weight, Detail: f.Why})
		}
		if j := c.Judgement; j != nil {
			mc.Judgement = &pb.MatchJudgement{Reason: j.Reason, By: j.By, Time: timestampPB(j.At)}
		}
		resp.Candidates = append(resp.Candidates, mc)
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

func matchDecisionPB(d resolve.Decision) pb.MatchDecision {
	switch d {
	case resolve.Merge:
		return pb.MatchDecision_MATCH_DECISION_MERGE
	case resolve.Propose:
		return pb.MatchDecision_MATCH_DECISION_PROPOSE
	}
	return pb.MatchDecision_MATCH_DECISION_UNSPECIFIED
}
