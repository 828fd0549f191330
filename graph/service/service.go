// Package service answers the questions polgraph exists for: it resolves the entities a user names,
// runs the searches of graph/walk over the view its read path opens (the store, or the graph held in
// memory), and reads the records each answer shows. The gRPC and CLI adapters call it.
package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// Service answers the questions polgraph exists for, on a Store. Adapters (gRPC, CLI) call it.
type Service struct {
	Store graph.Store
	// Reads opens the View each answer reads (nil: every answer reads Store). The in-memory engine gives
	// one (memgraph.Topology.Reads), chosen once, when the service is wired.
	Reads graph.Reads
	// Budget is how many links one path query may read (DefaultWorkBudget when 0).
	Budget int
	// Timeout bounds every query, whatever the caller's deadline (no bound when 0).
	Timeout time.Duration
}

// view opens what one answer reads: Reads's view, or the store.
func (s *Service) view(ctx context.Context) (graph.View, error) {
	if s.Reads == nil {
		return s.Store, nil
	}
	return s.Reads.Open(ctx)
}

// resolved is what a search starts from: the view it reads and the entities the user named.
type resolved struct {
	src  graph.View
	ents []graph.Entity
}

// sourceAndEntities opens the answer's view and resolves through it the entities that texts name
// (fields[i] names the request field of texts[i], for errors), at once. An entity's error comes in the
// order of texts.
func (s *Service) sourceAndEntities(ctx context.Context, fields, texts []string) (resolved, error) {
	out := resolved{ents: make([]graph.Entity, len(texts))}
	src, err := s.view(ctx)
	if err != nil {
		return out, err
	}
	out.src = src
	errs := make([]error, len(texts))
	fs := make([]func() error, len(texts))
	for i, text := range texts {
		fs[i] = func() error { out.ents[i], errs[i] = s.resolveIn(ctx, src, fields[i], text); return nil }
	}
	_ = parallel(fs...) // each reports in errs
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// parallel runs fs at once and returns the first error: independent round trips cost one's latency.
func parallel(fs ...func() error) error {
	errs := make(chan error, len(fs))
	for _, f := range fs {
		go func() { errs <- f() }()
	}
	var first error
	for range fs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (s *Service) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.Timeout > 0 {
		return context.WithTimeout(ctx, s.Timeout)
	}
	return context.WithCancel(ctx)
}

// Resolve finds the entity a user means: by resource name, or by a display name or alias naming exactly
// one entity. It returns NotFound when nothing matches and Invalid, listing the candidates, when several
// do. field names the request field, for the error.
func (s *Service) Resolve(ctx context.Context, field, text string) (graph.Entity, error) {
	return s.resolveIn(ctx, s.Store, field, text)
}

// resolveIn is Resolve, reading the entities through v.
func (s *Service) resolveIn(ctx context.Context, v graph.View, field, text string) (graph.Entity, error) {
	const op = "service.Resolve"
	text = strings.TrimSpace(text)
	if text == "" {
		var v graph.Violations
		v.Add(field, "required: a resource name such as actors/lutfur-rahman, or a name")
		return graph.Entity{}, v.Err(op, "missing entity")
	}
	if len(text) > graph.MaxQueryLength {
		var v graph.Violations
		v.Add(field, "%d bytes; at most %d", len(text), graph.MaxQueryLength)
		return graph.Entity{}, v.Err(op, "entity name too long")
	}
	getEntity, findByName := v.GetEntity, v.FindByName
	if graph.LooksLikeResourceName(text) {
		e, err := getEntity(ctx, graph.EntityName(text))
		if graph.KindOf(err) == graph.NotFound {
			return graph.Entity{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: field + ": no entity named " + text}
		}
		// A merged entity's name resolves to the entity it was merged into (through merges of merges).
		for i := 0; err == nil && e.MergedInto != "" && i < maxRedirects; i++ {
			e, err = getEntity(ctx, e.MergedInto)
		}
		return e, err
	}
	var found []graph.Entity
	if id, ok := graph.ParseIdentifier(text); ok {
		// scheme:value (wikidata:Q1234, ocd:ocd-division/...): the entities that hold that id, and
		// otherwise a name that happens to hold a colon.
		byID, err := s.Store.EntitiesByIdentifier(ctx, id.Scheme, []string{id.Value})
		if err != nil {
			return graph.Entity{}, err
		}
		found = byID[id.Value]
	}
	if len(found) == 0 {
		var err error
		if found, err = findByName(ctx, text); err != nil {
			return graph.Entity{}, err
		}
	}
	if len(found) == 0 {
		var err error
		if found, err = byGivenNameForms(ctx, findByName, text); err != nil {
			return graph.Entity{}, err
		}
	}
	switch len(found) {
	case 0:
		return graph.Entity{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND",
			Message: field + ": no entity is called " + quote(text) + " (try SearchEntities for near matches)"}
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = string(e.Name) + " (" + e.DisplayName + ")"
	}
	return graph.Entity{}, &graph.Error{Op: op, Kind: graph.Invalid, Reason: "AMBIGUOUS_NAME", Message: "ambiguous entity name",
		Violations: []graph.FieldViolation{{Field: field, Description: fmt.Sprintf("%s names %d entities: %s; use a resource name",
			quote(text), len(found), strings.Join(names, ", "))}}}
}

// byGivenNameForms finds the people a name means by another form of its given name ("Ken Clarke" for
// Kenneth Clarke, "William Hague" for Bill Hague): the first word swapped for each of its
// graph.SearchHypocorisms, the rest kept. Only people are found so, and each once.
func byGivenNameForms(ctx context.Context, findByName func(context.Context, string) ([]graph.Entity, error), text string) ([]graph.Entity, error) {
	words := strings.Fields(graph.NormalizeName(text))
	if len(words) < 2 {
		return nil, nil
	}
	var found []graph.Entity
	seen := map[graph.EntityName]bool{}
	for _, h := range graph.SearchHypocorisms(words[0]) {
		es, err := findByName(ctx, h+" "+strings.Join(words[1:], " "))
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Kind == graph.KindActor && !seen[e.Name] {
				seen[e.Name] = true
				found = append(found, e)
			}
		}
	}
	return found, nil
}

// maxRedirects bounds how many merges a name is followed through.
const maxRedirects = 8

func quote(s string) string { return "\"" + s + "\"" }

// GetEntity returns the entity a user means (see Resolve) with its relation counts: of every relation it
// takes part in when filter is nil, else of those that count under *filter.
func (s *Service) GetEntity(ctx context.Context, name string, filter *graph.RelationFilter) (graph.EntityInfo, error) {
	if filter != nil {
		var v graph.Violations
		filter.Validate("filter.", &v)
		if err := v.Err("service.GetEntity", "invalid entity request"); err != nil {
			return graph.EntityInfo{}, err
		}
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if filter != nil {
		e, links, _, err := s.countedLinks(ctx, "name", name, *filter, graph.DirectionAny, graph.SourceFilter{})
		if err != nil {
			return graph.EntityInfo{}, err
		}
		return graph.EntityInfo{Entity: e, Counts: countLinks(e.Name, links), RedirectedFrom: redirectedFrom(name, e.Name)}, nil
	}
	e, err := s.Resolve(ctx, "name", name)
	if err != nil {
		return graph.EntityInfo{}, err
	}
	counts, err := s.Store.RelationCounts(ctx, e.Name)
	return graph.EntityInfo{Entity: e, Counts: counts, RedirectedFrom: redirectedFrom(name, e.Name)}, err
}

// redirectedFrom is the name asked for when it resolved, through merges, to another entity's.
func redirectedFrom(asked string, got graph.EntityName) graph.EntityName {
	asked = strings.TrimSpace(asked)
	if graph.LooksLikeResourceName(asked) && graph.EntityName(asked) != got {
		return graph.EntityName(asked)
	}
	return ""
}

// Search returns one page of entities matching text, best first, and the offset of the next page (0 on
// the last page).
func (s *Service) Search(ctx context.Context, q graph.SearchQuery, pageSize, offset int) ([]graph.SearchResult, int, error) {
	var v graph.Violations
	if strings.TrimSpace(q.Text) == "" {
		v.Add("query", "required")
	} else if len(q.Text) > graph.MaxQueryLength {
		v.Add("query", "%d bytes; at most %d", len(q.Text), graph.MaxQueryLength)
	} else if graph.NormalizeName(q.Text) == "" {
		v.Add("query", "has no letters or digits to search for")
	}
	if pageSize < 0 || pageSize > graph.MaxPageSize {
		v.Add("page_size", "must be between 0 and %d, got %d", graph.MaxPageSize, pageSize)
	}
	if err := v.Err("service.SearchEntities", "invalid search"); err != nil {
		return nil, 0, err
	}
	if pageSize == 0 {
		pageSize = graph.DefaultPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	view, err := s.view(ctx)
	if err != nil {
		return nil, 0, err
	}
	all, err := view.Search(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if offset >= len(all) {
		return nil, 0, nil
	}
	end := min(offset+pageSize, len(all))
	next := 0
	if end < len(all) {
		next = end
	}
	page := slices.Clone(all[offset:end])
	if err := summarize(ctx, view, page); err != nil {
		return nil, 0, err
	}
	return page, next, nil
}

// summarize fills each result's Summary, from the view: its years; for a person, the party they were
// last a member of and the seat they last held, with its years ("born 1960; Labour; Penistone and
// Stocksbridge, 2010–2019"). Two people of one name differ there.
func summarize(ctx context.Context, view graph.View, rs []graph.SearchResult) error {
	names := make([]graph.EntityName, len(rs))
	for i, r := range rs {
		names[i] = r.Entity.Name
	}
	links, err := view.Links(ctx, names)
	if err != nil {
		return err
	}
	latest := map[graph.EntityName][2]graph.Link{} // a person's latest party, latest seat
	var others []graph.EntityName
	for _, r := range rs {
		if r.Entity.Kind != graph.KindActor {
			continue
		}
		var best [2]graph.Link
		for _, l := range links[r.Entity.Name] {
			if l.Deleted || l.From != r.Entity.Name {
				continue
			}
			i := -1
			switch k, _ := graph.ParseEntityName(string(l.To)); {
			case l.Type == graph.MemberOf && k == graph.KindParty:
				i = 0
			case l.Type == graph.HoldsOffice && k == graph.KindSeat:
				i = 1
			}
			if i >= 0 && (best[i].Name == "" || later(l, best[i])) {
				best[i] = l
			}
		}
		latest[r.Entity.Name] = best
		for _, l := range best {
			if l.Name != "" {
				others = append(others, l.To)
			}
		}
	}
	shown, err := view.GetEntities(ctx, others)
	if err != nil {
		return err
	}
	for i, r := range rs {
		var parts []string
		e := r.Entity
		switch {
		case e.Kind == graph.KindActor && !e.Attributes.BirthDate.IsZero() && !e.Attributes.DeathDate.IsZero():
			parts = append(parts, fmt.Sprintf("%d–%d", e.Attributes.BirthDate.Year, e.Attributes.DeathDate.Year))
		case e.Kind == graph.KindActor && !e.Attributes.BirthDate.IsZero():
			parts = append(parts, fmt.Sprintf("born %d", e.Attributes.BirthDate.Year))
		case !e.ValidFrom.IsZero() || !e.ValidTo.IsZero():
			parts = append(parts, years(e.ValidFrom, e.ValidTo))
		}
		for j, l := range latest[e.Name] {
			if l.Name == "" {
				continue
			}
			name := shown[l.To].DisplayName
			if name == "" {
				name = string(l.To)
			}
			if j == 1 && l.Dated {
				name += ", " + spanYears(l.Period)
			}
			parts = append(parts, name)
		}
		rs[i].Summary = strings.Join(parts, "; ")
	}
	return nil
}

// later reports whether a held later than b: it ends later (an open end is latest), or ends together and
// starts later.
func later(a, b graph.Link) bool {
	if a.Period.End != b.Period.End {
		return a.Period.End > b.Period.End
	}
	return a.Period.Start > b.Period.Start
}

// spanYears is a period's years in words: "2010–2019", "2010–", "–2019".
func spanYears(p graph.Period) string {
	y := func(day int, open int) string {
		if day == open {
			return ""
		}
		return graph.DayString(day)[:4]
	}
	return y(p.Start, graph.OpenPeriod.Start) + "–" + y(p.End, graph.OpenPeriod.End)
}

// years is a span of years in words: "2010–2019", "2010–", "–2019".
func years(from, to graph.FuzzyDate) string {
	y := func(d graph.FuzzyDate) string {
		if d.IsZero() {
			return ""
		}
		return fmt.Sprint(d.Year)
	}
	return y(from) + "–" + y(to)
}

// GetRelation returns a relation with all its claims and the entities it names. A relation a merge moved
// resolves to the relation its claims went to, and a symmetric relation named with its ends the other
// way round to itself (Relation.Name says which). NotFound (RELATION_NOT_FOUND) lists in its message the
// relations of the name's type between its ends, whatever their key.
func (s *Service) GetRelation(ctx context.Context, name graph.RelationName) (graph.Relation, []graph.Entity, error) {
	if !strings.HasPrefix(string(name), "relations/") || len(name) > 400 {
		var v graph.Violations
		v.Add("name", "%q is not a relation name (relations/<from>.<type>.<to>)", graph.Truncate(string(name), 80))
		return graph.Relation{}, nil, v.Err("service.GetRelation", "invalid relation name")
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	src, err := s.view(ctx)
	if err != nil {
		return graph.Relation{}, nil, err
	}
	rels, err := src.GetRelations(ctx, []graph.RelationName{name})
	if err != nil {
		return graph.Relation{}, nil, err
	}
	r, ok := rels[name]
	if !ok {
		near, err := nearRelations(ctx, src, name)
		if err != nil {
			return graph.Relation{}, nil, err
		}
		if back := reversed(name); slices.Contains(near, back) {
			// A symmetric relation named with its ends the other way round is the same relation.
			if rels, err = src.GetRelations(ctx, []graph.RelationName{back}); err != nil {
				return graph.Relation{}, nil, err
			}
			r, ok = rels[back]
		}
		if !ok {
			msg := "no relation named " + string(name)
			if len(near) > 0 {
				msg += "; between these ends: " + strings.Join(strs(near), ", ")
			}
			return graph.Relation{}, nil, &graph.Error{Op: "service.GetRelation", Kind: graph.NotFound, Reason: "RELATION_NOT_FOUND", Message: msg}
		}
	}
	for i := 0; r.MergedInto != "" && i < maxRedirects; i++ {
		next := r.MergedInto
		if rels, err = src.GetRelations(ctx, []graph.RelationName{next}); err != nil {
			return graph.Relation{}, nil, err
		}
		if r, ok = rels[next]; !ok {
			return graph.Relation{}, nil, &graph.Error{Op: "service.GetRelation", Kind: graph.NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(next)}
		}
	}
	ents, err := s.entities(ctx, src, []graph.EntityName{r.From, r.To, r.Via})
	return r, ents, err
}

// relationParts splits a relation's resource name, relations/<from>.<type>.<to>[.<key>], into its ends'
// slugs, its type and its key; ok is false when the name does not have that shape.
func relationParts(name graph.RelationName) (from string, t graph.RelationType, to, key string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(string(name), "relations/"), ".")
	if len(parts) < 3 || len(parts) > 4 {
		return "", "", "", "", false
	}
	for _, rt := range graph.RelationTypes {
		if rt.Kebab() == parts[1] {
			t = rt
		}
	}
	if len(parts) == 4 {
		key = parts[3]
	}
	return parts[0], t, parts[2], key, t != ""
}

// reversed is a relation name with its ends swapped ("" when the name has no such shape).
func reversed(name graph.RelationName) graph.RelationName {
	from, t, to, key, ok := relationParts(name)
	if !ok {
		return ""
	}
	n := "relations/" + to + "." + t.Kebab() + "." + from
	if key != "" {
		n += "." + key
	}
	return graph.RelationName(n)
}

// nearRelations lists, by name, the relations a name that names none may mean: those of its type
// between its ends (in either order, for a symmetric type) that are not deleted, whatever their key.
func nearRelations(ctx context.Context, src graph.View, name graph.RelationName) ([]graph.RelationName, error) {
	from, t, to, _, ok := relationParts(name)
	if !ok || !graph.ValidSlug(from) || !graph.ValidSlug(to) {
		return nil, nil
	}
	// The name holds its ends' slugs, not their collections: try each.
	var ends []graph.EntityName
	for _, c := range graph.Collections {
		ends = append(ends, graph.EntityName(c+"/"+from))
	}
	links, err := src.Links(ctx, ends)
	if err != nil {
		return nil, err
	}
	var out []graph.RelationName
	for _, ls := range links {
		for _, l := range ls {
			if l.Deleted || l.Type != t {
				continue
			}
			if graph.Slug(l.From) == from && graph.Slug(l.To) == to || t.Symmetric() && graph.Slug(l.From) == to && graph.Slug(l.To) == from {
				out = append(out, l.Name)
			}
		}
	}
	return distinct(out), nil
}

// strs converts names to strings.
func strs[N ~string](names []N) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return out
}

func (s *Service) entities(ctx context.Context, src graph.View, names []graph.EntityName) ([]graph.Entity, error) {
	names = slices.DeleteFunc(slices.Clone(names), func(n graph.EntityName) bool { return n == "" })
	slices.Sort(names)
	names = slices.Compact(names)
	m, err := src.GetEntities(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Entity, 0, len(names))
	for _, n := range names {
		if e, ok := m[n]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// FindPaths resolves the query's ends (by name or alias), checks it, finds the paths (see the function
// FindPaths) and fetches the evidence for every hop.
func (s *Service) FindPaths(ctx context.Context, q graph.PathQuery) (graph.PathsAnswer, error) {
	q.Normalize()
	// Check everything but the ends first, so a bad request reports all its problems at once.
	probe := q
	probe.From, probe.To = "actors/x", "actors/y"
	if err := probe.Validate(); err != nil {
		return graph.PathsAnswer{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	r, err := s.sourceAndEntities(ctx, []string{"from", "to"}, []string{string(q.From), string(q.To)})
	if err != nil {
		return graph.PathsAnswer{}, err
	}
	view, from, to := r.src, r.ents[0], r.ents[1]
	var src graph.LinkSource = view
	q.From, q.To = from.Name, to.Name
	if err := q.Validate(); err != nil {
		return graph.PathsAnswer{}, err
	}
	budget := s.Budget
	if budget == 0 {
		budget = graph.DefaultWorkBudget
	}
	if q.FollowVia {
		var err error
		if src, err = s.followVia(src); err != nil {
			return graph.PathsAnswer{}, err
		}
	}
	if !q.Sources.IsZero() {
		src = bySources{src: src, view: view, f: q.Sources}
	}
	// Candidates to rank: more routes than asked for, so that the last length's best evidenced can be
	// chosen among its routes, not its first by name; a search that more routes would put over its budget
	// ranks those asked for.
	wide := q
	wide.MaxPaths = min(q.MaxPaths+graph.RankingExtra, graph.MaxRanked)
	paths, err := walk.FindPaths(ctx, src, wide, budget)
	if graph.KindOf(err) == graph.ResourceExhausted {
		wide = q
		paths, err = walk.FindPaths(ctx, src, q, budget)
	}
	if err != nil {
		return graph.PathsAnswer{}, err
	}
	var ifRelaxed []graph.Relaxation
	noPath := ""
	if len(paths) == 0 {
		if noPath, err = whyNoPath(ctx, src, q, from, to); err != nil {
			return graph.PathsAnswer{}, err
		}
		ifRelaxed = relaxed(q.Filter, func(f graph.RelationFilter) (int, error) {
			lq := q
			lq.Filter = f
			ps, err := walk.FindPaths(ctx, src, lq, budget)
			return len(ps), err
		})
	}
	splitViaSteps(paths)
	relNames := func(paths []graph.Path) []graph.RelationName {
		var names []graph.RelationName
		for _, p := range paths {
			for _, h := range p.Hops {
				for _, st := range h.Relations {
					names = append(names, st.Relation)
				}
			}
		}
		return distinct(names)
	}
	// Every candidate's evidence, from its relations' claims; then the best evidenced first among equal
	// lengths, and the first asked for.
	rels, err := view.GetRelations(ctx, relNames(paths))
	if err != nil {
		return graph.PathsAnswer{}, err
	}
	weighed := keptClaims(q.Sources, rels)
	for i := range paths {
		paths[i].Evidence = graph.EvidenceOfRoute(q.Filter, paths[i], weighed)
	}
	// When the walk gave as many routes as it was asked for, the last length may have more: the order
	// among those is of the first by name only.
	capped := len(paths) == wide.MaxPaths && len(paths) > q.MaxPaths &&
		(paths[len(paths)-1].Len() == paths[q.MaxPaths-1].Len() || paths[len(paths)-1].Len() <= paths[0].Len()+q.LongerBy)
	graph.RankRoutes(paths, q.LongerBy)
	paths = paths[:min(len(paths), q.MaxPaths)]
	var entNames []graph.EntityName
	for _, p := range paths {
		entNames = append(entNames, p.Entities...)
	}
	ents, err := s.entities(ctx, view, entNames)
	if err != nil {
		return graph.PathsAnswer{}, err
	}
	names := map[graph.EntityName]string{}
	for _, e := range ents {
		names[e.Name] = e.DisplayName
	}
	name := func(n graph.EntityName) string {
		if d := names[n]; d != "" {
			return d
		}
		return string(n)
	}
	kept := map[graph.RelationName]graph.Relation{}
	for _, n := range relNames(paths) {
		if r, ok := rels[n]; ok {
			kept[n] = r
		}
	}
	for i := range paths {
		paths[i].Reason = paths[i].Evidence.Reason(paths[i], name)
	}
	return graph.PathsAnswer{From: from, To: to, Paths: paths, Relations: kept, Entities: ents, IfRelaxed: ifRelaxed, NoPath: noPath,
		RankingCapped: capped}, nil
}

// whyNoPath says why no path joins from and to: an end that takes part in no relation, or in none that
// counts under the filter; else that no route within the depth does (under the filter, following the
// relations' directions, at one time, as the query asks).
func whyNoPath(ctx context.Context, view graph.LinkSource, q graph.PathQuery, from, to graph.Entity) (string, error) {
	links, err := view.Links(ctx, []graph.EntityName{from.Name, to.Name})
	if err != nil {
		return "", err
	}
	var why []string
	for _, e := range []graph.Entity{from, to} {
		live, counted := 0, 0
		seen := map[graph.RelationName]bool{}
		for _, l := range links[e.Name] {
			if l.Deleted || seen[l.Name] {
				continue
			}
			seen[l.Name] = true
			live++
			if q.Filter.Counts(l) {
				counted++
			}
		}
		who := e.DisplayName + " (" + string(e.Name) + ")"
		switch {
		case live == 0:
			why = append(why, who+" takes part in no relation")
		case counted == 0:
			why = append(why, fmt.Sprintf("none of the %d %s of %s counts under the filter", live, plural(live, "relation", "relations"), who))
		}
	}
	if len(why) > 0 {
		return strings.Join(why, "; "), nil
	}
	how := "under the filter"
	if q.Directed {
		how += ", following each relation's direction"
	}
	if q.CoTemporal {
		how += ", with every hop holding at one time"
	}
	return fmt.Sprintf("no route of at most %d %s joins them %s", q.MaxDepth, plural(q.MaxDepth, "hop", "hops"), how), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// History returns a resource's last n changes made before until (zero: now), newest first, when the store
// keeps an audit trail.
func (s *Service) History(ctx context.Context, resource string, n int, until time.Time) ([]graph.Change, error) {
	trail, ok := s.Store.(graph.Trail)
	if !ok || n <= 0 {
		return nil, nil
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	changes, _, err := trail.ListChanges(ctx, graph.ChangeQuery{Resource: resource, Until: until, Limit: min(n, graph.MaxHistory)})
	return changes, err
}

// relaxed asks an answer that its filter emptied again under each filter one step looser
// (graph.Relaxations), and says which would not be empty. count answers under a filter; one that fails
// (out of budget or of time) says nothing.
func relaxed(f graph.RelationFilter, count func(graph.RelationFilter) (int, error)) []graph.Relaxation {
	var out []graph.Relaxation
	for _, l := range graph.Relaxations(f) {
		if n, err := count(l.Filter); err == nil && n > 0 {
			out = append(out, graph.Relaxation{Change: l.Change, Results: n})
		}
	}
	return out
}
