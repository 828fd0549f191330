package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

// StaleFills counts the audits of a fill's pack stamps that failed.
func StaleFills(s *Store) int64 { return s.staleFills.Load() }

// SetLeaseTime shortens bulk loads' holds, for tests of their lapse.
func SetLeaseTime(s *Store, d time.Duration) { s.leaseTime = d }

// Abandon stops a bulk load's renewals without releasing its hold, as a load that died would.
func Abandon(b graph.Bulk) {
	bb := b.(*bulk)
	close(bb.stop)
	<-bb.stopped
}

// WriteNQuads commits N-Quads as they are, for tests of what older versions wrote.
func WriteNQuads(ctx context.Context, s *Store, nquads string) error {
	txn := s.dg.NewTxn()
	defer txn.Discard(ctx)
	_, err := txn.Mutate(ctx, &api.Mutation{SetNquads: []byte(nquads), CommitNow: true})
	return err
}

// Resolve looks up the uids of resources by name, as a write's references are, and keeps them: later reads
// of those resources go by uid.
func Resolve(ctx context.Context, s *Store, names []string) error {
	_, err := s.resolve(ctx, names)
	return err
}

// DropGraphID removes the graph's id, as a graph written before polgraph gave one holds none.
func DropGraphID(ctx context.Context, s *Store) error {
	_, err := s.dg.NewTxn().Do(ctx, &api.Request{
		Query:     `query q($m: string) { m as var(func: eq(pg.name, $m)) }`,
		Vars:      map[string]string{"$m": metaName},
		Mutations: []*api.Mutation{{DelNquads: []byte(`uid(m) <pg.graph_id> * .`)}},
		CommitNow: true,
	})
	return err
}

// SharedPartBytes is how much of a snapshot file one part of its shared copy holds.
const SharedPartBytes = sharedPartBytes

// StopProbes stops the probes that set lagging alphas aside every second: a test then decides when the
// store first meets one.
func StopProbes(s *Store) { s.stopWatch() }

// Snapshot returns the timestamp of a snapshot of the graph as it is now, with the hash Dgraph asks
// requests at that timestamp to carry: a read at it shows the graph as an alpha that stopped applying
// writes now would.
func Snapshot(ctx context.Context, s *Store) (uint64, string, error) {
	resp, err := s.dg.NewReadOnlyTxn().QueryWithVars(ctx, `query q($m: string) { q(func: eq(pg.name, $m)) { uid } }`, map[string]string{"$m": metaName})
	if err != nil {
		return 0, "", err
	}
	return resp.GetTxn().GetStartTs(), resp.GetTxn().GetHash(), nil
}

// CountNamed counts the nodes named name.
func CountNamed(ctx context.Context, s *Store, name string) (int, error) {
	resp, err := s.dg.NewReadOnlyTxn().QueryWithVars(ctx, `query q($n: string) { q(func: eq(pg.name, $n)) { n: count(uid) } }`, map[string]string{"$n": name})
	if err != nil {
		return 0, err
	}
	var out struct{ Q []struct{ N int } }
	if err := json.Unmarshal(resp.Json, &out); err != nil {
		return 0, err
	}
	if len(out.Q) == 0 {
		return 0, nil
	}
	return out.Q[0].N, nil
}

// EndsOf reads the names of a relation's ends through its pg.from and pg.to edges, as DQL sees them (not
// from its pack): "" for an end whose edge points at a node without a name.
func EndsOf(ctx context.Context, s *Store, relation string) (from, to string, err error) {
	resp, err := s.dg.NewReadOnlyTxn().QueryWithVars(ctx, `query q($n: string) { q(func: eq(pg.name, $n)) { pg.from { pg.name } pg.to { pg.name } } }`, map[string]string{"$n": relation})
	if err != nil {
		return "", "", err
	}
	type end struct {
		Name string `json:"pg.name"`
	}
	var out struct {
		Q []struct {
			From end `json:"pg.from"`
			To   end `json:"pg.to"`
		}
	}
	if err := json.Unmarshal(resp.Json, &out); err != nil {
		return "", "", err
	}
	if len(out.Q) != 1 {
		return "", "", fmt.Errorf("%d nodes named %s", len(out.Q), relation)
	}
	return out.Q[0].From.Name, out.Q[0].To.Name, nil
}

// UnversionChanges removes the version of the trail's changes at or before version upto, as a trail
// written before changes carried versions holds them.
func UnversionChanges(ctx context.Context, s *Store, upto int64) error {
	txn := s.dg.NewTxn()
	defer txn.Discard(ctx)
	resp, err := txn.QueryWithVars(ctx, `query q($v: int) { q(func: le(pg.change_version, $v)) { uid } }`, map[string]string{"$v": fmt.Sprint(upto)})
	if err != nil {
		return err
	}
	var res struct{ Q []struct{ UID string } }
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return err
	}
	var del []byte
	for _, r := range res.Q {
		del = fmt.Appendf(del, "<%s> <pg.change_version> * .\n", r.UID)
	}
	_, err = txn.Mutate(ctx, &api.Mutation{DelNquads: del, CommitNow: true})
	return err
}
