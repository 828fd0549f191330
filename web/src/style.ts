// How the graph is drawn: nodes coloured and shaped by kind, relations coloured by family, dashed when
// only alleged, dotted when undated (dash-dot when both), dashed in the warning colour when a claim denies
// them, thicker the surer they are.
import type cytoscape from "cytoscape";
import { disputedColor, families, kinds } from "./vocab";

export const highlightColor = "#facc15";

export function stylesheet(): cytoscape.StylesheetJson {
  const s: cytoscape.StylesheetJson = [
    {
      selector: "node",
      style: {
        label: "data(label)",
        "font-size": 14,
        "font-weight": 500,
        color: "#111827",
        "text-valign": "bottom",
        "text-halign": "center",
        "text-margin-y": 5,
        "text-wrap": "wrap",
        "text-max-width": "130px",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.85,
        "text-background-padding": "2px",
        "text-background-shape": "roundrectangle",
        "min-zoomed-font-size": 6,
        width: "data(size)",
        height: "data(size)",
        "border-width": 2,
        "border-color": "#ffffff",
        "overlay-padding": 4,
      },
    },
    {
      selector: "node.expanded",
      style: { "border-width": 3, "border-color": "#111827", "font-weight": 700 },
    },
    {
      selector: "node:selected",
      style: { "underlay-color": "#1d4ed8", "underlay-padding": 7, "underlay-opacity": 0.25, "underlay-shape": "ellipse" },
    },
    {
      selector: "node.more",
      style: {
        label: "data(label)",
        shape: "round-rectangle",
        "background-color": "#f1f5f9",
        "border-width": 1,
        "border-style": "dashed",
        "border-color": "#64748b",
        color: "#334155",
        "font-size": 12,
        "font-weight": 600,
        "text-valign": "center",
        "text-margin-y": 0,
        "text-background-opacity": 0,
        width: "label",
        height: 22,
        "padding-left": "8px",
        "padding-right": "8px",
      } as cytoscape.Css.Node,
    },
    {
      selector: "edge",
      style: {
        width: "mapData(confidence, 0, 1, 1, 4.5)",
        "curve-style": "bezier",
        "line-color": families.structure.color,
        "target-arrow-color": families.structure.color,
        "target-arrow-shape": "triangle",
        "arrow-scale": 0.9,
        // Labels on demand: an edge says what it is when hovered, selected, on a path, beside the entity
        // selected, or when the view is zoomed in far enough to read them (edge.zl).
        label: "",
        "font-size": 10,
        color: "#374151",
        "text-rotation": "autorotate",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.8,
        "text-background-padding": "1px",
        "min-zoomed-font-size": 8,
        opacity: 0.9,
      },
    },
    { selector: "edge.zl, edge.hover, edge:selected, edge.onpath, edge.near", style: { label: "data(label)" } },
    { selector: "edge.symmetric", style: { "target-arrow-shape": "none" } },
    {
      selector: "edge.confirmed",
      style: { "line-style": "solid", "source-arrow-shape": "none" },
    },
    {
      selector: "edge.alleged",
      style: { "line-style": "dashed", "line-dash-pattern": [7, 4] },
    },
    {
      // No date at all: not known to hold at any particular time.
      selector: "edge.undated",
      style: { "line-style": "dotted" },
    },
    {
      selector: "edge.alleged.undated",
      style: { "line-style": "dashed", "line-dash-pattern": [7, 3, 1.5, 3] },
    },
    {
      // Through a via: a member to the party they sat for; the relation's own edge goes to the seat.
      selector: "edge.via",
      style: { "line-style": "dashed", "line-dash-pattern": [2, 5], opacity: 0.85 },
    },
    {
      // Disputed wins over alleged and undated: listed after them.
      selector: "edge.disputed",
      style: {
        "line-style": "dashed",
        "line-dash-pattern": [4, 3],
        "line-color": disputedColor,
        "target-arrow-color": disputedColor,
        color: disputedColor,
      },
    },
    {
      selector: "edge.more-edge",
      style: {
        width: 1,
        "line-style": "dotted",
        "line-color": "#94a3b8",
        "target-arrow-shape": "none",
        label: "",
      },
    },
    {
      // Two entities joined by several relations: one edge that counts them, its relations drawn when open.
      selector: "edge.bundle",
      style: {
        width: "mapData(count, 2, 8, 3, 7)",
        "line-color": "#475569",
        "target-arrow-shape": "none",
        label: "data(label)",
        "font-weight": 600,
        "font-size": 10,
        color: "#1e293b",
      },
    },
    { selector: "edge.bundle.disputed", style: { "line-color": disputedColor, color: "#9a3412" } },
    { selector: "edge.bundled, edge.bundle.open", style: { display: "none" } },
    // Far out, only the entities that matter keep their labels (at a size the page sets as it zooms).
    { selector: "node.far", style: { label: "" } },
    {
      selector: "edge:selected",
      style: { "underlay-color": "#1d4ed8", "underlay-padding": 5, "underlay-opacity": 0.25 },
    },
    {
      selector: ".onpath",
      style: { "underlay-color": highlightColor, "underlay-padding": 8, "underlay-opacity": 0.7 },
    },
    { selector: "node.onpath", style: { "underlay-shape": "ellipse" } },
    { selector: "edge.onpath", style: { "underlay-padding": 5, opacity: 1 } },
    { selector: ".faded", style: { opacity: 0.3, "text-opacity": 0.45 } },
    { selector: ".live", style: { "underlay-color": "#16a34a", "underlay-padding": 8, "underlay-opacity": 0.6 } },
    { selector: "node.live", style: { "underlay-shape": "ellipse" } },
    { selector: "edge.outtime, node.outtime", style: { display: "none" } },
    // Pinned: a double ring. Marked for a group: a violet halo. Noted: the label on yellow.
    { selector: "node.pinned", style: { "border-style": "double", "border-width": 6, "border-color": "#111827" } },
    { selector: "node.marked", style: { "underlay-color": "#7c3aed", "underlay-padding": 8, "underlay-opacity": 0.5, "underlay-shape": "ellipse" } },
    { selector: ".noted", style: { "text-background-color": "#fde68a", "text-background-opacity": 1 } },
    { selector: "edge.noted", style: { label: "data(label)" } },
    {
      selector: "node.group",
      style: {
        shape: "round-rectangle",
        "background-color": "#e2e8f0",
        "background-opacity": 0.5,
        "border-width": 1.5,
        "border-style": "dashed",
        "border-color": "#64748b",
        label: "data(label)",
        "text-valign": "top",
        "text-halign": "center",
        "text-margin-y": -4,
        "font-weight": 700,
        "font-size": 15,
        padding: "24px",
      } as cytoscape.Css.Node,
    },
    { selector: "edge.before", style: { "underlay-color": "#dc2626", "underlay-padding": 4, "underlay-opacity": 0.35, opacity: 0.55 } },
    { selector: "edge.after", style: { "underlay-color": "#16a34a", "underlay-padding": 4, "underlay-opacity": 0.45 } },
    { selector: "node.found", style: { "underlay-color": "#f59e0b", "underlay-padding": 9, "underlay-opacity": 0.8, "underlay-shape": "ellipse" } },
  ];
  for (const [key, k] of Object.entries(kinds)) {
    s.push({ selector: `node[kind = "${key}"]`, style: { shape: k.shape, "background-color": k.color } });
  }
  for (const [key, f] of Object.entries(families)) {
    s.push({
      selector: `edge.${key}`,
      style: { "line-color": f.color, "target-arrow-color": f.color },
    });
  }
  // Disputed wins over the family colour: listed last.
  s.push({
    selector: "edge.disputed",
    style: { "line-color": disputedColor, "target-arrow-color": disputedColor },
  });
  return s;
}
