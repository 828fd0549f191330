// The view state that the page's address holds, so that a link reopens the same view: the steps that
// built the graph (entities opened or expanded, paths asked for, in order), the filters, what the side
// panel shows, and whether the review view is open (and on which document). Replaying the steps with the
// filters rebuilds the same graph, because the service's answers are deterministic.
export type Step = { op: "open"; name: string } | { op: "path"; from: string; to: string };

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
}

export const defaultPerNode = 10;

export function emptyView(): View {
  return { steps: [], asOf: "", undated: false, minConfidence: 0, types: [], statuses: [], perNode: defaultPerNode, coTemporal: false, followVia: false, selected: "", route: -1, live: false, review: null };
}

const enc = (s: string) => encodeURIComponent(s).replaceAll("%2F", "/");

/** The query string (without "?") for a view. */
export function formatView(v: View): string {
  const parts: string[] = [];
  for (const s of v.steps) {
    if (s.op === "open") parts.push(`open=${enc(s.name)}`);
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
    }
  }
  return v;
}
