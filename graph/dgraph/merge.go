package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Merger = (*Store)(nil)

// A merge moves the claims of the merged entity's relations to the relations of the same type, with the
// same other end, of the entity it is merged into: to one that exists (a claim it already holds stays
// behind), or to one the merge creates. Each relation left behind is deleted, pointing at where its
// claims went (pg.merged_into), as the merged entity points at the entity it was merged into; a
// relation between the two is deleted (it would join the entity to itself). What the merge did is kept
// on the merged entity (mergeRecord), and undoing it walks the record back. Nothing is ever removed:
// relations the merge created are deleted when it is undone, and revived when the same merge is made
// again.

// mergeRecord is what a merge did, kept (as JSON) on the merged entity so that it can be undone.
type mergeRecord struct {
	Into        string            `json:"into"`
	Aliases     []string          `json:"aliases,omitempty"`     // the names into gained
	Identifiers graph.Identifiers `json:"identifiers,omitempty"` // the identifiers into gained
	Moves       []relationMove    `json:"moves,omitempty"`
	Self        []string          `json:"self,omitempty"`       // relations between the two, deleted
	Via         []string          `json:"via,omitempty"`        // relations whose via was the merged entity
	Term        []string          `json:"term,omitempty"`       // relations whose term was the merged entity
	Attributes  *graph.Attributes `json:"attributes,omitempty"` // what into gained of from's attributes
	SaidBy      []string          `json:"said_by,omitempty"`    // claims said by it (named as after the merge)
}

// relationMove is one relation whose claims a merge moved.
type relationMove struct {
	From    string              `json:"from"`              // the merged entity's relation, deleted by the merge
	To      string              `json:"to"`                // the relation its claims went to
	Created bool                `json:"created,omitempty"` // the merge created To
	Revived *graph.TombstoneOut `json:"revived,omitempty"` // To was deleted, and the merge revived it: how it was deleted
	Claims  []string            `json:"claims,omitempty"`  // the claims moved, by their part after /claims/
}

// Fields read by a merge: of relations (with the uids of everything a merge repoints), and of the two
// entities, with their live relations and what refers to them.
const (
	mergeRelationFields = `uid pg.name pg.rel_type pg.role pg.valid_from pg.valid_to pg.date pg.dates_from pg.start_day pg.end_day ` + deletedFields + `
  pg.merged_into { uid pg.name } pg.from { uid pg.name } pg.to { uid pg.name } pg.via { uid pg.name } pg.term { uid pg.name }
  claims: ~pg.claim_of { uid pg.name pg.excerpt pg.record pg.confidence pg.status pg.said_by { uid pg.name } ` + retractedFields + `
    pg.source { pg.name pg.title pg.source_kind pg.outlet pg.author pg.published pg.url pg.retrieved pg.licence } }`
	mergeEntityFields = `uid pg.name pg.kind pg.display_name pg.aliases pg.alias_order pg.description pg.identifiers pg.attributes pg.valid_from pg.valid_to
  pg.ocd_id pg.merge_record pg.version pg.lease_until ` + deletedFields + ` pg.merged_into { uid pg.name }
  out: ~pg.from @filter(not has(pg.deleted_at)) { uid pg.name pg.rel_type pg.from { pg.name } pg.to { pg.name } }
  in: ~pg.to @filter(not has(pg.deleted_at)) { uid pg.name pg.rel_type pg.from { pg.name } pg.to { pg.name } }
  viaOf: ~pg.via @filter(not has(pg.deleted_at)) { uid pg.name }
  termOf: ~pg.term @filter(not has(pg.deleted_at)) { uid pg.name }
  saidOf: ~pg.said_by { uid pg.name pg.claim_of { pg.name } }`
)

// mergeEntity is an entity as a merge reads it.
type mergeEntity struct {
	entityJSON
	OCD         string    `json:"pg.ocd_id"`
	MergeRecord string    `json:"pg.merge_record"`
	Out         []relRef  `json:"out"`
	In          []relRef  `json:"in"`
	ViaOf       []nameRef `json:"viaOf"`
	TermOf      []nameRef `json:"termOf"`
	SaidOf      []struct {
		nameRef
		Of *nameRef `json:"pg.claim_of"`
	} `json:"saidOf"`
}

// relRef is one of an entity's relations, as much of it as says where a merge moves it.
type relRef struct {
	UID  string   `json:"uid"`
	Name string   `json:"pg.name"`
	Type string   `json:"pg.rel_type"`
	From *nameRef `json:"pg.from"`
	To   *nameRef `json:"pg.to"`
}

// moveTarget is where merging from into into moves a relation of from's: the relation of the same type
// and key between the new ends (ordered anew when the type is symmetric); self when both ends would be
// into.
func moveTarget(r relRef, from, into graph.EntityName) (to string, nf, nt graph.EntityName, self bool, err error) {
	if r.From == nil || r.To == nil {
		return "", "", "", false, fmt.Errorf("relation %s has no ends", r.Name)
	}
	rel := graph.Relation{Name: graph.RelationName(r.Name), Type: graph.RelationType(r.Type), From: graph.EntityName(r.From.Name), To: graph.EntityName(r.To.Name)}
	nf, nt = rel.From, rel.To
	if nf == from {
		nf = into
	}
	if nt == from {
		nt = into
	}
	if nf == into && nt == into {
		return "", nf, nt, true, nil
	}
	if rel.Type.Symmetric() && nf > nt {
		nf, nt = nt, nf
	}
	key, err := graph.RelationKey(rel)
	if err != nil {
		return "", "", "", false, err
	}
	return string(graph.RelationNameFor(nf, rel.Type, nt, key)), nf, nt, false, nil
}

// mergeRelation is a relation as a merge reads it.
type mergeRelation struct {
	relationJSON
	StartDay *int `json:"pg.start_day"`
	EndDay   *int `json:"pg.end_day"`
}

// relState follows one relation through a merge or its undoing: as it was, as it will be, and its node.
type relState struct {
	uid           string // "" until a new relation gets its blank node
	existed       bool
	read          mergeRelation // as the transaction read it, when it existed
	before, after graph.Relation
	node          map[string]any // what the mutation sets on it
}

// mergeWork is a merge (or its undoing) being planned inside its transaction.
type mergeWork struct {
	op      string
	got     map[string]found
	now     time.Time
	by      string
	version int64
	rels    map[string]*relState
	order   []string // relations in the order first touched, for a stable trail
	set     []map[string]any
	del     strings.Builder
	changes []graph.Change
	res     graph.WriteResult
}

func (m *mergeWork) entity(name string) (mergeEntity, bool) {
	var e mergeEntity
	f, ok := m.got[name]
	if !ok || f.raw == nil || json.Unmarshal(f.raw, &e) != nil || e.Kind == "" {
		return e, false
	}
	return e, true
}

// rel is the state of a relation the transaction read (nil when it does not exist).
func (m *mergeWork) rel(name string) *relState {
	if st, ok := m.rels[name]; ok {
		return st
	}
	f, ok := m.got[name]
	var r mergeRelation
	if !ok || f.raw == nil || json.Unmarshal(f.raw, &r) != nil || r.Type == "" {
		return nil
	}
	st := &relState{uid: r.UID, existed: true, read: r, before: r.relation(), node: map[string]any{"uid": r.UID}}
	st.after = st.before
	st.after.Claims = slices.Clone(st.before.Claims)
	m.rels[name] = st
	m.order = append(m.order, name)
	return st
}

// claimUIDs maps the claims of a relation the transaction read to their nodes.
func (m *mergeWork) claimUIDs(name string) map[string]string {
	var r mergeRelation
	out := map[string]string{}
	if f, ok := m.got[name]; ok && f.raw != nil && json.Unmarshal(f.raw, &r) == nil {
		for _, c := range r.Claims {
			out[c.Name] = c.UID
		}
	}
	return out
}

// entitiesChanged marks entities changed at the merge's version, so that the graph in memory reads them
// again, from their predicates: their packs are dropped.
func (m *mergeWork) entitiesChanged(uids ...string) {
	for _, u := range uids {
		m.set = append(m.set, map[string]any{"uid": u, "pg.changed": m.version})
		m.del.Write(dropPack(nil, u))
	}
}

// touched marks a relation changed at the merge's version, with its summary recomputed from its claims.
func (m *mergeWork) touched(st *relState) {
	st.node["pg.changed"] = m.version
	st.node["pg.support"] = encodeSupport(st.after.Claims)
}

func tombstoneSet(n map[string]any, t graph.Tombstone) {
	n["pg.deleted_at"], n["pg.deleted_by"], n["pg.delete_reason"] = t.Time.UnixMilli(), t.By, t.Reason
}

// finish turns every relation's state into the mutation and the trail. A relation that changes (its
// claims moved, a claim's speaker renamed, its tombstone) is marked changed and packed as it will be.
func (m *mergeWork) finish(action string) {
	for _, name := range m.order {
		st := m.rels[name]
		before, after := "", relationRecordJSON(st.after)
		if st.existed {
			before = relationRecordJSON(st.before)
		}
		if _, marked := st.node["pg.changed"]; marked || before != after {
			m.touched(st)
			st.node["pg.pack"] = packRelation(st.after, m.version)
		}
		if len(st.node) > 1 {
			m.set = append(m.set, st.node)
		}
		switch {
		case before == after:
		case before == "":
			m.res.Created = append(m.res.Created, name)
			m.changes = append(m.changes, graph.Change{Resource: name, Action: action, After: after})
		default:
			m.res.Updated = append(m.res.Updated, name)
			m.changes = append(m.changes, graph.Change{Resource: name, Action: action, Before: before, After: after})
		}
	}
}

// entityNode is the mutation of an entity whose names or identifiers change: every name and search key
// replaced.
func (m *mergeWork) entityNode(uid string, e graph.Entity) map[string]any {
	for _, p := range []string{"pg.aliases", "pg.search_keys", "pg.search_tokens", "pg.ocd_id", "pg.ids"} {
		fmt.Fprintf(&m.del, "<%s> <%s> * .\n", uid, p)
	}
	n := map[string]any{"uid": uid, "pg.aliases": nonNil(e.Aliases), "pg.alias_order": aliasOrder(e.Aliases), "pg.search_keys": e.SearchKeys(), "pg.search_tokens": e.SearchTokens(),
		"pg.identifiers": identifiersJSON(e.Identifiers), "pg.ids": idTokens(e.Identifiers), "pg.attributes": attributesJSON(e.Attributes)}
	if ocd := e.Identifiers.First("ocd"); ocd != "" {
		n["pg.ocd_id"] = ocd
	}
	return n
}

// lifetime writes an entity's lifetime when a merge or its undoing changes it (a birth date gained), and
// marks its live relations changed, so that searches see the relations' new bounds.
func (m *mergeWork) lifetime(e mergeEntity, before, after graph.Entity) {
	was, now := before.Lifetime(), after.Lifetime()
	if was == now {
		return
	}
	n := map[string]any{"uid": e.UID}
	for p, day := range map[string]int{"pg.start_day": now.Start, "pg.end_day": now.End} {
		if day == graph.OpenPeriod.Start || day == graph.OpenPeriod.End {
			fmt.Fprintf(&m.del, "<%s> <%s> * .\n", e.UID, p)
		} else {
			n[p] = day
		}
	}
	m.set = append(m.set, n)
	for _, r := range append(slices.Clone(e.Out), e.In...) {
		// Their packs dropped, unless the merge packs them again: Dgraph deletes before it sets.
		m.set = append(m.set, map[string]any{"uid": r.UID, "pg.changed": m.version})
		m.del.Write(dropPack(nil, r.UID))
	}
}

// gainAttributes fills what a lacks of from's attributes (dates, gender) and adds the links, images,
// contact details and other names it does not hold; it returns what was added.
func gainAttributes(a *graph.Attributes, from graph.Attributes) graph.Attributes {
	var gained graph.Attributes
	if a.BirthDate.IsZero() && !from.BirthDate.IsZero() {
		a.BirthDate, gained.BirthDate = from.BirthDate, from.BirthDate
	}
	if a.DeathDate.IsZero() && !from.DeathDate.IsZero() {
		a.DeathDate, gained.DeathDate = from.DeathDate, from.DeathDate
	}
	if a.Gender == "" && from.Gender != "" {
		a.Gender, gained.Gender = from.Gender, from.Gender
	}
	addLinks := func(have *[]graph.WebLink, more []graph.WebLink, got *[]graph.WebLink) {
		for _, l := range more {
			if len(*have) < graph.MaxLinks && !slices.ContainsFunc(*have, func(h graph.WebLink) bool { return h.URL == l.URL }) {
				*have, *got = append(*have, l), append(*got, l)
			}
		}
	}
	addLinks(&a.Links, from.Links, &gained.Links)
	addLinks(&a.Images, from.Images, &gained.Images)
	for _, c := range from.ContactDetails {
		if len(a.ContactDetails) < graph.MaxLinks && !slices.Contains(a.ContactDetails, c) {
			a.ContactDetails, gained.ContactDetails = append(a.ContactDetails, c), append(gained.ContactDetails, c)
		}
	}
	for _, o := range from.OtherNames {
		if !slices.ContainsFunc(a.OtherNames, func(h graph.Alias) bool { return h.Name == o.Name }) {
			a.OtherNames, gained.OtherNames = append(a.OtherNames, o), append(gained.OtherNames, o)
		}
	}
	return gained
}

// loseAttributes takes back what gainAttributes added (what a still holds of it).
func loseAttributes(a *graph.Attributes, gained graph.Attributes) {
	if !gained.BirthDate.IsZero() && a.BirthDate == gained.BirthDate {
		a.BirthDate = graph.FuzzyDate{}
	}
	if !gained.DeathDate.IsZero() && a.DeathDate == gained.DeathDate {
		a.DeathDate = graph.FuzzyDate{}
	}
	if gained.Gender != "" && a.Gender == gained.Gender {
		a.Gender = ""
	}
	a.Links = slices.DeleteFunc(slices.Clone(a.Links), func(l graph.WebLink) bool { return slices.Contains(gained.Links, l) })
	a.Images = slices.DeleteFunc(slices.Clone(a.Images), func(l graph.WebLink) bool { return slices.Contains(gained.Images, l) })
	a.ContactDetails = slices.DeleteFunc(slices.Clone(a.ContactDetails), func(c graph.ContactDetail) bool { return slices.Contains(gained.ContactDetails, c) })
	a.OtherNames = slices.DeleteFunc(slices.Clone(a.OtherNames), func(o graph.Alias) bool { return slices.Contains(gained.OtherNames, o) })
}

// entityChange records what happened to an entity.
func (m *mergeWork) entityChange(action string, before, after graph.Entity) {
	b, a := graph.RecordJSON(graph.EntityRecord(before)), graph.RecordJSON(graph.EntityRecord(after))
	if b != a {
		m.res.Updated = append(m.res.Updated, string(before.Name))
		m.changes = append(m.changes, graph.Change{Resource: string(before.Name), Action: action, Before: b, After: a})
	} else {
		m.res.Unchanged++
	}
}

// versionNow raises the graph's version for the merge (waiting for a bulk load's hold to end: a load's
// batches do not conflict with other writes, so a merge must not run beside one).
func (m *mergeWork) versionNow(s *Store) error {
	meta := m.got[metaName]
	if meta.Lease > m.now.UnixMilli() {
		return leaseHeld{time.UnixMilli(meta.Lease)}
	}
	version, set, err := s.versionFor(meta, node(m.got, metaName, "Meta"), nil)
	if err != nil {
		return err
	}
	m.version = version
	m.set = append(m.set, set...)
	return nil
}

func gone(op string, e mergeEntity, role string) error {
	if e.MergedInto != nil {
		return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_MERGED",
			Message: fmt.Sprintf("%s: %s was merged into %s", role, e.Name, e.MergedInto.Name)}
	}
	return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_DELETED", Message: fmt.Sprintf("%s: %s is deleted", role, e.Name)}
}

// claimSuffix is a claim's name after its relation's: "<source>[-<key>]".
func claimSuffix(claim string) string {
	_, s, _ := strings.Cut(claim, "/claims/")
	return s
}

// MergeEntity implements graph.Merger.
func (s *Store) MergeEntity(ctx context.Context, from, into graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.MergeEntity"
	if from == into {
		return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.Invalid, Message: "an entity cannot be merged into itself"}
	}
	var work *mergeWork
	var res graph.WriteResult
	by := principal(ctx)
	err := s.upsert(ctx, write{op: op, lookup: []string{string(from), string(into), metaName}, fields: mergeEntityFields, result: &res,
		then: func(got map[string]found) ([]lookupGroup, error) {
			// The relations the merge moves, where they go, and the relations and claims that name from.
			var f mergeEntity
			if g, ok := got[string(from)]; ok {
				if err := decodeInto(op, g, &f); err != nil {
					return nil, err
				}
			}
			var names []string
			for _, r := range append(slices.Clone(f.Out), f.In...) {
				names = append(names, r.Name)
				if to, _, _, self, err := moveTarget(r, from, into); err == nil && !self {
					names = append(names, to)
				}
			}
			for _, r := range append(slices.Clone(f.ViaOf), f.TermOf...) {
				names = append(names, r.Name)
			}
			for _, c := range f.SaidOf {
				if c.Of != nil {
					names = append(names, c.Of.Name)
				}
			}
			return []lookupGroup{{names: names, fields: mergeRelationFields}}, nil
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			work = &mergeWork{op: op, got: got, now: time.Now().UTC(), by: by, rels: map[string]*relState{}}
			if err := work.merge(s, ctx, from, into, reason); err != nil {
				return nil, nil, err
			}
			return []byte(work.del.String()), work.set, nil
		},
		audit: func(map[string]found) ([]graph.Change, graph.WriteResult) { return work.changes, work.res },
	})
	return res, err
}

// merge plans a merge. The relations to move, and where they go, must have been read (the first
// lookup's then): moving needs a second read, of names known only from the first.
func (m *mergeWork) merge(s *Store, ctx context.Context, from, into graph.EntityName, reason string) error {
	op := m.op
	fe, ok := m.entity(string(from))
	if !ok {
		return &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(from)}
	}
	ie, ok := m.entity(string(into))
	if !ok {
		return &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(into)}
	}
	if fe.DeletedAt != nil {
		return gone(op, fe, "from")
	}
	if ie.DeletedAt != nil {
		return gone(op, ie, "into")
	}
	if fe.Kind != ie.Kind {
		return &graph.Error{Op: op, Kind: graph.Invalid, Reason: "KINDS_DIFFER", Message: fmt.Sprintf("%s is an %s and %s an %s: only records of one entity merge",
			from, strings.ToLower(fe.Kind), into, strings.ToLower(ie.Kind))}
	}
	fEnt, err := fe.entity()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	iEnt, err := ie.entity()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if k, ok := fEnt.Identifiers.Conflict(iEnt.Identifiers); ok {
		return &graph.Error{Op: op, Kind: graph.Invalid, Reason: "IDENTIFIERS_DIFFER", Message: fmt.Sprintf("%s has the %s id %s and %s the %s id %s: they are not one entity",
			from, k, strings.Join(fEnt.Identifiers[k], ", "), into, k, strings.Join(iEnt.Identifiers[k], ", "))}
	}
	if err := m.versionNow(s); err != nil {
		return err
	}
	m.entitiesChanged(fe.UID, ie.UID)
	rec := mergeRecord{Into: string(into)}

	// into gains from's names and identifiers.
	after := iEnt
	after.Aliases = slices.Clone(iEnt.Aliases)
	for _, n := range append([]string{fEnt.DisplayName}, fEnt.Aliases...) {
		if n != after.DisplayName && !slices.Contains(after.Aliases, n) {
			after.Aliases = append(after.Aliases, n)
			rec.Aliases = append(rec.Aliases, n)
		}
	}
	if len(after.Aliases) > graph.MaxAliases {
		return &graph.Error{Op: op, Kind: graph.Invalid, Reason: "TOO_MANY_ALIASES", Message: fmt.Sprintf("%s would have %d aliases; at most %d", into, len(after.Aliases), graph.MaxAliases)}
	}
	after.Identifiers = iEnt.Identifiers.Clone()
	for _, id := range fEnt.Identifiers.Pairs() {
		if after.Identifiers.Add(id.Scheme, id.Value) {
			rec.Identifiers.Add(id.Scheme, id.Value)
		}
	}
	if n := after.Identifiers.Count(); n > graph.MaxIdentifiers {
		return &graph.Error{Op: op, Kind: graph.Invalid, Reason: "TOO_MANY_IDENTIFIERS", Message: fmt.Sprintf("%s would have %d ids; at most %d", into, n, graph.MaxIdentifiers)}
	}
	if gained := gainAttributes(&after.Attributes, fEnt.Attributes); !gained.IsZero() {
		rec.Attributes = &gained
	}
	if len(rec.Aliases) > 0 || len(rec.Identifiers) > 0 || rec.Attributes != nil {
		m.set = append(m.set, m.entityNode(ie.UID, after))
		m.lifetime(ie, iEnt, after)
	}
	m.entityChange(graph.ActionMerge, iEnt, after)

	// Claims said by from name into.
	saidBy := map[string]bool{}
	for _, c := range fe.SaidOf {
		saidBy[c.Name] = true
	}
	redirectSaidBy := func(st *relState, i int, uid string) {
		if st.after.Claims[i].SaidBy == from {
			st.after.Claims[i].SaidBy = into
			m.set = append(m.set, map[string]any{"uid": uid, "pg.said_by": uidRef(ie.UID)})
			rec.SaidBy = append(rec.SaidBy, st.after.Claims[i].Name)
		}
	}

	// from's relations.
	seen := map[string]bool{}
	for _, ref := range append(slices.Clone(fe.Out), fe.In...) {
		if seen[ref.Name] {
			continue
		}
		seen[ref.Name] = true
		old := m.rel(ref.Name)
		if old == nil || !old.before.Deleted.IsZero() {
			continue
		}
		uids := m.claimUIDs(ref.Name)
		to, nf, nt, self, err := moveTarget(ref, from, into)
		if err != nil {
			return &graph.Error{Op: op, Kind: graph.Internal, Message: "a relation's name cannot be read back", Err: err}
		}
		if self {
			t := graph.Tombstone{Time: m.now, By: m.by, Reason: fmt.Sprintf("the merge of %s into %s would make it join %s to itself", from, into, into)}
			old.after.Deleted = t
			tombstoneSet(old.node, t)
			m.touched(old)
			rec.Self = append(rec.Self, ref.Name)
			continue
		}
		move := relationMove{From: ref.Name, To: to}
		tgt := m.rel(to)
		if tgt == nil {
			// A relation of its own, as from's was, between the new ends.
			tgt = &relState{before: graph.Relation{Name: graph.RelationName(to)}}
			tgt.after = old.before
			tgt.after.Name, tgt.after.From, tgt.after.To, tgt.after.Claims = graph.RelationName(to), nf, nt, nil
			if tgt.after.Via == from {
				tgt.after.Via = into
			}
			if tgt.after.Term == from {
				tgt.after.Term = into
			}
			tgt.node = map[string]any{"uid": "_:" + blank(to), "dgraph.type": "Relation", "pg.name": to, "pg.rel_type": string(old.before.Type),
				"pg.role": old.before.Role, "pg.valid_from": old.before.ValidFrom.String(), "pg.valid_to": old.before.ValidTo.String(), "pg.date": old.before.Date.String(),
				"pg.dates_from": old.before.DatesFrom}
			r := old.read
			end := func(n graph.EntityName, was *nameRef) map[string]any {
				if n == into {
					return uidRef(ie.UID)
				}
				return uidRef(was.UID)
			}
			// The ends swap places only for a symmetric relation ordered anew; its other end is the one
			// that was not from.
			other := r.From
			if graph.EntityName(r.From.Name) == from {
				other = r.To
			}
			if nf == into {
				tgt.node["pg.from"], tgt.node["pg.to"] = uidRef(ie.UID), end(nt, other)
			} else {
				tgt.node["pg.from"], tgt.node["pg.to"] = end(nf, other), uidRef(ie.UID)
			}
			if r.Via != nil {
				tgt.node["pg.via"] = end(tgt.after.Via, r.Via)
			}
			if r.Term != nil {
				tgt.node["pg.term"] = end(tgt.after.Term, r.Term)
			}
			if r.StartDay != nil {
				tgt.node["pg.start_day"] = *r.StartDay
			}
			if r.EndDay != nil {
				tgt.node["pg.end_day"] = *r.EndDay
			}
			m.rels[to] = tgt
			m.order = append(m.order, to)
			move.Created = true
		} else if !tgt.before.Deleted.IsZero() {
			// Deleted once (by an earlier merge's undoing, say): revived with the claims it gains.
			move.Revived = graph.TombstoneOutOf(tgt.before.Deleted)
			tgt.after.Deleted, tgt.after.MergedInto = graph.Tombstone{}, ""
			fmt.Fprintf(&m.del, "<%s> <pg.deleted_at> * .\n<%s> <pg.deleted_by> * .\n<%s> <pg.delete_reason> * .\n<%s> <pg.merged_into> * .\n", tgt.uid, tgt.uid, tgt.uid, tgt.uid)
		}
		tgtUID := tgt.node["uid"]
		held := map[string]bool{}
		for _, c := range tgt.after.Claims {
			held[claimSuffix(c.Name)] = true
		}
		var stay []graph.Claim
		for _, c := range old.before.Claims {
			suffix := claimSuffix(c.Name)
			if held[suffix] {
				stay = append(stay, c) // the relation has this claim already: the duplicate stays behind
				continue
			}
			moved := c
			moved.Name = to + "/claims/" + suffix
			tgt.after.Claims = append(tgt.after.Claims, moved)
			m.set = append(m.set, map[string]any{"uid": uids[c.Name], "pg.name": moved.Name, "pg.claim_of": map[string]any{"uid": tgtUID}})
			redirectSaidBy(tgt, len(tgt.after.Claims)-1, uids[c.Name])
			delete(saidBy, c.Name)
			move.Claims = append(move.Claims, suffix)
		}
		slices.SortFunc(tgt.after.Claims, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
		m.touched(tgt)
		t := graph.Tombstone{Time: m.now, By: m.by, Reason: fmt.Sprintf("merged into %s (the merge of %s into %s)", to, from, into)}
		old.after.Claims, old.after.Deleted, old.after.MergedInto = stay, t, graph.RelationName(to)
		tombstoneSet(old.node, t)
		old.node["pg.merged_into"] = map[string]any{"uid": tgtUID}
		m.touched(old)
		rec.Moves = append(rec.Moves, move)
	}
	// Other relations that name from by via, and claims said by from on relations that did not move.
	for _, v := range fe.ViaOf {
		if st := m.rel(v.Name); !seen[v.Name] && st != nil && st.after.Via == from {
			st.after.Via = into
			st.node["pg.via"] = uidRef(ie.UID)
			rec.Via = append(rec.Via, v.Name)
		}
	}
	for _, v := range fe.TermOf {
		if st := m.rel(v.Name); !seen[v.Name] && st != nil && st.after.Term == from {
			st.after.Term = into
			st.node["pg.term"] = uidRef(ie.UID)
			rec.Term = append(rec.Term, v.Name)
		}
	}
	for _, c := range fe.SaidOf {
		if !saidBy[c.Name] || c.Of == nil || seen[c.Of.Name] {
			continue
		}
		st := m.rel(c.Of.Name)
		if st == nil {
			continue
		}
		for i := range st.after.Claims {
			if st.after.Claims[i].Name == c.Name {
				redirectSaidBy(st, i, c.UID)
			}
		}
	}
	m.finish(graph.ActionMerge)

	// from becomes a tombstone that redirects to into, holding the record of the merge.
	b, _ := json.Marshal(rec)
	t := graph.Tombstone{Time: m.now, By: m.by, Reason: reason}
	n := map[string]any{"uid": fe.UID, "pg.merged_into": uidRef(ie.UID), "pg.merge_record": string(b)}
	tombstoneSet(n, t)
	m.set = append(m.set, n)
	gone := fEnt
	gone.Deleted, gone.MergedInto = t, into
	m.entityChange(graph.ActionMerge, fEnt, gone)
	return nil
}

// UnmergeEntity implements graph.Merger.
func (s *Store) UnmergeEntity(ctx context.Context, from graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.UnmergeEntity"
	var work *mergeWork
	var res graph.WriteResult
	by := principal(ctx)
	recordOf := func(got map[string]found) (mergeRecord, bool) {
		var f mergeEntity
		var rec mergeRecord
		g, ok := got[string(from)]
		if !ok || g.raw == nil || json.Unmarshal(g.raw, &f) != nil || f.MergeRecord == "" || json.Unmarshal([]byte(f.MergeRecord), &rec) != nil {
			return rec, false
		}
		return rec, true
	}
	err := s.upsert(ctx, write{op: op, lookup: []string{string(from), metaName}, fields: mergeEntityFields, result: &res,
		then: func(got map[string]found) ([]lookupGroup, error) {
			rec, ok := recordOf(got)
			if !ok {
				return nil, nil
			}
			var rels []string
			for _, mv := range rec.Moves {
				rels = append(rels, mv.From, mv.To)
			}
			rels = append(append(append(rels, rec.Self...), rec.Via...), rec.Term...)
			for _, c := range rec.SaidBy {
				if r, ok := relationOfClaim(c); ok {
					rels = append(rels, r)
				}
			}
			return []lookupGroup{{names: []string{rec.Into}, fields: mergeEntityFields}, {names: rels, fields: mergeRelationFields}}, nil
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			work = &mergeWork{op: op, got: got, now: time.Now().UTC(), by: by, rels: map[string]*relState{}}
			fe, ok := work.entity(string(from))
			if !ok {
				return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(from)}
			}
			rec, ok := recordOf(got)
			if !ok || fe.MergedInto == nil {
				return nil, nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_NOT_MERGED", Message: string(from) + " is not merged into another entity"}
			}
			if err := work.unmerge(s, fe, rec, reason); err != nil {
				return nil, nil, err
			}
			return []byte(work.del.String()), work.set, nil
		},
		audit: func(map[string]found) ([]graph.Change, graph.WriteResult) { return work.changes, work.res },
	})
	return res, err
}

// unmerge plans the undoing of a merge, from its record.
func (m *mergeWork) unmerge(s *Store, fe mergeEntity, rec mergeRecord, reason string) error {
	op := m.op
	from, into := graph.EntityName(fe.Name), graph.EntityName(rec.Into)
	ie, ok := m.entity(rec.Into)
	if !ok {
		return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_NOT_FOUND", Message: "the entity it was merged into, " + rec.Into + ", is not in the graph"}
	}
	if ie.DeletedAt != nil {
		return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "MERGED_SINCE",
			Message: fmt.Sprintf("%s, which %s was merged into, has since been %s: undo that first", into, from, map[bool]string{true: "merged into " + nameOf(ie.MergedInto), false: "deleted"}[ie.MergedInto != nil])}
	}
	if err := m.versionNow(s); err != nil {
		return err
	}
	m.entitiesChanged(fe.UID, ie.UID)
	undo := graph.Tombstone{Time: m.now, By: m.by, Reason: fmt.Sprintf("the merge of %s into %s was undone: %s", from, into, reason)}
	revive := func(st *relState) {
		st.after.Deleted, st.after.MergedInto = graph.Tombstone{}, ""
		for _, p := range []string{"pg.deleted_at", "pg.deleted_by", "pg.delete_reason", "pg.merged_into"} {
			fmt.Fprintf(&m.del, "<%s> <%s> * .\n", st.uid, p)
		}
	}
	saidBy := map[string]bool{}
	for _, c := range rec.SaidBy {
		saidBy[c] = true
	}
	restoreSaidBy := func(c *graph.Claim, uid string) {
		if c.SaidBy == into {
			c.SaidBy = from
			m.set = append(m.set, map[string]any{"uid": uid, "pg.said_by": uidRef(fe.UID)})
		}
	}
	for i := len(rec.Moves) - 1; i >= 0; i-- {
		mv := rec.Moves[i]
		old, tgt := m.rel(mv.From), m.rel(mv.To)
		if old == nil {
			continue
		}
		revive(old)
		if tgt != nil {
			uids := m.claimUIDs(mv.To)
			back := map[string]bool{}
			for _, sfx := range mv.Claims {
				back[mv.To+"/claims/"+sfx] = true
			}
			var keep []graph.Claim
			for _, c := range tgt.after.Claims {
				if !back[c.Name] {
					keep = append(keep, c)
					continue
				}
				uid := uids[c.Name]
				if saidBy[c.Name] {
					restoreSaidBy(&c, uid)
					delete(saidBy, c.Name)
				}
				c.Name = mv.From + "/claims/" + claimSuffix(c.Name)
				old.after.Claims = append(old.after.Claims, c)
				m.set = append(m.set, map[string]any{"uid": uid, "pg.name": c.Name, "pg.claim_of": uidRef(old.uid)})
			}
			tgt.after.Claims = keep
			switch {
			case mv.Revived != nil && len(keep) == 0:
				t := mv.Revived.Tombstone()
				tgt.after.Deleted = t
				tombstoneSet(tgt.node, t)
			case mv.Created && len(keep) == 0:
				tgt.after.Deleted = undo
				tombstoneSet(tgt.node, undo)
			}
			m.touched(tgt)
		}
		slices.SortFunc(old.after.Claims, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
		m.touched(old)
	}
	for _, name := range rec.Self {
		if st := m.rel(name); st != nil {
			revive(st)
			m.touched(st)
		}
	}
	for _, name := range rec.Via {
		if st := m.rel(name); st != nil && st.after.Via == into {
			st.after.Via = from
			st.node["pg.via"] = uidRef(fe.UID)
		}
	}
	for _, name := range rec.Term {
		if st := m.rel(name); st != nil && st.after.Term == into {
			st.after.Term = from
			st.node["pg.term"] = uidRef(fe.UID)
		}
	}
	for c := range saidBy {
		r, _ := relationOfClaim(c)
		st := m.rel(r)
		if st == nil {
			continue
		}
		uids := m.claimUIDs(r)
		for i := range st.after.Claims {
			if st.after.Claims[i].Name == c {
				restoreSaidBy(&st.after.Claims[i], uids[c])
			}
		}
	}
	m.finish(graph.ActionUnmerge)

	// into loses what it gained (what it still holds of it), and from comes back.
	iEnt, err := ie.entity()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	after := iEnt
	after.Aliases = slices.DeleteFunc(slices.Clone(iEnt.Aliases), func(a string) bool { return slices.Contains(rec.Aliases, a) })
	after.Identifiers = iEnt.Identifiers.Clone()
	for _, id := range rec.Identifiers.Pairs() {
		after.Identifiers[id.Scheme] = slices.DeleteFunc(after.Identifiers[id.Scheme], func(v string) bool { return v == id.Value })
		if len(after.Identifiers[id.Scheme]) == 0 {
			delete(after.Identifiers, id.Scheme)
		}
	}
	if rec.Attributes != nil {
		loseAttributes(&after.Attributes, *rec.Attributes)
	}
	if len(after.Aliases) != len(iEnt.Aliases) || after.Identifiers.Count() != iEnt.Identifiers.Count() || rec.Attributes != nil {
		m.set = append(m.set, m.entityNode(ie.UID, after))
		m.lifetime(ie, iEnt, after)
	}
	m.entityChange(graph.ActionUnmerge, iEnt, after)
	for _, p := range []string{"pg.deleted_at", "pg.deleted_by", "pg.delete_reason", "pg.merged_into", "pg.merge_record"} {
		fmt.Fprintf(&m.del, "<%s> <%s> * .\n", fe.UID, p)
	}
	fEnt, err := fe.entity()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	back := fEnt
	back.Deleted, back.MergedInto = graph.Tombstone{}, ""
	m.entityChange(graph.ActionUnmerge, fEnt, back)
	return nil
}

func nameOf(r *nameRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}

// MergedInto implements graph.Merger. Merged entities are few (a merge is an editor's act, one at a
// time), so it reads them all, in pages, and follows each name through merges of merges in memory.
func (s *Store) MergedInto(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.EntityName, error) {
	at := map[graph.EntityName]graph.EntityName{}
	after := "0x0"
	for {
		// after is a uid Dgraph returned (checked below); nothing from the user is in the query.
		q := `{ q(func: has(pg.merged_into), first: 5000, after: ` + after + `) @filter(type(Entity)) { uid pg.name pg.merged_into { pg.name } } }`
		var res struct {
			Q []struct {
				UID    string   `json:"uid"`
				Name   string   `json:"pg.name"`
				Merged *nameRef `json:"pg.merged_into"`
			}
		}
		if err := s.query(ctx, "dgraph.MergedInto", q, nil, &res); err != nil {
			return nil, err
		}
		for _, r := range res.Q {
			if r.Merged != nil {
				at[graph.EntityName(r.Name)] = graph.EntityName(r.Merged.Name)
			}
		}
		if len(res.Q) < 5000 {
			break
		}
		after = res.Q[len(res.Q)-1].UID
		if !uidPattern.MatchString(after) {
			return nil, &graph.Error{Op: "dgraph.MergedInto", Kind: graph.Internal, Message: "Dgraph returned a malformed uid " + after}
		}
	}
	out := map[graph.EntityName]graph.EntityName{}
	for _, n := range names {
		to, ok := at[n]
		for i := 0; ok && i < 8; i++ {
			further, more := at[to]
			if !more {
				break
			}
			to = further
		}
		if ok {
			out[n] = to
		}
	}
	return out, nil
}
