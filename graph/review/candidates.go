package review

import (
	"context"
	"slices"
	"sync"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/resolve"
)

// MatchQuery says which candidate pairs to list.
type MatchQuery struct {
	Kind   graph.Kind       // of this kind only ("" for any)
	Entity graph.EntityName // with this entity only ("" for any)
	// Judged lists the pairs judged not the same instead, in name order.
	Judged bool
}

// Candidate is a pair of entities that may be one, and, for a pair judged apart, its judgement.
type Candidate struct {
	resolve.Pair
	Judgement *graph.Judgement
}

// ListMatchCandidates returns a page of the pairs of entities of the graph that may be one (resolve.Candidates),
// best first, or of those judged not the same; the offset of the next page and how many match.
func (s *Service) ListMatchCandidates(ctx context.Context, q MatchQuery, pageSize, offset int) ([]Candidate, int, int, error) {
	const op = "ListMatchCandidates"
	var v graph.Violations
	limit := checkPage(&v, pageSize, offset)
	if q.Entity != "" {
		if _, err := graph.ParseEntityName(string(q.Entity)); err != nil {
			v.Add("entity", "%q is not an entity's resource name (e.g. actors/lutfur-rahman)", q.Entity)
		}
	}
	if err := v.Err(op, "invalid request"); err != nil {
		return nil, 0, 0, err
	}
	if s.Graph == nil {
		return nil, 0, 0, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Message: "this server has no graph to list match candidates from"}
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var all []Candidate
	if q.Judged {
		var names []graph.EntityName
		if q.Entity != "" {
			names = []graph.EntityName{q.Entity}
		}
		js, err := s.Graph.Separated(ctx, names)
		if err != nil {
			return nil, 0, 0, err
		}
		var ends []graph.EntityName
		for _, j := range js {
			ends = append(ends, j.A, j.B)
		}
		ents, err := s.Graph.GetEntities(ctx, ends)
		if err != nil {
			return nil, 0, 0, err
		}
		for _, j := range js {
			a, b := ents[j.A], ents[j.B]
			if q.Kind != "" && a.Kind != q.Kind && b.Kind != q.Kind {
				continue
			}
			all = append(all, Candidate{Pair: resolve.Pair{A: a, B: b, Score: resolve.Compare(a, b)}, Judgement: &j})
		}
	} else {
		pairs, err := s.pairs(ctx, q.Kind)
		if err != nil {
			return nil, 0, 0, err
		}
		// Judgements change no version: those in force now are left out of the pairs kept.
		js, err := s.Graph.Separated(ctx, nil)
		if err != nil {
			return nil, 0, 0, err
		}
		apart := graph.NewApart(js)
		for _, p := range pairs {
			if !apart.Has(p.A.Name, p.B.Name) && (q.Entity == "" || p.A.Name == q.Entity || p.B.Name == q.Entity) {
				all = append(all, Candidate{Pair: p})
			}
		}
	}
	page := all[min(offset, len(all)):min(offset+limit, len(all))]
	return slices.Clip(page), nextOffset(offset, len(page), len(all)), len(all), nil
}

// matchCache keeps the candidate pairs of one graph version, by kind, so that the pages of a list, and
// lists asked again before the graph changes, read and score the whole graph once.
type matchCache struct {
	mu      sync.Mutex
	version int64
	pairs   map[graph.Kind][]resolve.Pair
}

// pairs returns the candidate pairs of the graph's entities of kind ("" for any), judgements aside, from
// the cache when the graph's version has not moved.
func (s *Service) pairs(ctx context.Context, kind graph.Kind) ([]resolve.Pair, error) {
	v, err := s.Intake.Store.Version(ctx)
	if err != nil {
		return nil, err
	}
	c := &s.matches
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != v || c.pairs == nil {
		c.version, c.pairs = v, map[graph.Kind][]resolve.Pair{}
	}
	if ps, ok := c.pairs[kind]; ok {
		return ps, nil
	}
	ents, _, err := resolve.Live(ctx, s.Graph, kind)
	if err != nil {
		return nil, err
	}
	ps := resolve.Candidates(ents, nil)
	c.pairs[kind] = ps
	return ps, nil
}
