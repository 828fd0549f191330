// Exports of the current view: GraphML for Gephi and yEd, and Cytoscape JSON (.cyjs) for Cytoscape
// desktop and Cytoscape.js. Both hold the entities and relations shown, with their resource names as ids,
// and the positions they are drawn at; the "N more" handles are not part of the graph and are left out.
// Each relation carries its claims (source, excerpt or record, confidence, status, who said it) and the
// export lists the sources they cite, as the server's exports (polgraph export, ExportGraph) do.
import type cytoscape from "cytoscape";

/** A claim as the exports write it: the same fields as the server's GraphML and Cytoscape exports. */
export interface ClaimOut {
  name: string;
  source: string;
  source_title: string;
  source_outlet: string;
  source_url: string;
  excerpt: string;
  record: string;
  confidence: number;
  status: string;
  said_by: string;
  retracted: boolean;
}

/** A source as the exports list it. */
export interface SourceOut {
  name: string;
  title: string;
  kind: string;
  outlet: string;
  author: string;
  published: string;
  url: string;
  retrieved: string;
  licence: string;
}

/** The evidence of the relations shown: each relation's claims, and the sources cited. */
export interface Evidence {
  claims: Map<string, ClaimOut[]>;
  sources: SourceOut[];
}

const xmlEscape = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

// Invalid XML 1.0 characters cannot appear in a document at all, not even escaped.
// eslint-disable-next-line no-control-regex
const xmlText = (s: string) => xmlEscape(s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ""));

interface Key {
  id: string;
  for: "node" | "edge";
  type: "string" | "double" | "int" | "boolean";
  data: string;
}

const keys: Key[] = [
  { id: "label", for: "node", type: "string", data: "label" },
  { id: "kind", for: "node", type: "string", data: "kind" },
  { id: "description", for: "node", type: "string", data: "description" },
  { id: "relation_count", for: "node", type: "int", data: "relationCount" },
  { id: "x", for: "node", type: "double", data: "" },
  { id: "y", for: "node", type: "double", data: "" },
  { id: "type", for: "edge", type: "string", data: "type" },
  { id: "label", for: "edge", type: "string", data: "label" },
  { id: "role", for: "edge", type: "string", data: "role" },
  { id: "valid_from", for: "edge", type: "string", data: "validFrom" },
  { id: "valid_to", for: "edge", type: "string", data: "validTo" },
  { id: "date", for: "edge", type: "string", data: "date" },
  { id: "statuses", for: "edge", type: "string", data: "statuses" },
  { id: "confidence", for: "edge", type: "double", data: "confidence" },
  { id: "claim_count", for: "edge", type: "int", data: "claimCount" },
  { id: "disputed", for: "edge", type: "boolean", data: "disputed" },
  { id: "undated", for: "edge", type: "boolean", data: "undated" },
  { id: "verdict", for: "edge", type: "string", data: "verdict" },
  { id: "claims", for: "edge", type: "string", data: "" },
  { id: "sources", for: "edge", type: "string", data: "" },
];

const keyId = (k: Key) => `${k.for === "node" ? "n" : "e"}_${k.id}`;

/** The graph as GraphML: directed, with symmetric relations marked directed="false". */
export function toGraphML(nodes: cytoscape.NodeCollection, edges: cytoscape.EdgeCollection, source: string, evidence: Evidence): string {
  const out: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`,
    `    xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">`,
    `  <!-- polgraph view: ${xmlText(source).replaceAll("--", "- -")} -->`,
  ];
  for (const k of keys) {
    out.push(`  <key id="${keyId(k)}" for="${k.for}" attr.name="${k.id}" attr.type="${k.type}"/>`);
  }
  out.push(`  <key id="g_sources" for="graph" attr.name="sources" attr.type="string"/>`);
  out.push(`  <graph id="polgraph" edgedefault="directed">`);
  out.push(`    <data key="g_sources">${xmlText(JSON.stringify(evidence.sources))}</data>`);
  const dataLine = (k: Key, v: unknown) =>
    v === undefined || v === null || v === "" ? "" : `      <data key="${keyId(k)}">${xmlText(String(v))}</data>`;
  nodes.forEach((n) => {
    out.push(`    <node id="${xmlText(n.id())}">`);
    for (const k of keys.filter((k) => k.for === "node")) {
      const v = k.id === "x" ? n.position("x").toFixed(1) : k.id === "y" ? n.position("y").toFixed(1) : n.data(k.data);
      const line = dataLine(k, v);
      if (line) out.push(line);
    }
    out.push(`    </node>`);
  });
  edges.forEach((e) => {
    const directed = e.data("symmetric") ? ` directed="false"` : "";
    out.push(
      `    <edge id="${xmlText(e.id())}" source="${xmlText(e.source().id())}" target="${xmlText(e.target().id())}"${directed}>`,
    );
    const claims = evidence.claims.get(e.id()) ?? [];
    for (const k of keys.filter((k) => k.for === "edge")) {
      const v =
        k.id === "claims"
          ? JSON.stringify(claims)
          : k.id === "sources"
            ? [...new Set(claims.map((c) => c.source))].join(" ")
            : e.data(k.data);
      const line = dataLine(k, v);
      if (line) out.push(line);
    }
    out.push(`    </edge>`);
  });
  out.push(`  </graph>`, `</graphml>`, ``);
  return out.join("\n");
}

/** The graph in Cytoscape's JSON format (.cyjs), which Cytoscape desktop imports. */
export function toCytoscapeJSON(nodes: cytoscape.NodeCollection, edges: cytoscape.EdgeCollection, source: string, evidence: Evidence): string {
  const doc = {
    format_version: "1.0",
    generated_by: "polgraph explorer",
    target_cytoscapejs_version: "~3",
    data: { name: "polgraph view", source, sources: evidence.sources },
    elements: {
      nodes: nodes.map((n) => ({ data: { ...n.data() }, position: { ...n.position() } })),
      edges: edges.map((e) => ({ data: { ...e.data(), claims: evidence.claims.get(e.id()) ?? [] } })),
    },
  };
  return JSON.stringify(doc, null, 2) + "\n";
}
