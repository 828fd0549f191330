package graph

import (
	"context"
	"time"
)

// Judgement is a reviewer's word that two entities are not one person or organisation, kept so that
// nothing proposes or merges them again: resolution candidates leave the pair out, imports never merge a
// record of one into the other, and MergeEntities refuses the pair until the judgement is withdrawn. The
// opposite word, "the same", is a merge (Merger): kept on the merged entity, which redirects to the other.
type Judgement struct {
	A, B   EntityName // in name order
	Reason string
	By     string // who judged: a write's principal
	At     time.Time
}

// JudgementName is the resource name a judgement on two entities is kept and audited under, whichever
// order they are given in: judgements/<a>~<b>.
func JudgementName(a, b EntityName) string {
	if b < a {
		a, b = b, a
	}
	return "judgements/" + string(a) + "~" + string(b)
}

// Judgements keep reviewers' "not the same" judgements. Methods return Unavailable, DeadlineExceeded or
// Internal errors unless they say more.
type Judgements interface {
	// SeparateEntities records, with who (the context's WriteMeta) and why, that a and b are not one
	// entity; recording it again updates the reason. NotFound (ENTITY_NOT_FOUND) for an unknown entity.
	SeparateEntities(ctx context.Context, a, b EntityName, reason string) (WriteResult, error)
	// WithdrawJudgement withdraws the judgement on a and b (the trail keeps it); Unchanged when there is
	// none.
	WithdrawJudgement(ctx context.Context, a, b EntityName, reason string) (WriteResult, error)
	// Separated returns the judgements in force on any of names, or every one when names is empty, in
	// name order.
	Separated(ctx context.Context, names []EntityName) ([]Judgement, error)
}

// ReasonJudgedApart is the reason of the error of a merge of two entities judged not the same.
const ReasonJudgedApart = "JUDGED_NOT_THE_SAME"

// Apart indexes judgements by their pair, for a quick "were these two judged apart?".
type Apart map[[2]EntityName]Judgement

// NewApart indexes js.
func NewApart(js []Judgement) Apart {
	out := Apart{}
	for _, j := range js {
		out[pairKey(j.A, j.B)] = j
	}
	return out
}

// Of returns the judgement on a and b, in either order, if there is one.
func (ap Apart) Of(a, b EntityName) (Judgement, bool) {
	j, ok := ap[pairKey(a, b)]
	return j, ok
}

// Has reports whether a and b were judged apart.
func (ap Apart) Has(a, b EntityName) bool {
	_, ok := ap[pairKey(a, b)]
	return ok
}

func pairKey(a, b EntityName) [2]EntityName {
	if b < a {
		a, b = b, a
	}
	return [2]EntityName{a, b}
}
