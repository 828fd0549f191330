// Package graphtest holds helpers for testing path search: random graphs, an in-memory link source and
// an oracle that enumerates every simple path.
package graphtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// RandomGraph makes a random graph of n actors and about m relations with random types, dates and claim
// statuses, deterministic from seed. Relations between the same pair may repeat with other types.
func RandomGraph(seed uint64, n, m int) ([]graph.Entity, []graph.Relation) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ents := make([]graph.Entity, n)
	for i := range ents {
		ents[i] = graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/r%d-e%02d", seed, i)),
			Kind: graph.KindActor, DisplayName: fmt.Sprintf("Entity %d of graph %d", i, seed)}
	}
	types := []graph.RelationType{graph.Endorses, graph.Criticised, graph.FormerlyWorkedWith, graph.Accused, graph.Family}
	seen := map[graph.RelationName]bool{}
	var rels []graph.Relation
	for len(rels) < m {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			continue
		}
		t := types[r.IntN(len(types))]
		from, to := ents[a].Name, ents[b].Name
		if t.Symmetric() && to < from {
			from, to = to, from
		}
		name := graph.RelationNameFor(from, t, to, "")
		if seen[name] {
			continue
		}
		seen[name] = true
		rel := graph.Relation{Name: name, Type: t, From: from, To: to}
		switch r.IntN(4) {
		case 0:
			rel.ValidFrom = graph.FuzzyDate{Year: 2000 + r.IntN(20)}
			rel.ValidTo = graph.FuzzyDate{Year: rel.ValidFrom.Year + r.IntN(5), Month: 1 + r.IntN(12)}
		case 1:
			rel.Date = graph.FuzzyDate{Year: 2000 + r.IntN(20), Month: 1 + r.IntN(12), Day: 1 + r.IntN(28)}
		}
		for c := 0; c < 1+r.IntN(2); c++ {
			rel.Claims = append(rel.Claims, graph.Claim{
				Source:     graph.Source{Name: "sources/random"},
				Excerpt:    "random",
				Confidence: float64(r.IntN(11)) / 10,
				Status:     graph.ClaimStatuses[r.IntN(4)],
			})
			rel.Claims[c].Name = graph.ClaimNameFor(name, "sources/random", fmt.Sprint(c))
		}
		rels = append(rels, rel)
	}
	return ents, rels
}

// RandomQuery makes a random path query over ents, deterministic from r.
func RandomQuery(r *rand.Rand, ents []graph.Entity) graph.PathQuery {
	a := r.IntN(len(ents))
	b := (a + 1 + r.IntN(len(ents)-1)) % len(ents)
	q := graph.PathQuery{From: ents[a].Name, To: ents[b].Name,
		MaxPaths: 1 + r.IntN(8), MaxDepth: 1 + r.IntN(6), Directed: r.IntN(3) == 0}
	if r.IntN(2) == 0 {
		q.Filter.AsOf = graph.FuzzyDate{Year: 2000 + r.IntN(25)}
	}
	if r.IntN(3) == 0 {
		q.Filter.MinConfidence = float64(r.IntN(10)) / 10
	}
	if r.IntN(3) == 0 {
		q.Filter.ExcludeTypes = []graph.RelationType{graph.Criticised}
	}
	if r.IntN(4) == 0 {
		q.Filter.IncludeTypes = []graph.RelationType{graph.Endorses, graph.Family, graph.FormerlyWorkedWith}
	}
	if r.IntN(4) == 0 {
		q.Filter.Statuses = []graph.ClaimStatus{graph.StatusConfirmed, graph.StatusDenied}
	}
	return q
}

// MemoryLinks is a LinkSource over relations held in memory.
type MemoryLinks map[graph.EntityName][]graph.Link

// NewMemoryLinks indexes relations by both ends.
func NewMemoryLinks(rels []graph.Relation) MemoryLinks {
	m := MemoryLinks{}
	for _, r := range rels {
		l := r.Link()
		m[r.From] = append(m[r.From], l)
		m[r.To] = append(m[r.To], l)
	}
	return m
}

// Links implements graph.LinkSource.
func (m MemoryLinks) Links(_ context.Context, names []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	out := make(map[graph.EntityName][]graph.Link, len(names))
	for _, n := range names {
		out[n] = m[n]
	}
	return out, nil
}

// MemoryFeed is a graph.ChangeFeed over relations held in memory, all written at version 1.
type MemoryFeed []graph.Link

// NewMemoryFeed returns a feed of the relations' links.
func NewMemoryFeed(rels []graph.Relation) MemoryFeed {
	f := make(MemoryFeed, len(rels))
	for i, r := range rels {
		f[i] = r.Link()
	}
	return f
}

// Version implements graph.ChangeFeed.
func (f MemoryFeed) Version(context.Context) (int64, error) { return 1, nil }

// Changes implements graph.ChangeFeed.
func (f MemoryFeed) Changes(_ context.Context, since int64, each func([]graph.Link)) (int64, error) {
	if since < 1 {
		each(slices.Clone(f))
	}
	return 1, nil
}

// OraclePaths enumerates every simple path the query allows, depth first, sorts them with
// graph.ComparePaths and keeps the first q.MaxPaths. It shares no code with graph.FindPaths but the
// filter and the order.
func OraclePaths(rels []graph.Relation, q graph.PathQuery) []graph.Path {
	type step struct {
		to  graph.EntityName
		rel graph.RelationName
		fwd bool
	}
	adj := map[graph.EntityName][]step{}
	for _, r := range rels {
		if !q.Filter.Counts(r.Link()) {
			continue
		}
		adj[r.From] = append(adj[r.From], step{r.To, r.Name, true})
		if !q.Directed || r.Type.Symmetric() {
			adj[r.To] = append(adj[r.To], step{r.From, r.Name, false})
		}
	}
	var all []graph.Path
	onPath := map[graph.EntityName]bool{q.From: true}
	cur := graph.Path{Entities: []graph.EntityName{q.From}}
	var dfs func(u graph.EntityName)
	dfs = func(u graph.EntityName) {
		if u == q.To {
			all = append(all, graph.Path{Entities: slices.Clone(cur.Entities), Steps: slices.Clone(cur.Steps)})
			return
		}
		if cur.Len() == q.MaxDepth {
			return
		}
		for _, s := range adj[u] {
			if onPath[s.to] {
				continue
			}
			onPath[s.to] = true
			cur.Entities = append(cur.Entities, s.to)
			cur.Steps = append(cur.Steps, graph.PathStep{Relation: s.rel, Forward: s.fwd})
			dfs(s.to)
			cur.Entities = cur.Entities[:len(cur.Entities)-1]
			cur.Steps = cur.Steps[:len(cur.Steps)-1]
			onPath[s.to] = false
		}
	}
	dfs(q.From)
	slices.SortFunc(all, graph.ComparePaths)
	if len(all) > q.MaxPaths {
		all = all[:q.MaxPaths]
	}
	return all
}

// SharedPath is a path in the shared/ folder that lies beside the project (found from the nearest go.mod
// above the test's directory), or "" when that path does not exist.
func SharedPath(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = filepath.Dir(dir)
	}
	p := filepath.Join(append([]string{dir, "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
