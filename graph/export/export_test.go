package export

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

// The fixture: every kind, aliases with and without a language, two values of one identifier scheme,
// attributes and dates; a symmetric relation, one with via and term, one with a DENIED claim, one with a
// record-only claim, one with a retracted claim, a deleted entity and relation, two relations between one
// pair, ends and a term that are not among the entities; and text that XML, JSON and N-Quads must escape.

var (
	tomb = graph.Tombstone{Time: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC), By: "editor", Reason: "duplicate"}

	srcMail = graph.Source{Name: "sources/daily-mail-2023-11-03", Title: `Rahman's "Aspire" <returns> & wins`,
		Kind: graph.SourceArticle, Outlet: "Daily Mail", Author: "Jane O'Doe", Published: graph.FuzzyDate{Year: 2023, Month: 11, Day: 3},
		URL: "https://www.dailymail.co.uk/news/article-1.html?a=1&b=2"}
	srcBBC = graph.Source{Name: "sources/bbc-2015-04-23", Title: "Tower Hamlets mayor Lutfur Rahman removed from office",
		Kind: graph.SourceArticle, Outlet: "BBC News", Published: graph.FuzzyDate{Year: 2015, Month: 4, Day: 23},
		URL: "https://www.bbc.co.uk/news/uk-england-london-32428648"}
	srcPopolo = graph.Source{Name: "sources/everypolitician-uk", Title: "EveryPolitician: United Kingdom",
		Kind: graph.SourceDataset, Outlet: "mySociety", Retrieved: graph.FuzzyDate{Year: 2024, Month: 1},
		URL: "https://everypolitician.org/uk/", Licence: "https://creativecommons.org/publicdomain/zero/1.0/"}
	srcSurma = graph.Source{Name: "sources/surma-2014", Title: "সাপ্তাহিক সুরমা: ব্রিক লেন", Kind: graph.SourceArticle,
		Outlet: "Surma", Published: graph.FuzzyDate{Year: 2014}, Licence: "All rights reserved"}
	// srcELA is cited by a claim but not in the subgraph's Sources.
	srcELA = graph.Source{Name: "sources/east-london-advertiser-2014", Title: "Rahman & Masroor at Brick Lane rally",
		Kind: graph.SourceArticle, Outlet: "East London Advertiser", Published: graph.FuzzyDate{Year: 2014, Month: 5}}
)

const (
	lutfur    graph.EntityName = "actors/lutfur-rahman"
	rushanara graph.EntityName = "actors/rushanara-ali"
	ajmal     graph.EntityName = "actors/ajmal-masroor"
	aspire    graph.EntityName = "parties/aspire"
	labour    graph.EntityName = "parties/labour"
	mayor     graph.EntityName = "seats/mayor-of-tower-hamlets"
	brickLane graph.EntityName = "seats/brick-lane"
	thFirst   graph.EntityName = "organisations/tower-hamlets-first"
	court     graph.EntityName = "organisations/election-court"
	// Not among the entities: a relation's end and a relation's term.
	biggs   graph.EntityName = "actors/john-biggs"
	council graph.EntityName = "organisations/tower-hamlets-council-2022"
)

// hostile is an excerpt with what every format must escape: markup, quotes, a newline, a tab, a control
// character and non-ASCII text.
const hostile = "He said: \"Aspire <is> back\" & so am I.\nব্রিক লেন cheered;\tRushanara Ali \\ Plaid Lafur \x01 ŵ"

func claim(rel graph.RelationName, src graph.Source, key, excerpt string, conf float64, st graph.ClaimStatus) graph.Claim {
	return graph.Claim{Name: graph.ClaimNameFor(rel, src.Name, key), Source: src, Excerpt: excerpt, Confidence: conf, Status: st}
}

func relation(from graph.EntityName, t graph.RelationType, to graph.EntityName, key string) graph.Relation {
	return graph.Relation{Name: graph.RelationNameFor(from, t, to, key), Type: t, From: from, To: to}
}

func fixture() graph.Subgraph {
	entities := []graph.Entity{
		{Name: lutfur, Kind: graph.KindActor, DisplayName: "Lutfur Rahman", Aliases: []string{"Lutfur", "লুৎফুর রহমান"},
			Description: `Mayor of Tower Hamlets; "Aspire" <founder> & leader`,
			Identifiers: graph.Identifiers{"wikidata": {"Q6703766", "Q116000001"}, "parlparse": {"uk.org.publicwhip/person/99999"}},
			Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1965, Month: 7}, Gender: "male",
				Links:          []graph.WebLink{{URL: "https://example.org/lutfur rahman?a=<1>&b={2}", Note: "profile"}},
				Images:         []graph.WebLink{{URL: "https://example.org/lutfur.jpg"}},
				ContactDetails: []graph.ContactDetail{{Type: "email", Value: "mayor@example.org"}, {Type: "twitter", Value: "@LutfurRahman"}},
				OtherNames:     []graph.Alias{{Name: "লুৎফুর রহমান", Lang: "bn", Note: "transliteration"}}}},
		{Name: rushanara, Kind: graph.KindActor, DisplayName: "Rushanara Ali", Aliases: []string{"Rushanara Ali MP"},
			Identifiers: graph.Identifiers{"wikidata": {"Q263044"}},
			Attributes:  graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1975, Month: 3, Day: 14}, Gender: "female"}},
		{Name: ajmal, Kind: graph.KindActor, DisplayName: "Ajmal Masroor", Deleted: tomb},
		{Name: aspire, Kind: graph.KindParty, DisplayName: "Aspire", ValidFrom: graph.FuzzyDate{Year: 2018, Month: 4}},
		{Name: labour, Kind: graph.KindParty, DisplayName: "Labour Party", Aliases: []string{"Y Blaid Lafur", "Labour"},
			Attributes: graph.Attributes{OtherNames: []graph.Alias{{Name: "Y Blaid Lafur", Lang: "cy"}}}},
		{Name: mayor, Kind: graph.KindSeat, DisplayName: "Mayor of Tower Hamlets", ValidFrom: graph.FuzzyDate{Year: 2010, Month: 10}},
		{Name: brickLane, Kind: graph.KindSeat, DisplayName: "Brick Lane (ব্রিক লেন)", Aliases: []string{"ব্রিক লেন"},
			ValidFrom: graph.FuzzyDate{Year: 2014, Month: 5, Day: 22}, ValidTo: graph.FuzzyDate{Year: 2022},
			Attributes: graph.Attributes{OtherNames: []graph.Alias{{Name: "ব্রিক লেন", Lang: "bn"}}}},
		{Name: thFirst, Kind: graph.KindOrganisation, DisplayName: "Tower Hamlets First",
			ValidFrom: graph.FuzzyDate{Year: 2014}, ValidTo: graph.FuzzyDate{Year: 2015, Month: 4, Day: 29}},
		{Name: court, Kind: graph.KindOrganisation, DisplayName: "Election Court"},
	}

	founded := relation(lutfur, graph.Founded, aspire, "")
	founded.Date = graph.FuzzyDate{Year: 2018, Month: 4}
	founded.Claims = []graph.Claim{
		claim(founded.Name, srcMail, "", hostile, 0.9, graph.StatusReported),
		func() graph.Claim {
			c := claim(founded.Name, srcSurma, "", "রহমান founded Aspire in 2014", 0.3, graph.StatusAlleged)
			c.Retracted = tomb
			return c
		}(),
	}

	office2010 := relation(lutfur, graph.HoldsOffice, mayor, "2010")
	office2010.Role = "Mayor"
	office2010.ValidFrom, office2010.ValidTo = graph.FuzzyDate{Year: 2010, Month: 10, Day: 21}, graph.FuzzyDate{Year: 2015, Month: 4, Day: 23}
	office2010.Claims = []graph.Claim{claim(office2010.Name, graph.Source{Name: srcBBC.Name}, "", "Lutfur Rahman was removed from office.", 1, graph.StatusConfirmed)}

	office2022 := relation(lutfur, graph.HoldsOffice, mayor, "2022")
	office2022.Role = "Mayor"
	office2022.ValidFrom = graph.FuzzyDate{Year: 2022, Month: 5}
	office2022.Claims = []graph.Claim{{Name: graph.ClaimNameFor(office2022.Name, srcPopolo.Name, ""), Source: srcPopolo,
		Record: "membership/lutfur-rahman-mayor-2022", Confidence: 0.95, Status: graph.StatusConfirmed}}

	candidate := relation(lutfur, graph.CandidateFor, mayor, "2022")
	candidate.Via, candidate.Term, candidate.Role = aspire, council, "Aspire candidate"
	candidate.Date = graph.FuzzyDate{Year: 2022, Month: 5, Day: 5}
	candidate.Claims = []graph.Claim{claim(candidate.Name, srcPopolo, "", "Lutfur Rahman (Aspire)", 0.8, graph.StatusReported)}

	removed := relation(lutfur, graph.RemovedFromOffice, mayor, "")
	removed.Via, removed.Date = court, graph.FuzzyDate{Year: 2015, Month: 4, Day: 23}
	removed.Claims = []graph.Claim{claim(removed.Name, srcBBC, "", "The election court removed him.", 1, graph.StatusConfirmed)}

	appeared := relation(ajmal, graph.AppearedWith, lutfur, "") // symmetric: ends in name order
	appeared.Date = graph.FuzzyDate{Year: 2014, Month: 5}
	appeared.Claims = []graph.Claim{
		claim(appeared.Name, srcELA, "", "Masroor and Rahman spoke at the rally.", 0.7, graph.StatusReported),
		claim(appeared.Name, srcSurma, "", "মাসরুর ও রহমান", 0.6, graph.StatusAlleged),
	}
	appeared.Claims[1].SaidBy = rushanara

	endorses := relation(lutfur, graph.Endorses, rushanara, "")
	endorses.Date = graph.FuzzyDate{Year: 2023}
	endorses.Claims = []graph.Claim{claim(endorses.Name, srcMail, "", "Rahman has never endorsed Ali, his office said.", 0.85, graph.StatusDenied)}

	member := relation(rushanara, graph.MemberOf, labour, "")
	member.Claims = []graph.Claim{
		claim(member.Name, srcMail, "", "Labour MP Rushanara Ali", 0.9, graph.StatusReported),
		claim(member.Name, srcSurma, "", "রুশনারা আলী, লেবার", 0.7, graph.StatusReported),
	}

	criticised := relation(rushanara, graph.Criticised, biggs, "")
	criticised.Date = graph.FuzzyDate{Year: 2015}
	criticised.Claims = []graph.Claim{claim(criticised.Name, srcMail, "biggs", "Ali <criticised> Biggs & the council", 0.5, graph.StatusAlleged)}

	memberTHF := relation(lutfur, graph.MemberOf, thFirst, "")
	memberTHF.ValidFrom, memberTHF.ValidTo = graph.FuzzyDate{Year: 2014}, graph.FuzzyDate{Year: 2015}
	memberTHF.Deleted = tomb
	memberTHF.Claims = []graph.Claim{claim(memberTHF.Name, srcBBC, "", "Tower Hamlets First, Rahman's party", 0.9, graph.StatusReported)}

	return graph.Subgraph{
		Entities:  entities,
		Relations: []graph.Relation{founded, office2010, office2022, candidate, removed, appeared, endorses, member, criticised, memberTHF},
		Sources:   []graph.Source{srcMail, srcBBC, srcPopolo, srcSurma},
	}
}

// The expectations, from the fixture.

type wantNode struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Deleted bool   `json:"deleted"`
	Bare    bool   `json:"bare"`
}

// claimObj is a claim as the formats should write it, spelled here independently of ClaimJSON.
type claimObj struct {
	Name        string  `json:"name"`
	Source      string  `json:"source"`
	SourceTitle string  `json:"source_title"`
	SourceURL   string  `json:"source_url"`
	Outlet      string  `json:"source_outlet"`
	Excerpt     string  `json:"excerpt"`
	Record      string  `json:"record"`
	Confidence  float64 `json:"confidence"`
	Status      string  `json:"status"`
	SaidBy      string  `json:"said_by"`
	Retracted   bool    `json:"retracted"`
}

type wantEdge struct {
	ID        string     `json:"id"`
	Source    string     `json:"source"`
	Target    string     `json:"target"`
	Type      string     `json:"type"`
	Label     string     `json:"label"`
	Symmetric bool       `json:"symmetric"`
	Deleted   bool       `json:"deleted"`
	Claims    []claimObj `json:"claims"`
}

// wantNodes is every entity, and a bare node for every end, via or term that is not one, sorted.
func wantNodes(g graph.Subgraph) []wantNode {
	seen := map[graph.EntityName]bool{}
	var out []wantNode
	for _, e := range g.Entities {
		seen[e.Name] = true
		out = append(out, wantNode{ID: string(e.Name), Label: e.DisplayName, Kind: string(e.Kind), Deleted: !e.Deleted.IsZero()})
	}
	for _, r := range g.Relations {
		for _, ref := range []graph.EntityName{r.From, r.To, r.Via, r.Term} {
			if ref != "" && !seen[ref] {
				seen[ref] = true
				k, _ := graph.ParseEntityName(string(ref))
				out = append(out, wantNode{ID: string(ref), Label: string(ref), Kind: string(k), Bare: true})
			}
		}
	}
	slices.SortFunc(out, func(a, b wantNode) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func wantEdges(g graph.Subgraph) []wantEdge {
	sources := map[graph.SourceName]graph.Source{}
	for _, s := range g.Sources {
		sources[s.Name] = s
	}
	var out []wantEdge
	for _, r := range g.Relations {
		e := wantEdge{ID: string(r.Name), Source: string(r.From), Target: string(r.To), Type: string(r.Type),
			Label: strings.ToLower(strings.ReplaceAll(string(r.Type), "_", " ")), Symmetric: r.Type.Symmetric(),
			Deleted: !r.Deleted.IsZero(), Claims: []claimObj{}}
		for _, c := range r.Claims {
			title, url, outlet := c.Source.Title, c.Source.URL, c.Source.Outlet
			if title == "" {
				title, url = sources[c.Source.Name].Title, sources[c.Source.Name].URL
			}
			if outlet == "" {
				outlet = sources[c.Source.Name].Outlet
			}
			e.Claims = append(e.Claims, claimObj{Name: c.Name, Source: string(c.Source.Name), SourceTitle: title, SourceURL: url, Outlet: outlet,
				Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence, Status: string(c.Status), SaidBy: string(c.SaidBy),
				Retracted: !c.Retracted.IsZero()})
		}
		slices.SortFunc(e.Claims, func(a, b claimObj) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b wantEdge) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func TestFixtureCoversTheCases(t *testing.T) {
	g := fixture()
	var bare, symmetric, denied, recordOnly, retracted, viaTerm, deleted int
	for _, n := range wantNodes(g) {
		if n.Bare {
			bare++
		}
	}
	for _, r := range g.Relations {
		if r.Type.Symmetric() {
			symmetric++
		}
		if r.Via != "" && r.Term != "" {
			viaTerm++
		}
		if !r.Deleted.IsZero() {
			deleted++
		}
		for _, c := range r.Claims {
			switch {
			case c.Status == graph.StatusDenied:
				denied++
			case c.Excerpt == "" && c.Record != "":
				recordOnly++
			case !c.Retracted.IsZero():
				retracted++
			}
		}
	}
	got := []int{bare, symmetric, denied, recordOnly, retracted, viaTerm, deleted}
	if want := []int{2, 1, 1, 1, 1, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("fixture: bare, symmetric, denied, record-only, retracted, via+term, deleted = %v, want %v", got, want)
	}
}

// write runs one format's writer on g.
func write(t *testing.T, f Format, g graph.Subgraph) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, g); err != nil {
		t.Fatalf("Write(%s): %v", f, err)
	}
	return b.Bytes()
}

// writeFile writes g in format f to a temporary file and returns its path.
func writeFile(t *testing.T, f Format, g graph.Subgraph) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "export"+f.Extension())
	if err := os.WriteFile(path, write(t, f, g), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodeClaims reads a claims attribute, refusing fields the formats do not define.
func decodeClaims(t *testing.T, s string) []claimObj {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	var out []claimObj
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("claims %q: %v", s, err)
	}
	return out
}

// networkx: GraphML and GEXF as Python's networkx reads them.

var (
	pythonOnce sync.Once
	pythonPath string
)

// networkxPython finds an interpreter that can import networkx: python3 on PATH, else /usr/bin/python3.
func networkxPython(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		var candidates []string
		if p, err := exec.LookPath("python3"); err == nil {
			candidates = append(candidates, p)
		}
		for _, p := range append(candidates, "/usr/bin/python3") {
			if exec.Command(p, "-c", "import networkx").Run() == nil {
				pythonPath = p
				return
			}
		}
	})
	if pythonPath == "" {
		t.Fatalf("neither python3 on PATH nor /usr/bin/python3 can import networkx, which reads the GraphML and GEXF " +
			"exports back: install Debian's python3-networkx (apt-get install -y --no-install-recommends python3-networkx)")
	}
	return pythonPath
}

// networkxScript reads a GraphML or GEXF file with networkx and prints its nodes and edges as JSON.
//
// networkx reads no mixed graph: in a directed graph it rejects an edge with type="undirected" (GEXF),
// which is how that export writes symmetric relations. The script records each GEXF edge's own direction
// from the file, removes that one attribute and has networkx read the rest; a GraphML file it reads as
// written, each edge's direction from its symmetric attribute.
// networkx before 3.0 (Debian 12 has 2.8.8) also knows GEXF only up to 1.2draft; 1.3 reads the same for
// what the export uses, so the script registers 1.3 as networkx 3 does.
const networkxScript = `
import io, json, sys
import xml.etree.ElementTree as ET
import networkx as nx
from networkx.readwrite import gexf

fmt, path = sys.argv[1], sys.argv[2]
if "1.3" not in gexf.GEXF.versions:
    v = dict(gexf.GEXF.versions["1.2draft"])
    v.update(NS_GEXF="http://gexf.net/1.3", NS_VIZ="http://gexf.net/1.3/viz",
             SCHEMALOCATION="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd", VERSION="1.3")
    gexf.GEXF.versions["1.3"] = v

root = ET.parse(path).getroot()
directed = {}
for e in root.iter():
    if e.tag.rsplit("}", 1)[-1] != "edge":
        continue
    if fmt != "graphml":
        directed[e.get("id")] = e.attrib.pop("type", "directed") != "undirected"
data = ET.tostring(root, encoding="utf-8")
G = nx.parse_graphml(data) if fmt == "graphml" else nx.read_gexf(io.BytesIO(data))

edges = []
if G.is_multigraph():
    it = ((u, v, d.get("id", k), d) for u, v, k, d in G.edges(keys=True, data=True))
else:
    it = ((u, v, d.get("id"), d) for u, v, d in G.edges(data=True))
for u, v, eid, d in it:
    own = directed.get(eid) if fmt != "graphml" else not d.get("symmetric", False)
    edges.append({"id": eid, "source": u, "target": v, "directed": own, "attrs": d})
json.dump({"directed_graph": G.is_directed(), "graph": G.graph,
           "nodes": {n: d for n, d in G.nodes(data=True)}, "edges": edges},
          sys.stdout, ensure_ascii=False, default=str)
`

type nxEdge struct {
	ID       string         `json:"id"`
	Source   string         `json:"source"`
	Target   string         `json:"target"`
	Directed *bool          `json:"directed"`
	Attrs    map[string]any `json:"attrs"`
}

type nxGraph struct {
	DirectedGraph bool                      `json:"directed_graph"`
	Graph         map[string]any            `json:"graph"`
	Nodes         map[string]map[string]any `json:"nodes"`
	Edges         []nxEdge                  `json:"edges"`
}

func readWithNetworkx(t *testing.T, f Format, path string) nxGraph {
	t.Helper()
	cmd := exec.Command(networkxPython(t), "-c", networkxScript, string(f), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("networkx could not read the %s export: %v\n%s", f, err, stderr.String())
	}
	var g nxGraph
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatalf("networkx script output: %v\n%s", err, out)
	}
	return g
}

func TestNetworkxReadsExports(t *testing.T) {
	t.Parallel()
	g := fixture()
	for _, f := range []Format{GraphML, GEXF} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			nx := readWithNetworkx(t, f, writeFile(t, f, g))
			if !nx.DirectedGraph {
				t.Errorf("networkx read an undirected graph, want directed")
			}

			var gotNodes []wantNode
			for id, a := range nx.Nodes {
				n := wantNode{ID: id}
				n.Label, _ = a["label"].(string)
				n.Kind, _ = a["kind"].(string)
				n.Deleted, _ = a["deleted"].(bool)
				n.Bare, _ = a["bare"].(bool)
				gotNodes = append(gotNodes, n)
			}
			slices.SortFunc(gotNodes, func(a, b wantNode) int { return strings.Compare(a.ID, b.ID) })
			if d := cmp.Diff(wantNodes(g), gotNodes); d != "" {
				t.Errorf("nodes (-want +got):\n%s", d)
			}
			lr := nx.Nodes[string(lutfur)]
			for k, want := range map[string]any{
				"aliases":     "Lutfur; লুৎফুর রহমান",
				"identifiers": "parlparse:uk.org.publicwhip/person/99999 wikidata:Q6703766 wikidata:Q116000001",
				"description": `Mayor of Tower Hamlets; "Aspire" <founder> & leader`,
				"birth_date":  "1965-07",
				"gender":      "male",
				"other_names": `[{"name":"লুৎফুর রহমান","lang":"bn","note":"transliteration"}]`,
			} {
				if lr[k] != want {
					t.Errorf("node %s: %s = %#v, want %#v", lutfur, k, lr[k], want)
				}
			}
			if got := nx.Nodes[string(brickLane)]["valid_to"]; got != "2022" {
				t.Errorf("node %s: valid_to = %#v, want the fuzzy date as given, \"2022\"", brickLane, got)
			}

			var gotEdges []wantEdge
			for _, e := range nx.Edges {
				w := wantEdge{ID: e.ID, Source: e.Source, Target: e.Target}
				w.Type, _ = e.Attrs["type"].(string)
				w.Label, _ = e.Attrs["label"].(string)
				w.Symmetric, _ = e.Attrs["symmetric"].(bool)
				w.Deleted, _ = e.Attrs["deleted"].(bool)
				claims, _ := e.Attrs["claims"].(string)
				w.Claims = decodeClaims(t, claims)
				if n, _ := e.Attrs["claim_count"].(float64); int(n) != len(w.Claims) {
					t.Errorf("edge %s: claim_count = %v, want %d", e.ID, e.Attrs["claim_count"], len(w.Claims))
				}
				if e.Directed == nil || *e.Directed == w.Symmetric {
					t.Errorf("edge %s (symmetric %v): directed in the file = %v, want %v", e.ID, w.Symmetric, e.Directed, !w.Symmetric)
				}
				gotEdges = append(gotEdges, w)
			}
			slices.SortFunc(gotEdges, func(a, b wantEdge) int { return strings.Compare(a.ID, b.ID) })
			if d := cmp.Diff(wantEdges(g), gotEdges); d != "" {
				t.Errorf("edges (-want +got):\n%s", d)
			}
		})
	}
}

// GraphML and GEXF decoded with encoding/xml.

type xmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

type graphmlDoc struct {
	XMLName xml.Name `xml:"http://graphml.graphdrawing.org/xmlns graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
	} `xml:"key"`
	Graph struct {
		EdgeDefault string    `xml:"edgedefault,attr"`
		Data        []xmlData `xml:"data"`
		Nodes       []struct {
			ID   string    `xml:"id,attr"`
			Data []xmlData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			ID       string    `xml:"id,attr"`
			Source   string    `xml:"source,attr"`
			Target   string    `xml:"target,attr"`
			Directed string    `xml:"directed,attr"`
			Data     []xmlData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

func TestGraphMLDecodes(t *testing.T) {
	t.Parallel()
	g := fixture()
	out := write(t, GraphML, g)
	var doc graphmlDoc
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("GraphML does not decode: %v", err)
	}
	nodes, edges := wantNodes(g), wantEdges(g)
	if len(doc.Graph.Nodes) != len(nodes) || len(doc.Graph.Edges) != len(edges) {
		t.Fatalf("GraphML has %d nodes and %d edges, want %d and %d", len(doc.Graph.Nodes), len(doc.Graph.Edges), len(nodes), len(edges))
	}
	if doc.Graph.EdgeDefault != "directed" {
		t.Errorf("edgedefault = %q, want directed", doc.Graph.EdgeDefault)
	}

	keys := map[string]string{} // id -> for
	names := map[string]bool{}  // for/attr.name
	for _, k := range doc.Keys {
		if _, dup := keys[k.ID]; dup || names[k.For+"/"+k.Name] {
			t.Errorf("key %s (%s %s) declared twice", k.ID, k.For, k.Name)
		}
		keys[k.ID], names[k.For+"/"+k.Name] = k.For, true
		if !slices.Contains([]string{"string", "boolean", "int", "double"}, k.Type) || k.Name == "" {
			t.Errorf("key %s: attr.name %q, attr.type %q", k.ID, k.Name, k.Type)
		}
	}
	for _, want := range []string{"node/label", "node/kind", "node/aliases", "node/description", "node/identifiers",
		"node/valid_from", "node/valid_to", "node/birth_date", "node/death_date", "node/gender", "node/deleted",
		"edge/type", "edge/role", "edge/via", "edge/term", "edge/valid_from", "edge/valid_to", "edge/date", "edge/symmetric",
		"edge/claims", "edge/claim_count", "edge/sources", "edge/status", "edge/deleted", "graph/sources"} {
		if !names[want] {
			t.Errorf("no key declared for %s", want)
		}
	}
	checkData := func(of, id string, data []xmlData) {
		for _, d := range data {
			if keys[d.Key] != of {
				t.Errorf("%s %s: data key %q is not a declared %s key", of, id, d.Key, of)
			}
		}
	}
	checkData("graph", "", doc.Graph.Data)
	for i, n := range doc.Graph.Nodes {
		if n.ID != nodes[i].ID {
			t.Errorf("node %d is %s, want %s (sorted by name)", i, n.ID, nodes[i].ID)
		}
		checkData("node", n.ID, n.Data)
	}
	for i, e := range doc.Graph.Edges {
		w := edges[i]
		if e.ID != w.ID || e.Source != w.Source || e.Target != w.Target {
			t.Errorf("edge %d is %s %s→%s, want %s %s→%s", i, e.ID, e.Source, e.Target, w.ID, w.Source, w.Target)
		}
		if e.Directed != "" { // a mixed graph, which networkx refuses: symmetry is the symmetric attribute
			t.Errorf("edge %s: directed=%q, want none", e.ID, e.Directed)
		}
		checkData("edge", e.ID, e.Data)
	}

	// Every key is declared before the graph.
	dec := xml.NewDecoder(bytes.NewReader(out))
	inGraph := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "graph":
				inGraph = true
			case "key":
				if inGraph {
					t.Errorf("a <key> comes after <graph>")
				}
			}
		}
	}

	var sources []SourceJSON
	for _, d := range doc.Graph.Data {
		if d.Key == "g_sources" {
			if err := json.Unmarshal([]byte(d.Value), &sources); err != nil {
				t.Fatalf("graph sources: %v", err)
			}
		}
	}
	if d := cmp.Diff(wantSources(g), sources); d != "" {
		t.Errorf("graph sources (-want +got):\n%s", d)
	}
}

type gexfAttvalue struct {
	For   string `xml:"for,attr"`
	Value string `xml:"value,attr"`
}

type gexfDoc struct {
	XMLName xml.Name `xml:"http://gexf.net/1.3 gexf"`
	Version string   `xml:"version,attr"`
	Graph   struct {
		Mode            string `xml:"mode,attr"`
		DefaultEdgeType string `xml:"defaultedgetype,attr"`
		TimeFormat      string `xml:"timeformat,attr"`
		Attributes      []struct {
			Class     string `xml:"class,attr"`
			Attribute []struct {
				ID    string `xml:"id,attr"`
				Title string `xml:"title,attr"`
				Type  string `xml:"type,attr"`
			} `xml:"attribute"`
		} `xml:"attributes"`
		Nodes []struct {
			ID        string         `xml:"id,attr"`
			Label     string         `xml:"label,attr"`
			Start     string         `xml:"start,attr"`
			End       string         `xml:"end,attr"`
			AttValues []gexfAttvalue `xml:"attvalues>attvalue"`
		} `xml:"nodes>node"`
		Edges []struct {
			ID        string         `xml:"id,attr"`
			Source    string         `xml:"source,attr"`
			Target    string         `xml:"target,attr"`
			Type      string         `xml:"type,attr"`
			Kind      string         `xml:"kind,attr"`
			Label     string         `xml:"label,attr"`
			Start     string         `xml:"start,attr"`
			End       string         `xml:"end,attr"`
			AttValues []gexfAttvalue `xml:"attvalues>attvalue"`
		} `xml:"edges>edge"`
	} `xml:"graph"`
}

func decodeGEXF(t *testing.T, out []byte) gexfDoc {
	t.Helper()
	var doc gexfDoc
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("GEXF does not decode: %v", err)
	}
	return doc
}

func TestGEXFDecodes(t *testing.T) {
	t.Parallel()
	g := fixture()
	doc := decodeGEXF(t, write(t, GEXF, g))
	nodes, edges := wantNodes(g), wantEdges(g)
	if len(doc.Graph.Nodes) != len(nodes) || len(doc.Graph.Edges) != len(edges) {
		t.Fatalf("GEXF has %d nodes and %d edges, want %d and %d", len(doc.Graph.Nodes), len(doc.Graph.Edges), len(nodes), len(edges))
	}
	if doc.Version != "1.3" || doc.Graph.DefaultEdgeType != "directed" || doc.Graph.Mode != "dynamic" || doc.Graph.TimeFormat != "date" {
		t.Errorf("gexf version %q, graph defaultedgetype %q mode %q timeformat %q; want 1.3, directed, dynamic, date",
			doc.Version, doc.Graph.DefaultEdgeType, doc.Graph.Mode, doc.Graph.TimeFormat)
	}
	declared := map[string]string{} // id -> class
	titles := map[string]bool{}
	for _, as := range doc.Graph.Attributes {
		for _, a := range as.Attribute {
			declared[a.ID] = as.Class
			titles[as.Class+"/"+a.Title] = true
			if !slices.Contains([]string{"string", "boolean", "integer", "double"}, a.Type) {
				t.Errorf("attribute %s: type %q", a.ID, a.Type)
			}
		}
	}
	for _, want := range []string{"node/kind", "node/aliases", "node/identifiers", "node/valid_from", "node/birth_date",
		"node/deleted", "edge/type", "edge/via", "edge/term", "edge/claims", "edge/status", "edge/date", "edge/deleted"} {
		if !titles[want] {
			t.Errorf("no attribute declared for %s", want)
		}
	}
	for i, n := range doc.Graph.Nodes {
		if n.ID != nodes[i].ID || n.Label != nodes[i].Label {
			t.Errorf("node %d is %s %q, want %s %q", i, n.ID, n.Label, nodes[i].ID, nodes[i].Label)
		}
		for _, v := range n.AttValues {
			if declared[v.For] != "node" {
				t.Errorf("node %s: attvalue for %q is not a declared node attribute", n.ID, v.For)
			}
		}
	}
	for i, e := range doc.Graph.Edges {
		w := edges[i]
		if e.ID != w.ID || e.Source != w.Source || e.Target != w.Target || e.Label != w.Label || e.Kind != w.Type {
			t.Errorf("edge %d is %s %s→%s %q kind %q, want %s %s→%s %q kind %q", i, e.ID, e.Source, e.Target, e.Label, e.Kind,
				w.ID, w.Source, w.Target, w.Label, w.Type)
		}
		if want := map[bool]string{true: "undirected", false: ""}[w.Symmetric]; e.Type != want {
			t.Errorf("edge %s: type=%q, want %q", e.ID, e.Type, want)
		}
		for _, v := range e.AttValues {
			if declared[v.For] != "edge" {
				t.Errorf("edge %s: attvalue for %q is not a declared edge attribute", e.ID, v.For)
			}
		}
	}
}

func TestGEXFSpans(t *testing.T) {
	t.Parallel()
	g := fixture()
	doc := decodeGEXF(t, write(t, GEXF, g))
	spans := map[string][2]string{}
	raw := map[string]map[string]string{}
	for _, n := range doc.Graph.Nodes {
		spans[n.ID] = [2]string{n.Start, n.End}
		raw[n.ID] = map[string]string{}
		for _, v := range n.AttValues {
			raw[n.ID][v.For] = v.Value
		}
	}
	for _, e := range doc.Graph.Edges {
		spans[e.ID] = [2]string{e.Start, e.End}
		raw[e.ID] = map[string]string{}
		for _, v := range e.AttValues {
			raw[e.ID][v.For] = v.Value
		}
	}
	rel := func(from graph.EntityName, t graph.RelationType, to graph.EntityName, key string) string {
		return string(graph.RelationNameFor(from, t, to, key))
	}
	tests := []struct {
		name, id   string
		start, end string
		rawKey     string // a raw fuzzy date attribute that must be kept as given
		raw        string
	}{
		{"year-to-day state widens the year", string(thFirst), "2014-01-01", "2015-04-29", "n_valid_from", "2014"},
		{"day-to-year state ends on the year's last day", string(brickLane), "2014-05-22", "2022-12-31", "n_valid_to", "2022"},
		{"month start, open end", string(aspire), "2018-04-01", "", "n_valid_from", "2018-04"},
		{"a person lives from birth", string(rushanara), "1975-03-14", "", "", ""},
		{"bare node", string(biggs), "", "", "", ""},
		{"event in a month", rel(lutfur, graph.Founded, aspire, ""), "2018-04-01", "2018-04-30", "e_date", "2018-04"},
		{"event in a year", rel(rushanara, graph.Criticised, biggs, ""), "2015-01-01", "2015-12-31", "e_date", "2015"},
		{"state with open end", rel(lutfur, graph.HoldsOffice, mayor, "2022"), "2022-05-01", "", "e_valid_from", "2022-05"},
		{"state of years", rel(lutfur, graph.MemberOf, thFirst, ""), "2014-01-01", "2015-12-31", "e_valid_to", "2015"},
		{"undated relation", rel(rushanara, graph.MemberOf, labour, ""), "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := spans[tt.id]
			if !ok {
				t.Fatalf("no node or edge %s", tt.id)
			}
			if got != [2]string{tt.start, tt.end} {
				t.Errorf("%s: start, end = %q, want %q", tt.id, got, [2]string{tt.start, tt.end})
			}
			if tt.rawKey != "" && raw[tt.id][tt.rawKey] != tt.raw {
				t.Errorf("%s: %s = %q, want %q", tt.id, tt.rawKey, raw[tt.id][tt.rawKey], tt.raw)
			}
		})
	}
}

func TestGEXFStaticWithoutDates(t *testing.T) {
	t.Parallel()
	g := graph.Subgraph{
		Entities: []graph.Entity{{Name: lutfur, Kind: graph.KindActor, DisplayName: "Lutfur Rahman",
			Attributes: graph.Attributes{Gender: "male"}}},
		Relations: []graph.Relation{relation(lutfur, graph.Founded, aspire, "")},
	}
	doc := decodeGEXF(t, write(t, GEXF, g))
	if doc.Graph.Mode != "static" || doc.Graph.TimeFormat != "" {
		t.Errorf("undated graph: mode %q timeformat %q, want static and none", doc.Graph.Mode, doc.Graph.TimeFormat)
	}
	if len(doc.Graph.Nodes) != 2 || len(doc.Graph.Edges) != 1 {
		t.Errorf("got %d nodes and %d edges, want 2 and 1", len(doc.Graph.Nodes), len(doc.Graph.Edges))
	}
	nx := readWithNetworkx(t, GEXF, writeFile(t, GEXF, g))
	if len(nx.Nodes) != 2 || len(nx.Edges) != 1 || nx.Graph["mode"] != "static" {
		t.Errorf("networkx read %d nodes, %d edges, mode %v; want 2, 1, static", len(nx.Nodes), len(nx.Edges), nx.Graph["mode"])
	}
}

// Cytoscape JSON.

func wantSources(g graph.Subgraph) []SourceJSON {
	var out []SourceJSON
	for _, s := range append(slices.Clone(g.Sources), srcELA) { // srcELA: cited only by a claim
		out = append(out, SourceJSON{Name: string(s.Name), Title: s.Title, Kind: string(s.Kind), Outlet: s.Outlet,
			Author: s.Author, Published: s.Published.String(), URL: s.URL, Retrieved: s.Retrieved.String(), Licence: s.Licence})
	}
	slices.SortFunc(out, func(a, b SourceJSON) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func TestCytoscape(t *testing.T) {
	t.Parallel()
	g := fixture()
	out := write(t, Cytoscape, g)
	var doc struct {
		Data struct {
			Sources []SourceJSON `json:"sources"`
		} `json:"data"`
		Elements struct {
			Nodes []struct {
				Data wantNode `json:"data"`
			} `json:"nodes"`
			Edges []struct {
				Data struct {
					wantEdge
					Directed   bool     `json:"directed"`
					ClaimCount int      `json:"claim_count"`
					Sources    []string `json:"sources"`
					Status     string   `json:"status"`
					Role       string   `json:"role"`
					Via        string   `json:"via"`
					Term       string   `json:"term"`
				} `json:"data"`
			} `json:"edges"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("Cytoscape JSON does not decode: %v", err)
	}
	var nodes []wantNode
	for _, n := range doc.Elements.Nodes {
		nodes = append(nodes, n.Data)
	}
	if d := cmp.Diff(wantNodes(g), nodes); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	var edges []wantEdge
	for _, e := range doc.Elements.Edges {
		edges = append(edges, e.Data.wantEdge)
		if e.Data.Directed == e.Data.Symmetric || e.Data.ClaimCount != len(e.Data.Claims) {
			t.Errorf("edge %s: directed %v, symmetric %v, claim_count %d with %d claims", e.Data.ID, e.Data.Directed,
				e.Data.Symmetric, e.Data.ClaimCount, len(e.Data.Claims))
		}
	}
	if d := cmp.Diff(wantEdges(g), edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantSources(g), doc.Data.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}

	byID := map[string]int{}
	for i, e := range doc.Elements.Edges {
		byID[e.Data.ID] = i
	}
	candidate := doc.Elements.Edges[byID[string(graph.RelationNameFor(lutfur, graph.CandidateFor, mayor, "2022"))]].Data
	if candidate.Via != string(aspire) || candidate.Term != string(council) || candidate.Role != "Aspire candidate" {
		t.Errorf("candidacy: via %q, term %q, role %q", candidate.Via, candidate.Term, candidate.Role)
	}
	member := doc.Elements.Edges[byID[string(graph.RelationNameFor(rushanara, graph.MemberOf, labour, ""))]].Data
	if want := []string{string(srcMail.Name), string(srcSurma.Name)}; !slices.Equal(member.Sources, want) {
		t.Errorf("membership: sources %q, want %q", member.Sources, want)
	}
}

func TestBestStatus(t *testing.T) {
	t.Parallel()
	c := func(st graph.ClaimStatus, retracted bool) graph.Claim {
		cl := graph.Claim{Status: st, Confidence: 0.5}
		if retracted {
			cl.Retracted = tomb
		}
		return cl
	}
	tests := []struct {
		name   string
		claims []graph.Claim
		want   graph.ClaimStatus
	}{
		{"no claims", nil, ""},
		{"confirmed beats reported", []graph.Claim{c(graph.StatusReported, false), c(graph.StatusConfirmed, false)}, graph.StatusConfirmed},
		{"support beats a denial", []graph.Claim{c(graph.StatusDenied, false), c(graph.StatusAlleged, false)}, graph.StatusAlleged},
		{"only denied", []graph.Claim{c(graph.StatusDenied, false)}, graph.StatusDenied},
		{"retracted does not count", []graph.Claim{c(graph.StatusConfirmed, true), c(graph.StatusAlleged, false)}, graph.StatusAlleged},
		{"all retracted", []graph.Claim{c(graph.StatusConfirmed, true)}, ""},
	}
	for _, tt := range tests {
		if got := bestStatus(graph.Relation{Claims: tt.claims}); got != tt.want {
			t.Errorf("%s: bestStatus = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// N-Quads, read back with a strict parser of the W3C N-Quads grammar.

type rdfTerm struct {
	Kind     byte   // 'I' IRI, 'B' blank node, 'L' literal
	Value    string // unescaped
	Datatype string // a typed literal's datatype IRI
	Lang     string
}

type rdfQuad struct{ S, P, O, G rdfTerm }

func iriTerm(s string) rdfTerm { return rdfTerm{Kind: 'I', Value: s} }

func (q rdfQuad) String() string {
	return fmt.Sprintf("%v %v %v %v", q.S, q.P, q.O, q.G)
}

// nqParser reads one N-Quads statement:
//
//	statement  ::= subject predicate object graphLabel? '.'
//	subject    ::= IRIREF | BLANK_NODE_LABEL
//	predicate  ::= IRIREF
//	object     ::= IRIREF | BLANK_NODE_LABEL | literal
//	graphLabel ::= IRIREF | BLANK_NODE_LABEL
//	literal    ::= STRING_LITERAL_QUOTE ('^^' IRIREF | LANGTAG)?
type nqParser struct {
	s   string
	pos int
}

func (p *nqParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *nqParser) ws() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *nqParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

// uchar reads the hex digits of \uXXXX or \UXXXXXXXX after the backslash and letter.
func (p *nqParser) uchar(n int) (rune, error) {
	if p.pos+n > len(p.s) {
		return 0, p.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+n], 16, 32)
	if err != nil || v > 0x10FFFF || v >= 0xD800 && v <= 0xDFFF {
		return 0, p.errorf("bad \\u escape %q", p.s[p.pos:p.pos+n])
	}
	p.pos += n
	return rune(v), nil
}

// iriref reads IRIREF ::= '<' ([^#x00-#x20<>"{}|^`\] | UCHAR)* '>', and requires an absolute IRI.
func (p *nqParser) iriref() (string, error) {
	if p.peek() != '<' {
		return "", p.errorf("want '<'")
	}
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.errorf("unterminated IRI")
		}
		c := p.s[p.pos]
		switch {
		case c == '>':
			p.pos++
			iri := b.String()
			if i := strings.IndexByte(iri, ':'); i < 1 || !isScheme(iri[:i]) {
				return "", p.errorf("IRI %q is not absolute", iri)
			}
			return iri, nil
		case c == '\\':
			p.pos++
			var n int
			switch p.peek() {
			case 'u':
				n = 4
			case 'U':
				n = 8
			default:
				return "", p.errorf("bad escape in IRI")
			}
			p.pos++
			r, err := p.uchar(n)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c <= 0x20 || strings.IndexByte("<\"{}|^`", c) >= 0:
			return "", p.errorf("character %q not allowed in an IRI", c)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func isScheme(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// pnCharsBase is PN_CHARS_BASE.
func pnCharsBase(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= 0xC0 && r <= 0xD6 || r >= 0xD8 && r <= 0xF6 ||
		r >= 0xF8 && r <= 0x2FF || r >= 0x370 && r <= 0x37D || r >= 0x37F && r <= 0x1FFF || r >= 0x200C && r <= 0x200D ||
		r >= 0x2070 && r <= 0x218F || r >= 0x2C00 && r <= 0x2FEF || r >= 0x3001 && r <= 0xD7FF ||
		r >= 0xF900 && r <= 0xFDCF || r >= 0xFDF0 && r <= 0xFFFD || r >= 0x10000 && r <= 0xEFFFF
}

// pnChars is PN_CHARS: PN_CHARS_U | '-' | [0-9] | #xB7 | [#x300-#x36F] | [#x203F-#x2040].
func pnChars(r rune) bool {
	return pnCharsBase(r) || r == '_' || r == ':' || r == '-' || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// blank reads BLANK_NODE_LABEL ::= '_:' (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?
func (p *nqParser) blank() (string, error) {
	if !strings.HasPrefix(p.s[p.pos:], "_:") {
		return "", p.errorf("want '_:'")
	}
	p.pos += 2
	start := p.pos
	runes := []rune{}
	for p.pos < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.pos:])
		if !(pnChars(r) || r == '.') {
			break
		}
		runes = append(runes, r)
		p.pos += size
	}
	for len(runes) > 0 && runes[len(runes)-1] == '.' { // a label does not end with '.'
		runes = runes[:len(runes)-1]
		p.pos--
	}
	if len(runes) == 0 || !(pnCharsBase(runes[0]) || runes[0] == '_' || runes[0] == ':' || runes[0] >= '0' && runes[0] <= '9') {
		return "", p.errorf("bad blank node label %q", p.s[start:p.pos])
	}
	return string(runes), nil
}

// literal reads STRING_LITERAL_QUOTE ::= '"' ([^#x22#x5C#xA#xD] | ECHAR | UCHAR)* '"' and its datatype or
// LANGTAG ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*.
func (p *nqParser) literal() (rdfTerm, error) {
	p.pos++ // '"'
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return rdfTerm{}, p.errorf("unterminated literal")
		}
		c := p.s[p.pos]
		if c == '"' {
			p.pos++
			break
		}
		switch c {
		case '\n', '\r':
			return rdfTerm{}, p.errorf("raw line break in a literal")
		case '\\':
			p.pos++
			e := p.peek()
			p.pos++
			switch e {
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case '"', '\'', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				r, err := p.uchar(n)
				if err != nil {
					return rdfTerm{}, err
				}
				b.WriteRune(r)
			default:
				return rdfTerm{}, p.errorf("bad escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	t := rdfTerm{Kind: 'L', Value: b.String()}
	switch {
	case strings.HasPrefix(p.s[p.pos:], "^^"):
		p.pos += 2
		dt, err := p.iriref()
		if err != nil {
			return rdfTerm{}, err
		}
		t.Datatype = dt
	case p.peek() == '@':
		p.pos++
		start := p.pos
		for p.pos < len(p.s) && (p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z' || p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z' ||
			p.s[p.pos] == '-' || p.s[p.pos] >= '0' && p.s[p.pos] <= '9') {
			p.pos++
		}
		t.Lang = p.s[start:p.pos]
		if !langTag.MatchString(t.Lang) {
			return rdfTerm{}, p.errorf("bad language tag %q", t.Lang)
		}
	}
	return t, nil
}

func (p *nqParser) term(allowLiteral bool) (rdfTerm, error) {
	switch c := p.peek(); {
	case c == '<':
		v, err := p.iriref()
		return rdfTerm{Kind: 'I', Value: v}, err
	case c == '_':
		v, err := p.blank()
		return rdfTerm{Kind: 'B', Value: v}, err
	case c == '"' && allowLiteral:
		return p.literal()
	}
	return rdfTerm{}, p.errorf("unexpected %q", p.peek())
}

func parseNQuad(line string) (rdfQuad, error) {
	if !utf8.ValidString(line) {
		return rdfQuad{}, fmt.Errorf("not UTF-8")
	}
	p := &nqParser{s: line}
	var q rdfQuad
	var err error
	p.ws()
	if q.S, err = p.term(false); err != nil {
		return q, fmt.Errorf("subject: %w", err)
	}
	p.ws()
	if p.peek() != '<' {
		return q, p.errorf("predicate must be an IRI")
	}
	if q.P, err = p.term(false); err != nil {
		return q, fmt.Errorf("predicate: %w", err)
	}
	p.ws()
	if q.O, err = p.term(true); err != nil {
		return q, fmt.Errorf("object: %w", err)
	}
	p.ws()
	if p.peek() != '.' {
		if q.G, err = p.term(false); err != nil {
			return q, fmt.Errorf("graph label: %w", err)
		}
		p.ws()
	}
	if p.peek() != '.' {
		return q, p.errorf("want '.'")
	}
	p.pos++
	p.ws()
	if p.pos != len(p.s) {
		return q, p.errorf("trailing %q", p.s[p.pos:])
	}
	if !strings.HasSuffix(line, " .") {
		return q, fmt.Errorf("statement does not end with \" .\"")
	}
	return q, nil
}

func TestNQuadsParser(t *testing.T) {
	t.Parallel()
	good := []struct {
		line string
		want rdfQuad
	}{
		{`<http://a/b> <http://p/q> "x\n\"\\\u00E9\U0001F600" .`, rdfQuad{S: iriTerm("http://a/b"), P: iriTerm("http://p/q"),
			O: rdfTerm{Kind: 'L', Value: "x\n\"\\é😀"}}},
		{`_:b1 <http://p/q> "1"^^<http://www.w3.org/2001/XMLSchema#decimal> <http://g/> .`, rdfQuad{S: rdfTerm{Kind: 'B', Value: "b1"},
			P: iriTerm("http://p/q"), O: rdfTerm{Kind: 'L', Value: "1", Datatype: xsdNS + "decimal"}, G: iriTerm("http://g/")}},
		{`<http://a/b> <http://p/q> "Y Blaid Lafur"@cy-GB .`, rdfQuad{S: iriTerm("http://a/b"), P: iriTerm("http://p/q"),
			O: rdfTerm{Kind: 'L', Value: "Y Blaid Lafur", Lang: "cy-GB"}}},
	}
	for _, tt := range good {
		got, err := parseNQuad(tt.line)
		if err != nil {
			t.Errorf("parseNQuad(%q): %v", tt.line, err)
		} else if got != tt.want {
			t.Errorf("parseNQuad(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
	for _, line := range []string{
		`<http://a/b c> <http://p/q> "x" .`,   // space in an IRI
		`<http://a/b> <http://p/q> "x"`,       // no final '.'
		`<http://a/b> <http://p/q> "x" . x`,   // trailing text
		`<http://a/b> <http://p/q> "a"b" .`,   // unescaped quote
		`<http://a/b> "p" "x" .`,              // literal predicate
		`"s" <http://p/q> "x" .`,              // literal subject
		`<http://a/b> <http://p/q> "x\q" .`,   // bad escape
		`<http://a/b> <http://p/q> "x"@1a .`,  // bad language tag
		`<a/b> <http://p/q> "x" .`,            // relative IRI
		`<http://a/b> <http://p/q> "x" "g" .`, // literal graph label
		`<http://a/{b}> <http://p/q> "x" .`,   // brace in an IRI
		`_:.b <http://p/q> "x" .`,             // bad blank node label
	} {
		if q, err := parseNQuad(line); err == nil {
			t.Errorf("parseNQuad(%q) = %v, want an error", line, q)
		}
	}
}

func TestNQuads(t *testing.T) {
	t.Parallel()
	g := fixture()
	out := write(t, NQuads, g)
	if !bytes.HasSuffix(out, []byte("\n")) {
		t.Fatalf("output does not end with a newline")
	}
	var quads []rdfQuad
	has := map[rdfQuad]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		q, err := parseNQuad(line)
		if err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		if has[q] {
			t.Errorf("line %d repeats %v", i+1, q)
		}
		quads = append(quads, q)
		has[q] = true
	}
	id := func(name string) rdfTerm { return iriTerm(BaseIRI + name) }
	pgT := func(local string) rdfTerm { return iriTerm(VocabIRI + local) }
	lit := func(s string) rdfTerm { return rdfTerm{Kind: 'L', Value: s} }
	typedT := func(s, dt string) rdfTerm { return rdfTerm{Kind: 'L', Value: s, Datatype: xsdNS + dt} }
	rdfType := iriTerm(rdfNS + "type")
	tru := typedT("true", "boolean")
	want := func(what string, q rdfQuad) {
		t.Helper()
		if !has[q] {
			t.Errorf("%s: no statement %v", what, q)
		}
	}
	objects := func(s, p rdfTerm) []rdfTerm {
		var out []rdfTerm
		for _, q := range quads {
			if q.S == s && q.P == p {
				out = append(out, q.O)
			}
		}
		return out
	}

	for _, e := range g.Entities {
		s := id(string(e.Name))
		want("label", rdfQuad{S: s, P: iriTerm(rdfsNS + "label"), O: lit(e.DisplayName)})
		class := map[graph.Kind]string{graph.KindActor: "Actor", graph.KindParty: "Party", graph.KindSeat: "Seat", graph.KindOrganisation: "Organisation"}[e.Kind]
		want("kind", rdfQuad{S: s, P: rdfType, O: pgT(class)})
		if !e.Deleted.IsZero() {
			want("deleted", rdfQuad{S: s, P: pgT("deleted"), O: tru})
		}
	}
	for _, name := range []graph.EntityName{biggs, council} {
		if o := objects(id(string(name)), rdfType); len(o) != 0 {
			t.Errorf("bare %s has types %v", name, o)
		}
	}
	want("schema.org type", rdfQuad{S: id(string(lutfur)), P: rdfType, O: iriTerm(schemaNS + "Person")})
	want("schema.org type", rdfQuad{S: id(string(labour)), P: rdfType, O: iriTerm(schemaNS + "Organization")})
	altLabel := iriTerm(skosNS + "altLabel")
	if d := cmp.Diff([]rdfTerm{lit("Lutfur"), {Kind: 'L', Value: "লুৎফুর রহমান", Lang: "bn"}}, objects(id(string(lutfur)), altLabel)); d != "" {
		t.Errorf("aliases of %s (-want +got):\n%s", lutfur, d)
	}
	want("Welsh alias", rdfQuad{S: id(string(labour)), P: altLabel, O: rdfTerm{Kind: 'L', Value: "Y Blaid Lafur", Lang: "cy"}})
	sameAs := iriTerm(owlNS + "sameAs")
	if d := cmp.Diff([]rdfTerm{iriTerm(wikidata + "Q6703766"), iriTerm(wikidata + "Q116000001")}, objects(id(string(lutfur)), sameAs)); d != "" {
		t.Errorf("wikidata ids (-want +got):\n%s", d)
	}
	want("identifier", rdfQuad{S: id(string(lutfur)), P: pgT("identifier"), O: lit("parlparse:uk.org.publicwhip/person/99999")})
	want("description", rdfQuad{S: id(string(lutfur)), P: iriTerm(dctermsNS + "description"), O: lit(`Mayor of Tower Hamlets; "Aspire" <founder> & leader`)})
	want("gYearMonth", rdfQuad{S: id(string(lutfur)), P: iriTerm(schemaNS + "birthDate"), O: typedT("1965-07", "gYearMonth")})
	want("date", rdfQuad{S: id(string(rushanara)), P: iriTerm(schemaNS + "birthDate"), O: typedT("1975-03-14", "date")})
	want("gYear", rdfQuad{S: id(string(brickLane)), P: pgT("validTo"), O: typedT("2022", "gYear")})
	want("link with spaces and <>{}", rdfQuad{S: id(string(lutfur)), P: iriTerm(schemaNS + "url"),
		O: iriTerm("https://example.org/lutfur%20rahman?a=%3C1%3E&b=%7B2%7D")})
	want("email", rdfQuad{S: id(string(lutfur)), P: iriTerm(schemaNS + "email"), O: lit("mayor@example.org")})

	supported := func(r graph.Relation) (first graph.SourceName) {
		for _, c := range r.Claims {
			if c.Retracted.IsZero() && c.Status != graph.StatusDenied && (first == "" || c.Source.Name < first) {
				first = c.Source.Name
			}
		}
		return first
	}
	var wantDirect []rdfQuad
	for _, r := range g.Relations {
		s, pred := id(string(r.Name)), pgT(string(r.Type))
		want("relation", rdfQuad{S: s, P: rdfType, O: pgT("Relation")})
		want("relation from", rdfQuad{S: s, P: pgT("from"), O: id(string(r.From))})
		want("relation to", rdfQuad{S: s, P: pgT("to"), O: id(string(r.To))})
		want("relation type", rdfQuad{S: s, P: pgT("type"), O: pred})
		if r.Via != "" {
			want("via", rdfQuad{S: s, P: pgT("via"), O: id(string(r.Via))})
		}
		if r.Term != "" {
			want("term", rdfQuad{S: s, P: pgT("term"), O: id(string(r.Term))})
		}
		if !r.Deleted.IsZero() {
			want("deleted relation", rdfQuad{S: s, P: pgT("deleted"), O: tru})
		}
		// The direct statement, in the graph of the first supporting source.
		if src := supported(r); src != "" && r.Deleted.IsZero() {
			wantDirect = append(wantDirect, rdfQuad{S: id(string(r.From)), P: pred, O: id(string(r.To)), G: id(string(src))})
			if r.Type.Symmetric() {
				wantDirect = append(wantDirect, rdfQuad{S: id(string(r.To)), P: pred, O: id(string(r.From)), G: id(string(src))})
			}
		}

		for _, c := range r.Claims {
			cs := id(c.Name)
			want("claim of relation", rdfQuad{S: s, P: pgT("claim"), O: cs})
			want("claim", rdfQuad{S: cs, P: pgT("relation"), O: s})
			want("claim source", rdfQuad{S: cs, P: pgT("source"), O: id(string(c.Source.Name))})
			want("claim status", rdfQuad{S: cs, P: pgT("status"), O: lit(string(c.Status))})
			if d := cmp.Diff(nonEmpty(c.Excerpt), objects(cs, pgT("excerpt"))); d != "" {
				t.Errorf("%s: excerpt (-want +got):\n%s", c.Name, d)
			}
			if d := cmp.Diff(nonEmpty(c.Record), objects(cs, pgT("record"))); d != "" {
				t.Errorf("%s: record (-want +got):\n%s", c.Name, d)
			}
			conf := objects(cs, pgT("confidence"))
			if len(conf) != 1 || conf[0].Datatype != xsdNS+"decimal" {
				t.Errorf("%s: confidence %v, want one xsd:decimal", c.Name, conf)
			} else if v, err := strconv.ParseFloat(conf[0].Value, 64); err != nil || v != c.Confidence || strings.ContainsAny(conf[0].Value, "eE") {
				t.Errorf("%s: confidence %q, want %v as an xsd:decimal", c.Name, conf[0].Value, c.Confidence)
			}
			if !c.Retracted.IsZero() {
				want("retracted", rdfQuad{S: cs, P: pgT("retracted"), O: tru})
			}
			if c.SaidBy != "" {
				want("said by", rdfQuad{S: cs, P: pgT("saidBy"), O: id(string(c.SaidBy))})
			}
		}
	}
	// Those direct statements and no other: none for a deleted relation or one no claim supports.
	var direct []rdfQuad
	for _, q := range quads {
		for _, rt := range graph.RelationTypes {
			if q.P == pgT(string(rt)) {
				direct = append(direct, q)
			}
		}
	}
	byString := func(a, b rdfQuad) int { return strings.Compare(a.String(), b.String()) }
	slices.SortFunc(wantDirect, byString)
	slices.SortFunc(direct, byString)
	if d := cmp.Diff(wantDirect, direct); d != "" {
		t.Errorf("direct statements (-want +got):\n%s", d)
	}

	for _, s := range wantSources(g) {
		src := id(s.Name)
		want("source", rdfQuad{S: src, P: rdfType, O: pgT("Source")})
		want("source title", rdfQuad{S: src, P: iriTerm(dctermsNS + "title"), O: lit(s.Title)})
		want("source publisher", rdfQuad{S: src, P: iriTerm(dctermsNS + "publisher"), O: lit(s.Outlet)})
	}
	want("licence", rdfQuad{S: id(string(srcPopolo.Name)), P: iriTerm(dctermsNS + "license"), O: iriTerm(srcPopolo.Licence)})
	want("licence by name", rdfQuad{S: id(string(srcSurma.Name)), P: iriTerm(dctermsNS + "license"), O: lit(srcSurma.Licence)})
	want("retrieved", rdfQuad{S: id(string(srcPopolo.Name)), P: pgT("retrieved"), O: typedT("2024-01", "gYearMonth")})
	want("issued", rdfQuad{S: id(string(srcMail.Name)), P: iriTerm(dctermsNS + "issued"), O: typedT("2023-11-03", "date")})
}

func nonEmpty(s string) []rdfTerm {
	if s == "" {
		return nil
	}
	return []rdfTerm{{Kind: 'L', Value: s}}
}

func TestEscapeIRI(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://polgraph.org/id/actors/lutfur-rahman", "https://polgraph.org/id/actors/lutfur-rahman"},
		{"a b<c>d\"e{f}g|h^i`j\\k", "a%20b%3Cc%3Ed%22e%7Bf%7Dg%7Ch%5Ei%60j%5Ck"},
		{"tab\there\nnl", "tab%09here%0Anl"},
		{"ব্রিক", "ব্রিক"}, // IRIs hold non-ASCII as it is
		{"bad\xffbyte", "bad\uFFFDbyte"},
	}
	for _, tt := range tests {
		if got := escapeIRI(tt.in); got != tt.want {
			t.Errorf("escapeIRI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeLiteral(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`plain`, `plain`},
		{"q\"b\\n\nr\r", `q\"b\\n\nr\r`},
		{"tab\tbell\x07del\x7f", `tab\u0009bell\u0007del\u007F`},
		{"ব্রিক লেন ŵ", "ব্রিক লেন ŵ"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
	}
	for _, tt := range tests {
		got := escapeLiteral(tt.in)
		if got != tt.want {
			t.Errorf("escapeLiteral(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !strings.ContainsRune(tt.in, 0xFFFD) && !strings.Contains(tt.in, "\xff") {
			q, err := parseNQuad(`<http://a/> <http://p/> "` + got + `" .`)
			if err != nil || q.O.Value != tt.in {
				t.Errorf("escapeLiteral(%q) reads back as %q (%v)", tt.in, q.O.Value, err)
			}
		}
	}
}

// Every format.

func TestDeterministic(t *testing.T) {
	t.Parallel()
	g := fixture()
	shuffled := fixture()
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(shuffled.Entities), func(i, j int) {
		shuffled.Entities[i], shuffled.Entities[j] = shuffled.Entities[j], shuffled.Entities[i]
	})
	r.Shuffle(len(shuffled.Relations), func(i, j int) {
		shuffled.Relations[i], shuffled.Relations[j] = shuffled.Relations[j], shuffled.Relations[i]
	})
	r.Shuffle(len(shuffled.Sources), func(i, j int) { shuffled.Sources[i], shuffled.Sources[j] = shuffled.Sources[j], shuffled.Sources[i] })
	for _, rel := range shuffled.Relations {
		slices.Reverse(rel.Claims)
	}
	for _, f := range Formats {
		a, b := write(t, f, g), write(t, f, shuffled)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the same subgraph in another order is written differently", f)
		}
	}
}

func TestRepeatedNamesWrittenOnce(t *testing.T) {
	t.Parallel()
	g := fixture()
	repeated := fixture()
	e := repeated.Entities[0]
	e.DisplayName = "someone else"
	r := repeated.Relations[0]
	r.Role = "another role"
	s := repeated.Sources[0]
	s.Title = "another title"
	repeated.Entities = append(repeated.Entities, e)
	repeated.Relations = append(repeated.Relations, r)
	repeated.Sources = append(repeated.Sources, s)
	for _, f := range Formats {
		if !bytes.Equal(write(t, f, g), write(t, f, repeated)) {
			t.Errorf("%s: a repeated entity, relation or source is written again, or the first does not win", f)
		}
	}
}

func TestEveryFormatFlagsDeletedAndRetracted(t *testing.T) {
	t.Parallel()
	g := fixture()
	for _, f := range Formats {
		out := string(write(t, f, g))
		for _, s := range []string{string(ajmal), string(graph.RelationNameFor(lutfur, graph.MemberOf, thFirst, "")),
			graph.ClaimNameFor(graph.RelationNameFor(lutfur, graph.Founded, aspire, ""), srcSurma.Name, "")} {
			if !strings.Contains(out, s) {
				t.Errorf("%s: %s is not written", f, s)
			}
		}
		if !strings.Contains(out, "retracted") || !strings.Contains(out, "deleted") {
			t.Errorf("%s: no retracted or deleted flag", f)
		}
	}
}

func TestEmptySubgraph(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		out := write(t, f, graph.Subgraph{})
		switch f {
		case GraphML:
			var doc graphmlDoc
			if err := xml.Unmarshal(out, &doc); err != nil || len(doc.Graph.Nodes) != 0 {
				t.Errorf("%s: %v, %d nodes", f, err, len(doc.Graph.Nodes))
			}
		case GEXF:
			if doc := decodeGEXF(t, out); len(doc.Graph.Nodes) != 0 || doc.Graph.Mode != "static" {
				t.Errorf("%s: %d nodes, mode %q", f, len(doc.Graph.Nodes), doc.Graph.Mode)
			}
		case Cytoscape:
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			if !strings.Contains(string(out), `"nodes": []`) || !strings.Contains(string(out), `"edges": []`) {
				t.Errorf("%s: want empty nodes and edges arrays, not null:\n%s", f, out)
			}
		case NQuads:
			if len(out) != 0 {
				t.Errorf("%s: %q, want nothing", f, out)
			}
		}
	}
}

var errBroken = errors.New("disk full")

// brokenWriter takes n bytes, then fails.
type brokenWriter struct{ n int }

func (w *brokenWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	k := w.n
	w.n = 0
	return k, errBroken
}

func TestWriteFailure(t *testing.T) {
	t.Parallel()
	g := fixture()
	writers := map[Format]func(io.Writer, graph.Subgraph) error{
		GraphML: WriteGraphML, GEXF: WriteGEXF, Cytoscape: WriteCytoscape, NQuads: WriteNQuads,
	}
	prefixes := map[Format]string{GraphML: "export.WriteGraphML: ", GEXF: "export.WriteGEXF: ",
		Cytoscape: "export.WriteCytoscape: ", NQuads: "export.WriteNQuads: "}
	for _, f := range Formats {
		size := len(write(t, f, g))
		for _, n := range []int{0, 100, size / 2, size - 1} {
			err := writers[f](&brokenWriter{n: n}, g)
			if !errors.Is(err, errBroken) || !strings.HasPrefix(err.Error(), prefixes[f]) || strings.Count(err.Error(), "export.") != 1 {
				t.Errorf("%s failing after %d of %d bytes: error %v, want %q wrapping %q once", f, n, size, err, prefixes[f], errBroken)
			}
		}
		if err := writers[f](&brokenWriter{n: size}, g); err != nil {
			t.Errorf("%s with room for all %d bytes: %v", f, size, err)
		}
	}
	if err := Write(&bytes.Buffer{}, "dot", g); err == nil {
		t.Errorf("Write of an unknown format: no error")
	}
}

// Formats lists every format, in a fixed order.
var Formats = []Format{GraphML, GEXF, Cytoscape, NQuads}
