// Package export writes a graph.Subgraph as files other tools read: GraphML (yEd, Gephi, networkx), GEXF
// 1.3 (Gephi), Cytoscape JSON (Cytoscape.js and Cytoscape desktop) and RDF N-Quads. Each format carries
// the evidence as well as the nodes and edges: every relation's claims (source, excerpt or record id,
// confidence, status, who said it), the sources they cite and the dates.
//
// What every format shares:
//   - A node's id is its entity's resource name (`actors/lutfur-rahman`), an edge's id its relation's
//     resource name. Every entity is a node. In GraphML, GEXF and Cytoscape JSON an end, via or term of a
//     relation that is not among the subgraph's entities gets a bare node (bare=true, labelled with its
//     name), so no edge dangles; N-Quads just refer to its IRI.
//   - Entities, relations, sources and each relation's claims are written sorted by name, so that two
//     exports of one subgraph, in whatever order it came, are byte for byte the same. An entity,
//     relation or source whose name is repeated is written once, as it first came.
//   - Deleted entities and relations and retracted claims are written, flagged deleted=true and
//     retracted=true.
//   - A symmetric relation type (FAMILY, APPEARED_WITH...) is an undirected edge in GEXF and Cytoscape;
//     GraphML keeps every edge directed, so that networkx reads the file as written; every edge also
//     says symmetric=true or false.
//   - Dates are written as they were given (YYYY, YYYY-MM or YYYY-MM-DD). GEXF also gives each node and
//     edge the span of days it holds, its fuzzy bounds read at their widest.
//   - A relation's claims are written as a JSON array of objects with the fields of ClaimJSON; in the
//     XML formats that array is the string value of the edge attribute `claims`.
//
// XML 1.0 cannot hold most control characters, even escaped: the XML writers write U+FFFD in their place
// (a claims attribute keeps them, escaped by JSON).
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Format names an export format.
type Format string

// The export formats.
const (
	GraphML   Format = "graphml"
	GEXF      Format = "gexf"
	Cytoscape Format = "cytoscape"
	NQuads    Format = "nquads"
)

// Extension is the file name extension of the format, with its dot: ".graphml", ".gexf", ".cyjs", ".nq";
// "" for an unknown format.
func (f Format) Extension() string {
	switch f {
	case GraphML:
		return ".graphml"
	case GEXF:
		return ".gexf"
	case Cytoscape:
		return ".cyjs"
	case NQuads:
		return ".nq"
	}
	return ""
}

// MediaType is the media type to serve the format as; "" for an unknown format.
func (f Format) MediaType() string {
	switch f {
	case GraphML:
		return "application/graphml+xml"
	case GEXF:
		return "application/gexf+xml"
	case Cytoscape:
		return "application/json"
	case NQuads:
		return "application/n-quads"
	}
	return ""
}

// Write writes g to w in format f. It returns an error for an unknown format, and the format's writer's
// error when writing fails.
func Write(w io.Writer, f Format, g graph.Subgraph) error {
	switch f {
	case GraphML:
		return WriteGraphML(w, g)
	case GEXF:
		return WriteGEXF(w, g)
	case Cytoscape:
		return WriteCytoscape(w, g)
	case NQuads:
		return WriteNQuads(w, g)
	}
	return fmt.Errorf("export.Write: unknown format %q (want graphml, gexf, cytoscape or nquads)", f)
}

// ClaimJSON is a claim as every format writes it: in Cytoscape JSON as an object of an edge's `claims`
// array, in GraphML and GEXF as an object of the JSON array that is an edge's `claims` attribute.
type ClaimJSON struct {
	Name   string `json:"name,omitempty"`
	Source string `json:"source"`
	// SourceTitle and SourceURL are the cited source's, so that a claim can be checked without the
	// sources list.
	SourceTitle string `json:"source_title,omitempty"`
	SourceURL   string `json:"source_url,omitempty"`
	// SourceOutlet is the cited source's publisher ("Daily Mail").
	SourceOutlet string  `json:"source_outlet,omitempty"`
	Excerpt      string  `json:"excerpt,omitempty"`
	Record       string  `json:"record,omitempty"`
	Confidence   float64 `json:"confidence"`
	Status       string  `json:"status"`
	SaidBy       string  `json:"said_by,omitempty"`
	Retracted    bool    `json:"retracted"`
}

// SourceJSON is a source as Cytoscape JSON (and GraphML's graph attribute `sources`) lists it.
type SourceJSON struct {
	Name      string `json:"name"`
	Title     string `json:"title,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Outlet    string `json:"outlet,omitempty"`
	Author    string `json:"author,omitempty"`
	Published string `json:"published,omitempty"`
	URL       string `json:"url,omitempty"`
	Retrieved string `json:"retrieved,omitempty"`
	Licence   string `json:"licence,omitempty"`
}

// node is an entity to write; bare when only a relation refers to it.
type node struct {
	graph.Entity
	bare bool
}

// model is a subgraph ready to write: every name once, sorted, with a node for every reference.
type model struct {
	nodes   []node
	edges   []graph.Relation // each with its claims sorted
	sources []graph.Source   // the subgraph's, then those only its claims cite
	source  map[graph.SourceName]graph.Source
}

// prepare sorts and completes a subgraph for writing.
func prepare(g graph.Subgraph) model {
	m := model{source: map[graph.SourceName]graph.Source{}}
	seen := map[graph.EntityName]bool{}
	for _, e := range g.Entities {
		if !seen[e.Name] {
			seen[e.Name] = true
			if e.Kind == "" {
				e.Kind = kindOf(e.Name)
			}
			m.nodes = append(m.nodes, node{Entity: e})
		}
	}
	rels := map[graph.RelationName]bool{}
	for _, r := range g.Relations {
		if rels[r.Name] {
			continue
		}
		rels[r.Name] = true
		r.Claims = slices.Clone(r.Claims)
		slices.SortStableFunc(r.Claims, func(a, b graph.Claim) int {
			if c := strings.Compare(a.Name, b.Name); c != 0 {
				return c
			}
			return strings.Compare(string(a.Source.Name), string(b.Source.Name))
		})
		m.edges = append(m.edges, r)
		for _, ref := range []graph.EntityName{r.From, r.To, r.Via, r.Term} {
			if ref != "" && !seen[ref] {
				seen[ref] = true
				m.nodes = append(m.nodes, node{Entity: graph.Entity{Name: ref, Kind: kindOf(ref), DisplayName: string(ref)}, bare: true})
			}
		}
	}
	slices.SortFunc(m.nodes, func(a, b node) int { return strings.Compare(string(a.Name), string(b.Name)) })
	slices.SortFunc(m.edges, func(a, b graph.Relation) int { return strings.Compare(string(a.Name), string(b.Name)) })

	for _, s := range g.Sources {
		if _, ok := m.source[s.Name]; !ok {
			m.source[s.Name] = s
			m.sources = append(m.sources, s)
		}
	}
	for _, r := range m.edges {
		for _, c := range r.Claims {
			if _, ok := m.source[c.Source.Name]; !ok && c.Source.Name != "" {
				m.source[c.Source.Name] = c.Source
				m.sources = append(m.sources, c.Source)
			}
		}
	}
	slices.SortFunc(m.sources, func(a, b graph.Source) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return m
}

// kindOf is the kind a resource name's collection holds, or "".
func kindOf(name graph.EntityName) graph.Kind {
	k, _ := graph.ParseEntityName(string(name))
	return k
}

// label is what a node is called: its display name, else its resource name.
func (n node) label() string {
	if n.DisplayName != "" {
		return n.DisplayName
	}
	return string(n.Name)
}

// aliases lists an entity's aliases with their languages and notes: Aliases in order, then any other
// name that is not among them.
func aliases(e graph.Entity) []graph.Alias {
	var out []graph.Alias
	seen := map[string]bool{}
	for _, a := range e.Aliases {
		if seen[a] {
			continue
		}
		seen[a] = true
		al := graph.Alias{Name: a}
		for _, o := range e.Attributes.OtherNames {
			if o.Name == a {
				al = o
				break
			}
		}
		out = append(out, al)
	}
	for _, o := range e.Attributes.OtherNames {
		if !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o)
		}
	}
	return out
}

// aliasNames lists the names of aliases.
func aliasNames(as []graph.Alias) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// identifiers lists an entity's ids as `scheme:value`, by scheme and then in the order given.
func identifiers(ids graph.Identifiers) []string {
	var out []string
	for _, id := range ids.Pairs() {
		out = append(out, id.String())
	}
	return out
}

// urls lists the addresses of links.
func urls(ls []graph.WebLink) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.URL)
	}
	return out
}

// typeWords is a relation type in words: "member of", "formerly worked with".
func typeWords(t graph.RelationType) string {
	return strings.ToLower(strings.ReplaceAll(string(t), "_", " "))
}

// claimJSON is a claim as written, its source's title and address taken from the sources list when the
// claim's copy of its source lacks them.
func (m model) claimJSON(c graph.Claim) ClaimJSON {
	title, url, outlet := c.Source.Title, c.Source.URL, c.Source.Outlet
	if s, ok := m.source[c.Source.Name]; ok {
		if title == "" {
			title = s.Title
		}
		if url == "" {
			url = s.URL
		}
		if outlet == "" {
			outlet = s.Outlet
		}
	}
	return ClaimJSON{Name: c.Name, Source: string(c.Source.Name), SourceTitle: title, SourceURL: url, SourceOutlet: outlet,
		Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence, Status: string(c.Status),
		SaidBy: string(c.SaidBy), Retracted: !c.Retracted.IsZero()}
}

// claimsJSON lists a relation's claims as written (an empty list, not nil, when it has none).
func (m model) claimsJSON(r graph.Relation) []ClaimJSON {
	out := make([]ClaimJSON, 0, len(r.Claims))
	for _, c := range r.Claims {
		out = append(out, m.claimJSON(c))
	}
	return out
}

// sourceJSON is a source as written.
func sourceJSON(s graph.Source) SourceJSON {
	return SourceJSON{Name: string(s.Name), Title: s.Title, Kind: string(s.Kind), Outlet: s.Outlet, Author: s.Author,
		Published: s.Published.String(), URL: s.URL, Retrieved: s.Retrieved.String(), Licence: s.Licence}
}

// sourceNames lists the distinct sources a relation's claims cite, sorted.
func sourceNames(r graph.Relation) []string {
	var out []string
	for _, c := range r.Claims {
		if c.Source.Name != "" {
			out = append(out, string(c.Source.Name))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// bestStatus is the strongest status of the relation's claims that are not retracted: CONFIRMED, then
// REPORTED, then ALLEGED; DENIED when every such claim denies it; "" when there is none.
func bestStatus(r graph.Relation) graph.ClaimStatus {
	best, denied := -1, false
	for _, c := range r.Claims {
		if !c.Retracted.IsZero() {
			continue
		}
		switch i := c.Status.Index(); {
		case c.Status == graph.StatusDenied:
			denied = true
		case i > best:
			best = i
		}
	}
	switch {
	case best >= 0:
		return graph.ClaimStatuses[best]
	case denied:
		return graph.StatusDenied
	}
	return ""
}

// bestConfidence is the highest confidence of a claim supporting the relation (not retracted, not
// DENIED); ok is false when there is none.
func bestConfidence(r graph.Relation) (conf float64, ok bool) {
	s := graph.SupportOf(r.Claims)
	conf = -1
	for _, st := range []graph.ClaimStatus{graph.StatusAlleged, graph.StatusReported, graph.StatusConfirmed} {
		conf = max(conf, s[st.Index()])
	}
	return conf, conf >= 0
}

// jsonString encodes v as compact JSON without HTML escaping, for an XML attribute's value.
func jsonString(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// boolString writes a boolean as XML Schema does.
func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
