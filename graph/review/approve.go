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

	// The relations the claims could go to, as the graph holds them: of the type, between the ends,
	// whatever their keys (when the store can list an entity's relations), and those the names give.
	var froms []graph.EntityName
	for _, e := range resolved {
		froms = append(froms, e.from)
	}
	var links map[graph.EntityName][]graph.Link
	if ls, ok := s.graph().(graph.LinkSource); ok {
		if links, err = ls.Links(ctx, compact(froms)); err != nil {
			return nil, err
		}
	}
	relNames := make([][]graph.RelationName, len(pending))
	var all []graph.RelationName
	for i, p := range pending {
		e := resolved[i]
		for _, k := range candidateKeys(p) {
			relNames[i] = append(relNames[i], graph.RelationNameFor(e.from, p.Type, e.to, k))
		}
		for _, l := range links[e.from] {
			if l.Type == p.Type && (l.From == e.from && l.To == e.to || p.Type.Symmetric() && l.From == e.to && l.To == e.from) {
				relNames[i] = append(relNames[i], l.Name)
			}
		}
		all = append(all, relNames[i]...)
	}
	existing, err := s.graph().GetRelations(ctx, compact(all))
	if err != nil {
		return nil, err
	}
	for i, p := range pending {
		e := resolved[i]
		mine := graph.Relation{Type: p.Type, From: e.from, To: e.to, Role: p.Role, Date: p.Date, ValidFrom: p.ValidFrom, ValidTo: p.ValidTo}
		target, problem := plan.place(mine, candidateKeys(p), compact(relNames[i]), existing, docs[p.Document].Source.Published)
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

// place finds the relation a claim on mine goes to, among those planned already and those the graph
// holds (existing, by name; names lists the ones between mine's ends), or plans a new one under the first
// of keys whose name is free. Of the relations whose time is compatible with mine's, it takes, for a dated
// claim, one dated at an overlapping time if there is one; else the one without a key; else, for an
// undated claim, the one holding when the document was published, else the one that began last. It
// returns nil and why when no relation can take the claim.
func (p *approvalPlan) place(mine graph.Relation, keys []string, names []graph.RelationName, existing map[graph.RelationName]graph.Relation,
	published graph.FuzzyDate) (*planned, string) {
	base := graph.RelationNameFor(mine.From, mine.Type, mine.To, "")
	var pool []graph.Relation
	seen := map[graph.RelationName]bool{}
	for _, n := range append(append([]graph.RelationName{}, names...), p.plannedBetween(mine)...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		if t, ok := p.byName[n]; ok {
			pool = append(pool, t.rel)
		} else if r, ok := existing[n]; ok && r.Deleted.IsZero() && r.Type == mine.Type {
			pool = append(pool, r)
		}
	}
	var fits []graph.Relation
	for _, r := range pool {
		if compatible(r, mine) {
			fits = append(fits, r)
		}
	}
	pick := func(ok func(graph.Relation) bool) (graph.Relation, bool) {
		var found []graph.Relation
		for _, r := range fits {
			if ok(r) {
				found = append(found, r)
			}
		}
		if len(found) == 0 {
			return graph.Relation{}, false
		}
		for _, r := range found {
			if r.Name == base {
				return r, true
			}
		}
		slices.SortFunc(found, func(a, b graph.Relation) int {
			if c := b.Period().Start - a.Period().Start; c != 0 {
				return c // the one that began last first
			}
			return strings.Compare(string(a.Name), string(b.Name))
		})
		return found[0], true
	}
	var choice graph.Relation
	var ok bool
	if mine.Dated() {
		choice, ok = pick(func(r graph.Relation) bool { return r.Dated() })
	}
	if !ok && !mine.Dated() && !published.IsZero() {
		choice, ok = pick(func(r graph.Relation) bool {
			return r.Name == base || r.Dated() && r.Period().Overlaps(graph.PeriodOf(published))
		})
	}
	if !ok {
		choice, ok = pick(func(graph.Relation) bool { return true })
	}
	if ok {
		return p.use(choice, true)
	}
	for _, k := range keys {
		name := graph.RelationNameFor(mine.From, mine.Type, mine.To, k)
		if _, taken := existing[name]; taken {
			continue
		}
		if _, taken := p.byName[name]; taken {
			continue
		}
		rel := mine
		rel.Name = name
		return p.use(rel, false)
	}
	if r, ok := existing[base]; ok && !r.Deleted.IsZero() {
		return nil, fmt.Sprintf("%s was deleted from the graph (%s), and the proposal has no date to tell another apart", base, r.Deleted.Reason)
	}
	return nil, fmt.Sprintf("the graph's relations of %s %s %s hold at other times, and the proposal's date does not tell a new one apart", mine.From, mine.Type, mine.To)
}

// plannedBetween names the relations planned already of mine's type between its ends.
func (p *approvalPlan) plannedBetween(mine graph.Relation) []graph.RelationName {
	var out []graph.RelationName
	for n, t := range p.byName {
		if t.rel.Type == mine.Type && t.rel.From == mine.From && t.rel.To == mine.To {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// use plans the write of a relation (found in the graph, whose fields then stay as they are, or new),
// once: later claims on it join the same record.
func (p *approvalPlan) use(rel graph.Relation, inGraph bool) (*planned, string) {
	if t, ok := p.byName[rel.Name]; ok {
		return t, ""
	}
	key, err := graph.RelationKey(rel)
	if err != nil {
		return nil, err.Error()
	}
	out := &graph.RelationOut{Record: "relation", Type: string(rel.Type), From: string(rel.From), To: string(rel.To), Key: key,
		Role: rel.Role, Via: string(rel.Via), Term: string(rel.Term), ValidFrom: rel.ValidFrom.String(), ValidTo: rel.ValidTo.String(),
		Date: rel.Date.String()}
	t := &planned{rel: rel, out: out}
	p.byName[rel.Name] = t
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

// candidateKeys are the keys a new relation for a proposal may take, in order: none; then, for a dated
// one, the year of its date (or of its state's start) as the default graph keys parallel relations, and
// the whole date.
func candidateKeys(p Proposal) []string {
	keys := []string{""}
	d := p.Date
	if d.IsZero() {
		d = p.ValidFrom
	}
	if d.IsZero() {
		return keys
	}
	keys = append(keys, fmt.Sprintf("%04d", d.Year))
	if k := graph.Slugify(d.String()); k != keys[1] {
		keys = append(keys, k)
	}
	return keys
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
