package live

import (
	"encoding/json"
	"slices"

	"github.com/polgraph/polgraph/graph"
)

// Filter says which changes a watcher is sent; every part given must pass (the values within one part
// are alternatives). Changes of sources pass only a filter without entities, neighbourhood, relation
// types and kinds; a load's one change (graph.ActionLoad) passes every filter, since it says to read the
// graph again.
type Filter struct {
	// Entities: changes of these entities, and of the relations (with their claims) that name them.
	Entities []graph.EntityName
	// Center and Depth: changes of the entities within Depth hops of Center (1 to MaxDepth), as the graph
	// stands when the changes are read, and of the relations that name one of them.
	Center graph.EntityName
	Depth  int
	// RelationTypes: changes of relations of these types.
	RelationTypes []graph.RelationType
	// Kinds: changes of entities of these kinds, and of relations with an end of one.
	Kinds []graph.Kind
	// UntilCaughtUp ends the watch once every change up to the graph's version when it began is sent.
	UntilCaughtUp bool
	stopAt        int64
}

// Check lists what is wrong with the filter in v.
func (f Filter) Check(v *graph.Violations) {
	if len(f.Entities) > MaxEntities {
		v.Add("entities", "at most %d entities", MaxEntities)
	}
	for _, e := range f.Entities {
		if _, err := graph.ParseEntityName(string(e)); err != nil {
			v.Add("entities", "%v", err)
		}
	}
	if f.Center != "" {
		if _, err := graph.ParseEntityName(string(f.Center)); err != nil {
			v.Add("center", "%v", err)
		}
		if f.Depth < 1 || f.Depth > MaxDepth {
			v.Add("depth", "a neighbourhood is 1 to %d hops around its center", MaxDepth)
		}
	} else if f.Depth != 0 {
		v.Add("depth", "depth needs a center")
	}
}

// record is what a filter reads of a change's records.
type record struct {
	Record     string `json:"record"`
	Type       string `json:"type"`
	From       string `json:"from"`
	To         string `json:"to"`
	Via        string `json:"via"`
	Term       string `json:"term"`
	MergedInto string `json:"merged_into"`
}

// touched is what a change names: the entities it changes or that its relation joins, and its
// relation's types.
func touched(c graph.Change) (entities []graph.EntityName, types []graph.RelationType) {
	if _, err := graph.ParseEntityName(c.Resource); err == nil {
		entities = append(entities, graph.EntityName(c.Resource))
	}
	for _, s := range []string{c.Before, c.After} {
		if s == "" {
			continue
		}
		var r record
		if json.Unmarshal([]byte(s), &r) != nil {
			continue
		}
		for _, e := range []string{r.From, r.To, r.Via, r.Term, r.MergedInto} {
			if e != "" && !slices.Contains(entities, graph.EntityName(e)) {
				entities = append(entities, graph.EntityName(e))
			}
		}
		if r.Record == "relation" && r.Type != "" && !slices.Contains(types, graph.RelationType(r.Type)) {
			types = append(types, graph.RelationType(r.Type))
		}
	}
	return entities, types
}

// empty reports whether the filter passes everything.
func (f Filter) empty() bool {
	return len(f.Entities) == 0 && f.Center == "" && len(f.RelationTypes) == 0 && len(f.Kinds) == 0
}

// match reports whether change c passes the filter, hood being its neighbourhood as last refreshed.
func (f Filter) match(c graph.Change, hood *neighbourhood) bool {
	if f.empty() || c.Action == graph.ActionLoad {
		return true
	}
	entities, types := touched(c)
	anyOf := func(ok func(graph.EntityName) bool) bool { return slices.ContainsFunc(entities, ok) }
	if len(f.RelationTypes) > 0 && !slices.ContainsFunc(types, func(t graph.RelationType) bool { return slices.Contains(f.RelationTypes, t) }) {
		return false
	}
	if len(f.Kinds) > 0 && !anyOf(func(e graph.EntityName) bool {
		k, err := graph.ParseEntityName(string(e))
		return err == nil && slices.Contains(f.Kinds, k)
	}) {
		return false
	}
	if len(f.Entities) > 0 && !anyOf(func(e graph.EntityName) bool { return slices.Contains(f.Entities, e) }) {
		return false
	}
	if hood != nil && !anyOf(func(e graph.EntityName) bool { return hood.in[e] }) {
		return false
	}
	return true
}
