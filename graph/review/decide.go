package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// RejectResult says what a rejection did.
type RejectResult struct {
	Rejected  []Proposal
	Unchanged []string // rejected before
}

// Reject rejects proposals, keeping them with the reason (required) and the reviewer, so that the same
// reading is never proposed again. Proposals rejected before are left as they are. NotFound for an unknown
// id; FailedPrecondition for an approved proposal (its claim is in the graph: retract it there).
func (s *Service) Reject(ctx context.Context, meta graph.WriteMeta, ids []string, reason string) (RejectResult, error) {
	const op = "RejectProposals"
	var v graph.Violations
	ids = checkIDs(&v, ids)
	checkReason(&v, reason)
	if err := v.Err(op, "invalid rejection"); err != nil {
		return RejectResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	got, err := s.proposals(ctx, op, ids)
	if err != nil {
		return RejectResult{}, err
	}
	var res RejectResult
	var todo []string
	for i, id := range ids {
		switch got[id].State {
		case Approved:
			v.Add(fmt.Sprintf("ids[%d]", i), "%s was approved: its claim is in the graph (%s); retract the claim instead", id, got[id].Relation)
		case Rejected:
			res.Unchanged = append(res.Unchanged, id)
		default:
			todo = append(todo, id)
		}
	}
	if len(v) > 0 {
		return RejectResult{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_APPROVED",
			Message: "some proposals cannot be rejected; nothing was changed", Violations: v}
	}
	if len(todo) == 0 {
		return res, nil
	}
	now := s.now()
	res.Rejected, err = s.Queue.UpdateProposals(ctx, todo, func(p *Proposal) error {
		if p.State == Approved {
			return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_APPROVED", Message: p.ID + " was approved meanwhile"}
		}
		p.State, p.Reason, p.Reviewer, p.Reviewed = Rejected, reason, meta.Principal, now
		return nil
	})
	return res, err
}

// Changes are what an edit changes of a proposal; nil fields stay as they are. Dates are fuzzy dates as
// text ("" clears one).
type Changes struct {
	Type                     *graph.RelationType
	From, To                 *graph.EntityName
	Status                   *graph.ClaimStatus
	Confidence               *float64
	Role                     *string
	Date, ValidFrom, ValidTo *string
}

// Edit changes a pending proposal before it is decided: its type, ends, claim status, confidence, role
// and dates. The result is checked as a submission is: a type of the vocabulary that joins the ends'
// kinds, ends in the graph or in the queue (a proposed entity merged into an existing one is that one).
// Invalid with a violation per field at fault; NotFound for an unknown id; FailedPrecondition for a
// proposal already approved or rejected.
func (s *Service) Edit(ctx context.Context, meta graph.WriteMeta, id string, c Changes) (Proposal, error) {
	const op = "UpdateProposal"
	var v graph.Violations
	if !ValidProposalID(id) {
		v.Add("id", "%q is not a proposal id (proposals/<16 hex digits>)", truncate(id, 40))
	}
	if c == (Changes{}) {
		v.Add("update_mask", "names nothing to change")
	}
	dates := map[string]graph.FuzzyDate{}
	for _, d := range []struct {
		field string
		text  *string
	}{{"date", c.Date}, {"valid_from", c.ValidFrom}, {"valid_to", c.ValidTo}} {
		if d.text == nil {
			continue
		}
		fd, err := graph.ParseFuzzyDate(strings.TrimSpace(*d.text))
		if err != nil {
			v.Add(d.field, "%v", err)
		}
		dates[d.field] = fd
	}
	if err := v.Err(op, "invalid edit"); err != nil {
		return Proposal{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	got, err := s.proposals(ctx, op, []string{id})
	if err != nil {
		return Proposal{}, err
	}
	var ends []graph.EntityName
	for _, n := range []*graph.EntityName{c.From, c.To} {
		if n != nil {
			ends = append(ends, *n)
		}
	}
	queued, err := s.Queue.GetProposedEntities(ctx, compact(ends))
	if err != nil {
		return Proposal{}, err
	}
	apply := func(p *Proposal) error {
		if p.State != Pending {
			return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSAL_DECIDED",
				Message: fmt.Sprintf("%s is %s: only a pending proposal is edited", p.ID, strings.ToLower(string(p.State)))}
		}
		if c.Type != nil {
			p.Type = *c.Type
		}
		for _, e := range []struct {
			to *graph.EntityName
			by *graph.EntityName
		}{{&p.From, c.From}, {&p.To, c.To}} {
			if e.by != nil {
				*e.to = *e.by
				if q, ok := queued[*e.by]; ok && q.State == Merged {
					*e.to = q.MergedInto
				}
			}
		}
		if c.Status != nil {
			p.Status = *c.Status
		}
		if c.Confidence != nil {
			p.Confidence = *c.Confidence
		}
		if c.Role != nil {
			p.Role = strings.TrimSpace(*c.Role)
		}
		if d, ok := dates["date"]; ok {
			p.Date = d
		}
		if d, ok := dates["valid_from"]; ok {
			p.ValidFrom = d
		}
		if d, ok := dates["valid_to"]; ok {
			p.ValidTo = d
		}
		return nil
	}
	p := got[id]
	if err := apply(&p); err != nil {
		return Proposal{}, err
	}
	checkProposal(&v, "", p)
	if len(v) == 0 {
		inGraph, _, err := s.graph().Known(ctx, []graph.EntityName{p.From, p.To}, nil)
		if err != nil {
			return Proposal{}, err
		}
		more, err := s.Queue.GetProposedEntities(ctx, []graph.EntityName{p.From, p.To})
		if err != nil {
			return Proposal{}, err
		}
		for _, end := range []struct {
			field string
			name  graph.EntityName
		}{{"from", p.From}, {"to", p.To}} {
			q, proposed := more[end.name]
			switch {
			case proposed && q.State == Rejected:
				v.Add(end.field, "%s is a proposed entity a reviewer rejected", end.name)
			case !proposed && inGraph[end.name] == "":
				v.Add(end.field, "%s is neither in the graph nor proposed", end.name)
			}
		}
	}
	if err := v.Err(op, "invalid edit"); err != nil {
		return Proposal{}, err
	}
	out, err := s.Queue.UpdateProposals(ctx, []string{id}, apply)
	if err != nil {
		return Proposal{}, err
	}
	return out[0], nil
}

// MergeResult says what merging a proposed entity did.
type MergeResult struct {
	Entity Entity
	// Repointed are the pending proposals that named it, which now name the existing entity; those that
	// would then join the entity to itself are rejected instead (Rejected).
	Repointed, Rejected []Proposal
}

// MergeEntity says that a proposed entity is an existing one (into: a resource name of the graph; an
// entity merged into another stands for the other): it is marked MERGED, every pending proposal that names
// it names into instead, and later submissions and approvals that name it are written to into. Invalid for
// a bad name or entities of two kinds; NotFound for an unknown proposed entity or an into the graph does
// not hold; FailedPrecondition for a proposed entity already decided (merged elsewhere, rejected, or
// created by an approval: merge it in the graph instead).
func (s *Service) MergeEntity(ctx context.Context, meta graph.WriteMeta, proposed graph.EntityName, into graph.EntityName) (MergeResult, error) {
	const op = "MergeProposedEntity"
	var v graph.Violations
	pk, err := graph.ParseEntityName(string(proposed))
	if err != nil {
		v.Add("name", "%v", err)
	}
	ik, err := graph.ParseEntityName(string(into))
	if err != nil {
		v.Add("into", "%v", err)
	}
	if proposed == into && proposed != "" {
		v.Add("into", "is the proposed entity itself")
	}
	if pk != "" && ik != "" && pk != ik {
		v.Add("into", "%s is a %s and %s a %s: only entities of one kind are merged", into, strings.ToLower(string(ik)), proposed, strings.ToLower(string(pk)))
	}
	if err := v.Err(op, "invalid merge"); err != nil {
		return MergeResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	ents, err := s.Queue.GetProposedEntities(ctx, []graph.EntityName{proposed})
	if err != nil {
		return MergeResult{}, err
	}
	e, ok := ents[proposed]
	if !ok {
		return MergeResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "PROPOSED_ENTITY_NOT_FOUND", Message: "no proposed entity is named " + string(proposed)}
	}
	if e.State == Rejected || e.State == Approved {
		return MergeResult{}, decided(op, e)
	}
	if m, err := s.graph().MergedInto(ctx, []graph.EntityName{into}); err != nil {
		return MergeResult{}, err
	} else if to, ok := m[into]; ok {
		into = to
	}
	kinds, _, err := s.graph().Known(ctx, []graph.EntityName{into}, nil)
	if err != nil {
		return MergeResult{}, err
	}
	if kinds[into] == "" {
		return MergeResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "into: the graph holds no entity named " + string(into)}
	}
	switch {
	case e.State == Merged && e.MergedInto == into:
		return MergeResult{Entity: e}, nil
	case e.State != Pending:
		return MergeResult{}, decided(op, e)
	}
	now := s.now()
	updated, err := s.Queue.UpdateProposedEntities(ctx, []graph.EntityName{proposed}, func(e *Entity) error {
		if e.State != Pending && !(e.State == Merged && e.MergedInto == into) {
			return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSED_ENTITY_DECIDED", Message: string(proposed) + " was decided meanwhile"}
		}
		e.State, e.MergedInto, e.Reviewer, e.Reviewed = Merged, into, meta.Principal, now
		return nil
	})
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Entity: updated[0]}
	changed, err := s.updateNaming(ctx, proposed, func(p *Proposal) {
		for _, n := range []*graph.EntityName{&p.From, &p.To, &p.SaidBy} {
			if *n == proposed {
				*n = into
			}
		}
		if p.From == p.To {
			p.State, p.Reason, p.Reviewer, p.Reviewed = Rejected, fmt.Sprintf("both ends became %s when %s was merged into it", into, proposed), meta.Principal, now
		}
	})
	for _, p := range changed {
		if p.State == Rejected {
			res.Rejected = append(res.Rejected, p)
		} else {
			res.Repointed = append(res.Repointed, p)
		}
	}
	return res, err
}

// decided is the error of a merge of a proposed entity already decided.
func decided(op string, e Entity) error {
	return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSED_ENTITY_DECIDED",
		Message: fmt.Sprintf("%s is %s%s", e.Name, strings.ToLower(string(e.State)), map[State]string{
			Approved: ": an approval created it in the graph; merge it there (MergeEntities)", Merged: " into " + string(e.MergedInto)}[e.State])}
}

// RejectEntityResult says what rejecting a proposed entity did.
type RejectEntityResult struct {
	Entity Entity
	// Rejected are the pending proposals that named it as an end, rejected with it.
	Rejected []Proposal
}

// RejectEntity rejects a proposed entity with a reason (required): it is never created, the pending
// proposals that have it as an end are rejected with it (and those that name it only as who said a claim
// lose that), and later submissions naming it are queued rejected. NotFound for an unknown proposed
// entity; FailedPrecondition for one already decided otherwise.
func (s *Service) RejectEntity(ctx context.Context, meta graph.WriteMeta, name graph.EntityName, reason string) (RejectEntityResult, error) {
	const op = "RejectProposedEntity"
	var v graph.Violations
	if _, err := graph.ParseEntityName(string(name)); err != nil {
		v.Add("name", "%v", err)
	}
	checkReason(&v, reason)
	if err := v.Err(op, "invalid rejection"); err != nil {
		return RejectEntityResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	ents, err := s.Queue.GetProposedEntities(ctx, []graph.EntityName{name})
	if err != nil {
		return RejectEntityResult{}, err
	}
	e, ok := ents[name]
	switch {
	case !ok:
		return RejectEntityResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "PROPOSED_ENTITY_NOT_FOUND", Message: "no proposed entity is named " + string(name)}
	case e.State == Rejected:
		return RejectEntityResult{Entity: e}, nil
	case e.State != Pending:
		return RejectEntityResult{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSED_ENTITY_DECIDED",
			Message: fmt.Sprintf("%s is %s; only a pending proposed entity is rejected", name, strings.ToLower(string(e.State)))}
	}
	now := s.now()
	updated, err := s.Queue.UpdateProposedEntities(ctx, []graph.EntityName{name}, func(e *Entity) error {
		if e.State != Pending && e.State != Rejected {
			return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "PROPOSED_ENTITY_DECIDED", Message: string(name) + " was decided meanwhile"}
		}
		e.State, e.Reason, e.Reviewer, e.Reviewed = Rejected, reason, meta.Principal, now
		return nil
	})
	if err != nil {
		return RejectEntityResult{}, err
	}
	res := RejectEntityResult{Entity: updated[0]}
	changed, err := s.updateNaming(ctx, name, func(p *Proposal) {
		if p.SaidBy == name {
			p.SaidBy = ""
		}
		if p.From == name || p.To == name {
			p.State, p.Reason, p.Reviewer, p.Reviewed = Rejected, fmt.Sprintf("names %s, rejected: %s", name, reason), meta.Principal, now
		}
	})
	for _, p := range changed {
		if p.State == Rejected {
			res.Rejected = append(res.Rejected, p)
		}
	}
	return res, err
}

// updateNaming applies change to every pending proposal that names an entity, a page at a time.
func (s *Service) updateNaming(ctx context.Context, name graph.EntityName, change func(*Proposal)) ([]Proposal, error) {
	var ids []string
	for offset := 0; ; {
		ps, total, err := s.Queue.ListProposals(ctx, ProposalFilter{Entity: name, State: Pending}, offset, MaxPageSize)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		if offset = nextOffset(offset, len(ps), total); offset == 0 {
			break
		}
	}
	var out []Proposal
	for start := 0; start < len(ids); start += MaxDecision {
		got, err := s.Queue.UpdateProposals(ctx, ids[start:min(start+MaxDecision, len(ids))], func(p *Proposal) error {
			if p.State == Pending {
				change(p)
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	return out, nil
}
