package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// The review queue (graph/review) is nodes of types ReviewDocument, ReviewProposal and ReviewEntity, with
// predicates of their own (pq.*, schema.dql) and never a pg.* one: no read of the graph (paths,
// neighbourhoods, searches, counts, exports), which all go by pg.name, pg.kind and the pg.* types, can
// reach them. Each has a key in pq.id (documents/<hash>, proposals/<hex>, or a proposed entity's resource
// name), what lists filter and sort by in indexed predicates, and the rest as JSON in pq.body.

var _ review.Queue = (*Queue)(nil)

type docBody struct {
	Hash     string          `json:"hash"`
	Format   string          `json:"format,omitempty"`
	Path     string          `json:"path,omitempty"`
	Ingested int64           `json:"ingested"` // unix milliseconds
	Source   graph.SourceOut `json:"source"`
}

type proposalBody struct {
	ID         string   `json:"id"`
	Document   string   `json:"document"`
	Type       string   `json:"type"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Role       string   `json:"role,omitempty"`
	Date       string   `json:"date,omitempty"`
	ValidFrom  string   `json:"valid_from,omitempty"`
	ValidTo    string   `json:"valid_to,omitempty"`
	Status     string   `json:"status"`
	Confidence float64  `json:"confidence"`
	Excerpt    string   `json:"excerpt"`
	Start      int      `json:"start"`
	End        int      `json:"end"`
	SaidBy     string   `json:"said_by,omitempty"`
	Rule       string   `json:"rule,omitempty"`
	Resolved   []string `json:"resolved,omitempty"`
	State      string   `json:"state"`
	Reason     string   `json:"reason,omitempty"`
	Relation   string   `json:"relation,omitempty"`
	Reviewer   string   `json:"reviewer,omitempty"`
	Reviewed   int64    `json:"reviewed,omitempty"` // unix milliseconds
}

type entityBody struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	DisplayName string   `json:"display_name"`
	Aliases     []string `json:"aliases,omitempty"`
	Document    string   `json:"document"`
	State       string   `json:"state"`
	MergedInto  string   `json:"merged_into,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Reviewer    string   `json:"reviewer,omitempty"`
	Reviewed    int64    `json:"reviewed,omitempty"`
}

// queueRow is a queue node as read.
type queueRow struct {
	UID  string `json:"uid"`
	ID   string `json:"pq.id"`
	Body string `json:"pq.body"`
	Text string `json:"pq.text"`
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func date(s string) graph.FuzzyDate {
	d, _ := graph.ParseFuzzyDate(s)
	return d
}

func documentBody(d review.Document) docBody {
	return docBody{Hash: d.Hash, Format: d.Format, Path: d.Path, Ingested: millis(d.Ingested), Source: graph.SourceRecord(d.Source)}
}

func (b docBody) document(text string) review.Document {
	s := b.Source
	return review.Document{Hash: b.Hash, Format: b.Format, Path: b.Path, Ingested: fromMillis(b.Ingested), Text: text,
		Source: graph.Source{Name: graph.SourceName(s.Name), Title: s.Title, Kind: graph.SourceKind(s.Kind), Outlet: s.Outlet,
			Author: s.Author, Published: date(s.Published), URL: s.URL, Retrieved: date(s.Retrieved), Licence: s.Licence}}
}

func bodyOfProposal(p review.Proposal) proposalBody {
	return proposalBody{ID: p.ID, Document: p.Document, Type: string(p.Type), From: string(p.From), To: string(p.To), Role: p.Role,
		Date: p.Date.String(), ValidFrom: p.ValidFrom.String(), ValidTo: p.ValidTo.String(), Status: string(p.Status),
		Confidence: p.Confidence, Excerpt: p.Excerpt, Start: p.Span.Start, End: p.Span.End, SaidBy: string(p.SaidBy), Rule: p.Rule,
		Resolved: p.Resolved, State: string(p.State), Reason: p.Reason, Relation: string(p.Relation), Reviewer: p.Reviewer, Reviewed: millis(p.Reviewed)}
}

func (b proposalBody) proposal() review.Proposal {
	return review.Proposal{ID: b.ID, Document: b.Document, Type: graph.RelationType(b.Type), From: graph.EntityName(b.From),
		To: graph.EntityName(b.To), Role: b.Role, Date: date(b.Date), ValidFrom: date(b.ValidFrom), ValidTo: date(b.ValidTo),
		Status: graph.ClaimStatus(b.Status), Confidence: b.Confidence, Excerpt: b.Excerpt, Span: review.Span{Start: b.Start, End: b.End},
		SaidBy: graph.EntityName(b.SaidBy), Rule: b.Rule, Resolved: b.Resolved, State: review.State(b.State), Reason: b.Reason,
		Relation: graph.RelationName(b.Relation), Reviewer: b.Reviewer, Reviewed: fromMillis(b.Reviewed)}
}

func bodyOfEntity(e review.Entity) entityBody {
	return entityBody{Name: string(e.Name), Kind: string(e.Kind), DisplayName: e.DisplayName, Aliases: e.Aliases, Document: e.Document,
		State: string(e.State), MergedInto: string(e.MergedInto), Reason: e.Reason, Reviewer: e.Reviewer, Reviewed: millis(e.Reviewed)}
}

func (b entityBody) entity() review.Entity {
	return review.Entity{Name: graph.EntityName(b.Name), Kind: graph.Kind(b.Kind), DisplayName: b.DisplayName, Aliases: b.Aliases,
		Document: b.Document, State: review.State(b.State), MergedInto: graph.EntityName(b.MergedInto), Reason: b.Reason,
		Reviewer: b.Reviewer, Reviewed: fromMillis(b.Reviewed)}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// newestFirst is a sort key that puts later times first in ascending order.
func newestFirst(t time.Time) string {
	return fmt.Sprintf("%013d", math.MaxInt64/1_000_000-t.UnixMilli())
}

// The nodes' fields, as each kind is written.

func documentNode(uid string, d review.Document) map[string]any {
	return map[string]any{"uid": uid, "dgraph.type": "ReviewDocument", "pq.id": "documents/" + d.Hash,
		"pq.order": newestFirst(d.Ingested) + "." + d.Hash, "pq.body": mustJSON(documentBody(d)), "pq.text": d.Text}
}

func proposalNode(uid string, p review.Proposal, order string) map[string]any {
	n := map[string]any{"uid": uid, "dgraph.type": "ReviewProposal", "pq.id": p.ID, "pq.doc": p.Document, "pq.state": string(p.State),
		"pq.rel_type": string(p.Type), "pq.ends": proposalEnds(p), "pq.body": mustJSON(bodyOfProposal(p))}
	if order != "" {
		n["pq.order"] = order
	}
	return n
}

func proposalEnds(p review.Proposal) []string {
	var out []string
	for _, n := range []graph.EntityName{p.From, p.To, p.SaidBy} {
		if n != "" {
			out = append(out, string(n))
		}
	}
	return out
}

func entityNode(uid string, e review.Entity) map[string]any {
	return map[string]any{"uid": uid, "dgraph.type": "ReviewEntity", "pq.id": string(e.Name), "pq.doc": e.Document,
		"pq.state": string(e.State), "pq.order": string(e.Name), "pq.body": mustJSON(bodyOfEntity(e))}
}

// readQueue reads the queue nodes of a type with these keys, in txn (nil: a read-only one).
func (rq *Queue) readQueue(ctx context.Context, txn *writeTxn, op, typ string, ids []string, fields string) (map[string]queueRow, error) {
	s := rq.s
	out := make(map[string]queueRow, len(ids))
	query := s.dg.NewReadOnlyTxn().QueryWithVars
	if txn != nil {
		query = txn.query
	}
	for _, chunk := range chunks(ids, 500) {
		decl, list, vars := eqClause(chunk)
		q := fmt.Sprintf("query q(%s) {\nq(func: eq(pq.id, [%s])) @filter(type(%s)) { uid pq.id %s }\n}", decl, list, typ, fields)
		resp, err := query(ctx, q, vars)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		var res struct{ Q []queueRow }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
		}
		for _, r := range res.Q {
			out[r.ID] = r
		}
	}
	return out, nil
}

// addQueue stores the nodes whose keys the queue lacks, in one transaction, and returns their keys.
func (rq *Queue) addQueue(ctx context.Context, op, typ string, ids []string, node func(i int, uid string) map[string]any) ([]string, error) {
	s := rq.s
	if len(ids) == 0 {
		return nil, nil
	}
	var added []string
	err := s.keyTxn(ctx, op, func(txn writeTxn) error {
		added = added[:0]
		have, err := rq.readQueue(ctx, &txn, op, typ, ids, "")
		if err != nil {
			return err
		}
		var set []map[string]any
		seen := map[string]bool{}
		for i, id := range ids {
			if _, ok := have[id]; ok || seen[id] {
				continue
			}
			seen[id] = true
			set = append(set, node(i, "_:n"+strconv.Itoa(i)))
			added = append(added, id)
		}
		if len(set) == 0 {
			return nil
		}
		b, err := setQuads(set)
		if err != nil {
			return err
		}
		_, err = txn.Mutate(ctx, &api.Mutation{Set: b, CommitNow: true})
		return err
	})
	return added, err
}

// AddDocument implements review.Queue.
func (rq *Queue) AddDocument(ctx context.Context, d review.Document) (bool, error) {
	added, err := rq.addQueue(ctx, "dgraph.AddDocument", "ReviewDocument", []string{"documents/" + d.Hash}, func(_ int, uid string) map[string]any {
		return documentNode(uid, d)
	})
	return len(added) == 1, err
}

// GetDocuments implements review.Queue.
func (rq *Queue) GetDocuments(ctx context.Context, hashes []string) (map[string]review.Document, error) {
	ids := make([]string, len(hashes))
	for i, h := range hashes {
		ids[i] = "documents/" + h
	}
	rows, err := rq.readQueue(ctx, nil, "dgraph.GetDocuments", "ReviewDocument", ids, "pq.body pq.text")
	if err != nil {
		return nil, err
	}
	out := make(map[string]review.Document, len(rows))
	for _, r := range rows {
		var b docBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, &graph.Error{Op: "dgraph.GetDocuments", Kind: graph.Internal, Message: "a queued document does not decode", Err: err}
		}
		out[b.Hash] = b.document(r.Text)
	}
	return out, nil
}

// FindDocuments implements review.Queue: the exact index on pq.id answers a range of keys.
func (rq *Queue) FindDocuments(ctx context.Context, prefix string, limit int) ([]string, error) {
	s := rq.s
	q := `query q($lo: string, $hi: string, $first: int) {
  q(func: ge(pq.id, $lo), orderasc: pq.id, first: $first) @filter(lt(pq.id, $hi) AND type(ReviewDocument)) { pq.id }
}`
	var res struct{ Q []queueRow }
	lo := "documents/" + prefix
	if err := s.query(ctx, "dgraph.FindDocuments", q, map[string]string{"$lo": lo, "$hi": lo + "\U0010FFFF", "$first": strconv.Itoa(max(limit, 1))}, &res); err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res.Q {
		if h, ok := strings.CutPrefix(r.ID, "documents/"); ok && strings.HasPrefix(h, prefix) {
			out = append(out, h)
		}
	}
	return out, nil
}

// ListDocuments implements review.Queue.
func (rq *Queue) ListDocuments(ctx context.Context, offset, limit int) ([]review.DocumentSummary, int, error) {
	s := rq.s
	const op = "dgraph.ListDocuments"
	q := `query q($first: int, $offset: int) {
  d as var(func: type(ReviewDocument))
  total(func: uid(d)) { count(uid) }
  q(func: uid(d), orderasc: pq.order, first: $first, offset: $offset) { pq.id pq.body }
}`
	var res struct {
		Total []struct {
			Count int `json:"count"`
		}
		Q []queueRow
	}
	if err := s.query(ctx, op, q, map[string]string{"$first": strconv.Itoa(limit), "$offset": strconv.Itoa(offset)}, &res); err != nil {
		return nil, 0, err
	}
	total := 0
	if len(res.Total) > 0 {
		total = res.Total[0].Count
	}
	out := make([]review.DocumentSummary, 0, len(res.Q))
	var hashes []string
	for _, r := range res.Q {
		var b docBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, 0, &graph.Error{Op: op, Kind: graph.Internal, Message: "a queued document does not decode", Err: err}
		}
		out = append(out, review.DocumentSummary{Document: b.document(""), Proposals: map[review.State]int{}})
		hashes = append(hashes, b.Hash)
	}
	if len(hashes) == 0 {
		return out, total, nil
	}
	decl, list, vars := eqClause(hashes)
	cq := fmt.Sprintf("query q(%s) {\nq(func: eq(pq.doc, [%s])) @filter(type(ReviewProposal)) @groupby(pq.doc, pq.state) { count(uid) }\n}", decl, list)
	var counts struct {
		Q []struct {
			Groups []struct {
				Doc   string `json:"pq.doc"`
				State string `json:"pq.state"`
				Count int    `json:"count"`
			} `json:"@groupby"`
		}
	}
	if err := s.query(ctx, op, cq, vars, &counts); err != nil {
		return nil, 0, err
	}
	at := map[string]int{}
	for i, h := range hashes {
		at[h] = i
	}
	for _, q := range counts.Q {
		for _, g := range q.Groups {
			if i, ok := at[g.Doc]; ok {
				out[i].Proposals[review.State(g.State)] += g.Count
			}
		}
	}
	return out, total, nil
}

// AddProposedEntities implements review.Queue.
func (rq *Queue) AddProposedEntities(ctx context.Context, es []review.Entity) ([]graph.EntityName, error) {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = string(e.Name)
	}
	var out []graph.EntityName
	for _, chunk := range chunkIndexes(len(es), 500) {
		added, err := rq.addQueue(ctx, "dgraph.AddProposedEntities", "ReviewEntity", ids[chunk[0]:chunk[1]], func(i int, uid string) map[string]any {
			return entityNode(uid, es[chunk[0]+i])
		})
		if err != nil {
			return out, err
		}
		for _, a := range added {
			out = append(out, graph.EntityName(a))
		}
	}
	return out, nil
}

// chunkIndexes splits [0, n) into ranges of at most size.
func chunkIndexes(n, size int) [][2]int {
	var out [][2]int
	for start := 0; start < n; start += size {
		out = append(out, [2]int{start, min(start+size, n)})
	}
	return out
}

// GetProposedEntities implements review.Queue.
func (rq *Queue) GetProposedEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]review.Entity, error) {
	rows, err := rq.readQueue(ctx, nil, "dgraph.GetProposedEntities", "ReviewEntity", strs(names), "pq.body")
	if err != nil {
		return nil, err
	}
	out := make(map[graph.EntityName]review.Entity, len(rows))
	for _, r := range rows {
		var b entityBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, &graph.Error{Op: "dgraph.GetProposedEntities", Kind: graph.Internal, Message: "a proposed entity does not decode", Err: err}
		}
		out[graph.EntityName(b.Name)] = b.entity()
	}
	return out, nil
}

// listQueue reads a page of the nodes of a type that match every condition (predicate and value, on
// indexed predicates), sorted by pq.order, and how many match.
func (rq *Queue) listQueue(ctx context.Context, op, typ string, conds [][2]string, offset, limit int) ([]queueRow, int, error) {
	s := rq.s
	vars := map[string]string{"$first": strconv.Itoa(limit), "$offset": strconv.Itoa(offset)}
	decls := []string{"$first: int", "$offset: int"}
	root := "type(" + typ + ")"
	filters := []string{"type(" + typ + ")"}
	for i, c := range conds {
		v := "$c" + strconv.Itoa(i)
		decls = append(decls, v+": string")
		vars[v] = c[1]
		// c[0] is one of polgraph's predicate names, never user input.
		clause := "eq(" + c[0] + ", " + v + ")"
		if i == 0 {
			root = clause
		} else {
			filters = append(filters, clause)
		}
	}
	q := `query q(` + strings.Join(decls, ", ") + `) {
  m as var(func: ` + root + `) @filter(` + strings.Join(filters, " AND ") + `)
  total(func: uid(m)) { count(uid) }
  q(func: uid(m), orderasc: pq.order, first: $first, offset: $offset) { pq.id pq.body }
}`
	var res struct {
		Total []struct {
			Count int `json:"count"`
		}
		Q []queueRow
	}
	if err := s.query(ctx, op, q, vars, &res); err != nil {
		return nil, 0, err
	}
	total := 0
	if len(res.Total) > 0 {
		total = res.Total[0].Count
	}
	return res.Q, total, nil
}

// ListProposedEntities implements review.Queue.
func (rq *Queue) ListProposedEntities(ctx context.Context, f review.EntityFilter, offset, limit int) ([]review.Entity, int, error) {
	var conds [][2]string
	if f.Document != "" {
		conds = append(conds, [2]string{"pq.doc", f.Document})
	}
	if f.State != "" {
		conds = append(conds, [2]string{"pq.state", string(f.State)})
	}
	rows, total, err := rq.listQueue(ctx, "dgraph.ListProposedEntities", "ReviewEntity", conds, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]review.Entity, 0, len(rows))
	for _, r := range rows {
		var b entityBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, 0, &graph.Error{Op: "dgraph.ListProposedEntities", Kind: graph.Internal, Message: "a proposed entity does not decode", Err: err}
		}
		out = append(out, b.entity())
	}
	return out, total, nil
}

// UpdateProposedEntities implements review.Queue.
func (rq *Queue) UpdateProposedEntities(ctx context.Context, names []graph.EntityName, update func(*review.Entity) error) ([]review.Entity, error) {
	const op = "dgraph.UpdateProposedEntities"
	var out []review.Entity
	err := rq.updateQueue(ctx, op, "ReviewEntity", strs(names), func(r queueRow) (map[string]any, error) {
		var b entityBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "a proposed entity does not decode", Err: err}
		}
		e := b.entity()
		if err := update(&e); err != nil {
			return nil, err
		}
		out = append(out, e)
		n := entityNode(r.UID, e)
		delete(n, "pq.order") // the key and the order never change
		delete(n, "pq.id")
		return n, nil
	}, func() { out = out[:0] }, "")
	return out, err
}

// updateQueue reads the nodes with these keys, makes each anew with next, and writes them, in one
// transaction retried whole when Dgraph aborts it; reset runs before each attempt. Lists named in
// replaced lose their values first. An unknown key is NotFound.
func (rq *Queue) updateQueue(ctx context.Context, op, typ string, ids []string, next func(queueRow) (map[string]any, error), reset func(), replaced string) error {
	s := rq.s
	if len(ids) == 0 {
		return nil
	}
	return s.keyTxn(ctx, op, func(txn writeTxn) error {
		reset()
		rows, err := rq.readQueue(ctx, &txn, op, typ, ids, "pq.body")
		if err != nil {
			return err
		}
		var set []map[string]any
		var del strings.Builder
		seen := map[string]bool{}
		for _, id := range ids {
			r, ok := rows[id]
			if !ok {
				return &graph.Error{Op: op, Kind: graph.NotFound, Reason: "NOT_IN_QUEUE", Message: "the review queue holds nothing named " + id}
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			n, err := next(r)
			if err != nil {
				return err
			}
			if replaced != "" {
				fmt.Fprintf(&del, "<%s> <%s> * .\n", r.UID, replaced)
			}
			set = append(set, n)
		}
		if del.Len() > 0 {
			if _, err := txn.Mutate(ctx, &api.Mutation{DelNquads: []byte(del.String())}); err != nil {
				return err
			}
		}
		b, err := setQuads(set)
		if err != nil {
			return err
		}
		_, err = txn.Mutate(ctx, &api.Mutation{Set: b, CommitNow: true})
		return err
	})
}

// AddProposals implements review.Queue. The proposals of one call are listed together, in the order of
// their document's text, before those added earlier.
func (rq *Queue) AddProposals(ctx context.Context, ps []review.Proposal) ([]string, error) {
	at := newestFirst(time.Now())
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	var out []string
	for _, chunk := range chunkIndexes(len(ps), 500) {
		added, err := rq.addQueue(ctx, "dgraph.AddProposals", "ReviewProposal", ids[chunk[0]:chunk[1]], func(i int, uid string) map[string]any {
			p := ps[chunk[0]+i]
			return proposalNode(uid, p, fmt.Sprintf("%s.%s.%09d.%s", at, p.Document, max(p.Span.Start, 0), p.ID))
		})
		if err != nil {
			return out, err
		}
		out = append(out, added...)
	}
	return out, nil
}

// GetProposals implements review.Queue.
func (rq *Queue) GetProposals(ctx context.Context, ids []string) (map[string]review.Proposal, error) {
	rows, err := rq.readQueue(ctx, nil, "dgraph.GetProposals", "ReviewProposal", ids, "pq.body")
	if err != nil {
		return nil, err
	}
	out := make(map[string]review.Proposal, len(rows))
	for _, r := range rows {
		var b proposalBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, &graph.Error{Op: "dgraph.GetProposals", Kind: graph.Internal, Message: "a proposal does not decode", Err: err}
		}
		out[b.ID] = b.proposal()
	}
	return out, nil
}

// ListProposals implements review.Queue.
func (rq *Queue) ListProposals(ctx context.Context, f review.ProposalFilter, offset, limit int) ([]review.Proposal, int, error) {
	var conds [][2]string
	for _, c := range [][2]string{{"pq.doc", f.Document}, {"pq.ends", string(f.Entity)}, {"pq.state", string(f.State)}, {"pq.rel_type", string(f.Type)}} {
		if c[1] != "" {
			conds = append(conds, c)
		}
	}
	rows, total, err := rq.listQueue(ctx, "dgraph.ListProposals", "ReviewProposal", conds, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]review.Proposal, 0, len(rows))
	for _, r := range rows {
		var b proposalBody
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			return nil, 0, &graph.Error{Op: "dgraph.ListProposals", Kind: graph.Internal, Message: "a proposal does not decode", Err: err}
		}
		out = append(out, b.proposal())
	}
	return out, total, nil
}

// UpdateProposals implements review.Queue.
func (rq *Queue) UpdateProposals(ctx context.Context, ids []string, update func(*review.Proposal) error) ([]review.Proposal, error) {
	const op = "dgraph.UpdateProposals"
	var out []review.Proposal
	for _, chunk := range chunks(ids, review.MaxDecision) {
		var got []review.Proposal
		err := rq.updateQueue(ctx, op, "ReviewProposal", chunk, func(r queueRow) (map[string]any, error) {
			var b proposalBody
			if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
				return nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "a proposal does not decode", Err: err}
			}
			p := b.proposal()
			if err := update(&p); err != nil {
				return nil, err
			}
			p.ID, p.Document = b.ID, b.Document // a proposal's identity never changes
			got = append(got, p)
			n := proposalNode(r.UID, p, "")
			delete(n, "pq.id")
			return n, nil
		}, func() { got = got[:0] }, "pq.ends")
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// LiveEntities returns every entity the graph holds and has not deleted (nor merged into another), with
// what linking names to them needs: name, kind, display name and aliases. It reads them a page at a time,
// in name order.
func (rq *Queue) LiveEntities(ctx context.Context) ([]graph.Entity, error) {
	s := rq.s
	const page = 5000
	q := `query q($after: string, $first: int) {
  q(func: has(pg.kind), orderasc: pg.name, first: $first) @filter(gt(pg.name, $after) AND NOT has(pg.deleted_at)) {
    uid pg.name pg.kind pg.display_name pg.aliases pg.alias_order
  }
}`
	var out []graph.Entity
	after := ""
	for {
		var res struct{ Q []entityJSON }
		if err := s.query(ctx, "dgraph.LiveEntities", q, map[string]string{"$after": after, "$first": strconv.Itoa(page)}, &res); err != nil {
			return nil, err
		}
		for _, r := range res.Q {
			s.remember(r.Name, r.UID)
			e, err := r.entity()
			if err != nil {
				return nil, fmt.Errorf("dgraph.LiveEntities: %w", err)
			}
			out = append(out, e)
		}
		if len(res.Q) < page {
			return out, nil
		}
		after = res.Q[len(res.Q)-1].Name
	}
}

// Queue is the review queue on Dgraph (review.Queue): documents read, the entities and relations proposed
// from them, and reviewers' decisions, over the store's connection.
type Queue struct{ s *Store }

// Queue returns the review queue kept in this store's Dgraph.
func (s *Store) Queue() *Queue { return &Queue{s} }
