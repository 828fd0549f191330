// Parallel relations: two entities joined by two or more relations are drawn as one edge that counts them
// ("3 relations"), so that a hub's edges and labels stay readable. A bundle opens (its relations drawn one
// by one) while it is selected, while one of its relations is selected or on a path shown, or when the
// page asks for it.
import type cytoscape from "cytoscape";

/** The bundle of the relations between two entities: the same id whichever way the relations run. */
function bundleId(a: string, b: string): string {
  return `bundle:${[a, b].sort().join("|")}`;
}

export const isBundle = (id: string) => id.startsWith("bundle:");

/**
 * Makes the bundles match the relations drawn: one per pair of entities with two or more, its count and
 * title up to date, none for a pair with fewer. open says which bundles show their relations instead.
 */
export function rebundle(cy: cytoscape.Core, open: (id: string, members: cytoscape.EdgeSingular[]) => boolean): void {
  const pairs = new Map<string, cytoscape.EdgeSingular[]>();
  cy.edges()
    .not(".more-edge, .bundle, .outtime")
    .forEach((e) => {
      const id = bundleId(e.source().id(), e.target().id());
      pairs.set(id, [...(pairs.get(id) ?? []), e]);
    });
  cy.batch(() => {
    cy.edges(".bundle").forEach((b) => {
      if ((pairs.get(b.id())?.length ?? 0) < 2) b.remove();
    });
    for (const [id, list] of pairs) {
      const members = list.reduce((c, e) => c.union(e), cy.collection()) as cytoscape.EdgeCollection;
      if (list.length < 2) {
        members.removeClass("bundled");
        continue;
      }
      const opened = open(id, list);
      members.toggleClass("bundled", !opened);
      const labels = list.map((e) => String(e.data("label")));
      const disputed = list.some((e) => e.hasClass("disputed"));
      const data = {
        count: list.length,
        label: `${list.length} relations`,
        members: list.map((e) => e.id()).sort(),
        title: `${list.length} relations: ${labels.join("; ")}${disputed ? " (one disputed)" : ""} — click to list them`,
        confidence: Math.max(...list.map((e) => Number(e.data("confidence") ?? 0))),
      };
      let b = cy.getElementById(id);
      if (b.empty()) {
        const [source, target] = id.slice("bundle:".length).split("|");
        b = cy.add({ group: "edges", data: { id, source, target, ...data }, classes: "bundle" });
      } else b.data(data);
      b.toggleClass("open", opened);
      b.toggleClass("disputed", disputed);
    }
  });
}
