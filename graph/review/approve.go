package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/intake"
)

// ApproveResult says what an approval did.
type ApproveResult struct {
	// Approved are the proposals approved now, each with the relation its claim was written to.
	Approved []Proposal
	// Unchanged are the ids of proposals approved before: nothing was written for them.
	Unchanged []string
	// Created are the proposed entities the approval created in the graph.
	Created []graph.EntityName
	// Write is what the writes changed in the graph.
	Write graph.WriteResult
}

// Approve makes proposals ordinary claims: for each, the relation (of its type, between its ends, with
// its role and dates) with one claim citing its document's source (excerpt, confidence, status, said_by),
// the source, and each proposed entity it names that the graph lacks (kind, display name, aliases). They
// are written through Intake as three batches of upserts (sources, entities, relations; more when there
// are more records than a batch holds), all idempotent; only once the writes succeed are the proposals
// marked APPROVED, with the relation. A proposal naming a proposed entity that was merged into an
// existing one is written to that entity.
//
// The claim goes to the relation the graph holds under the name the type and ends give it, whose role
// and dates stay as they are, unless both are dated and their times do not overlap (another event, or
// another term): then to the relation keyed by the proposal's date (relations/a.criticised.b.2005-03),
// as the default graph keys parallel relations. Each claim is keyed by its proposal's id, so that two
// proposals from one document are two claims.
//
// Everything is checked before anything is written: NotFound for an unknown id; FailedPrecondition,
// naming each id, for a rejected proposal, one naming a rejected entity or an entity the graph no longer
// holds, or one whose relation was deleted; Invalid for records the dataset check refuses. Proposals
// approved before are left as they are (Unchanged).
func (s *Service) Approve(ctx context.Context, meta graph.WriteMeta, ids []string) (ApproveResult, error) {
	const op = "ApproveProposals"
	var v graph.Violations
	ids = checkIDs(&v, ids)
	if err := v.Err(op, "invalid approval"); err != nil {
		return ApproveResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	got, err := s.proposals(ctx, op, ids)
	if err != nil {
		return ApproveResult{}, err
	}
	var res ApproveResult
	var pending []Proposal
	field := map[string]string{}
	for i, id := range ids {
		p := got[id]
		field[id] = fmt.Sprintf("ids[%d]", i)
		switch p.State {
		case Approved:
			res.Unchanged = append(res.Unchanged, id)
		case Rejected:
			v.Add(field[id], "%s was rejected (%s); a rejected proposal is not approved", id, p.Reason)
		default:
			pending = append(pending, p)
		}
	}
	if len(v) > 0 {
		return res, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_REJECTED",
			Message: "some proposals cannot be approved; nothing was written", Violations: v}
	}
	if len(pending) == 0 {
		return res, nil
	}
	plan, err := s.plan(ctx, pending, field)
	if err != nil {
		return res, err
	}
	if err := s.check(ctx, op, plan, field); err != nil {
		return res, err
	}
	// Sources, then entities, then relations, each in batches.
	meta.Method = op
	for _, b := range []struct {
		field string
		lines []string
	}{{"sources", plan.sources}, {"entities", plan.entities}, {"relations", plan.relationLines()}} {
		for start := 0; start < len(b.lines); start += intake.MaxBatch {
			w, err := s.Intake.Upsert(ctx, meta, intake.Batch{Field: b.field, Lines: b.lines[start:min(start+intake.MaxBatch, len(b.lines))]})
			if err != nil {
				return res, err
			}
			res.Write.Add(w)
		}
	}
	now := s.now()
	approved, err := s.Queue.UpdateProposals(ctx, plan.ids(), func(p *Proposal) error {
		// Approval wins over a decision made meanwhile: the claim is in the graph now.
		p.State, p.Reason, p.Relation, p.Reviewer, p.Reviewed = Approved, "", plan.target[p.ID], meta.Principal, now
		return nil
	})
	if err != nil {
		return res, err
	}
	res.Approved = approved
	if len(plan.created) > 0 {
		_, err := s.Queue.UpdateProposedEntities(ctx, plan.created, func(e *Entity) error {
			if e.State == Pending {
				e.State, e.Reviewer, e.Reviewed = Approved, meta.Principal, now
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		res.Created = plan.created
	}
	return res, nil
}

// approvalPlan is what an approval writes: dataset lines of sources and entities, and relation records
// with the claims they gain, and for each proposal the relation its claim goes to.
type approvalPlan struct {
	sources, entities []string
	relations         []*graph.RelationOut
	byName            map[graph.RelationName]*planned
	target            map[string]graph.RelationName // proposal id → relation
	proposalsOf       map[graph.RelationName][]string
	created           []graph.EntityName // proposed entities written
}

type planned struct {
	rel graph.Relation // its fields, for the proposals after it
	out *graph.RelationOut
}

func (p *approvalPlan) relationLines() []string {
	out := make([]string, len(p.relations))
	for i, r := range p.relations {
		out[i] = graph.RecordJSON(r)
	}
	return out
}

func (p *approvalPlan) ids() []string {
	out := make([]string, 0, len(p.target))
	for id := range p.target {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// plan works out what approving the pending proposals writes, and refuses (FailedPrecondition, naming
// each id by field) what cannot be approved.
func (s *Service) plan(ctx context.Context, pending []Proposal, field map[string]string) (*approvalPlan, error) {
	const op = "ApproveProposals"
	var v graph.Violations
	// Where each name resolves: a proposed entity merged into an existing one is that one, and an entity
	// the graph merged into another is the other.
	var names []graph.EntityName
	var hashes []string
	for _, p := range pending {
		names = append(names, p.From, p.To, p.SaidBy)
		hashes = append(hashes, p.Document)
	}
	queued, err := s.Queue.GetProposedEntities(ctx, compact(names))
	if err != nil {
		return nil, err
	}
	resolve := map[graph.EntityName]graph.EntityName{}
	rejected := map[graph.EntityName]bool{}
	var after []graph.EntityName
	for _, n := range compact(names) {
		r := n
		if e, ok := queued[n]; ok {
			switch e.State {
			case Merged:
				r = e.MergedInto
			case Rejected:
				rejected[n] = true
			}
		}
		resolve[n] = r
		after = append(after, r)
	}
	merged, err := s.graph().MergedInto(ctx, compact(after))
	if err != nil {
		return nil, err
	}
	for n, r := range resolve {
		if m, ok := merged[r]; ok {
			resolve[n] = m
		}
	}
	var final []graph.EntityName
	for _, r := range resolve {
		final = append(final, r)
	}
	docs, err := s.Queue.GetDocuments(ctx, compact(hashes))
	if err != nil {
		return nil, err
	}
	var srcNames []graph.SourceName
	for _, d := range docs {
		srcNames = append(srcNames, SourceNameFor(d.Hash))
	}
	inGraph, srcKnown, err := s.graph().Known(ctx, compact(final), srcNames)
	if err != nil {
		return nil, err
	}
	// Proposed entities written by the approval: those named that the graph lacks.
	ents, err := s.Queue.GetProposedEntities(ctx, compact(final))
	if err != nil {
		return nil, err
	}
	plan := &approvalPlan{byName: map[graph.RelationName]*planned{}, target: map[string]graph.RelationName{},
		proposalsOf: map[graph.RelationName][]string{}}
	writing := map[graph.EntityName]bool{}
	usable := func(n graph.EntityName) bool {
		if inGraph[n] != "" {
			return true
		}
		e, ok := ents[n]
		return ok && (e.State == Pending || e.State == Approved)
	}
	type ends struct{ from, to, saidBy graph.EntityName }
	resolved := make([]ends, len(pending))
	for i, p := range pending {
		e := ends{resolve[p.From], resolve[p.To], resolve[p.SaidBy]}
		for _, end := range []struct {
			name, as graph.EntityName
			role     string
		}{{p.From, e.from, "from"}, {p.To, e.to, "to"}} {
			switch {
			case rejected[end.name]:
				v.Add(field[p.ID], "%s: its %s, %s, was rejected; edit the proposal or reject it", p.ID, end.role, end.name)
			case !usable(end.as):
				v.Add(field[p.ID], "%s: its %s, %s, is neither in the graph nor proposed (was it deleted?)", p.ID, end.role, end.as)
			}
		}
		if rejected[p.SaidBy] || e.saidBy != "" && !usable(e.saidBy) {
			e.saidBy = "" // who said it is not known any more: the claim is the source's
		}
		if e.from == e.to && !rejected[p.From] && !rejected[p.To] {
			v.Add(field[p.ID], "%s: both ends are %s now (merged); reject it", p.ID, e.from)
		}
		if p.Type.Symmetric() && e.from > e.to {
			e.from, e.to = e.to, e.from
		}
		resolved[i] = e
		for _, n := range []graph.EntityName{e.from, e.to, e.saidBy} {
			if n != "" && inGraph[n] == "" && !writing[n] {
				if q, ok := ents[n]; ok && (q.State == Pending || q.State == Approved) {
					writing[n] = true
					plan.created = append(plan.created, n)
					plan.entities = append(plan.entities, graph.RecordJSON(graph.EntityOut{Record: "entity", Name: string(q.Name),
						DisplayName: q.DisplayName, Aliases: aliasesOut(q.Aliases)}))
				}
			}
		}
	}
	if len(v) > 0 {
		return nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_CANNOT_BE_APPROVED",
			Message: "some proposals cannot be approved; nothing was written", Violations: v}
	}
	for _, h := range compact(hashes) {
		if d, ok := docs[h]; ok && !srcKnown[SourceNameFor(h)] {
			plan.sources = append(plan.sources, graph.RecordJSON(graph.SourceRecord(SourceOf(d))))
		}
	}

	// The relations the claims could go to, as the graph holds them.
	var candidates []graph.RelationName
	for i, p := range pending {
		base := graph.RelationNameFor(resolved[i].from, p.Type, resolved[i].to, "")
		candidates = append(candidates, base)
		if k := dateKey(p); k != "" {
			candidates = append(candidates, base+graph.RelationName("."+k))
		}
	}
	existing, err := s.graph().GetRelations(ctx, compact(candidates))
	if err != nil {
		return nil, err
	}
	for i, p := range pending {
		e := resolved[i]
		mine := graph.Relation{Type: p.Type, From: e.from, To: e.to, Role: p.Role, Date: p.Date, ValidFrom: p.ValidFrom, ValidTo: p.ValidTo}
		target, problem := plan.place(graph.RelationNameFor(e.from, p.Type, e.to, ""), "", mine, existing)
		if k := dateKey(p); target == nil && k != "" {
			target, problem = plan.place(graph.RelationNameFor(e.from, p.Type, e.to, k), k, mine, existing)
		}
		if target == nil {
			v.Add(field[p.ID], "%s: %s", p.ID, problem)
			continue
		}
		c := graph.ClaimOut{Source: string(SourceNameFor(p.Document)), Excerpt: p.Excerpt, Confidence: p.Confidence,
			Status: string(p.Status), SaidBy: string(e.saidBy), Key: strings.TrimPrefix(p.ID, "proposals/")}
		target.out.Claims = append(target.out.Claims, c)
		name := target.rel.Name
		plan.target[p.ID] = name
		plan.proposalsOf[name] = append(plan.proposalsOf[name], p.ID)
	}
	if len(v) > 0 {
		return nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_CANNOT_BE_APPROVED",
			Message: "some proposals cannot be approved; nothing was written", Violations: v}
	}
	return plan, nil
}

// place finds or makes the relation named name (with key) for a claim on mine: the one planned already,
// or the graph's, when its time is compatible with mine; a new one with mine's fields when there is none.
// It returns nil and why when the relation there cannot take the claim.
func (p *approvalPlan) place(name graph.RelationName, key string, mine graph.Relation, existing map[graph.RelationName]graph.Relation) (*planned, string) {
	if t, ok := p.byName[name]; ok {
		if compatible(t.rel, mine) {
			return t, ""
		}
		return nil, fmt.Sprintf("%s holds at another time", name)
	}
	rel, ok := existing[name]
	switch {
	case ok && !rel.Deleted.IsZero():
		return nil, fmt.Sprintf("%s was deleted from the graph (%s)", name, rel.Deleted.Reason)
	case ok && !compatible(rel, mine):
		return nil, fmt.Sprintf("%s holds at another time, and the proposal has no date to tell its own apart", name)
	case !ok:
		rel = mine
		rel.Name = name
	}
	out := &graph.RelationOut{Record: "relation", Type: string(rel.Type), From: string(rel.From), To: string(rel.To), Key: key,
		Role: rel.Role, Via: string(rel.Via), Term: string(rel.Term), ValidFrom: rel.ValidFrom.String(), ValidTo: rel.ValidTo.String(),
		Date: rel.Date.String()}
	if ok {
		// The graph's relation keeps its fields (its key is in its name).
		k, err := graph.RelationKey(rel)
		if err != nil {
			return nil, err.Error()
		}
		out.Key = k
	}
	t := &planned{rel: rel, out: out}
	p.byName[name] = t
	p.relations = append(p.relations, out)
	return t, ""
}

// compatible reports whether a claim on mine may go to rel: unless both are dated, and at times that do
// not overlap.
func compatible(rel, mine graph.Relation) bool {
	if !rel.Dated() || !mine.Dated() {
		return true
	}
	return rel.Period().Overlaps(mine.Period())
}

// dateKey is the key of a relation told apart by a proposal's date: its event's date, else the start of
// its state ("" when it has neither).
func dateKey(p Proposal) string {
	switch {
	case !p.Date.IsZero():
		return graph.Slugify(p.Date.String())
	case !p.ValidFrom.IsZero():
		return graph.Slugify(p.ValidFrom.String())
	case !p.ValidTo.IsZero():
		return "to-" + graph.Slugify(p.ValidTo.String())
	}
	return ""
}

// check reads everything an approval would write as one dataset, against what the graph holds, so that
// every problem is reported, by proposal, before anything is written.
func (s *Service) check(ctx context.Context, op string, plan *approvalPlan, field map[string]string) error {
	var b strings.Builder
	b.WriteString(`{"record":"dataset","format":"polgraph/v2","name":"approval"}` + "\n")
	line := 2
	what := map[int][]string{} // line → the proposals it is for ("" for a source or entity)
	for _, l := range plan.sources {
		b.WriteString(l + "\n")
		line++
	}
	for _, l := range plan.entities {
		b.WriteString(l + "\n")
		line++
	}
	for _, r := range plan.relations {
		b.WriteString(graph.RecordJSON(r) + "\n")
		what[line] = plan.proposalsOf[graph.RelationNameFor(graph.EntityName(r.From), graph.RelationType(r.Type), graph.EntityName(r.To), r.Key)]
		line++
	}
	known := func(ents []graph.EntityName, srcs []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error) {
		return s.graph().Known(ctx, ents, srcs)
	}
	_, err := dataset.ReadWith([]dataset.File{{Name: "approval", R: strings.NewReader(b.String())}}, known)
	if err == nil {
		return nil
	}
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
		return err
	}
	out := &graph.Error{Op: op, Kind: graph.Invalid, Reason: "INVALID_ARGUMENT", Message: "the approved claims would not be valid records; nothing was written"}
	for _, fv := range ge.Violations {
		var n int
		var rest string
		if _, err := fmt.Sscanf(fv.Field, "approval:%d:", &n); err == nil {
			if _, after, ok := strings.Cut(fv.Field, ": "); ok {
				rest = after + ": "
			}
		}
		ids := what[n]
		if len(ids) == 0 {
			out.Violations = append(out.Violations, graph.FieldViolation{Field: "ids", Description: rest + fv.Description})
			continue
		}
		for _, id := range ids {
			out.Violations = append(out.Violations, graph.FieldViolation{Field: field[id], Description: id + ": " + rest + fv.Description})
		}
	}
	return out
}
