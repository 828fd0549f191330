package export

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/polgraph/polgraph/graph"
)

// graphmlNS is GraphML's namespace.
const graphmlNS = "http://graphml.graphdrawing.org/xmlns"

type graphmlKey struct {
	XMLName xml.Name `xml:"key"`
	ID      string   `xml:"id,attr"`
	For     string   `xml:"for,attr"`
	Name    string   `xml:"attr.name,attr"`
	Type    string   `xml:"attr.type,attr"`
	Default *string  `xml:"default,omitempty"`
}

type graphmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

type graphmlNode struct {
	XMLName xml.Name      `xml:"node"`
	ID      string        `xml:"id,attr"`
	Data    []graphmlData `xml:"data"`
}

type graphmlEdge struct {
	XMLName xml.Name      `xml:"edge"`
	ID      string        `xml:"id,attr"`
	Source  string        `xml:"source,attr"`
	Target  string        `xml:"target,attr"`
	Data    []graphmlData `xml:"data"`
}

// graphmlKeyID is the id of a node (n_…), edge (e_…) or graph (g_…) attribute's key.
func graphmlKeyID(of, name string) string { return of[:1] + "_" + name }

// WriteGraphML writes g as GraphML (http://graphml.graphdrawing.org/xmlns). Every attribute is declared
// with a <key> (attr.name, attr.type) before the graph: nodes have `label` (the display name) and
// nodeFields, edges `label` (the type in words) and edgeFields, and the graph has `sources`, a JSON array
// of SourceJSON. The graph is directed (edgedefault="directed") and so is every edge: an edge of a
// symmetric type says so in its `symmetric` attribute, not with directed="false", which networkx refuses
// in a directed graph (a mixed graph). Node ids are resource names, which the GraphML schema's
// NMTOKEN type does not allow ('/'): readers do not check it, but a validating parser would object.
func WriteGraphML(w io.Writer, g graph.Subgraph) error {
	if err := writeGraphML(w, prepare(g)); err != nil {
		return fmt.Errorf("export.WriteGraphML: %w", err)
	}
	return nil
}

func writeGraphML(w io.Writer, m model) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	root := xml.StartElement{Name: xml.Name{Local: "graphml"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "xmlns"}, Value: graphmlNS},
		{Name: xml.Name{Local: "xmlns:xsi"}, Value: "http://www.w3.org/2001/XMLSchema-instance"},
		{Name: xml.Name{Local: "xsi:schemaLocation"}, Value: graphmlNS + " http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"},
	}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	falseDefault := "false"
	key := func(of string, f field) graphmlKey {
		k := graphmlKey{ID: graphmlKeyID(of, f.name), For: of, Name: f.name, Type: f.typ}
		if f.typ == "boolean" {
			k.Default = &falseDefault
		}
		return k
	}
	keys := []graphmlKey{key("graph", field{"sources", "string"}), key("node", field{"label", "string"})}
	for _, f := range nodeFields {
		keys = append(keys, key("node", f))
	}
	keys = append(keys, key("edge", field{"label", "string"}))
	for _, f := range edgeFields {
		keys = append(keys, key("edge", f))
	}
	for _, k := range keys {
		if err := enc.Encode(k); err != nil {
			return err
		}
	}

	gr := xml.StartElement{Name: xml.Name{Local: "graph"}, Attr: []xml.Attr{
		{Name: xml.Name{Local: "id"}, Value: "polgraph"},
		{Name: xml.Name{Local: "edgedefault"}, Value: "directed"},
	}}
	if err := enc.EncodeToken(gr); err != nil {
		return err
	}
	sources := make([]SourceJSON, len(m.sources))
	for i, s := range m.sources {
		sources[i] = sourceJSON(s)
	}
	sj, err := jsonString(sources)
	if err != nil {
		return err
	}
	if err := enc.EncodeElement(graphmlData{Key: graphmlKeyID("graph", "sources"), Value: sj}, xml.StartElement{Name: xml.Name{Local: "data"}}); err != nil {
		return err
	}
	for _, n := range m.nodes {
		v, err := nodeValues(n)
		if err != nil {
			return err
		}
		x := graphmlNode{ID: string(n.Name), Data: []graphmlData{{Key: graphmlKeyID("node", "label"), Value: n.label()}}}
		x.Data = appendData(x.Data, "node", nodeFields, v)
		if err := enc.Encode(x); err != nil {
			return err
		}
	}
	for _, r := range m.edges {
		v, err := m.edgeValues(r)
		if err != nil {
			return err
		}
		x := graphmlEdge{ID: string(r.Name), Source: string(r.From), Target: string(r.To),
			Data: []graphmlData{{Key: graphmlKeyID("edge", "label"), Value: typeWords(r.Type)}}}
		x.Data = appendData(x.Data, "edge", edgeFields, v)
		if err := enc.Encode(x); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(gr.End()); err != nil {
		return err
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// appendData appends the non-empty values of fields, in their order.
func appendData(data []graphmlData, of string, fields []field, v map[string]string) []graphmlData {
	for _, f := range fields {
		if s := v[f.name]; s != "" {
			data = append(data, graphmlData{Key: graphmlKeyID(of, f.name), Value: s})
		}
	}
	return data
}
