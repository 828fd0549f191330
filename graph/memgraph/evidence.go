package memgraph

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// setSource records a source as written.
func (b *snapshotBuilder) setSource(src graph.Source) {
	i, isNew := b.srcs.number(src.Name)
	src.Name = b.srcs.key(i) // one copy of each name
	if isNew {
		b.source.append(&src)
		return
	}
	b.source.set(i, &src)
}

// claimBlob is a relation's claims, ordered by name, as the snapshot holds them: a count, then for each
// claim a byte of flags, its status's place in ClaimStatuses, its confidence (8 bytes), its source's
// number, and its texts (each a length and bytes): its name (when not ClaimNameFor's), excerpt and record,
// who said it (when someone did), and its retraction (when retracted: the time in unix nanoseconds, who
// and why).
type claimBlob string

const (
	claimNamed = 1 << iota
	claimSaid
	claimRetracted
)

// claimsOf returns the claims of relation h as the snapshot holds them. ok is false when they cannot be
// held (a source the snapshot lacks, a status outside the vocabulary, a retraction dated outside what
// unix nanoseconds hold) or do not agree with the header's summary of them: answers then read the
// relation from the store.
func (b *snapshotBuilder) claimsOf(h *graph.RelationHeader) (blob claimBlob, ok bool) {
	cs := h.Relation.Claims
	if len(cs) != h.ClaimCount || graph.SupportOf(cs) != h.Support || graph.VerdictOf(cs) != h.Verdict {
		return "", false
	}
	if len(cs) == 0 {
		return "", true
	}
	byName := func(x, y graph.Claim) int { return strings.Compare(x.Name, y.Name) }
	if !slices.IsSortedFunc(cs, byName) {
		cs = slices.Clone(cs)
		slices.SortFunc(cs, byName)
	}
	buf := b.blobBuf[:0]
	buf = binary.AppendUvarint(buf, uint64(len(cs)))
	for _, c := range cs {
		src, known := b.srcs.lookup(c.Source.Name)
		status := c.Status.Index()
		if !known || status < 0 {
			return "", false
		}
		var flags byte
		named := !isClaimNameFor(c.Name, h.Relation.Name, c.Source.Name)
		if named {
			flags |= claimNamed
		}
		if c.SaidBy != "" {
			flags |= claimSaid
		}
		if !c.Retracted.IsZero() {
			if y := c.Retracted.Time.Year(); y < 1678 || y > 2261 {
				return "", false
			}
			flags |= claimRetracted
		}
		buf = append(buf, flags, byte(status))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(c.Confidence))
		buf = binary.AppendUvarint(buf, uint64(src))
		if named {
			buf = appendText(buf, c.Name)
		}
		buf = appendText(appendText(buf, c.Excerpt), c.Record)
		if c.SaidBy != "" {
			buf = appendText(buf, string(c.SaidBy))
		}
		if !c.Retracted.IsZero() {
			buf = binary.AppendVarint(buf, c.Retracted.Time.UnixNano())
			buf = appendText(appendText(buf, c.Retracted.By), c.Retracted.Reason)
		}
	}
	b.blobBuf = buf
	return claimBlob(buf), true
}

func appendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// isClaimNameFor reports whether name is ClaimNameFor(rel, src, ""), without building that name.
func isClaimNameFor(name string, rel graph.RelationName, src graph.SourceName) bool {
	rest, ok := strings.CutPrefix(name, string(rel))
	if ok {
		rest, ok = strings.CutPrefix(rest, "/claims/")
	}
	return ok && rest == graph.Slug(src)
}

// claims reads the claims of relation rel back from the blob, each with its source whole.
func (s *topoSnapshot) readClaims(rel graph.RelationName, blob claimBlob) []graph.Claim {
	r := blobReader{s: string(blob)}
	out := make([]graph.Claim, r.uvarint())
	for i := range out {
		flags, status := r.byte(), r.byte()
		c := &out[i]
		c.Status = graph.ClaimStatuses[status]
		c.Confidence = math.Float64frombits(r.uint64())
		c.Source = *s.source.get(int32(r.uvarint()))
		if flags&claimNamed != 0 {
			c.Name = r.text()
		} else {
			c.Name = graph.ClaimNameFor(rel, c.Source.Name, "")
		}
		c.Excerpt, c.Record = r.text(), r.text()
		if flags&claimSaid != 0 {
			c.SaidBy = graph.EntityName(r.text())
		}
		if flags&claimRetracted != 0 {
			c.Retracted.Time = time.Unix(0, r.varint()).UTC()
			c.Retracted.By, c.Retracted.Reason = r.text(), r.text()
		}
	}
	return out
}

// blobReader reads what claimsOf wrote; the snapshot wrote it, so it holds together.
type blobReader struct {
	s string
	i int
}

func (r *blobReader) byte() byte {
	r.i++
	return r.s[r.i-1]
}

func (r *blobReader) uint64() uint64 {
	r.i += 8
	return binary.LittleEndian.Uint64([]byte(r.s[r.i-8 : r.i]))
}

func (r *blobReader) uvarint() uint64 {
	v, n := binary.Uvarint([]byte(r.s[r.i:min(r.i+binary.MaxVarintLen64, len(r.s))]))
	r.i += n
	return v
}

func (r *blobReader) varint() int64 {
	v, n := binary.Varint([]byte(r.s[r.i:min(r.i+binary.MaxVarintLen64, len(r.s))]))
	r.i += n
	return v
}

func (r *blobReader) text() string {
	n := int(r.uvarint())
	r.i += n
	return r.s[r.i-n : r.i]
}

// relation returns relation i whole, its claims and their sources included, as the store reads it; ok is
// false when the snapshot does not hold its evidence.
func (s *topoSnapshot) relation(i int32) (graph.Relation, bool) {
	if !s.detail.at(i).evidence {
		return graph.Relation{}, false
	}
	h, ok := s.header(i)
	if !ok {
		return graph.Relation{}, false
	}
	r := h.Relation
	if blob := s.claims.get(i); blob != "" {
		r.Claims = s.readClaims(r.Name, blob)
	}
	return r, true
}

// relations returns the relations of names that the reader's snapshot holds whole.
func (r topologyReader) relations(names []graph.RelationName) map[graph.RelationName]graph.Relation {
	out := make(map[graph.RelationName]graph.Relation, len(names))
	for _, n := range names {
		if i, ok := r.s.rels.lookup(n); ok {
			if rel, ok := r.s.relation(i); ok {
				out[n] = rel
			}
		}
	}
	return out
}
