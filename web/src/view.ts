// The view state that the page's address holds, so that a link reopens the same view: the steps that
// built the graph (entities opened or expanded, paths asked for, in order), the filters, what the side
// panel shows, and whether the review view is open (and on which document). Replaying the steps with the
// filters rebuilds the same graph, because the service's answers are deterministic.
// A hide step takes an entity out of what the steps before it drew; a later step may draw it again.
// An expand step draws an entity's neighbours through one relation type (a key such as MEMBER_OF), one way
// ("out": the entity is the relation's from, "in": its to) or either ("any").
export type Direction = "out" | "in" | "any";
export type Step =
  | { op: "open"; name: string }
  | { op: "path"; from: string; to: string }
  | { op: "hide"; name: string }
  | { op: "expand"; name: string; type: string; dir: Direction };

export interface View {
  steps: Step[];
  /** YYYY, or "" for any time. */
  asOf: string;
  /**
   * Whether relations without any date count as of a year (UNDATED_POLICY_INCLUDE). False leaves it to the
   * service, which leaves them out when there is a year and counts them when there is none.
   */
  undated: boolean;
  minConfidence: number;
  /** Relation type keys (MEMBER_OF, ...) that count; empty means every type. */
  types: string[];
  /** Claim status keys that count; empty means the service's default (alleged, reported, confirmed). */
  statuses: string[];
  /** New neighbours per expansion. */
  perNode: number;
  /** Paths are asked for co-temporal: only routes whose hops all held at one moment. */
  coTemporal: boolean;
  /** Relations also join their `from` to their via (a member to the party they sat for). */
  followVia: boolean;
  /** The side panel: an entity's or a relation's resource name, "paths", or "". */
  selected: string;
  /** The route picked among the last paths asked for (0-based), or -1 for all of them. */
  route: number;
  /** Changes to what is shown appear as they are committed (the change feed). */
  live: boolean;
  /** The review view: null when the graph is shown, "" for the list of documents, else a document's hash. */
  review: string | null;
  /** Where each node was drawn (encodePositions), so that a link reopens the same picture; "" for none. */
  pos: string;
  /** What sizes nodes: "" the relations the entity has in the graph, "degree" those drawn, "kind" its kind. */
  size: "" | "degree" | "kind";
  /** The years whose relations stay drawn (of those the steps drew), or null for every year. */
  range: [number, number] | null;
  /** Two years compared: what held in the first only, in the second only, in both; or null. */
  compare: [number, number] | null;
  /** Entities pinned where they are: no layout moves them. */
  pins: string[];
  /** Named groups of entities, drawn in a box of their own. */
  groups: Group[];
  /** Notes on entities and relations, by resource name. */
  notes: Map<string, string>;
  /** The saved view (ViewService) this view was opened from or saved as: `views/<id>`, or "". */
  saved: string;
}

export interface Group {
  label: string;
  members: string[];
}

export const defaultPerNode = 10;

export function emptyView(): View {
  return { steps: [], asOf: "", undated: false, minConfidence: 0, types: [], statuses: [], perNode: defaultPerNode, coTemporal: false, followVia: false, selected: "", route: -1, live: false, review: null, pos: "", size: "", range: null, compare: null, pins: [], groups: [], notes: new Map(), saved: "" };
}

const enc = (s: string) => encodeURIComponent(s).replaceAll("%2F", "/");

/** The query string (without "?") for a view. */
export function formatView(v: View): string {
  const parts: string[] = [];
  for (const s of v.steps) {
    if (s.op === "open") parts.push(`open=${enc(s.name)}`);
    else if (s.op === "hide") parts.push(`hide=${enc(s.name)}`);
    else if (s.op === "expand") parts.push(`expand=${enc(s.name)},${enc(s.type)},${s.dir}`);
    else parts.push(`path=${enc(s.from)},${enc(s.to)}`);
  }
  if (v.asOf) parts.push(`asof=${enc(v.asOf)}`);
  if (v.undated && v.asOf) parts.push("undated=include");
  if (v.minConfidence > 0) parts.push(`minconf=${v.minConfidence}`);
  if (v.types.length) parts.push(`types=${v.types.map(enc).join(",")}`);
  if (v.statuses.length) parts.push(`statuses=${v.statuses.map(enc).join(",")}`);
  if (v.perNode !== defaultPerNode) parts.push(`per=${v.perNode}`);
  if (v.coTemporal) parts.push("cotemporal=1");
  if (v.followVia) parts.push("via=1");
  if (v.selected) parts.push(`sel=${enc(v.selected)}`);
  if (v.route >= 0) parts.push(`route=${v.route + 1}`);
  if (v.live) parts.push("live=1");
  if (v.review !== null) parts.push(v.review ? `review=${enc(v.review)}` : "review");
  if (v.size) parts.push(`size=${v.size}`);
  if (v.pins.length) parts.push(`pin=${v.pins.map(enc).join(",")}`);
  for (const g of v.groups) parts.push(`group=${[g.label, ...g.members].map(encodeURIComponent).join("~")}`);
  for (const [target, text] of v.notes) parts.push(`note=${enc(target)}~${encodeURIComponent(text)}`);
  if (v.range) parts.push(`range=${v.range[0]}-${v.range[1]}`);
  if (v.compare) parts.push(`compare=${v.compare[0]},${v.compare[1]}`);
  if (v.saved) parts.push(`saved=${enc(v.saved)}`);
  if (v.pos) parts.push(`pos=${v.pos}`);
  return parts.join("&");
}

/** The view a query string describes; what does not parse is left at its default. */
export function parseView(query: string): View {
  const v = emptyView();
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s.replaceAll("+", " "));
    } catch {
      return "";
    }
  };
  for (const part of query.replace(/^\?/, "").split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.slice(0, eq);
    const raw = eq < 0 ? "" : part.slice(eq + 1);
    switch (key) {
      case "open": {
        const name = dec(raw);
        if (name) v.steps.push({ op: "open", name });
        break;
      }
      case "expand": {
        const [name, type, dir] = raw.split(",").map(dec);
        if (name && /^[A-Z_]+$/.test(type ?? "") && (dir === "out" || dir === "in" || dir === "any")) v.steps.push({ op: "expand", name, type, dir });
        break;
      }
      case "hide": {
        const name = dec(raw);
        if (name) v.steps.push({ op: "hide", name });
        break;
      }
      case "path": {
        const [from, to] = raw.split(",").map(dec);
        if (from && to) v.steps.push({ op: "path", from, to });
        break;
      }
      case "asof":
        if (/^\d{4}$/.test(dec(raw))) v.asOf = dec(raw);
        break;
      case "undated":
        v.undated = dec(raw) === "include";
        break;
      case "cotemporal":
        v.coTemporal = dec(raw) === "1";
        break;
      case "via":
        v.followVia = dec(raw) === "1";
        break;
      case "live":
        v.live = dec(raw) === "1";
        break;
      case "minconf": {
        const c = Number(dec(raw));
        if (c >= 0 && c <= 1) v.minConfidence = c;
        break;
      }
      case "types":
        v.types = raw.split(",").map(dec).filter(Boolean);
        break;
      case "statuses":
        v.statuses = raw.split(",").map(dec).filter(Boolean);
        break;
      case "per": {
        const n = Number(dec(raw));
        if (Number.isInteger(n) && n >= 1 && n <= 200) v.perNode = n;
        break;
      }
      case "sel":
        v.selected = dec(raw);
        break;
      case "route": {
        const n = Number(dec(raw));
        if (Number.isInteger(n) && n >= 1 && n <= 20) v.route = n - 1;
        break;
      }
      case "review":
        v.review = dec(raw);
        break;
      case "range": {
        const m = /^(\d{4})-(\d{4})$/.exec(dec(raw));
        if (m && Number(m[1]) <= Number(m[2])) v.range = [Number(m[1]), Number(m[2])];
        break;
      }
      case "compare": {
        const m = /^(\d{4}),(\d{4})$/.exec(dec(raw));
        if (m) v.compare = [Number(m[1]), Number(m[2])];
        break;
      }
      case "saved": {
        const name = dec(raw);
        if (/^views\/[a-z0-9-]+$/.test(name)) v.saved = name;
        break;
      }
      case "pin":
        v.pins = raw.split(",").map(dec).filter(Boolean);
        break;
      case "group": {
        const [label, ...members] = raw.split("~").map(dec);
        if (label && members.length) v.groups.push({ label, members: members.filter(Boolean) });
        break;
      }
      case "note": {
        const at = raw.indexOf("~");
        const target = dec(raw.slice(0, at));
        const text = dec(raw.slice(at + 1));
        if (at > 0 && target && text) v.notes.set(target, text);
        break;
      }
      case "size": {
        const k = dec(raw);
        if (k === "degree" || k === "kind") v.size = k;
        break;
      }
      case "pos":
        if (/^[0-9a-z]+(~-?[0-9a-z]+\.-?[0-9a-z]+)*$/.test(raw)) v.pos = raw;
        break;
    }
  }
  return v;
}

export type Position = { x: number; y: number };

/** FNV-1a of the text, in base 36: the fingerprint of a set of node ids. */
function idsHash(ids: string[]): string {
  let h = 0x811c9dc5;
  for (const ch of ids.join("\n")) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/**
 * The positions of the nodes, compact for an address: a fingerprint of the node ids (sorted), then each
 * node's x and y, rounded, in base 36, in the ids' order: "1x9k2~-2s.1b~4f.-a".
 */
export function encodePositions(at: Map<string, Position>): string {
  const ids = [...at.keys()].sort();
  if (!ids.length) return "";
  const n = (v: number) => Math.round(v).toString(36);
  return [idsHash(ids), ...ids.map((id) => `${n(at.get(id)!.x)}.${n(at.get(id)!.y)}`)].join("~");
}

/** The positions an encoding holds for exactly these node ids, or null when it was made for others. */
export function decodePositions(pos: string, ids: string[]): Map<string, Position> | null {
  if (!pos) return null;
  const sorted = [...ids].sort();
  const [hash, ...xy] = pos.split("~");
  if (hash !== idsHash(sorted) || xy.length !== sorted.length) return null;
  const at = new Map<string, Position>();
  for (const [i, id] of sorted.entries()) {
    const [x, y] = xy[i].split(".").map((v) => parseInt(v, 36));
    if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
    at.set(id, { x, y });
  }
  return at;
}
