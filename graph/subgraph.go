package graph

// Subgraph is a part of the graph with what writing it out needs: its entities, its relations with their
// claims, and the sources those claims cite. Exports write one; importers of other formats read one.
// Every relation's ends (and via, term and said_by, when set) should be among Entities, and every
// claim's source among Sources; writers that need a node for each reference may add a bare one.
type Subgraph struct {
	Entities  []Entity
	Relations []Relation
	Sources   []Source
	// Scope says, in words, what part of the graph this is ("the whole graph", "the neighbourhood of
	// actors/x, depth 1"); Filter, the filter that chose its relations ("" when none did: every relation,
	// whatever its claims). An export's header says both.
	Scope, Filter string
}
