package dgraph

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.ChangeFeed = (*Store)(nil)

// changesPage is how many relations one query of Changes reads.
const changesPage = 20000

// Version implements graph.ChangeFeed. While a bulk load holds a version open, the graph's version is the
// one before it.
func (s *Store) Version(ctx context.Context) (int64, error) {
	return s.version(ctx, s.dg.NewReadOnlyTxn())
}

func (s *Store) version(ctx context.Context, txn *dgo.Txn) (int64, error) {
	resp, err := txn.QueryWithVars(ctx, `query q($m: string) { q(func: eq(pg.name, $m)) { pg.version pg.lease_until } }`,
		map[string]string{"$m": metaName})
	if err != nil {
		if strings.Contains(err.Error(), "Schema not defined for predicate") {
			return 0, nil // a Dgraph polgraph's schema was not applied to yet holds no graph
		}
		return 0, s.wrap("dgraph.Version", err)
	}
	var res struct {
		Q []struct {
			Version int64 `json:"pg.version"`
			Lease   int64 `json:"pg.lease_until"`
		}
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return 0, s.wrap("dgraph.Version", err)
	}
	if len(res.Q) == 0 {
		return 0, nil
	}
	v := res.Q[0].Version
	if res.Q[0].Lease > time.Now().UnixMilli() {
		v-- // a bulk load holds its version open: only the one before is complete
	}
	s.sawVersion(v)
	return v, nil
}

// Changes implements graph.ChangeFeed: pages of entities, then of relations, in uid order, all read in
// one read-only transaction, so they and the version returned come from the same snapshot. From version
// 0 it reads every entity (graphs written before entities carried pg.changed hold them all too); after
// it, the entities marked changed since.
func (s *Store) Changes(ctx context.Context, since int64, each func(graph.Changed)) (int64, error) {
	txn := s.dg.NewReadOnlyTxn()
	version, err := s.version(ctx, txn)
	if err != nil {
		return 0, err
	}
	if version <= since {
		return version, nil
	}
	ends, err := s.changedEntities(ctx, txn, since, each)
	if err != nil {
		return 0, err
	}
	// A fill has read every entity already: the relations' ends are then read as bare uids, which costs
	// Dgraph far less than reading each end's name and lifetime again for each of its relations.
	endSel, fields := endFields, linkFields+` `+headerExtraFields
	// Dgraph finds a page's root again for each page, and filters it before it pages it: a fill names the
	// relations by their type, one posting list, instead of every node changed since 0 filtered by
	// has(pg.from), which made each page of a fill read every node of the graph.
	decl, root, vars := `($since: int)`, `gt(pg.changed, $since)`, map[string]string{"$since": strconv.FormatInt(since, 10)}
	filter := ` @filter(has(pg.from))`
	var rare map[string]rareJSON
	if ends != nil {
		endSel, fields = "uid", fillFields
		decl, root, vars, filter = ``, `type(Relation)`, nil, ``
		if rare, err = s.rareFields(ctx, txn); err != nil {
			return 0, err
		}
	}
	after := "0x0"
	for {
		// after is a uid Dgraph returned (checked below); the version travels as a variable.
		q := `query q` + decl + ` { q(func: ` + root + `, first: ` + strconv.Itoa(changesPage) + `, after: ` + after + `)` + filter + ` {
  uid ` + fields + ` pg.from { ` + endSel + ` } pg.to { ` + endSel + ` } } }`
		resp, err := txn.QueryWithVars(ctx, q, vars)
		if err != nil {
			return 0, s.wrap("dgraph.Changes", err)
		}
		var res struct{ Q []changedRelation }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return 0, s.wrap("dgraph.Changes", err)
		}
		batch := make([]graph.Link, 0, len(res.Q))
		headers := make([]graph.RelationHeader, 0, len(res.Q))
		uids := make([][2]string, 0, 3*len(res.Q))
		for _, r := range res.Q {
			if r.From == nil || r.To == nil {
				continue
			}
			if ends != nil {
				if x, ok := rare[r.UID]; ok {
					r.Deleted, r.DeletedBy, r.DeleteReason, r.Term, r.MergedInto = x.Deleted, x.DeletedBy, x.DeleteReason, x.Term, x.MergedInto
				}
				from, okF := ends[r.From.UID]
				to, okT := ends[r.To.UID]
				if !okF || !okT {
					// An end the entity pass did not read (a node without the Entity type): read it here.
					if from, to, err = s.endsOf(ctx, txn, r.UID); err != nil {
						return 0, err
					}
				}
				r.From, r.To = from, to
			}
			link := r.link(nil)
			batch = append(batch, link)
			headers = append(headers, r.header(link))
			uids = append(uids, [2]string{r.Name, r.UID}, [2]string{r.From.Name, r.From.UID}, [2]string{r.To.Name, r.To.UID})
		}
		// Readers of the answers' relations and entities then fetch them by uid.
		s.rememberAll(uids)
		each(graph.Changed{Links: batch, Headers: headers})
		more, next, err := nextPage(res.Q, func(r changedRelation) string { return r.UID })
		if err != nil {
			return 0, err
		}
		if !more {
			return version, nil
		}
		after = next
	}
}

// changedRelation and changedEntity are the rows of Changes' pages. A relation's row holds its link and
// what else its header holds (RelationHeaders reads the same), so that answers need no round trip for
// the headers of the relations they show.
type changedRelation struct {
	UID string `json:"uid"`
	linkJSON
	DeletedBy    string   `json:"pg.deleted_by"`
	DeleteReason string   `json:"pg.delete_reason"`
	Role         string   `json:"pg.role"`
	ValidFrom    string   `json:"pg.valid_from"`
	ValidTo      string   `json:"pg.valid_to"`
	Date         string   `json:"pg.date"`
	Via          *nameRef `json:"pg.via"`
	Term         *nameRef `json:"pg.term"`
	MergedInto   *nameRef `json:"pg.merged_into"`
}

// fillFields are what a fill reads of each relation, its ends aside: its link and header but for what
// few relations have (a tombstone, a term, a merge), which rareFields reads from those predicates' own
// lists. Dgraph reads every predicate asked for of every relation of a page, those a relation lacks too:
// five fewer made the pages of a fill at 100k relations 4.6-4.9 s instead of 5.5-5.9 s.
const fillFields = `pg.name pg.rel_type pg.start_day pg.end_day pg.support pg.role pg.valid_from pg.valid_to pg.date pg.via { pg.name }`

// rareRoots are the predicates that rareFields reads the relations of, and rareSel what it reads of them.
var rareRoots = []string{"pg.deleted_at", "pg.term", "pg.merged_into"}

const rareSel = `uid pg.deleted_at pg.deleted_by pg.delete_reason pg.term { pg.name } pg.merged_into { pg.name }`

// rareJSON is what fillFields leave out.
type rareJSON struct {
	UID          string   `json:"uid"`
	Deleted      *int64   `json:"pg.deleted_at"`
	DeletedBy    string   `json:"pg.deleted_by"`
	DeleteReason string   `json:"pg.delete_reason"`
	Term         *nameRef `json:"pg.term"`
	MergedInto   *nameRef `json:"pg.merged_into"`
}

// rareFields reads, in txn, what fillFields leave out, for every relation that has any of it, by uid.
func (s *Store) rareFields(ctx context.Context, txn *dgo.Txn) (map[string]rareJSON, error) {
	out := map[string]rareJSON{}
	for _, pred := range rareRoots {
		after := "0x0"
		for {
			// pred is one of rareRoots, after a uid Dgraph returned (checked by nextPage).
			q := `{ q(func: has(` + pred + `), first: ` + strconv.Itoa(changesPage) + `, after: ` + after + `) @filter(type(Relation)) { ` + rareSel + ` } }`
			resp, err := txn.Query(ctx, q)
			if err != nil {
				return nil, s.wrap("dgraph.Changes", err)
			}
			var res struct{ Q []rareJSON }
			if err := json.Unmarshal(resp.Json, &res); err != nil {
				return nil, s.wrap("dgraph.Changes", err)
			}
			for _, r := range res.Q {
				out[r.UID] = r
			}
			more, next, err := nextPage(res.Q, func(r rareJSON) string { return r.UID })
			if err != nil {
				return nil, err
			}
			if !more {
				break
			}
			after = next
		}
	}
	return out, nil
}

// headerExtraFields are what a relation's header holds beyond its link (see relationHeaderFields).
const headerExtraFields = `pg.deleted_by pg.delete_reason pg.role pg.valid_from pg.valid_to pg.date pg.via { pg.name } pg.term { pg.name } pg.merged_into { pg.name }`

// header is the relation's header, as RelationHeaders reads it, given its link (whose support it
// shares), or none when its summary predates the count of its claims (counting them here,
// count(~pg.claim_of), made a fill half as long again).
func (r changedRelation) header(link graph.Link) graph.RelationHeader {
	verdict, claims, ok := decodeCounts(r.Support)
	if !ok {
		return graph.RelationHeader{}
	}
	j := relationJSON{tombstoneJSON: tombstoneJSON{DeletedAt: r.Deleted, DeletedBy: r.DeletedBy, DeleteReason: r.DeleteReason},
		Name: r.Name, Type: r.Type, Via: r.Via, Term: r.Term, Role: r.Role, ValidFrom: r.ValidFrom, ValidTo: r.ValidTo, Date: r.Date,
		MergedInto: r.MergedInto}
	if r.From != nil {
		j.From = &nameRef{Name: r.From.Name}
	}
	if r.To != nil {
		j.To = &nameRef{Name: r.To.Name}
	}
	return graph.RelationHeader{Relation: j.relation(), ClaimCount: claims, Support: link.Support, Verdict: verdict}
}

type changedEntity struct {
	entityJSON
	StartDay *int `json:"pg.start_day"`
	EndDay   *int `json:"pg.end_day"`
}

// changedEntities calls each with pages of the entities changed after version since (every entity from
// version 0), read in txn. From version 0 it also returns every entity as a relation's end, by uid.
func (s *Store) changedEntities(ctx context.Context, txn *dgo.Txn, since int64, each func(graph.Changed)) (map[string]*endJSON, error) {
	decl, root, filter := `($since: int)`, `gt(pg.changed, $since)`, ` @filter(type(Entity))`
	vars := map[string]string{"$since": strconv.FormatInt(since, 10)}
	var ends map[string]*endJSON
	if since == 0 {
		decl, root, vars, filter = ``, `type(Entity)`, nil, `` // the type is the root's already
		ends = map[string]*endJSON{}
	}
	after := "0x0"
	for {
		// after is a uid Dgraph returned (checked below); the version travels as a variable.
		q := `query q` + decl + ` { q(func: ` + root + `, first: ` + strconv.Itoa(changesPage) + `, after: ` + after + `)` + filter + ` { ` + entityFields + ` pg.start_day pg.end_day } }`
		resp, err := txn.QueryWithVars(ctx, q, vars)
		if err != nil {
			return nil, s.wrap("dgraph.Changes", err)
		}
		var res struct{ Q []changedEntity }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return nil, s.wrap("dgraph.Changes", err)
		}
		batch := make([]graph.Entity, 0, len(res.Q))
		uids := make([][2]string, 0, len(res.Q))
		for _, r := range res.Q {
			if r.Kind == "" {
				continue
			}
			batch = append(batch, r.entity())
			uids = append(uids, [2]string{r.Name, r.UID})
			if ends != nil {
				ends[r.UID] = &endJSON{UID: r.UID, Name: r.Name, StartDay: r.StartDay, EndDay: r.EndDay}
			}
		}
		s.rememberAll(uids)
		each(graph.Changed{Entities: batch})
		more, next, err := nextPage(res.Q, func(r changedEntity) string { return r.UID })
		if err != nil {
			return nil, err
		}
		if !more {
			return ends, nil
		}
		after = next
	}
}

// endsOf reads the ends of one relation, by its uid, in txn.
func (s *Store) endsOf(ctx context.Context, txn *dgo.Txn, uid string) (from, to *endJSON, err error) {
	if !uidPattern.MatchString(uid) {
		return nil, nil, &graph.Error{Op: "dgraph.Changes", Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + uid}
	}
	resp, err := txn.Query(ctx, `{ q(func: uid(`+uid+`)) { pg.from { `+endFields+` } pg.to { `+endFields+` } } }`)
	if err != nil {
		return nil, nil, s.wrap("dgraph.Changes", err)
	}
	var res struct{ Q []linkJSON }
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return nil, nil, s.wrap("dgraph.Changes", err)
	}
	if len(res.Q) == 0 || res.Q[0].From == nil || res.Q[0].To == nil {
		return nil, nil, &graph.Error{Op: "dgraph.Changes", Kind: graph.Internal, Message: "relation " + uid + " lost an end"}
	}
	return res.Q[0].From, res.Q[0].To, nil
}

// nextPage says whether a page of rows is followed by another (a full page is), and the uid of its last
// row, which the next starts after, checked: it goes into the query text.
func nextPage[T any](rows []T, uid func(T) string) (more bool, after string, err error) {
	if len(rows) < changesPage {
		return false, "", nil
	}
	last := uid(rows[len(rows)-1])
	if !uidPattern.MatchString(last) {
		return false, "", &graph.Error{Op: "dgraph.Changes", Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + last}
	}
	return true, last, nil
}
