package dgraph

import (
	"context"
	"crypto/rand"
	"encoding/json"

	"github.com/dgraph-io/dgo/v230/protos/api"
)

// GraphID names the graph: a random id kept on its meta node (pg.graph_id), given the first time it is
// asked for. A fresh Dgraph, or one emptied and loaded again, holds another graph with another id; a
// Dgraph restored from a backup holds the id of the graph backed up. "" while the graph holds nothing
// (it has no meta node before its first write).
//
// It reads in a write's transaction (lagging.go): an alpha showing an older graph than the store has seen
// could show no meta node, or one without the id given since, and a new id would then replace the graph's.
func (s *Store) GraphID(ctx context.Context) (string, error) {
	return s.graphID(ctx, "dgraph.GraphID", false)
}

// RenewGraphID gives the graph a new random id, as after a restore: snapshot files and shared copies
// written before it name the old id, so every replica sets them aside and fills from Dgraph, whether they
// are ahead of the restored graph or along another history. It returns the new id, or "" when Dgraph
// holds no graph.
func (s *Store) RenewGraphID(ctx context.Context) (string, error) {
	return s.graphID(ctx, "dgraph.RenewGraphID", true)
}

// graphID reads the graph's id, giving it one when it has none or when renew asks for a new one.
func (s *Store) graphID(ctx context.Context, op string, renew bool) (string, error) {
	var id string
	err := s.keyTxn(ctx, op, func(txn writeTxn) error {
		resp, err := txn.query(ctx, `query q($m: string) { q(func: eq(pg.name, $m)) { uid pg.graph_id } }`, map[string]string{"$m": metaName})
		if err != nil {
			return err
		}
		var res struct {
			Q []struct {
				UID string `json:"uid"`
				ID  string `json:"pg.graph_id"`
			}
		}
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return err
		}
		switch {
		case len(res.Q) == 0:
			id = ""
			return nil
		case res.Q[0].ID != "" && !renew:
			id = res.Q[0].ID
			return nil
		}
		// A new id. Two processes giving the node one at once write the same value of the same node: one
		// of them is aborted, and reads the other's when it starts again.
		id = rand.Text()
		_, err = txn.Mutate(ctx, &api.Mutation{Set: []*api.NQuad{{Subject: res.Q[0].UID, Predicate: "pg.graph_id",
			ObjectValue: &api.Value{Val: &api.Value_StrVal{StrVal: id}}}}, CommitNow: true})
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}
