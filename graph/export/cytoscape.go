package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/polgraph/polgraph/graph"
)

// CytoscapeDocument is the Cytoscape JSON WriteCytoscape writes: Cytoscape.js's elements format, which
// Cytoscape desktop imports as .cyjs.
type CytoscapeDocument struct {
	FormatVersion   string `json:"format_version"`
	GeneratedBy     string `json:"generated_by"`
	TargetCytoscape string `json:"target_cytoscapejs_version"`
	// Data is the graph's: its name and the sources its claims cite.
	Data struct {
		Name    string       `json:"name"`
		Sources []SourceJSON `json:"sources"`
	} `json:"data"`
	Elements struct {
		Nodes []CytoscapeNode `json:"nodes"`
		Edges []CytoscapeEdge `json:"edges"`
	} `json:"elements"`
}

// CytoscapeNode is an entity as a Cytoscape element.
type CytoscapeNode struct {
	Data CytoscapeNodeData `json:"data"`
}

// CytoscapeNodeData is what a node says of its entity. Name repeats Label for Cytoscape desktop, which
// labels nodes with `name`.
type CytoscapeNodeData struct {
	ID          string                `json:"id"`
	Label       string                `json:"label"`
	Name        string                `json:"name"`
	Kind        string                `json:"kind,omitempty"`
	Aliases     []string              `json:"aliases,omitempty"`
	OtherNames  []graph.Alias         `json:"other_names,omitempty"` // the aliases with a language or a note
	Description string                `json:"description,omitempty"`
	Identifiers []string              `json:"identifiers,omitempty"` // scheme:value
	ValidFrom   string                `json:"valid_from,omitempty"`
	ValidTo     string                `json:"valid_to,omitempty"`
	BirthDate   string                `json:"birth_date,omitempty"`
	DeathDate   string                `json:"death_date,omitempty"`
	Gender      string                `json:"gender,omitempty"`
	Links       []graph.WebLink       `json:"links,omitempty"`
	Images      []graph.WebLink       `json:"images,omitempty"`
	Contacts    []graph.ContactDetail `json:"contact_details,omitempty"`
	Deleted     bool                  `json:"deleted"`
	MergedInto  string                `json:"merged_into,omitempty"`
	Bare        bool                  `json:"bare"` // only a relation refers to it: the subgraph does not hold it
}

// CytoscapeEdge is a relation as a Cytoscape element.
type CytoscapeEdge struct {
	Data CytoscapeEdgeData `json:"data"`
}

// CytoscapeEdgeData is what an edge says of its relation. Interaction repeats Type for Cytoscape desktop;
// Directed is false for a symmetric type.
type CytoscapeEdgeData struct {
	ID          string      `json:"id"`
	Source      string      `json:"source"`
	Target      string      `json:"target"`
	Type        string      `json:"type"`
	Interaction string      `json:"interaction"`
	Label       string      `json:"label"` // the type in words
	Role        string      `json:"role,omitempty"`
	Via         string      `json:"via,omitempty"`
	Term        string      `json:"term,omitempty"`
	ValidFrom   string      `json:"valid_from,omitempty"`
	ValidTo     string      `json:"valid_to,omitempty"`
	Date        string      `json:"date,omitempty"`
	Symmetric   bool        `json:"symmetric"`
	Directed    bool        `json:"directed"`
	Claims      []ClaimJSON `json:"claims"`
	ClaimCount  int         `json:"claim_count"`
	Sources     []string    `json:"sources"`
	Status      string      `json:"status,omitempty"`     // bestStatus
	Confidence  *float64    `json:"confidence,omitempty"` // the highest of a supporting claim
	Verdict     string      `json:"verdict"`
	Deleted     bool        `json:"deleted"`
	MergedInto  string      `json:"merged_into,omitempty"`
}

// WriteCytoscape writes g as Cytoscape JSON, a CytoscapeDocument.
func WriteCytoscape(w io.Writer, g graph.Subgraph) error {
	if err := writeCytoscape(w, prepare(g)); err != nil {
		return fmt.Errorf("export.WriteCytoscape: %w", err)
	}
	return nil
}

func writeCytoscape(w io.Writer, m model) error {
	var doc CytoscapeDocument
	doc.FormatVersion, doc.GeneratedBy, doc.TargetCytoscape = "1.0", "polgraph", "~3"
	doc.Data.Name = "polgraph export"
	doc.Data.Sources = make([]SourceJSON, len(m.sources))
	for i, s := range m.sources {
		doc.Data.Sources[i] = sourceJSON(s)
	}
	doc.Elements.Nodes = make([]CytoscapeNode, len(m.nodes))
	for i, n := range m.nodes {
		as := aliases(n.Entity)
		d := CytoscapeNodeData{ID: string(n.Name), Label: n.label(), Name: n.label(), Kind: string(n.Kind),
			Aliases: aliasNames(as), Description: n.Description, Identifiers: identifiers(n.Identifiers),
			ValidFrom: n.ValidFrom.String(), ValidTo: n.ValidTo.String(), BirthDate: n.Attributes.BirthDate.String(),
			DeathDate: n.Attributes.DeathDate.String(), Gender: n.Attributes.Gender, Links: n.Attributes.Links,
			Images: n.Attributes.Images, Contacts: n.Attributes.ContactDetails, Deleted: !n.Deleted.IsZero(),
			MergedInto: string(n.MergedInto), Bare: n.bare}
		for _, a := range as {
			if a.Lang != "" || a.Note != "" {
				d.OtherNames = append(d.OtherNames, a)
			}
		}
		doc.Elements.Nodes[i] = CytoscapeNode{Data: d}
	}
	doc.Elements.Edges = make([]CytoscapeEdge, len(m.edges))
	for i, r := range m.edges {
		d := CytoscapeEdgeData{ID: string(r.Name), Source: string(r.From), Target: string(r.To), Type: string(r.Type),
			Interaction: string(r.Type), Label: typeWords(r.Type), Role: r.Role, Via: string(r.Via), Term: string(r.Term),
			ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(), Date: r.Date.String(),
			Symmetric: r.Type.Symmetric(), Directed: !r.Type.Symmetric(), Claims: m.claimsJSON(r),
			ClaimCount: len(r.Claims), Sources: sourceNames(r), Status: string(bestStatus(r)),
			Verdict: graph.VerdictOf(r.Claims).String(), Deleted: !r.Deleted.IsZero(), MergedInto: string(r.MergedInto)}
		if d.Sources == nil {
			d.Sources = []string{}
		}
		if c, ok := bestConfidence(r); ok {
			d.Confidence = &c
		}
		doc.Elements.Edges[i] = CytoscapeEdge{Data: d}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return bw.Flush()
}
