package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Service answers the questions polgraph exists for, on a Store. Adapters (gRPC, CLI) call it.
type Service struct {
	Store Store
	// Budget is how many links one path query may read (DefaultWorkBudget when 0).
	Budget int
	// Timeout bounds every query, whatever the caller's deadline (no bound when 0).
	Timeout time.Duration
	// Topology, when set and filled, gives path and neighbourhood searches their links from memory.
	Topology *Topology
}

// linkSource is what one path or neighbourhood search reads links from: the topology, up to date for the
// search, when it holds the graph; else (not filled yet, or still catching up with a large write) the
// store.
func (s *Service) linkSource(ctx context.Context) (LinkSource, error) {
	if s.Topology != nil && s.Topology.Ready() {
		src, err := s.Topology.Synced(ctx)
		var ge *Error
		if errors.As(err, &ge) && ge.Reason == ReasonCatchingUp {
			return s.Store, nil
		}
		return src, err
	}
	return s.Store, nil
}

// resolved is what a search starts from: the links' source and the entities the user named.
type resolved struct {
	src  LinkSource
	ents []Entity
}

// sourceAndEntities returns the links' source and the entities that texts name (fields[i] names the
// request field of texts[i], for errors). When the topology holds the graph, one version check gives the
// source and, when that is the topology's snapshot, the names resolve in memory; otherwise source and
// names are round trips to the store, made at once. An entity's error comes before the source's, in the
// order of texts.
func (s *Service) sourceAndEntities(ctx context.Context, fields, texts []string) (resolved, error) {
	out := resolved{ents: make([]Entity, len(texts))}
	errs := make([]error, len(texts))
	var fs []func() error
	if s.Topology != nil && s.Topology.Ready() {
		src, err := s.linkSource(ctx)
		if err != nil {
			return out, err
		}
		out.src = src
	} else {
		fs = append(fs, func() (err error) { out.src, err = s.linkSource(ctx); return err })
	}
	var mem *topoSnapshot
	if r, ok := out.src.(topologyReader); ok {
		mem = r.s
	}
	for i, text := range texts {
		fs = append(fs, func() error { out.ents[i], errs[i] = s.resolveIn(ctx, mem, fields[i], text); return nil })
	}
	srcErr := parallel(fs...)
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, srcErr
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
func (s *Service) Resolve(ctx context.Context, field, text string) (Entity, error) {
	return s.resolveIn(ctx, nil, field, text)
}

// resolveIn is Resolve, reading the entities from mem when it is not nil; a name mem does not hold is
// looked up in the store too (written during a bulk load, it is in the store before it is in memory).
func (s *Service) resolveIn(ctx context.Context, mem *topoSnapshot, field, text string) (Entity, error) {
	const op = "Resolve"
	text = strings.TrimSpace(text)
	if text == "" {
		var v Violations
		v.Add(field, "required: a resource name such as actors/lutfur-rahman, or a name")
		return Entity{}, v.Err(op, "missing entity")
	}
	if len(text) > MaxQueryLength {
		var v Violations
		v.Add(field, "%d bytes; at most %d", len(text), MaxQueryLength)
		return Entity{}, v.Err(op, "entity name too long")
	}
	getEntity, findByName := s.Store.GetEntity, s.Store.FindByName
	if mem != nil {
		getEntity = func(ctx context.Context, n EntityName) (Entity, error) {
			if e, ok := mem.entities([]EntityName{n})[n]; ok {
				return e, nil
			}
			return s.Store.GetEntity(ctx, n)
		}
		findByName = func(ctx context.Context, text string) ([]Entity, error) {
			if found := mem.byName(text); len(found) > 0 {
				return found, nil
			}
			return s.Store.FindByName(ctx, text)
		}
	}
	if LooksLikeResourceName(text) {
		e, err := getEntity(ctx, EntityName(text))
		if KindOf(err) == NotFound {
			return Entity{}, &Error{Op: op, Kind: NotFound, Reason: "ENTITY_NOT_FOUND", Message: field + ": no entity named " + text}
		}
		// A merged entity's name resolves to the entity it was merged into (through merges of merges).
		for i := 0; err == nil && e.MergedInto != "" && i < maxRedirects; i++ {
			e, err = getEntity(ctx, e.MergedInto)
		}
		return e, err
	}
	var found []Entity
	if id, ok := ParseIdentifier(text); ok {
		// scheme:value (wikidata:Q1234, ocd:ocd-division/...): the entities that hold that id, and
		// otherwise a name that happens to hold a colon.
		byID, err := s.Store.EntitiesByIdentifier(ctx, id.Scheme, []string{id.Value})
		if err != nil {
			return Entity{}, err
		}
		found = byID[id.Value]
	}
	if len(found) == 0 {
		var err error
		if found, err = findByName(ctx, text); err != nil {
			return Entity{}, err
		}
	}
	switch len(found) {
	case 0:
		return Entity{}, &Error{Op: op, Kind: NotFound, Reason: "ENTITY_NOT_FOUND",
			Message: field + ": no entity is called " + quote(text) + " (try SearchEntities for near matches)"}
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = string(e.Name) + " (" + e.DisplayName + ")"
	}
	return Entity{}, &Error{Op: op, Kind: Invalid, Reason: "AMBIGUOUS_NAME", Message: "ambiguous entity name",
		Violations: []FieldViolation{{Field: field, Description: fmt.Sprintf("%s names %d entities: %s; use a resource name",
			quote(text), len(found), strings.Join(names, ", "))}}}
}

// maxRedirects bounds how many merges a name is followed through.
const maxRedirects = 8

// MaxQueryLength bounds names and search text, in bytes.
const MaxQueryLength = 200

func quote(s string) string { return "\"" + s + "\"" }

// EntityInfo is an entity with a summary of its relations.
type EntityInfo struct {
	Entity Entity
	Counts []RelationCount
	// RedirectedFrom is the name asked for, when it is a merged entity's that resolved to Entity.
	RedirectedFrom EntityName
}

// GetEntity returns the entity a user means (see Resolve) with its relation counts: of every relation it
// takes part in when filter is nil, else of those that count under *filter.
func (s *Service) GetEntity(ctx context.Context, name string, filter *RelationFilter) (EntityInfo, error) {
	if filter != nil {
		var v Violations
		filter.Validate("filter.", &v)
		if err := v.Err("GetEntity", "invalid entity request"); err != nil {
			return EntityInfo{}, err
		}
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if filter != nil {
		e, links, _, err := s.countedLinks(ctx, "name", name, *filter, DirectionAny)
		if err != nil {
			return EntityInfo{}, err
		}
		return EntityInfo{Entity: e, Counts: countLinks(e.Name, links), RedirectedFrom: redirectedFrom(name, e.Name)}, nil
	}
	e, err := s.Resolve(ctx, "name", name)
	if err != nil {
		return EntityInfo{}, err
	}
	counts, err := s.Store.RelationCounts(ctx, e.Name)
	return EntityInfo{Entity: e, Counts: counts, RedirectedFrom: redirectedFrom(name, e.Name)}, err
}

// redirectedFrom is the name asked for when it resolved, through merges, to another entity's.
func redirectedFrom(asked string, got EntityName) EntityName {
	asked = strings.TrimSpace(asked)
	if LooksLikeResourceName(asked) && EntityName(asked) != got {
		return EntityName(asked)
	}
	return ""
}

// Search limits.
const (
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// Search returns one page of entities matching text, best first, and the offset of the next page (0 on
// the last page).
func (s *Service) Search(ctx context.Context, q SearchQuery, pageSize, offset int) ([]SearchResult, int, error) {
	var v Violations
	if strings.TrimSpace(q.Text) == "" {
		v.Add("query", "required")
	} else if len(q.Text) > MaxQueryLength {
		v.Add("query", "%d bytes; at most %d", len(q.Text), MaxQueryLength)
	} else if NormalizeName(q.Text) == "" {
		v.Add("query", "has no letters or digits to search for")
	}
	if pageSize < 0 || pageSize > MaxPageSize {
		v.Add("page_size", "must be between 0 and %d, got %d", MaxPageSize, pageSize)
	}
	if err := v.Err("SearchEntities", "invalid search"); err != nil {
		return nil, 0, err
	}
	if pageSize == 0 {
		pageSize = DefaultPageSize
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	all, err := s.search(ctx, q)
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
	return all[offset:end], next, nil
}

// search answers from memory when the topology holds the graph, else from the store.
func (s *Service) search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	if s.Topology != nil && s.Topology.Ready() {
		src, err := s.linkSource(ctx)
		if err != nil {
			return nil, err
		}
		if mem, ok := src.(topologyReader); ok {
			return mem.s.search(q), nil
		}
	}
	return s.Store.Search(ctx, q)
}

// GetRelation returns a relation with all its claims and the entities it names. A relation a merge moved
// resolves to the relation its claims went to (Relation.Name says which).
func (s *Service) GetRelation(ctx context.Context, name RelationName) (Relation, []Entity, error) {
	if !strings.HasPrefix(string(name), "relations/") || len(name) > 400 {
		var v Violations
		v.Add("name", "%q is not a relation name (relations/<from>.<type>.<to>)", truncate(string(name), 80))
		return Relation{}, nil, v.Err("GetRelation", "invalid relation name")
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	src, err := s.linkSource(ctx)
	if err != nil {
		return Relation{}, nil, err
	}
	rels, err := s.getRelations(ctx, src, []RelationName{name})
	if err != nil {
		return Relation{}, nil, err
	}
	r, ok := rels[name]
	if !ok {
		return Relation{}, nil, &Error{Op: "GetRelation", Kind: NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(name)}
	}
	for i := 0; r.MergedInto != "" && i < maxRedirects; i++ {
		next := r.MergedInto
		if rels, err = s.getRelations(ctx, src, []RelationName{next}); err != nil {
			return Relation{}, nil, err
		}
		if r, ok = rels[next]; !ok {
			return Relation{}, nil, &Error{Op: "GetRelation", Kind: NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(next)}
		}
	}
	ents, err := s.entities(ctx, src, []EntityName{r.From, r.To, r.Via})
	return r, ents, err
}

// truncate shortens user text quoted back in a message to at most n bytes and some, at a character
// boundary, and makes it valid UTF-8 (a message that is not cannot travel in a protobuf).
func truncate(s string, n int) string {
	cut := len(s) > n
	if cut {
		end := 0
		for i := range s { // i: where each character starts
			if i > n {
				break
			}
			end = i
		}
		s = s[:end]
	}
	s = strings.ToValidUTF8(s, "\ufffd")
	if cut {
		s += "…"
	}
	return s
}

func (s *Service) entities(ctx context.Context, src LinkSource, names []EntityName) ([]Entity, error) {
	names = slices.DeleteFunc(slices.Clone(names), func(n EntityName) bool { return n == "" })
	slices.Sort(names)
	names = slices.Compact(names)
	m, err := s.getEntities(ctx, src, names)
	if err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(names))
	for _, n := range names {
		if e, ok := m[n]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// getEntities reads entities from the snapshot src reads when src is the topology's, else from the
// store; names the snapshot lacks (written during a bulk load) are read from the store.
func (s *Service) getEntities(ctx context.Context, src LinkSource, names []EntityName) (map[EntityName]Entity, error) {
	mem, ok := src.(topologyReader)
	if !ok {
		return s.Store.GetEntities(ctx, names)
	}
	out := mem.s.entities(names)
	_, err := readMissing(ctx, out, names, s.Store.GetEntities)
	return out, err
}

// getRelations reads relations whole, their claims included, from the snapshot src reads when src is the
// topology's and the snapshot holds them, else from the store.
func (s *Service) getRelations(ctx context.Context, src LinkSource, names []RelationName) (map[RelationName]Relation, error) {
	mem, ok := src.(topologyReader)
	if !ok {
		return s.Store.GetRelations(ctx, names)
	}
	out := mem.relations(names)
	_, err := readMissing(ctx, out, names, s.Store.GetRelations)
	return out, err
}

// relationHeaders reads relation headers from the store, through the topology's cache of them when src
// is the topology's: a header read once serves every later answer until its relation changes.
func (s *Service) relationHeaders(ctx context.Context, src LinkSource, names []RelationName) (map[RelationName]RelationHeader, error) {
	mem, ok := src.(topologyReader)
	if !ok {
		return s.Store.RelationHeaders(ctx, names)
	}
	out := mem.cachedHeaders(names)
	more, err := readMissing(ctx, out, names, s.Store.RelationHeaders)
	mem.keepHeaders(more)
	return out, err
}

// readMissing reads with read the names that out lacks, adds them to out, and returns what it read.
func readMissing[K comparable, V any](ctx context.Context, out map[K]V, names []K, read func(context.Context, []K) (map[K]V, error)) (map[K]V, error) {
	var missing []K
	for _, n := range names {
		if _, ok := out[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	more, err := read(ctx, missing)
	if err != nil {
		return nil, err
	}
	for n, v := range more {
		out[n] = v
	}
	return more, nil
}

// PathsAnswer is the answer to a path query: the paths, every relation on them with all its claims, and
// every entity on them.
type PathsAnswer struct {
	From, To  Entity
	Paths     []Path
	Relations map[RelationName]Relation
	Entities  []Entity
}

// FindPaths resolves the query's ends (by name or alias), checks it, finds the paths (see the function
// FindPaths) and fetches the evidence for every hop.
func (s *Service) FindPaths(ctx context.Context, q PathQuery) (PathsAnswer, error) {
	q.Normalize()
	// Check everything but the ends first, so a bad request reports all its problems at once.
	probe := q
	probe.From, probe.To = "actors/x", "actors/y"
	if err := probe.Validate(); err != nil {
		return PathsAnswer{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	r, err := s.sourceAndEntities(ctx, []string{"from", "to"}, []string{string(q.From), string(q.To)})
	if err != nil {
		return PathsAnswer{}, err
	}
	src, from, to := r.src, r.ents[0], r.ents[1]
	q.From, q.To = from.Name, to.Name
	if err := q.Validate(); err != nil {
		return PathsAnswer{}, err
	}
	budget := s.Budget
	if budget == 0 {
		budget = DefaultWorkBudget
	}
	if q.FollowVia {
		var err error
		if src, err = s.followVia(src); err != nil {
			return PathsAnswer{}, err
		}
	}
	paths, err := FindPaths(ctx, src, q, budget)
	if err != nil {
		return PathsAnswer{}, err
	}
	splitViaSteps(paths)
	var relNames []RelationName
	var entNames []EntityName
	for _, p := range paths {
		for _, h := range p.Hops {
			for _, st := range h.Relations {
				relNames = append(relNames, st.Relation)
			}
		}
		entNames = append(entNames, p.Entities...)
	}
	slices.Sort(relNames)
	var rels map[RelationName]Relation
	var ents []Entity
	err = parallel(
		func() (err error) { rels, err = s.getRelations(ctx, src, slices.Compact(relNames)); return err },
		func() (err error) { ents, err = s.entities(ctx, src, entNames); return err },
	)
	if err != nil {
		return PathsAnswer{}, err
	}
	return PathsAnswer{From: from, To: to, Paths: paths, Relations: rels, Entities: ents}, nil
}

// MaxHistory bounds the changes GetEntity and GetRelation show.
const MaxHistory = 50

// History returns a resource's last n changes, newest first, when the store keeps an audit trail.
func (s *Service) History(ctx context.Context, resource string, n int) ([]Change, error) {
	trail, ok := s.Store.(Trail)
	if !ok || n <= 0 {
		return nil, nil
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	changes, _, err := trail.ListChanges(ctx, ChangeQuery{Resource: resource, Limit: min(n, MaxHistory)})
	return changes, err
}
