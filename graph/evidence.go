package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// HopEvidence is what backs one hop of a route, over the relations the hop shows: its supporting claims
// (a status the filter counts, at least its confidence, not retracted), the distinct sources and outlets
// they come from, and the denials against it.
type HopEvidence struct {
	Claims, Sources, Outlets int
	Denials, DenyingOutlets  int
	// Confidence is the best supporting claim's.
	Confidence float64
	// Score is how well the hop is evidenced, 0 to 1: Support × (1 − Against), where Support is the chance
	// that at least one outlet is right, 1 − ∏(1 − cₒ) over the outlets, cₒ the best confidence of an
	// outlet's supporting claims (sources of one outlet are not independent; a source that names no outlet
	// is an outlet of its own), and Against the same over the denying claims. Rounded to 6 decimals.
	Score float64
}

// RouteEvidence is how well a route is evidenced: as well as its weakest hop.
type RouteEvidence struct {
	Score   float64 // the weakest hop's
	Weakest int     // the index of the weakest hop (the first, among equals)
	Hops    []HopEvidence
}

// outletOf is the outlet a source speaks for: its outlet, whatever its case, or the source itself.
func outletOf(s Source) string {
	if o := strings.ToLower(strings.TrimSpace(s.Outlet)); o != "" {
		return "outlet:" + o
	}
	return "source:" + string(s.Name)
}

// EvidenceOfHop weighs the claims of the relations a hop shows under f (see HopEvidence).
func EvidenceOfHop(f RelationFilter, rels []Relation) HopEvidence {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = DefaultStatuses
	}
	var h HopEvidence
	support, against := map[string]float64{}, map[string]float64{}
	sources := map[SourceName]bool{}
	for _, r := range rels {
		for _, c := range r.Claims {
			if !c.Retracted.IsZero() {
				continue
			}
			o := outletOf(c.Source)
			if c.Status == StatusDenied {
				h.Denials++
				against[o] = max(against[o], c.Confidence)
				continue
			}
			if !slices.Contains(statuses, c.Status) || c.Confidence < f.MinConfidence {
				continue
			}
			h.Claims++
			sources[c.Source.Name] = true
			support[o] = max(support[o], c.Confidence)
			h.Confidence = max(h.Confidence, c.Confidence)
		}
	}
	h.Sources, h.Outlets, h.DenyingOutlets = len(sources), len(support), len(against)
	h.Score = round6(noisyOr(support) * (1 - noisyOr(against)))
	return h
}

// noisyOr is 1 − ∏(1 − p) over the outlets' confidences, taken in outlet order so that it is the same
// number however they were gathered.
func noisyOr(byOutlet map[string]float64) float64 {
	keys := make([]string, 0, len(byOutlet))
	for k := range byOutlet {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	miss := 1.0
	for _, k := range keys {
		miss *= 1 - byOutlet[k]
	}
	return 1 - miss
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// EvidenceOfRoute weighs each hop of p, its relations read from rels, under f.
func EvidenceOfRoute(f RelationFilter, p Path, rels map[RelationName]Relation) RouteEvidence {
	e := RouteEvidence{Score: 1}
	for i, h := range p.Hops {
		var rs []Relation
		for _, st := range h.Relations {
			if r, ok := rels[st.Relation]; ok {
				rs = append(rs, r)
			}
		}
		he := EvidenceOfHop(f, rs)
		e.Hops = append(e.Hops, he)
		if i == 0 || he.Score < e.Score {
			e.Score, e.Weakest = he.Score, i
		}
	}
	return e
}

// ByEvidence orders routes shortest first and, among equal lengths, best evidenced first: by score (the
// weakest hop's), then by the weakest hop's outlets, sources and claims, most first, then by the names of
// their entities (ComparePaths).
func ByEvidence(p, q Path) int {
	a, b := p.Evidence, q.Evidence
	var wa, wb HopEvidence
	if a.Weakest < len(a.Hops) {
		wa = a.Hops[a.Weakest]
	}
	if b.Weakest < len(b.Hops) {
		wb = b.Hops[b.Weakest]
	}
	return cmp.Or(cmp.Compare(p.Len(), q.Len()), -cmp.Compare(a.Score, b.Score), -cmp.Compare(wa.Outlets, wb.Outlets),
		-cmp.Compare(wa.Sources, wb.Sources), -cmp.Compare(wa.Claims, wb.Claims), ComparePaths(p, q))
}

// Reason says in words why a route ranks where it does, naming each entity by name(n): "evidence 0.95:
// its weakest hop, Lutfur Rahman — Labour, has 2 claims from 2 sources in 2 outlets (best 0.90), no
// denial".
func (e RouteEvidence) Reason(p Path, name func(EntityName) string) string {
	if len(e.Hops) == 0 {
		return ""
	}
	w := e.Hops[e.Weakest]
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	denials := "no denial"
	if w.Denials > 0 {
		denials = plural(w.Denials, "denial", "denials") + " from " + plural(w.DenyingOutlets, "outlet", "outlets")
	}
	which := "its weakest hop"
	if len(e.Hops) == 1 {
		which = "its one hop"
	}
	return fmt.Sprintf("evidence %.2f: %s, %s — %s, has %s from %s in %s (best %.2f), %s", e.Score, which,
		name(p.Entities[e.Weakest]), name(p.Entities[e.Weakest+1]), plural(w.Claims, "claim", "claims"),
		plural(w.Sources, "source", "sources"), plural(w.Outlets, "outlet", "outlets"), w.Confidence, denials)
}

// RankRoutes orders weighed routes (each Evidence set), shortest first, as FindPaths answers them.
// Without longerBy, by ByEvidence. With it, the routes at most longerBy hops longer than the shortest come
// first, ranked together by their score less LongerHopCost for each hop beyond the shortest (a longer
// route goes ahead of a shorter one only when it is that much better evidenced), then by length and as
// ByEvidence; the longer routes follow, by ByEvidence.
func RankRoutes(paths []Path, longerBy int) {
	if longerBy <= 0 || len(paths) == 0 {
		slices.SortStableFunc(paths, ByEvidence)
		return
	}
	shortest := slices.MinFunc(paths, func(p, q Path) int { return cmp.Compare(p.Len(), q.Len()) }).Len()
	within := func(p Path) bool { return p.Len() <= shortest+longerBy }
	adjusted := func(p Path) float64 { return round6(p.Evidence.Score - LongerHopCost*float64(p.Len()-shortest)) }
	slices.SortStableFunc(paths, func(p, q Path) int {
		if wp, wq := within(p), within(q); wp != wq {
			if wp {
				return -1
			}
			return 1
		} else if wp {
			if c := -cmp.Compare(adjusted(p), adjusted(q)); c != 0 {
				return c
			}
		}
		return ByEvidence(p, q)
	})
}
