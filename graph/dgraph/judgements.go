package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Judgements = (*Store)(nil)

// judgementJSON is a judgement as pg.judgement holds it, and as the audit trail shows it.
type judgementJSON struct {
	A      string    `json:"a"`
	B      string    `json:"b"`
	Reason string    `json:"reason"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

func (j judgementJSON) judgement() graph.Judgement {
	return graph.Judgement{A: graph.EntityName(j.A), B: graph.EntityName(j.B), Reason: j.Reason, By: j.By, At: j.At}
}

// judgementFields are what a judgement's lookup reads of it and of the two entities it names.
const judgementFields = "uid pg.name pg.kind pg.judgement pg.deleted_at merged: pg.merged_into { pg.name }"

type judgedJSON struct {
	Kind      string    `json:"pg.kind"`
	Judgement string    `json:"pg.judgement"`
	DeletedAt *int64    `json:"pg.deleted_at"`
	Merged    []nameRef `json:"merged"`
}

// SeparateEntities implements graph.Judgements. Both entities must be live: a merged one is judged
// through the entity it was merged into.
func (s *Store) SeparateEntities(ctx context.Context, a, b graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.SeparateEntities"
	if b < a {
		a, b = b, a
	}
	name := graph.JudgementName(a, b)
	var res graph.WriteResult
	body := judgementJSON{A: string(a), B: string(b), Reason: reason, By: principal(ctx), At: time.Now().UTC()}
	after, err := json.Marshal(body)
	if err != nil {
		return res, &graph.Error{Op: op, Kind: graph.Internal, Message: "a judgement cannot be encoded", Err: err}
	}
	err = s.upsert(ctx, write{op: op, lookup: []string{name, string(a), string(b)}, fields: judgementFields, result: &res,
		audit: func(got map[string]found) ([]graph.Change, graph.WriteResult) {
			var r graph.WriteResult
			old, _ := decodeRaw[judgedJSON](got, name)
			if sameJudgement(old.Judgement, body) {
				r.Unchanged++
				return nil, r
			}
			action := graph.ActionCreate
			if old.Judgement != "" {
				action = graph.ActionUpdate
				r.Updated = []string{name}
			} else {
				r.Created = []string{name}
			}
			return []graph.Change{{Resource: name, Action: action, Before: old.Judgement, After: string(after)}}, r
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			for _, e := range []graph.EntityName{a, b} {
				f, ok := got[string(e)]
				if !ok {
					return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(e)}
				}
				var j judgedJSON
				if err := decodeInto(op, f, &j); err != nil {
					return nil, nil, err
				}
				switch {
				case j.Kind == "":
					return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(e)}
				case len(j.Merged) > 0:
					return nil, nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_MERGED",
						Message: fmt.Sprintf("%s is merged into %s: judge that one", e, j.Merged[0].Name)}
				case j.DeletedAt != nil:
					return nil, nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_DELETED", Message: string(e) + " is deleted"}
				}
			}
			var old judgedJSON
			if f, ok := got[name]; ok {
				if err := decodeInto(op, f, &old); err != nil {
					return nil, nil, err
				}
			}
			if sameJudgement(old.Judgement, body) {
				return nil, nil, nil
			}
			var del strings.Builder
			dropValues(&del, got, name, "pg.judged")
			n := node(got, name, "Judgement")
			n["pg.judged"] = []string{string(a), string(b)}
			n["pg.judgement"] = string(after)
			return []byte(del.String()), []map[string]any{n}, nil
		}})
	return res, err
}

// sameJudgement reports whether the judgement held as JSON says what body says (who and when aside).
func sameJudgement(held string, body judgementJSON) bool {
	var prev judgementJSON
	if held == "" || json.Unmarshal([]byte(held), &prev) != nil {
		return false
	}
	return prev.A == body.A && prev.B == body.B && prev.Reason == body.Reason
}

// WithdrawJudgement implements graph.Judgements: the judgement's node keeps its name and loses its values.
func (s *Store) WithdrawJudgement(ctx context.Context, a, b graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.WithdrawJudgement"
	name := graph.JudgementName(a, b)
	var res graph.WriteResult
	err := s.upsert(ctx, write{op: op, lookup: []string{name}, fields: judgementFields, result: &res,
		audit: func(got map[string]found) ([]graph.Change, graph.WriteResult) {
			var r graph.WriteResult
			old, _ := decodeRaw[judgedJSON](got, name)
			if old.Judgement == "" {
				r.Unchanged++
				return nil, r
			}
			r.Updated = []string{name}
			return []graph.Change{{Resource: name, Action: graph.ActionDelete, Before: old.Judgement}}, r
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			var del strings.Builder
			dropValues(&del, got, name, "pg.judged", "pg.judgement")
			return []byte(del.String()), nil, nil
		}})
	return res, err
}

// Separated implements graph.Judgements.
func (s *Store) Separated(ctx context.Context, names []graph.EntityName) ([]graph.Judgement, error) {
	const op = "dgraph.Separated"
	var res struct {
		Q []struct {
			Judgement string `json:"pg.judgement"`
		} `json:"q"`
	}
	var out []graph.Judgement
	seen := map[string]bool{}
	add := func() error {
		for _, r := range res.Q {
			var j judgementJSON
			if err := json.Unmarshal([]byte(r.Judgement), &j); err != nil {
				return &graph.Error{Op: op, Kind: graph.Internal, Message: "a judgement cannot be read", Err: err}
			}
			if k := graph.JudgementName(graph.EntityName(j.A), graph.EntityName(j.B)); !seen[k] {
				seen[k] = true
				out = append(out, j.judgement())
			}
		}
		res.Q = nil
		return nil
	}
	if len(names) == 0 {
		if err := s.query(ctx, op, `{ q(func: type(Judgement)) @filter(has(pg.judgement)) { pg.judgement } }`, nil, &res); err != nil {
			return nil, err
		}
		if err := add(); err != nil {
			return nil, err
		}
	}
	strs := make([]string, len(names))
	for i, n := range names {
		strs[i] = string(n)
	}
	for _, chunk := range chunks(strs, 500) {
		q, vars := eqBlocks("pg.judged", chunk, "pg.judgement")
		if err := s.query(ctx, op, q, vars, &res); err != nil {
			return nil, err
		}
		if err := add(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(x, y graph.Judgement) int {
		return strings.Compare(graph.JudgementName(x.A, x.B), graph.JudgementName(y.A, y.B))
	})
	return out, nil
}
