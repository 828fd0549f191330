// The vocabulary of the graph as the explorer shows it: how each kind of entity is drawn, what each
// relation type and claim status is called, and which colour family a relation type belongs to.
import { ClaimStatus, EntityKind, RelationType } from "./gen/polgraph/v1/resources_pb";

export type KindKey = "actor" | "party" | "seat" | "organisation";

export interface KindStyle {
  label: string;
  shape: "ellipse" | "hexagon" | "diamond" | "round-rectangle";
  color: string;
  /** A darker shade for text: white on it, or it on white, reads at 4.5:1 or better. */
  ink: string;
}

export const kinds: Record<KindKey, KindStyle> = {
  actor: { label: "actor", shape: "ellipse", color: "#2563eb", ink: "#1d4ed8" },
  party: { label: "party", shape: "hexagon", color: "#db2777", ink: "#be185d" },
  seat: { label: "seat", shape: "diamond", color: "#d97706", ink: "#b45309" },
  organisation: { label: "organisation", shape: "round-rectangle", color: "#059669", ink: "#047857" },
};

export function kindKey(k: EntityKind): KindKey {
  switch (k) {
    case EntityKind.PARTY:
      return "party";
    case EntityKind.SEAT:
      return "seat";
    case EntityKind.ORGANISATION:
      return "organisation";
    default:
      return "actor";
  }
}

export type Family = "structure" | "ties" | "conflict";

export const families: Record<Family, { label: string; color: string }> = {
  structure: { label: "membership, office, structure", color: "#64748b" },
  ties: { label: "support and personal ties", color: "#0f766e" },
  conflict: { label: "conflict", color: "#7c3aed" },
};

/** The colour of relations with a denying claim: disputed, drawn dashed in this colour. */
export const disputedColor = "#ea580c";
/** The same, darker, for a tag with white text on it. */
export const disputedInk = "#c2410c";

/** Relation types in the order the filter lists them, with their family. */
export const relationTypes: { type: RelationType; key: string; family: Family }[] = [
  [RelationType.MEMBER_OF, "structure"],
  [RelationType.LEADS, "structure"],
  [RelationType.HOLDS_OFFICE, "structure"],
  [RelationType.CANDIDATE_FOR, "structure"],
  [RelationType.FOUNDED, "structure"],
  [RelationType.DISSOLVED, "structure"],
  [RelationType.PART_OF, "structure"],
  [RelationType.SUCCEEDED_BY, "structure"],
  [RelationType.ENDORSES, "ties"],
  [RelationType.CAMPAIGNED_WITH, "ties"],
  [RelationType.APPEARED_WITH, "ties"],
  [RelationType.FORMERLY_WORKED_WITH, "ties"],
  [RelationType.FAMILY, "ties"],
  [RelationType.CRITICISED, "conflict"],
  [RelationType.ACCUSED, "conflict"],
  [RelationType.DEFEATED, "conflict"],
  [RelationType.REMOVED_FROM_OFFICE, "conflict"],
  [RelationType.DESELECTED, "conflict"],
  [RelationType.SUSPENDED_FROM, "conflict"],
  [RelationType.RESIGNED_FROM, "conflict"],
].map(([type, family]) => ({ type: type as RelationType, key: RelationType[type as RelationType], family: family as Family }));

const familyOf = new Map(relationTypes.map((t) => [t.type, t.family]));

export function typeFamily(t: RelationType): Family {
  return familyOf.get(t) ?? "structure";
}

/** "HOLDS_OFFICE" → "holds office". */
export function typeLabel(t: RelationType): string {
  return (RelationType[t] ?? "UNSPECIFIED").toLowerCase().replaceAll("_", " ");
}

export function typeFromKey(key: string): RelationType | undefined {
  const v = (RelationType as unknown as Record<string, number>)[key];
  return typeof v === "number" && v !== RelationType.UNSPECIFIED ? (v as RelationType) : undefined;
}

export const statusKeys = ["ALLEGED", "REPORTED", "CONFIRMED", "DENIED"] as const;
export type StatusKey = (typeof statusKeys)[number];

export function statusKey(s: ClaimStatus): StatusKey {
  return (ClaimStatus[s] as StatusKey) ?? "REPORTED";
}

export function statusFromKey(key: string): ClaimStatus | undefined {
  const v = (ClaimStatus as unknown as Record<string, number>)[key];
  return typeof v === "number" && v !== ClaimStatus.UNSPECIFIED ? (v as ClaimStatus) : undefined;
}

/** A relation's time, as people write it: "2010–2015", "from 2022", "until 2010", "2014". */
export function timeLabel(r: { validFrom: string; validTo: string; date: string }): string {
  if (r.date) return r.date;
  if (r.validFrom && r.validTo) return `${r.validFrom}–${r.validTo}`;
  if (r.validFrom) return `from ${r.validFrom}`;
  if (r.validTo) return `until ${r.validTo}`;
  return "";
}

/** A relation's time, or "no date" for one the sources give no date at all. */
export function timeOrUndated(r: { validFrom: string; validTo: string; date: string; undated: boolean }): string {
  return r.undated ? "no date" : timeLabel(r);
}

type Precision = 0 | 1 | 2; // year, month, day

/** How short a day can be said at that end of a span: "2010-01-01" as a start is the year 2010. */
function precisionOf(day: string, end: "from" | "to"): Precision {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return 2;
  const [, y, mo, d] = m;
  if (end === "from") return d !== "01" ? 2 : mo === "01" ? 0 : 1;
  const last = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  return Number(d) !== last ? 2 : mo === "12" ? 0 : 1;
}

function cut(day: string, p: Precision): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? day.slice(0, [4, 7, 10][p]) : day;
}

/**
 * A span of days (DateRange, both ends included, an empty end open), as people write it: "2022",
 * "2020-04–2022-03", "2024-07-04 – 2024-12-31", "from 2020-04 on"; both ends said as precisely as the
 * more precise one needs.
 */
export function spanLabel(r: { from: string; to: string }): string {
  if (r.from && r.to) {
    const p = Math.max(precisionOf(r.from, "from"), precisionOf(r.to, "to")) as Precision;
    const from = cut(r.from, p);
    const to = cut(r.to, p);
    return from === to ? from : p === 2 ? `${from} – ${to}` : `${from}–${to}`;
  }
  if (r.from) return `from ${cut(r.from, precisionOf(r.from, "from"))} on`;
  if (r.to) return `until ${cut(r.to, precisionOf(r.to, "to"))}`;
  return "all along";
}

/** The first day a fuzzy date (YYYY, YYYY-MM, YYYY-MM-DD) can mean. */
function firstDay(d: string): string {
  return d.length === 4 ? `${d}-01-01` : d.length === 7 ? `${d}-01` : d;
}

/** The last day a fuzzy date can mean. */
function lastDay(d: string): string {
  if (d.length === 4) return `${d}-12-31`;
  if (d.length === 7) {
    const last = new Date(Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)), 0)).getUTCDate();
    return `${d}-${String(last).padStart(2, "0")}`;
  }
  return d;
}

/**
 * Whether a relation held on some day of the spans given (a co-temporal path's `during`), each fuzzy bound
 * read at its widest: an event during its date, a state between its bounds, an undated one at any time.
 * The spans already lie within the lifetimes of the hop's ends, so those need no check here.
 */
export function heldDuring(
  r: { validFrom: string; validTo: string; date: string; undated: boolean },
  spans: { from: string; to: string }[],
): boolean {
  if (r.undated) return true;
  const from = r.date ? firstDay(r.date) : r.validFrom ? firstDay(r.validFrom) : "";
  const to = r.date ? lastDay(r.date) : r.validTo ? lastDay(r.validTo) : "";
  return spans.some((s) => (!to || !s.from || s.from <= to) && (!from || !s.to || from <= s.to));
}
