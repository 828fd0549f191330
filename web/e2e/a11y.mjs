// The explorer's checks for the keyboard, screen readers and phones, shared by explorer.mjs and review.mjs:
// axe-core's audit of a page, the list view driven by the keyboard alone, the search box's combobox,
// and a phone's layout.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const wait = 20_000;
let axeSource;

/**
 * Runs axe-core on the page as it stands and fails on any violation of serious or critical impact,
 * printing every violation found. The page's content security policy refuses inline scripts, so axe is
 * evaluated through the debugging protocol, which it does not govern. Returns the violations by impact.
 */
export async function axeClean(page, what) {
  axeSource ??= await readFile(path.join(here, "../node_modules/axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ")}`),
    }));
  });
  const byImpact = {};
  for (const v of violations) {
    byImpact[v.impact] = (byImpact[v.impact] ?? 0) + 1;
    console.log(`  axe (${what}): ${v.impact} ${v.id} — ${v.help}\n    ${v.nodes.slice(0, 5).join("\n    ")}`);
  }
  console.log(`  axe (${what}): ${violations.length ? JSON.stringify(byImpact) : "no violations"}`);
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(bad.map((v) => `${v.impact} ${v.id}: ${v.nodes[0]}`), [], `axe-core finds no serious or critical violation (${what})`);
  return byImpact;
}

/** The element the keyboard is on: its id, text, data-key and role. */
const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a ? { id: a.id, text: a.textContent.trim(), key: a.dataset?.key ?? "", tag: a.tagName } : null;
  });

/** Presses Tab until the element matching `selector` has the focus: as a keyboard reaches it. */
export async function tabTo(page, selector, most = 80) {
  for (let i = 0; i < most; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  assert.fail(`${most} presses of Tab never reached ${selector}; the focus is on ${JSON.stringify(await focused(page))}`);
}

/**
 * The search box as a combobox, by the keyboard: typing opens the listbox, the arrows move the active
 * option that aria-activedescendant names, Escape closes it.
 */
export async function comboboxByKeyboard(page, text) {
  const input = page.locator("#search-input");
  await input.focus();
  await page.keyboard.type(text, { delay: 40 });
  await page.locator("#search-list li[role=option][id]").first().waitFor({ state: "visible", timeout: wait });
  const state = () =>
    page.evaluate(() => {
      const i = document.getElementById("search-input");
      const list = document.getElementById(i.getAttribute("aria-controls"));
      const active = i.getAttribute("aria-activedescendant");
      return {
        role: i.getAttribute("role"),
        expanded: i.getAttribute("aria-expanded"),
        listRole: list?.getAttribute("role"),
        options: [...(list?.children ?? [])].map((li) => li.getAttribute("role")),
        active,
        activeSelected: active ? document.getElementById(active)?.getAttribute("aria-selected") : null,
        activeIndex: [...(list?.children ?? [])].findIndex((li) => li.id === active),
      };
    });
  let s = await state();
  assert.equal(s.role, "combobox", "the search box is a combobox");
  assert.equal(s.expanded, "true", "with its suggestions open it says so");
  assert.equal(s.listRole, "listbox", "it controls a listbox");
  assert.ok(s.options.length > 1 && s.options.every((r) => r === "option"), `the listbox holds options only: ${s.options}`);
  assert.equal(s.activeIndex, 0, "the first option is the active one");
  assert.equal(s.activeSelected, "true", "and is marked selected");
  await page.keyboard.press("ArrowDown");
  s = await state();
  assert.equal(s.activeIndex, 1, "Down moves aria-activedescendant to the next option");
  assert.equal(s.activeSelected, "true");
  await page.keyboard.press("ArrowUp");
  assert.equal((await state()).activeIndex, 0, "Up moves it back");
  await page.keyboard.press("Escape");
  s = await state();
  assert.equal(s.expanded, "false", "Escape closes the suggestions");
  assert.equal(s.active, null, "and nothing is active then");
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
}

/**
 * The list view by the keyboard alone, on a page showing an entity's neighbourhood: the List button
 * reached with Tab and pressed with Enter; the arrows to an entity not expanded; Enter on its name shows
 * its details; Tab to its Expand button and Enter draws its neighbours; Tab on to one of its relations and
 * Enter opens that relation's claims, selected in the graph too. No mouse is used.
 */
export async function listByKeyboard(page, idle) {
  const graph = () =>
    page.evaluate(() => ({
      nodes: window.explorer.cy.nodes().not(".more").map((n) => n.id()),
      expanded: window.explorer.cy.nodes(".expanded").map((n) => n.id()),
      selected: window.explorer.cy.$(":selected").map((x) => x.id()),
    }));
  const before = await graph();
  await tabTo(page, "#list-toggle");
  await page.keyboard.press("Enter");
  await page.locator("#listview li.entity").first().waitFor({ timeout: wait });
  assert.equal(await page.locator("#list-toggle").getAttribute("aria-pressed"), "true", "the List button says it is pressed");
  const rows = await page.locator("#listview li.entity").evaluateAll((lis) => lis.map((li) => li.dataset.entity));
  assert.deepEqual([...rows].sort(), [...before.nodes].sort(), "the list holds every entity drawn");
  let f = await focused(page);
  assert.match(f.key, /^open:/, `opening the list puts the focus on an entity: ${JSON.stringify(f)}`);
  // Down to the first entity that is not expanded and has relations to draw.
  const target = await page.evaluate(() => {
    const cy = window.explorer.cy;
    const rows = [...document.querySelectorAll("#listview [data-row]")].map((b) => b.dataset.for);
    return rows.find((id) => !cy.getElementById(id).hasClass("expanded") && Number(cy.getElementById(id).data("relationCount")) > cy.getElementById(id).connectedEdges().length);
  });
  assert.ok(target, "some entity in the list is not expanded and has more to draw");
  await page.keyboard.press("Home");
  for (let i = 0; i < rows.length && (await focused(page)).key !== `open:${target}`; i++) await page.keyboard.press("ArrowDown");
  assert.equal((await focused(page)).key, `open:${target}`, `Down reaches ${target}`);
  await page.keyboard.press("Enter");
  await idle(page);
  await page.locator(`[data-panel="entity"] .sub`, { hasText: target }).waitFor({ timeout: wait });
  assert.deepEqual((await graph()).selected, [target], "Enter on its name shows its details and selects it in the graph");
  await page.keyboard.press("Tab");
  f = await focused(page);
  assert.equal(f.key, `expand:${target}`, `Tab goes on to its Expand button: ${JSON.stringify(f)}`);
  await page.keyboard.press("Enter");
  await idle(page);
  const after = await graph();
  assert.ok(after.expanded.includes(target), `Enter on Expand expands ${target}`);
  assert.ok(after.nodes.length > before.nodes.length, `its neighbours are drawn: ${before.nodes.length} → ${after.nodes.length} entities`);
  await page.locator(`#listview li.entity[data-entity="${target}"] .relations li`).nth(1).waitFor({ timeout: wait });
  const count = await page.locator("#listview li.entity").count();
  assert.equal(count, after.nodes.length, "the list follows the graph");
  f = await focused(page);
  assert.ok(f.key === `open:${target}` || f.key === `expand:${target}`, `the focus stays on ${target}'s row: ${JSON.stringify(f)}`);
  // On to its first relation.
  for (let i = 0; i < 3 && !(await focused(page)).key.startsWith("rel:"); i++) await page.keyboard.press("Tab");
  f = await focused(page);
  assert.ok(f.key.startsWith(`rel:`) && f.key.endsWith(`:${target}`), `Tab reaches a relation of ${target}: ${JSON.stringify(f)}`);
  const relation = await page.evaluate(() => document.activeElement.dataset.relation);
  await page.keyboard.press("Enter");
  await idle(page);
  await page.locator('[data-panel="relation"]').waitFor({ timeout: wait });
  const sel = await graph();
  assert.deepEqual(sel.selected, [relation], "Enter on a relation opens its claims and selects its edge");
  assert.equal(await page.evaluate(() => window.explorer.view.selected), relation);
  assert.equal(
    await page.locator(`#listview [data-relation="${relation}"][aria-current="true"]`).count() > 0,
    true,
    "the list marks the relation selected",
  );
  console.log(`  by the keyboard: ${target} opened, expanded (${before.nodes.length} → ${after.nodes.length} entities), then ${relation}`);
  return target;
}

/** Whether the page scrolls sideways, and by how much. */
export const sideways = (page) =>
  page.evaluate(() => ({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth }));

/**
 * The explorer on a phone (390×844): no sideways scroll with an entity open and its suggestions open;
 * the path inputs wide enough to type in; labels legible and the entity opened on screen; the details a
 * bottom sheet that its handle raises and lowers. Returns the measurements.
 */
export async function phoneLayout(context, url, idle, watch) {
  const page = await context.newPage();
  watch?.(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url);
  await idle(page);
  await page.locator('[data-panel="entity"]').waitFor({ timeout: wait });
  const m = await page.evaluate(() => {
    const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();
    const cy = window.explorer.cy;
    const sel = cy.getElementById(window.explorer.view.selected);
    const c = cy.container().getBoundingClientRect();
    const p = sel.renderedPosition();
    return {
      scrollWidth: document.scrollingElement.scrollWidth,
      innerWidth,
      innerHeight,
      search: box("search-input").width,
      from: box("path-from").width,
      to: box("path-to").width,
      sheet: box("sheet"),
      details: { ...box("details"), scrollHeight: document.getElementById("details").scrollHeight, overflowY: getComputedStyle(document.getElementById("details")).overflowY },
      canvas: c.toJSON(),
      // The labels drawn (far out, only those of the entities that matter), at their size on screen.
      labelPx: Math.min(...cy.nodes().not(".more, .group").filter((n) => n.pstyle("label").strValue !== "").map((n) => parseFloat(n.style("font-size")) * cy.zoom())),
      selectedLabelled: sel.pstyle("label").strValue !== "",
      selected: { x: c.left + p.x, y: c.top + p.y },
    };
  });
  console.log(`  phone: ${JSON.stringify(m)}`);
  assert.ok(m.scrollWidth <= m.innerWidth, `no sideways scroll on a phone: ${m.scrollWidth} > ${m.innerWidth}`);
  for (const k of ["search", "from", "to"]) assert.ok(m[k] >= 200, `the ${k} input is wide enough to type in: ${m[k]} px`);
  assert.ok(m.labelPx >= 10, `the labels drawn are legible on a phone: ${m.labelPx.toFixed(1)} px`);
  assert.ok(m.selectedLabelled, "the entity selected keeps its label");
  const { sheet, selected } = m;
  assert.ok(sheet.bottom <= m.innerHeight + 1 && sheet.width >= m.innerWidth - 1, `the details are a bottom sheet: ${JSON.stringify(sheet)}`);
  assert.ok(sheet.height >= 0.3 * m.innerHeight, `the lowered sheet shows the details: ${sheet.height} px`);
  assert.ok(selected.x > 0 && selected.x < m.innerWidth && selected.y > 0 && selected.y < sheet.top,
    `the entity selected is drawn on screen, above the sheet: ${JSON.stringify(selected)}, the sheet from ${sheet.top}`);
  // The handle raises the sheet over most of the screen, and lowers it again.
  await page.locator("#sheet-handle").focus();
  await page.keyboard.press("Enter");
  const high = await page.evaluate(() => document.getElementById("sheet").getBoundingClientRect().height);
  assert.ok(high >= 0.8 * m.innerHeight, `raised, the sheet takes most of the screen: ${high} of ${m.innerHeight} px`);
  assert.equal(await page.locator("#sheet-handle").getAttribute("aria-expanded"), "true");
  await page.keyboard.press("Enter");
  const low = await page.evaluate(() => document.getElementById("sheet").getBoundingClientRect().height);
  assert.ok(Math.abs(low - sheet.height) < 2, `lowered again: ${low} px`);
  // Suggestions open on a phone do not widen the page either.
  await page.locator("#path-from").fill("");
  await page.locator("#path-from").pressSequentially("Rahm", { delay: 40 });
  await page.locator("#path-from-list li[role=option]").first().waitFor({ state: "visible", timeout: wait });
  const open = await sideways(page);
  assert.ok(open.scrollWidth <= open.innerWidth, `no sideways scroll with suggestions open: ${open.scrollWidth} > ${open.innerWidth}`);
  m.raised = high;
  return { page, m };
}

/**
 * axe-core on the explorer in the states that draw different parts of the page: an organisation's and a
 * seat's panel (their kind tags), a disputed undated relation's claims, the paths found, the search's
 * suggestions open. Returns the violations found in all of them, by impact.
 */
export async function axeExplorer(context, base, idle, watch) {
  const all = {};
  const add = (r) => Object.entries(r).forEach(([k, n]) => (all[k] = (all[k] ?? 0) + n));
  const page = await context.newPage();
  watch?.(page);
  const states = [
    ["an organisation's panel", "?open=actors/lutfur-rahman&sel=organisations/election-court", '[data-panel="entity"]'],
    ["a seat's panel", "?open=actors/lutfur-rahman&sel=seats/bethnal-green-and-stepney", '[data-panel="entity"]'],
    ["a disputed relation's claims", "?open=actors/lutfur-rahman&statuses=ALLEGED,REPORTED,CONFIRMED,DENIED&sel=relations/lutfur-rahman.endorses.ajmal-masroor", '[data-panel="relation"] .verdict.disputed'],
    ["the paths found", "?path=actors/ajmal-masroor,actors/keir-starmer&sel=paths", '[data-panel="paths"]'],
  ];
  for (const [what, query, ready] of states) {
    await page.goto(new URL(query, base).href);
    await idle(page);
    await page.locator(ready).first().waitFor({ timeout: wait });
    add(await axeClean(page, what));
  }
  await page.locator("#search-input").focus();
  await page.keyboard.type("Tower", { delay: 40 });
  await page.locator("#search-list li[role=option]").first().waitFor({ state: "visible", timeout: wait });
  add(await axeClean(page, "the search's suggestions open"));
  await page.keyboard.type("zqx", { delay: 40 });
  await page.locator("#search-list li.none").waitFor({ state: "visible", timeout: wait });
  add(await axeClean(page, "a search that matches nothing"));
  await page.close();
  return all;
}

/**
 * The page as it stands, at a phone's size (390×844) for a moment: it must not scroll sideways, and no
 * element of `selectors` may stick out of the screen. The viewport is put back afterwards.
 */
export async function noSidewaysOnPhone(page, what, selectors = []) {
  const was = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.waitForTimeout(200);
    const m = await page.evaluate((selectors) => ({
      scrollWidth: document.scrollingElement.scrollWidth,
      innerWidth,
      out: selectors.flatMap((s) => [...document.querySelectorAll(s)].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < -1 || r.right > innerWidth + 1);
      }).map((el) => `${s} ${Math.round(el.getBoundingClientRect().left)}..${Math.round(el.getBoundingClientRect().right)}`)),
    }), selectors);
    console.log(`  phone (${what}): scrollWidth ${m.scrollWidth}, innerWidth ${m.innerWidth}`);
    if (m.scrollWidth > m.innerWidth) {
      // What sticks out: the outermost elements wider than the screen, or reaching past it.
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((el) => el.getBoundingClientRect().right > innerWidth + 1 && !(el.parentElement.getBoundingClientRect().right > innerWidth + 1))
          .slice(0, 8)
          .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}[${el.getAttribute("data-testid") ?? ""}] right ${Math.round(el.getBoundingClientRect().right)}`));
      console.log(`  sticking out: ${wide.join("; ")}`);
    }
    assert.ok(m.scrollWidth <= m.innerWidth, `no sideways scroll on a phone (${what}): ${m.scrollWidth} > ${m.innerWidth}`);
    assert.deepEqual(m.out, [], `nothing sticks out of a phone's screen (${what})`);
    return m;
  } finally {
    await page.setViewportSize(was);
  }
}
