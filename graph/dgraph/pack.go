package dgraph

import (
	"time"

	"github.com/polgraph/polgraph/graph"
)

// A pack (pg.pack) is a relation or a source whole, a relation's claims included, in one value: what a
// fill of the graph held in memory reads instead of every predicate of the node and of its claims.
// Dgraph reads each predicate asked for of each node at a few microseconds apiece: at 100k relations one
// page of 20,000 relations took 1.4 s with the dozen predicates a relation has, 3.1 s with its claims
// too, and 0.14-0.24 s for a pack of 400 bytes.
//
// A pack is stamped with the version its write marked the node changed with (pg.changed), and is trusted
// only when the stamp is the node's pg.changed: every write of polgraph's that marks a node changed writes
// its pack again or deletes it, and a write that does not know of packs (an older polgraph, a hand-made
// mutation) marks the node changed at a newer version, so its pack is not used. A catch-up compares each
// pack's stamp with its node's pg.changed; a fill reads no node's pg.changed and counts the stamps
// instead, reading the nodes of a type again, each pack compared, when a count does not hold
// (auditedFill). What a relation's pack leaves out is derived from what it holds, as the writes derive
// it: the period (pg.start_day, pg.end_day), the summary (pg.support) and the count of claims.

// packFormat is the current format of packs; a fill reads the predicates of a node whose pack is of another.
const packFormat = 1

type relationPack struct {
	Format     int         `json:"p"`
	Changed    int64       `json:"v"`
	Name       string      `json:"n"`
	Type       string      `json:"t"`
	From       string      `json:"f"`
	To         string      `json:"o"`
	Role       string      `json:"r,omitempty"`
	Via        string      `json:"via,omitempty"`
	Term       string      `json:"term,omitempty"`
	ValidFrom  string      `json:"vf,omitempty"`
	ValidTo    string      `json:"vt,omitempty"`
	Date       string      `json:"d,omitempty"`
	DatesFrom  string      `json:"df,omitempty"`
	Deleted    *packedMark `json:"del,omitempty"`
	MergedInto string      `json:"m,omitempty"`
	Claims     []claimPack `json:"c,omitempty"`
}

type claimPack struct {
	Name       string      `json:"n,omitempty"` // left out when it is graph.ClaimNameFor(relation, source, "")
	Source     string      `json:"s"`
	Excerpt    string      `json:"x,omitempty"`
	Record     string      `json:"rec,omitempty"`
	Confidence float64     `json:"c"`
	Status     string      `json:"st"`
	SaidBy     string      `json:"by,omitempty"`
	Retracted  *packedMark `json:"ret,omitempty"`
}

// packedMark is a tombstone, its time in unix milliseconds as Dgraph holds it.
type packedMark struct {
	At     int64  `json:"at"`
	By     string `json:"by,omitempty"`
	Reason string `json:"why,omitempty"`
}

func packMark(t graph.Tombstone) *packedMark {
	if t.IsZero() {
		return nil
	}
	return &packedMark{At: t.Time.UnixMilli(), By: t.By, Reason: t.Reason}
}

func (m *packedMark) tombstone() graph.Tombstone {
	if m == nil {
		return graph.Tombstone{}
	}
	return graph.Tombstone{Time: time.UnixMilli(m.At).UTC(), By: m.By, Reason: m.Reason}
}

// packRelation is relation r's pack, written at version: r must be the relation whole, every claim of it
// included, as it stands after the write.
func packRelation(r graph.Relation, version int64) string {
	p := relationPack{Format: packFormat, Changed: version, Name: string(r.Name), Type: string(r.Type), From: string(r.From), To: string(r.To),
		Role: r.Role, Via: string(r.Via), Term: string(r.Term), ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(), Date: r.Date.String(),
		DatesFrom: r.DatesFrom, Deleted: packMark(r.Deleted), MergedInto: string(r.MergedInto)}
	for _, c := range r.Claims {
		cp := claimPack{Source: string(c.Source.Name), Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence, Status: string(c.Status),
			SaidBy: string(c.SaidBy), Retracted: packMark(c.Retracted)}
		if c.Name != graph.ClaimNameFor(r.Name, c.Source.Name, "") {
			cp.Name = c.Name
		}
		p.Claims = append(p.Claims, cp)
	}
	return mustJSON(p)
}

// relation returns the relation a pack holds, its claims naming their sources by name only and ordered
// by name (as GetRelations reads them).
func (p *relationPack) relation() graph.Relation {
	ref := func(name string) *nameRef {
		if name == "" {
			return nil
		}
		return &nameRef{Name: name}
	}
	j := relationJSON{Name: p.Name, Type: p.Type, Role: p.Role, ValidFrom: p.ValidFrom, ValidTo: p.ValidTo, Date: p.Date, DatesFrom: p.DatesFrom,
		From: ref(p.From), To: ref(p.To), Via: ref(p.Via), Term: ref(p.Term), MergedInto: ref(p.MergedInto)}
	r := j.relation()
	r.Deleted = p.Deleted.tombstone()
	for _, c := range p.Claims {
		claim := graph.Claim{Name: c.Name, Source: graph.Source{Name: graph.SourceName(c.Source)}, Excerpt: c.Excerpt, Record: c.Record,
			Confidence: c.Confidence, Status: graph.ClaimStatus(c.Status), SaidBy: graph.EntityName(c.SaidBy), Retracted: c.Retracted.tombstone()}
		if claim.Name == "" {
			claim.Name = graph.ClaimNameFor(r.Name, claim.Source.Name, "")
		}
		r.Claims = append(r.Claims, claim)
	}
	sortClaims(r.Claims)
	return r
}

type sourcePack struct {
	Format  int   `json:"p"`
	Changed int64 `json:"v"`
	sourceJSON
}

// packSource is source s's pack, written at version.
func packSource(s graph.Source, version int64) string {
	return mustJSON(sourcePack{Format: packFormat, Changed: version, sourceJSON: sourceJSON{Name: string(s.Name), Title: s.Title, Kind: string(s.Kind),
		Outlet: s.Outlet, Author: s.Author, Published: s.Published.String(), URL: s.URL, Retrieved: s.Retrieved.String(), Licence: s.Licence}})
}

// entityPack is an entity whole, with its lifetime (pg.start_day, pg.end_day) as its writes derive it.
type entityPack struct {
	Format      int         `json:"p"`
	Changed     int64       `json:"v"`
	Name        string      `json:"n"`
	Kind        string      `json:"k"`
	DisplayName string      `json:"d,omitempty"`
	Aliases     []string    `json:"a,omitempty"`
	Description string      `json:"desc,omitempty"`
	Identifiers string      `json:"ids,omitempty"`
	Attributes  string      `json:"attr,omitempty"`
	ValidFrom   string      `json:"vf,omitempty"`
	ValidTo     string      `json:"vt,omitempty"`
	Deleted     *packedMark `json:"del,omitempty"`
	MergedInto  string      `json:"m,omitempty"`
	StartDay    *int        `json:"s,omitempty"`
	EndDay      *int        `json:"e,omitempty"`
}

// packEntity is entity e's pack, written at version: e as it stands after the write, its tombstone and
// merge included. ok is false for an entity its pack cannot give back as its predicates do (an alias
// given twice, or empty: pg.aliases is a set of values), which is written without one.
func packEntity(e graph.Entity, version int64) (string, bool) {
	seen := make(map[string]bool, len(e.Aliases))
	for _, a := range e.Aliases {
		if a == "" || seen[a] {
			return "", false
		}
		seen[a] = true
	}
	p := entityPack{Format: packFormat, Changed: version, Name: string(e.Name), Kind: string(e.Kind), DisplayName: e.DisplayName,
		Aliases: e.Aliases, Description: e.Description, Identifiers: identifiersJSON(e.Identifiers), Attributes: attributesJSON(e.Attributes),
		ValidFrom: e.ValidFrom.String(), ValidTo: e.ValidTo.String(), Deleted: packMark(e.Deleted), MergedInto: string(e.MergedInto)}
	life := e.Lifetime()
	if life.Start != graph.OpenPeriod.Start {
		p.StartDay = &life.Start
	}
	if life.End != graph.OpenPeriod.End {
		p.EndDay = &life.End
	}
	return mustJSON(p), true
}

// row is the entity a pack holds as the entity pages of Changes read it from its predicates.
func (p *entityPack) row(uid string) changedEntity {
	r := changedEntity{entityJSON: entityJSON{UID: uid, Name: p.Name, Kind: p.Kind, DisplayName: p.DisplayName, Aliases: p.Aliases,
		Description: p.Description, Identifiers: p.Identifiers, Attributes: p.Attributes, AliasOrder: aliasOrder(p.Aliases),
		ValidFrom: p.ValidFrom, ValidTo: p.ValidTo}}
	if p.Deleted != nil {
		at := p.Deleted.At
		r.DeletedAt, r.DeletedBy, r.DeleteReason = &at, p.Deleted.By, p.Deleted.Reason
	}
	if p.MergedInto != "" {
		r.MergedInto = &nameRef{Name: p.MergedInto}
	}
	r.StartDay, r.EndDay = p.StartDay, p.EndDay
	return r
}
