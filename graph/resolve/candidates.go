package resolve

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Pair is two entities of the graph that may be one, with the score that says so.
type Pair struct {
	A, B  graph.Entity
	Score Score
}

// maxBlock bounds how many entities of one block are compared pairwise (a common surname's thousands
// would cost millions of comparisons and propose little).
const maxBlock = 200

// Candidates returns the pairs of entities, among ents, that a score merges or proposes, best first
// (then by names): people of one surname compared by ComparePeople, parties and organisations of one
// name form by CompareOrgs. Deleted and merged entities take no part, nor pairs judged apart.
func Candidates(ents []graph.Entity, apart graph.Apart) []Pair {
	blocks := map[string][]int{}
	for i, e := range ents {
		if !e.Deleted.IsZero() || e.MergedInto != "" {
			continue
		}
		keys := map[string]bool{}
		for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
			switch e.Kind {
			case graph.KindActor:
				if w := PersonWords(n); len(w) > 1 {
					keys["actor:"+w[len(w)-1]] = true
				}
			case graph.KindParty, graph.KindOrganisation:
				if k := OrgKey(n); k != "" {
					keys["org:"+k] = true
				}
			}
		}
		for k := range keys {
			blocks[k] = append(blocks[k], i)
		}
	}
	seen := map[[2]int]bool{}
	var out []Pair
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range blocks {
			if !yield(k) {
				return
			}
		}
	}) {
		b := blocks[k]
		if len(b) > maxBlock {
			continue
		}
		for x := 0; x < len(b); x++ {
			for y := x + 1; y < len(b); y++ {
				i, j := b[x], b[y]
				if seen[[2]int{i, j}] {
					continue
				}
				seen[[2]int{i, j}] = true
				if apart.Has(ents[i].Name, ents[j].Name) {
					continue
				}
				if s := Compare(ents[i], ents[j]); s.Decision != Apart {
					a, b := ents[i], ents[j]
					if b.Name < a.Name {
						a, b = b, a
					}
					out = append(out, Pair{A: a, B: b, Score: s})
				}
			}
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(-cmp.Compare(p.Score.Total, q.Score.Total), strings.Compare(string(p.A.Name), string(q.A.Name)),
			strings.Compare(string(p.B.Name), string(q.B.Name)))
	})
	return out
}

// Compare scores two entities as ComparePeople does people, and CompareOrgs other kinds.
func Compare(a, b graph.Entity) Score {
	if a.Kind == graph.KindActor && b.Kind == graph.KindActor {
		return ComparePeople(a, b)
	}
	return CompareOrgs(a, b)
}

// Reader is the graph candidates are drawn from: its live entities, and the judgements that keep pairs
// apart. A Store on Dgraph is one.
type Reader interface {
	graph.EntityLister
	GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error)
	Separated(ctx context.Context, names []graph.EntityName) ([]graph.Judgement, error)
}

// Live reads the live entities of the graph of kind (of every kind when kind is ""), in name order, and
// every judgement in force.
func Live(ctx context.Context, g Reader, kind graph.Kind) ([]graph.Entity, graph.Apart, error) {
	var out []graph.Entity
	var after graph.EntityName
	for {
		names, err := g.EntityNames(ctx, after, 1000)
		if err != nil {
			return nil, nil, err
		}
		if len(names) == 0 {
			break
		}
		after = names[len(names)-1]
		got, err := g.GetEntities(ctx, names)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			if e, ok := got[n]; ok && (kind == "" || e.Kind == kind) {
				out = append(out, e)
			}
		}
	}
	js, err := g.Separated(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return out, graph.NewApart(js), nil
}

// Lookups are the names a record is looked up by: its name, and for an organisation the forms of its name
// (OrgVariants), for a person the forms of its given name.
func Lookups(e graph.Entity) []string {
	switch e.Kind {
	case graph.KindParty, graph.KindOrganisation:
		return OrgVariants(e.DisplayName)
	case graph.KindActor:
		out := []string{e.DisplayName}
		if words := strings.Fields(graph.NormalizeName(e.DisplayName)); len(words) > 1 {
			for _, h := range graph.SearchHypocorisms(words[0]) {
				out = append(out, h+" "+strings.Join(words[1:], " "))
			}
		}
		return out
	}
	return []string{e.DisplayName}
}

// Near returns the live entities, other than e, that e may be: of e's kind, among found (the entities
// called by each of e's names and their forms, NearNames, keyed by graph.NormalizeName as a store's
// FindByNames gives them), scored by Compare, best first; pairs judged apart are left out.
func Near(e graph.Entity, found map[string][]graph.Entity, apart graph.Apart) []Pair {
	seen := map[graph.EntityName]bool{e.Name: true}
	var out []Pair
	for _, n := range NearNames(e) {
		for _, c := range found[graph.NormalizeName(n)] {
			if seen[c.Name] || c.Kind != e.Kind || !c.Deleted.IsZero() || c.MergedInto != "" {
				continue
			}
			seen[c.Name] = true
			if apart.Has(e.Name, c.Name) {
				continue
			}
			if s := Compare(e, c); s.Decision != Apart {
				out = append(out, Pair{A: e, B: c, Score: s})
			}
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(-cmp.Compare(p.Score.Total, q.Score.Total), strings.Compare(string(p.B.Name), string(q.B.Name)))
	})
	return out
}

// NearNames are the names Near looks e up by: its names and their forms (Lookups), and its aliases.
func NearNames(e graph.Entity) []string { return append(Lookups(e), e.Aliases...) }

// CompareOrgs scores whether two records of parties or organisations name one: a name of one form
// (OrgKey) merges, unless their kinds or ids say otherwise.
func CompareOrgs(a, b graph.Entity) Score {
	var fs []Feature
	if a.Kind != b.Kind {
		fs = append(fs, Feature{"kind", wOtherKind, string(a.Kind) + " and " + string(b.Kind)})
	}
	name := Feature{"name", wOtherName, "names of other forms"}
	for _, x := range append([]string{a.DisplayName}, a.Aliases...) {
		for _, y := range append([]string{b.DisplayName}, b.Aliases...) {
			if k := OrgKey(x); k != "" && k == OrgKey(y) {
				name = Feature{"name", wSameName, "names of one form (" + k + ")"}
			}
		}
	}
	fs = append(fs, name)
	if k, conflict := GlobalIDs(a.Identifiers).Conflict(GlobalIDs(b.Identifiers)); conflict {
		fs = append(fs, Feature{"ids", wConflictingID, "their " + k + " ids differ"})
	} else if id, ok := sharedID(a.Identifiers, b.Identifiers); ok {
		fs = append(fs, Feature{"ids", wSharedID, "both hold " + id.String()})
	}
	return decide(fs)
}
