package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dgraph-io/dgo/v230/protos/api"
)

// stampAudit checks, after a fill, the stamps of the relations' packs it used without reading the
// relations' pg.changed: at a million relations, that read alone took the alpha 9-17 s of CPU (item 65 of
// docs/bench-changes.md), against a count per distinct stamp from pg.changed's index.
//
// A fill counts the packs it used by their stamp (packed) and the relations it read from their
// predicates by their pg.changed (unpacked). For every stamp s of a pack used, the relations whose
// pg.changed is s must then number packed[s] + unpacked[s]. That holds when every pack used is stamped
// with its relation's pg.changed, and only then, as long as no write marks a relation changed at a
// version older than its pack's stamp (pack.go: a write that does not keep packs marks the node changed
// at a newer version): were a pack stale, take the stale one whose relation's pg.changed m is the
// newest. It is counted under m, so for m's count to hold, another pack stamped m must be stale, its
// relation's pg.changed newer than m: a contradiction. A relation without pg.changed whose pack was used
// makes its stamp's count fall short.
//
// Sources and entities are checked the same way, each type on its own.
//
// The read of a type again after a failed audit mends: it collects the nodes whose packs are stamped with
// another version than their pg.changed (stale), whose packs the fill then drops (mendPacks), so that the
// next fill need not read the type twice.
type stampAudit struct {
	typ      string        // the nodes' type: Relation, Entity or Source
	mending  bool          // a read again, each pack checked: stale is collected, nothing counted
	packed   map[int64]int // packs used, by their stamp
	unpacked map[int64]int // nodes read from their predicates, by their pg.changed
	stale    []string      // mending: the uids of the nodes whose packs are stale
}

func newStampAudit(typ string) *stampAudit {
	return &stampAudit{typ: typ, packed: map[int64]int{}, unpacked: map[int64]int{}}
}

// counting says whether a read counts stamps instead of checking them.
func (a *stampAudit) counting() bool { return a != nil && !a.mending }

// used counts, when counting, a pack used and stamped stamp.
func (a *stampAudit) used(stamp int64) {
	if a.counting() {
		a.packed[stamp]++
	}
}

// readWhole counts, when counting, a node read from its predicates, whose pg.changed is changed (nil: it
// has none, or the read did not ask for it).
func (a *stampAudit) readWhole(changed *int64) {
	if a.counting() && changed != nil {
		a.unpacked[*changed]++
	}
}

// saw records, when mending, a node whose pack, stamped stamp (0: not read, unreadable or of another
// format), was not used: stale when the node has no pg.changed, or another version.
func (a *stampAudit) saw(r packedRow, stamp int64) {
	if a != nil && a.mending && r.Pack != "" && (r.Changed == nil || (stamp > 0 && *r.Changed != stamp)) {
		a.stale = append(a.stale, r.UID)
	}
}

// auditedFill is a fill's read of the nodes of type typ: read with a counting audit, then the audit's
// check, with query, in the fill's transaction. When a count does not hold, the fill is logged, read runs
// again with a mending audit (each pack checked against its node's pg.changed, as a catch-up checks it,
// the nodes given again: a node given twice stands as given last), and the stale packs it found are
// dropped.
func (s *Store) auditedFill(ctx context.Context, typ string, query func(string, map[string]string) (*api.Response, error), read func(*stampAudit) error) error {
	audit := newStampAudit(typ)
	if err := read(audit); err != nil {
		return err
	}
	stamp, stale, err := audit.check(ctx, query)
	if err != nil {
		return s.wrap("dgraph.Changes", err)
	}
	if !stale {
		return nil
	}
	s.staleFills.Add(1)
	s.log.WarnContext(ctx, "a pack is older than its node (a write that does not keep packs changed it): reading every node of its type again, each pack checked",
		"type", typ, "stamp", stamp)
	mend := &stampAudit{typ: typ, mending: true}
	if err := read(mend); err != nil {
		return err
	}
	s.mendPacks(ctx, typ, mend.stale)
	return nil
}

// stampsPerQuery is how many stamps one query of the audit counts.
const stampsPerQuery = 64

// check counts, with query (in the fill's transaction), the nodes of each stamp of a pack used; stale
// is false when every count holds, else true with the oldest stamp whose count does not.
func (a *stampAudit) check(ctx context.Context, query func(string, map[string]string) (*api.Response, error)) (stamp int64, stale bool, err error) {
	stamps := make([]int64, 0, len(a.packed))
	for s := range a.packed {
		stamps = append(stamps, s)
	}
	slices.Sort(stamps)
	for chunk := range slices.Chunk(stamps, stampsPerQuery) {
		// Each stamp travels as a variable; the blocks are named by their place in the chunk.
		var decl, blocks strings.Builder
		vars := make(map[string]string, len(chunk))
		for i, s := range chunk {
			if i > 0 {
				decl.WriteString(", ")
			}
			fmt.Fprintf(&decl, "$s%d: int", i)
			// a.typ is polgraph's own.
			fmt.Fprintf(&blocks, " c%d(func: eq(pg.changed, $s%d)) @filter(type(%s)) { count(uid) }", i, i, a.typ)
			vars["$s"+strconv.Itoa(i)] = strconv.FormatInt(s, 10)
		}
		resp, err := query(`query q(`+decl.String()+`) {`+blocks.String()+` }`, vars)
		if err != nil {
			return 0, false, err
		}
		var res map[string][]struct {
			Count int `json:"count"`
		}
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return 0, false, err
		}
		for i, s := range chunk {
			n := 0
			if c := res["c"+strconv.Itoa(i)]; len(c) > 0 {
				n = c[0].Count
			}
			if n != a.packed[s]+a.unpacked[s] {
				return s, true, nil
			}
		}
	}
	return 0, false, nil
}

// mendPacks drops the stale packs a fill found, of nodes of type typ, so that the next fill reads the
// type once: those nodes are read from their predicates until written again, as they were while their
// packs were refused. A pack written again meanwhile may go with them, which costs a later fill that
// node's predicates and nothing else. Best effort: a failure is logged, and the next fill mends again.
func (s *Store) mendPacks(ctx context.Context, typ string, uids []string) {
	for chunk := range slices.Chunk(uids, 1000) {
		var del []byte
		for _, u := range chunk {
			if uidPattern.MatchString(u) { // from Dgraph; checked before it goes into the mutation
				del = dropPack(del, u)
			}
		}
		txn := s.dg.NewTxn()
		_, err := txn.Mutate(ctx, &api.Mutation{DelNquads: del, CommitNow: true})
		txn.Discard(ctx)
		if err != nil {
			s.log.WarnContext(ctx, "could not drop stale packs; the next fill reads their type again", "type", typ, "err", err)
			return
		}
	}
	s.log.InfoContext(ctx, "dropped stale packs: those nodes are read from their predicates until written again", "type", typ, "nodes", len(uids))
}
