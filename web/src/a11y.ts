// What the page does for the keyboard, screen readers and small screens beyond its markup: the active
// option of a search box's suggestions (the WAI-ARIA combobox pattern), and the details panel as a
// bottom sheet on a phone, raised and lowered by its handle, with the graph kept above it.
import type cytoscape from "cytoscape";
import { byId } from "./dom";

/** A phone's width: the layout of explorer.css's narrowest media query. */
const phone = matchMedia("(max-width: 600px)");

/**
 * Marks the option at `active` (or none, at -1) as the one the arrow keys reached: aria-selected on it,
 * and the input's aria-activedescendant naming it, so a screen reader reads it while focus stays in the
 * input; it is scrolled into the list's view.
 */
export function markOption(input: HTMLInputElement, list: HTMLElement, active: number): void {
  const options = [...list.children] as HTMLElement[];
  options.forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
  const current = options[active];
  if (current?.id) {
    input.setAttribute("aria-activedescendant", current.id);
    current.scrollIntoView?.({ block: "nearest" });
  } else input.removeAttribute("aria-activedescendant");
}

/**
 * The details panel as a bottom sheet on narrow screens (the stylesheet places it): its handle raises it
 * over most of the screen and lowers it again. On wider screens the handle is not shown.
 */
export function bottomSheet(cy: cytoscape.Core): void {
  const sheet = byId("sheet");
  const handle = byId<HTMLButtonElement>("sheet-handle");
  const set = (raised: boolean) => {
    sheet.dataset.state = raised ? "high" : "low";
    handle.setAttribute("aria-expanded", String(raised));
    handle.textContent = raised ? "Lower the details" : "Raise the details";
  };
  handle.addEventListener("click", () => set(sheet.dataset.state !== "high"));
  byId("details").addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && sheet.dataset.state === "high") {
      set(false);
      handle.focus();
    }
  });
  set(false);
  // The graph drawn anew while the page is at its top: scrolled up to the graph, which then fills the
  // screen above the lowered sheet, rather than staying half under it.
  cy.on("layoutstop", () => {
    if (!phone.matches || sheet.dataset.state === "high") return;
    const top = byId("cy").getBoundingClientRect().top;
    if (top > 0 && top < innerHeight / 2) scrollBy({ top, behavior: "instant" as ScrollBehavior });
  });
}
