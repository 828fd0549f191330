package export

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"

	"github.com/polgraph/polgraph/graph"
)

// gexfNS is GEXF 1.3's namespace.
const gexfNS = "http://gexf.net/1.3"

type gexfAttribute struct {
	XMLName xml.Name `xml:"attribute"`
	ID      string   `xml:"id,attr"`
	Title   string   `xml:"title,attr"`
	Type    string   `xml:"type,attr"`
	Default string   `xml:"default,omitempty"`
}

type gexfAttributes struct {
	XMLName    xml.Name `xml:"attributes"`
	Class      string   `xml:"class,attr"`
	Mode       string   `xml:"mode,attr"`
	Attributes []gexfAttribute
}

type gexfAttValue struct {
	For   string `xml:"for,attr"`
	Value string `xml:"value,attr"`
}

type gexfNode struct {
	XMLName   xml.Name       `xml:"node"`
	ID        string         `xml:"id,attr"`
	Label     string         `xml:"label,attr"`
	Start     string         `xml:"start,attr,omitempty"`
	End       string         `xml:"end,attr,omitempty"`
	AttValues []gexfAttValue `xml:"attvalues>attvalue"`
}

type gexfEdge struct {
	XMLName   xml.Name       `xml:"edge"`
	ID        string         `xml:"id,attr"`
	Source    string         `xml:"source,attr"`
	Target    string         `xml:"target,attr"`
	Type      string         `xml:"type,attr,omitempty"`
	Kind      string         `xml:"kind,attr,omitempty"`
	Label     string         `xml:"label,attr"`
	Start     string         `xml:"start,attr,omitempty"`
	End       string         `xml:"end,attr,omitempty"`
	AttValues []gexfAttValue `xml:"attvalues>attvalue"`
}

type gexfMeta struct {
	XMLName     xml.Name `xml:"meta"`
	Creator     string   `xml:"creator"`
	Description string   `xml:"description"`
}

// gexfType is GEXF's name for a GraphML attribute type.
func gexfType(graphmlType string) string {
	if graphmlType == "int" {
		return "integer"
	}
	return graphmlType
}

// span is the first and last day (YYYY-MM-DD) of a period; "" for an open end.
func span(p graph.Period) (start, end string) {
	if p.Start != math.MinInt32 {
		start = graph.DayString(p.Start)
	}
	if p.End != math.MaxInt32 {
		end = graph.DayString(p.End)
	}
	return start, end
}

// WriteGEXF writes g as GEXF 1.3 (http://gexf.net/1.3), for Gephi. Nodes are labelled with their display
// names and edges with their types in words; nodeFields and edgeFields are declared as static attributes
// (<attributes class="node"> and class="edge") and written as attvalues, the fuzzy dates among them as
// they were given. An edge of a symmetric type has type="undirected" (Gephi reads graphs that mix both),
// and every edge has its relation type as its kind, so that Gephi keeps two relations of different types
// between one pair apart.
//
// When any entity or relation is dated, the graph is dynamic (mode="dynamic", timeformat="date") and each
// dated node and edge has start and end days: an entity from its valid_from to its valid_to, a relation
// over graph.Relation.Period, each fuzzy bound read at its widest (valid_from 2015 starts on 2015-01-01,
// valid_to 2015 ends on 2015-12-31) and an open bound left out. Gephi's timeline then shows what held
// when. Otherwise the graph is static.
func WriteGEXF(w io.Writer, g graph.Subgraph) error {
	if err := writeGEXF(w, prepare(g)); err != nil {
		return fmt.Errorf("export.WriteGEXF: %w", err)
	}
	return nil
}

func writeGEXF(w io.Writer, m model) error {
	type spanned struct{ start, end string }
	nodeSpans := make([]spanned, len(m.nodes))
	edgeSpans := make([]spanned, len(m.edges))
	dynamic := false
	for i, n := range m.nodes {
		s, e := span(n.Lifetime())
		nodeSpans[i] = spanned{s, e}
		dynamic = dynamic || s != "" || e != ""
	}
	for i, r := range m.edges {
		s, e := span(r.Period())
		edgeSpans[i] = spanned{s, e}
		dynamic = dynamic || s != "" || e != ""
	}

	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	root := xml.StartElement{Name: xml.Name{Local: "gexf"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "xmlns"}, Value: gexfNS},
		{Name: xml.Name{Local: "xmlns:xsi"}, Value: "http://www.w3.org/2001/XMLSchema-instance"},
		{Name: xml.Name{Local: "xsi:schemaLocation"}, Value: gexfNS + " http://gexf.net/1.3/gexf.xsd"},
		{Name: xml.Name{Local: "version"}, Value: "1.3"},
	}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	if err := enc.Encode(gexfMeta{Creator: "polgraph",
		Description: "polgraph subgraph: entities, relations and the claims behind them"}); err != nil {
		return err
	}
	gr := xml.StartElement{Name: xml.Name{Local: "graph"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "defaultedgetype"}, Value: "directed"},
		{Name: xml.Name{Local: "mode"}, Value: "static"},
	}}
	if dynamic {
		gr.Attr[1].Value = "dynamic"
		gr.Attr = append(gr.Attr, xml.Attr{Name: xml.Name{Local: "timeformat"}, Value: "date"})
	}
	if err := enc.EncodeToken(gr); err != nil {
		return err
	}
	for _, class := range []string{"node", "edge"} {
		fields := nodeFields
		if class == "edge" {
			fields = edgeFields
		}
		as := gexfAttributes{Class: class, Mode: "static"}
		for _, f := range fields {
			a := gexfAttribute{ID: graphmlKeyID(class, f.name), Title: f.name, Type: gexfType(f.typ)}
			if f.typ == "boolean" {
				a.Default = "false"
			}
			as.Attributes = append(as.Attributes, a)
		}
		if err := enc.Encode(as); err != nil {
			return err
		}
	}

	nodes := xml.StartElement{Name: xml.Name{Local: "nodes"}}
	if err := enc.EncodeToken(nodes); err != nil {
		return err
	}
	for i, n := range m.nodes {
		v, err := nodeValues(n)
		if err != nil {
			return err
		}
		x := gexfNode{ID: string(n.Name), Label: n.label(), Start: nodeSpans[i].start, End: nodeSpans[i].end,
			AttValues: attValues("node", nodeFields, v)}
		if err := enc.Encode(x); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(nodes.End()); err != nil {
		return err
	}

	edges := xml.StartElement{Name: xml.Name{Local: "edges"}}
	if err := enc.EncodeToken(edges); err != nil {
		return err
	}
	for i, r := range m.edges {
		v, err := m.edgeValues(r)
		if err != nil {
			return err
		}
		x := gexfEdge{ID: string(r.Name), Source: string(r.From), Target: string(r.To), Kind: string(r.Type),
			Label: typeWords(r.Type), Start: edgeSpans[i].start, End: edgeSpans[i].end,
			AttValues: attValues("edge", edgeFields, v)}
		if r.Type.Symmetric() {
			x.Type = "undirected"
		}
		if err := enc.Encode(x); err != nil {
			return err
		}
	}
	for _, end := range []xml.EndElement{edges.End(), gr.End(), root.End()} {
		if err := enc.EncodeToken(end); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// attValues lists the non-empty values of fields, in their order.
func attValues(of string, fields []field, v map[string]string) []gexfAttValue {
	var out []gexfAttValue
	for _, f := range fields {
		if s := v[f.name]; s != "" {
			out = append(out, gexfAttValue{For: graphmlKeyID(of, f.name), Value: s})
		}
	}
	return out
}
