package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"

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

// version reads the graph's version in txn. It reads the meta node by its uid once it knows it (at 1M
// relations 0.86 / 1.62 ms median / p99 against 1.04 / 3.42 through the name index), and checks that the
// node still carries the meta node's name: a graph dropped and loaded again has a meta node of its own,
// found through the index as at first.
func (s *Store) version(ctx context.Context, txn *dgo.Txn) (int64, error) {
	type meta struct {
		UID     string `json:"uid"`
		Name    string `json:"pg.name"`
		Version int64  `json:"pg.version"`
		Lease   int64  `json:"pg.lease_until"`
	}
	// read returns the first node of the answer, or only the meta node when byUID.
	read := func(q string, vars map[string]string, byUID bool) (*meta, error) {
		resp, err := txn.QueryWithVars(ctx, q, vars)
		if err != nil {
			return nil, err
		}
		var res struct{ Q []meta }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return nil, err
		}
		for _, m := range res.Q {
			if !byUID || m.Name == metaName {
				return &m, nil
			}
		}
		return nil, nil
	}
	var m *meta
	var err error
	if uid := s.metaUID.Load(); uid != nil {
		m, err = read(`query q($u: string) { q(func: uid($u)) { uid pg.name pg.version pg.lease_until } }`, map[string]string{"$u": *uid}, true)
	}
	if m == nil && err == nil {
		m, err = read(`query q($m: string) { q(func: eq(pg.name, $m)) { uid pg.version pg.lease_until } }`, map[string]string{"$m": metaName}, false)
	}
	if err != nil {
		if strings.Contains(err.Error(), "Schema not defined for predicate") {
			return 0, nil // a Dgraph polgraph's schema was not applied to yet holds no graph
		}
		return 0, s.wrap("dgraph.Version", err)
	}
	if m == nil {
		return 0, nil
	}
	v := m.Version
	if m.Lease > time.Now().UnixMilli() {
		v-- // a bulk load holds its version open: only the one before is complete
	}
	if m.UID != "" && s.noteMeta(ctx, m.UID, v) == metaOlder {
		// An alpha behind a graph dropped and written again: it shows nothing of the graph now in Dgraph.
		return 0, nil
	}
	s.sawVersion(v)
	return v, nil
}

// Changes implements graph.ChangeFeed: pages of sources, then of entities, then of relations, in uid
// order, all read in one read-only transaction, so they and the version returned come from the same
// snapshot. From version 0 it reads every source and entity (graphs written before they carried
// pg.changed hold them all too); after it, those marked changed since. Each relation comes with its
// header and its claims (graph.Changed.Evidence), read from its pack where the pack can be used (pack.go).
func (s *Store) Changes(ctx context.Context, since int64, each func(graph.Changed)) (int64, error) {
	ctx = withPinnedAlpha(ctx) // the version and the changes up to it, from one alpha
	txn := s.dg.NewReadOnlyTxn()
	version, err := s.version(ctx, txn)
	if err != nil {
		return 0, err
	}
	if version <= since {
		return version, nil
	}
	if err := s.changedSources(ctx, txn, since, each); err != nil {
		return 0, err
	}
	ends, err := s.changedEntities(ctx, txn, since, each)
	if err != nil {
		return 0, err
	}
	// Dgraph finds a page's root again for each page, and filters it before it pages it: a fill names the
	// relations by their type, one posting list, instead of every node changed since 0 filtered by
	// has(pg.from), which made each page of a fill read every node of the graph. A fill has read every
	// entity already, so a pack's ends are found by name among them; a catch-up reads the ends' lifetimes
	// with each relation.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var txnMu sync.Mutex
	query := func(q string, vars map[string]string) (*api.Response, error) {
		txnMu.Lock()
		defer txnMu.Unlock()
		return txn.QueryWithVars(ctx, q, vars)
	}
	if ends == nil {
		rq := relationsQuery{decl: `($since: int)`, root: `gt(pg.changed, $since)`, vars: map[string]string{"$since": strconv.FormatInt(since, 10)},
			filter: ` @filter(has(pg.from))`, sel: `uid pg.changed pg.pack pg.from { ` + endFields + ` } pg.to { ` + endFields + ` }`}
		if err := s.changedRelations(ctx, query, rq, nil, nil, each); err != nil {
			return 0, err
		}
		return version, ctx.Err()
	}
	// A fill reads no relation's pg.changed: it trusts each pack's stamp and checks the stamps afterwards,
	// all at once (auditedFill).
	err = s.auditedFill(ctx, "Relation", query, func(audit *stampAudit) error {
		rq := relationsQuery{root: `type(Relation)`, sel: `uid pg.pack`}
		if !audit.counting() {
			rq.sel = `uid pg.changed pg.pack`
		}
		return s.changedRelations(ctx, query, rq, ends, audit, each)
	})
	if err != nil {
		return 0, err
	}
	return version, ctx.Err()
}

// relationsQuery is what one read of relations by Changes asks: the root of its pages (with its
// variables and their declaration), their filter and what it selects of each relation.
type relationsQuery struct {
	decl, root, filter, sel string
	vars                    map[string]string
}

// changedRelations reads the relations rq names, in pages, and calls each with them: from their packs,
// where they can be used, and otherwise from their predicates. With ends (a fill), a pack's ends are
// found by name among them. With a counting audit, the packs' stamps are not checked against pg.changed
// (rq does not ask for it) but counted in audit, and so are the pg.changed of the relations read from
// their predicates; with a mending one, the relations whose packs are stale are collected in it.
func (s *Store) changedRelations(ctx context.Context, query func(string, map[string]string) (*api.Response, error), rq relationsQuery, ends map[string]*endJSON, audit *stampAudit, each func(graph.Changed)) error {
	// Three steps overlap, a page apart: Dgraph reads a page, the page before is unpacked, and the one
	// before that is handed on (at a million relations, Dgraph's reads and polgraph's decoding took about
	// as long as each other, one after the other). dgo's transaction takes one query at a time.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type page struct {
		rows     []packedRow
		c        graph.Changed
		unpacked []string // the uids of the rows whose packs could not be used
		err      error
	}
	read, unpacked := make(chan page, 1), make(chan page, 1)
	send := func(ch chan<- page, p page) bool {
		select {
		case ch <- p:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer close(read)
		for after := "0x0"; ; {
			// after is a uid Dgraph returned (checked by nextPage); the version travels as a variable.
			q := `query q` + rq.decl + ` { q(func: ` + rq.root + `, first: ` + strconv.Itoa(changesPage) + `, after: ` + after + `)` + rq.filter + ` {
  ` + rq.sel + ` } }`
			resp, err := query(q, rq.vars)
			if err != nil {
				send(read, page{err: s.wrap("dgraph.Changes", err)})
				return
			}
			rows, err := readRows(resp.Json, scanPackedRow)
			if err != nil {
				send(read, page{err: s.wrap("dgraph.Changes", err)})
				return
			}
			more, next, err := nextPage(rows, func(r packedRow) string { return r.UID })
			if !send(read, page{rows: rows, err: err}) || !more || err != nil {
				return
			}
			after = next
		}
	}()
	go func() {
		defer close(unpacked)
		for p := range read {
			if p.err == nil {
				p.c, p.unpacked = unpackPage(p.rows, ends, audit)
			}
			if !send(unpacked, p) {
				return
			}
		}
	}()
	for p := range unpacked {
		if p.err != nil {
			return p.err
		}
		s.packsUsed.Add(int64(len(p.rows) - len(p.unpacked)))
		s.packsMissed.Add(int64(len(p.unpacked)))
		// The uids of relations read from their packs are not kept: the graph held in memory answers for
		// them (a million of them took 85 MB). Readers of the other relations and their ends then fetch
		// them by uid.
		uids, err := s.unpackedRelations(ctx, query, p.unpacked, &p.c, audit)
		if err != nil {
			return err
		}
		s.rememberAll(uids)
		each(p.c)
	}
	return ctx.Err()
}

// unpackPage returns the relations of a page that can be read from their packs, and the uids of those
// that cannot.
func unpackPage(rows []packedRow, ends map[string]*endJSON, audit *stampAudit) (c graph.Changed, unpacked []string) {
	c = graph.Changed{Evidence: true, Links: make([]graph.Link, 0, len(rows)), Headers: make([]graph.RelationHeader, 0, len(rows))}
	for _, r := range rows {
		rel, from, to, stamp, ok := r.unpack(ends, audit.counting())
		if !ok {
			audit.saw(r, stamp)
			unpacked = append(unpacked, r.UID)
			continue
		}
		audit.used(stamp)
		link := packedLink(&rel, from, to)
		c.Links = append(c.Links, link)
		c.Headers = append(c.Headers, headerOf(rel, link))
	}
	return c, unpacked
}

// packedRow is a row of Changes' pages of relations: the relation's pack, with its ends' lifetimes in a
// catch-up.
type packedRow struct {
	UID     string   `json:"uid"`
	Changed *int64   `json:"pg.changed"`
	Pack    string   `json:"pg.pack"`
	From    *endJSON `json:"pg.from"`
	To      *endJSON `json:"pg.to"`
}

// unpack returns the relation a row's pack holds, whole, its ends (from the row in a catch-up, by name
// from ends in a fill) and the pack's stamp; ok is false when the pack cannot be used: there is none, it
// is of another format or stamped with another version than the relation's pg.changed (unless audited:
// then the stamp is checked afterwards, by stampAudit), or an end is unknown.
func (r packedRow) unpack(ends map[string]*endJSON, audited bool) (rel graph.Relation, from, to *endJSON, stamp int64, ok bool) {
	if r.Pack == "" || (r.Changed == nil && !audited) {
		return rel, nil, nil, 0, false
	}
	p, read := readPack(r.Pack, scanRelationPack)
	if !read || p.Format != packFormat || p.From == "" || p.To == "" {
		return rel, nil, nil, 0, false
	}
	if r.Changed != nil && p.Changed != *r.Changed {
		return rel, nil, nil, p.Changed, false
	}
	if ends != nil {
		from, to = ends[p.From], ends[p.To]
	} else {
		from, to = r.From, r.To
	}
	if from == nil || to == nil || from.Name != p.From || to.Name != p.To {
		return rel, nil, nil, 0, false
	}
	return p.relation(), from, to, p.Changed, true
}

// packedLink is the link of a relation read from its pack, whose ends are from and to: what Links reads
// of it, its period and summary derived as its writes derive them.
func packedLink(r *graph.Relation, from, to *endJSON) graph.Link {
	period := r.Period()
	l := graph.Link{Name: r.Name, Type: r.Type, From: r.From, To: r.To, Period: period, Dated: period != graph.OpenPeriod,
		Life: graph.LifeOf(r.Type, from.life(), to.life()), Support: graph.SupportOf(r.Claims), Deleted: !r.Deleted.IsZero()}
	l.Symmetric = l.Type.Symmetric()
	return l
}

// headerOf is relation r's header, its claims kept, given its link.
func headerOf(r graph.Relation, link graph.Link) graph.RelationHeader {
	return graph.RelationHeader{Relation: r, ClaimCount: len(r.Claims), Support: link.Support, Verdict: graph.VerdictOf(r.Claims)}
}

// unpackedRelations reads, with query and by uid, the relations of a page whose packs could not be used,
// whole, and adds them to c; it returns their uids and their ends', by name.
//
// With a counting audit, it counts in it the pg.changed of each relation it reads.
func (s *Store) unpackedRelations(ctx context.Context, query func(string, map[string]string) (*api.Response, error), uids []string, c *graph.Changed, audit *stampAudit) (names [][2]string, err error) {
	changedSel := ``
	if audit.counting() {
		changedSel = `pg.changed `
	}
	for _, chunk := range chunks(uids, 2000) {
		for _, u := range chunk {
			if !uidPattern.MatchString(u) {
				return nil, &graph.Error{Op: "dgraph.Changes", Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + u}
			}
		}
		// The uids come from Dgraph (checked above); nothing from the user is in the query.
		q := `{ q(func: uid(` + strings.Join(chunk, ",") + `)) { uid ` + changedSel + linkFields + ` ` + headerExtraFields + ` ` + claimsField + `
  pg.from { ` + endFields + ` } pg.to { ` + endFields + ` } } }`
		resp, err := query(q, nil)
		if err != nil {
			return nil, s.wrap("dgraph.Changes", err)
		}
		var res struct{ Q []changedRelation }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return nil, s.wrap("dgraph.Changes", err)
		}
		for _, r := range res.Q {
			audit.readWhole(r.Changed) // asked for by a counting audit only
			if r.From == nil || r.To == nil {
				continue
			}
			link := r.link(nil)
			c.Links = append(c.Links, link)
			c.Headers = append(c.Headers, r.header(link))
			names = append(names, [2]string{r.Name, r.UID}, [2]string{r.From.Name, r.From.UID}, [2]string{r.To.Name, r.To.UID})
		}
	}
	return names, nil
}

// changedRelation is a relation read from its predicates: its link, what else its header holds
// (RelationHeaders reads the same), and its claims.
type changedRelation struct {
	UID     string `json:"uid"`
	Changed *int64 `json:"pg.changed"`
	linkJSON
	DeletedBy    string      `json:"pg.deleted_by"`
	DeleteReason string      `json:"pg.delete_reason"`
	Role         string      `json:"pg.role"`
	ValidFrom    string      `json:"pg.valid_from"`
	ValidTo      string      `json:"pg.valid_to"`
	Date         string      `json:"pg.date"`
	DatesFrom    string      `json:"pg.dates_from"`
	Via          *nameRef    `json:"pg.via"`
	Term         *nameRef    `json:"pg.term"`
	MergedInto   *nameRef    `json:"pg.merged_into"`
	Claims       []claimJSON `json:"claims"`
}

// claimsField reads a relation's claims, each naming its source.
const claimsField = `claims: ~pg.claim_of { pg.name pg.excerpt pg.record pg.confidence pg.status pg.said_by { pg.name } ` + retractedFields + ` pg.source { pg.name } }`

// changedSources calls each with pages of the sources changed after version since (every source from
// version 0), read in txn.
func (s *Store) changedSources(ctx context.Context, txn *dgo.Txn, since int64, each func(graph.Changed)) error {
	return packedPages(ctx, s, txn, since, "Source", strings.TrimSuffix(sourceFields, " count(~pg.source)"), unpackSource, func(rows []sourceJSON) {
		batch := make([]graph.Source, 0, len(rows))
		for _, r := range rows {
			if r.Name != "" {
				batch = append(batch, r.source())
			}
		}
		each(graph.Changed{Sources: batch})
	})
}

// unpackSource is the source a row's pack holds, as the pages of Changes read it, and the pack's stamp (0
// when it cannot be read, or is of another format); ok is false when the pack cannot be used: it cannot be
// read, is of another format, or is stamped with another version than the row's pg.changed, when the row
// has one.
func unpackSource(r packedRow) (sourceJSON, int64, bool) {
	p, read := readPack(r.Pack, scanSourcePack)
	if !read || p.Format != packFormat || p.Name == "" {
		return sourceJSON{}, 0, false
	}
	return p.sourceJSON, p.Changed, r.Changed == nil || p.Changed == *r.Changed
}

// unpackEntity is the entity a row's pack holds, as the pages of Changes read it from its predicates, and
// the pack's stamp, as unpackSource gives them.
func unpackEntity(r packedRow) (changedEntity, int64, bool) {
	p, read := readPack(r.Pack, scanEntityPack)
	if !read || p.Format != packFormat || p.Name == "" || p.Kind == "" {
		return changedEntity{}, 0, false
	}
	if r.Changed != nil && p.Changed != *r.Changed {
		return changedEntity{}, p.Changed, false
	}
	return p.row(r.UID), p.Changed, true
}

// packedPages calls each with pages of the nodes of type typ changed after version since (every one from
// version 0), read in txn: from their packs, where unpack can use them, and otherwise from their
// predicates, by uid, with fields. A fill (from version 0) reads no node's pg.changed and audits the
// packs' stamps afterwards (stampAudit), reading every node again when the audit fails; a catch-up gives
// unpack only rows with a pack and a pg.changed.
func packedPages[T any](ctx context.Context, s *Store, txn *dgo.Txn, since int64, typ, fields string, unpack func(packedRow) (T, int64, bool), each func([]T)) error {
	if since > 0 {
		return packedRead(ctx, s, txn, since, typ, fields, unpack, nil, each)
	}
	return s.auditedFill(ctx, typ, func(q string, vars map[string]string) (*api.Response, error) { return txn.QueryWithVars(ctx, q, vars) },
		func(audit *stampAudit) error { return packedRead(ctx, s, txn, since, typ, fields, unpack, audit, each) })
}

// packedRead is one read of packedPages: with a counting audit, its packs' stamps are counted in it and
// not checked; with a mending one, they are checked and the stale ones collected.
func packedRead[T any](ctx context.Context, s *Store, txn *dgo.Txn, since int64, typ, fields string, unpack func(packedRow) (T, int64, bool), audit *stampAudit, each func([]T)) error {
	decl, root, filter := `($since: int)`, `gt(pg.changed, $since)`, ` @filter(type(`+typ+`))`
	vars := map[string]string{"$since": strconv.FormatInt(since, 10)}
	if since == 0 {
		decl, root, vars, filter = ``, `type(`+typ+`)`, nil, `` // the type is the root's already
	}
	sel := `uid pg.changed pg.pack`
	if audit.counting() {
		sel, fields = `uid pg.pack`, fields+` pg.changed`
	}
	for after := "0x0"; ; {
		// typ is polgraph's own; after is a uid Dgraph returned (checked by nextPage); the version travels
		// as a variable.
		q := `query q` + decl + ` { q(func: ` + root + `, first: ` + strconv.Itoa(changesPage) + `, after: ` + after + `)` + filter + ` { ` + sel + ` } }`
		resp, err := txn.QueryWithVars(ctx, q, vars)
		if err != nil {
			return s.wrap("dgraph.Changes", err)
		}
		page, err := readRows(resp.Json, scanPackedRow)
		if err != nil {
			return s.wrap("dgraph.Changes", err)
		}
		rows := make([]T, 0, len(page))
		var unpacked []string
		for _, r := range page {
			var stamp int64
			if r.Pack != "" && (r.Changed != nil || audit.counting()) {
				row, st, ok := unpack(r)
				if ok {
					rows = append(rows, row)
					audit.used(st)
					continue
				}
				stamp = st
			}
			audit.saw(r, stamp)
			unpacked = append(unpacked, r.UID)
		}
		s.packsUsed.Add(int64(len(rows)))
		s.packsMissed.Add(int64(len(unpacked)))
		for _, chunk := range chunks(unpacked, 2000) {
			for _, u := range chunk {
				if !uidPattern.MatchString(u) {
					return &graph.Error{Op: "dgraph.Changes", Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + u}
				}
			}
			// The uids come from Dgraph (checked above); nothing from the user is in the query.
			resp, err := txn.Query(ctx, `{ q(func: uid(`+strings.Join(chunk, ",")+`)) { `+fields+` } }`)
			if err != nil {
				return s.wrap("dgraph.Changes", err)
			}
			var more struct{ Q []T }
			if err := json.Unmarshal(resp.Json, &more); err != nil {
				return s.wrap("dgraph.Changes", err)
			}
			if audit.counting() {
				var changed struct {
					Q []struct {
						Changed *int64 `json:"pg.changed"`
					}
				}
				if err := json.Unmarshal(resp.Json, &changed); err != nil {
					return s.wrap("dgraph.Changes", err)
				}
				for _, c := range changed.Q {
					audit.readWhole(c.Changed)
				}
			}
			rows = append(rows, more.Q...)
		}
		each(rows)
		more, next, err := nextPage(page, func(r packedRow) string { return r.UID })
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		after = next
	}
}

// headerExtraFields are what a relation's header holds beyond its link (see relationHeaderFields).
const headerExtraFields = `pg.deleted_by pg.delete_reason pg.role pg.valid_from pg.valid_to pg.date pg.dates_from pg.via { pg.name } pg.term { pg.name } pg.merged_into { pg.name }`

// header is the relation's header, as RelationHeaders reads it, with its claims, given its link (whose
// support it shares), or none when its summary predates the count of its claims.
func (r changedRelation) header(link graph.Link) graph.RelationHeader {
	verdict, claims, ok := decodeCounts(r.Support)
	if !ok {
		return graph.RelationHeader{}
	}
	j := relationJSON{tombstoneJSON: tombstoneJSON{DeletedAt: r.Deleted, DeletedBy: r.DeletedBy, DeleteReason: r.DeleteReason},
		Name: r.Name, Type: r.Type, Via: r.Via, Term: r.Term, Role: r.Role, ValidFrom: r.ValidFrom, ValidTo: r.ValidTo, Date: r.Date, DatesFrom: r.DatesFrom,
		MergedInto: r.MergedInto, Claims: r.Claims}
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
// version 0), read in txn. From version 0 it also returns every entity as a relation's end, by name.
func (s *Store) changedEntities(ctx context.Context, txn *dgo.Txn, since int64, each func(graph.Changed)) (map[string]*endJSON, error) {
	var ends map[string]*endJSON
	if since == 0 {
		ends = map[string]*endJSON{}
	}
	var undecoded error // the first entity that does not decode, which ends the read
	err := packedPages(ctx, s, txn, since, "Entity", entityFields+` pg.start_day pg.end_day`, unpackEntity, func(rows []changedEntity) {
		if undecoded != nil {
			return
		}
		batch := make([]graph.Entity, 0, len(rows))
		uids := make([][2]string, 0, len(rows))
		for _, r := range rows {
			if r.Kind == "" {
				continue
			}
			e, err := r.entity()
			if err != nil {
				undecoded = fmt.Errorf("dgraph.Changes: %w", err)
				return
			}
			batch = append(batch, e)
			uids = append(uids, [2]string{r.Name, r.UID})
			if ends != nil {
				ends[r.Name] = &endJSON{UID: r.UID, Name: r.Name, StartDay: r.StartDay, EndDay: r.EndDay}
			}
		}
		s.rememberAll(uids)
		each(graph.Changed{Entities: batch})
	})
	if err == nil {
		err = undecoded
	}
	return ends, err
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
