// The vocabulary of the graph as the explorer shows it: how each kind of entity is drawn, what each
// relation type and claim status is called, and which colour family a relation type belongs to.
import { ClaimStatus, EntityKind, RelationType } from "./gen/polgraph/v1/resources_pb";

export type KindKey = "actor" | "party" | "seat" | "organisation";

export interface KindStyle {
  label: string;
  shape: "ellipse" | "hexagon" | "diamond" | "round-rectangle";
  color: string;
}

export const kinds: Record<KindKey, KindStyle> = {
  actor: { label: "actor", shape: "ellipse", color: "#2563eb" },
  party: { label: "party", shape: "hexagon", color: "#db2777" },
  seat: { label: "seat", shape: "diamond", color: "#d97706" },
  organisation: { label: "organisation", shape: "round-rectangle", color: "#059669" },
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

/** Relation types in the order the filter lists them, with their family. */
export const relationTypes: { type: RelationType; key: string; family: Family }[] = [
  [RelationType.MEMBER_OF, "structure"],
  [RelationType.LEADS, "structure"],
  [RelationType.HOLDS_OFFICE, "structure"],
  [RelationType.CANDIDATE_FOR, "structure"],
  [RelationType.FOUNDED, "structure"],
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
