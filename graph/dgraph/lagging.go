package dgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

// An alpha that has just restarted, or rejoined its group, can answer for a few seconds with an older
// graph than its group holds, or with none (docs/operations.md, the drills). A read there is stale; a
// write whose lookups were read there creates again the resources that exist, and marks the graph with an
// older version than it has, so that no replica ever reads the write. Each query of a transaction may go
// to another alpha (alphaPool), so each query of a write reads the graph's version beside what it reads,
// and an answer showing an older graph than the store has already seen is refused: the write starts
// again, in a fresh transaction, once the lagging alphas are set aside, or fails, having written nothing.

// writeTxn is a read-write transaction whose queries refuse an answer from an alpha that lags.
type writeTxn struct {
	*dgo.Txn
	// least is the newest graph version the store had seen when the transaction began: committed before
	// its snapshot, so any alpha that has caught up shows it.
	least int64
	// pin sends the transaction's queries to one alpha (withPinnedAlpha): a lagging alpha then fails the
	// first of them rather than answering a later one.
	pin *pinned
	s   *Store
}

// newWriteTxn begins a read-write transaction.
func (s *Store) newWriteTxn() writeTxn {
	least := s.seen.Load() // before the transaction's first query
	return writeTxn{Txn: s.dg.NewTxn(), least: least, pin: &pinned{}, s: s}
}

// versionBlock reads the graph's meta node, its uid and version, in the same snapshot as the query it
// joins. It names the meta node by polgraph's own constant: nothing from the user is in it.
var versionBlock = "\nmeta(func: eq(pg.name, " + strconv.Quote(metaName) + ")) { uid pg.version }\n"

// query runs q, a query of one or more blocks, with vars, and versionBlock before its blocks. It returns a
// staleRead when the answer shows an older graph than txn.least, or an older graph's meta node than the
// store knows (an alpha behind a graph dropped and written again), and graphReplaced when it shows a
// newer graph's (the store then forgets the graph it knew: noteMeta). Callers decode the answer's other
// blocks as they would without it.
func (txn writeTxn) query(ctx context.Context, q string, vars map[string]string) (*api.Response, error) {
	open := strings.IndexByte(q, '{')
	if open < 0 {
		return nil, fmt.Errorf("a write's query has no block: %q", q)
	}
	resp, err := txn.QueryWithVars(context.WithValue(ctx, pinnedKey{}, txn.pin), q[:open+1]+versionBlock+q[open+1:], vars)
	if err != nil {
		return nil, err
	}
	uid, shows, err := shownMeta(resp.Json)
	if err != nil {
		return nil, err
	}
	if uid != "" {
		switch txn.s.noteMeta(ctx, uid, shows) {
		case metaNewer:
			return nil, graphReplaced{}
		case metaOlder:
			return nil, staleRead{shows: shows, seen: txn.least}
		}
	}
	if txn.least == 0 {
		return resp, nil // nothing seen yet, or a graph not yet written
	}
	if shows < txn.least {
		return nil, staleRead{shows: shows, seen: txn.least}
	}
	return resp, nil
}

// shownMeta reads the meta node versionBlock found in an answer, its uid and version ("", 0 when it found
// none; of several, the newest). Dgraph gives the blocks in the query's order, so the meta block comes
// first and only the answer's first bytes are read; the callers decode the whole answer once, themselves.
func shownMeta(answer []byte) (string, int64, error) {
	dec := json.NewDecoder(bytes.NewReader(answer))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0, fmt.Errorf("Dgraph's answer is not an object: %.40q", answer)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", 0, err
		}
		if key != "meta" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", 0, err
			}
			continue
		}
		var meta []struct {
			UID     string `json:"uid"`
			Version int64  `json:"pg.version"`
		}
		if err := dec.Decode(&meta); err != nil {
			return "", 0, err
		}
		uid, shows := "", int64(0)
		for _, m := range meta {
			if uid == "" || m.Version > shows {
				uid, shows = m.UID, m.Version
			}
		}
		return uid, shows, nil
	}
	return "", 0, nil
}

// staleRead is what a write's query returns when the alpha that answered it showed an older graph than
// the store had seen.
type staleRead struct{ shows, seen int64 }

func (e staleRead) Error() string {
	return fmt.Sprintf("an alpha showed graph version %d, older than the %d already seen", e.shows, e.seen)
}

// graphReplaced is what a write's query returns when the alpha that answered it showed a newer graph than
// the store knew: the graph was dropped and written again. Nothing was written; the store has forgotten
// the uids it knew (noteMeta), and the write starts again, its references resolved anew.
type graphReplaced struct{}

func (graphReplaced) Error() string {
	return "the graph was dropped and written again since this store last read it"
}

// maxLagging bounds how often a write starts again because an alpha answered it with an older graph than
// the store has seen, with 100 ms more to wait each time: about 4.5 s in all, the time a restarted alpha
// was seen to lag behind its group.
const maxLagging = 10

// lagged handles err, a write's attempt's error, when it is a staleRead or a graphReplaced (else it
// returns false, nil). Nothing was written. After a graphReplaced the write is to start again at once
// (true, nil). After a staleRead the alphas that lag are set aside (the others show the graph seen) and,
// after a wait, the write is to start again; after maxLagging such attempts (*lagging counts both) it
// fails, Unavailable, DATABASE_NOT_READY (GRAPH_REPLACED when the graph kept being replaced).
func (s *Store) lagged(ctx context.Context, op string, err error, lagging *int) (bool, error) {
	if errors.As(err, &graphReplaced{}) {
		// Not a lag: the write starts again at once, on the graph now in Dgraph.
		if *lagging++; *lagging == maxLagging {
			return false, &graph.Error{Op: op, Kind: graph.Unavailable, Reason: graph.ReasonGraphReplaced,
				Message: "Dgraph's graph kept being replaced while polgraph wrote; nothing was written", Err: err}
		}
		return true, nil
	}
	var behind staleRead
	if !errors.As(err, &behind) {
		return false, nil
	}
	if *lagging++; *lagging == maxLagging {
		return false, &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "DATABASE_NOT_READY",
			Message: fmt.Sprintf("Dgraph kept showing an older graph than polgraph has already seen (%s); nothing was written", behind), Err: err}
	}
	s.log.WarnContext(ctx, "a Dgraph alpha answered a write with an older graph than already seen; writing again", "op", op, "err", err)
	if len(s.pool.alphas) > 1 {
		s.pool.recheck(ctx, s.alphaReady, s.loginProbe, s.log)
	}
	select {
	case <-ctx.Done():
		return false, s.wrap(op, ctx.Err())
	case <-time.After(time.Duration(*lagging) * 100 * time.Millisecond):
	}
	return true, nil
}

// sawWritten records the graph version a committed write marked the graph with, when it did (set holds
// the meta node with its new version), so that an alpha that does not show the write yet is not ready: the
// store's own writes are part of the graph it has seen, as another replica's are once it reads them. A
// version a bulk load holds open (the meta node has a lease) is not complete yet and is not recorded.
func (s *Store) sawWritten(set []map[string]any) {
	for _, n := range set {
		if n["pg.name"] != metaName || n["pg.lease_until"] != nil {
			continue
		}
		if v, ok := n["pg.version"].(int64); ok {
			s.sawVersion(v)
		}
	}
}
