package dgraph

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// The reads of sources and of the graph's size. Sources are read from their claims' side through the
// reverse of pg.source; sizes are counted by Dgraph (count and @groupby), never read into memory.

const sourceFields = `uid pg.name pg.title pg.source_kind pg.outlet pg.author pg.published pg.url pg.retrieved pg.licence count(~pg.source)`

// sourceRow is a source with how many claims cite it.
type sourceRow struct {
	sourceJSON
	UID    string `json:"uid"`
	Claims int    `json:"count(~pg.source)"`
}

// GetSource implements graph.Store.
func (s *Store) GetSource(ctx context.Context, name graph.SourceName, offset, limit int) (graph.SourceInfo, error) {
	const op = "dgraph.GetSource"
	var res struct {
		Q []struct {
			sourceRow
			Cites []struct {
				claimJSON
				Of *struct {
					Name string   `json:"pg.name"`
					Type string   `json:"pg.rel_type"`
					From *nameRef `json:"pg.from"`
					To   *nameRef `json:"pg.to"`
				} `json:"pg.claim_of"`
			} `json:"cites"`
		}
	}
	// The claims come in name order, so a relation's claims come together and pages are stable.
	q := `query q($n: string, $first: int, $offset: int) {
  q(func: eq(pg.name, $n)) @filter(type(Source)) { ` + sourceFields + `
    cites: ~pg.source (orderasc: pg.name, first: $first, offset: $offset) {
      pg.name pg.excerpt pg.record pg.confidence pg.status pg.said_by { pg.name }
      pg.claim_of { pg.name pg.rel_type pg.from { pg.name } pg.to { pg.name } }
    }
  }
}`
	vars := map[string]string{"$n": string(name), "$first": strconv.Itoa(max(limit, 0)), "$offset": strconv.Itoa(max(offset, 0))}
	if err := s.query(ctx, op, q, vars, &res); err != nil {
		return graph.SourceInfo{}, err
	}
	if len(res.Q) == 0 || res.Q[0].Name != string(name) {
		return graph.SourceInfo{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "SOURCE_NOT_FOUND", Message: "no source named " + string(name)}
	}
	row := res.Q[0]
	s.remember(row.Name, row.UID)
	info := graph.SourceInfo{Source: row.source(), ClaimCount: row.Claims}
	if limit <= 0 {
		return info, nil
	}
	for _, c := range row.Cites {
		if c.Of == nil {
			continue
		}
		claim := graph.Claim{Name: c.Name, Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence, Status: graph.ClaimStatus(c.Status)}
		if c.SaidBy != nil {
			claim.SaidBy = graph.EntityName(c.SaidBy.Name)
		}
		ref := graph.RelationRef{Name: graph.RelationName(c.Of.Name), Type: graph.RelationType(c.Of.Type)}
		if c.Of.From != nil {
			ref.From = graph.EntityName(c.Of.From.Name)
		}
		if c.Of.To != nil {
			ref.To = graph.EntityName(c.Of.To.Name)
		}
		info.Claims = append(info.Claims, graph.SourceClaim{Claim: claim, Relation: ref})
	}
	return info, nil
}

// ListSources implements graph.Store. The kind and outlet are compared in a filter, as query variables.
func (s *Store) ListSources(ctx context.Context, q graph.SourceQuery) ([]graph.SourceSummary, int, error) {
	const op = "dgraph.ListSources"
	decls := []string{"$first: int", "$offset: int"}
	vars := map[string]string{"$first": strconv.Itoa(max(q.Limit, 0)), "$offset": strconv.Itoa(max(q.Offset, 0))}
	var conds []string
	if q.Kind != "" {
		decls, conds, vars["$kind"] = append(decls, "$kind: string"), append(conds, "eq(pg.source_kind, $kind)"), string(q.Kind)
	}
	if q.Outlet != "" {
		// Outlets match whatever their case: the outlets held that are the one asked for, each a variable.
		outlets, err := s.outletsLike(ctx, q.Outlet)
		if err != nil {
			return nil, 0, err
		}
		if len(outlets) == 0 {
			return nil, 0, nil
		}
		var either []string
		for i, o := range outlets {
			v := "$outlet" + strconv.Itoa(i)
			decls, vars[v] = append(decls, v+": string"), o
			either = append(either, "eq(pg.outlet, "+v+")")
		}
		conds = append(conds, "("+strings.Join(either, " OR ")+")")
	}
	filter := ""
	if len(conds) > 0 {
		filter = "@filter(" + strings.Join(conds, " AND ") + ")"
	}
	dql := `query q(` + strings.Join(decls, ", ") + `) {
  var(func: type(Source)) ` + filter + ` { s as uid }
  total(func: uid(s)) { count(uid) }
  q(func: uid(s), orderasc: pg.name, first: $first, offset: $offset) { ` + sourceFields + ` }
}`
	var res struct {
		Total []struct {
			N int `json:"count"`
		}
		Q []sourceRow
	}
	if err := s.query(ctx, op, dql, vars, &res); err != nil {
		return nil, 0, err
	}
	total := 0
	if len(res.Total) > 0 {
		total = res.Total[0].N
	}
	if q.Limit <= 0 {
		return nil, total, nil
	}
	out := make([]graph.SourceSummary, 0, len(res.Q))
	for _, r := range res.Q {
		s.remember(r.Name, r.UID)
		out = append(out, graph.SourceSummary{Source: r.source(), ClaimCount: r.Claims})
	}
	return out, total, nil
}

// outletsLike returns the outlets the sources name that are outlet, whatever their case (SameOutlet).
func (s *Store) outletsLike(ctx context.Context, outlet string) ([]string, error) {
	var res struct {
		O []struct {
			Groups []struct {
				Outlet string `json:"pg.outlet"`
			} `json:"@groupby"`
		}
	}
	if err := s.query(ctx, "dgraph.ListSources", `{ o(func: type(Source)) @filter(has(pg.outlet)) @groupby(pg.outlet) { count(uid) } }`, nil, &res); err != nil {
		return nil, err
	}
	var out []string
	for _, o := range res.O {
		for _, g := range o.Groups {
			if graph.SameOutlet(g.Outlet, outlet) {
				out = append(out, g.Outlet)
			}
		}
	}
	return out, nil
}

// ClaimSources implements graph.Store.
func (s *Store) ClaimSources(ctx context.Context, relations []graph.RelationName) (map[graph.RelationName][]graph.Claim, error) {
	type row struct {
		Name   string `json:"pg.name"`
		Type   string `json:"pg.rel_type"`
		Claims []struct {
			Name       string   `json:"pg.name"`
			Status     string   `json:"pg.status"`
			Confidence float64  `json:"pg.confidence"`
			Source     *nameRef `json:"pg.source"`
		} `json:"claims"`
	}
	out := make(map[graph.RelationName][]graph.Claim, len(relations))
	err := readNamed(ctx, s, "dgraph.ClaimSources", strs(relations), 500,
		`pg.name pg.rel_type claims: ~pg.claim_of { pg.name pg.status pg.confidence pg.source { pg.name } }`,
		func(r row) string { return r.Name },
		func(r row) {
			if r.Type == "" {
				return // not a relation
			}
			cs := make([]graph.Claim, 0, len(r.Claims))
			for _, c := range r.Claims {
				claim := graph.Claim{Name: c.Name, Status: graph.ClaimStatus(c.Status), Confidence: c.Confidence}
				if c.Source != nil {
					claim.Source.Name = graph.SourceName(c.Source.Name)
				}
				cs = append(cs, claim)
			}
			out[graph.RelationName(r.Name)] = cs
		})
	return out, err
}

// Stats implements graph.Store: one query, so every count comes from one snapshot.
func (s *Store) Stats(ctx context.Context) (graph.GraphStats, error) {
	type counted struct {
		N int `json:"count"`
	}
	type grouped struct {
		Groups []map[string]any `json:"@groupby"`
	}
	var res struct {
		Entities, Relations, Claims, Sources []counted
		Kinds                                []grouped `json:"kinds"`
		Types                                []grouped `json:"types"`
		Statuses                             []grouped `json:"statuses"`
		SourceKinds                          []grouped `json:"sourceKinds"`
		Meta                                 []struct {
			Version   int64 `json:"pg.version"`
			Lease     int64 `json:"pg.lease_until"`
			WrittenAt int64 `json:"pg.written_at"`
		}
	}
	q := `query q($m: string) {
` + liveBlocks + `
  entities(func: uid(live_entities)) { count(uid) }
  relations(func: uid(live_relations)) { count(uid) }
  claims(func: uid(live_claims)) { count(uid) }
  sources(func: type(Source)) { count(uid) }
  kinds(func: uid(live_entities)) @groupby(pg.kind) { count(uid) }
  types(func: uid(live_relations)) @groupby(pg.rel_type) { count(uid) }
  statuses(func: uid(live_claims)) @groupby(pg.status) { count(uid) }
  sourceKinds(func: type(Source)) @groupby(pg.source_kind) { count(uid) }
  meta(func: eq(pg.name, $m)) { pg.version pg.lease_until pg.written_at }
}`
	if err := s.query(ctx, "dgraph.Stats", q, map[string]string{"$m": metaName}, &res); err != nil {
		return graph.GraphStats{}, err
	}
	n := func(c []counted) int {
		if len(c) == 0 {
			return 0
		}
		return c[0].N
	}
	// groups reads @groupby rows: {"pg.kind": "ACTOR", "count": 40}.
	groups := func(g []grouped, pred string, each func(value string, count int)) {
		for _, x := range g {
			for _, row := range x.Groups {
				value, _ := row[pred].(string)
				count, _ := row["count"].(float64)
				if value != "" {
					each(value, int(count))
				}
			}
		}
	}
	st := graph.GraphStats{
		Counts:          graph.GraphCounts{Entities: n(res.Entities), Relations: n(res.Relations), Claims: n(res.Claims), Sources: n(res.Sources)},
		EntitiesByKind:  map[graph.Kind]int{},
		RelationsByType: map[graph.RelationType]int{},
		ClaimsByStatus:  map[graph.ClaimStatus]int{},
		SourcesByKind:   map[graph.SourceKind]int{},
	}
	groups(res.Kinds, "pg.kind", func(v string, c int) { st.EntitiesByKind[graph.Kind(v)] += c })
	groups(res.Types, "pg.rel_type", func(v string, c int) { st.RelationsByType[graph.RelationType(v)] += c })
	groups(res.Statuses, "pg.status", func(v string, c int) { st.ClaimsByStatus[graph.ClaimStatus(v)] += c })
	groups(res.SourceKinds, "pg.source_kind", func(v string, c int) { st.SourcesByKind[graph.SourceKind(v)] += c })
	if len(res.Meta) > 0 {
		m := res.Meta[0]
		st.Version = m.Version
		if m.Lease > time.Now().UnixMilli() {
			st.Version-- // a bulk load holds its version open (see Version)
		}
		if m.WrittenAt > 0 {
			st.WrittenAt = time.UnixMilli(m.WrittenAt).UTC()
		}
	}
	return st, nil
}
