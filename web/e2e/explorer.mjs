// End-to-end test of the graph explorer in a real browser (Chromium, headless, driven by playwright-core)
// against a running polgraph with the default graph. cmd/polgraph's TestExplorerInBrowser runs it; by hand:
//
//   POLGRAPH_EXPLORER_URL=http://127.0.0.1:8080/ node e2e/explorer.mjs
//
// Environment:
//   POLGRAPH_EXPLORER_URL      the explorer (required)
//   POLGRAPH_EXPLORER_CONTROL  a URL whose POST /down and POST /up take the explorer's HTTP backend away and
//                              bring it back; without it the outage checks are skipped
//   POLGRAPH_TEST_OUTPUT       where screenshots and exports go (default test-output/explorer/ at the root)
//   POLGRAPH_DOCS_SCREENSHOT   when set, the README's screenshot is written there too
//   POLGRAPH_CHROMIUM          the browser (default /usr/bin/chromium)
import assert from "node:assert/strict";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { axeClean, axeExplorer, comboboxByKeyboard, listByKeyboard, phoneLayout } from "./a11y.mjs";
import { launch } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.POLGRAPH_EXPLORER_URL;
if (!base) {
  console.error("POLGRAPH_EXPLORER_URL is not set");
  process.exit(2);
}
const control = process.env.POLGRAPH_EXPLORER_CONTROL ?? "";
const out = path.resolve(process.env.POLGRAPH_TEST_OUTPUT ?? path.join(here, "../../test-output/explorer"));
const docsShot = process.env.POLGRAPH_DOCS_SCREENSHOT ?? "";
const wait = 20_000;

await mkdir(out, { recursive: true });
const browser = await launch();
const context = browser.context;

let step = "start";
let outage = false; // while the backend is down on purpose, failed loads are expected in the console
const problems = [];
let shot = 0;

function watch(page) {
  page.on("pageerror", (err) => problems.push(`uncaught error in the page during "${step}": ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    if (outage && /Failed to load resource|ERR_CONNECTION|Failed to fetch/i.test(msg.text())) return;
    problems.push(`console error during "${step}": ${msg.text()}`);
  });
  // The health watch's requests end, never aborted (it once left their bodies to its timeout).
  page.on("requestfailed", (req) => {
    if (!outage && new URL(req.url()).pathname === "/healthz") problems.push(`/healthz failed during "${step}": ${req.failure()?.errorText}`);
  });
}

async function screenshot(page, name) {
  shot++;
  const file = path.join(out, `${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  console.log(`  screenshot ${path.relative(process.cwd(), file)}`);
  return file;
}

/** Waits until no call or layout runs. */
async function idle(page) {
  await page.waitForFunction(() => document.body.dataset.busy === "0" && window.explorer !== undefined, null, { timeout: wait });
  await page.evaluate(() => window.explorer.idle());
  // The layout animation has settled too: positions no longer move.
  await page.waitForTimeout(100);
}

const graph = (page) =>
  page.evaluate(() => {
    const cy = window.explorer.cy;
    return {
      nodes: cy.nodes().not(".more").map((n) => n.id()).sort(),
      edges: cy.edges().not(".more-edge, .bundle").map((e) => e.id()).sort(),
      more: cy.nodes(".more").map((n) => ({ id: n.id(), label: n.data("label"), leftOut: n.data("leftOut") })),
      expanded: cy.nodes(".expanded").map((n) => n.id()),
      zoom: cy.zoom(),
    };
  });

/**
 * Where on the page a click reaches an element of the graph: a node's centre or an edge's midpoint, or
 * the point of it nearest to those that nothing else takes. hit is false when no point tried is one.
 */
async function pointOf(page, id) {
  const p = await page.evaluate((id) => {
    const cy = window.explorer.cy;
    const el = cy.getElementById(id);
    if (el.empty()) return null;
    const box = cy.container().getBoundingClientRect();
    const covered = (q) => cy.nodes().some((n) => {
      const b = n.renderedBoundingBox({ includeLabels: false });
      return q.x >= b.x1 - 2 && q.x <= b.x2 + 2 && q.y >= b.y1 - 2 && q.y <= b.y2 + 2;
    });
    // The renderer's own choice at a point: another edge, an edge's label or a node's label drawn there
    // would take the click. And the page's: the status line drawn over the graph takes it too.
    const r = cy.renderer();
    const nearest = (q) => {
      if (typeof r.findNearestElement !== "function") return el.isEdge() && !covered(q);
      return window.steadyNearest(box.left + q.x, box.top + q.y) === id;
    };
    const onGraph = (q) => {
      const under = document.elementFromPoint(box.left + q.x, box.top + q.y);
      return under !== null && cy.container().contains(under);
    };
    const hits = (q) => onGraph(q) && nearest(q);
    let points;
    if (el.isNode()) {
      const c = el.renderedPosition();
      const b = el.renderedBoundingBox({ includeLabels: false });
      const dx = (b.x2 - b.x1) / 4, dy = (b.y2 - b.y1) / 4;
      points = [c, { x: c.x - dx, y: c.y }, { x: c.x + dx, y: c.y }, { x: c.x, y: c.y - dy }, { x: c.x, y: c.y + dy }];
    } else {
      const s = el.renderedSourceEndpoint(), t = el.renderedTargetEndpoint();
      const cps = el.controlPoints ? el.controlPoints() : undefined;
      const c = cps && cps.length === 1 ? { x: cps[0].x * cy.zoom() + cy.pan().x, y: cps[0].y * cy.zoom() + cy.pan().y } : null;
      const at = (u) => c
        ? { x: (1 - u) ** 2 * s.x + 2 * u * (1 - u) * c.x + u ** 2 * t.x, y: (1 - u) ** 2 * s.y + 2 * u * (1 - u) * c.y + u ** 2 * t.y }
        : { x: s.x + u * (t.x - s.x), y: s.y + u * (t.y - s.y) };
      const us = [0.45, 0.55, 0.4, 0.6, 0.35, 0.65, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8];
      points = [el.renderedMidpoint(), ...us.map(at)];
    }
    // Each point at the whole pixel a click lands on.
    points = points.map((q) => ({ x: Math.round(box.left + q.x) - box.left, y: Math.round(box.top + q.y) - box.top }));
    const best = points.find(hits);
    const pos = best ?? (el.isEdge() ? points.find((q) => !covered(q)) : undefined) ?? points[0];
    return { x: box.left + pos.x, y: box.top + pos.y, hit: best !== undefined, inside: pos.x > 0 && pos.y > 0 && pos.x < box.width && pos.y < box.height };
  }, id);
  assert.ok(p, `${id} is not in the graph`);
  return p;
}

/** Zooms in on an element of the graph, centred, and returns where a click reaches it then. */
async function zoomIn(page, id) {
  await page.evaluate((id) => {
    const cy = window.explorer.cy;
    cy.zoom(cy.zoom() * 1.6);
    cy.center(cy.getElementById(id));
  }, id);
  return pointOf(page, id);
}

/** Clicks an element of the graph where it is drawn, bringing it into view first. */
async function clickGraph(page, id) {
  let p = await pointOf(page, id);
  if (!p.inside) {
    await page.evaluate((id) => window.explorer.cy.center(window.explorer.cy.getElementById(id)), id);
    p = await pointOf(page, id);
  }
  // An element crowded by others at this zoom, or under the status line: zoom in on it, centred, until
  // some point of it takes the click.
  for (let i = 0; i < 3 && !p.hit; i++) {
    console.log(`  no point of ${id} takes a click at this zoom: zoom in`);
    p = await zoomIn(page, id);
  }
  await page.mouse.click(p.x, p.y);
  if (!id.startsWith("relations/")) return;
  // A click on an edge selects it at once. Where another element took the click (an edge drawn over it
  // since the point was found), say which, zoom in further and click again.
  for (let i = 0; i < 3; i++) {
    const reached = await page
      .waitForFunction((id) => window.explorer.view.selected === id, id, { timeout: 2000 })
      .then(() => null, () => page.evaluate(() => String(window.explorer.view.selected ?? "nothing")));
    if (reached === null) return;
    console.log(`  the click at (${Math.round(p.x)}, ${Math.round(p.y)}) reached ${reached}, not ${id}: zoom in and click again`);
    p = await zoomIn(page, id);
    await page.mouse.click(p.x, p.y);
  }
}

/** Pairs of entities whose node shapes overlap, and the share of labels that overlap another label. */
const overlaps = (page) =>
  page.evaluate(() => {
    const cy = window.explorer.cy;
    const nodes = cy.nodes().not(".more");
    const boxes = nodes.map((n) => ({ id: n.id(), body: n.renderedBoundingBox({ includeLabels: false }), label: n.renderedBoundingBox({ includeNodes: false, includeLabels: true, includeEdges: false }) }));
    const cut = (a, b, pad) => a.x1 + pad < b.x2 && b.x1 + pad < a.x2 && a.y1 + pad < b.y2 && b.y1 + pad < a.y2;
    const bodies = [];
    const labels = new Set();
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        if (cut(boxes[i].body, boxes[j].body, 2)) bodies.push(`${boxes[i].id} / ${boxes[j].id}`);
        if (cut(boxes[i].label, boxes[j].label, 2)) {
          labels.add(boxes[i].id);
          labels.add(boxes[j].id);
        }
      }
    }
    return { bodies, labelShare: boxes.length ? labels.size / boxes.length : 0, labelPx: 14 * cy.zoom() };
  });

async function pick(page, input, text, name) {
  await page.fill(input, "");
  await page.locator(input).pressSequentially(text, { delay: 60 });
  const list = { "#search-input": "#search-list", "#path-from": "#path-from-list", "#path-to": "#path-to-list" }[input];
  const option = page.locator(`${list} li[data-name="${name}"]`);
  await option.waitFor({ state: "visible", timeout: wait });
  return option;
}

// In every page, before its own scripts: the element of the graph the renderer finds nearest at a point
// of the page, when it finds the same one at that point's whole pixel and at every pixel within 2 of it
// (a click lands on a whole pixel, give or take one); undefined otherwise.
await context.addInitScript(() => {
  window.steadyNearest = (x, y) => {
    const cy = window.explorer.cy;
    const box = cy.container().getBoundingClientRect();
    const r = cy.renderer();
    const at = (px, py) => r.findNearestElement((px - box.left - cy.pan().x) / cy.zoom(), (py - box.top - cy.pan().y) / cy.zoom(), true, false)?.id();
    const px = Math.round(x), py = Math.round(y);
    const id = at(px, py);
    for (let dx = -2; dx <= 2; dx++) {
      for (let dy = -2; dy <= 2; dy++) {
        if (at(px + dx, py + dy) !== id) return undefined;
      }
    }
    return id;
  };
});

const page = await context.newPage();
watch(page);
try {
  step = "open the explorer";
  console.log(step);
  await page.goto(base);
  await page.waitForSelector('#conn[data-state="ok"]', { timeout: wait });
  await idle(page);
  assert.ok(await page.locator("#empty").isVisible(), "the empty page should say what to do");
  assert.ok(await page.locator("#banner").isHidden(), "no banner while all is well");

  step = 'search "Lutfor" and open Lutfur Rahman';
  console.log(step);
  const lutfur = await pick(page, "#search-input", "Lutfor", "actors/lutfur-rahman");
  assert.match(await page.locator("#search-list").innerText(), /Lutfur Rahman/);
  await screenshot(page, "search-suggestions");
  await lutfur.click();
  await idle(page);
  let g = await graph(page);
  assert.ok(g.expanded.includes("actors/lutfur-rahman"), "Lutfur Rahman is expanded");
  assert.ok(g.nodes.length >= 8, `Lutfur Rahman's neighbours are shown: ${g.nodes.length} nodes`);
  await page.locator('[data-panel="entity"] h3', { hasText: "Lutfur Rahman" }).waitFor({ timeout: wait });
  assert.match(page.url(), /open=actors\/lutfur-rahman/);
  const more = g.more.find((m) => m.id === "more:actors/lutfur-rahman");
  assert.ok(more, `Lutfur Rahman has more neighbours than one expansion shows: a "more" handle (${JSON.stringify(g.more)})`);
  assert.match(more.label, /^\+\d+ more$/, "the handle says how many more");
  assert.equal(more.label, `+${more.leftOut} more`, "the handle counts entities left out (Truncation.left_out)");
  let o = await overlaps(page);
  console.log(`  ${g.nodes.length} nodes; labels ${o.labelPx.toFixed(1)} px; ${(o.labelShare * 100).toFixed(0)}% of labels touch another`);
  assert.deepEqual(o.bodies, [], "no two nodes are drawn on top of each other");
  assert.ok(o.labelPx >= 10, `labels are readable at the default zoom: ${o.labelPx.toFixed(1)} px`);
  assert.ok(o.labelShare <= 0.25, `few labels overlap: ${(o.labelShare * 100).toFixed(0)}%`);
  await screenshot(page, "open-lutfur-rahman");

  step = 'page in the rest with the "more" handle';
  console.log(step);
  const before = g.nodes.length;
  await clickGraph(page, "more:actors/lutfur-rahman");
  await idle(page);
  g = await graph(page);
  assert.ok(g.nodes.length > before, `the handle pages in more neighbours: ${before} → ${g.nodes.length}`);
  // left_out counts entities: the next page of neighbours is that many, up to the 10 per expansion.
  assert.equal(g.nodes.length - before, Math.min(more.leftOut, 10), `the handle's ${more.leftOut} are entities: ${before} → ${g.nodes.length} nodes`);
  const left = g.more.find((m) => m.id === "more:actors/lutfur-rahman");
  assert.ok(!left || left.label !== more.label, `the handle counts what is still left: ${more.label} → ${left?.label ?? "gone"}`);
  if (left) assert.equal(left.leftOut, more.leftOut - (g.nodes.length - before), "what is left is what was left, less what came in");

  step = "expand a neighbour by clicking it";
  console.log(step);
  const neighbour = "parties/labour";
  assert.ok(g.nodes.includes(neighbour), `${neighbour} is one of Lutfur Rahman's neighbours`);
  const count = g.nodes.length;
  await clickGraph(page, neighbour);
  await idle(page);
  g = await graph(page);
  assert.ok(g.expanded.includes(neighbour), `${neighbour} is expanded`);
  assert.ok(g.nodes.length > count, `expanding ${neighbour} adds its neighbours: ${count} → ${g.nodes.length}`);
  // The neighbourhood is the subgraph its entities induce: relations among nodes that were not expanded
  // come too, once each, and each joins two nodes that are drawn.
  const induced = await page.evaluate(() => {
    const cy = window.explorer.cy;
    const edges = cy.edges().not(".more-edge, .bundle");
    return {
      ids: edges.map((e) => e.id()),
      ends: edges.map((e) => [e.source().id(), e.target().id()]),
      amongUnexpanded: edges.filter((e) => !e.source().hasClass("expanded") && !e.target().hasClass("expanded")).map((e) => e.id()),
    };
  });
  assert.equal(new Set(induced.ids).size, induced.ids.length, "no relation is drawn twice");
  assert.ok(induced.amongUnexpanded.length > 0, "relations between two entities neither of which was expanded are drawn");
  console.log(`  ${induced.amongUnexpanded.length} relations among entities not expanded, e.g. ${induced.amongUnexpanded[0]}`);
  await page.locator('[data-panel="entity"] .sub', { hasText: neighbour }).waitFor({ timeout: wait });
  o = await overlaps(page);
  assert.deepEqual(o.bodies, [], "no two nodes are drawn on top of each other after expanding");
  await screenshot(page, "expanded");

  step = "parallel relations are one edge that counts them; a click lists them";
  console.log(step);
  const bundle = await page.evaluate(() => {
    const cy = window.explorer.cy;
    const b = cy.edges(".bundle").max((e) => e.data("count")).ele;
    if (!b) return null;
    const between = cy.edges().not(".bundle, .more-edge").filter((e) =>
      (e.source().same(b.source()) && e.target().same(b.target())) || (e.source().same(b.target()) && e.target().same(b.source())));
    return { id: b.id(), count: b.data("count"), label: b.data("label"), between: between.map((e) => e.id()).sort(), members: [...b.data("members")].sort(),
      visible: b.visible(), hiddenMembers: between.filter((e) => !e.visible()).length };
  });
  assert.ok(bundle && bundle.count >= 3, `some pair is joined by three relations or more: ${JSON.stringify(bundle)}`);
  assert.deepEqual(bundle.members, bundle.between, "the bundle holds every relation between its two entities");
  assert.equal(bundle.label, `${bundle.count} relations`);
  assert.ok(bundle.visible && bundle.hiddenMembers === bundle.count, "one edge is drawn for them, not each of them");
  console.log(`  ${bundle.id}: ${bundle.label}`);
  // Edge labels on demand: none on an edge away from the selection at this zoom; all of them zoomed in.
  const labelsAt = (zoom) => page.evaluate(async (zoom) => {
    const cy = window.explorer.cy;
    if (zoom) cy.zoom(zoom);
    await new Promise((r) => setTimeout(r, 200)); // the labels follow the zoom once it rests
    const away = cy.edges(":visible").not(".bundle, .more-edge, .near, .onpath, :selected");
    return { away: away.length, labelled: away.filter((e) => e.pstyle("label").strValue !== "").length };
  }, zoom);
  const far = await labelsAt(0);
  assert.ok(far.away > 0 && far.labelled === 0, `edges away from the selection have no label at the fitted zoom: ${JSON.stringify(far)}`);
  const near = await labelsAt(1.5);
  assert.equal(near.labelled, near.away, `zoomed in, every edge has its label: ${JSON.stringify(near)}`);
  await page.evaluate(() => window.explorer.cy.fit(undefined, 40));
  await clickGraph(page, bundle.id);
  await idle(page);
  const listed = page.locator('[data-panel="bundle"] .bundle-list > li');
  await listed.first().waitFor({ timeout: wait });
  assert.equal(await listed.count(), bundle.count, "the panel lists each relation of the bundle");
  assert.deepEqual((await listed.evaluateAll((lis) => lis.map((li) => li.dataset.relation))).sort(), bundle.members);
  const apart = await page.evaluate((ids) => ids.filter((id) => window.explorer.cy.getElementById(id).visible()).length, bundle.members);
  assert.equal(apart, bundle.count, "selected, the bundle draws its relations apart");
  await screenshot(page, "bundle");
  await listed.first().locator("button").click();
  await idle(page);
  await page.locator('[data-panel="relation"] .sub', { hasText: bundle.members[0] }).first().waitFor({ timeout: wait });
  // Far out, the entities that matter keep a label of legible size; the others lose theirs.
  // The label pass runs after the zoom settles: on a loaded machine that may take more than a frame or
  // two, so the state is read once it holds (or after 5 s, as it is then).
  const lod = await page.evaluate(async () => {
    const cy = window.explorer.cy;
    cy.zoom(0.3);
    const read = () => {
      const nodes = cy.nodes().not(".more");
      const keep = nodes.filter((n) => n.pstyle("label").strValue !== "");
      return { zoom: cy.zoom(), nodes: nodes.length, kept: keep.map((n) => n.id()), px: Math.min(...keep.map((n) => parseFloat(n.style("font-size")) * cy.zoom())) };
    };
    let state = read();
    const holds = (st) => st.kept.includes("actors/lutfur-rahman") && st.kept.length < st.nodes && st.px >= 11;
    for (let i = 0; i < 25 && !holds(state); i++) {
      await new Promise((r) => setTimeout(r, 200));
      state = read();
    }
    return state;
  });
  assert.ok(lod.zoom < 0.85, `nothing clamps the zoom: ${lod.zoom}`);
  assert.ok(lod.kept.includes("actors/lutfur-rahman") && lod.kept.length < lod.nodes, `far out, the expanded keep their labels, not all: ${lod.kept}`);
  assert.ok(lod.px >= 11, `and at a legible size: ${lod.px.toFixed(1)} px`);
  await page.evaluate(() => window.explorer.cy.fit(undefined, 40));

  step = "the time range: a histogram of the relations drawn, a range of years, playback, two years compared";
  console.log(step);
  const mayor2022 = "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022";
  const mayor2010 = "relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2010";
  const memberLabour = "relations/lutfur-rahman.member-of.labour";
  const timeOf = () => page.evaluate((ids) => {
    const cy = window.explorer.cy;
    const out = {};
    for (const id of ids) out[id] = cy.getElementById(id).classes().filter((c) => ["outtime", "before", "after"].includes(c)).join(" ");
    out.undatedHidden = cy.edges(".undated.outtime").length;
    out.bars = document.querySelectorAll("#hist rect").length;
    out.span = [Number(document.getElementById("range-from").min), Number(document.getElementById("range-from").max)];
    return out;
  }, [mayor2022, mayor2010, memberLabour]);
  let t = await timeOf();
  assert.ok(t.bars > 10 && t.bars === t.span[1] - t.span[0] + 1, `a bar for each year the relations drawn span: ${JSON.stringify(t)}`);
  assert.deepEqual([t[mayor2022], t[mayor2010], t[memberLabour]], ["", "", ""], "every year: nothing is taken out");
  await page.locator("#range-from").fill("2005");
  await page.locator("#range-to").fill("2009");
  await idle(page);
  t = await timeOf();
  assert.match(page.url(), /range=2005-2009/);
  assert.equal(t[mayor2022], "outtime", "the 2022 mayoralty did not hold in 2005–2009");
  assert.equal(t[mayor2010], "outtime", "nor the 2010–2015 one");
  assert.equal(t[memberLabour], "", "his Labour membership (until 2010) did");
  assert.equal(t.undatedHidden, 0, "undated relations stay drawn");
  assert.match(await page.locator("#range-out").innerText(), /^2005–2009: \d+ relations held then/);
  await screenshot(page, "time-range");
  // Playback: the range's end moves a year at a time.
  await page.click("#range-play");
  await page.waitForFunction(() => { const m = /range=(\d{4})-(\d{4})/.exec(location.search); return m && Number(m[2]) >= 2007; }, null, { timeout: wait });
  const played = /range=(\d{4})-(\d{4})/.exec(page.url());
  await page.click("#range-play");
  assert.equal(played[1], "2005", "playback starts at the range's first year");
  console.log(`  played to ${played[1]}–${played[2]}`);
  // Two years compared: what held in 2010 only, in 2022 only.
  await page.check("#compare");
  await page.locator("#compare-a").fill("2010");
  await page.locator("#compare-b").fill("2022");
  await page.locator("#compare-b").dispatchEvent("change");
  await idle(page);
  t = await timeOf();
  assert.match(page.url(), /compare=2010,2022/);
  assert.equal(t[mayor2010], "before", "the 2010–2015 mayoralty held in 2010 only");
  assert.equal(t[mayor2022], "after", "the 2022 mayoralty in 2022 only");
  assert.equal(t[memberLabour], "before", "the membership until 2010 in 2010 only");
  await screenshot(page, "compare-years");
  await page.click("#range-all");
  await idle(page);
  t = await timeOf();
  assert.deepEqual([t[mayor2022], t[mayor2010], t[memberLabour]], ["", "", ""], "All years draws everything again");
  assert.doesNotMatch(page.url(), /range=|compare=/);

  step = "find names in the view";
  console.log(step);
  await page.fill("#find", "rahm");
  const found = await page.evaluate(() => window.explorer.cy.nodes(".found").map((n) => n.id()));
  const labels = await page.evaluate(() => window.explorer.cy.nodes(".found").map((n) => String(n.data("label"))));
  assert.ok(found.includes("actors/lutfur-rahman"), `"rahm" marks Lutfur Rahman: ${found}`);
  assert.ok(labels.every((l) => /rahm/i.test(l)), `only names with "rahm": ${labels}`);
  assert.equal(await page.locator("#find-out").innerText(), `${found.length} found`);
  await page.locator("#find").press("Enter");
  assert.equal(await page.locator("#find-out").innerText(), `1 of ${found.length}`);
  await page.fill("#find", "");
  assert.equal(await page.evaluate(() => window.explorer.cy.nodes(".found").length), 0, "an empty text marks nothing");

  step = "find paths from Ajmal Masroor to Keir Starmer";
  console.log(step);
  await (await pick(page, "#path-from", "Ajmal", "actors/ajmal-masroor")).click();
  // A word still being typed finds the words it begins.
  const starm = await pick(page, "#path-to", "Starm", "actors/keir-starmer");
  assert.equal(await page.locator("#path-to-list li[data-name]").first().getAttribute("data-name"), "actors/keir-starmer", "“Starm” suggests Keir Starmer first");
  await starm.click();
  await page.click("#path-go");
  await idle(page);
  const paths = page.locator('[data-panel="paths"]');
  await paths.waitFor({ timeout: wait });
  const pathItems = page.locator(".paths > li.path");
  assert.ok((await pathItems.count()) >= 1, "at least one path is listed");
  const first = await pathItems.first().innerText();
  assert.match(first, /Ajmal Masroor/);
  assert.match(first, /Keir Starmer/);
  assert.match(first, /formerly worked with/, "each hop names its relation type");
  assert.match(first, /Ajmal and Rabina were both previously working with Lutfur Rahman/, "each hop shows its evidence");
  // Routes, not copies: the Lutfur Rahman–Labour hop holds both its relations, grouped under the hop.
  const member = "relations/lutfur-rahman.member-of.labour";
  const defeated = "relations/lutfur-rahman.defeated.labour";
  const hop = page.locator(".paths li.hop").filter({ has: page.locator(`li.hop-rel[data-relation="${member}"]`) }).first();
  await hop.waitFor({ timeout: wait });
  assert.equal(await hop.locator(`li.hop-rel[data-relation="${defeated}"]`).count(), 1, "the hop groups its DEFEATED relation with its MEMBER_OF");
  assert.equal(await hop.getAttribute("data-relations"), "2", "the Lutfur Rahman–Labour hop has two relations");
  const hopText = await hop.innerText();
  assert.match(await hop.locator(".hop-head").innerText(), /^2 relations, \d+ claims? supports? it$/, "the hop says how many relations and what the evidence says");
  assert.match(await hop.locator(`li.hop-rel[data-relation="${member}"] > div`).innerText(), /member of · until 2010/, "the membership with its end");
  assert.match(await hop.locator(`li.hop-rel[data-relation="${defeated}"] > div`).innerText(), /defeated · 2022/, "the defeat with its date");
  assert.match(hopText, /Rahman was Labour leader of Tower Hamlets council/, "each relation of the hop shows its claims");
  const undatedHop = page.locator('.paths li.hop-rel[data-relation="relations/ajmal-masroor.formerly-worked-with.lutfur-rahman"]').first();
  assert.equal(await undatedHop.getAttribute("data-undated"), "1");
  assert.match(await undatedHop.locator("> div").innerText(), /formerly worked with · undated/, "an undated relation of a hop says so");
  const onPath = await page.evaluate(() => window.explorer.cy.elements(".onpath").map((e) => e.id()));
  assert.ok(onPath.includes("actors/keir-starmer") && onPath.includes("actors/ajmal-masroor"), "the path's ends are highlighted");
  assert.ok(onPath.some((id) => id.startsWith("relations/")), "the path's relations are highlighted");
  assert.ok(onPath.includes(member) && onPath.includes(defeated), "every relation of a hop is drawn and highlighted, not only the first");
  assert.match(page.url(), /path=actors\/ajmal-masroor,actors\/keir-starmer/);
  // The edges the page makes of a path's relations say what the service's own edges say.
  const compared = await page.evaluate(async () => {
    const r = await fetch("/polgraph.v1.GraphService/ExploreNeighborhood", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
      body: JSON.stringify({ name: "actors/lutfur-rahman", maxPerNode: 200 }),
    });
    const served = new Map(((await r.json()).edges ?? []).map((e) => [e.name, e]));
    const cy = window.explorer.cy;
    return cy.edges(".onpath").map((e) => {
      const s = served.get(e.id());
      return s && {
        id: e.id(),
        drawn: [e.data("confidence"), e.data("verdict"), e.data("undated")],
        served: [s.confidence ?? 0, s.verdict?.summary ?? "", s.undated ?? false],
      };
    }).filter(Boolean);
  });
  assert.ok(compared.length >= 3, `some relations of the paths are in Lutfur Rahman's neighbourhood: ${compared.length}`);
  for (const c of compared) assert.deepEqual(c.drawn, c.served, `${c.id}: confidence, verdict and undated as the service says`);
  await screenshot(page, "paths");
  // Five routes with all their evidence ran to 7,500 px: only the route picked (else the first) is open.
  const tall = await page.evaluate(() => ({ height: document.getElementById("details").scrollHeight,
    open: [...document.querySelectorAll(".paths > li.path > details.route")].map((d) => d.open) }));
  assert.equal(tall.open.filter(Boolean).length, 1, `one route open: ${JSON.stringify(tall.open)}`);
  assert.ok(tall.open[0], "the first");
  assert.ok(tall.height < 2500, `the paths panel is ${tall.height} px tall`);
  await pathItems.first().locator("header").click();
  assert.equal(await pathItems.first().getAttribute("aria-current"), "true", "a path can be highlighted alone");

  step = "an undated relation is drawn dotted, and its tooltip says so";
  console.log(step);
  const undatedEdge = "relations/ajmal-masroor.formerly-worked-with.lutfur-rahman";
  const dotted = await page.evaluate((id) => {
    const e = window.explorer.cy.getElementById(id);
    return e.empty() ? null : { classes: e.classes(), lineStyle: e.style("line-style"), title: e.data("title") };
  }, undatedEdge);
  assert.ok(dotted, `${undatedEdge} is drawn`);
  assert.ok(dotted.classes.includes("undated"), "the relation without a date is marked undated");
  assert.equal(dotted.lineStyle, "dotted", "an undated relation is dotted");
  assert.match(dotted.title, /^formerly worked with · no date — \d+ claims? supports? it$/, "its title says it has no date, and the verdict");
  const dated = await page.evaluate((id) => window.explorer.cy.getElementById(id).style("line-style"), member);
  assert.equal(dated, "solid", "a dated, reported relation is solid");
  await page.evaluate((id) => {
    const cy = window.explorer.cy;
    cy.zoom(1.2);
    cy.center(cy.getElementById(id));
  }, undatedEdge);
  const mid = await pointOf(page, undatedEdge);
  await page.mouse.move(mid.x - 3, mid.y - 3);
  await page.mouse.move(mid.x, mid.y);
  await page.locator("#tip").waitFor({ state: "visible", timeout: wait });
  assert.match(await page.locator("#tip").innerText(), /no date/, "the edge's tooltip says it has no date");
  assert.ok(await page.locator("#legend").getByText("no date: not known when it held").isVisible(), "the legend explains dotted edges");
  assert.equal(await page.locator("#legend").getByText(/^through a via/).count(), 1, "the legend explains edges through a via");
  await screenshot(page, "undated-tooltip");
  await page.mouse.move(5, 5);

  step = "co-temporal paths";
  console.log(step);
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().endsWith("/polgraph.v1.GraphService/FindPaths"), { timeout: wait }),
    page.check("#cotemporal"),
  ]);
  assert.equal(JSON.parse(request.postData() ?? "{}").coTemporal, true, "the checkbox asks FindPaths for co-temporal routes");
  await idle(page);
  assert.match(page.url(), /cotemporal=1/);
  const coPanel = page.locator('[data-panel="paths"][data-cotemporal="1"]');
  await coPanel.waitFor({ timeout: wait });
  assert.match(await coPanel.innerText(), /held as a whole at one moment/);
  const during = page.locator(".paths > li.path .during");
  assert.ok((await during.count()) >= 1, "a co-temporal route says when it held");
  assert.match(await during.first().innerText(), /^This route held as a whole during \S/);
  console.log(`  ${(await during.allInnerTexts()).join(" / ")}`);
  // The Lutfur Rahman–Labour hop held in 2022 through the defeat; the membership (until 2010) did not hold
  // then, and the answer leaves it off the hop.
  const coHop = page.locator(".paths li.path").filter({ hasText: "This route held as a whole during 2022:" }).locator("li.hop")
    .filter({ has: page.locator(`li.hop-rel[data-relation="${defeated}"]`) }).first();
  await coHop.waitFor({ timeout: wait });
  assert.equal(await coHop.locator(`li.hop-rel[data-relation="${defeated}"]`).getAttribute("data-held-then"), "1", "the 2022 defeat held then");
  assert.equal(await coHop.locator(`li.hop-rel[data-relation="${member}"]`).count(), 0, "the membership until 2010 is not on the hop");
  await screenshot(page, "paths-co-temporal");
  await page.uncheck("#cotemporal");
  await idle(page);
  assert.doesNotMatch(page.url(), /cotemporal/);
  await page.locator('[data-panel="paths"][data-cotemporal="0"]').waitFor({ timeout: wait });

  step = "open the undated relation's claims";
  console.log(step);
  await page.evaluate((id) => {
    const cy = window.explorer.cy;
    cy.zoom(1.2);
    cy.center(cy.getElementById(id));
  }, undatedEdge);
  await clickGraph(page, undatedEdge);
  await idle(page);
  const undatedPanel = page.locator('[data-panel="relation"]');
  await undatedPanel.locator(".sub", { hasText: undatedEdge }).waitFor({ timeout: wait });
  assert.match(await undatedPanel.locator("dd.undated").innerText(), /^no date/, "the panel says the relation has no date");
  assert.match(await undatedPanel.locator("dd.verdict").innerText(), /^1 claim supports it/, "and what the evidence says");
  await screenshot(page, "undated-claims");

  step = "show disputed relations and open the claims of the denied endorsement";
  console.log(step);
  await page.check('#statuses input[value="DENIED"]');
  await idle(page);
  const endorse = "relations/lutfur-rahman.endorses.ajmal-masroor";
  const drawn = await page.evaluate((id) => {
    const e = window.explorer.cy.getElementById(id);
    return e.empty() ? null : { classes: e.classes(), lineStyle: e.style("line-style"), color: e.style("line-color") };
  }, endorse);
  assert.ok(drawn, `${endorse} is drawn once denied claims count`);
  assert.ok(drawn.classes.includes("disputed"), "the endorsement is marked disputed");
  assert.equal(drawn.lineStyle, "dashed", "a disputed relation is dashed");
  assert.equal(drawn.color, "rgb(234,88,12)", "a disputed relation is drawn in the warning colour");
  await page.evaluate((id) => {
    const cy = window.explorer.cy;
    cy.zoom(1.1);
    cy.center(cy.getElementById(id));
  }, endorse);
  // The paths read to their end: the panel does not keep that place for the next selection.
  await page.click("#path-go");
  await idle(page);
  await page.locator('[data-panel="paths"]').waitFor({ timeout: wait });
  const scrolled = await page.evaluate(() => {
    const d = document.getElementById("details");
    d.scrollTop = 1e6;
    return d.scrollTop;
  });
  assert.ok(scrolled > 0, `the paths panel scrolls: ${scrolled}`);
  await clickGraph(page, endorse);
  await idle(page);
  const rel = page.locator('[data-panel="relation"]');
  assert.equal(await page.evaluate(() => document.getElementById("details").scrollTop), 0, "a new selection's panel starts at its top");
  await rel.waitFor({ timeout: wait });
  assert.match(await rel.locator(".sub").innerText(), new RegExp(endorse.replaceAll(".", "\\.")));
  const claims = rel.locator("li.claim");
  assert.equal(await claims.count(), 4, "all four claims are listed: one alleged, three denied");
  assert.equal(await rel.locator('li.claim[data-status="DENIED"]').count(), 3);
  assert.equal(await rel.locator('li.claim[data-status="ALLEGED"]').count(), 1);
  const claimText = await rel.innerText();
  assert.match(claimText, /did not support Ajmal Masroor/, "the excerpt is shown");
  assert.match(claimText, /confidence 0\.\d\d/, "the confidence is shown");
  assert.match(claimText, /said by Rabina Khan/, "who said it is shown");
  assert.match(claimText, /2024/, "the source's date is shown");
  assert.match(await rel.locator("dd.verdict").innerText(), /^3 of 4 claims deny it/, "the panel sums up the evidence");
  const endorseTitle = await page.evaluate((id) => window.explorer.cy.getElementById(id).data("title"), endorse);
  assert.match(endorseTitle, /3 of 4 claims deny it/, "the edge's title sums up the evidence");
  assert.ok(await page.locator("#legend").getByText("disputed: a claim denies it").isVisible(), "the legend explains disputed edges");
  await screenshot(page, "claims");
  await page.uncheck('#statuses input[value="DENIED"]');
  await idle(page);

  step = "filter by relation type and by confidence";
  console.log(step);
  await page.click("#types-none");
  await page.check('#types input[value="MEMBER_OF"]');
  await idle(page);
  let types = await page.evaluate(() => window.explorer.cy.edges().not(".more-edge, .bundle").map((e) => e.data("type")));
  assert.ok(types.length > 0 && types.every((t) => t === "MEMBER_OF"), `only MEMBER_OF relations are drawn: ${[...new Set(types)]}`);
  assert.match(page.url(), /types=MEMBER_OF/);
  await page.click("#types-all");
  await page.fill("#minconf", "0.9");
  await idle(page);
  const confs = await page.evaluate(() => window.explorer.cy.edges().not(".more-edge, .bundle").map((e) => e.data("confidence")));
  assert.ok(confs.length > 0 && confs.every((c) => c >= 0.9), `only relations at least 0.9 sure are drawn: ${confs}`);
  await page.fill("#minconf", "0");
  await idle(page);

  step = "move the time slider to 2010";
  console.log(step);
  const now = await graph(page);
  for (const id of ["relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022", "relations/lutfur-rahman.member-of.aspire"]) {
    assert.ok(now.edges.includes(id), `${id} is drawn at any time`);
  }
  await page.uncheck("#anytime");
  await page.fill("#asof", "2010");
  await idle(page);
  assert.equal(await page.locator("#asof-out").innerText(), "2010");
  const then = await graph(page);
  assert.ok(then.nodes.includes("actors/lutfur-rahman"), "Lutfur Rahman is still shown in 2010");
  assert.ok(!then.edges.includes("relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022"), "his 2022 mayoralty is not drawn as of 2010");
  assert.ok(!then.edges.includes("relations/lutfur-rahman.member-of.aspire"), "his Aspire membership (from 2018) is not drawn as of 2010");
  assert.ok(then.edges.includes("relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2010"), "his 2010–2015 mayoralty is drawn as of 2010");
  assert.match(page.url(), /asof=2010/);
  assert.ok(!then.edges.includes("relations/ajmal-masroor.formerly-worked-with.lutfur-rahman"), "undated ties are left out as of 2010 by default");
  const undatedThen = await page.evaluate(() => window.explorer.cy.edges(".undated").length);
  assert.equal(undatedThen, 0, "no undated relation is drawn as of 2010 by default");
  assert.ok(await page.locator("#undated-row").isVisible(), "a year chosen, undated relations can be included");
  assert.equal(await page.locator("#undated").isChecked(), false, "by default they are not");
  const hint = await page.locator("#asof-hint").innerText();
  assert.match(hint, /held at some moment of that year/, "the hint says which relations count");
  assert.match(hint, /an event only in its own year/, "the hint says events count only in their year");
  assert.match(hint, /no date at all are left out/, "the hint says undated relations are left out");
  assert.match(hint, /did not exist then are left out/, "the hint says entities that did not exist are left out");
  await screenshot(page, "as-of-2010");

  step = "include undated relations as of 2010";
  console.log(step);
  await page.check("#undated");
  await idle(page);
  assert.match(page.url(), /undated=include/);
  const withUndated = await graph(page);
  const undatedNow = await page.evaluate(() => window.explorer.cy.edges(".undated").map((e) => e.id()));
  assert.ok(undatedNow.length > 0, "undated relations come back when included");
  assert.ok(withUndated.edges.includes("relations/ajmal-masroor.formerly-worked-with.lutfur-rahman"), "Ajmal Masroor's undated tie to Lutfur Rahman comes back");
  assert.ok(!withUndated.edges.includes("relations/lutfur-rahman.holds-office.mayor-of-tower-hamlets.2022"), "dated relations still follow the year");
  assert.match(await page.locator("#asof-hint").innerText(), /no date at all are included/);
  console.log(`  ${undatedNow.length} undated relations included as of 2010`);
  await screenshot(page, "as-of-2010-undated");

  step = "reopen the view from its link";
  console.log(step);
  const link = page.url();
  const again = await context.newPage();
  watch(again);
  await again.goto(link);
  await idle(again);
  const reopened = await graph(again);
  assert.deepEqual(reopened.nodes, withUndated.nodes, "the link reopens the same entities");
  assert.deepEqual(reopened.edges, withUndated.edges, "the link reopens the same relations");
  assert.equal(await again.locator("#asof").inputValue(), "2010");
  assert.equal(await again.locator("#anytime").isChecked(), false);
  assert.equal(await again.locator("#undated").isChecked(), true, "the link keeps undated relations included");
  await again.close();

  step = "export PNG, GraphML and Cytoscape JSON";
  console.log(step);
  const exported = {};
  for (const [button, file] of [["#export-svg", "view.svg"], ["#export-png", "view.png"], ["#export-graphml", "view.graphml"], ["#export-json", "view.cyjs"]]) {
    await page.click("details.export summary");
    const [dl] = await Promise.all([page.waitForEvent("download", { timeout: wait }), page.click(button)]);
    const to = path.join(out, file);
    await dl.saveAs(to);
    exported[file] = await readFile(to);
  }
  assert.deepEqual([...exported["view.png"].subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "the PNG is a PNG");
  // The figure: what is drawn, with a title, the date, the filters, a legend and the sources.
  const svg = exported["view.svg"].toString();
  assert.match(svg, /^<\?xml [^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/, "the SVG is an SVG document");
  const visible = await page.evaluate(() => window.explorer.cy.nodes(":visible").not(".more").length);
  assert.equal((svg.match(/<g class="node"/g) ?? []).length, visible, "the figure draws every entity drawn");
  assert.match(svg, /<text[^>]*>As of 2010 \(undated relations included\) · every relation type · claims: alleged, reported, confirmed · \d+ entities, \d+ relations<\/text>/, "the figure says its filters");
  assert.match(svg, new RegExp(`<text[^>]*>Drawn ${new Date().toISOString().slice(0, 10)} from polgraph`), "the figure says when it was drawn");
  assert.match(svg, /<g class="legend"[\s\S]*>actor<\/text>[\s\S]*>no date: not known when it held<\/text>/, "the figure's legend names what it draws");
  assert.match(svg, /<g class="sources"[\s\S]*>Sources<\/text>[\s\S]*Daily Mail/, "the figure lists its sources");
  const pngSize = exported["view.png"].readUInt32BE(16);
  assert.ok(pngSize > 1000, `the PNG is the figure at twice its size: ${pngSize} px wide`);
  const graphml = exported["view.graphml"].toString();
  assert.match(graphml, /<graphml xmlns="http:\/\/graphml.graphdrawing.org\/xmlns"/);
  assert.equal((graphml.match(/<node id=/g) ?? []).length, withUndated.nodes.length, "GraphML holds every entity shown");
  assert.equal((graphml.match(/<edge id=/g) ?? []).length, withUndated.edges.length, "GraphML holds every relation shown");
  assert.match(graphml, /<data key="e_undated">true<\/data>/, "GraphML says which relations are undated");
  assert.match(graphml, /<node id="actors\/lutfur-rahman">/);
  const cyjs = JSON.parse(exported["view.cyjs"].toString());
  assert.equal(cyjs.elements.nodes.length, withUndated.nodes.length, "Cytoscape JSON holds every entity shown");
  assert.equal(cyjs.elements.edges.length, withUndated.edges.length, "Cytoscape JSON holds every relation shown");
  // Both carry the evidence: every relation's claims, and the sources they cite.
  assert.match(graphml, /<data key="e_claims">\[\{/, "GraphML holds each relation's claims");
  assert.match(graphml, /<data key="g_sources">.*Daily Mail/, "GraphML lists the sources");
  for (const e of cyjs.elements.edges) {
    assert.ok(e.data.claims.length > 0 && e.data.claims.every((c) => c.source.startsWith("sources/") && (c.excerpt || c.record)),
      `Cytoscape JSON holds the claims of ${e.data.id}`);
  }
  assert.ok(cyjs.data.sources.some((s) => s.outlet === "Daily Mail"), "Cytoscape JSON lists the sources");

  step = "join members to the party they stood for";
  console.log(step);
  await page.check("#anytime");
  await page.check("#followvia");
  await idle(page);
  assert.match(page.url(), /via=1/);
  const viaEdges = await page.evaluate(() =>
    window.explorer.cy.edges(".via").map((e) => ({ id: e.id(), from: e.source().id(), to: e.target().id(), relation: e.data("relation") })),
  );
  const aspire = viaEdges.find((e) => e.id === "relations/lutfur-rahman.candidate-for.mayor-of-tower-hamlets.2022#via");
  assert.ok(aspire, `Lutfur Rahman's candidacy for Aspire joins him to the party: ${JSON.stringify(viaEdges)}`);
  assert.deepEqual([aspire.from, aspire.to, aspire.relation],
    ["actors/lutfur-rahman", "parties/aspire", "relations/lutfur-rahman.candidate-for.mayor-of-tower-hamlets.2022"]);
  await page.evaluate((id) => {
    const cy = window.explorer.cy;
    cy.zoom(1.2);
    cy.center(cy.getElementById(id));
  }, aspire.id);
  await clickGraph(page, aspire.id);
  await idle(page);
  const viaPanel = page.locator('[data-panel="relation"]');
  await viaPanel.locator(".sub", { hasText: aspire.relation }).waitFor({ timeout: wait }).catch(async (err) => {
    const shown = await page.evaluate(() => ({ selected: window.explorer.view.selected, panel: document.querySelector("#details")?.innerText?.slice(0, 300),
      status: document.getElementById("status")?.textContent }));
    throw new Error(`${err.message}\nselected ${shown.selected}; the status line says: ${shown.status}; the panel says: ${shown.panel}`);
  });
  await screenshot(page, "through-via");

  step = "a click on the graph under the status line reaches the graph";
  console.log(step);
  // The status line says what is shown, what runs and what failed; this one says it at length.
  await page.evaluate(() => {
    document.getElementById("status").textContent = "40 entities and 120 relations shown, some of them joined through the party their member stood for";
  });
  const statusBox = await page.locator("#status").boundingBox();
  assert.ok(statusBox && statusBox.width > 200 && statusBox.height > 0, `the status line is drawn over the graph: ${JSON.stringify(statusBox)}`);
  const under = await page.evaluate(({ sb }) => {
    const cy = window.explorer.cy;
    const cb = cy.container().getBoundingClientRect();
    // An edge not selected, its midpoint moved under the middle of the status line, where the renderer
    // finds that edge nearest.
    for (const e of cy.edges(":visible").not(".more-edge")) {
      if (e.id() === window.explorer.view.selected) continue;
      const m = e.renderedMidpoint();
      cy.panBy({ x: sb.x + sb.width / 2 - cb.left - m.x, y: sb.y + sb.height / 2 - cb.top - m.y });
      const p = e.renderedMidpoint();
      const x = Math.round(cb.left + p.x), y = Math.round(cb.top + p.y);
      if (window.steadyNearest(x, y) === e.id()) {
        return { id: e.id(), x, y, before: window.explorer.view.selected };
      }
    }
    return null;
  }, { sb: statusBox });
  assert.ok(under, "some edge can be drawn under the status line");
  assert.ok(under.x > statusBox.x && under.x < statusBox.x + statusBox.width && under.y > statusBox.y && under.y < statusBox.y + statusBox.height,
    `the point clicked, (${under.x}, ${under.y}), is under the status line ${JSON.stringify(statusBox)}`);
  await page.mouse.click(under.x, under.y);
  // The click reached the graph when it selected another element of it; it should be the edge aimed at.
  await page.waitForFunction((before) => window.explorer.view.selected !== before, under.before, { timeout: 5000 }).catch(async () => {
    throw new Error(`a click under the status line on ${under.id} left ${under.before} selected: the status line took it`);
  });
  const reached = await page.evaluate(() => {
    const id = window.explorer.view.selected;
    return { id, inGraph: !!id && window.explorer.cy.getElementById(id).nonempty() };
  });
  assert.ok(reached.inGraph, `a click under the status line on ${under.id} selected ${reached.id}, which the graph does not hold`);
  if (reached.id !== under.id) {
    console.log(`  the click aimed at ${under.id} selected ${reached.id}, drawn at the same point`);
  }
  await idle(page);
  await page.evaluate(() => (document.getElementById("status").textContent = ""));
  await page.uncheck("#followvia");
  await idle(page);
  assert.equal(await page.evaluate(() => window.explorer.cy.edges(".via").length), 0, "unticked, no edge goes through a via");

  if (control) {
    step = "the service goes away: a banner says so";
    console.log(step);
    outage = true;
    let r = await fetch(new URL("down", control), { method: "POST" });
    assert.ok(r.ok, `the test's control says ${r.status}`);
    await page.fill("#search-input", "");
    await page.locator("#search-input").pressSequentially("Rabina", { delay: 40 });
    const banner = page.locator("#banner");
    await banner.waitFor({ state: "visible", timeout: wait });
    assert.equal(await banner.getAttribute("data-kind"), "unreachable");
    assert.match(await banner.innerText(), /cannot be reached/);
    assert.equal(await page.locator("#conn").getAttribute("data-state"), "down");
    await page.locator("h1.brand").click(); // away from the search box, whose suggestions then close
    await page.locator("#search-list").waitFor({ state: "hidden", timeout: wait });
    await screenshot(page, "service-down");

    step = "the service comes back: the banner goes and the search runs again";
    console.log(step);
    r = await fetch(new URL("up", control), { method: "POST" });
    assert.ok(r.ok, `the test's control says ${r.status}`);
    await page.waitForSelector('#banner[data-kind="recovered"]', { timeout: wait });
    outage = false;
    await page.waitForSelector('#conn[data-state="ok"]', { timeout: wait });
    await page.locator('#search-list li[data-name="actors/rabina-khan"]').waitFor({ state: "visible", timeout: wait });
    await screenshot(page, "service-back");
    await page.waitForSelector("#banner", { state: "hidden", timeout: wait });
    await page.keyboard.press("Escape");
  } else {
    console.log("(no POLGRAPH_EXPLORER_CONTROL: the outage checks are skipped)");
  }

  step = "no route names its ends by their names";
  console.log(step);
  const none = await context.newPage();
  watch(none);
  await none.goto(new URL("?path=actors/ajmal-masroor,actors/keir-starmer&sel=paths&asof=1995", base).href);
  await idle(none);
  const noRoute = await none.locator('[data-panel="paths"] .sub').innerText();
  assert.match(noRoute, /^Ajmal Masroor → Keir Starmer: no route of at most \d+ hops as of 1995\.$/, `the ends by their names: ${noRoute}`);
  await none.close();

  step = "Back and Forward walk through views; a path asked twice is recorded once; Back undoes Clear";
  console.log(step);
  const hist = await context.newPage();
  watch(hist);
  await hist.goto(new URL("?open=actors/lutfur-rahman", base).href);
  await idle(hist);
  const one = await graph(hist);
  await clickGraph(hist, "parties/labour");
  await idle(hist);
  const two = await graph(hist);
  assert.ok(two.nodes.length > one.nodes.length, `expanding Labour adds neighbours: ${one.nodes.length} → ${two.nodes.length}`);
  await (await pick(hist, "#path-from", "Ajmal", "actors/ajmal-masroor")).click();
  await (await pick(hist, "#path-to", "Starm", "actors/keir-starmer")).click();
  await hist.click("#path-go");
  await idle(hist);
  const three = await graph(hist);
  const threeURL = hist.url();
  await hist.click("#path-go");
  await idle(hist);
  assert.equal(hist.url(), threeURL, "the same paths asked again add no step to the address");
  // The route picked travels in the link, and the path form is filled again when it is reopened.
  await hist.locator('.paths > li.path[data-path="1"] > header').click();
  assert.match(hist.url(), /route=2/, `the picked route is in the address: ${hist.url()}`);
  const linked = await context.newPage();
  watch(linked);
  await linked.goto(hist.url());
  await idle(linked);
  assert.equal(await linked.locator("#path-from").inputValue(), "Ajmal Masroor", "the path form shows the paths' ends");
  assert.equal(await linked.locator("#path-to").inputValue(), "Keir Starmer");
  assert.equal(await linked.locator('.paths > li.path[data-path="1"]').getAttribute("aria-current"), "true", "the picked route is picked again");
  await linked.close();
  await hist.click("#clear");
  await idle(hist);
  assert.equal((await graph(hist)).nodes.length, 0, "Clear empties the graph");
  await hist.goBack();
  await idle(hist);
  assert.deepEqual((await graph(hist)).nodes, three.nodes, "Back after Clear brings the graph back");
  await hist.goBack();
  await idle(hist);
  assert.deepEqual((await graph(hist)).nodes, two.nodes, "Back again: before the paths were asked for");
  await hist.goBack();
  await idle(hist);
  assert.deepEqual((await graph(hist)).nodes, one.nodes, "Back again: Lutfur Rahman alone, before Labour was expanded");
  await hist.goForward();
  await idle(hist);
  assert.deepEqual((await graph(hist)).nodes, two.nodes, "Forward: Labour expanded again");
  await hist.close();

  step = "Hide takes an entity out and moves nothing else; Undo, Redo, the keyboard and Show hidden";
  console.log(step);
  const cur = await context.newPage();
  watch(cur);
  await cur.goto(new URL("?open=actors/lutfur-rahman&sel=parties/labour", base).href);
  await idle(cur);
  const viewBefore = await graph(cur);
  assert.ok(viewBefore.nodes.includes("parties/labour"), "Labour is drawn");
  assert.equal(await cur.locator("#undo").isDisabled(), true, "nothing to undo in a view just opened");
  const positions = () => cur.evaluate(() => Object.fromEntries(window.explorer.cy.nodes().map((n) => [n.id(), n.position()])));
  const placedBefore = await positions();
  await cur.locator('[data-panel="entity"] [data-action="hide"]').click();
  await idle(cur);
  const afterHide = await graph(cur);
  assert.ok(!afterHide.nodes.includes("parties/labour"), "Hide takes Labour out of the view");
  assert.equal(afterHide.nodes.length, viewBefore.nodes.length - 1, "only Labour goes");
  assert.ok(afterHide.edges.length < viewBefore.edges.length, "with its edges");
  const placedAfter = await positions();
  for (const id of afterHide.nodes) {
    const [p, q] = [placedBefore[id], placedAfter[id]];
    assert.ok(Math.abs(p.x - q.x) < 1 && Math.abs(p.y - q.y) < 1, `hiding moved ${id}: ${JSON.stringify(p)} → ${JSON.stringify(q)}`);
  }
  assert.match(cur.url(), /hide=parties\/labour/, `the hide is in the address: ${cur.url()}`);
  assert.equal(await cur.locator("#show-hidden").innerText(), "Show 1 hidden");
  await cur.click("#undo");
  await idle(cur);
  assert.deepEqual((await graph(cur)).nodes, viewBefore.nodes, "Undo shows Labour again");
  assert.equal(await cur.locator("#redo").isDisabled(), false, "what was undone can be redone");
  await cur.keyboard.press("Control+Shift+Z");
  await idle(cur);
  assert.ok(!(await graph(cur)).nodes.includes("parties/labour"), "Ctrl+Shift+Z hides Labour again");
  await cur.keyboard.press("Control+Z");
  await idle(cur);
  assert.ok((await graph(cur)).nodes.includes("parties/labour"), "Ctrl+Z brings it back");
  // The keyboard hides what is selected; a reloaded link keeps it hidden; Show hidden brings it back.
  const other = viewBefore.nodes.find((n) => n !== "parties/labour" && n !== "actors/lutfur-rahman");
  await clickGraph(cur, other);
  await idle(cur);
  await cur.locator("body").press("Delete");
  await idle(cur);
  assert.ok(!(await graph(cur)).nodes.includes(other), "Delete hides the selected entity");
  await cur.reload();
  await idle(cur);
  assert.ok(!(await graph(cur)).nodes.includes(other), "a reloaded link keeps it hidden");
  await cur.click("#show-hidden");
  await idle(cur);
  assert.ok((await graph(cur)).nodes.includes(other), "Show hidden brings it back");
  assert.equal(await cur.locator("#show-hidden").isHidden(), true, "nothing hidden any more");
  await cur.close();

  step = "nodes keep their places: a filter change, an expansion and a shared link move none";
  console.log(step);
  const stillPage = await context.newPage();
  watch(stillPage);
  await stillPage.setViewportSize({ width: 1440, height: 900 });
  await stillPage.goto(new URL("?open=actors/lutfur-rahman&open=parties/labour", base).href);
  await idle(stillPage);
  const where = (page) => page.evaluate(() => Object.fromEntries(window.explorer.cy.nodes().map((n) => [n.id(), n.position()])));
  const moved = (a, b) => Object.keys(b).filter((id) => id in a && Math.hypot(a[id].x - b[id].x, a[id].y - b[id].y) > 1);
  const startAt = await where(stillPage);
  // One relation type off, then on again: what stays drawn never moves.
  await stillPage.uncheck('#types input[value="MEMBER_OF"]');
  await idle(stillPage);
  const offAt = await where(stillPage);
  assert.ok(Object.keys(offAt).length < Object.keys(startAt).length, "without MEMBER_OF fewer entities are drawn");
  assert.deepEqual(moved(startAt, offAt), [], "a relation type unticked moves no node");
  await stillPage.check('#types input[value="MEMBER_OF"]');
  await idle(stillPage);
  const onAgain = await where(stillPage);
  assert.deepEqual(moved(startAt, onAgain), [], "ticked again: the nodes drawn all along have not moved");
  // An expansion places the new neighbours among the others, which stay put.
  const grown = Object.keys(onAgain).find((id) => id.startsWith("actors/") && id !== "actors/lutfur-rahman");
  await clickGraph(stillPage, grown); // a click expands
  await idle(stillPage);
  const grownAt = await where(stillPage);
  assert.ok(Object.keys(grownAt).length > Object.keys(onAgain).length, `expanding ${grown} draws new neighbours`);
  assert.deepEqual(moved(onAgain, grownAt), [], `expanding ${grown} moves none of the nodes drawn before`);
  // The link carries the positions: opened elsewhere, the same picture.
  const sharedPage = await context.newPage();
  watch(sharedPage);
  await sharedPage.setViewportSize({ width: 1440, height: 900 });
  await sharedPage.goto(stillPage.url());
  await idle(sharedPage);
  const samePicture = await where(sharedPage);
  assert.deepEqual(Object.keys(samePicture).sort(), Object.keys(grownAt).sort(), "the link reopens the same entities");
  assert.deepEqual(moved(grownAt, samePicture), [], "the link reopens every node where it was");
  await sharedPage.close();
  await stillPage.close();

  step = "expand by type and direction from the entity panel's relation rows";
  console.log(step);
  const typed = await context.newPage();
  watch(typed);
  await typed.goto(new URL("?open=actors/lutfur-rahman&sel=parties/labour", base).href);
  await idle(typed);
  const beforeTyped = await graph(typed);
  const row = typed.locator('[data-panel="entity"] [data-expand="MEMBER_OF,in"]');
  const members = Number(await row.locator("xpath=following-sibling::span").innerText());
  assert.ok(members > 1, `Labour's panel counts its members: ${members}`);
  await row.click();
  await idle(typed);
  const afterTyped = await graph(typed);
  const added = afterTyped.nodes.filter((n) => !beforeTyped.nodes.includes(n));
  assert.ok(added.length > 0 && added.length <= members, `the members are drawn: ${added.length} of ${members}`);
  const joined = await typed.evaluate((added) => {
    const cy = window.explorer.cy;
    return added.filter((id) => cy.getElementById(id).edgesTo(cy.getElementById("parties/labour")).some((e) => e.data("type") === "MEMBER_OF"));
  }, added);
  assert.deepEqual(joined.sort(), added.sort(), "each entity drawn is a member of Labour");
  assert.ok(!afterTyped.expanded.includes("parties/labour"), "Labour is not marked expanded: a click still shows all it has");
  assert.match(typed.url(), /expand=parties\/labour,MEMBER_OF,in/, `the step is in the address: ${typed.url()}`);
  await typed.close();

  step = "pin and Rearrange, Undo; a group of marked entities; a note kept in the link and the figure";
  console.log(step);
  const cur2 = await context.newPage();
  watch(cur2);
  await cur2.goto(new URL("?open=actors/lutfur-rahman&sel=parties/labour", base).href);
  await idle(cur2);
  const placesOf = () => cur2.evaluate(() => Object.fromEntries(window.explorer.cy.nodes().not(".group").map((n) => [n.id(), n.position()])));
  await cur2.locator('[data-panel="entity"] [data-action="pin"]').click();
  await idle(cur2);
  assert.match(cur2.url(), /pin=parties\/labour/, "the pin is in the address");
  assert.equal(await cur2.evaluate(() => window.explorer.cy.getElementById("parties/labour").hasClass("pinned")), true);
  const beforeRearrange = await placesOf();
  await cur2.click("#rearrange");
  await idle(cur2);
  const rearranged = await placesOf();
  const shifted = Object.keys(rearranged).filter((id) => Math.hypot(rearranged[id].x - beforeRearrange[id].x, rearranged[id].y - beforeRearrange[id].y) > 1);
  assert.ok(!shifted.includes("parties/labour"), "Rearrange leaves the pinned entity where it is");
  assert.ok(shifted.length > 0, "and lays out the others again");
  await cur2.click("#undo");
  await idle(cur2);
  const undone = await placesOf();
  const back = shifted.filter((id) => Math.hypot(undone[id].x - beforeRearrange[id].x, undone[id].y - beforeRearrange[id].y) <= 1);
  assert.deepEqual(back, shifted, "Undo puts every entity back where it was before Rearrange");
  // Shift-click marks entities; Group puts them in a named box that the link keeps.
  const pair = (await graph(cur2)).nodes.filter((n) => n.startsWith("actors/") && n !== "actors/lutfur-rahman").slice(0, 2);
  await cur2.keyboard.down("Shift");
  for (const id of pair) await clickGraph(cur2, id);
  await cur2.keyboard.up("Shift");
  assert.equal(await cur2.locator("#group").innerText(), "Group 2", "the Group button counts the marked entities");
  cur2.once("dialog", (d) => void d.accept("Councillors"));
  await cur2.click("#group");
  await idle(cur2);
  const grouped = () => cur2.evaluate(() => window.explorer.cy.nodes(".group").map((g) => ({ label: g.data("label"), children: g.children().map((c) => c.id()).sort() })));
  assert.deepEqual(await grouped(), [{ label: "Councillors", children: [...pair].sort() }], "one group, of the two entities marked");
  assert.match(cur2.url(), /group=Councillors~/);
  await cur2.locator('[data-panel="group"] h3', { hasText: "Councillors" }).waitFor({ timeout: wait });
  // A note on Lutfur Rahman.
  await cur2.goto(new URL(`${cur2.url().replace(/&sel=[^&]*/, "")}&sel=actors/lutfur-rahman`).href);
  await idle(cur2);
  assert.deepEqual(await grouped(), [{ label: "Councillors", children: [...pair].sort() }], "the link keeps the group");
  await cur2.locator('[data-note="actors/lutfur-rahman"] summary').click();
  await cur2.fill("#note-text", "Removed by an election court in 2015; elected again in 2022.");
  await cur2.click('[data-action="save-note"]');
  await idle(cur2);
  assert.match(cur2.url(), /note=actors\/lutfur-rahman~Removed%20by%20an%20election%20court/, "the note is in the address");
  await cur2.reload();
  await idle(cur2);
  assert.equal(await cur2.locator("#note-text").inputValue(), "Removed by an election court in 2015; elected again in 2022.", "the link keeps the note");
  assert.equal(await cur2.evaluate(() => window.explorer.cy.getElementById("actors/lutfur-rahman").hasClass("noted")), true, "a noted entity is marked");
  await cur2.click("details.export summary");
  const [figure] = await Promise.all([cur2.waitForEvent("download", { timeout: wait }), cur2.click("#export-svg")]);
  const figurePath = path.join(out, "curated.svg");
  await figure.saveAs(figurePath);
  const curated = (await readFile(figurePath)).toString();
  assert.match(curated, /<g class="notes"[\s\S]*>Lutfur Rahman: Removed by an election court in 2015; elected again in 2022\.<\/text>/, "the figure carries the note");
  assert.match(curated, />Councillors<\/text>|data-id="group:0"/, "and the group");
  await screenshot(cur2, "curated");
  await cur2.close();

  step = "the search box is a combobox; the list view expands an entity by the keyboard alone";
  console.log(step);
  const keys = await context.newPage();
  watch(keys);
  await keys.goto(new URL("?open=actors/lutfur-rahman", base).href);
  await idle(keys);
  await comboboxByKeyboard(keys, "Tower");
  await listByKeyboard(keys, idle);
  await axeClean(keys, "the list view, a relation's claims");
  await screenshot(keys, "list-view");
  await keys.keyboard.press("Escape");
  assert.equal(await keys.locator("#listview").isHidden(), true, "Escape closes the list");
  assert.equal(await keys.evaluate(() => document.activeElement?.id), "list-toggle", "and the focus goes back to the List button");
  await keys.close();

  step = "axe-core finds no serious or critical violation";
  console.log(step);
  await axeExplorer(context, base, idle, watch);

  step = "a phone: no sideways scroll, full-width inputs, the details a bottom sheet";
  console.log(step);
  const phone = await phoneLayout(context, new URL("?open=actors/lutfur-rahman&sel=actors/lutfur-rahman", base).href, idle, watch);
  const phoneShot = await screenshot(phone.page, "phone");
  if (docsShot) {
    await copyFile(phoneShot, docsShot.replace(/\.png$/, "-phone.png"));
    console.log(`  wrote ${docsShot.replace(/\.png$/, "-phone.png")}`);
  }
  await phone.page.close();

  step = "30 expansions: no two labels drawn over each other, every entity on screen after Fit";
  console.log(step);
  const big = await context.newPage();
  watch(big);
  await big.goto(new URL("?open=parties/labour&per=5", base).href);
  await idle(big);
  let expansions = 1;
  const tried = new Set();
  while (expansions < 30) {
    const next = await big.evaluate((tried) => {
      const cy = window.explorer.cy;
      const n = cy.nodes().not(".more, .group, .expanded").filter((n) => !tried.includes(n.id())).sort((a, b) => a.id().localeCompare(b.id()))[0];
      return n ? n.id() : null;
    }, [...tried]);
    if (!next) break;
    tried.add(next);
    await big.evaluate((id) => void window.explorer.cy.center(window.explorer.cy.getElementById(id)), next);
    await clickGraph(big, next);
    await idle(big);
    expansions++;
  }
  await big.click("#fit");
  await big.waitForTimeout(600);
  await idle(big);
  const crowd = await big.evaluate(() => {
    const cy = window.explorer.cy;
    const box = cy.container().getBoundingClientRect();
    const nodes = cy.nodes().not(".group");
    const labelled = nodes.filter((n) => n.visible() && n.pstyle("label").strValue !== "");
    const boxes = labelled.map((n) => ({ id: n.id(), b: n.renderedBoundingBox({ includeNodes: false, includeLabels: true, includeEdges: false }) }));
    const over = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i].b, boxes[j].b];
      if (a.x1 + 1 < b.x2 && b.x1 + 1 < a.x2 && a.y1 + 1 < b.y2 && b.y1 + 1 < a.y2) over.push(`${boxes[i].id} / ${boxes[j].id}`);
    }
    const off = nodes.filter((n) => {
      const b = n.renderedBoundingBox({ includeLabels: false });
      return b.x1 < -1 || b.y1 < -1 || b.x2 > box.width + 1 || b.y2 > box.height + 1;
    }).map((n) => n.id());
    return { nodes: nodes.length, expanded: cy.nodes(".expanded").length, labelled: labelled.length, over, off, zoom: cy.zoom(),
      px: Math.min(...labelled.map((n) => parseFloat(n.style("font-size")) * cy.zoom())) };
  });
  console.log(`  ${crowd.expanded} expanded, ${crowd.nodes} entities, ${crowd.labelled} labelled at ${crowd.px.toFixed(1)} px or more, zoom ${crowd.zoom.toFixed(2)}`);
  assert.ok(crowd.expanded >= 30, `30 entities expanded: ${crowd.expanded}`);
  assert.deepEqual(crowd.over, [], "no label is drawn over another");
  assert.deepEqual(crowd.off, [], "Fit brings every entity on screen");
  assert.ok(crowd.px >= 10, `the labels drawn are legible: ${crowd.px.toFixed(1)} px`);
  assert.deepEqual((await overlaps(big)).bodies, [], "no two entities are drawn on top of each other");
  await screenshot(big, "thirty-expansions");
  await big.close();

  step = "a saved view reopens for a colleague with the same places, path, route and notes; a story steps through views";
  console.log(step);
  const editorKey = process.env.POLGRAPH_EDITOR_KEY;
  assert.ok(editorKey, "POLGRAPH_EDITOR_KEY names an editor's key");
  const author = await context.newPage();
  watch(author);
  await author.goto(new URL("?open=actors/lutfur-rahman&path=actors/ajmal-masroor,actors/keir-starmer&route=2&sel=paths&note=actors/rabina-khan~Mayoral%20candidate%202024", base).href);
  await idle(author);
  const whereSaved = async (page) => page.evaluate(() => Object.fromEntries(window.explorer.cy.nodes().not(".group").map((n) => [n.id(), n.position()])));
  const saveAs = async (title, storyName, order) => {
    await author.click("#views-menu summary");
    await author.click("#save-view");
    await author.fill("#view-title", title);
    await author.fill("#view-story", storyName);
    await author.fill("#view-order", String(order));
    if (await author.locator("#view-key").count()) await author.fill("#view-key", editorKey);
    await author.click("#view-create");
    const link = author.locator('[data-panel="save-view"] a[data-link="saved"]');
    await link.waitFor({ timeout: wait });
    return link.getAttribute("href");
  };
  const story1 = `tower-hamlets-${Date.now().toString(36)}`;
  const firstPlaces = await whereSaved(author);
  const firstLink = await saveAs("How Ajmal Masroor reaches Keir Starmer", story1, 1);
  assert.match(firstLink, /\?saved=views\/how-ajmal-masroor-reaches-keir-starmer(-\d+)?$/, `the saved view has a link of its own: ${firstLink}`);
  assert.match(author.url(), /saved=views\//, "the address names the saved view");
  await author.goto(new URL("?open=parties/aspire", base).href);
  await idle(author);
  const secondLink = await saveAs("Aspire", story1, 2);
  await author.close();
  // A colleague, in a tab of their own (no key), opens the first link.
  const colleague = await context.newPage();
  watch(colleague);
  await colleague.goto(firstLink);
  await idle(colleague);
  const opened = await whereSaved(colleague);
  assert.deepEqual(Object.keys(opened).sort(), Object.keys(firstPlaces).sort(), "the saved view draws the same entities");
  const off = Object.keys(opened).filter((id) => Math.hypot(opened[id].x - firstPlaces[id].x, opened[id].y - firstPlaces[id].y) > 1);
  assert.deepEqual(off, [], "every entity where it was when the view was saved");
  assert.equal(await colleague.evaluate(() => window.explorer.view.route), 1, "the route picked");
  assert.equal(await colleague.locator("#path-from").inputValue(), "Ajmal Masroor", "the path form filled");
  assert.equal(await colleague.locator("#path-to").inputValue(), "Keir Starmer");
  assert.equal(await colleague.evaluate(() => window.explorer.view.notes.get("actors/rabina-khan")), "Mayoral candidate 2024", "and the notes");
  assert.match(await colleague.locator("#story-at").innerText(), new RegExp(`^${story1}: 1 of 2 — How Ajmal Masroor reaches Keir Starmer$`));
  await screenshot(colleague, "saved-view");
  await colleague.click("#story-next");
  await idle(colleague);
  assert.match(await colleague.locator("#story-at").innerText(), new RegExp(`^${story1}: 2 of 2 — Aspire$`), "Next opens the story's next view");
  assert.ok(colleague.url().endsWith(secondLink.slice(secondLink.indexOf("saved="))) || colleague.url().includes(secondLink.slice(secondLink.indexOf("saved="))), `the address names it: ${colleague.url()}`);
  assert.ok((await graph(colleague)).expanded.includes("parties/aspire"));
  await colleague.goBack();
  await idle(colleague);
  assert.match(await colleague.locator("#story-at").innerText(), /: 1 of 2/, "Back returns to the first view of the story");
  await colleague.close();

  step = "the README's screenshot";
  console.log(step);
  const docs = await context.newPage();
  watch(docs);
  await docs.setViewportSize({ width: 1400, height: 860 });
  await docs.goto(new URL("?open=actors/lutfur-rahman&path=actors/ajmal-masroor,actors/keir-starmer&sel=paths", base).href);
  await idle(docs);
  await docs.locator('[data-panel="paths"]').waitFor({ timeout: wait });
  o = await overlaps(docs);
  assert.deepEqual(o.bodies, [], "no two nodes are drawn on top of each other in the README's view");
  const file = await screenshot(docs, "readme");
  if (docsShot) {
    await copyFile(file, docsShot);
    console.log(`  wrote ${docsShot}`);
  }
  await docs.close();

  assert.deepEqual(problems, [], "the page logged no errors");
  console.log("ok: the explorer passed every check");
} catch (err) {
  console.error(`FAILED at "${step}": ${err.stack ?? err}`);
  if (problems.length) console.error(problems.join("\n"));
  try {
    await screenshot(page, "failure");
  } catch {
    // the page is gone; the error above says why
  }
  process.exitCode = 1;
} finally {
  await browser.close();
}
