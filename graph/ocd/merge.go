package ocd

import (
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
)

// Graph is what an import reads of the graph it merges into; *dgraph.Store is one.
type Graph interface {
	// EntitiesByOCD returns, for each division id, the entities whose identifiers.ocd it is.
	EntitiesByOCD(ctx context.Context, ids []string) (map[string][]graph.Entity, error)
	// GetEntities returns the entities with these names that exist, keyed by name.
	GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error)
}

// Known is what the graph already holds that an import must merge with.
type Known struct {
	// ByOCD maps a division id to the entities that hold it: one, unless the graph is inconsistent.
	ByOCD map[string][]graph.Entity
	// ByName holds the entities that already have a name a new seat of the list could take, in any
	// collection, since slugs are unique across collections.
	ByName map[graph.EntityName]graph.Entity
}

// Lookup reads from g what the list must merge with. It returns g's errors.
func (l *List) Lookup(ctx context.Context, g Graph) (Known, error) {
	byOCD, err := g.EntitiesByOCD(ctx, l.IDs())
	if err != nil {
		return Known{}, fmt.Errorf("ocd.Lookup: %w", err)
	}
	var names []graph.EntityName
	for _, d := range l.Divisions {
		if len(byOCD[d.ID]) > 0 {
			continue // the division keeps the name it has
		}
		for _, slug := range d.candidates() {
			for _, c := range graph.Collections {
				names = append(names, graph.EntityName(c+"/"+slug))
			}
		}
	}
	byName, err := g.GetEntities(ctx, names)
	if err != nil {
		return Known{}, fmt.Errorf("ocd.Lookup: %w", err)
	}
	return Known{ByOCD: byOCD, ByName: byName}, nil
}

// candidates lists the slugs a new seat for d may take, in order of preference: its own, then qualified
// by its parent.
func (d Division) candidates() []string {
	out := []string{d.Slug}
	if p := parentSlug(d.ID); p != "" && !strings.HasSuffix(d.Slug, "-"+p) {
		out = append(out, d.Slug+"-"+p)
	}
	return out
}

// Dataset builds what an import of the list writes, merged with what the graph holds (see Lookup):
//
//   - a division whose id an entity already holds (as identifiers.ocd) keeps that entity: its name,
//     display name, aliases and description stay, the list's name is added as an alias when it is another
//     spelling, and the list's dates replace the entity's where the list gives them;
//   - every other division becomes a new seat named seats/<slug> (see Division.Slug), or, when an entity
//     of any collection already has that slug, seats/<slug>-<parent> (seats/weavers-uki);
//   - each sameAs becomes a SUCCEEDED_BY relation from the division to its successor with one REPORTED
//     claim of confidence 1 from the list's Source, whose excerpt is the row's sameAsNote or, without
//     one, the row itself; it is dated the successor's validFrom, else the day after the division's
//     validThrough, else the date a note such as "2024-07-04: The boundaries of …" begins with.
//
// Building twice from the same list and graph gives the same dataset, and loading it twice changes
// nothing. Dataset returns an Invalid error, writing nothing, when the graph stands in the way: an id held
// by two entities or by an entity that is not a seat, or a division whose names are both taken.
func (l *List) Dataset(known Known) (*dataset.Dataset, error) {
	var problems graph.Violations
	add := func(d Division, field, format string, args ...any) {
		problems.Add(fmt.Sprintf("%s:%d: %s", l.File, d.Line, field), format, args...)
	}
	src := l.Source()
	names := make(map[string]graph.EntityName, len(l.Divisions))
	entities := make([]graph.Entity, 0, len(l.Divisions))
	taken := map[string]bool{} // slugs this import gives or keeps
	for _, d := range l.Divisions {
		holders := known.ByOCD[d.ID]
		switch {
		case len(holders) > 1:
			held := make([]string, len(holders))
			for i, e := range holders {
				held[i] = string(e.Name)
			}
			add(d, "id", "%s is held by %d entities in the graph (%s); merge them before importing", d.ID, len(holders), strings.Join(held, ", "))
		case len(holders) == 1 && holders[0].Kind != graph.KindSeat:
			add(d, "id", "%s is held by %s, which is not a seat", d.ID, holders[0].Name)
		case len(holders) == 1:
			names[d.ID] = holders[0].Name
			taken[graph.Slug(holders[0].Name)] = true
		}
	}
	free := func(slug string) bool {
		if taken[slug] {
			return false
		}
		for _, c := range graph.Collections {
			if _, ok := known.ByName[graph.EntityName(c+"/"+slug)]; ok {
				return false
			}
		}
		return true
	}
	for _, d := range l.Divisions {
		if holders := known.ByOCD[d.ID]; len(holders) > 0 {
			if _, ok := names[d.ID]; ok {
				entities = append(entities, merge(holders[0], d))
			}
			continue
		}
		cands := d.candidates()
		i := slices.IndexFunc(cands, free)
		if i < 0 {
			add(d, "id", "every name for this seat is taken by another entity: %s", strings.Join(cands, ", "))
			continue
		}
		taken[cands[i]] = true
		names[d.ID] = graph.EntityName("seats/" + cands[i])
		entities = append(entities, newSeat(names[d.ID], d))
	}

	byID := make(map[string]Division, len(l.Divisions))
	for _, d := range l.Divisions {
		byID[d.ID] = d
	}
	var relations []graph.Relation
	for _, d := range l.Divisions {
		from, to := names[d.ID], names[d.SameAs]
		if d.SameAs == "" || from == "" || to == "" {
			continue // no successor, or a problem reported above
		}
		rel := graph.Relation{Type: graph.SucceededBy, From: from, To: to, Date: successionDate(d, byID[d.SameAs])}
		rel.Name = graph.RelationNameFor(from, rel.Type, to, "")
		rel.Claims = []graph.Claim{{Name: graph.ClaimNameFor(rel.Name, src.Name, ""), Source: src,
			Excerpt: excerpt(d), Confidence: 1, Status: graph.StatusReported}}
		relations = append(relations, rel)
	}
	if err := problems.Err("ocd.Dataset", fmt.Sprintf("%d problem(s) merging %s with the graph; nothing was written", len(problems), l.File)); err != nil {
		return nil, err
	}
	return &dataset.Dataset{Sources: []graph.Source{src}, Entities: entities, Relations: relations,
		TextFiles: map[graph.SourceName]string{}}, nil
}

// newSeat is the seat for a division the graph does not hold yet.
func newSeat(name graph.EntityName, d Division) graph.Entity {
	return graph.Entity{Name: name, Kind: graph.KindSeat, DisplayName: d.Name, Description: description(d),
		Identifiers: graph.Identifiers{"ocd": {d.ID}}, ValidFrom: d.ValidFrom, ValidTo: d.ValidThrough}
}

// merge is an existing seat with what the list says of it.
func merge(e graph.Entity, d Division) graph.Entity {
	out := e
	out.Identifiers = e.Identifiers.Clone()
	out.Identifiers.Add("ocd", d.ID)
	out.Aliases = slices.Clone(e.Aliases)
	if !slices.Contains(e.SearchKeys(), graph.NormalizeName(d.Name)) {
		out.Aliases = append(out.Aliases, d.Name)
	}
	if out.DisplayName == "" {
		out.DisplayName = d.Name
	}
	if out.Description == "" {
		out.Description = description(d)
	}
	if !d.ValidFrom.IsZero() {
		out.ValidFrom = d.ValidFrom
	}
	if !d.ValidThrough.IsZero() {
		out.ValidTo = d.ValidThrough
	}
	return out
}

// description says what a new seat is: the lists of UK constituencies use `ed:` (electoral district) ids.
func description(d Division) string {
	if strings.HasPrefix(d.ID, "ocd-division/country:gb/") && strings.HasPrefix(d.ID[strings.LastIndex(d.ID, "/")+1:], "ed:") {
		return "UK parliamentary constituency."
	}
	return "Electoral division."
}

// successionDate is when succ replaced d, when the list says.
func successionDate(d, succ Division) graph.FuzzyDate {
	switch {
	case !succ.ValidFrom.IsZero():
		return succ.ValidFrom
	case !d.ValidThrough.IsZero():
		return nextDay(d.ValidThrough)
	}
	if day, _, ok := strings.Cut(d.SameAsNote, ":"); ok {
		if date, err := parseDay(strings.TrimSpace(day)); err == nil {
			return date
		}
	}
	return graph.FuzzyDate{}
}

// excerpt is what a succession claim quotes: the row's note, or the row itself as CSV.
func excerpt(d Division) string {
	if d.SameAsNote != "" {
		return d.SameAsNote
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(d.row) // writing to a strings.Builder cannot fail
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}
