package graph

import (
	"slices"
	"strings"
)

// The snapshot holds, when the feed gives them (Changed.Evidence), every relation's claims and every
// source, so that an answer reads the relations it shows whole from memory instead of asking the store
// for them: a path's evidence was most of what a path query cost. A claim is held in a small record that
// names its source by number (sources are held once each) and leaves out its name when the name is the one
// ClaimNameFor gives it; a million relations' 1.8 million claims take about 300 MB.

// claimRec is a claim as the snapshot holds it.
type claimRec struct {
	name      string // "" when it is ClaimNameFor(relation, source, "")
	excerpt   string
	record    string
	saidBy    EntityName
	retracted *Tombstone // nil when not retracted
	conf      float64
	source    int32 // the source's number in the snapshot
	status    uint8 // its status's place in ClaimStatuses
}

// setSource records a source as written.
func (b *snapshotBuilder) setSource(src Source) {
	i, isNew := b.srcs.number(src.Name)
	src.Name = b.srcs.key(i) // one copy of each name
	if isNew {
		b.source.append(&src)
		return
	}
	b.source.set(i, &src)
}

// claimsOf returns the claims of relation h as the snapshot holds them, ordered by name, as the store
// reads them. ok is false when they cannot be held (a source the snapshot lacks, a status outside the
// vocabulary) or do not agree with the header's summary of them: answers then read the relation from the
// store.
func (b *snapshotBuilder) claimsOf(h *RelationHeader) (out []claimRec, ok bool) {
	cs := h.Relation.Claims
	if len(cs) != h.ClaimCount || SupportOf(cs) != h.Support || VerdictOf(cs) != h.Verdict {
		return nil, false
	}
	if len(cs) == 0 {
		return nil, true
	}
	byName := func(x, y Claim) int { return strings.Compare(x.Name, y.Name) }
	if !slices.IsSortedFunc(cs, byName) {
		cs = slices.Clone(cs)
		slices.SortFunc(cs, byName)
	}
	out = make([]claimRec, len(cs))
	for i, c := range cs {
		src, known := b.srcs.ids.m.get(c.Source.Name)
		status := c.Status.Index()
		if !known || status < 0 {
			return nil, false
		}
		r := claimRec{excerpt: c.Excerpt, record: c.Record, saidBy: b.sameName(c.SaidBy), conf: c.Confidence, source: src, status: uint8(status)}
		if !isClaimNameFor(c.Name, h.Relation.Name, c.Source.Name) {
			r.name = c.Name
		}
		if !c.Retracted.IsZero() {
			t := c.Retracted
			r.retracted = &t
		}
		out[i] = r
	}
	return out, true
}

// isClaimNameFor reports whether name is ClaimNameFor(rel, src, ""), without building that name.
func isClaimNameFor(name string, rel RelationName, src SourceName) bool {
	rest, ok := strings.CutPrefix(name, string(rel))
	if ok {
		rest, ok = strings.CutPrefix(rest, "/claims/")
	}
	return ok && rest == Slug(src)
}

// relation returns relation i whole, its claims and their sources included, as the store reads it; ok is
// false when the snapshot does not hold its evidence.
func (s *topoSnapshot) relation(i int32) (Relation, bool) {
	d := s.detail.at(i)
	if !d.known || !d.evidence {
		return Relation{}, false
	}
	r := d.header(s.links.at(i)).Relation
	cs := s.claims.get(i)
	if len(cs) == 0 {
		return r, true
	}
	r.Claims = make([]Claim, len(cs))
	for k := range cs {
		c := &cs[k]
		src := s.source.get(c.source)
		name := c.name
		if name == "" {
			name = ClaimNameFor(r.Name, src.Name, "")
		}
		r.Claims[k] = Claim{Name: name, Source: *src, Excerpt: c.excerpt, Record: c.record, Confidence: c.conf,
			Status: ClaimStatuses[c.status], SaidBy: c.saidBy}
		if c.retracted != nil {
			r.Claims[k].Retracted = *c.retracted
		}
	}
	return r, true
}

// relations returns the relations of names that the reader's snapshot holds whole.
func (r topologyReader) relations(names []RelationName) map[RelationName]Relation {
	out := make(map[RelationName]Relation, len(names))
	for _, n := range names {
		if i, ok := r.s.rels.lookup(n); ok {
			if rel, ok := r.s.relation(i); ok {
				out[n] = rel
			}
		}
	}
	return out
}
