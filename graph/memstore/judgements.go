package memstore

import (
	"context"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// SeparateEntities implements graph.Judgements.
func (s *Store) SeparateEntities(ctx context.Context, a, b graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "memstore.SeparateEntities"
	if err := live(ctx, op); err != nil {
		return graph.WriteResult{}, err
	}
	if b < a {
		a, b = b, a
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range []graph.EntityName{a, b} {
		rec, ok := s.entities[n]
		switch {
		case !ok:
			return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(n)}
		case rec.e.MergedInto != "":
			return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_MERGED",
				Message: string(n) + " is merged into " + string(rec.e.MergedInto) + ": judge that one"}
		case !rec.e.Deleted.IsZero():
			return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_DELETED", Message: string(n) + " is deleted"}
		}
	}
	name := graph.JudgementName(a, b)
	old, had := s.judgements[name]
	if had && old.Reason == reason {
		return graph.WriteResult{Unchanged: 1}, nil
	}
	t := tombstone(ctx, reason)
	s.judgements[name] = graph.Judgement{A: a, B: b, Reason: reason, By: t.By, At: t.Time}
	if had {
		return graph.WriteResult{Updated: []string{name}}, nil
	}
	return graph.WriteResult{Created: []string{name}}, nil
}

// WithdrawJudgement implements graph.Judgements.
func (s *Store) WithdrawJudgement(ctx context.Context, a, b graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "memstore.WithdrawJudgement"
	if err := live(ctx, op); err != nil {
		return graph.WriteResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := graph.JudgementName(a, b)
	if _, ok := s.judgements[name]; !ok {
		return graph.WriteResult{Unchanged: 1}, nil
	}
	delete(s.judgements, name)
	return graph.WriteResult{Updated: []string{name}}, nil
}

// Separated implements graph.Judgements.
func (s *Store) Separated(ctx context.Context, names []graph.EntityName) ([]graph.Judgement, error) {
	const op = "memstore.Separated"
	if err := live(ctx, op); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []graph.Judgement
	for _, j := range s.judgements {
		if len(names) == 0 || slices.Contains(names, j.A) || slices.Contains(names, j.B) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(x, y graph.Judgement) int {
		return strings.Compare(graph.JudgementName(x.A, x.B), graph.JudgementName(y.A, y.B))
	})
	return out, nil
}
