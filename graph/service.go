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
	if LooksLikeResourceName(text) {
		e, err := s.Store.GetEntity(ctx, EntityName(text))
		if KindOf(err) == NotFound {
			return Entity{}, &Error{Op: op, Kind: NotFound, Reason: "ENTITY_NOT_FOUND", Message: field + ": no entity named " + text}
		}
		// A merged entity's name resolves to the entity it was merged into (through merges of merges).
		for i := 0; err == nil && e.MergedInto != "" && i < maxRedirects; i++ {
			e, err = s.Store.GetEntity(ctx, e.MergedInto)
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
		if found, err = s.Store.FindByName(ctx, text); err != nil {
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
		e, links, err := s.countedLinks(ctx, "name", name, *filter, DirectionAny)
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
	all, err := s.Store.Search(ctx, q)
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
	rels, err := s.Store.GetRelations(ctx, []RelationName{name})
	if err != nil {
		return Relation{}, nil, err
	}
	r, ok := rels[name]
	if !ok {
		return Relation{}, nil, &Error{Op: "GetRelation", Kind: NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(name)}
	}
	for i := 0; r.MergedInto != "" && i < maxRedirects; i++ {
		next := r.MergedInto
		if rels, err = s.Store.GetRelations(ctx, []RelationName{next}); err != nil {
			return Relation{}, nil, err
		}
		if r, ok = rels[next]; !ok {
			return Relation{}, nil, &Error{Op: "GetRelation", Kind: NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(next)}
		}
	}
	ents, err := s.entities(ctx, []EntityName{r.From, r.To, r.Via})
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

func (s *Service) entities(ctx context.Context, names []EntityName) ([]Entity, error) {
	names = slices.DeleteFunc(slices.Clone(names), func(n EntityName) bool { return n == "" })
	slices.Sort(names)
	names = slices.Compact(names)
	m, err := s.Store.GetEntities(ctx, names)
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
	// The two ends and the links' source are independent round trips: make them at once.
	var from, to Entity
	var fromErr, toErr error
	var src LinkSource
	srcErr := parallel(
		func() error { from, fromErr = s.Resolve(ctx, "from", string(q.From)); return nil },
		func() error { to, toErr = s.Resolve(ctx, "to", string(q.To)); return nil },
		func() (err error) { src, err = s.linkSource(ctx); return err },
	)
	for _, err := range []error{fromErr, toErr, srcErr} {
		if err != nil {
			return PathsAnswer{}, err
		}
	}
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
		func() (err error) { rels, err = s.Store.GetRelations(ctx, slices.Compact(relNames)); return err },
		func() (err error) { ents, err = s.entities(ctx, entNames); return err },
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
