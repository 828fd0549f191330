package dgraph

import (
	"context"
	"crypto/rand"
	"errors"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
)

// GraphID names the graph: a random id kept on its meta node (pg.graph_id), given the first time it is
// asked for. A fresh Dgraph, or one emptied and loaded again, holds another graph with another id; a
// Dgraph restored from a backup holds the id of the graph backed up. "" while the graph holds nothing
// (it has no meta node before its first write).
func (s *Store) GraphID(ctx context.Context) (string, error) {
	const op = "dgraph.GraphID"
	for attempt := 1; ; attempt++ {
		var res struct {
			Q []struct {
				ID string `json:"pg.graph_id"`
			}
		}
		if err := s.query(ctx, op, `query q($m: string) { q(func: eq(pg.name, $m)) { uid pg.graph_id } }`,
			map[string]string{"$m": metaName}, &res); err != nil {
			return "", err
		}
		switch {
		case len(res.Q) == 0:
			return "", nil
		case res.Q[0].ID != "":
			return res.Q[0].ID, nil
		}
		// The meta node has no id yet: give it one, unless another process did meanwhile (the two
		// transactions write the same value of the same node: one of them is aborted, and reads the other's).
		_, err := s.dg.NewTxn().Do(ctx, &api.Request{
			Query:     `query q($m: string) { m as var(func: eq(pg.name, $m)) @filter(NOT has(pg.graph_id)) }`,
			Vars:      map[string]string{"$m": metaName},
			Mutations: []*api.Mutation{{Cond: `@if(eq(len(m), 1))`, SetNquads: []byte(`uid(m) <pg.graph_id> "` + rand.Text() + `" .`)}},
			CommitNow: true,
		})
		if err != nil && (!errors.Is(err, dgo.ErrAborted) || attempt == maxAttempts) {
			return "", s.wrap(op, err)
		}
	}
}
