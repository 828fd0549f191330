package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// countedLinks resolves the entity a user means (field names the request field) and returns each of its
// relations that counts under f and goes the way d asks, once, and the source it read them from.
func (s *Service) countedLinks(ctx context.Context, field, text string, f graph.RelationFilter, d graph.Direction, sources graph.SourceFilter) (graph.Entity, []graph.Link, graph.View, error) {
	r, err := s.sourceAndEntities(ctx, []string{field}, []string{text})
	if err != nil {
		return graph.Entity{}, nil, nil, err
	}
	src, e := r.src, r.ents[0]
	var links graph.LinkSource = src
	if !sources.IsZero() {
		links = bySources{src: src, view: src, f: sources}
	}
	got, err := links.Links(ctx, []graph.EntityName{e.Name})
	if err != nil {
		return graph.Entity{}, nil, nil, err
	}
	seen := map[graph.RelationName]bool{}
	var out []graph.Link
	for _, l := range got[e.Name] {
		if !seen[l.Name] && f.Counts(l) && d.Allows(l, e.Name) {
			seen[l.Name] = true
			out = append(out, l)
		}
	}
	return e, out, src, nil
}

// relationsInOrder fetches the named relations, with all their claims, in the order named (from the
// snapshot src reads when it holds them); a relation the store no longer has is left out.
func (s *Service) relationsInOrder(ctx context.Context, src graph.View, names []graph.RelationName) ([]graph.Relation, error) {
	if len(names) == 0 {
		return nil, nil
	}
	m, err := src.GetRelations(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Relation, 0, len(names))
	for _, n := range names {
		if r, ok := m[n]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// ListRelations returns one page of the entity's relations that count under the filter and go the way
// asked, NewestFirst, each with all its claims.
func (s *Service) ListRelations(ctx context.Context, q graph.RelationsQuery) (graph.RelationsPage, error) {
	if err := q.Validate(); err != nil {
		return graph.RelationsPage{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = graph.DefaultRelationsPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	e, links, src, err := s.countedLinks(ctx, "entity", q.Entity, q.Filter, q.Direction, q.Sources)
	if err != nil {
		return graph.RelationsPage{}, err
	}
	slices.SortFunc(links, graph.NewestFirst)
	start, end, next := graph.PageBounds(len(links), q.Offset, q.PageSize)
	names := make([]graph.RelationName, 0, end-start)
	for _, l := range links[start:end] {
		names = append(names, l.Name)
	}
	rels, err := s.relationsInOrder(ctx, src, names)
	if err != nil {
		return graph.RelationsPage{}, err
	}
	related, err := s.related(ctx, e.Name, rels)
	if err != nil {
		return graph.RelationsPage{}, err
	}
	return graph.RelationsPage{Entity: e, Relations: rels, Related: related, Total: len(links), NextOffset: next}, nil
}

// related returns every entity the relations name (ends, via) but e, by name.
func (s *Service) related(ctx context.Context, e graph.EntityName, rels []graph.Relation) ([]graph.Entity, error) {
	var names []graph.EntityName
	for _, r := range rels {
		names = append(names, r.From, r.To, r.Via)
	}
	return s.entities(ctx, s.Store, slices.DeleteFunc(names, func(n graph.EntityName) bool { return n == e }))
}

// GetTimeline returns one page of the entity's relations that count under the filter, in valid time:
// the dated ones InTimeOrder, then the undated ones apart, by name.
func (s *Service) GetTimeline(ctx context.Context, q graph.TimelineQuery) (graph.Timeline, error) {
	if err := q.Validate(); err != nil {
		return graph.Timeline{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = graph.DefaultTimelinePageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	e, links, src, err := s.countedLinks(ctx, "entity", q.Entity, q.Filter, graph.DirectionAny, q.Sources)
	if err != nil {
		return graph.Timeline{}, err
	}
	slices.SortFunc(links, graph.InTimeOrder)
	dated := 0
	for dated < len(links) && links[dated].Dated {
		dated++
	}
	start, end, next := graph.PageBounds(len(links), q.Offset, q.PageSize)
	names := make([]graph.RelationName, 0, end-start)
	for _, l := range links[start:end] {
		names = append(names, l.Name)
	}
	rels, err := s.relationsInOrder(ctx, src, names)
	if err != nil {
		return graph.Timeline{}, err
	}
	related, err := s.related(ctx, e.Name, rels)
	if err != nil {
		return graph.Timeline{}, err
	}
	t := graph.Timeline{Entity: e, Related: related, TotalDated: dated, TotalUndated: len(links) - dated, NextOffset: next}
	for _, r := range rels {
		if !r.Dated() {
			t.Undated = append(t.Undated, r)
			continue
		}
		t.Entries = append(t.Entries, graph.TimelineEntry{Relation: r, Event: graph.IsEvent(r), Period: r.Period()})
	}
	return t, nil
}

// GetSource returns the source asked for, how many claims cite it, and one page of them (by name), each
// with the relation it backs. A source may be asked for by its title (see sourceTitled). It returns
// NotFound (SOURCE_NOT_FOUND) for an unknown source, and Invalid (AMBIGUOUS_NAME) for a title several
// sources answer to.
func (s *Service) GetSource(ctx context.Context, q graph.SourceRequest) (graph.SourcePage, error) {
	if err := q.Validate(); err != nil {
		return graph.SourcePage{}, err
	}
	if q.PageSize == 0 {
		q.PageSize = graph.DefaultSourcePageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	q.Offset = max(q.Offset, 0)
	if !q.ByName() {
		var err error
		if q.Name, err = s.sourceTitled(ctx, string(q.Name)); err != nil {
			return graph.SourcePage{}, err
		}
	}
	info, err := s.Store.GetSource(ctx, q.Name, q.Offset, q.PageSize)
	if err != nil {
		return graph.SourcePage{}, err
	}
	var names []graph.EntityName
	for _, c := range info.Claims {
		names = append(names, c.Relation.From, c.Relation.To, c.Claim.SaidBy)
	}
	related, err := s.entities(ctx, s.Store, names)
	if err != nil {
		return graph.SourcePage{}, err
	}
	_, _, next := graph.PageBounds(info.ClaimCount, q.Offset, q.PageSize)
	return graph.SourcePage{SourceInfo: info, Related: related, NextOffset: next}, nil
}

// sourceTitled finds the source a title names, ignoring case, accents and punctuation: the one whose
// title is the text, else the one whose title holds it. It reads every source's title: a source asked for
// by title is a person's question, rare beside the names programs ask for.
func (s *Service) sourceTitled(ctx context.Context, text string) (graph.SourceName, error) {
	const op = "service.GetSource"
	key := graph.NormalizeName(text)
	var exact, partial []graph.Source
	for offset := 0; ; {
		page, total, err := s.Store.ListSources(ctx, graph.SourceQuery{Offset: offset, Limit: 1000})
		if err != nil {
			return "", err
		}
		for _, sum := range page {
			switch title := graph.NormalizeName(sum.Source.Title); {
			case title == key:
				exact = append(exact, sum.Source)
			case strings.Contains(" "+title+" ", " "+key+" "):
				partial = append(partial, sum.Source)
			}
		}
		if offset += len(page); len(page) == 0 || offset >= total {
			break
		}
	}
	found := exact
	if len(found) == 0 {
		found = partial
	}
	switch len(found) {
	case 0:
		return "", &graph.Error{Op: op, Kind: graph.NotFound, Reason: "SOURCE_NOT_FOUND",
			Message: "name: no source is titled " + quote(text) + " (ListSources lists them)"}
	case 1:
		return found[0].Name, nil
	}
	var names []string
	for _, src := range found[:min(len(found), 10)] {
		names = append(names, string(src.Name))
	}
	if len(found) > 10 {
		names = append(names, fmt.Sprintf("and %d more", len(found)-10))
	}
	return "", &graph.Error{Op: op, Kind: graph.Invalid, Reason: "AMBIGUOUS_NAME", Message: "ambiguous source title",
		Violations: []graph.FieldViolation{{Field: "name", Description: fmt.Sprintf("%s is in the titles of %d sources: %s; use a resource name",
			quote(text), len(found), strings.Join(names, ", "))}}}
}

// ListSources returns one page of the sources of a kind and outlet (q.Offset and q.Limit are the page;
// a zero Limit is DefaultSourcesPageSize), in name order, each with how many claims cite it, how many
// match in all, and the offset of the next page (0 on the last).
func (s *Service) ListSources(ctx context.Context, q graph.SourceQuery) ([]graph.SourceSummary, int, int, error) {
	if err := q.Validate(); err != nil {
		return nil, 0, 0, err
	}
	if q.Limit == 0 {
		q.Limit = graph.DefaultSourcesPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	q.Offset = max(q.Offset, 0)
	page, total, err := s.Store.ListSources(ctx, q)
	if err != nil {
		return nil, 0, 0, err
	}
	_, _, next := graph.PageBounds(total, q.Offset, q.Limit)
	return page, total, next, nil
}

// GraphStats counts what the graph holds (see Store.Stats).
func (s *Service) GraphStats(ctx context.Context) (graph.GraphStats, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.Store.Stats(ctx)
}

// countLinks counts an entity's relations by type and direction (outgoing: the entity is the `from` end,
// or either end of a symmetric relation), most first.
func countLinks(e graph.EntityName, links []graph.Link) []graph.RelationCount {
	cs := make([]graph.RelationCount, 0, len(links))
	for _, l := range links {
		cs = append(cs, graph.RelationCount{Type: l.Type, Outgoing: l.From == e || l.Symmetric, Count: 1})
	}
	return graph.SumRelationCounts(cs)
}

// BatchGetEntities returns the entities with these resource names as stored (tombstones included), in
// the order asked, and the names no entity has.
func (s *Service) BatchGetEntities(ctx context.Context, names []string) ([]graph.Entity, []string, error) {
	var v graph.Violations
	if graph.CheckCount(&v, "names", len(names), graph.MaxBatchGet) {
		for i, n := range names {
			if _, err := graph.ParseEntityName(n); err != nil {
				v.Add(fmt.Sprintf("names[%d]", i), "%s is not an entity's resource name (e.g. actors/lutfur-rahman)", quote(graph.Truncate(n, 80)))
			}
		}
	}
	if err := v.Err("service.BatchGetEntities", "invalid request"); err != nil {
		return nil, nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	asked := make([]graph.EntityName, len(names))
	for i, n := range names {
		asked[i] = graph.EntityName(n)
	}
	got, err := s.Store.GetEntities(ctx, asked)
	if err != nil {
		return nil, nil, err
	}
	var found []graph.Entity
	var missing []string
	seen := map[graph.EntityName]bool{}
	for _, n := range asked {
		if seen[n] {
			continue
		}
		seen[n] = true
		if e, ok := got[n]; ok {
			found = append(found, e)
		} else {
			missing = append(missing, string(n))
		}
	}
	return found, missing, nil
}

// LookupEntities returns, in the order asked, each value of an identifier scheme that entities hold, with
// them.
func (s *Service) LookupEntities(ctx context.Context, scheme string, values []string) ([]graph.IdentifierMatch, error) {
	var v graph.Violations
	switch {
	case strings.TrimSpace(scheme) == "":
		v.Add("scheme", "required: an identifier scheme such as ocd or wikidata")
	case len(scheme) > graph.MaxIdentifierKey:
		v.Add("scheme", "%d bytes; at most %d", len(scheme), graph.MaxIdentifierKey)
	}
	if len(values) == 0 {
		v.Add("values", "required: at least one identifier")
	}
	if graph.CheckCount(&v, "values", len(values), graph.MaxBatchGet) {
		for i, x := range values {
			if strings.TrimSpace(x) == "" || len(x) > graph.MaxIdentifierValue {
				v.Add(fmt.Sprintf("values[%d]", i), "must be 1 to %d bytes", graph.MaxIdentifierValue)
			}
		}
	}
	if err := v.Err("service.LookupEntities", "invalid request"); err != nil {
		return nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	got, err := s.Store.EntitiesByIdentifier(ctx, scheme, values)
	if err != nil {
		return nil, err
	}
	var out []graph.IdentifierMatch
	seen := map[string]bool{}
	for _, x := range values {
		if es, ok := got[x]; ok && !seen[x] {
			seen[x] = true
			out = append(out, graph.IdentifierMatch{Value: x, Entities: es})
		}
	}
	return out, nil
}
