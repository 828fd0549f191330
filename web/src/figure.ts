// The view as a figure to publish: an SVG (and a PNG drawn from it) of what is drawn, as it is drawn, with
// a title, the date it was made, the filters it was drawn with, a legend of what appears in it, and the
// sources its relations cite. Everything is written as text nodes, so names cannot inject markup.
import type cytoscape from "cytoscape";

export interface FigureText {
  title: string;
  /** "Drawn 2026-12-06 from polgraph". */
  made: string;
  /** The address of the view: the link reopens it. */
  link: string;
  /** The filters in words: "as of 2010 · member of, leads · confidence ≥ 0.50". */
  filters: string;
  /** One line per source cited: "Daily Mail — 'Title' (2024-04-01)". */
  sources: string[];
  /** The view's notes: "Lutfur Rahman: removed by the election court in 2015". */
  notes: string[];
  /** Legend rows: a kind (a node shape and colour) or a line (colour and dash). */
  legend: LegendRow[];
}

export type LegendRow =
  | { node: { shape: string; color: string }; text: string }
  | { line: { color: string; dash: string; width: number }; text: string };

const ns = "http://www.w3.org/2000/svg";

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The label an element is drawn with, "" when its style hides it. */
function labelOf(e: cytoscape.SingularElementReturnValue): string {
  const p = (e as unknown as { pstyle(name: string): { strValue?: string } | undefined }).pstyle("label");
  return String(p?.strValue ?? "");
}

const fmt = (v: number) => (Math.round(v * 10) / 10).toString();

/** The outline of a node shape as cytoscape draws it, centred on (x, y), w wide and h high. */
function shapeOf(shape: string, x: number, y: number, w: number, h: number, attrs: Record<string, string | number>): SVGElement {
  const pts = (ps: [number, number][]) => ps.map(([px, py]) => `${fmt(x + (px * w) / 2)},${fmt(y + (py * h) / 2)}`).join(" ");
  switch (shape) {
    case "hexagon":
      return el("polygon", { points: pts([[-1, 0], [-0.5, -1], [0.5, -1], [1, 0], [0.5, 1], [-0.5, 1]]), ...attrs });
    case "diamond":
      return el("polygon", { points: pts([[0, -1], [1, 0], [0, 1], [-1, 0]]), ...attrs });
    case "round-rectangle":
    case "roundrectangle":
      return el("rect", { x: fmt(x - w / 2), y: fmt(y - h / 2), width: fmt(w), height: fmt(h), rx: fmt(Math.min(w, h) / 4), ...attrs });
    case "rectangle":
      return el("rect", { x: fmt(x - w / 2), y: fmt(y - h / 2), width: fmt(w), height: fmt(h), ...attrs });
    default:
      return el("ellipse", { cx: fmt(x), cy: fmt(y), rx: fmt(w / 2), ry: fmt(h / 2), ...attrs });
  }
}

const dashOf = (e: cytoscape.EdgeSingular): string => {
  const style = e.style("line-style");
  if (style === "dotted") return "1 4";
  if (style !== "dashed") return "";
  const pattern = e.style("line-dash-pattern") as unknown;
  return Array.isArray(pattern) ? pattern.join(" ") : String(pattern ?? "6 3").replace(/px/g, "");
};

/** Wraps text into lines of at most n characters, at spaces. */
function wrap(text: string, n: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > n) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * The figure: the visible nodes and edges at their model positions, the title and filters above, the
 * legend on the right, the sources below. Returns the SVG document's text.
 */
export function figureSVG(cy: cytoscape.Core, text: FigureText): string {
  const nodes = cy.nodes(":visible").not(".more, .group");
  const groups = cy.nodes(".group:visible");
  const edges = cy.edges(":visible").not(".more-edge");
  const bb = nodes.union(edges).union(groups).boundingBox({ includeLabels: true });
  const pad = 30;
  const graphW = Math.max(200, bb.w + 2 * pad);
  const graphH = Math.max(120, bb.h + 2 * pad);
  const legendW = 340;
  const chars = Math.max(60, Math.floor((graphW + legendW - 40) / 6.2));
  const linkLines = text.link.match(new RegExp(`.{1,${chars}}`, "g")) ?? [];
  const headH = 78 + 14 * linkLines.length;
  const sourceLines = text.sources.flatMap((s) => wrap(s, Math.max(60, Math.floor((graphW + legendW) / 6.6))));
  const noteLines = text.notes.flatMap((s) => wrap(s, Math.max(60, Math.floor((graphW + legendW) / 6.6))));
  const notesH = noteLines.length ? 30 + 16 * noteLines.length : 0;
  const footH = 40 + 16 * sourceLines.length + notesH;
  const legendH = 40 + 22 * text.legend.length;
  const W = graphW + legendW;
  const H = headH + Math.max(graphH, legendH) + footH;
  const svg = el("svg", { xmlns: ns, width: fmt(W), height: fmt(H), viewBox: `0 0 ${fmt(W)} ${fmt(H)}`, "font-family": "system-ui, -apple-system, 'Segoe UI', sans-serif" });
  svg.append(el("rect", { x: 0, y: 0, width: fmt(W), height: fmt(H), fill: "#ffffff" }));
  svg.append(el("title", {}, text.title));
  const head = el("g", { class: "head" });
  head.append(el("text", { x: 20, y: 32, "font-size": 22, "font-weight": 700, fill: "#111827" }, text.title));
  head.append(el("text", { x: 20, y: 54, "font-size": 13, fill: "#374151" }, text.filters));
  head.append(el("text", { x: 20, y: 71, "font-size": 12, fill: "#4b5563" }, text.made));
  linkLines.forEach((line, i) => head.append(el("text", { x: 20, y: 87 + 14 * i, "font-size": 10, fill: "#4b5563", "font-family": "monospace" }, line)));
  svg.append(head);

  // The graph, translated so that its bounding box starts at (pad, headH + pad).
  const g = el("g", { class: "graph", transform: `translate(${fmt(pad - bb.x1)},${fmt(headH + pad - bb.y1)})` });
  groups.forEach((grp) => {
    const b = grp.boundingBox({ includeLabels: false });
    const box = el("g", { class: "group", "data-id": grp.id() });
    box.append(el("rect", { x: fmt(b.x1), y: fmt(b.y1), width: fmt(b.w), height: fmt(b.h), rx: 8, fill: "#e2e8f0", "fill-opacity": 0.5, stroke: "#64748b", "stroke-dasharray": "6 4" }));
    box.append(el("text", { x: fmt(b.x1 + b.w / 2), y: fmt(b.y1 - 6), "font-size": 15, "font-weight": 700, "text-anchor": "middle", fill: "#111827" }, String(grp.data("label"))));
    g.append(box);
  });
  edges.forEach((e) => {
    const s = e.sourceEndpoint();
    const t = e.targetEndpoint();
    const cps = e.controlPoints?.() ?? [];
    const color = String(e.style("line-color"));
    const width = parseFloat(String(e.style("width"))) || 1.5;
    const d = cps.length === 1
      ? `M${fmt(s.x)},${fmt(s.y)} Q${fmt(cps[0].x)},${fmt(cps[0].y)} ${fmt(t.x)},${fmt(t.y)}`
      : `M${fmt(s.x)},${fmt(s.y)} L${fmt(t.x)},${fmt(t.y)}`;
    const dash = dashOf(e);
    const edge = el("g", { class: "edge", "data-id": e.id() });
    edge.append(el("path", { d, fill: "none", stroke: color, "stroke-width": fmt(width), ...(dash ? { "stroke-dasharray": dash } : {}), opacity: 0.9 }));
    if (e.style("target-arrow-shape") !== "none") {
      // The arrow's head, along the line's last direction.
      const from = cps.length === 1 ? cps[0] : s;
      const a = Math.atan2(t.y - from.y, t.x - from.x);
      const len = 8 + width;
      const p1 = { x: t.x - len * Math.cos(a - 0.4), y: t.y - len * Math.sin(a - 0.4) };
      const p2 = { x: t.x - len * Math.cos(a + 0.4), y: t.y - len * Math.sin(a + 0.4) };
      edge.append(el("polygon", { points: `${fmt(t.x)},${fmt(t.y)} ${fmt(p1.x)},${fmt(p1.y)} ${fmt(p2.x)},${fmt(p2.y)}`, fill: color }));
    }
    const label = labelOf(e);
    if (label) {
      const m = e.midpoint();
      edge.append(el("text", { x: fmt(m.x), y: fmt(m.y), "font-size": 10, "text-anchor": "middle", fill: "#374151", stroke: "#ffffff", "stroke-width": 3, "paint-order": "stroke" }, label));
    }
    g.append(edge);
  });
  nodes.forEach((n) => {
    const p = n.position();
    const w = n.width();
    const h = n.height();
    const node = el("g", { class: "node", "data-id": n.id() });
    node.append(shapeOf(String(n.style("shape")), p.x, p.y, w, h, {
      fill: String(n.style("background-color")),
      stroke: String(n.style("border-color")),
      "stroke-width": parseFloat(String(n.style("border-width"))) || 0,
    }));
    const label = labelOf(n);
    if (label) {
      const lines = wrap(label, 22);
      const size = parseFloat(String(n.style("font-size"))) || 14;
      lines.forEach((line, i) =>
        node.append(el("text", { x: fmt(p.x), y: fmt(p.y + h / 2 + 5 + size * (i + 1)), "font-size": fmt(size), "font-weight": n.hasClass("expanded") ? 700 : 500, "text-anchor": "middle", fill: "#111827", stroke: "#ffffff", "stroke-width": 3, "paint-order": "stroke" }, line)),
      );
    }
    g.append(node);
  });
  svg.append(g);

  // The legend: only what appears in the figure.
  const lg = el("g", { class: "legend", transform: `translate(${fmt(graphW + 10)},${fmt(headH + 10)})` });
  lg.append(el("rect", { x: 0, y: 0, width: legendW - 30, height: legendH - 10, fill: "#f8fafc", stroke: "#cbd5e1", rx: 6 }));
  lg.append(el("text", { x: 12, y: 22, "font-size": 13, "font-weight": 700, fill: "#111827" }, "Legend"));
  text.legend.forEach((row, i) => {
    const y = 44 + 22 * i;
    if ("node" in row) lg.append(shapeOf(row.node.shape, 26, y - 4, 16, 16, { fill: row.node.color }));
    else lg.append(el("line", { x1: 12, y1: y - 4, x2: 40, y2: y - 4, stroke: row.line.color, "stroke-width": row.line.width, ...(row.line.dash ? { "stroke-dasharray": row.line.dash } : {}) }));
    lg.append(el("text", { x: 50, y, "font-size": 12, fill: "#1f2937" }, row.text));
  });
  svg.append(lg);

  if (noteLines.length) {
    const notes = el("g", { class: "notes", transform: `translate(20,${fmt(headH + Math.max(graphH, legendH) + 10)})` });
    notes.append(el("text", { x: 0, y: 14, "font-size": 13, "font-weight": 700, fill: "#111827" }, "Notes"));
    noteLines.forEach((line, i) => notes.append(el("text", { x: 0, y: 34 + 16 * i, "font-size": 11, fill: "#374151" }, line)));
    svg.append(notes);
  }
  const foot = el("g", { class: "sources", transform: `translate(20,${fmt(headH + Math.max(graphH, legendH) + 10 + notesH)})` });
  foot.append(el("text", { x: 0, y: 14, "font-size": 13, "font-weight": 700, fill: "#111827" }, text.sources.length ? "Sources" : "Sources: none cited by the relations drawn"));
  sourceLines.forEach((line, i) => foot.append(el("text", { x: 0, y: 34 + 16 * i, "font-size": 11, fill: "#374151" }, line)));
  svg.append(foot);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}\n`;
}

/** The figure drawn as a PNG, at scale times its size. */
export async function figurePNG(svgText: string, scale = 2): Promise<Blob> {
  const img = new Image();
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("the figure could not be drawn"));
      img.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(img.width * scale);
    canvas.height = Math.ceil(img.height * scale);
    const ctx = canvas.getContext("2d")!;
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}
