package popolo

import (
	"context"
	"fmt"

	"github.com/polgraph/polgraph/graph"
)

// Reconciled is a subgraph renamed to merge with what the graph holds, and what was done.
type Reconciled struct {
	Subgraph graph.Subgraph
	Created  int
	Merged   int
	Lines    []string
}

// Reconcile merges a subgraph read from another format (FollowTheMoney) with the graph as Import merges
// Popolo: each entity that holds an id an entity of the graph of its kind holds, or has the name of
// exactly one such entity, takes that entity's name and adds to it what it lacks; an entity whose name is
// taken by another is renamed with a suffix. Relations and claims follow their entities.
func Reconcile(ctx context.Context, g Graph, sub graph.Subgraph) (Reconciled, error) {
	im := &importer{g: g, opts: Options{Confidence: 1}, rep: &Report{}, byID: map[graph.Identifier]graph.EntityName{},
		ents: map[graph.EntityName]*graph.Entity{}, taken: map[string]bool{}, rels: map[graph.RelationName]int{}}
	names := map[string]graph.EntityName{}
	cands := make([]candidate, len(sub.Entities))
	targets := make([]*map[string]graph.EntityName, len(sub.Entities))
	ids := make([]string, len(sub.Entities))
	for i, e := range sub.Entities {
		c := e
		c.Name = ""
		cands[i] = candidate{what: string(e.Name), entity: c}
		// The slug the other format gave it is the one it takes if free.
		cands[i].entity.Name = graph.EntityName("x/" + graph.Slug(e.Name))
		targets[i], ids[i] = &names, string(e.Name)
	}
	if err := im.resolve(ctx, cands, targets, ids); err != nil {
		return Reconciled{}, err
	}
	to := map[graph.EntityName]graph.EntityName{}
	for old, n := range names {
		to[graph.EntityName(old)] = n
	}
	out := Reconciled{Created: im.rep.Created, Merged: im.rep.Merged, Lines: im.rep.Lines}
	out.Subgraph.Sources = sub.Sources
	for _, n := range im.order {
		out.Subgraph.Entities = append(out.Subgraph.Entities, *im.ents[n])
	}
	rename := func(n graph.EntityName) graph.EntityName {
		if m, ok := to[n]; ok {
			return m
		}
		return n
	}
	for _, r := range sub.Relations {
		key, err := graph.RelationKey(r)
		if err != nil {
			return Reconciled{}, fmt.Errorf("popolo.Reconcile: %w", err)
		}
		nr := r
		nr.From, nr.To, nr.Via, nr.Term = rename(r.From), rename(r.To), rename(r.Via), rename(r.Term)
		if nr.From == nr.To {
			out.Lines = append(out.Lines, fmt.Sprintf("%s: left out: both its ends are %s in the graph", r.Name, nr.From))
			continue
		}
		if nr.Type.Symmetric() && nr.From > nr.To {
			nr.From, nr.To = nr.To, nr.From
		}
		nr.Name = graph.RelationNameFor(nr.From, nr.Type, nr.To, key)
		nr.Claims = make([]graph.Claim, len(r.Claims))
		for i, c := range r.Claims {
			ck, err := graph.ClaimKey(r.Name, c)
			if err != nil {
				return Reconciled{}, fmt.Errorf("popolo.Reconcile: %w", err)
			}
			c.Name, c.SaidBy = graph.ClaimNameFor(nr.Name, c.Source.Name, ck), rename(c.SaidBy)
			nr.Claims[i] = c
		}
		out.Subgraph.Relations = append(out.Subgraph.Relations, nr)
	}
	return out, nil
}
