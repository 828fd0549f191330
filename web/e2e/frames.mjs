// Frame time of the explorer's canvas at 200 and 1,000 entities (make bench-explorer): a synthetic graph of
// that many entities and twice as many relations, drawn with the explorer's own styles, bundles and labels,
// zoomed in and out and panned for a few seconds while each frame's time is recorded. Headless Chromium
// draws on the CPU here, so the figures are a floor for a desktop with a GPU, not a promise.
//
//   POLGRAPH_EXPLORER_URL   the explorer to open
//   POLGRAPH_FRAMES_OUT     where to write the table (Markdown); printed in any case
import { writeFile } from "node:fs/promises";
import { launch } from "./browser.mjs";

const base = process.env.POLGRAPH_EXPLORER_URL ?? "http://127.0.0.1:8080/";
const browser = await launch();
const rows = [];
try {
  for (const n of [200, 1000]) {
    const page = await browser.context.newPage();
    await page.goto(base);
    await page.waitForFunction(() => window.explorer !== undefined && document.body.dataset.busy === "0");
    const r = await page.evaluate(async (n) => {
      const cy = window.explorer.cy;
      // A fixed pseudo-random sequence: the same graph every run.
      let seed = 42;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const kinds = ["actor", "actor", "actor", "actor", "actor", "actor", "actor", "party", "seat", "organisation"];
      const types = [["MEMBER_OF", "structure"], ["HOLDS_OFFICE", "structure"], ["ENDORSES", "ties"], ["CRITICISED", "conflict"], ["CANDIDATE_FOR", "structure"]];
      const els = [];
      for (let i = 0; i < n; i++) {
        // A spiral at the density the layout leaves: about 120 px between neighbours.
        const a = i * 2.39996, rad = 60 * Math.sqrt(i);
        els.push({ group: "nodes", data: { id: `e${i}`, label: `Entity number ${i}`, kind: kinds[i % kinds.length], relationCount: Math.floor(rnd() * 40) },
          position: { x: rad * Math.cos(a), y: rad * Math.sin(a) }, classes: i % 10 === 0 ? "expanded" : "" });
      }
      for (let j = 0; j < 2 * n; j++) {
        // Hubs draw most relations, as parties do.
        const from = Math.floor(rnd() * n), to = rnd() < 0.5 ? Math.floor(rnd() * Math.min(n, 20)) : Math.floor(rnd() * n);
        if (from === to) continue;
        const [type, family] = types[j % types.length];
        els.push({ group: "edges", data: { id: `r${j}`, source: `e${from}`, target: `e${to}`, type, family, label: `${type.toLowerCase().replace("_", " ")} · 2010–2015`,
          confidence: 0.5 + rnd() / 2, claimCount: 1, statuses: "REPORTED", validFrom: "2010", validTo: "2015" }, classes: family });
      }
      cy.add(els);
      window.explorer.redraw();
      cy.fit(undefined, 40);
      await new Promise((res) => setTimeout(res, 500));
      const measure = (move) =>
        new Promise((resolve) => {
          const times = [];
          let last = performance.now();
          const start = last;
          const frame = (now) => {
            times.push(now - last);
            last = now;
            move(now - start);
            if (now - start < 4000) requestAnimationFrame(frame);
            else resolve(times.slice(2).sort((x, y) => x - y));
          };
          requestAnimationFrame(frame);
        });
      const z0 = cy.zoom();
      const zoom = await measure((t) => cy.zoom({ level: z0 * (1 + 1.5 * Math.abs(Math.sin(t / 800))), renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }));
      cy.fit(undefined, 40);
      const pan = await measure(() => cy.panBy({ x: 3, y: 1 }));
      const q = (a, p) => a[Math.min(a.length - 1, Math.floor(p * a.length))];
      return { nodes: cy.nodes().length, edges: cy.edges().not(".bundle").length, bundles: cy.edges(".bundle").length,
        zoom: [q(zoom, 0.5), q(zoom, 0.95)], pan: [q(pan, 0.5), q(pan, 0.95)] };
    }, n);
    rows.push(r);
    console.log(`${r.nodes} entities, ${r.edges} relations (${r.bundles} bundles): zooming ${r.zoom[0].toFixed(1)} ms median, ${r.zoom[1].toFixed(1)} ms p95; panning ${r.pan[0].toFixed(1)} / ${r.pan[1].toFixed(1)} ms`);
    await page.close();
  }
} finally {
  await browser.close();
}
const fps = (ms) => Math.round(1000 / ms);
const table = [
  "| entities | relations | zooming: median frame (fps), p95 | panning: median frame (fps), p95 |",
  "|---:|---:|---|---|",
  ...rows.map((r) => `| ${r.nodes} | ${r.edges} | ${r.zoom[0].toFixed(1)} ms (${fps(r.zoom[0])}), ${r.zoom[1].toFixed(1)} ms | ${r.pan[0].toFixed(1)} ms (${fps(r.pan[0])}), ${r.pan[1].toFixed(1)} ms |`),
].join("\n");
console.log(table);
if (process.env.POLGRAPH_FRAMES_OUT) await writeFile(process.env.POLGRAPH_FRAMES_OUT, `${table}\n`);
