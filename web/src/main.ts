// The graph explorer: search, expand, find paths, read the evidence, filter by type, confidence and time,
// export, and keep all of it in the page's address; and the review view (review.ts) beside the graph.
import cytoscape from "cytoscape";
import fcose from "cytoscape-fcose";
import { Code, ConnectError } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { client, describeError, editorKey, Health, outageOf, setEditorKey, viewClient, type Outage } from "./api";
import type { SavedView } from "./gen/polgraph/v1/view_service_pb";
import { byId, download, h, safeLink } from "./dom";
import { type ClaimOut, type Evidence, type SourceOut, toCytoscapeJSON, toGraphML } from "./exporters";
import {
  UndatedPolicy,
  type Edge,
  type ExploreNeighborhoodResponse,
  type FindPathsResponse,
  type GetEntityResponse,
  type GetRelationResponse,
  type Hop,
  type RelationFilterSchema,
  type Truncation,
} from "./gen/polgraph/v1/graph_service_pb";
import { ClaimStatus, RelationType, SourceKind, type DateRange, type Entity, type Relation, type Verdict } from "./gen/polgraph/v1/resources_pb";
import { isBundle, rebundle } from "./bundles";
import { figurePNG, figureSVG, type FigureText, type LegendRow } from "./figure";
import { bottomSheet, markOption } from "./a11y";
import { listView } from "./listview";
import { ReviewView } from "./review";
import { applyTime, drawHistogram, histogram, yearsOf, type Histogram } from "./timeline";
import { highlightColor, stylesheet } from "./style";
import { decodePositions, type Direction, emptyView, encodePositions, formatView, parseView, type Position, type Step, type View } from "./view";
import {
  disputedColor,
  disputedInk,
  families,
  kindKey,
  kinds,
  relationTypes,
  heldDuring,
  spanLabel,
  statusFromKey,
  statusKey,
  timeLabel,
  timeOrUndated,
  typeFamily,
  typeFromKey,
  typeLabel,
  type Family,
} from "./vocab";

cytoscape.use(fcose);

const view: View = parseView(location.search);

// Undo and Redo walk the views this page made (Back and Forward do too): depth counts the entries before
// this one, ahead those after it.
let depth = Number((history.state as { depth?: number } | null)?.depth ?? 0);
let ahead = 0;
const undoButton = byId<HTMLButtonElement>("undo");
const redoButton = byId<HTMLButtonElement>("redo");
const showHiddenButton = byId<HTMLButtonElement>("show-hidden");
/** The Undo, Redo and "Show N hidden" buttons, as the view and the history stand. */
function showUndo(): void {
  undoButton.disabled = depth === 0;
  redoButton.disabled = ahead === 0;
  const n = new Set(view.steps.flatMap((s) => (s.op === "hide" ? [s.name] : []))).size;
  showHiddenButton.hidden = n === 0;
  showHiddenButton.textContent = `Show ${n} hidden`;
}
undoButton.addEventListener("click", () => history.back());
redoButton.addEventListener("click", () => history.forward());
showHiddenButton.addEventListener("click", () => showHidden());
document.addEventListener("keydown", (ev) => {
  const t = ev.target as HTMLElement | null;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
  const key = ev.key.toLowerCase();
  if ((ev.ctrlKey || ev.metaKey) && key === "z") {
    ev.preventDefault();
    if (ev.shiftKey) {
      if (ahead > 0) history.forward();
    } else if (depth > 0) history.back();
  } else if ((ev.ctrlKey || ev.metaKey) && key === "y") {
    ev.preventDefault();
    if (ahead > 0) history.forward();
  } else if ((key === "delete" || key === "backspace") && view.selected && cy.getElementById(view.selected).isNode()) {
    ev.preventDefault();
    void hideEntity(view.selected);
  }
});
showUndo();

// ---------------------------------------------------------------------------------------------------------
// Busy state: the page's body says data-busy="1" while a call or a layout runs, so a person (and a test)
// can tell a finished view from one still loading.

let busy = 0;
function begin(): void {
  busy++;
  document.body.dataset.busy = "1";
}
function end(): void {
  busy = Math.max(0, busy - 1);
  if (busy === 0) document.body.dataset.busy = "0";
}

const statusEl = byId("status");
function setStatus(text: string, error = false): void {
  statusEl.textContent = text;
  statusEl.classList.toggle("error", error);
}

// ---------------------------------------------------------------------------------------------------------
// The connection: a banner says when the service or its database is down, and goes once they are back.

/** What to run again once the service answers again: the action that failed because it was down. */
let retryOnRecovery: (() => void) | null = null;

const banner = byId("banner");
const conn = byId("conn");
let bannerTimer: ReturnType<typeof setTimeout> | undefined;

const health = new Health((outage, previous) => {
  clearTimeout(bannerTimer);
  if (outage) {
    banner.hidden = false;
    banner.dataset.kind = outage.kind;
    byId("banner-title").textContent =
      outage.kind === "unreachable"
        ? `The polgraph service at ${location.host} cannot be reached.`
        : "The polgraph service is up, but its graph database is not answering.";
    byId("banner-text").textContent = `${outage.message} — retrying every 2 seconds.`;
    conn.dataset.state = "down";
    conn.textContent = "offline";
    return;
  }
  conn.dataset.state = "ok";
  conn.textContent = "connected";
  if (previous) {
    banner.hidden = false;
    banner.dataset.kind = "recovered";
    byId("banner-title").textContent = "Connected again.";
    byId("banner-text").textContent = "The polgraph service and its database answer.";
    bannerTimer = setTimeout(() => (banner.hidden = true), 4_000);
    if (statusEl.classList.contains("error")) setStatus("");
    const retry = retryOnRecovery;
    retryOnRecovery = null;
    retry?.();
  }
});
byId("banner-retry").addEventListener("click", () => void health.check());

/**
 * Runs one call to the service. A failure that means an outage goes to the health watch (and the banner);
 * the caller still gets the error.
 */
async function call<T>(doing: string, f: () => Promise<T>): Promise<T> {
  begin();
  setStatus(`${doing}…`);
  try {
    const r = await f();
    setStatus("");
    return r;
  } catch (e) {
    const o = outageOf(e);
    if (o) health.report(o);
    throw e;
  } finally {
    end();
  }
}

/** Says what failed: in the banner for an outage (and runs retry once it is over), else in the status line. */
function failed(what: string, e: unknown, retry?: () => void): Outage | null {
  const o = outageOf(e);
  if (o) {
    if (retry) retryOnRecovery = retry;
    setStatus(`Could not ${what}: ${o.kind === "unreachable" ? "polgraph" : "its database"} is not answering (see the banner); it runs again once it answers.`, true);
  } else if (e instanceof ConnectError && e.code === Code.NotFound) {
    setStatus(`Could not ${what}: ${describeError(e)}.`, true);
  } else {
    setStatus(`Could not ${what}: ${describeError(e)}`, true);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------------------
// The graph.

const cy = cytoscape({
  container: byId("cy"),
  style: stylesheet(),
  minZoom: 0.02,
  maxZoom: 3,
  wheelSensitivity: 0.3,
  selectionType: "single",
  boxSelectionEnabled: false,
});

/** Entities and relations, without the "N more" handles. */
const realNodes = () => cy.nodes().not(".more, .group") as cytoscape.NodeCollection;
/** The nodes with places of their own: entities and "+N more" handles, not the boxes of groups. */
const placedNodes = () => cy.nodes().not(".group") as cytoscape.NodeCollection;
const realEdges = () => cy.edges().not(".more-edge, .bundle") as cytoscape.EdgeCollection;

/** Bundles the page was asked to keep open (a click on "Draw them apart"), by id. */
const openBundles = new Set<string>();

/**
 * What follows from what is drawn: node sizes, the bundles of parallel relations (open where a relation of
 * one is selected or on a path), the edges beside the selected entity, and the labels for the zoom.
 */
function decorate(): void {
  cy.batch(() => {
    sizeNodes();
    cy.elements(".pinned, .noted").removeClass("pinned noted");
    for (const p of view.pins) cy.getElementById(p).addClass("pinned");
    for (const target of view.notes.keys()) cy.getElementById(target).addClass("noted");
    const sel = view.selected;
    cy.edges(".near").removeClass("near");
    const node = sel && !isBundle(sel) ? cy.getElementById(sel) : cy.collection();
    if (node.nonempty() && node.isNode()) node.connectedEdges().addClass("near");
    showTimeline();
    rebundle(cy, (id, members) => openBundles.has(id) || sel === id || members.some((e) => e.id() === sel || e.hasClass("onpath")));
  });
  levelOfDetail();
}

/** Node size: by the relations the entity has in the graph (the default), by those drawn, or by kind. */
function sizeNodes(): void {
  const bySize = view.size;
  const kindSize: Record<string, number> = { party: 46, organisation: 36, seat: 34, actor: 28 };
  realNodes().forEach((n) => {
    let size: number;
    if (bySize === "degree") size = 24 + 32 * Math.min(n.neighborhood("node").not(".more").length, 16) / 16;
    else if (bySize === "kind") size = kindSize[String(n.data("kind"))] ?? 30;
    else size = 24 + 22 * Math.min(Number(n.data("relationCount") ?? 0), 30) / 30;
    if (n.data("size") !== size) n.data("size", size);
  });
  cy.nodes(".more").data("size", 22);
}

// Edge labels are drawn from this zoom on; below farZoom only the entities that matter keep their labels.
const edgeLabelZoom = 1.3;
const farZoom = 0.85;
let lodZoom = -1;
/**
 * Labels for the zoom: edge labels when close; far out, only the entities that matter keep labels, drawn
 * at a legible size. At any zoom a label that would cover another is left out, the more important kept
 * (selected, on a path, found, expanded, pinned, then by relations): zooming in brings it back.
 */
function levelOfDetail(force = true): void {
  const z = cy.zoom();
  if (!force && Math.abs(z - lodZoom) < 0.02) return;
  lodZoom = z;
  const nodes = realNodes().filter((n) => !n.hasClass("outtime"));
  let candidates = nodes;
  cy.batch(() => {
    const edges = realEdges();
    if (z >= edgeLabelZoom) edges.addClass("zl");
    else edges.removeClass("zl");
    realNodes().removeClass("far");
    if (z >= farZoom) {
      nodes.removeStyle("font-size text-max-width");
      cy.nodes(".more").removeStyle("font-size");
      return;
    }
    cy.nodes(".more").style("font-size", Math.min(12 / z, 50));
    candidates = nodes.filter((n) => n.hasClass("expanded") || n.hasClass("found") || n.hasClass("onpath") || n.selected() || n.hasClass("pinned") || Number(n.data("relationCount") ?? 0) >= 25);
    nodes.difference(candidates).addClass("far");
    candidates.style({ "font-size": Math.min(14 / z, 60), "text-max-width": `${Math.round(130 / Math.max(z, 0.25))}px` });
  });
  const rank = (n: cytoscape.NodeSingular) =>
    (n.selected() ? 1e7 : 0) + (n.hasClass("onpath") ? 1e6 : 0) + (n.hasClass("found") ? 1e6 : 0) + (n.hasClass("expanded") ? 1e5 : 0) +
    (n.hasClass("pinned") ? 1e5 : 0) + Number(n.data("relationCount") ?? 0);
  type Box = { x1: number; y1: number; x2: number; y2: number };
  const gap = 2 / z; // two pixels on screen between labels
  // The labels drawn so far, in a grid of cells about 200 px on screen: a label is checked against those
  // in the cells it covers, not against all of them.
  const cell = 200 / z;
  const grid = new Map<string, Box[]>();
  const cellsOf = (b: Box) => {
    const keys: string[] = [];
    for (let x = Math.floor((b.x1 - gap) / cell); x <= Math.floor((b.x2 + gap) / cell); x++)
      for (let y = Math.floor((b.y1 - gap) / cell); y <= Math.floor((b.y2 + gap) / cell); y++) keys.push(`${x},${y}`);
    return keys;
  };
  const drawn = {
    some: (hit: (o: Box) => boolean, b: Box) => cellsOf(b).some((k) => grid.get(k)?.some(hit)),
    push: (b: Box) => cellsOf(b).forEach((k) => grid.set(k, [...(grid.get(k) ?? []), b])),
  };
  // The "+N more" handles are their labels: always drawn, the others keep off them.
  cy.nodes(".more").forEach((m) => drawn.push(m.boundingBox({ includeLabels: true })));
  const left: cytoscape.NodeSingular[] = [];
  for (const n of (candidates as cytoscape.NodeCollection).sort((a: cytoscape.NodeSingular, b: cytoscape.NodeSingular) => rank(b) - rank(a) || String(a.data("label")).localeCompare(String(b.data("label"))))) {
    const b = n.boundingBox({ includeNodes: false, includeLabels: true, includeEdges: false });
    if (!(b.w > 0)) continue;
    if (drawn.some((o) => b.x1 - gap < o.x2 && o.x1 - gap < b.x2 && b.y1 - gap < o.y2 && o.y1 - gap < b.y2, b)) left.push(n);
    else drawn.push(b);
  }
  if (left.length) cy.batch(() => left.forEach((n) => void n.addClass("far")));
}
let lodTimer: ReturnType<typeof setTimeout> | undefined;
cy.on("zoom", () => {
  clearTimeout(lodTimer);
  lodTimer = setTimeout(() => levelOfDetail(false), 60);
});

/**
 * Draws an entity's neighbours through relations of one type (a key), one way or either: all of them, up
 * to 200, as the filters allow. The entity is not marked expanded: a click still shows all it has.
 */
async function expandBy(name: string, typeKey: string, dir: Direction): Promise<void> {
  const t = typeFromKey(typeKey);
  if (t === undefined || (view.types.length && !view.types.includes(typeKey))) return;
  const exclude = realNodes()
    .map((n) => n.id())
    .slice(0, 1000);
  let pageToken = "";
  do {
    const resp = await call(`Loading the ${typeLabel(t)} relations of ${label(name)}`, () =>
      client.exploreNeighborhood({ name, depth: 1, maxPerNode: 200, exclude, filter: { ...filter(), includeTypes: [t] }, pageToken, followVia: view.followVia }),
    );
    const center = resp.center!;
    const way = (e: EdgeView) => e.type === t && (e.from === center.name ? dir !== "in" : e.to === center.name && dir !== "out");
    const keep = new Set(resp.edges.filter(way).map((e) => (e.from === center.name ? e.to : e.from)));
    cy.batch(() => {
      const c = addEntity(center, resp.nodes.find((n) => n.entity?.name === center.name)?.relationCount, null);
      for (const n of resp.nodes) if (n.entity && keep.has(n.entity.name)) addEntity(n.entity, n.relationCount, c);
      for (const e of resp.edges) addEdge(e);
    });
    pageToken = resp.nextPageToken;
  } while (pageToken);
}

function filter(): MessageInitShape<typeof RelationFilterSchema> {
  if (view.types.includes("NONE") || view.statuses.includes("NONE")) {
    // Nothing is to count: every type excluded says so to the service.
    return { excludeTypes: relationTypes.map((t) => t.type) };
  }
  return {
    asOf: view.asOf,
    // Unticked leaves it to the service: undated relations are left out as of a year, counted otherwise.
    undated: view.asOf && view.undated ? UndatedPolicy.INCLUDE : UndatedPolicy.UNSPECIFIED,
    minConfidence: view.minConfidence,
    includeTypes: view.types.map(typeFromKey).filter((t) => t !== undefined),
    statuses: view.statuses.map(statusFromKey).filter((s) => s !== undefined),
  };
}

function label(name: string): string {
  const n = cy.getElementById(name);
  return n.nonempty() ? String(n.data("label")) : name;
}

/** A spot near `near` for a new node, spread around it so that new nodes do not start on top of each other. */
let placed = 0;
function spotNear(near: cytoscape.NodeSingular | null): cytoscape.Position {
  placed++;
  const angle = placed * 2.39996; // the golden angle
  const r = 110 + (placed % 5) * 18;
  const c = near?.nonempty() ? near.position() : { x: 0, y: 0 };
  return { x: c.x + r * Math.cos(angle), y: c.y + r * Math.sin(angle) };
}

function addEntity(e: Entity, relationCount: number | undefined, near: cytoscape.NodeSingular | null): cytoscape.NodeSingular {
  const existing = cy.getElementById(e.name);
  const data = {
    id: e.name,
    label: e.displayName || e.name,
    kind: kindKey(e.kind),
    description: e.description,
    ...(relationCount !== undefined ? { relationCount } : {}),
  };
  if (existing.nonempty()) {
    existing.data(data);
    return existing as cytoscape.NodeSingular;
  }
  return cy.add({
    group: "nodes",
    data: { relationCount: 0, ...data },
    position: spotNear(near),
  }) as unknown as cytoscape.NodeSingular;
}

/** An edge as the explorer draws it, from a neighbourhood's Edge or a path's Relation. */
interface EdgeView {
  name: string;
  type: Edge["type"];
  from: string;
  to: string;
  symmetric: boolean;
  role: string;
  validFrom: string;
  validTo: string;
  date: string;
  statuses: ClaimStatus[];
  /** The best confidence of a supporting claim with a counted status: a denial is never strength. */
  confidence: number;
  claimCount: number;
  /** No date at all: not known to hold at any particular time. */
  undated: boolean;
  verdict?: Verdict;
  /** The relation the edge draws: its name, without the `#via` of an edge through a via. */
  relation?: string;
  /** The edge joins the relation's `from` to its via, not to its `to`. */
  throughVia?: boolean;
}

/** The relation an edge's id names: an edge through a via is named by its relation and `#via`. */
const relationOf = (edgeId: string) => edgeId.replace(/#via$/, "");

/**
 * The edge a neighbourhood would hold for a relation of a path, computed from its claims as the service
 * does: the statuses of all its claims, the strength from its supporting claims with a counted status only,
 * and the verdict over all of them.
 */
function edgeOfRelation(r: Relation): EdgeView {
  const counted = view.statuses.length
    ? new Set(view.statuses.map(statusFromKey))
    : new Set([ClaimStatus.ALLEGED, ClaimStatus.REPORTED, ClaimStatus.CONFIRMED]);
  const statuses = [...new Set(r.claims.map((c) => c.status))].sort((a, b) => a - b);
  const supporting = r.claims.filter((c) => c.status !== ClaimStatus.DENIED && counted.has(c.status));
  const confidence = Math.max(0, ...supporting.map((c) => c.confidence));
  return { ...r, statuses, confidence, claimCount: r.claims.length };
}

/** "endorses · 2024 — 3 of 4 claims deny it": what an edge's tooltip and title say. */
function edgeTitle(e: EdgeView): string {
  const verdict = e.verdict?.summary || `${e.claimCount} claim${e.claimCount === 1 ? "" : "s"}`;
  const when = timeOrUndated(e);
  return `${typeLabel(e.type)}${e.role ? ` (${e.role})` : ""}${when ? ` · ${when}` : ""} — ${verdict}`;
}

function addEdge(e: EdgeView): void {
  if (cy.getElementById(e.from).empty() || cy.getElementById(e.to).empty()) return;
  const statuses = e.statuses.map(statusKey);
  const disputed = statuses.includes("DENIED");
  const alleged = !disputed && statuses.length > 0 && statuses.every((s) => s === "ALLEGED");
  const family = typeFamily(e.type);
  const time = timeLabel(e);
  const data = {
    id: e.name,
    source: e.from,
    target: e.to,
    type: RelationType[e.type],
    family,
    label: time ? `${typeLabel(e.type)} · ${time}` : typeLabel(e.type),
    symmetric: e.symmetric,
    role: e.role,
    validFrom: e.validFrom,
    validTo: e.validTo,
    date: e.date,
    statuses: statuses.join(" "),
    confidence: e.confidence,
    claimCount: e.claimCount,
    disputed,
    undated: e.undated,
    verdict: e.verdict?.summary ?? "",
    relation: e.relation || relationOf(e.name),
    throughVia: !!e.throughVia,
    title: e.throughVia ? `${edgeTitle(e)} (through its via)` : edgeTitle(e),
  };
  const classes = [
    family,
    disputed && "disputed",
    alleged && "alleged",
    e.undated && "undated",
    e.throughVia && "via",
    e.symmetric && "symmetric",
    statuses.includes("CONFIRMED") && "confirmed",
  ].filter(Boolean) as string[];
  // One element per relation, whichever answer brings it (a neighbourhood, a later one that shows the edges
  // among nodes already drawn, a path): it is merged, keeping its highlight.
  const existing = cy.getElementById(e.name);
  if (existing.nonempty()) {
    existing.data(data);
    existing.classes([...classes, ...["onpath", "faded"].filter((c) => existing.hasClass(c))]);
    return;
  }
  cy.add({ group: "edges", data, classes: classes.join(" ") });
}

/**
 * Shows or updates the "+N more" handle of an entity whose neighbours the caps cut: N entities joined to it
 * are not shown yet (through `relations` relations).
 */
function setMore(entity: string, t: Truncation | undefined): void {
  const id = `more:${entity}`;
  const handle = cy.getElementById(id);
  const leftOut = t?.leftOut ?? 0;
  if (leftOut <= 0) {
    handle.remove();
    return;
  }
  const relations = t?.relationsLeftOut ?? 0;
  const data = {
    label: `+${leftOut} more`,
    leftOut,
    relationsLeftOut: relations,
    title: `${leftOut} more ${leftOut === 1 ? "entity" : "entities"} joined to ${label(entity)}` +
      (relations > leftOut ? ` (by ${relations} relations)` : "") + ": click to show the next ones",
  };
  if (handle.nonempty()) {
    handle.data(data);
    return;
  }
  const owner = cy.getElementById(entity) as cytoscape.NodeSingular;
  cy.add([
    { group: "nodes", data: { id, more: entity, ...data }, classes: "more", position: spotNear(owner) },
    { group: "edges", data: { id: `more-edge:${entity}`, source: entity, target: id }, classes: "more-edge" },
  ]);
}

/** Asks for an entity's neighbours that are not shown yet and merges them into the graph. */
async function expand(name: string): Promise<ExploreNeighborhoodResponse> {
  const exclude = realNodes()
    .map((n) => n.id())
    .slice(0, 1000);
  let pageToken = "";
  let first: ExploreNeighborhoodResponse | undefined;
  do {
    const resp = await call(`Loading what surrounds ${label(name)}`, () =>
      client.exploreNeighborhood({ name, depth: 1, maxPerNode: view.perNode, exclude, filter: filter(), pageToken, followVia: view.followVia }),
    );
    first ??= resp;
    const center = resp.center!;
    cy.batch(() => {
      const c = addEntity(center, resp.nodes.find((n) => n.entity?.name === center.name)?.relationCount, null);
      c.addClass("expanded");
      for (const n of resp.nodes) if (n.entity) addEntity(n.entity, n.relationCount, c);
      // The answer is the subgraph its entities induce: edges among nodes already shown (expanded or not)
      // come again, and are merged by their name.
      for (const e of resp.edges) addEdge(e);
      if (!pageToken) setMore(center.name, resp.truncated.find((t) => t.entity === center.name));
    });
    pageToken = resp.nextPageToken;
  } while (pageToken);
  return first;
}

interface PathsShown {
  from: string;
  to: string;
  resp: FindPathsResponse;
  /** Asked for co-temporal routes: each path says when it held as a whole. */
  coTemporal: boolean;
  /** The path highlighted alone, or -1 for all of them. */
  active: number;
  /** Display names of the entities on the paths and of the claims' speakers. */
  names?: Map<string, string>;
}
let paths: PathsShown | null = null;

const maxDepth = 4;
const maxPaths = 5;

/** Every relation of a hop, the first (strongest) first, each with the way the path walks it. */
function hopRelations(hop: Hop): { relation: Relation; forward: boolean; throughVia: boolean }[] {
  const out = hop.relation ? [{ relation: hop.relation, forward: hop.forward, throughVia: hop.throughVia }] : [];
  for (const p of hop.parallel) if (p.relation) out.push({ relation: p.relation, forward: p.forward, throughVia: p.throughVia });
  return out;
}

/** Every relation of the paths given, once. */
function pathRelations(ps: FindPathsResponse["paths"]): Relation[] {
  const seen = new Map<string, Relation>();
  for (const p of ps) for (const hop of p.hops) for (const { relation } of hopRelations(hop)) seen.set(relation.name, relation);
  return [...seen.values()];
}

/** The edge of every relation of the paths given, once: a hop through a via draws the relation's edge to its via. */
function pathEdges(ps: FindPathsResponse["paths"]): EdgeView[] {
  const seen = new Map<string, EdgeView>();
  for (const p of ps) {
    for (const hop of p.hops) {
      for (const { relation, throughVia } of hopRelations(hop)) {
        const e = edgeOfRelation(relation);
        if (throughVia) seen.set(`${relation.name}#via`, { ...e, name: `${relation.name}#via`, to: relation.via, symmetric: false, relation: relation.name, throughVia: true });
        else seen.set(relation.name, e);
      }
    }
  }
  return [...seen.values()];
}

async function findPaths(from: string, to: string): Promise<void> {
  const coTemporal = view.coTemporal;
  const resp = await call(`Finding paths from ${from} to ${to}`, () =>
    client.findPaths({ from, to, maxPaths, maxDepth, coTemporal, filter: filter(), followVia: view.followVia }),
  );
  cy.batch(() => {
    const anchor = (cy.getElementById(resp.paths[0]?.entities[0] ?? "") as cytoscape.NodeSingular) ?? null;
    for (const e of resp.entities) addEntity(e, undefined, anchor.nonempty() ? anchor : null);
    for (const e of pathEdges(resp.paths)) addEdge(e);
  });
  paths = { from, to, resp, coTemporal, active: -1 };
  if (replaying && view.route < resp.paths.length) paths.active = view.route;
  else view.route = -1;
  if (!resp.paths.length) {
    // No route: its ends by their names, not their resource names.
    const ends = [from, to].filter((n) => n.includes("/"));
    const got = ends.length ? await client.batchGetEntities({ names: ends }).catch(() => undefined) : undefined;
    paths.names = new Map(got?.entities.map((e) => [e.name, e.displayName]) ?? []);
  }
}

/** Marks the paths shown (or the one picked) and fades the rest while the paths panel is open. */
function highlightPaths(): void {
  cy.batch(() => {
    cy.elements().removeClass("onpath faded");
    if (!paths || paths.resp.paths.length === 0) return;
    const chosen = paths.active >= 0 ? [paths.resp.paths[paths.active]] : paths.resp.paths;
    let on = cy.collection();
    for (const p of chosen) {
      for (const e of p.entities) on = on.union(cy.getElementById(e));
      for (const e of pathEdges([p])) on = on.union(cy.getElementById(e.name));
    }
    on.addClass("onpath");
    if (view.selected === "paths") cy.elements().not(on).addClass("faded");
  });
  decorate();
}

// ---------------------------------------------------------------------------------------------------------
// Layout: fCoSE, which keeps nodes (and their labels) apart; incremental after an expansion, so that what
// was shown stays roughly where it was.

let layoutRun: cytoscape.Layouts | null = null;

function relayout(fresh: boolean, fixed: cytoscape.NodeCollection = cy.collection(), fit = true, returning: cytoscape.NodeCollection = cy.collection()): void {
  layoutRun?.stop();
  decorate();
  byId("empty").hidden = cy.nodes().nonempty();
  if (cy.nodes().empty()) return;
  const pinned = placedNodes().filter((n) => view.pins.includes(n.id()));
  fixed = fixed.union(pinned);
  const settled = fixed;
  // A hub's new neighbours that join nothing else drawn go round it in rings; fCoSE places the rest.
  fixed = fixed.union(ringLeaves(fixed));
  fixed = fixed.filter((n) => n.inside());
  if (fixed.nonempty() && fixed.length === placedNodes().length) {
    // Every node already has its place: nothing moves but a returning node that would cover another.
    settle(returning.filter((n) => n.inside()), false);
    if (fit) cy.fit(undefined, 40);
    afterLayout();
    return;
  }
  begin();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    settle(returning.filter((n) => n.inside()), false);
    settle(placedNodes().difference(settled), true);
    if (fit) cy.fit(undefined, 40);
    fixed.unlock();
    afterLayout();
    end();
  };
  const animate = !fresh && !matchMedia("(prefers-reduced-motion: reduce)").matches;
  const options = {
    name: "fcose",
    quality: "proof",
    randomize: fresh && fixed.empty(),
    animate,
    animationDuration: 450,
    fit,
    // Nodes already drawn keep their places: only the new ones are laid out among them.
    fixedNodeConstraint: fixed.nonempty() ? fixed.map((n) => ({ nodeId: n.id(), position: { ...n.position() } })) : undefined,
    padding: 40,
    nodeDimensionsIncludeLabels: true,
    uniformNodeDimensions: false,
    packComponents: false,
    nodeRepulsion: () => 12000,
    // Bundles of relations between one pair get room for their curves and labels.
    idealEdgeLength: (e: cytoscape.EdgeSingular) => (e.hasClass("more-edge") ? 45 : 95 + 25 * (e.parallelEdges().length - 1)),
    edgeElasticity: () => 0.4,
    nodeSeparation: 90,
    gravity: 0.3,
    numIter: 3000,
    tile: true,
  };
  // Locked, the layout cannot move them even where its constraints fall short.
  fixed.lock();
  const l = cy.layout(options as unknown as cytoscape.LayoutOptions);
  layoutRun = l;
  l.one("layoutstop", finish);
  setTimeout(finish, animate ? 2_500 : 1_500);
  l.run();
}

/**
 * Places the new neighbours of a hub that join nothing else drawn (a party's members, say) in rings
 * around it, sorted by kind and name, each ring as full as its labels allow: at least six of them make a
 * ring. The hub is one already placed (in fixed), or, when nothing is, the node with the most such
 * neighbours. Returns the nodes placed.
 */
function ringLeaves(fixed: cytoscape.NodeCollection): cytoscape.NodeCollection {
  let placedNow = cy.collection();
  const free = placedNodes().not(".more").difference(fixed) as cytoscape.NodeCollection;
  const leavesOf = (hub: cytoscape.NodeSingular) =>
    hub.neighborhood("node").not(".more, .group").intersection(free).filter((n) => {
      const others = n.neighborhood("node").not(".more, .group");
      return others.length === 1 && others.same(hub);
    });
  let hubs = fixed.filter((n) => !n.hasClass("more")) as cytoscape.NodeCollection;
  if (hubs.empty()) {
    const best = free.max((n) => leavesOf(n as cytoscape.NodeSingular).length).ele as unknown as cytoscape.NodeSingular | undefined;
    if (!best || leavesOf(best).length < 6) return placedNow;
    best.position({ x: 0, y: 0 });
    placedNow = placedNow.union(best);
    hubs = cy.collection().union(best) as cytoscape.NodeCollection;
  }
  hubs.forEach((hub) => {
    const leaves = leavesOf(hub).difference(placedNow);
    if (leaves.length < 6) return;
    const order = ["party", "organisation", "seat", "actor"];
    const sorted = leaves.sort((a, b) =>
      order.indexOf(String(a.data("kind"))) - order.indexOf(String(b.data("kind"))) || String(a.data("label")).localeCompare(String(b.data("label"))));
    const c = hub.position();
    const step = 150; // room for a label on a ring
    let r = 130 + hub.width() / 2;
    let i = 0;
    let ring = 0;
    while (i < sorted.length) {
      const capacity = Math.max(6, Math.floor((2 * Math.PI * r) / step));
      const n = Math.min(capacity, sorted.length - i);
      const offset = ring % 2 ? Math.PI / n : 0;
      for (let k = 0; k < n; k++, i++) {
        const a = offset + (2 * Math.PI * k) / n - Math.PI / 2;
        sorted[i].position({ x: c.x + r * Math.cos(a), y: c.y + r * Math.sin(a) });
      }
      ring++;
      r += 85;
    }
    placedNow = placedNow.union(sorted);
  });
  return placedNow;
}

/**
 * Moves each of the nodes free that overlaps another node (with labels, their labels too) to the nearest
 * spot around it where it overlaps none: nodes that kept their places leave the layout less room.
 */
function settle(free: cytoscape.NodeCollection, labels: boolean): void {
  const pad = labels ? 8 : 2;
  type Box = { x1: number; y1: number; x2: number; y2: number };
  const boxOf = (n: cytoscape.NodeSingular): Box => {
    const b = n.boundingBox({ includeLabels: labels });
    return { x1: b.x1 - pad, y1: b.y1 - pad, x2: b.x2 + pad, y2: b.y2 + pad };
  };
  const cut = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  const boxes = new Map(placedNodes().map((n) => [n.id(), boxOf(n)]));
  free.forEach((n) => {
    const own = boxes.get(n.id())!;
    const clear = (b: Box) => ![...boxes].some(([id, o]) => id !== n.id() && cut(b, o));
    if (clear(own)) return;
    const p = n.position();
    for (let k = 1; k <= 400; k++) {
      const angle = k * 2.39996;
      const r = 20 + 9 * k;
      const dx = r * Math.cos(angle);
      const dy = r * Math.sin(angle);
      const b = { x1: own.x1 + dx, y1: own.y1 + dy, x2: own.x2 + dx, y2: own.y2 + dy };
      if (clear(b)) {
        n.position({ x: p.x + dx, y: p.y + dy });
        boxes.set(n.id(), b);
        return;
      }
    }
  });
}

/** After a layout: the positions into the address, and labels for the zoom the fit chose. */
function afterLayout(): void {
  keepPositions();
  levelOfDetail();
}

// ---------------------------------------------------------------------------------------------------------
// The address: every change of the view is written to it, so that a link reopens the same view.

/**
 * Writes the view to the address. With push, a change to the address makes a new history entry, so that
 * Back and Forward walk through the views (steps, filters, Clear, the review view); without, the entry is
 * updated in place (what the side panel shows, a slider still moving).
 */
function saveView(push = false): void {
  const q = formatView(view);
  if (push && q !== location.search.replace(/^\?/, "")) {
    depth++;
    ahead = 0;
    history.pushState({ depth }, "", q ? `?${q}` : location.pathname);
  } else history.replaceState({ depth }, "", q ? `?${q}` : location.pathname);
  showUndo();
}


/** Back and Forward: the view the address holds, rebuilt when its steps or filters differ. */
window.addEventListener("popstate", (ev) => {
  const was = depth;
  depth = Number((ev.state as { depth?: number } | null)?.depth ?? 0);
  ahead = Math.max(0, ahead + was - depth);
  const next = parseView(location.search);
  const graphOf = (v: View) => formatView({ ...v, selected: "", review: null, pos: "", size: "", range: null, compare: null, pins: [], groups: [], notes: new Map(), saved: "" });
  const sameGraph = graphBuilt && graphOf(next) === graphOf(view);
  Object.assign(view, next);
  if (view.saved !== savedView?.name) savedView = story.find((v) => v.name === view.saved) ?? null;
  void showStory();
  showUndo();
  showFilters();
  if (view.review !== null) {
    void openReview(view.review, false);
    return;
  }
  showMode();
  cy.resize();
  if (sameGraph) {
    // The same entities: the groups and places the address holds.
    applyGroups();
    const at = decodePositions(view.pos, placedNodes().map((n) => n.id()));
    if (at) cy.batch(() => placedNodes().forEach((n) => void n.position(at.get(n.id()) ?? n.position())));
    void showSelected();
    return;
  }
  graphBuilt = true;
  byId("empty").hidden = view.steps.length > 0;
  void rebuild();
});

/** Whether two steps ask the same thing. */
function sameStep(a: Step, b: Step): boolean {
  if (a.op === "path") return b.op === "path" && a.from === b.from && a.to === b.to;
  if (a.op === "expand") return b.op === "expand" && a.name === b.name && a.type === b.type && a.dir === b.dir;
  return b.op === a.op && b.name === a.name;
}

/** What a step does, for messages. */
function stepText(step: Step): string {
  if (step.op === "open") return `open ${step.name}`;
  if (step.op === "hide") return `hide ${step.name}`;
  if (step.op === "expand") return `expand ${step.name} by ${step.type}`;
  return `find paths from ${step.from} to ${step.to}`;
}

function shownSummary(): string {
  const n = realNodes().length;
  const e = realEdges().length;
  const more = cy.nodes(".more").reduce((sum, m) => sum + Number(m.data("leftOut") ?? 0), 0);
  const when = view.asOf ? ` as of ${view.asOf} (undated relations ${view.undated ? "included" : "left out"})` : "";
  const undated = realEdges().filter((x) => Boolean(x.data("undated"))).length;
  const dotted = undated ? `, ${undated} of them undated (dotted)` : "";
  const rest = more ? `; ${more} more ${more === 1 ? "entity" : "entities"} not shown yet (click a “+N more” handle)` : "";
  const kept = view.range || view.compare ? ` (${realEdges().not(".outtime").length} held ${view.compare ? `in ${view.compare[0]} or ${view.compare[1]}` : `in ${view.range![0]}–${view.range![1]}`})` : "";
  return `${n} entities and ${e} relations shown${kept}${when}${dotted}${rest}.`;
}

async function runStep(step: Step): Promise<void> {
  if (step.op === "open") await expand(step.name);
  else if (step.op === "hide") hide(step.name);
  else if (step.op === "expand") await expandBy(step.name, step.type, step.dir);
  else await findPaths(step.from, step.to);
}

/** Takes an entity out of the view: its node, its edges and its "+N more" handle. */
function hide(name: string): void {
  const n = cy.getElementById(name);
  n.union(n.connectedEdges()).union(cy.getElementById(`more:${name}`)).remove();
}

/** Hides an entity, a step of its own: Undo (or Back) shows it again. */
async function hideEntity(name: string): Promise<void> {
  if (view.selected === name) view.selected = "";
  await act({ op: "hide", name }, `hide ${label(name)}`);
  await showSelected();
}

/** Shows the entities hidden again: the view without its hide steps. */
function showHidden(): void {
  view.steps = view.steps.filter((s) => s.op !== "hide");
  saveView(true);
  void rebuild(true);
}

let rebuildGeneration = 0;
/** Set while rebuild replays the view's steps: the paths keep the route the view picked. */
let replaying = false;

/**
 * Where nodes were last drawn, by id, in this page: an entity a filter took out comes back where it was
 * when the filter lets it in again.
 */
const remembered = new Map<string, Position>();

/** Where every node is drawn, by id. */
function positions(): Map<string, Position> {
  return new Map(placedNodes().map((n) => [n.id(), { ...n.position() }]));
}

/** A layout asked for (Rearrange, a new group) makes a history entry of its own: Undo puts nodes back. */
let pushPositions = false;
/** Writes where the nodes are drawn into the view (and the address, in place). */
function keepPositions(): void {
  view.pos = encodePositions(positions());
  saveView(pushPositions);
  pushPositions = false;
}
cy.on("dragfree", "node", () => keepPositions());

/**
 * Rebuilds the graph from the view's steps with the current filters, and reopens the side panel. Nodes
 * keep their places: those drawn before (kept, on a filter change), else those the view's address holds
 * when they are the nodes it was made for (a link, Back); only the others are laid out.
 */
async function rebuild(keep = false): Promise<void> {
  const generation = ++rebuildGeneration;
  const before = keep ? positions() : null;
  if (before) for (const [id, p] of before) remembered.set(id, p);
  cy.elements().remove();
  paths = null;
  placed = 0;
  begin();
  replaying = true;
  try {
    for (const step of view.steps) {
      if (generation !== rebuildGeneration) return;
      try {
        await runStep(step);
      } catch (e) {
        const what = stepText(step);
        if (failed(what, e, () => void rebuild())) return;
      }
    }
    if (generation !== rebuildGeneration) return;
    fillPathForm();
    applyGroups();
    highlightPaths();
    const at = before ? remembered : decodePositions(view.pos, placedNodes().map((n) => n.id()));
    let fixed = cy.collection();
    if (at)
      cy.batch(() => {
        for (const [id, p] of at) {
          const n = cy.getElementById(id);
          if (n.nonempty()) {
            n.position(p);
            fixed = fixed.union(n);
          }
        }
      });
    // A filter change keeps the viewport too; a link or Back fits the picture to the window.
    relayout(fixed.empty(), fixed, before === null, before ? fixed.filter((n) => !before.has(n.id())) : cy.collection());
    await showSelected();
    if (!statusEl.classList.contains("error")) setStatus(view.steps.length ? shownSummary() : "");
  } finally {
    replaying = false;
    end();
  }
}

/** Runs a new step: records it in the view (and the address), then merges its answer and lays out again. */
async function act(step: Step, what: string): Promise<boolean> {
  const fresh = cy.nodes().empty();
  const drawn = placedNodes();
  const shown = cy.elements().length;
  try {
    await runStep(step);
  } catch (e) {
    failed(what, e, () => void act(step, what));
    return false;
  }
  // A step asked again that brought nothing new (a node clicked twice, the same paths) is not recorded:
  // the address would replay it for nothing. One that paged in more neighbours is.
  if (cy.elements().length !== shown || !view.steps.some((s) => sameStep(s, step))) view.steps.push(step);
  highlightPaths();
  // Hiding moves nothing else.
  // The new entry first: the layout then writes where the nodes went into it.
  saveView(true);
  if (step.op !== "hide") relayout(fresh, drawn);
  else keepPositions();
  setStatus(shownSummary());
  return true;
}

async function openEntity(name: string): Promise<void> {
  const ok = await act({ op: "open", name }, `open ${name}`);
  if (!ok) return;
  // The name may have been a display name; the centre's resource name is what the graph uses.
  const id = cy.nodes(".expanded").filter((n) => n.id() === name || n.data("label") === name).first();
  await select(id.nonempty() ? id.id() : name);
}

async function showMore(entity: string): Promise<void> {
  await act({ op: "open", name: entity }, `load more around ${label(entity)}`);
}

async function askPaths(from: string, to: string): Promise<void> {
  const ok = await act({ op: "path", from, to }, `find paths from ${from} to ${to}`);
  if (ok) await select("paths");
}

// ---------------------------------------------------------------------------------------------------------
// Curation: pins keep entities where they are, groups gather entities in a named box (shift-click marks
// them), notes annotate entities and relations. All of them are in the address and in saved views.

function togglePin(name: string): void {
  view.pins = view.pins.includes(name) ? view.pins.filter((p) => p !== name) : [...view.pins, name];
  saveView(true);
  decorate();
  void showSelected();
}

/** Lays out again every entity that is not pinned: a fresh start, the pinned ones where they are. */
function rearrange(): void {
  pushPositions = true;
  relayout(true, cy.collection(), true);
}
byId("rearrange").addEventListener("click", rearrange);

const groupButton = byId<HTMLButtonElement>("group");
function showGroupButton(): void {
  const n = cy.nodes(".marked").length;
  groupButton.hidden = n < 2;
  groupButton.textContent = `Group ${n}`;
}
groupButton.addEventListener("click", () => {
  const members = cy.nodes(".marked").map((n) => n.id());
  if (members.length < 2) return;
  const label = (prompt("A name for the group", `Group ${view.groups.length + 1}`) ?? "").trim();
  if (!label) return;
  cy.nodes(".marked").removeClass("marked");
  showGroupButton();
  // An entity is in one group at most: the new group takes it from an older one.
  view.groups = view.groups.map((g) => ({ ...g, members: g.members.filter((m) => !members.includes(m)) })).filter((g) => g.members.length > 0);
  view.groups.push({ label, members });
  gather(members);
  applyGroups();
  pushPositions = true;
  keepPositions();
  void select(`group:${view.groups.length - 1}`);
});

/** Brings a new group's members together, around where they were on average, off the other entities. */
function gather(members: string[]): void {
  const nodes = placedNodes().filter((n) => members.includes(n.id()));
  if (nodes.empty()) return;
  const c = nodes.reduce((acc, n: cytoscape.NodeSingular) => ({ x: acc.x + n.position().x / nodes.length, y: acc.y + n.position().y / nodes.length }), { x: 0, y: 0 });
  const cols = Math.ceil(Math.sqrt(nodes.length));
  nodes.forEach((n, i) => {
    n.position({ x: c.x + ((i % cols) - (cols - 1) / 2) * 140, y: c.y + (Math.floor(i / cols) - (cols - 1) / 2) * 90 });
  });
  const others = placedNodes().difference(nodes) as cytoscape.NodeCollection;
  // The others that the group now covers move out of its way.
  const box = nodes.boundingBox({ includeLabels: true });
  const inside = others.filter((n) => {
    const p = n.position();
    return p.x > box.x1 - 30 && p.x < box.x2 + 30 && p.y > box.y1 - 30 && p.y < box.y2 + 30;
  });
  inside.forEach((n) => {
    const p = n.position();
    const dx = p.x - c.x || 1;
    const dy = p.y - c.y || 1;
    const k = Math.max((box.w / 2 + 80) / Math.abs(dx), (box.h / 2 + 80) / Math.abs(dy));
    n.position({ x: c.x + dx * Math.min(k, 50), y: c.y + dy * Math.min(k, 50) });
  });
}

/** Draws the view's groups: a box (a compound node) per group round its members that are drawn. */
function applyGroups(): void {
  cy.batch(() => {
    placedNodes().filter((n) => n.isChild()).move({ parent: null });
    cy.nodes(".group").remove();
    view.groups.forEach((g, i) => {
      const members = g.members.map((m) => cy.getElementById(m)).filter((n) => n.nonempty() && !n.hasClass("more"));
      if (!members.length) return;
      cy.add({ group: "nodes", data: { id: `group:${i}`, label: g.label, size: 30 }, classes: "group" });
      for (const m of members) (m as cytoscape.NodeSingular).move({ parent: `group:${i}` });
    });
  });
}

function renderGroup(id: string): void {
  const i = Number(id.slice("group:".length));
  const g = view.groups[i];
  if (!g) {
    panel(h("p", { class: "note" }, "This group is no longer in the view."));
    return;
  }
  panel(
    h("div", { "data-panel": "group" },
      h("span", { class: "kindtag", style: "background:#475569" }, "group"),
      h("h3", null, g.label),
      h("p", { class: "sub" }, `${g.members.length} entities, drawn in one box; shift-click entities to mark them for a new group.`),
      h("ul", { class: "bundle-list" }, g.members.map((m) => h("li", null, entityButton(m, label(m))))),
      h("div", { class: "actions" },
        h("button", { type: "button", "data-action": "ungroup", onclick: () => {
          view.groups = view.groups.filter((_, k) => k !== i);
          view.selected = "";
          applyGroups();
          saveView(true);
          void showSelected();
        } }, "Ungroup"),
      ),
    ),
  );
}

/** The note on an entity or relation: read, written, deleted. */
function noteEditor(target: string): HTMLElement {
  const text = view.notes.get(target) ?? "";
  const area = h("textarea", { id: "note-text", rows: 3, maxlength: 2000, placeholder: "A note on this, kept with the view and its link" });
  area.value = text;
  const save = (value: string) => {
    if (value) view.notes.set(target, value);
    else view.notes.delete(target);
    saveView(true);
    decorate();
    void showSelected();
  };
  return h("details", { class: "note-editor", open: text ? true : undefined, "data-note": target },
    h("summary", null, text ? "Note" : "Add a note"),
    h("label", { class: "sr-only", for: "note-text" }, "Note"),
    area,
    h("div", { class: "actions" },
      h("button", { type: "button", "data-action": "save-note", onclick: () => save(area.value.trim()) }, "Save note"),
      text ? h("button", { type: "button", "data-action": "delete-note", onclick: () => save("") }, "Delete note") : null,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Saved views (ViewService): the view kept under a title, with its notes, for a colleague to open exactly
// (`?saved=views/<id>`); views of one story are stepped through in order.

/** The saved view this one came from, as last read: its etag guards "Save over". */
let savedView: SavedView | null = null;
/** The views of the story the saved view is in, in their order. */
let story: SavedView[] = [];

/** The view's address without what a saved view keeps apart (its notes) or names (itself). */
function savedQuery(): string {
  return formatView({ ...view, notes: new Map(), saved: "" });
}

/** Opens a saved view: its steps, filters and places, and its notes. False when it cannot be read. */
async function openSaved(name: string, push = true): Promise<boolean> {
  let got: SavedView | undefined;
  try {
    got = (await call(`Opening the saved view ${name}`, () => viewClient.getView({ name }))).view;
  } catch (e) {
    failed(`open the saved view ${name}`, e);
    return false;
  }
  if (!got) return false;
  savedView = got;
  Object.assign(view, parseView(got.query), { notes: new Map(got.notes.map((n) => [n.target, n.text])), saved: got.name, review: null });
  saveView(push);
  showFilters();
  graphBuilt = true;
  byId("empty").hidden = view.steps.length > 0;
  await rebuild();
  await showStory();
  setStatus(`The saved view “${got.title}”${got.createPrincipal ? `, saved by ${got.createPrincipal}` : ""}. ${shownSummary()}`);
  return true;
}

/** The story bar: where the saved view stands in its story, with the previous and next views. */
async function showStory(): Promise<void> {
  const bar = byId("story");
  if (!savedView?.story || savedView.name !== view.saved) {
    bar.hidden = true;
    return;
  }
  if (!story.some((v) => v.name === savedView!.name)) {
    try {
      story = (await viewClient.listViews({ story: savedView.story, pageSize: 500 })).views;
    } catch {
      story = [savedView];
    }
  }
  const at = story.findIndex((v) => v.name === savedView!.name);
  bar.hidden = false;
  byId("story-at").textContent = `${savedView.story}: ${at + 1} of ${story.length} — ${savedView.title}`;
  byId<HTMLButtonElement>("story-prev").disabled = at <= 0;
  byId<HTMLButtonElement>("story-next").disabled = at < 0 || at >= story.length - 1;
}
const storyStep = (by: number) => {
  const at = story.findIndex((v) => v.name === savedView?.name);
  const next = story[at + by];
  if (next) void openSaved(next.name);
};
byId("story-prev").addEventListener("click", () => storyStep(-1));
byId("story-next").addEventListener("click", () => storyStep(1));

/** The Views menu: the views saved, each a button that opens it. */
byId("views-menu").addEventListener("toggle", async () => {
  if (!(byId("views-menu") as HTMLDetailsElement).open) return;
  const list = byId("views-list");
  list.replaceChildren(h("p", { class: "muted small" }, "Reading the views saved…"));
  try {
    const resp = await viewClient.listViews({ pageSize: 100 });
    list.replaceChildren(
      ...(resp.views.length
        ? resp.views.map((v) =>
            h("button", { type: "button", "data-view": v.name, title: v.description || v.title, onclick: () => {
              (byId("views-menu") as HTMLDetailsElement).open = false;
              void openSaved(v.name);
            } }, v.story ? `${v.title} (${v.story} ${v.storyOrder})` : v.title))
        : [h("p", { class: "muted small" }, "No view saved yet.")]),
    );
  } catch (e) {
    list.replaceChildren(h("p", { class: "muted small" }, `Could not list the views: ${describeError(e)}`));
  }
});

/** The form that saves the view: a new saved view, or over the one it came from. */
function renderSaveForm(): void {
  const field = (id: string, text: string, input: HTMLElement) => h("div", { class: "field" }, h("label", { for: id }, text), input);
  const title = h("input", { id: "view-title", type: "text", maxlength: 200, required: true, value: savedView?.name === view.saved ? savedView.title : "" });
  const desc = h("textarea", { id: "view-description", rows: 3, maxlength: 4000 });
  desc.value = savedView?.name === view.saved ? savedView.description : "";
  const storyInput = h("input", { id: "view-story", type: "text", maxlength: 100, pattern: "[a-z0-9\\-]*", value: savedView?.name === view.saved ? savedView.story : "" });
  const order = h("input", { id: "view-order", type: "number", step: 1, value: String(savedView?.name === view.saved ? savedView.storyOrder : 0) });
  const key = h("input", { id: "view-key", type: "password", autocomplete: "off" });
  const out = h("p", { class: "muted", "aria-live": "polite" });
  const fields = () => ({
    title: title.value.trim(),
    description: desc.value.trim(),
    query: savedQuery(),
    notes: [...view.notes].map(([target, text]) => ({ target, text })),
    story: storyInput.value.trim(),
    storyOrder: Number(order.value) || 0,
  });
  const done = async (v: SavedView | undefined, what: string) => {
    if (!v) return;
    savedView = v;
    story = [];
    view.saved = v.name;
    saveView();
    const link = `${location.origin}${location.pathname}?saved=${v.name}`;
    out.replaceChildren(`${what} as ${v.name}. Its link: `, h("a", { href: link, "data-link": "saved" }, link));
    await showStory();
  };
  const save = async (over: boolean) => {
    if (key.value.trim()) setEditorKey(key.value.trim());
    try {
      if (over && savedView) {
        const resp = await call("Saving the view", () => viewClient.updateView({ view: { ...fields(), name: savedView!.name }, etag: savedView!.etag }));
        await done(resp.view, "Saved over");
      } else {
        const resp = await call("Saving the view", () => viewClient.createView({ view: fields() }));
        await done(resp.view, "Saved");
      }
    } catch (e) {
      const ce = ConnectError.from(e);
      out.textContent = ce.code === Code.Unauthenticated || ce.code === Code.PermissionDenied
        ? "Saving a view needs an editor's key: give one above."
        : ce.code === Code.Aborted
          ? "Someone changed this view since it was opened: open it again, or save yours as a new view."
          : `Could not save: ${describeError(e)}`;
    }
  };
  panel(
    h("form", { "data-panel": "save-view", class: "save-view", onsubmit: (ev: Event) => { ev.preventDefault(); void save(false); } },
      h("h3", null, "Save this view"),
      h("p", { class: "sub" }, "Its entities, filters, places, route and notes, for anyone who reads the graph to open as it is now."),
      field("view-title", "Title", title),
      field("view-description", "What to look at", desc),
      field("view-story", "Story (views of one story are stepped through in order)", storyInput),
      field("view-order", "Place in the story", order),
      editorKey() ? null : field("view-key", "Editor's key (kept for this tab only)", key),
      h("div", { class: "actions" },
        h("button", { type: "submit", class: "primary", id: "view-create" }, "Save as a new view"),
        savedView && savedView.name === view.saved
          ? h("button", { type: "button", id: "view-update", onclick: () => void save(true) }, `Save over “${savedView.title}”`)
          : null,
      ),
      out,
    ),
  );
  title.focus();
}
byId("save-view").addEventListener("click", () => {
  (byId("views-menu") as HTMLDetailsElement).open = false;
  renderSaveForm();
});

// ---------------------------------------------------------------------------------------------------------
// The side panel: an entity, a relation with all its claims, or the paths found.

const details = byId("details");

/** What the panel showed last: another selection starts at its top, not where the last one was read. */
let panelOf = "";
function panel(...children: (Node | string | null | false)[]): void {
  details.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== false));
  if (panelOf !== view.selected) details.scrollTop = 0;
  panelOf = view.selected;
}

async function select(name: string): Promise<void> {
  view.selected = name;
  saveView();
  await showSelected();
}

async function showSelected(): Promise<void> {
  const sel = view.selected;
  cy.elements().unselect();
  if (sel === "paths") {
    if (paths) {
      const shown = paths;
      shown.names ??= await speakerNames(shown.resp.entities, pathRelations(shown.resp.paths));
      if (view.selected === "paths" && paths === shown) renderPaths(shown);
    }
    highlightPaths();
    return;
  }
  highlightPaths();
  if (!sel) {
    panel(h("div", { class: "placeholder" }, "Click a node for the entity, an edge for its claims; find paths to list each hop with its evidence."));
    return;
  }
  cy.getElementById(sel).select();
  if (isBundle(sel)) {
    renderBundle(sel);
    return;
  }
  if (sel.startsWith("group:")) {
    renderGroup(sel);
    return;
  }
  try {
    if (sel.startsWith("relations/")) {
      const resp = await call("Loading the claims", () => client.getRelation({ name: relationOf(sel) }));
      const names = await speakerNames(resp.entities, resp.relation ? [resp.relation] : []);
      if (view.selected === sel) renderRelation(resp, names);
    } else {
      const resp = await call(`Loading ${label(sel)}`, () => client.getEntity({ name: sel }));
      if (view.selected === sel) renderEntity(resp);
    }
  } catch (e) {
    failed(`load ${label(sel)}`, e, () => void showSelected());
  }
}

function kindTag(kind: ReturnType<typeof kindKey>): HTMLElement {
  return h("span", { class: "kindtag", style: `background:${kinds[kind].ink}` }, kinds[kind].label);
}

function entityButton(name: string, text: string): HTMLElement {
  return h("button", { type: "button", class: "entity-link", title: name, onclick: () => void focusEntity(name) }, text);
}

/** Selects an entity: centres on it if shown, and opens it (adds it with its neighbours) if not. */
async function focusEntity(name: string): Promise<void> {
  const n = cy.getElementById(name);
  if (n.nonempty()) {
    cy.animate({ center: { eles: n }, duration: 250 });
    await select(name);
  } else {
    await openEntity(name);
  }
}

/** A note for a selection that the current filters leave out of the graph. */
function notDrawn(name: string): HTMLElement | null {
  if (cy.getElementById(name).nonempty()) return null;
  return h("p", { class: "note" }, "Not drawn: it does not count as a link with the current filters" + (view.asOf ? ` (as of ${view.asOf})` : "") + ".");
}

function renderEntity(resp: GetEntityResponse): void {
  const e = resp.entity!;
  const kind = kindKey(e.kind);
  const more = cy.getElementById(`more:${e.name}`);
  const rows: HTMLElement[] = [];
  const langs = new Map(e.otherNames.filter((o) => o.lang).map((o) => [o.name, o.lang]));
  if (e.aliases.length)
    rows.push(h("dt", null, "Also"), h("dd", null, e.aliases.map((a) => (langs.has(a) ? `${a} (${langs.get(a)})` : a)).join(", ")));
  if (e.validFrom || e.validTo) rows.push(h("dt", null, "Existed"), h("dd", null, timeLabel({ validFrom: e.validFrom, validTo: e.validTo, date: "" })));
  if (e.datesFrom) rows.push(h("dt", null, "Dates from"), h("dd", { class: "dates-from" }, e.datesFrom));
  if (e.birthDate) rows.push(h("dt", null, "Born"), h("dd", null, e.birthDate));
  if (e.deathDate) rows.push(h("dt", null, "Died"), h("dd", null, e.deathDate));
  if (e.gender) rows.push(h("dt", null, "Gender"), h("dd", null, e.gender));
  const ids = e.allIdentifiers.length ? e.allIdentifiers : Object.entries(e.identifiers).map(([scheme, value]) => ({ scheme, value }));
  for (const id of ids) rows.push(h("dt", null, id.scheme), h("dd", null, id.value));
  for (const c of e.contactDetails) rows.push(h("dt", null, c.type), h("dd", null, [c.value, c.note].filter(Boolean).join(" ")));
  if (e.links.length)
    rows.push(h("dt", null, "Links"), h("dd", null, e.links.flatMap((l, i) => [i ? ", " : "", safeLink(l.url, l.note || l.url)])));
  const shown = cy.getElementById(e.name);
  panel(
    h("div", { "data-panel": "entity" },
      kindTag(kind),
      h("h3", null, e.displayName),
      h("p", { class: "sub" }, e.name),
      notDrawn(e.name),
      e.description ? h("p", { class: "desc" }, e.description) : null,
      rows.length ? h("dl", null, rows) : null,
      h("div", { class: "actions" },
        shown.empty() || !shown.hasClass("expanded")
          ? h("button", { type: "button", class: "primary", onclick: () => void openEntity(e.name) }, "Show neighbours")
          : null,
        more.nonempty()
          ? h("button", { type: "button", title: String(more.data("title")), onclick: () => void showMore(e.name) },
              `Show ${more.data("leftOut")} more ${Number(more.data("leftOut")) === 1 ? "neighbour" : "neighbours"}`)
          : null,
        h("button", { type: "button", onclick: () => setPathEnd("from", e) }, "Path from here"),
        h("button", { type: "button", onclick: () => setPathEnd("to", e) }, "Path to here"),
        shown.nonempty()
          ? h("button", { type: "button", "data-action": "hide", title: "Take it out of the view (Delete); Undo shows it again", onclick: () => void hideEntity(e.name) }, "Hide")
          : null,
        shown.nonempty()
          ? h("button", { type: "button", "data-action": "pin", "aria-pressed": String(view.pins.includes(e.name)),
              title: "Keep it where it is: no layout moves it (Rearrange lays out the others)", onclick: () => togglePin(e.name) },
              view.pins.includes(e.name) ? "Unpin" : "Pin")
          : null,
      ),
      noteEditor(e.name),
      h("h2", null, "Relations, whatever the filters (click one to draw them)"),
      h("ul", { class: "counts" },
        resp.relationCounts.map((c) => {
          const key = RelationType[c.type];
          const dir: Direction = c.undirected ? "any" : c.outgoing ? "out" : "in";
          const text = `${c.undirected ? "—" : c.outgoing ? "→" : "←"} ${typeLabel(c.type)}`;
          return h("li", null,
            h("button", { type: "button", class: "link", "data-expand": `${key},${dir}`,
              title: `Draw ${label(e.name)}'s ${typeLabel(c.type)} relations${c.undirected ? "" : c.outgoing ? " from it" : " to it"} and who they join`,
              onclick: () => void act({ op: "expand", name: e.name, type: key, dir }, `draw the ${typeLabel(c.type)} relations of ${label(e.name)}`) }, text),
            h("span", { class: "conf" }, String(c.count)),
          );
        }),
      ),
    ),
  );
}

/** The relations between two entities that one edge counts: each opens its claims. */
function renderBundle(id: string): void {
  // The relations the bundle counts (rebundle): those the time range keeps.
  const ids: string[] = cy.getElementById(id).data("members") ?? [];
  const members = realEdges().filter((e) => ids.includes(e.id()));
  if (members.length < 2) {
    panel(h("p", { class: "note" }, "These relations are no longer drawn together with the current filters."));
    return;
  }
  const [a, b] = id.slice("bundle:".length).split("|");
  const kept = openBundles.has(id);
  panel(
    h("div", { "data-panel": "bundle" },
      h("span", { class: "kindtag", style: "background:#475569" }, "relations"),
      h("h3", null, `${label(a)} — ${label(b)}`),
      h("p", { class: "sub" }, `${members.length} relations join them; each is drawn on its own while this is selected.`),
      h("div", { class: "actions" },
        h("button", { type: "button", "data-action": "keep-open", onclick: () => {
          if (kept) openBundles.delete(id);
          else openBundles.add(id);
          decorate();
          renderBundle(id);
        } }, kept ? "Draw them as one again" : "Keep them drawn apart"),
      ),
      h("ul", { class: "bundle-list" },
        members
          .sort((x, y) => String(x.data("label")).localeCompare(String(y.data("label"))))
          .map((e) =>
            h("li", { "data-relation": e.id() },
              h("button", { type: "button", class: "link", title: String(e.data("title")), onclick: () => void selectRelation(e.id()) },
                `${e.data("symmetric") ? "—" : (e as cytoscape.EdgeSingular).source().id() === a ? "→" : "←"} ${e.data("label")}`),
              e.hasClass("disputed") ? h("span", { class: "badge DENIED" }, "disputed") : null,
              h("span", { class: "muted" }, ` · ${e.data("verdict") || `${e.data("claimCount")} claims`}`),
            ),
          ),
      ),
    ),
  );
}

function claimItem(c: Relation["claims"][number], names: Map<string, string>): HTMLElement {
  const st = statusKey(c.status);
  const src = c.source;
  const meta: (Node | string)[] = [];
  if (src) {
    meta.push("— ", safeLink(src.url, src.title || src.name));
    const where = [src.outlet, src.published].filter(Boolean).join(", ");
    if (where) meta.push(` (${where})`);
  }
  if (c.saidBy) meta.push(" · said by ", entityButton(c.saidBy, names.get(c.saidBy) ?? c.saidBy));
  return h("li", { class: "claim", "data-status": st },
    h("span", { class: `badge ${st}` }, st.toLowerCase()), " ",
    h("span", { class: "conf", title: "confidence" }, `confidence ${c.confidence.toFixed(2)}`),
    c.excerpt ? h("blockquote", null, `“${c.excerpt}”`) : c.recordId ? h("p", { class: "record" }, `record ${c.recordId}`) : null,
    h("div", { class: "meta" }, meta),
  );
}

function relationSentence(r: Relation, names: Map<string, string>): (Node | string)[] {
  const from = names.get(r.from) ?? r.from;
  const to = names.get(r.to) ?? r.to;
  return [entityButton(r.from, from), ` ${r.symmetric ? "—" : ""}${typeLabel(r.type)}${r.symmetric ? "—" : ""} `, entityButton(r.to, to)];
}

/**
 * Display names for the entities claims name as their speakers: from the answer, else from the graph, else
 * asked for (a speaker need not be shown, nor be an end of the relation).
 */
async function speakerNames(known: Entity[], relations: Relation[]): Promise<Map<string, string>> {
  const names = new Map(known.map((e) => [e.name, e.displayName]));
  const missing = new Set<string>();
  for (const r of relations) {
    for (const c of r.claims) {
      if (!c.saidBy || names.has(c.saidBy)) continue;
      const n = cy.getElementById(c.saidBy);
      if (n.nonempty()) names.set(c.saidBy, String(n.data("label")));
      else missing.add(c.saidBy);
    }
  }
  await Promise.all(
    [...missing].map(async (name) => {
      try {
        const resp = await call(`Loading ${name}`, () => client.getEntity({ name }));
        if (resp.entity) names.set(name, resp.entity.displayName);
      } catch {
        // The resource name stands in for the display name.
      }
    }),
  );
  return names;
}

/** The evidence in words: "3 of 4 claims deny it", and how many sources on each side. */
function verdictText(v: Verdict | undefined, claims: number): string {
  if (!v) return `${claims} claim${claims === 1 ? "" : "s"}`;
  const src = (n: number) => `${n} source${n === 1 ? "" : "s"}`;
  const sides =
    v.denyingClaims === 0
      ? v.supportingSources ? ` (from ${src(v.supportingSources)})` : ""
      : v.supportingClaims === 0
        ? ` (from ${src(v.denyingSources)})`
        : ` (${src(v.supportingSources)} for, ${src(v.denyingSources)} against)`;
  return `${v.summary}${sides}`;
}

function renderRelation(resp: GetRelationResponse, names: Map<string, string>): void {
  const r = resp.relation!;
  const rows: HTMLElement[] = [];
  if (r.role) rows.push(h("dt", null, "Role"), h("dd", null, r.role));
  if (r.undated) {
    rows.push(h("dt", null, "When"), h("dd", { class: "undated" }, "no date: the sources do not say when it held"));
  } else {
    rows.push(h("dt", null, r.date ? "Date" : "Valid"), h("dd", null, timeLabel(r)));
  }
  if (r.via) rows.push(h("dt", null, "Via"), h("dd", null, entityButton(r.via, names.get(r.via) ?? r.via)));
  const denied = (r.verdict?.denyingClaims ?? 0) > 0 || r.claims.some((c) => c.status === ClaimStatus.DENIED);
  rows.push(h("dt", null, "Evidence"), h("dd", { class: denied ? "verdict disputed" : "verdict" }, verdictText(r.verdict, r.claims.length)));
  panel(
    h("div", { "data-panel": "relation" },
      h("span", { class: "kindtag", style: `background:${denied ? disputedInk : families[typeFamily(r.type)].color}` },
        denied ? "disputed relation" : "relation"),
      r.undated ? h("span", { class: "kindtag undated" }, "undated") : null,
      h("h3", { class: "sentence" }, relationSentence(r, names)),
      h("p", { class: "sub" }, r.name),
      notDrawn(r.name),
      h("dl", null, rows),
      noteEditor(r.name),
      h("h2", null, `Claims (${r.claims.length})`),
      h("ul", { class: "claims" }, r.claims.map((c) => claimItem(c, names))),
    ),
  );
}

/**
 * One relation of a hop: its type and the way the path walks it, when it held, whether it is disputed, its
 * claims. On a co-temporal route (`during` given), a relation that did not hold then is marked so: the hop
 * held through its others.
 */
function hopRelationItem(r: Relation, forward: boolean, names: Map<string, string>, during?: DateRange[], throughVia = false): HTMLElement {
  const disputed = r.claims.some((c) => c.status === ClaimStatus.DENIED);
  const notThen = during !== undefined && !heldDuring(r, during);
  return h("li", {
      class: notThen ? "hop-rel not-then" : "hop-rel",
      "data-relation": r.name,
      "data-undated": r.undated ? "1" : undefined,
      "data-disputed": disputed ? "1" : undefined,
      "data-held-then": during === undefined ? undefined : notThen ? "0" : "1",
    },
    h("div", null,
      h("button", { type: "button", class: "link type", title: "All its claims", onclick: () => void selectRelation(r.name) },
        `${r.symmetric ? "↕" : forward ? "↓" : "↑"} ${typeLabel(r.type)}`),
      r.undated ? h("span", { class: "muted undated" }, " · undated") : h("span", { class: "muted" }, ` · ${timeLabel(r)}`),
      r.role ? h("span", { class: "muted" }, ` · ${r.role}`) : null,
      throughVia
        ? h("span", { class: "muted via", title: "This hop joins the relation's from to its via" },
            ` · for ${names.get(r.via) ?? r.via}, at ${names.get(r.to) ?? r.to}`)
        : null,
      disputed ? h("span", { class: "badge DENIED", title: r.verdict?.summary ?? "a claim denies it" }, "disputed") : null,
      notThen ? h("span", { class: "badge then", title: "It did not hold while the whole route held; the hop held through its other relations." }, "not then") : null,
    ),
    claimList(r.claims, names, 2),
  );
}

/** A hop: how many relations join its two entities and what the evidence over all of them says, then each. */
/** Claims, the first shown ones listed and the rest behind "N more claims": a route's panel stays short. */
function claimList(claims: Relation["claims"], names: Map<string, string>, shown: number): HTMLElement {
  const list = h("ul", { class: "claims" }, claims.slice(0, shown).map((c) => claimItem(c, names)));
  if (claims.length <= shown) return list;
  const rest = claims.length - shown;
  return h("div", null, list,
    h("details", { class: "more-claims" },
      h("summary", null, `${rest} more claim${rest === 1 ? "" : "s"}`),
      h("ul", { class: "claims" }, claims.slice(shown).map((c) => claimItem(c, names)))));
}

function hopItem(hop: Hop, names: Map<string, string>, during?: DateRange[]): HTMLElement {
  const rels = hopRelations(hop);
  const claims = rels.reduce((n, { relation }) => n + relation.claims.length, 0);
  const head = `${rels.length} relation${rels.length === 1 ? "" : "s"}, ${hop.verdict?.summary || `${claims} claims`}`;
  return h("li", { class: "hop", "data-relations": rels.length },
    h("div", { class: "hop-head" }, head),
    h("ul", { class: "hop-rels" }, rels.map(({ relation, forward, throughVia }) => hopRelationItem(relation, forward, names, during, throughVia))),
  );
}

function renderPaths(p: PathsShown): void {
  const names = p.names ?? new Map(p.resp.entities.map((e) => [e.name, e.displayName]));
  const n = p.resp.paths.length;
  const header = h("div", { "data-panel": "paths", "data-cotemporal": p.coTemporal ? "1" : "0" },
    h("h3", null, "Paths"),
    h("p", { class: "sub" },
      `${names.get(p.resp.paths[0]?.entities[0] ?? p.from) ?? p.from} → ${names.get(p.resp.paths[0]?.entities.at(-1) ?? p.to) ?? p.to}: `,
      n ? `${n} shortest route${n > 1 ? "s" : ""} of at most ${maxDepth} hops` : `no route of at most ${maxDepth} hops`,
      p.coTemporal ? " that held as a whole at one moment" : "",
      view.asOf ? ` as of ${view.asOf}` : "",
      ".",
    ),
    n
      ? h("p", { class: "muted small" },
          "Each hop lists every relation between its two entities: ↓ from the entity above to the one below, ↑ the other way, ↕ both. Click a relation for all its claims.")
      : null,
    n > 1 ? h("div", { class: "actions" }, h("button", { type: "button", onclick: () => pickPath(-1) }, "Highlight all")) : null,
    n === 0
      ? h("p", { class: "muted", "data-if-relaxed": String(p.resp.ifRelaxed.length) },
          p.resp.ifRelaxed.length
            ? `A looser filter finds some: ${p.resp.ifRelaxed.map((r) => `${r.results} route${r.results === 1 ? "" : "s"} if ${r.change}`).join("; ")}.`
            : p.coTemporal
              ? "Untick co-temporal to find routes whose hops held at different times, or widen the filters."
              : "Widen the filters (time, types, confidence) to find longer or older connections.")
      : null,
  );
  const list = h("ol", { class: "paths" },
    p.resp.paths.map((path, i) =>
      h("li", { class: "path", "aria-current": p.active === i ? "true" : "false", "data-path": i },
        h("header", { onclick: () => pickPath(i), title: "Highlight this path" },
          h("strong", null, `Path ${i + 1}`), h("span", { class: "muted" }, `${path.hops.length} hop${path.hops.length > 1 ? "s" : ""}`)),
        // Only the route picked (else the first) is open: five routes with their evidence ran to metres.
        h("details", { class: "route", open: i === (p.active >= 0 ? p.active : 0) ? true : undefined },
        h("summary", { class: "chain" }, path.entities.map((name) => names.get(name) ?? name).join(" → ")),
        p.coTemporal && path.during.length
          ? h("p", { class: "during" }, `This route held as a whole during ${path.during.map(spanLabel).join(", ")}: each hop through at least one of its relations.`)
          : null,
        path.reason ? h("p", { class: "evidence", title: "Among routes of one length, the best evidenced come first" }, path.reason) : null,
        h("ol", { class: "hops" },
          path.entities.flatMap((name, j) => {
            const items: HTMLElement[] = [h("li", { class: "hop-entity" }, entityButton(name, names.get(name) ?? name))];
            const hop = path.hops[j];
            if (hop) items.push(hopItem(hop, names, p.coTemporal && path.during.length ? path.during : undefined));
            return items;
          }),
        ),
        ),
      ),
    ),
  );
  panel(header, list);
}

function pickPath(i: number): void {
  if (!paths) return;
  paths.active = i;
  view.route = i;
  saveView();
  renderPaths(paths);
  highlightPaths();
}

/** The path form shows the ends of the last paths asked for (a link reopened, Back), by their names. */
function fillPathForm(): void {
  const last = [...view.steps].reverse().find((s) => s.op === "path");
  for (const [input, name] of [[pathFrom, last?.op === "path" ? last.from : ""], [pathTo, last?.op === "path" ? last.to : ""]] as const) {
    if (!name) continue;
    const node = cy.getElementById(name);
    input.value = node.nonempty() ? String(node.data("label")) : name;
    input.dataset.name = name;
  }
}

async function selectRelation(name: string): Promise<void> {
  const e = cy.getElementById(name);
  if (e.nonempty()) cy.animate({ center: { eles: e }, duration: 250 });
  await select(name);
}

cy.on("tap", "node", (ev) => {
  const n = ev.target as cytoscape.NodeSingular;
  if (n.hasClass("group")) {
    void select(n.id());
    return;
  }
  if ((ev.originalEvent as MouseEvent | undefined)?.shiftKey && !n.hasClass("more")) {
    n.toggleClass("marked");
    showGroupButton();
    return;
  }
  if (n.hasClass("more")) {
    void showMore(String(n.data("more")));
    return;
  }
  void (async () => {
    if (!n.hasClass("expanded")) {
      const ok = await act({ op: "open", name: n.id() }, `expand ${n.data("label")}`);
      if (!ok) return;
    }
    await select(n.id());
  })();
});
cy.on("tap", "edge", (ev) => {
  const e = ev.target as cytoscape.EdgeSingular;
  if (e.hasClass("more-edge")) return;
  void select(e.id());
});
cy.on("mouseover", "node, edge", (ev) => {
  byId("cy").style.cursor = "pointer";
  if (ev.target.isEdge()) ev.target.addClass("hover");
});
cy.on("mouseout", "node, edge", (ev) => {
  byId("cy").style.cursor = "";
  ev.target.removeClass("hover");
});

// Tooltips: an edge's type, time ("no date" when undated) and verdict; what a "+N more" handle holds.
const tip = byId("tip");
cy.on("mouseover", "edge, node.more, node.noted", (ev) => {
  const note = view.notes.get(ev.target.id());
  const title = [ev.target.isEdge() || ev.target.hasClass("more") ? String(ev.target.data("title") ?? "") : "", note ? `Note: ${note}` : ""].filter(Boolean).join(" — ");
  if (!title) return;
  tip.textContent = title;
  tip.hidden = false;
});
cy.on("mousemove", "edge, node.more, node.noted", (ev) => {
  const p = ev.renderedPosition;
  if (!p) return;
  const box = byId("cy").getBoundingClientRect();
  tip.style.left = `${Math.min(p.x + 14, box.width - tip.offsetWidth - 8)}px`;
  tip.style.top = `${Math.max(4, p.y - tip.offsetHeight - 12)}px`;
});
cy.on("mouseout", "edge, node.more, node.noted", () => (tip.hidden = true));
cy.on("pan zoom", () => (tip.hidden = true));

// ---------------------------------------------------------------------------------------------------------
// Search with suggestions as one types (SearchEntities), for the search box and the two ends of a path.

function suggest(input: HTMLInputElement, list: HTMLUListElement, pick: (e: Entity) => void): void {
  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let results: Entity[] = [];
  let active = -1;
  const hide = () => {
    list.hidden = true;
    active = -1;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  };
  const mark = () => markOption(input, list, active);
  const choose = (i: number) => {
    const e = results[i];
    if (!e) return;
    hide();
    pick(e);
  };
  const run = async () => {
    const q = input.value.trim();
    const mine = ++seq;
    if (q.length < 2) {
      hide();
      return;
    }
    try {
      const resp = await call(`Searching for “${q}”`, () => client.searchEntities({ query: q, pageSize: 8 }));
      if (mine !== seq) return;
      results = resp.results.map((r) => r.entity!).filter(Boolean);
      list.replaceChildren(
        ...(resp.results.length
          ? resp.results.map((r, i) =>
              h("li", { role: "option", id: `${list.id}-${i}`, "data-name": r.entity!.name, onmousedown: (ev: Event) => { ev.preventDefault(); choose(i); } },
                h("span", { class: "name" }, r.entity!.displayName),
                r.matched && r.matched !== r.entity!.displayName ? h("span", { class: "matched" }, `“${r.matched}”`) : null,
                h("span", { class: "kind", style: `color:${kinds[kindKey(r.entity!.kind)].ink}` }, kinds[kindKey(r.entity!.kind)].label),
                r.summary ? h("span", { class: "summary" }, r.summary) : null,
              ),
            )
          : [h("li", { class: "none", role: "option", "aria-disabled": "true" }, `Nothing matches “${q}”.`)]),
      );
      active = results.length ? 0 : -1;
      mark();
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    } catch (e) {
      if (mine !== seq) return;
      const o = failed(`search for “${q}”`, e, () => void run());
      list.replaceChildren(h("li", { class: "none", role: "option", "aria-disabled": "true" }, o ? "Not answering just now; the search runs again once it is back." : describeError(e)));
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }
  };
  input.addEventListener("input", () => {
    delete input.dataset.name;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), 150);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      if (list.hidden || !results.length) return;
      ev.preventDefault();
      active = (active + (ev.key === "ArrowDown" ? 1 : results.length - 1)) % results.length;
      mark();
    } else if (ev.key === "Enter" && !list.hidden && active >= 0) {
      ev.preventDefault();
      choose(active);
    } else if (ev.key === "Escape") {
      hide();
    }
  });
  input.addEventListener("blur", () => setTimeout(hide, 100));
  input.addEventListener("focus", () => {
    if (results.length && input.value.trim().length >= 2 && !input.dataset.name) {
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }
  });
}

const searchInput = byId<HTMLInputElement>("search-input");
suggest(searchInput, byId<HTMLUListElement>("search-list"), (e) => {
  searchInput.value = "";
  void openEntity(e.name);
});

const pathFrom = byId<HTMLInputElement>("path-from");
const pathTo = byId<HTMLInputElement>("path-to");
const pathPick = (input: HTMLInputElement) => (e: Entity) => {
  input.value = e.displayName;
  input.dataset.name = e.name;
};
suggest(pathFrom, byId<HTMLUListElement>("path-from-list"), pathPick(pathFrom));
suggest(pathTo, byId<HTMLUListElement>("path-to-list"), pathPick(pathTo));

function setPathEnd(end: "from" | "to", e: Entity): void {
  const input = end === "from" ? pathFrom : pathTo;
  pathPick(input)(e);
  const other = end === "from" ? pathTo : pathFrom;
  if (other.value.trim()) void askPaths(pathFrom.dataset.name ?? pathFrom.value.trim(), pathTo.dataset.name ?? pathTo.value.trim());
  else other.focus();
}

byId<HTMLFormElement>("path-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const from = pathFrom.dataset.name ?? pathFrom.value.trim();
  const to = pathTo.dataset.name ?? pathTo.value.trim();
  if (!from || !to) {
    setStatus("Give both ends of the path: pick an entity in each box.", true);
    (from ? pathTo : pathFrom).focus();
    return;
  }
  void askPaths(from, to);
});

// ---------------------------------------------------------------------------------------------------------
// Filters: relation types, minimum confidence, claim statuses, time; every change asks the service again.

const anytime = byId<HTMLInputElement>("anytime");
const undatedBox = byId<HTMLInputElement>("undated");
const undatedRow = byId("undated-row");
const asofHint = byId("asof-hint");
const coTemporalBox = byId<HTMLInputElement>("cotemporal");
const followViaBox = byId<HTMLInputElement>("followvia");
const asof = byId<HTMLInputElement>("asof");
const asofOut = byId<HTMLOutputElement>("asof-out");
const minconf = byId<HTMLInputElement>("minconf");
const minconfOut = byId<HTMLOutputElement>("minconf-out");
const per = byId<HTMLSelectElement>("per");
const sizeBy = byId<HTMLSelectElement>("sizeby");
const typesBox = byId("types");

let refilterTimer: ReturnType<typeof setTimeout> | undefined;
/** Asks again with the new filters once they have stopped changing for a moment (a slider drags). */
function refilter(): void {
  saveView(refilterTimer === undefined); // the first change of a burst makes the history entry
  if (refilterTimer === undefined) begin();
  clearTimeout(refilterTimer);
  refilterTimer = setTimeout(() => {
    refilterTimer = undefined;
    void rebuild(true);
    end();
  }, 250);
}

/** What the time filter does, said under the slider. */
function showTime(): void {
  anytime.checked = !view.asOf;
  asof.disabled = !view.asOf;
  if (view.asOf) asof.value = view.asOf;
  asofOut.textContent = view.asOf || "any time";
  undatedRow.hidden = !view.asOf;
  undatedBox.checked = view.undated;
  asofHint.textContent = view.asOf
    ? `The graph as it was in ${view.asOf}: relations that held at some moment of that year (an event only in its own year), ` +
      "between entities that both existed then; entities that did not exist then are left out. " +
      (view.undated
        ? "Relations with no date at all are included, as if they held then."
        : "Relations with no date at all are left out, unless included above.")
    : "Every relation, whenever it held; those with no date at all are drawn dotted. Untick to see the graph as it was in one year.";
}

function showFilters(): void {
  showTime();
  coTemporalBox.checked = view.coTemporal;
  followViaBox.checked = view.followVia;
  if (liveBox.checked !== view.live) {
    liveBox.checked = view.live;
    startLive();
  }
  minconf.value = String(view.minConfidence);
  minconfOut.textContent = view.minConfidence.toFixed(2);
  if (![...per.options].some((o) => o.value === String(view.perNode))) per.append(h("option", null, String(view.perNode)));
  per.value = String(view.perNode);
  sizeBy.value = view.size;
  const types = new Set(view.types);
  typesBox.querySelectorAll<HTMLInputElement>("input").forEach((i) => (i.checked = types.size === 0 || types.has(i.value)));
  const statuses = new Set(view.statuses.length ? view.statuses : ["ALLEGED", "REPORTED", "CONFIRMED"]);
  byId("statuses").querySelectorAll<HTMLInputElement>("input").forEach((i) => (i.checked = statuses.has(i.value)));
}

function buildTypeFilter(): void {
  const groups = new Map<Family, typeof relationTypes>();
  for (const t of relationTypes) groups.set(t.family, [...(groups.get(t.family) ?? []), t]);
  for (const [family, types] of groups) {
    typesBox.append(
      h("div", { class: "group" }, h("span", { class: "swatch", style: `background:${families[family].color}` }), " ", families[family].label),
      ...types.map((t) =>
        h("label", { class: "check" }, h("input", { type: "checkbox", value: t.key, checked: true, "data-type": t.key }), typeLabel(t.type)),
      ),
    );
  }
  typesBox.addEventListener("change", () => {
    const boxes = [...typesBox.querySelectorAll<HTMLInputElement>("input")];
    const on = boxes.filter((b) => b.checked).map((b) => b.value);
    view.types = on.length === boxes.length ? [] : on.length === 0 ? ["NONE"] : on;
    refilter();
  });
  const setAll = (on: boolean) => {
    typesBox.querySelectorAll<HTMLInputElement>("input").forEach((i) => (i.checked = on));
    typesBox.dispatchEvent(new Event("change"));
  };
  byId("types-all").addEventListener("click", () => setAll(true));
  byId("types-none").addEventListener("click", () => setAll(false));
}

anytime.addEventListener("change", () => {
  view.asOf = anytime.checked ? "" : asof.value;
  showTime();
  refilter();
});
asof.addEventListener("input", () => {
  view.asOf = asof.value;
  showTime();
  refilter();
});
undatedBox.addEventListener("change", () => {
  view.undated = undatedBox.checked;
  showTime();
  refilter();
});
coTemporalBox.addEventListener("change", () => {
  view.coTemporal = coTemporalBox.checked;
  // Paths already asked for are asked again the new way; without any, it applies to the next.
  if (view.steps.some((s) => s.op === "path")) refilter();
  else saveView(true);
});
followViaBox.addEventListener("change", () => {
  view.followVia = followViaBox.checked;
  // What is shown is asked again, with or without the joins through vias.
  refilter();
});
minconf.addEventListener("input", () => {
  view.minConfidence = Number(minconf.value);
  minconfOut.textContent = view.minConfidence.toFixed(2);
  refilter();
});
byId("statuses").addEventListener("change", () => {
  const on = [...byId("statuses").querySelectorAll<HTMLInputElement>("input")].filter((i) => i.checked).map((i) => i.value);
  const isDefault = on.length === 3 && !on.includes("DENIED");
  view.statuses = isDefault ? [] : on.length ? on : ["NONE"];
  refilter();
});
sizeBy.addEventListener("change", () => {
  view.size = sizeBy.value === "degree" || sizeBy.value === "kind" ? sizeBy.value : "";
  saveView(true);
  decorate();
});
per.addEventListener("change", () => {
  view.perNode = Number(per.value);
  refilter();
});

// ---------------------------------------------------------------------------------------------------------
// Time in the view: the histogram of the relations drawn, the range of years kept, playback, comparison.

const hist = document.getElementById("hist") as unknown as SVGSVGElement;
const rangeFrom = byId<HTMLInputElement>("range-from");
const rangeTo = byId<HTMLInputElement>("range-to");
const rangeOut = byId<HTMLOutputElement>("range-out");
const playButton = byId<HTMLButtonElement>("range-play");
const compareBox = byId<HTMLInputElement>("compare");
const compareA = byId<HTMLInputElement>("compare-a");
const compareB = byId<HTMLInputElement>("compare-b");
let years: Histogram | null = null;

/** The entities the view's steps name: they stay drawn whatever the years. */
function stepEntities(): Set<string> {
  return new Set(view.steps.flatMap((s) => (s.op === "path" ? [s.from, s.to] : s.op === "hide" ? [] : [s.name])));
}

/** The histogram of the relations drawn, the controls as the view says, and the edges the years keep. */
function showTimeline(): void {
  years = histogram(realEdges().map((e) => yearsOf(e.data())), new Date().getFullYear());
  const choice = { range: view.range, compare: view.compare };
  const kept = applyTime(cy, choice, stepEntities());
  byId("timeline").dataset.kept = String(kept);
  if (!years) {
    hist.replaceChildren();
    rangeOut.textContent = realEdges().nonempty() ? "no relation drawn has a date" : "nothing drawn yet";
    return;
  }
  drawHistogram(hist, years, choice);
  byId("hist-first").textContent = String(years.first);
  byId("hist-last").textContent = String(years.last);
  for (const r of [rangeFrom, rangeTo]) {
    r.min = String(years.first);
    r.max = String(years.last);
    r.disabled = !!view.compare;
  }
  rangeFrom.value = String(view.range?.[0] ?? years.first);
  rangeTo.value = String(view.range?.[1] ?? years.last);
  compareBox.checked = !!view.compare;
  byId("compare-row").hidden = !view.compare;
  if (view.compare) {
    compareA.value = String(view.compare[0]);
    compareB.value = String(view.compare[1]);
  }
  const undated = years.undated ? `; ${years.undated} undated stay drawn` : "";
  rangeOut.textContent = view.compare
    ? `${view.compare[0]} → ${view.compare[1]}: red held in ${view.compare[0]} only, green in ${view.compare[1]} only (${kept} drawn${undated})`
    : view.range
      ? `${view.range[0] === view.range[1] ? view.range[0] : `${view.range[0]}–${view.range[1]}`}: ${kept} relations held then${undated}`
      : "every year";
}

/** A new range or comparison: written to the address (a history entry unless playing) and drawn. */
function setTime(range: [number, number] | null, compare: [number, number] | null, push = true): void {
  view.range = range;
  view.compare = compare;
  saveView(push);
  decorate();
  if (!statusEl.classList.contains("error")) setStatus(shownSummary());
}

function rangeChanged(): void {
  if (!years) return;
  let a = Number(rangeFrom.value);
  let b = Number(rangeTo.value);
  if (a > b) [a, b] = [b, a];
  setTime(a === years.first && b === years.last ? null : [a, b], null, false);
}
rangeFrom.addEventListener("input", rangeChanged);
rangeTo.addEventListener("input", rangeChanged);
rangeFrom.addEventListener("change", () => saveView(true));
rangeTo.addEventListener("change", () => saveView(true));
byId("range-all").addEventListener("click", () => {
  stopPlay();
  setTime(null, null);
});

let playTimer: ReturnType<typeof setInterval> | undefined;
function stopPlay(): void {
  clearInterval(playTimer);
  playTimer = undefined;
  playButton.textContent = "Play";
  playButton.setAttribute("aria-pressed", "false");
}
/** Plays the years: from the first year of the range (or of the histogram), one more year each step. */
playButton.addEventListener("click", () => {
  if (playTimer !== undefined || !years) {
    stopPlay();
    return;
  }
  const h = years;
  const start = view.range?.[0] ?? h.first;
  let end = start;
  playButton.textContent = "Stop";
  playButton.setAttribute("aria-pressed", "true");
  setTime([start, end], null, true);
  playTimer = setInterval(() => {
    end++;
    if (end > h.last) {
      stopPlay();
      return;
    }
    setTime([start, end], null, false);
  }, 700);
});
compareBox.addEventListener("change", () => {
  stopPlay();
  if (!compareBox.checked || !years) {
    setTime(view.range, null);
    return;
  }
  const a = view.range?.[0] ?? Math.max(years.first, years.last - 10);
  const b = view.range?.[1] ?? years.last;
  setTime(null, [a, b]);
});
for (const input of [compareA, compareB]) {
  input.addEventListener("change", () => {
    const a = Number(compareA.value);
    const b = Number(compareB.value);
    if (Number.isInteger(a) && Number.isInteger(b) && a >= 1800 && b >= 1800) setTime(null, [a, b]);
  });
}

// ---------------------------------------------------------------------------------------------------------
// The legend.

function legend(): void {
  const svg = (inner: string) => {
    const el = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    el.setAttribute("width", "36");
    el.setAttribute("height", "18");
    el.setAttribute("viewBox", "0 0 36 18");
    el.innerHTML = inner; // fixed markup, no data in it
    return el;
  };
  const line = (color: string, dash = "", width = 2.5) =>
    svg(`<line x1="2" y1="9" x2="34" y2="9" stroke="${color}" stroke-width="${width}" ${dash ? `stroke-dasharray="${dash}"` : ""}/>`);
  const shapes: Record<string, string> = {
    actor: `<circle cx="18" cy="9" r="7" fill="${kinds.actor.color}"/>`,
    party: `<polygon points="11,9 14.5,3 21.5,3 25,9 21.5,15 14.5,15" fill="${kinds.party.color}"/>`,
    seat: `<polygon points="18,1 26,9 18,17 10,9" fill="${kinds.seat.color}"/>`,
    organisation: `<rect x="10" y="3" width="16" height="12" rx="3" fill="${kinds.organisation.color}"/>`,
  };
  const rows: [SVGElement, string][] = [
    ...Object.entries(kinds).map(([k, v]) => [svg(shapes[k]), v.label] as [SVGElement, string]),
    [svg(`<circle cx="18" cy="9" r="6" fill="#94a3b8" stroke="#111827" stroke-width="2.5"/>`), "expanded: its neighbours are shown"],
    [svg(`<rect x="3" y="3" width="30" height="12" rx="3" fill="#f1f5f9" stroke="#64748b" stroke-dasharray="2 2"/>`), "“+N more”: click to show more"],
    ...(Object.values(families).map((f) => [line(f.color), f.label]) as [SVGElement, string][]),
    [line("#64748b", "6 3"), "alleged only"],
    [svg(`<line x1="2" y1="9" x2="34" y2="9" stroke="#64748b" stroke-width="2.5" stroke-linecap="round" stroke-dasharray="0.1 4.5"/>`), "no date: not known when it held"],
    [line(disputedColor, "4 3"), "disputed: a claim denies it"],
    [line("#64748b", "2 5"), "through a via: a member to the party they sat or stood for"],
    [line("#475569", "", 5), "“N relations”: several join two entities; click to list them"],
    [svg(`<line x1="2" y1="5" x2="34" y2="5" stroke="#64748b" stroke-width="1"/><line x1="2" y1="13" x2="34" y2="13" stroke="#64748b" stroke-width="4.5"/>`), "thicker: higher confidence"],
    [svg(`<line x1="2" y1="9" x2="26" y2="9" stroke="#64748b" stroke-width="2"/><polygon points="26,5 34,9 26,13" fill="#64748b"/>`), "arrow: from → to (none if mutual)"],
    [line(highlightColor, "", 8), "on a path found"],
    [line("#dc2626", "", 6), "comparing two years: held in the first only"],
    [line("#16a34a", "", 6), "comparing two years: held in the second only"],
  ];
  byId("legend").replaceChildren(...rows.flatMap(([icon, text]) => [icon, h("span", null, text)]));
}

// ---------------------------------------------------------------------------------------------------------
// Tools: fit, clear, export, link.

byId("fit").addEventListener("click", () => cy.animate({ fit: { eles: cy.elements(), padding: 40 }, duration: 250 }));

// Find in the view: the entities whose name contains the text, case and accents aside, are marked; Enter
// centres the next of them.
const findInput = byId<HTMLInputElement>("find");
const findOut = byId<HTMLOutputElement>("find-out");
const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
let findAt = -1;
function findInView(): cytoscape.NodeCollection {
  cy.nodes().removeClass("found");
  const q = fold(findInput.value.trim());
  if (!q) {
    findOut.textContent = "";
    return cy.collection();
  }
  const found = cy.nodes().not(".more").filter((n) => fold(String(n.data("label"))).includes(q));
  found.addClass("found");
  findOut.textContent = found.length === 1 ? "1 found" : `${found.length} found`;
  return found;
}
findInput.addEventListener("input", () => {
  findAt = -1;
  findInView();
});
findInput.addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter") return;
  ev.preventDefault();
  const found = findInView().sort((a, b) => String(a.data("label")).localeCompare(String(b.data("label"))));
  if (!found.length) return;
  findAt = (findAt + 1) % found.length;
  const n = found[findAt];
  cy.animate({ center: { eles: n }, duration: 250 });
  findOut.textContent = `${findAt + 1} of ${found.length}`;
});
byId("clear").addEventListener("click", () => {
  const keep = {
    asOf: view.asOf,
    undated: view.undated,
    minConfidence: view.minConfidence,
    types: view.types,
    statuses: view.statuses,
    perNode: view.perNode,
    coTemporal: view.coTemporal,
  };
  Object.assign(view, emptyView(), keep);
  cy.elements().remove();
  remembered.clear();
  paths = null;
  byId("empty").hidden = false;
  saveView(true); // Back undoes it
  void showSelected();
  setStatus("");
});

function closeExportMenu(): void {
  (document.querySelector("details.export") as HTMLDetailsElement).open = false;
}
/** The figure's words: a title from what the view opened, the date, the filters, the sources, a legend. */
async function figureText(): Promise<FigureText> {
  const ends = view.steps.flatMap((s) => (s.op === "open" ? [s.name] : s.op === "path" ? [s.from, s.to] : []));
  const known = new Map(paths?.resp.entities.map((e) => [e.name, e.displayName]) ?? []);
  for (const [k, v] of paths?.names ?? []) known.set(k, v);
  const names = [...new Set(ends)].map((n) => (cy.getElementById(n).nonempty() ? label(n) : known.get(n) ?? n));
  const title = names.length ? `${names.slice(0, 4).join(", ")}${names.length > 4 ? ` and ${names.length - 4} more` : ""}` : "polgraph";
  const filters: string[] = [view.asOf ? `As of ${view.asOf}${view.undated ? " (undated relations included)" : ""}` : "Any time"];
  if (view.types.length) filters.push(view.types.includes("NONE") ? "no relation types" : view.types.map((k) => typeLabel(typeFromKey(k)!)).join(", "));
  else filters.push("every relation type");
  filters.push(view.statuses.length ? `claims: ${view.statuses.map((s) => s.toLowerCase()).join(", ")}` : "claims: alleged, reported, confirmed");
  if (view.minConfidence > 0) filters.push(`confidence ≥ ${view.minConfidence.toFixed(2)}`);
  if (view.range) filters.push(`relations that held in ${view.range[0]}–${view.range[1]}`);
  if (view.compare) filters.push(`${view.compare[0]} compared with ${view.compare[1]}`);
  filters.push(`${cy.nodes(":visible").not(".more").length} entities, ${realEdges().filter(":visible").length + cy.edges(".bundle:visible").reduce((n, b) => n + Number(b.data("count")), 0)} relations`);
  const ev = await evidence();
  const sources = ev.sources.map((s) => [s.outlet || s.kind.toLowerCase(), `“${s.title || s.name}”`, s.published, s.url].filter(Boolean).join(" — "));
  const drawn = cy.elements(":visible");
  const legendRows: LegendRow[] = [];
  for (const [k, v] of Object.entries(kinds)) if (drawn.nodes(`[kind = "${k}"]`).nonempty()) legendRows.push({ node: { shape: v.shape, color: v.color }, text: v.label });
  for (const [f, v] of Object.entries(families)) if (drawn.edges(`.${f}`).nonempty()) legendRows.push({ line: { color: v.color, dash: "", width: 2.5 }, text: v.label });
  const special: [string, LegendRow][] = [
    [".alleged", { line: { color: "#64748b", dash: "6 3", width: 2.5 }, text: "alleged only" }],
    [".undated", { line: { color: "#64748b", dash: "1 4", width: 2.5 }, text: "no date: not known when it held" }],
    [".disputed", { line: { color: disputedColor, dash: "4 3", width: 2.5 }, text: "disputed: a claim denies it" }],
    [".via", { line: { color: "#64748b", dash: "2 5", width: 2.5 }, text: "through a via (the party they sat for)" }],
    [".bundle", { line: { color: "#475569", dash: "", width: 5 }, text: "several relations between two entities" }],
    [".before", { line: { color: "#dc2626", dash: "", width: 5 }, text: `held in ${view.compare?.[0]} only` }],
    [".after", { line: { color: "#16a34a", dash: "", width: 5 }, text: `held in ${view.compare?.[1]} only` }],
  ];
  for (const [sel, row] of special) if (drawn.edges(sel).nonempty()) legendRows.push(row);
  legendRows.push({ line: { color: "#64748b", dash: "", width: 4.5 }, text: "thicker: higher confidence" });
  const today = new Date().toISOString().slice(0, 10);
  const on = (target: string) => {
    const el = cy.getElementById(target);
    if (el.empty()) return target;
    return el.isEdge() ? `${label(String(el.data("source")))} — ${el.data("label")} — ${label(String(el.data("target")))}` : label(target);
  };
  const notes = [...view.notes].map(([target, text]) => `${on(target)}: ${text}`);
  return { notes, title, made: `Drawn ${today} from polgraph; the link below reopens this view.`, link: location.href, filters: filters.join(" · "), sources, legend: legendRows };
}
byId("export-svg").addEventListener("click", async () => {
  closeExportMenu();
  const svg = figureSVG(cy, await figureText());
  download("polgraph-view.svg", new Blob([svg], { type: "image/svg+xml" }));
});
byId("export-png").addEventListener("click", async () => {
  closeExportMenu();
  const svg = figureSVG(cy, await figureText());
  download("polgraph-view.png", await figurePNG(svg));
});
/** The claims of every relation shown, and the sources they cite, read from polgraph for an export. */
async function evidence(): Promise<Evidence> {
  const ids = realEdges().map((e) => e.id());
  const claims = new Map<string, ClaimOut[]>();
  const sources = new Map<string, SourceOut>();
  await call(`Reading the claims of ${ids.length} relations`, () =>
    Promise.all(
      ids.map(async (id) => {
        const resp = await client.getRelation({ name: relationOf(id) });
        const r = resp.relation;
        if (!r) return;
        claims.set(
          id,
          r.claims.map((c) => {
            const s = c.source;
            if (s && !sources.has(s.name)) {
              sources.set(s.name, {
                name: s.name,
                title: s.title,
                kind: SourceKind[s.kind] ?? "",
                outlet: s.outlet,
                author: s.author,
                published: s.published,
                url: s.url,
                retrieved: s.retrieved,
                licence: s.licence,
              });
            }
            return {
              name: c.name,
              source: s?.name ?? "",
              source_title: s?.title ?? "",
              source_outlet: s?.outlet ?? "",
              source_url: s?.url ?? "",
              excerpt: c.excerpt,
              record: c.recordId,
              confidence: c.confidence,
              status: statusKey(c.status),
              said_by: c.saidBy,
              retracted: !!c.retracted,
            };
          }),
        );
      }),
    ),
  );
  return { claims, sources: [...sources.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}
byId("export-graphml").addEventListener("click", async () => {
  closeExportMenu();
  const ev = await evidence();
  download("polgraph-view.graphml", new Blob([toGraphML(realNodes(), realEdges(), location.href, ev)], { type: "application/graphml+xml" }));
});
byId("export-json").addEventListener("click", async () => {
  closeExportMenu();
  const ev = await evidence();
  download("polgraph-view.cyjs", new Blob([toCytoscapeJSON(realNodes(), realEdges(), location.href, ev)], { type: "application/json" }));
});
byId("copy-link").addEventListener("click", async () => {
  closeExportMenu();
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus("The link to this view is copied.");
  } catch {
    setStatus(`The link to this view: ${location.href}`);
  }
});

// ---------------------------------------------------------------------------------------------------------
// Start: the filters and the graph from the address, and the health watch.

/** For the browser console and for tests: the graph, the view, and a promise of the next quiet moment. */
declare global {
  interface Window {
    explorer: { cy: cytoscape.Core; view: View; redraw: () => void; idle: () => Promise<void> };
  }
}
window.explorer = {
  cy,
  view,
  /** Sizes, bundles, time and labels worked out again for what is drawn (elements added from outside). */
  redraw: () => decorate(),
  idle: () =>
    new Promise((resolve) => {
      const poll = () => (busy === 0 ? resolve() : setTimeout(poll, 50));
      poll();
    }),
};

// ---------------------------------------------------------------------------------------------------------
// Graph or review: the top bar switches between them; the address says which (and which document).

const graphView = byId("graph-view");
const reviewRoot = byId("review");
let review: ReviewView | null = null;
/** Whether the graph has been built from the address: not while the page opened on the review. */
let graphBuilt = false;
/** The document the review showed last, to come back to. */
let lastReview = "";

function showMode(): void {
  const inReview = view.review !== null;
  document.body.dataset.mode = inReview ? "review" : "graph";
  graphView.hidden = inReview;
  reviewRoot.hidden = !inReview;
  byId("mode-graph").setAttribute("aria-pressed", String(!inReview));
  byId("mode-review").setAttribute("aria-pressed", String(inReview));
  document.title = inReview ? "polgraph — review" : "polgraph — graph explorer";
}

async function openReview(hash: string, push = true): Promise<void> {
  view.review = hash;
  lastReview = hash;
  saveView(push);
  showMode();
  review ??= new ReviewView(reviewRoot, {
    call,
    save: (r) => {
      view.review = lastReview = r;
      saveView();
    },
    showInGraph,
  });
  await review.open(hash);
}

/** Shows the graph; `focusSearch` puts the cursor in the search box when the graph is empty. */
async function openGraph(focusSearch = true): Promise<void> {
  view.review = null;
  saveView(true);
  showMode();
  cy.resize();
  if (!graphBuilt) await buildGraph(focusSearch);
}

async function buildGraph(focusSearch: boolean): Promise<void> {
  graphBuilt = true;
  // A link to a saved view alone opens it as it was saved.
  if (view.saved && view.steps.length === 0 && (await openSaved(view.saved, false))) return;
  await rebuild();
  if (view.steps.length === 0) byId("empty").hidden = false;
  if (!view.steps.length && focusSearch) searchInput.focus();
}

/**
 * Shows in the graph the relation a proposal's approval wrote: the route between its two ends (the
 * relation is one of the hop's), with the relation selected. A denied claim counts only with denied
 * claims shown, so they are turned on for one.
 */
async function showInGraph(relation: string, denied: boolean): Promise<void> {
  let r: Relation | undefined;
  try {
    r = (await call(`Loading ${relation}`, () => client.getRelation({ name: relation }))).relation;
  } catch (e) {
    await openGraph(false);
    failed(`show ${relation}`, e);
    return;
  }
  await openGraph(false);
  if (!r) return;
  if (denied && !view.statuses.includes("DENIED")) {
    view.statuses = [...(view.statuses.length && !view.statuses.includes("NONE") ? view.statuses : ["ALLEGED", "REPORTED", "CONFIRMED"]), "DENIED"];
    showFilters();
    saveView(true);
    if (view.steps.length) await rebuild();
  }
  if (await act({ op: "path", from: r.from, to: r.to }, `show ${relation}`)) await selectRelation(r.name);
}

// ---------------------------------------------------------------------------------------------------------
// Live: the change feed (WatchChanges) followed while the box is ticked. A relation written to an entity
// shown appears (with its other end) if it counts under the filters, highlighted; one deleted, or that no
// longer counts, goes; an entity shown that changes is shown anew. The review view reads its counts again.

const liveBox = byId<HTMLInputElement>("live");
const liveOut = byId("live-out");
let liveStop: AbortController | null = null;

function startLive(): void {
  liveStop?.abort();
  liveStop = null;
  liveOut.textContent = "";
  if (!view.live) return;
  const stop = new AbortController();
  liveStop = stop;
  void (async () => {
    let token = "";
    while (!stop.signal.aborted) {
      try {
        liveOut.textContent = "Following the changes made to the graph.";
        // From now, then from where the last answer left off: a stream cut (the HTTP port ends long
        // calls) resumes with no gap.
        for await (const resp of client.watchChanges(token ? { resumeToken: token } : {}, { signal: stop.signal, timeoutMs: 0 })) {
          token = resp.resumeToken || token;
          for (const c of resp.changes) await liveChange(c.resource, c.method, c.after || c.before);
        }
      } catch (e) {
        if (stop.signal.aborted) return;
        if (e instanceof ConnectError && e.code === Code.FailedPrecondition) token = ""; // too far behind: from now
        liveOut.textContent = `The change feed stopped (${describeError(e)}); trying again.`;
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
}

/** Flashes what a change touched, for a few seconds. */
function flash(ids: string[]): void {
  const els = cy.collection();
  for (const id of ids) els.merge(cy.getElementById(id));
  els.addClass("live");
  setTimeout(() => els.removeClass("live"), 8_000);
}

async function liveChange(resource: string, method: string, record: string): Promise<void> {
  if (review && view.review !== null && /Proposal|Document|Entit/.test(method)) void review.changed();
  if (view.review !== null || cy.nodes().empty()) return;
  if (resource.startsWith("relations/")) {
    let ends: { from?: string; to?: string } = {};
    try {
      ends = JSON.parse(record || "{}");
    } catch {
      return;
    }
    if (!ends.from || !ends.to || (cy.getElementById(ends.from).empty() && cy.getElementById(ends.to).empty())) return;
    // Whether it counts under the filters, as the service says: the one hop between its ends.
    const resp = await client
      .findPaths({ from: ends.from, to: ends.to, maxPaths: 1, maxDepth: 1, filter: filter(), followVia: view.followVia })
      .catch(() => undefined);
    if (!resp) return;
    const hop = resp.paths[0]?.hops[0];
    const relation = hop ? hopRelations(hop).find((x) => x.relation.name === resource)?.relation : undefined;
    if (!relation) {
      cy.getElementById(resource).remove();
      return;
    }
    const near = cy.getElementById(ends.from).nonempty() ? cy.getElementById(ends.from) : cy.getElementById(ends.to);
    const drawn = placedNodes();
    cy.batch(() => {
      for (const e of resp.entities) if (cy.getElementById(e.name).empty()) addEntity(e, undefined, near as cytoscape.NodeSingular);
      cy.getElementById(resource).remove();
      addEdge(edgeOfRelation(relation));
    });
    flash([resource, ends.from, ends.to]);
    relayout(false, drawn);
    setStatus(`${label(ends.from)} — ${label(ends.to)}: a relation ${method ? `written by ${method}` : "written"} now. ${shownSummary()}`);
    return;
  }
  const node = cy.getElementById(resource);
  if (node.empty()) return;
  const got = await client.getEntity({ name: resource }).catch(() => undefined);
  if (!got?.entity) return;
  node.data("label", got.entity.displayName || resource);
  flash([resource]);
}

liveBox.checked = view.live;
liveBox.addEventListener("change", () => {
  view.live = liveBox.checked;
  saveView(true);
  startLive();
});
startLive();

byId("mode-graph").addEventListener("click", () => void openGraph());
byId("mode-review").addEventListener("click", () => void openReview(view.review ?? lastReview));

// The list view (for the keyboard and screen readers) does what a click on the graph does.
listView(cy, { open: (name) => void focusEntity(name), expand: (name) => void openEntity(name), relation: (id) => void selectRelation(id) });
bottomSheet(cy);
buildTypeFilter();
legend();
showFilters();
health.start();
showMode();
if (view.review !== null) void openReview(view.review);
else void buildGraph(true);
