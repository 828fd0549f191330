package dgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Writer = (*Store)(nil)

// maxAttempts bounds the retries of a transaction that Dgraph aborted because another one wrote the same
// keys at the same time.
const maxAttempts = 12

// metaName names the node holding the graph's version (see schema.dql).
const metaName = "meta/graph"

// found is what a write looks up of a resource that already exists.
type found struct {
	UID     string `json:"uid"`
	Name    string `json:"pg.name"`
	Version int64  `json:"pg.version"`     // the meta node's
	Lease   int64  `json:"pg.lease_until"` // the meta node's
	// An entity's lifetime, and (when asked for) its relations.
	StartDay *int `json:"pg.start_day"`
	EndDay   *int `json:"pg.end_day"`
	// A relation's tombstone, when its lookup asks for it.
	DeletedAt *int64 `json:"pg.deleted_at"`
	// gone says, for a resource a write refers to (checkRefs), that it is deleted, or merged into goneInto.
	gone     bool
	goneInto string
	Out      []nameRef `json:"out"`
	In       []nameRef `json:"in"`
	// The resource as read, with every field the lookup asked for, for the audit trail.
	raw    json.RawMessage
	Claims []struct {
		Name       string   `json:"pg.name"`
		Status     string   `json:"pg.status"`
		Confidence float64  `json:"pg.confidence"`
		Source     *nameRef `json:"pg.source"`
		tombstoneJSON
	} `json:"claims"` // a relation's
}

// write is one batch: the resources it writes (looked up in its transaction, with fields), the
// resources they point at (which must exist), and how to build the mutation from what was found.
type write struct {
	op     string
	lookup []string
	fields string
	refs   []string
	mutate func(found map[string]found, refs map[string]string) (del []byte, set []map[string]any, err error)
	// audit, when the context carries a graph.WriteMeta, tells what the write changes (from the resources
	// found, read with auditFields too): its changes go into the trail in the same transaction, and its
	// result into result.
	audit       func(found map[string]found) ([]graph.Change, graph.WriteResult)
	auditFields string
	result      *graph.WriteResult
	// checkRefs reads, in the transaction, which of refs are deleted or merged, and marks them gone in
	// found (for mutate to refuse a write that would join a live relation to one).
	checkRefs bool
	// then, when set, names more resources to read in the same transaction once the first are found (what
	// a merge finds it must touch), each group with its fields; they join found. Its error ends the write.
	then func(found map[string]found) ([]lookupGroup, error)
}

// lookupGroup is resources to read, with the fields to read of them.
type lookupGroup struct {
	names  []string
	fields string
}

// upsert runs a write in one transaction: one query looks up the resources written, the mutation
// replaces their values, and the commit comes with it. A transaction aborted by a concurrent write is
// retried from scratch, in a fresh transaction, with backoff. The uids of the resources pointed at are
// resolved first, from the cache where known: resources are never deleted, so a uid once seen stays right.
func (s *Store) upsert(ctx context.Context, w write) error {
	resolveRefs := func() (map[string]string, error) {
		refs, err := s.resolve(ctx, w.refs)
		if err != nil {
			return nil, err
		}
		for _, n := range w.refs {
			if _, ok := refs[n]; !ok {
				return nil, &graph.Error{Op: w.op, Kind: graph.Invalid, Message: "refers to " + n + ", which is not in the graph"}
			}
		}
		return refs, nil
	}
	refs, err := resolveRefs()
	if err != nil {
		return err
	}
	lagging := 0
	for attempt := 1; ; attempt++ {
		res, err := s.upsertOnce(ctx, w, refs)
		var rep replayed
		if errors.As(err, &rep) {
			res, err = rep.result, nil
		}
		if err == nil {
			if w.result != nil {
				w.result.Add(res)
			}
			return nil
		}
		var ge *graph.Error
		if errors.As(err, &ge) {
			return err
		}
		if retry, lerr := s.lagged(ctx, w.op, err, &lagging); retry {
			if errors.As(err, &graphReplaced{}) {
				// The uids resolved were the old graph's (noteMeta forgot them).
				if refs, err = resolveRefs(); err != nil {
					return err
				}
			}
			attempt--
			continue
		} else if lerr != nil {
			return lerr
		}
		var held leaseHeld
		if errors.As(err, &held) {
			// Not a conflict: look again every second (the load may end sooner), however long it takes.
			s.log.InfoContext(ctx, "a bulk load holds the graph's version; waiting for it", "op", w.op, "held_until", held.until.Format(time.TimeOnly))
			select {
			case <-ctx.Done():
				return s.wrap(w.op, ctx.Err())
			case <-time.After(min(time.Until(held.until), time.Second) + 10*time.Millisecond):
			}
			attempt--
			continue
		}
		if !errors.Is(err, dgo.ErrAborted) {
			return s.wrap(w.op, err)
		}
		if attempt == maxAttempts {
			return &graph.Error{Op: w.op, Kind: graph.Unavailable, Reason: "WRITE_CONFLICTS",
				Message: fmt.Sprintf("gave up after %d attempts: concurrent writes to the same resources kept conflicting", attempt), Err: err}
		}
		s.retries.Add(1)
		// Exponential, capped at 2 s, with jitter so that writers that collided do not collide again.
		base := min(time.Duration(10<<attempt)*time.Millisecond, 2*time.Second)
		backoff := base/2 + time.Duration(rand.Int64N(int64(base)))
		s.log.DebugContext(ctx, "transaction aborted by a concurrent write; retrying", "op", w.op, "attempt", attempt, "backoff", backoff)
		select {
		case <-ctx.Done():
			return s.wrap(w.op, ctx.Err())
		case <-time.After(backoff):
		}
	}
}

// leaseHeld is what a write's mutate returns when a bulk load's hold on the graph's version stands in its
// way: upsert waits until the hold ends or lapses, then tries again.
type leaseHeld struct{ until time.Time }

func (e leaseHeld) Error() string {
	return "a bulk load holds the graph's version until " + e.until.Format(time.TimeOnly)
}

// lookUp reads the named resources' fields in txn, one row at a time.
func (s *Store) lookUp(ctx context.Context, txn writeTxn, names []string, fields string, each func(found, json.RawMessage)) error {
	for _, chunk := range chunks(names, 1000) {
		q, vars := nameBlocks(chunk, fields)
		resp, err := txn.query(ctx, q, vars)
		if err != nil {
			return err
		}
		var res struct{ Q []json.RawMessage }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return err
		}
		for _, raw := range res.Q {
			var r found
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			each(r, raw)
		}
	}
	return nil
}

// upsertOnce runs a write in one transaction and returns, for an audited write, what it changed.
func (s *Store) upsertOnce(ctx context.Context, w write, refs map[string]string) (graph.WriteResult, error) {
	var result graph.WriteResult
	txn := s.newWriteTxn()
	defer txn.Discard(ctx)
	meta, auditing := graph.WriteMetaFrom(ctx)
	auditing = auditing && w.audit != nil
	lookup, request := w.lookup, ""
	if auditing && meta.RequestID != "" {
		request = requestName(meta)
		lookup = append(slices.Clone(lookup), request)
	}
	fields := w.fields
	if request != "" && w.auditFields == "" {
		// The audit reads what the lookup read: the request's result comes with it, in the same query.
		fields += " pg.request_result"
	}
	got := map[string]found{}
	if err := s.lookUp(ctx, txn, lookup, fields, func(r found, raw json.RawMessage) { r.raw = raw; got[r.Name] = r }); err != nil {
		return result, err
	}
	if w.then != nil {
		groups, err := w.then(got)
		if err != nil {
			return result, err
		}
		for _, g := range groups {
			err := s.lookUp(ctx, txn, g.names, g.fields, func(r found, raw json.RawMessage) {
				if _, ok := got[r.Name]; !ok {
					r.raw = raw
					got[r.Name] = r
				}
			})
			if err != nil {
				return result, err
			}
		}
	}
	if w.checkRefs {
		if err := s.markGone(ctx, txn, refs, got); err != nil {
			return result, err
		}
	}
	if auditing && w.auditFields != "" {
		// What the audit reads beyond the lookup's fields, in a query of its own in the same transaction (the
		// same snapshot). A write without auditFields audits from what its lookup read, request included.
		err := s.lookUp(ctx, txn, lookup, w.auditFields+" pg.request_result", func(r found, raw json.RawMessage) {
			if f, ok := got[r.Name]; ok {
				f.raw = raw
				got[r.Name] = f
			}
		})
		if err != nil {
			return result, err
		}
	}
	if f, ok := got[request]; ok && request != "" {
		return result, replayedResult(f.raw, meta)
	}
	del, set, err := w.mutate(got, refs)
	if err != nil {
		return result, err
	}
	if auditing {
		var changes []graph.Change
		changes, result = w.audit(got)
		if len(changes) == 0 {
			// The write changes nothing: nothing is written but its request's record, so that the graph's
			// version stays, and no replica catches up for nothing.
			del, set = nil, nil
		}
		set = append(set, changeNodes(meta, changes, request, result, writtenVersion(set, got[metaName]))...)
	}
	del = dropEmpty(set, del)
	if len(set) == 0 && len(del) == 0 {
		return result, nil // nothing to write
	}
	setList, err := setQuads(set)
	if err != nil {
		return result, err
	}
	// Deletions go first, in their own mutation, so that the values set next replace what was there.
	if len(del) > 0 {
		if _, err := txn.Mutate(ctx, &api.Mutation{DelNquads: del}); err != nil {
			return result, err
		}
	}
	resp, err := txn.Mutate(ctx, &api.Mutation{Set: setList, CommitNow: true})
	if err != nil {
		return result, err
	}
	s.sawWritten(set)
	for _, n := range set {
		if u, ok := n["uid"].(string); ok && strings.HasPrefix(u, "_:") {
			if uid, ok := resp.Uids[u[2:]]; ok {
				if name, ok := n["pg.name"].(string); ok {
					s.remember(name, uid)
				}
			}
		}
	}
	return result, nil
}

// markGone marks in got the resources of refs that are deleted or merged, read in txn by uid (which
// costs little: refs are rarely gone, and the filter reads one posting per uid).
func (s *Store) markGone(ctx context.Context, txn writeTxn, refs map[string]string, got map[string]found) error {
	uids := make([]string, 0, len(refs))
	for _, u := range refs {
		if uidPattern.MatchString(u) {
			uids = append(uids, u)
		}
	}
	slices.Sort(uids)
	for _, chunk := range chunks(uids, 5000) {
		// The uids come from Dgraph (checked above); nothing from the user is in the query.
		q := `{ q(func: uid(` + strings.Join(chunk, ",") + `)) @filter(has(pg.deleted_at)) { pg.name pg.merged_into { pg.name } } }`
		resp, err := txn.query(ctx, q, nil)
		if err != nil {
			return err
		}
		var res struct {
			Q []struct {
				Name   string   `json:"pg.name"`
				Merged *nameRef `json:"pg.merged_into"`
			}
		}
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return err
		}
		for _, r := range res.Q {
			f := got[r.Name]
			f.Name, f.gone = r.Name, true
			if r.Merged != nil {
				f.goneInto = r.Merged.Name
			}
			got[r.Name] = f
		}
	}
	return nil
}

// goneError says why a write may not join a live relation to an entity.
func goneError(op, rel string, f found) error {
	if f.goneInto != "" {
		return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: graph.ReasonMergedMeanwhile,
			Message: fmt.Sprintf("%s: %s was merged into %s meanwhile; send it again", rel, f.Name, f.goneInto)}
	}
	return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_DELETED", Message: fmt.Sprintf("%s: %s is deleted", rel, f.Name)}
}

// dropEmpty makes an empty string mean "no value": it is left out of a new node and deleted from an
// existing one, so the database holds no empty values (nor spends time indexing them).
func dropEmpty(set []map[string]any, del []byte) []byte {
	for _, n := range set {
		uid, _ := n["uid"].(string)
		for k, v := range n {
			if v != "" {
				continue
			}
			delete(n, k)
			if !strings.HasPrefix(uid, "_:") {
				del = fmt.Appendf(del, "<%s> <%s> * .\n", uid, k)
			}
		}
	}
	return del
}

// node returns the JSON object for a resource: its uid when it exists, else a blank node.
func node(got map[string]found, name, typ string) map[string]any {
	if f, ok := got[name]; ok {
		return map[string]any{"uid": f.UID, "pg.name": name, "dgraph.type": typ}
	}
	return map[string]any{"uid": "_:" + blank(name), "pg.name": name, "dgraph.type": typ}
}

// blank turns a resource name into a blank-node label.
func blank(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return "b" + strconv.FormatUint(h.Sum64(), 36)
}

// dropValues lists deletions of every value of preds on a resource that exists.
func dropValues(del *strings.Builder, got map[string]found, name string, preds ...string) {
	f, ok := got[name]
	if !ok {
		return
	}
	for _, p := range preds {
		fmt.Fprintf(del, "<%s> <%s> * .\n", f.UID, p)
	}
}

func uidRef(uid string) map[string]any { return map[string]any{"uid": uid} }

// UpsertSources implements graph.Writer. Like a write of relations, it raises the graph's version (or
// joins the one a bulk load holds) and marks every source written with it, so that a graph held in memory
// reads the sources its claims cite again.
func (s *Store) UpsertSources(ctx context.Context, sources []graph.Source) error {
	return s.upsertSources(ctx, sources, nil)
}

// upsertSources writes sources, in bulk load b when it is not nil.
func (s *Store) upsertSources(ctx context.Context, sources []graph.Source, b *bulk) error {
	names := make([]string, len(sources), len(sources)+1)
	for i, src := range sources {
		names[i] = string(src.Name)
	}
	names = append(names, metaName)
	// The lookup reads each source whole: what the audit compares (one query, not a second for the audit).
	return s.upsert(ctx, write{op: "dgraph.UpsertSources", lookup: names,
		fields: strings.TrimSuffix(sourceFields, " count(~pg.source)") + " pg.version pg.lease_until", result: resultOf(ctx),
		audit: func(got map[string]found) (changes []graph.Change, res graph.WriteResult) {
			for _, src := range sources {
				before := ""
				if old, ok := decodeRaw[sourceJSON](got, string(src.Name)); ok {
					before = graph.RecordJSON(graph.SourceRecord(old.source()))
				}
				diff(&res, &changes, string(src.Name), before, graph.RecordJSON(graph.SourceRecord(src)))
			}
			return changes, res
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), b)
			if err != nil {
				return nil, nil, err
			}
			for _, src := range sources {
				n := node(got, string(src.Name), "Source")
				n["pg.title"], n["pg.source_kind"], n["pg.outlet"] = src.Title, string(src.Kind), src.Outlet
				n["pg.author"], n["pg.published"], n["pg.url"] = src.Author, src.Published.String(), src.URL
				n["pg.retrieved"], n["pg.licence"] = src.Retrieved.String(), src.Licence
				n["pg.changed"], n["pg.pack"] = version, packSource(src, version)
				set = append(set, n)
			}
			return nil, set, nil
		}})
}

// UpsertEntities implements graph.Writer. An entity's lifetime bounds when its relations count, and the
// graph in memory holds it with each relation: so a write that changes the lifetime of an entity that
// exists also raises the graph's version and marks the entity's relations changed.
func (s *Store) UpsertEntities(ctx context.Context, entities []graph.Entity) error {
	return s.upsertEntitiesIn(ctx, entities, nil)
}

// upsertEntitiesIn writes entities, in bulk load b when it is not nil. Like a write of relations, it
// raises the graph's version (or joins the one a bulk load holds) and marks every entity written with
// it, so that a graph held in memory reads them (see graph.ChangeFeed).
func (s *Store) upsertEntitiesIn(ctx context.Context, entities []graph.Entity, b *bulk) error {
	err := s.upsertEntities(ctx, entities, false, b)
	if errors.Is(err, errLifetimeChanged) {
		err = s.upsertEntities(ctx, entities, true, b)
	}
	return err
}

// errLifetimeChanged says that a write of entities changes a lifetime and must mark relations.
var errLifetimeChanged = errors.New("an entity's lifetime changes")

func (s *Store) upsertEntities(ctx context.Context, entities []graph.Entity, markRelations bool, b *bulk) error {
	names := make([]string, len(entities), len(entities)+1)
	for i, e := range entities {
		names[i] = string(e.Name)
	}
	names = append(names, metaName)
	fields := entityFields + " pg.start_day pg.end_day pg.version pg.lease_until"
	if markRelations {
		fields += " out: ~pg.from { uid } in: ~pg.to { uid }"
	}
	return s.upsert(ctx, write{op: "dgraph.UpsertEntities", lookup: names, fields: fields,
		result: resultOf(ctx), // the lookup reads entityFields: the audit reads what it read
		audit: func(got map[string]found) (changes []graph.Change, res graph.WriteResult) {
			for _, e := range entities {
				before := ""
				if old, ok := decodeRaw[entityJSON](got, string(e.Name)); ok {
					before = graph.RecordJSON(graph.EntityRecord(s.entityForTrail(ctx, old)))
					e.Deleted = old.deleted() // a deletion (or merge) stands when the entity is written again
					e.MergedInto = old.mergedInto()
				}
				diff(&res, &changes, string(e.Name), before, graph.RecordJSON(graph.EntityRecord(e)))
			}
			return changes, res
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			var del strings.Builder
			// An entity written again as it is changes nothing: it is not written, and a write of only such
			// entities does not raise the graph's version.
			changed := slices.DeleteFunc(slices.Clone(entities), func(e graph.Entity) bool { return unchangedEntity(got, e) })
			if len(changed) == 0 {
				return nil, nil, nil
			}
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), b)
			if err != nil {
				return nil, nil, err
			}
			var marked []nameRef
			for _, e := range changed {
				dropValues(&del, got, string(e.Name), "pg.aliases", "pg.search_keys", "pg.search_tokens", "pg.ocd_id", "pg.ids", "pg.start_day", "pg.end_day")
				n := node(got, string(e.Name), "Entity")
				n["pg.kind"], n["pg.display_name"], n["pg.description"] = string(e.Kind), e.DisplayName, e.Description
				n["pg.valid_from"], n["pg.valid_to"] = e.ValidFrom.String(), e.ValidTo.String()
				n["pg.aliases"], n["pg.search_keys"], n["pg.search_tokens"] = nonNil(e.Aliases), e.SearchKeys(), e.SearchTokens()
				n["pg.alias_order"] = aliasOrder(e.Aliases)
				life := e.Lifetime()
				if life.Start != graph.OpenPeriod.Start {
					n["pg.start_day"] = life.Start
				}
				if life.End != graph.OpenPeriod.End {
					n["pg.end_day"] = life.End
				}
				if f, ok := got[string(e.Name)]; ok && period(f.StartDay, f.EndDay) != life {
					if !markRelations {
						return nil, nil, errLifetimeChanged
					}
					marked = append(append(marked, f.Out...), f.In...)
				}
				n["pg.identifiers"], n["pg.ids"], n["pg.attributes"] = identifiersJSON(e.Identifiers), idTokens(e.Identifiers), attributesJSON(e.Attributes)
				if ocd := e.Identifiers.First("ocd"); ocd != "" {
					n["pg.ocd_id"] = ocd
				}
				n["pg.changed"] = version
				// The pack holds the entity as it stands after the write: a deletion (or merge) stands, and one
				// given to the write is not made (graph.Tombstones makes them).
				after := e
				after.Deleted, after.MergedInto = graph.Tombstone{}, ""
				if old, ok := decodeRaw[entityJSON](got, string(e.Name)); ok {
					after.Deleted, after.MergedInto = old.deleted(), old.mergedInto()
				}
				if pack, ok := packEntity(after, version); ok {
					n["pg.pack"] = pack
				} else if f, ok := got[string(e.Name)]; ok {
					del.Write(dropPack(nil, f.UID))
				}
				set = append(set, n)
			}
			for _, r := range marked {
				// Marked changed, their packs dropped: a pack stays only stamped with its node's pg.changed.
				set = append(set, map[string]any{"uid": r.UID, "pg.changed": version})
				del.Write(dropPack(nil, r.UID))
			}
			return []byte(del.String()), set, nil
		}})
}

// unchangedEntity reports whether got holds e as it is (a deletion or merge of the stored entity stands
// when it is written again, so those are not compared).
func unchangedEntity(got map[string]found, e graph.Entity) bool {
	old, ok := decodeRaw[entityJSON](got, string(e.Name))
	if !ok || old.Kind == "" {
		return false
	}
	was, err := old.entity()
	if err != nil {
		return false // written again, which replaces what does not decode
	}
	e.Deleted, e.MergedInto = was.Deleted, was.MergedInto
	return graph.RecordJSON(graph.EntityRecord(was)) == graph.RecordJSON(graph.EntityRecord(e))
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// UpsertRelations implements graph.Writer. Besides the relations and their claims it raises the graph's
// version by one and marks every relation written with it (see graph.ChangeFeed); concurrent writers
// therefore conflict on the version, and one of them retries, so versions never repeat. While a bulk
// load holds a version open, the write joins that version instead (and still writes the version node,
// so that it is ordered with the load's end).
func (s *Store) UpsertRelations(ctx context.Context, relations []graph.Relation) error {
	return s.upsertRelations(ctx, relations, nil)
}

func (s *Store) upsertRelations(ctx context.Context, relations []graph.Relation, b *bulk) error {
	var lookup, refs []string
	seen := map[string]bool{}
	add := func(list *[]string, n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			*list = append(*list, n)
		}
	}
	add(&lookup, metaName)
	for _, r := range relations {
		add(&lookup, string(r.Name))
		add(&refs, string(r.From))
		add(&refs, string(r.To))
		add(&refs, string(r.Via))
		add(&refs, string(r.Term))
		for _, c := range r.Claims {
			add(&lookup, c.Name)
			add(&refs, string(c.Source.Name))
			add(&refs, string(c.SaidBy))
		}
	}
	// Each relation is read whole, for its pack (what it holds besides what is written now) and for the
	// audit (its claims' sources in full): one query, where a second for the audit read every relation and
	// claim of the batch again.
	const fields = `uid pg.version pg.lease_until ` + relationFields
	return s.upsert(ctx, write{op: "dgraph.UpsertRelations", lookup: lookup, fields: fields, refs: refs, checkRefs: true,
		result: resultOf(ctx),
		audit: func(got map[string]found) (changes []graph.Change, res graph.WriteResult) {
			for _, r := range relations {
				before, after := "", r
				if old, ok := decodeRaw[relationJSON](got, string(r.Name)); ok {
					prev := old.relation()
					before = relationRecordJSON(prev)
					after.Claims = graph.MergeClaims(prev.Claims, r.Claims)
					after.Deleted = prev.Deleted // a deletion (or merge) stands when the relation is written again
					after.MergedInto = prev.MergedInto
				}
				diff(&res, &changes, string(r.Name), before, relationRecordJSON(after))
			}
			return changes, res
		},
		mutate: func(got map[string]found, refs map[string]string) ([]byte, []map[string]any, error) {
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), b)
			if err != nil {
				return nil, nil, err
			}
			var del strings.Builder
			for _, r := range relations {
				rn := string(r.Name)
				// A live relation joins live entities (a deleted relation stands deleted when written again).
				if f, ok := got[rn]; !ok || f.DeletedAt == nil {
					for _, end := range []graph.EntityName{r.From, r.To} {
						if g := got[string(end)]; g.gone {
							return nil, nil, goneError("dgraph.UpsertRelations", rn, g)
						}
					}
				}
				dropValues(&del, got, rn, "pg.via", "pg.term", "pg.start_day", "pg.end_day")
				n := node(got, rn, "Relation")
				n["pg.rel_type"], n["pg.from"], n["pg.to"], n["pg.role"] = string(r.Type), uidRef(refs[string(r.From)]), uidRef(refs[string(r.To)]), r.Role
				n["pg.valid_from"], n["pg.valid_to"], n["pg.date"] = r.ValidFrom.String(), r.ValidTo.String(), r.Date.String()
				n["pg.dates_from"] = r.DatesFrom
				if r.Via != "" {
					n["pg.via"] = uidRef(refs[string(r.Via)])
				}
				if r.Term != "" {
					n["pg.term"] = uidRef(refs[string(r.Term)])
				}
				p := r.Period()
				if p.Start != graph.OpenPeriod.Start {
					n["pg.start_day"] = p.Start
				}
				if p.End != graph.OpenPeriod.End {
					n["pg.end_day"] = p.End
				}
				// The summary and the pack cover every claim of the relation: those written now and those
				// that other loads wrote (claims from other sources, in other files). A retraction stands
				// when the claim is written again, and a deletion (or merge) when the relation is.
				after := r
				if old, ok := decodeRaw[relationJSON](got, rn); ok {
					prev := old.relation()
					after.Claims = graph.MergeClaims(prev.Claims, r.Claims)
					after.Deleted, after.MergedInto = prev.Deleted, prev.MergedInto
				} else {
					after.Claims = graph.MergeClaims(nil, r.Claims)
					after.Deleted, after.MergedInto = graph.Tombstone{}, ""
				}
				n["pg.support"] = encodeSupport(after.Claims)
				n["pg.changed"] = version
				n["pg.pack"] = packRelation(after, version)
				set = append(set, n)
				for _, c := range r.Claims {
					dropValues(&del, got, c.Name, "pg.said_by")
					cn := node(got, c.Name, "Claim")
					cn["pg.claim_of"] = map[string]any{"uid": n["uid"]}
					cn["pg.source"], cn["pg.excerpt"], cn["pg.confidence"], cn["pg.status"] = uidRef(refs[string(c.Source.Name)]), c.Excerpt, c.Confidence, string(c.Status)
					cn["pg.record"] = c.Record
					if c.SaidBy != "" {
						cn["pg.said_by"] = uidRef(refs[string(c.SaidBy)])
					}
					set = append(set, cn)
				}
			}
			return []byte(del.String()), set, nil
		}})
}

// versionFor returns the version that a write of relations marks them with, and the write of the
// version node that goes with it (none for a bulk load's batches, which must not conflict with each
// other). A write outside a bulk load raises the version by one, recording the time in pg.written_at, or
// joins the version a bulk load holds open (whose End records the time). A bulk load's batch fails when
// the load's hold on its version has lapsed or is about to: readers may then have moved past it.
func (s *Store) versionFor(m found, meta map[string]any, b *bulk) (int64, []map[string]any, error) {
	now := time.Now().UnixMilli()
	margin := s.leaseTime.Milliseconds() / 3
	switch {
	case b != nil:
		if lapsed, err := b.holds(m, now+margin); err != nil {
			return 0, nil, err
		} else if lapsed {
			return 0, nil, &graph.Error{Op: "dgraph.UpsertRelations", Kind: graph.Unavailable, Reason: "LOAD_LEASE_LAPSED",
				Message: fmt.Sprintf("this load's hold on graph version %d lapsed (the load stalled for over %s); load again", b.version, s.leaseTime-s.leaseTime/3)}
		}
		return b.version, nil, nil
	case m.Lease > now && m.Lease-now < margin:
		// A bulk load's hold is about to lapse (it is probably dead): wait until it has.
		return 0, nil, leaseHeld{time.UnixMilli(m.Lease)}
	case m.Lease > now:
		meta["pg.lease_until"] = m.Lease
		return m.Version, []map[string]any{meta}, nil
	default:
		meta["pg.version"], meta["pg.written_at"] = m.Version+1, now
		return m.Version + 1, []map[string]any{meta}, nil
	}
}

// bulk is a bulk load in progress: it holds version open until End, renewing its lease.
type bulk struct {
	s       *Store
	ctx     context.Context // the load's, without its cancellation: what renewals log and trace under
	version int64
	stop    chan struct{}
	stopped chan struct{}
}

var _ graph.BulkWriter = (*Store)(nil)

// BeginBulk implements graph.BulkWriter: it raises the graph's version and holds it open for
// s.leaseTime, renewing the hold every quarter of that until End. A load that finds another load's hold
// waits until it is released or has lapsed.
func (s *Store) BeginBulk(ctx context.Context) (graph.Bulk, error) {
	var version int64
	err := s.upsert(ctx, write{op: "dgraph.BeginBulk", lookup: []string{metaName}, fields: "uid pg.name pg.version pg.lease_until",
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			m := got[metaName]
			if m.Lease > time.Now().UnixMilli() {
				return nil, nil, leaseHeld{time.UnixMilli(m.Lease)} // another load's
			}
			version = m.Version + 1
			meta := node(got, metaName, "Meta")
			meta["pg.version"], meta["pg.lease_until"] = version, time.Now().Add(s.leaseTime).UnixMilli()
			return nil, []map[string]any{meta}, nil
		}})
	if err != nil {
		return nil, err
	}
	b := &bulk{s: s, ctx: context.WithoutCancel(ctx), version: version, stop: make(chan struct{}), stopped: make(chan struct{})}
	go b.renew()
	return b, nil
}

// renew extends the load's hold on its version every quarter of the lease until stopped.
func (b *bulk) renew() {
	defer close(b.stopped)
	t := time.NewTicker(b.s.leaseTime / 4)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(b.ctx, b.s.leaseTime/4)
			err := b.setLease(ctx, time.Now().Add(b.s.leaseTime).UnixMilli(), true)
			cancel()
			if err != nil {
				// The batches will notice when the hold lapses, and fail.
				b.s.log.WarnContext(ctx, "could not renew the load's hold on its graph version", "version", b.version, "err", err)
			}
		}
	}
}

// setLease sets the hold's end, when the hold is still this load's. When it is not, renewing (mustHold)
// fails, and releasing has nothing to do: every batch that succeeded was committed with time to spare.
func (b *bulk) setLease(ctx context.Context, until int64, mustHold bool) error {
	const op = "dgraph.Bulk"
	return b.s.upsert(ctx, write{op: op, lookup: []string{metaName}, fields: "uid pg.name pg.version pg.lease_until",
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			if lapsed, err := b.holds(got[metaName], time.Now().UnixMilli()); err != nil {
				return nil, nil, err
			} else if lapsed {
				if !mustHold {
					return nil, nil, nil
				}
				return nil, nil, &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "LOAD_LEASE_LAPSED",
					Message: fmt.Sprintf("this load's hold on graph version %d had lapsed", b.version)}
			}
			meta := node(got, metaName, "Meta")
			meta["pg.lease_until"] = until
			if until == 0 {
				// The load's relations appear now: the graph was written now.
				meta["pg.written_at"] = time.Now().UnixMilli()
			}
			return nil, []map[string]any{meta}, nil
		}})
}

// holds checks the meta node as a write of the load read it against the load's hold, which must last
// until at least until (unix milliseconds): lapsed when the hold is gone (another version is current, or
// the lease ends before until). A node older than the load's own version is a staleRead: the alpha that
// answered does not show the load's start yet (a replica that lags), and the write starts again (lagged)
// instead of taking the hold for lapsed.
func (b *bulk) holds(m found, until int64) (lapsed bool, err error) {
	if m.Version < b.version {
		return false, staleRead{shows: m.Version, seen: b.version}
	}
	return m.Version != b.version || m.Lease < until, nil
}

// UpsertSources implements graph.Bulk.
func (b *bulk) UpsertSources(ctx context.Context, sources []graph.Source) error {
	return b.s.upsertSources(ctx, sources, b)
}

// UpsertEntities implements graph.Bulk.
func (b *bulk) UpsertEntities(ctx context.Context, entities []graph.Entity) error {
	return b.s.upsertEntitiesIn(ctx, entities, b)
}

// UpsertRelations implements graph.Bulk.
func (b *bulk) UpsertRelations(ctx context.Context, relations []graph.Relation) error {
	return b.s.upsertRelations(ctx, relations, b)
}

// End implements graph.Bulk: it releases the hold, so readers take the version as complete, and records
// the time as when the graph was last written (pg.written_at).
func (b *bulk) End(ctx context.Context) error {
	select {
	case <-b.stop:
		return nil // ended already
	default:
	}
	close(b.stop)
	<-b.stopped
	return b.setLease(ctx, 0, false)
}
