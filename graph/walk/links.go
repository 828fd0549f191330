package walk

import "github.com/polgraph/polgraph/graph"

// TypeNumber is one more than each type's place in RelationTypes; SymmetricByNumber says, by that
// number, whether the type is symmetric.
var TypeNumber, SymmetricByNumber = func() (map[graph.RelationType]uint8, []bool) {
	m := make(map[graph.RelationType]uint8, len(graph.RelationTypes))
	sym := make([]bool, len(graph.RelationTypes)+1)
	for i, t := range graph.RelationTypes {
		m[t] = uint8(i + 1)
		sym[i+1] = t.Symmetric()
	}
	return m, sym
}()

// DefaultStrength is a relation's strength under the default filter (RelationFilter.Strength): what a
// walk ranks an entity's neighbours by, kept in each half of the relation.
func DefaultStrength(s graph.Support) float64 {
	var dflt graph.RelationFilter
	return dflt.Strength(s)
}
