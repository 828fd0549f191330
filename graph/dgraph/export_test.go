package dgraph

import (
	"context"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

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
