package graph

import "slices"

// SourceFilter keeps the claims of some sources only: a relation then counts through the claims it keeps
// (and only when they come from at least MinOutlets independent outlets). The zero SourceFilter keeps
// every claim.
type SourceFilter struct {
	Kinds   []SourceKind // empty: any kind ("datasets only" is Kinds: DATASET)
	Outlets []string     // empty: any outlet; else one of these, whatever its case (SameOutlet)
	Sources []SourceName // empty: any source; else one of these
	// MinOutlets, when above 1, keeps a relation only when its kept supporting claims (any status but
	// DENIED, not retracted) come from at least this many outlets (a source without an outlet is its own).
	MinOutlets int
}

// Limits on a source filter's lists.
const (
	MaxSourceFilterNames = 100
	MaxMinOutlets        = 10
)

// IsZero reports whether the filter keeps every claim.
func (f SourceFilter) IsZero() bool {
	return len(f.Kinds) == 0 && len(f.Outlets) == 0 && len(f.Sources) == 0 && f.MinOutlets <= 1
}

// Keeps reports whether the filter keeps the claims of source s.
func (f SourceFilter) Keeps(s Source) bool {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, s.Kind) {
		return false
	}
	if len(f.Outlets) > 0 && !slices.ContainsFunc(f.Outlets, func(o string) bool { return SameOutlet(o, s.Outlet) }) {
		return false
	}
	return len(f.Sources) == 0 || slices.Contains(f.Sources, s.Name)
}

// Kept returns the claims of r the filter keeps: none when they fall short of MinOutlets.
func (f SourceFilter) Kept(r Relation) []Claim {
	var kept []Claim
	outlets := map[string]bool{}
	for _, c := range r.Claims {
		if !f.Keeps(c.Source) {
			continue
		}
		kept = append(kept, c)
		if c.Retracted.IsZero() && c.Status != StatusDenied && c.Status.Index() >= 0 {
			outlets[outletOf(c.Source)] = true
		}
	}
	if f.MinOutlets > 1 && len(outlets) < f.MinOutlets {
		return nil
	}
	return kept
}

// Validate reports every problem with the filter, naming fields under prefix (e.g. "sources.").
func (f SourceFilter) Validate(prefix string, v *Violations) {
	if CheckCount(v, prefix+"kinds", len(f.Kinds), len(SourceKinds)*2) {
		for i, k := range f.Kinds {
			if !slices.Contains(SourceKinds, k) {
				v.Add(Indexed(prefix+"kinds", i), "%q is not a source kind", Truncate(string(k), 40))
			}
		}
	}
	if CheckCount(v, prefix+"outlets", len(f.Outlets), MaxSourceFilterNames) {
		for i, o := range f.Outlets {
			if len(o) == 0 || len(o) > MaxOutlet {
				v.Add(Indexed(prefix+"outlets", i), "must be 1 to %d bytes", MaxOutlet)
			}
		}
	}
	if CheckCount(v, prefix+"names", len(f.Sources), MaxSourceFilterNames) {
		for i, n := range f.Sources {
			checkSourceName(v, Indexed(prefix+"names", i), n)
		}
	}
	if f.MinOutlets < 0 || f.MinOutlets > MaxMinOutlets {
		v.Add(prefix+"min_outlets", "must be between 0 and %d, got %d", MaxMinOutlets, f.MinOutlets)
	}
}
