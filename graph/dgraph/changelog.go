package dgraph

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/dgraph-io/dgo/v230"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.ChangeLog = (*Store)(nil)

// ReadChangeLog implements graph.ChangeLog. The version and the changes come from one read-only
// transaction on one alpha, so a page holds whole versions up to the version read (a version a bulk load
// holds open is not yet the graph's: see version). Within a version, changes are in uid order.
//
// A page reads the next limit changes by version (the index on pg.change_version); when they end inside
// a version, that version is left for the next page, unless it is the only one: then the version is read
// in uid order, limit at a time, each page starting after the last uid of the one before (the Mark).
func (s *Store) ReadChangeLog(ctx context.Context, after graph.ChangeCursor, limit int) (graph.ChangePage, error) {
	const op = "dgraph.ReadChangeLog"
	limit = max(1, min(limit, 5000))
	ctx = withPinnedAlpha(ctx)
	txn := s.dg.NewReadOnlyTxn()
	version, err := s.version(ctx, txn)
	if err != nil {
		return graph.ChangePage{}, err
	}
	page := changePage{Version: version, Next: after}
	if after.Version >= version {
		return page.with(nil), nil // nothing newer yet
	}
	oldest, err := s.changeLogStart(ctx, txn, version)
	if err != nil {
		return graph.ChangePage{}, err
	}
	if after.Version < oldest {
		return graph.ChangePage{}, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: graph.ReasonVersionTooOld,
			Metadata: map[string]string{"oldest_version": strconv.FormatInt(oldest, 10), "version": strconv.FormatInt(version, 10)},
			Message: "the change log holds every change only after version " + strconv.FormatInt(oldest, 10) +
				": read the graph whole (its version from GetGraphStats, then ExportGraph) and watch from that version"}
	}
	var rows []changeRow
	if after.Skip > 0 {
		// The rest of a version read in part.
		v := after.Version + 1
		if rows, err = s.versionRows(ctx, txn, v, after, limit); err != nil {
			return graph.ChangePage{}, err
		}
		for i := range rows {
			rows[i].Index = after.Skip + i
		}
		if len(rows) == limit {
			page.Next = graph.ChangeCursor{Version: after.Version, Skip: after.Skip + len(rows), Mark: rows[len(rows)-1].mark}
			return page.with(rows), nil
		}
		after, limit = graph.ChangeCursor{Version: v}, limit-len(rows)
		page.Next = after
		if v >= version {
			return page.with(rows), nil
		}
	}
	q := `query q($lo: int, $hi: int) { q(func: between(pg.change_version, $lo, $hi), orderasc: pg.change_version, first: ` +
		strconv.Itoa(limit) + `) { uid ` + changeFields + ` } }`
	more, err := s.changeRows(ctx, txn, q, map[string]string{"$lo": strconv.FormatInt(after.Version+1, 10), "$hi": strconv.FormatInt(version, 10)})
	if err != nil {
		return graph.ChangePage{}, err
	}
	page.Next = graph.ChangeCursor{Version: version}
	if len(more) == limit {
		last := more[len(more)-1].Version
		if more[0].Version == last {
			// One version fills the page, and may go on past it: read it in uid order.
			if more, err = s.versionRows(ctx, txn, last, graph.ChangeCursor{Version: last - 1}, limit); err != nil {
				return graph.ChangePage{}, err
			}
			page.Next = graph.ChangeCursor{Version: last}
			if len(more) == limit {
				page.Next = graph.ChangeCursor{Version: last - 1, Skip: len(more), Mark: more[len(more)-1].mark}
			}
		} else {
			// The last version may go on past the page: the next page reads it from its start.
			more = slices.DeleteFunc(more, func(r changeRow) bool { return r.Version == last })
			page.Next = graph.ChangeCursor{Version: last - 1}
		}
	}
	slices.SortFunc(more, func(a, b changeRow) int {
		if a.Version != b.Version {
			return cmp.Compare(a.Version, b.Version)
		}
		return cmp.Compare(uidNumber(a.mark), uidNumber(b.mark))
	})
	for i := range more {
		if i > 0 && more[i].Version == more[i-1].Version {
			more[i].Index = more[i-1].Index + 1
		}
	}
	return page.with(append(rows, more...)), nil
}

// changeRow is a change as ReadChangeLog reads it, with its uid.
type changeRow struct {
	graph.Change
	mark string
}

// changePage is a graph.ChangePage being read.
type changePage graph.ChangePage

// with returns the page holding rows.
func (p changePage) with(rows []changeRow) graph.ChangePage {
	p.Changes = make([]graph.Change, len(rows))
	for i, r := range rows {
		p.Changes[i] = r.Change
	}
	return graph.ChangePage(p)
}

// changeRows runs a query of changes (each with its uid) in txn.
func (s *Store) changeRows(ctx context.Context, txn *dgo.Txn, q string, vars map[string]string) ([]changeRow, error) {
	resp, err := txn.QueryWithVars(ctx, q, vars)
	if err != nil {
		return nil, s.wrap("dgraph.ReadChangeLog", err)
	}
	var res struct {
		Q []struct {
			UID string `json:"uid"`
			changeJSON
		} `json:"q"`
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return nil, &graph.Error{Op: "dgraph.ReadChangeLog", Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	out := make([]changeRow, len(res.Q))
	for i, r := range res.Q {
		out[i] = changeRow{Change: r.change(), mark: r.UID}
	}
	return out, nil
}

// versionRows reads the changes of version v in uid order, at most limit, after at's place in it: after
// its Mark when the mark is a uid, else after its first Skip changes.
func (s *Store) versionRows(ctx context.Context, txn *dgo.Txn, v int64, at graph.ChangeCursor, limit int) ([]changeRow, error) {
	page := `first: ` + strconv.Itoa(limit)
	switch {
	case at.Mark != "" && uidPattern.MatchString(at.Mark):
		page += `, after: ` + at.Mark // a uid Dgraph returned, checked: nothing from the user
	case at.Skip > 0:
		page += `, offset: ` + strconv.Itoa(at.Skip)
	}
	q := `query q($v: int) { q(func: eq(pg.change_version, $v), ` + page + `) { uid ` + changeFields + ` } }`
	return s.changeRows(ctx, txn, q, map[string]string{"$v": strconv.FormatInt(v, 10)})
}

// changeLogStart is the oldest version the change log can start after: the version before the oldest
// change that carries one (every write since records its changes with its version), or, when none does
// yet, the graph's version. Once found it is kept for the graph (until the graph is replaced).
func (s *Store) changeLogStart(ctx context.Context, txn *dgo.Txn, version int64) (int64, error) {
	gen := s.Generation()
	if k := s.logStart.Load(); k != nil && k[1] == gen {
		return k[0], nil
	}
	resp, err := txn.Query(ctx, `{ q(func: ge(pg.change_version, 1), orderasc: pg.change_version, first: 1) { pg.change_version } }`)
	if err != nil {
		return 0, s.wrap("dgraph.ReadChangeLog", err)
	}
	var res struct {
		Q []struct {
			V int64 `json:"pg.change_version"`
		} `json:"q"`
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return 0, &graph.Error{Op: "dgraph.ReadChangeLog", Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	if len(res.Q) == 0 {
		return version, nil
	}
	start := res.Q[0].V - 1
	s.logStart.Store(&[2]int64{start, gen})
	return start, nil
}
