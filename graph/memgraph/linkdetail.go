package memgraph

import (
	"github.com/polgraph/polgraph/graph"
)

// linkDetail is what a relation's header holds besides its link, as the feed gave it with the link, kept
// in the snapshot beside the link (known is false when the feed gave none, or one that does not fit here:
// answers then read the header from the store). A million relations take about 48 MB of them, holding no
// pointer, so the collector never scans them; the role, via, term, tombstone and merge that few relations
// have live apart (linkRest, in the snapshot's rest).
type linkDetail struct {
	claims  uint32    // every claim, retracted ones too
	verdict [6]uint32 // Verdict.Claims, then SupportingSources and DenyingSources
	dates   [3]uint32 // ValidFrom, ValidTo and Date, packed (packDate)
	known   bool
	// evidence says that the snapshot holds the relation's claims too (snapshot.claims).
	evidence bool
}

type linkRest struct {
	role       string
	datesFrom  string
	via, term  graph.EntityName
	deleted    graph.Tombstone
	mergedInto graph.RelationName
}

// packDate packs a fuzzy date into 32 bits (year, 4 bits of month, 5 of day); ok is false for a date
// outside what that holds.
func packDate(d graph.FuzzyDate) (uint32, bool) {
	if d.Year < 0 || d.Year >= 1<<23 || d.Month < 0 || d.Month > 15 || d.Day < 0 || d.Day > 31 {
		return 0, false
	}
	return uint32(d.Year)<<9 | uint32(d.Month)<<5 | uint32(d.Day), true
}

func unpackDate(p uint32) graph.FuzzyDate {
	return graph.FuzzyDate{Year: int(p >> 9), Month: int(p >> 5 & 15), Day: int(p & 31)}
}

// count32 is n as 32 bits; ok is false when it does not fit.
func count32(n int) (uint32, bool) {
	return uint32(n), n >= 0 && n <= 1<<32-1
}

// detailOf is what header h holds besides link l (and besides its claims), to keep beside it, and the
// rest of it that few relations have (nil when it has none). intern gives one copy of each role. A header
// that does not agree with its link (another type or support) or does not fit is not kept.
func detailOf(h graph.RelationHeader, l *graph.Link, intern func(string) string) (linkDetail, *linkRest) {
	r := &h.Relation
	if r.Name != l.Name || r.Type != l.Type || r.From != l.From || r.To != l.To || h.Support != l.Support {
		return linkDetail{}, nil
	}
	d := linkDetail{known: true}
	ok := true
	var fits bool
	if d.claims, fits = count32(h.ClaimCount); !fits {
		ok = false
	}
	counts := [6]int{h.Verdict.Claims[0], h.Verdict.Claims[1], h.Verdict.Claims[2], h.Verdict.Claims[3], h.Verdict.SupportingSources, h.Verdict.DenyingSources}
	for i, n := range counts {
		if d.verdict[i], fits = count32(n); !fits {
			ok = false
		}
	}
	for i, date := range [3]graph.FuzzyDate{r.ValidFrom, r.ValidTo, r.Date} {
		if d.dates[i], fits = packDate(date); !fits {
			ok = false
		}
	}
	if !ok {
		return linkDetail{}, nil
	}
	if r.Role != "" || r.Via != "" || r.Term != "" || !r.Deleted.IsZero() || r.MergedInto != "" || r.DatesFrom != "" {
		return d, &linkRest{role: intern(r.Role), datesFrom: intern(r.DatesFrom), via: r.Via, term: r.Term, deleted: r.Deleted, mergedInto: r.MergedInto}
	}
	return d, nil
}

// header is the relation header of link l with detail d and the rest x (nil: none), as the feed gave it.
func (d *linkDetail) header(l *graph.Link, x *linkRest) graph.RelationHeader {
	h := graph.RelationHeader{
		Relation: graph.Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To,
			ValidFrom: unpackDate(d.dates[0]), ValidTo: unpackDate(d.dates[1]), Date: unpackDate(d.dates[2])},
		ClaimCount: int(d.claims),
		Support:    l.Support,
		Verdict: graph.Verdict{Claims: [4]int{int(d.verdict[0]), int(d.verdict[1]), int(d.verdict[2]), int(d.verdict[3])},
			SupportingSources: int(d.verdict[4]), DenyingSources: int(d.verdict[5])},
	}
	if x != nil {
		h.Relation.Role, h.Relation.Via, h.Relation.Term, h.Relation.Deleted, h.Relation.MergedInto = x.role, x.via, x.term, x.deleted, x.mergedInto
		h.Relation.DatesFrom = x.datesFrom
	}
	return h
}
