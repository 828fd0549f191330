// The graph as a list, over the canvas while the List button is pressed: every entity shown with the
// relations drawn to it, each a button, so that a keyboard or a screen reader can do what a click on the
// graph does: show an entity's details, expand it, open a relation's claims. What it picks is selected in
// the graph too. Up and Down move between entities, Home and End to the first and last, Escape closes it.
import type cytoscape from "cytoscape";
import { byId, h } from "./dom";
import { kinds, type KindKey } from "./vocab";

export interface ListActions {
  /** Shows an entity's details, selected in the graph. */
  open(name: string): void;
  /** Draws an entity's neighbours, or the next of them when it is expanded already. */
  expand(name: string): void;
  /** Shows a relation's claims, selected in the graph. */
  relation(id: string): void;
}

/** One relation as seen from one of its ends: the way it goes, what it is, and who is at the other end. */
function relationText(e: cytoscape.EdgeSingular, from: string): string {
  const out = e.source().id() === from;
  const other = out ? e.target() : e.source();
  const way = e.data("symmetric") ? "—" : out ? "→" : "←";
  const notes = [e.data("disputed") ? "disputed" : "", e.data("undated") ? "undated" : "", e.data("throughVia") ? "through its via" : ""].filter(Boolean);
  return `${way} ${e.data("label")}: ${other.data("label")}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

export function listView(cy: cytoscape.Core, act: ListActions): void {
  const root = byId("listview");
  const toggle = byId<HTMLButtonElement>("list-toggle");
  let shown = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const render = () => {
    timer = undefined;
    const had = root.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null;
    const key = had?.dataset.key;
    const owner = had?.dataset.for;
    const selected = new Set(cy.$(":selected").map((x) => x.id()));
    const nodes = cy
      .nodes()
      .not(".more")
      .sort((a, b) => String(a.data("label")).localeCompare(String(b.data("label"))));
    const edges = cy.edges().not(".more-edge");
    const rows = nodes.map((el) => {
      const n = el as cytoscape.NodeSingular;
      const id = n.id();
      const name = String(n.data("label"));
      const kind = kinds[n.data("kind") as KindKey] ?? kinds.actor;
      const more = cy.getElementById(`more:${id}`);
      const expanded = n.hasClass("expanded");
      const own = n.connectedEdges().not(".more-edge");
      const expand =
        !expanded
          ? h("button", { type: "button", "data-key": `expand:${id}`, "data-for": id, "data-action": "expand", title: `Draw what surrounds ${name}` },
              "Expand", h("span", { class: "sr-only" }, ` ${name}`))
          : more.nonempty()
            ? h("button", { type: "button", "data-key": `expand:${id}`, "data-for": id, "data-action": "expand", title: String(more.data("title") ?? "") },
                `Show ${more.data("leftOut")} more`, h("span", { class: "sr-only" }, ` around ${name}`))
            : null;
      return h("li", { class: selected.has(id) ? "entity current" : "entity", "data-entity": id },
        h("div", { class: "entity-head" },
          h("button", { type: "button", class: "entity-link", "data-key": `open:${id}`, "data-for": id, "data-row": "1",
            "aria-current": selected.has(id) ? "true" : undefined, title: `${name}: its details` }, name),
          h("span", { class: "kind", style: `color:${kind.ink}` }, kind.label),
          h("span", { class: "muted small" },
            `${own.length} of ${Number(n.data("relationCount") ?? 0) || own.length} relations shown${expanded ? ", expanded" : ""}`),
          expand,
        ),
        own.nonempty()
          ? h("ul", { class: "relations", "aria-label": `Relations of ${name}` },
              own.map((e: cytoscape.EdgeSingular) =>
                h("li", null,
                  h("button", { type: "button", class: "link", "data-key": `rel:${e.id()}:${id}`, "data-for": id, "data-relation": e.id(),
                    "aria-current": selected.has(e.id()) ? "true" : undefined }, relationText(e, id)),
                ),
              ),
            )
          : null,
      );
    });
    const summary = nodes.length
      ? `${nodes.length} ${nodes.length === 1 ? "entity" : "entities"} and ${edges.length} ${edges.length === 1 ? "relation" : "relations"} shown. ` +
        "Up and Down move between entities; Enter on a name shows its details, on Expand draws its neighbours, on a relation its claims."
      : "Nothing is shown yet: search for an entity above, or find a path.";
    root.replaceChildren(
      h("h2", { id: "listview-title" }, "The graph as a list"),
      h("p", { class: "hint", id: "listview-summary" }, summary),
      ...(rows.length ? [h("ul", { class: "entities", "aria-labelledby": "listview-title", "aria-describedby": "listview-summary" }, rows)] : []),
    );
    if (!had) return;
    const esc = (s: string) => CSS.escape(s);
    const back =
      (key ? root.querySelector<HTMLElement>(`[data-key="${esc(key)}"]`) : null) ??
      (owner ? root.querySelector<HTMLElement>(`[data-key="${esc(`open:${owner}`)}"]`) : null) ??
      root.querySelector<HTMLElement>("[data-row]");
    (back ?? toggle).focus();
  };
  const later = () => {
    if (!shown || timer !== undefined) return;
    timer = setTimeout(render, 60);
  };
  cy.on("add remove data select unselect class", later);

  const show = (on: boolean) => {
    shown = on;
    root.hidden = !on;
    toggle.setAttribute("aria-pressed", String(on));
    document.body.dataset.list = on ? "1" : "0";
    if (!on) {
      if (root.contains(document.activeElement) || document.activeElement === document.body) toggle.focus();
      return;
    }
    render();
    const first = root.querySelector<HTMLElement>('li.current [data-row]') ?? root.querySelector<HTMLElement>("[data-row]");
    first?.focus();
  };
  toggle.addEventListener("click", () => show(!shown));

  root.addEventListener("click", (ev) => {
    const b = (ev.target as HTMLElement).closest<HTMLElement>("button[data-key]");
    if (!b) return;
    const id = b.dataset.for!;
    if (b.dataset.relation) act.relation(b.dataset.relation);
    else if (b.dataset.action === "expand") act.expand(id);
    else act.open(id);
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      show(false);
      return;
    }
    if (!["ArrowDown", "ArrowUp", "Home", "End"].includes(ev.key)) return;
    const rows = [...root.querySelectorAll<HTMLElement>("[data-row]")];
    if (!rows.length) return;
    ev.preventDefault();
    const at = (document.activeElement as HTMLElement | null)?.closest("li.entity");
    const i = rows.findIndex((r) => r.closest("li.entity") === at);
    const next =
      ev.key === "Home" ? 0
      : ev.key === "End" ? rows.length - 1
      : i < 0 ? 0
      : Math.max(0, Math.min(rows.length - 1, i + (ev.key === "ArrowDown" ? 1 : -1)));
    rows[next].focus();
  });
}
