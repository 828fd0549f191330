// End-to-end test of the explorer's review view in a real browser (Chromium, headless, driven by
// playwright-core) against a running polgraph whose review queue holds a document the test read into it.
// cmd/polgraph's TestReviewInBrowser queues the document, runs this, then checks over gRPC what the
// decisions made here did to the graph.
//
// Environment:
//   POLGRAPH_EXPLORER_URL   the explorer (required)
//   POLGRAPH_REVIEW         JSON: { editorKey, readerKey, document (its hash), title, outlet, published,
//                           approve, reject, bulkReject, bulkApprove: [..] (proposal names), excerpt (the
//                           approved proposal's sentence), reason, merge: { entity, into, intoName },
//                           ingest: { title, content } (a document for the page to read into the queue) }
//   POLGRAPH_TEST_OUTPUT    where screenshots go (default test-output/explorer/ at the root)
//   POLGRAPH_DOCS_SCREENSHOT  when set, the README's screenshot of the review view is written there too
//   POLGRAPH_CHROMIUM       the browser (default /usr/bin/chromium)
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { axeClean, noSidewaysOnPhone } from "./a11y.mjs";
import { launch } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.POLGRAPH_EXPLORER_URL;
const t = JSON.parse(process.env.POLGRAPH_REVIEW ?? "null");
if (!base || !t) {
  console.error("POLGRAPH_EXPLORER_URL and POLGRAPH_REVIEW must be set");
  process.exit(2);
}
const out = path.resolve(process.env.POLGRAPH_TEST_OUTPUT ?? path.join(here, "../../test-output/explorer"));
const docsShot = process.env.POLGRAPH_DOCS_SCREENSHOT ?? "";
const wait = 20_000;
await mkdir(out, { recursive: true });

const browser = await launch();
const page = await browser.context.newPage();
let step = "start";
/** While a refusal is what the step expects, the browser's note of the 401 or 403 is no problem. */
let refusalsExpected = false;
const problems = [];
page.on("pageerror", (err) => problems.push(`uncaught error in the page during "${step}": ${err.message}`));
page.on("console", (msg) => {
  if (msg.type() !== "error") return;
  if (refusalsExpected && /status of 40[13]/.test(msg.text())) return;
  problems.push(`console error during "${step}": ${msg.text()}`);
});

let shot = 0;
async function screenshot(name) {
  shot++;
  const file = path.join(out, `review-${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  console.log(`  screenshot ${path.relative(process.cwd(), file)}`);
}

/** Waits until no call runs. */
async function idle() {
  await page.waitForFunction(() => document.body.dataset.busy === "0" && window.explorer !== undefined, null, { timeout: wait });
  await page.evaluate(() => window.explorer.idle());
}

const proposal = (name) => page.locator(`li.proposal[data-proposal="${name}"]`);
const entity = (name) => page.locator(`li.pentity[data-entity="${name}"]`);
const docItem = () => page.locator(`button.doc-item[data-document="${t.document}"]`);

async function waitState(name, state) {
  await page.locator(`li.proposal[data-proposal="${name}"][data-state="${state}"]`).waitFor({ timeout: wait });
}

async function useKey(key) {
  const input = page.locator("#review-key-input");
  await input.waitFor({ timeout: wait });
  await input.fill(key);
  await page.locator('[data-testid="review-keyform"] button[type="submit"]').click();
  await idle();
}

try {
  step = "open the review without a key: it asks for an editor's key";
  console.log(step);
  refusalsExpected = true;
  await page.goto(new URL("?review", base).href);
  await page.waitForSelector('#conn[data-state="ok"]', { timeout: wait });
  await page.locator('[data-testid="review-gate"]').waitFor({ state: "visible", timeout: wait });
  await idle();
  assert.equal(await page.locator("body").getAttribute("data-mode"), "review");
  assert.ok(await page.locator("#graph-view").isHidden(), "the graph is hidden while reviewing");
  assert.ok(await page.locator("#search-input").isHidden(), "the graph's search is hidden while reviewing");
  const gate = await page.locator('[data-testid="review-gate"]').innerText();
  assert.match(gate, /editor/, "the form says which role is needed");
  assert.match(gate, /polgraph keys create --name YOUR-NAME --role editor/, "and how to make a key");
  assert.match(gate, /sessionStorage/, "and where the key is kept");
  await screenshot("asks-for-a-key");

  await axeClean(page, "the review asks for a key");
  await noSidewaysOnPhone(page, "the review asks for a key", ["#review-key-input", ".keyform"]);

  step = "a reader's key is refused: it cannot review";
  console.log(step);
  await useKey(t.readerKey);
  await page.locator('[data-testid="review-gate"] .note').waitFor({ timeout: wait });
  assert.match(await page.locator('[data-testid="review-gate"] .note').innerText(), /cannot review: .*needs the editor role/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("polgraph.editorKey")), null, "a refused key is not kept");

  step = "an editor's key opens the queue: the document is listed with its title, outlet, date and pending count";
  console.log(step);
  await useKey(t.editorKey);
  refusalsExpected = false;
  await docItem().waitFor({ timeout: wait });
  assert.ok(await page.locator('[data-testid="review-gate"]').isHidden(), "the form is gone");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("polgraph.editorKey")), t.editorKey, "the key is kept for the tab");
  const item = await docItem().innerText();
  assert.ok(item.includes(t.title), `the list names the document by its title: ${item}`);
  assert.ok(item.includes(t.outlet) && item.includes(t.published), `and gives its outlet and date: ${item}`);
  assert.match(await docItem().locator('[data-count="pending"]').innerText(), /^5 pending$/);
  assert.match(await page.locator('[data-testid="review-key"]').innerText(), /editor’s key/);

  step = "open the document: its text, each pending proposal's excerpt highlighted";
  console.log(step);
  await docItem().click();
  await idle();
  await proposal(t.approve).waitFor({ timeout: wait });
  assert.ok(page.url().includes(`review=${t.document}`), `the address names the document: ${page.url()}`);
  assert.equal(await page.locator('[data-testid="review-title"]').innerText(), t.title);
  const mark = page.locator(`mark.span[data-proposals~="${t.approve}"]`);
  assert.equal(await mark.count(), 1, "the approved-to-be proposal's excerpt is one highlight");
  assert.equal(await mark.innerText(), t.excerpt, "the highlight is exactly its sentence (byte offsets read right after ’ and —)");
  assert.match(await mark.getAttribute("class"), /\bpending\b/);
  assert.equal(await page.locator(`[data-testid="review-text"] mark.span.pending`).count(), 5, "five sentences, one proposal each, all pending");
  const text = await page.locator('[data-testid="review-text"]').innerText();
  assert.ok(text.startsWith("Tower Hamlets’ quiet row"), `the whole text is shown: ${text.slice(0, 60)}`);
  const first = await proposal(t.approve).innerText();
  assert.match(first, /criticised/, "a proposal says its type");
  assert.match(first, /Zorba Quillfeather\s*new\s*→\s*Marisol Tenterden\s*new/i, "from → to, by display names, proposed ends marked new");
  assert.match(first, /reported/i, "its claim status");
  assert.match(first, /confidence 0\.\d\d/, "its confidence");
  assert.match(first, /rule \S+/, "the rule that proposed it");
  assert.match(first, /pending/i, "its state");
  await screenshot("document");
  await axeClean(page, "the review: a document and its proposals");

  step = "a highlighted sentence points to its proposal";
  console.log(step);
  await mark.click();
  await page.locator(`li.proposal.focus[data-proposal="${t.approve}"]`).waitFor({ timeout: wait });

  step = "approve one proposal in place";
  console.log(step);
  await proposal(t.approve).locator('button[data-action="approve"]').click();
  await idle();
  await waitState(t.approve, "APPROVED");
  assert.match(await proposal(t.approve).locator(".p-outcome").innerText(), /Approved by key .*relations\/zorba-quillfeather\.criticised\.marisol-tenterden.*show in graph/s);
  assert.match(await page.locator(`mark.span[data-proposals~="${t.approve}"]`).getAttribute("class"), /\bapproved\b/, "its highlight says approved");
  assert.match(await page.locator('[data-testid="review-status"]').innerText(), /Approved 1 proposal/);
  assert.match(await docItem().locator('[data-count="pending"]').innerText(), /^4 pending$/, "the list counts follow");

  step = "reject another in place, with a reason";
  console.log(step);
  await proposal(t.reject).locator('button[data-action="reject"]').click();
  const reason = proposal(t.reject).locator('[data-testid="reject-reason"]');
  await reason.waitFor({ timeout: wait });
  // No reason, no rejection: the form asks for one.
  await proposal(t.reject).locator('button[data-action="confirm-reject"]').click();
  assert.equal(await proposal(t.reject).getAttribute("data-state"), "PENDING");
  await reason.fill(t.reason);
  await proposal(t.reject).locator('button[data-action="confirm-reject"]').click();
  await idle();
  await waitState(t.reject, "REJECTED");
  assert.ok((await proposal(t.reject).locator(".p-outcome").innerText()).includes(t.reason), "the reason is shown");
  assert.match(await page.locator(`mark.span[data-proposals~="${t.reject}"]`).getAttribute("class"), /\brejected\b/);

  step = "merge a proposed entity into the graph's entity it is";
  console.log(step);
  await entity(t.merge.entity).locator('button[data-action="merge"]').click();
  // The box starts with the proposed name and searches it: the entity it is shows up.
  const option = entity(t.merge.entity).locator(`li[data-name="${t.merge.into}"]`);
  await option.waitFor({ timeout: wait });
  await option.click();
  await idle();
  await page.locator(`li.pentity[data-entity="${t.merge.entity}"][data-state="MERGED"]`).waitFor({ timeout: wait });
  assert.match(await entity(t.merge.entity).innerText(), new RegExp(`Merged into ${t.merge.intoName}`));
  assert.match(await proposal(t.bulkReject).locator(".p-ends").innerText(), new RegExp(`^${t.merge.intoName}\\s*→`), "its proposal names the entity it is now");

  await screenshot("merged");
  if (docsShot) {
    await page.locator('[data-testid="review-proposals"]').evaluate((el) => (el.scrollTop = 0));
    await page.screenshot({ path: docsShot });
    console.log(`  wrote ${docsShot}`);
  }

  step = "select a proposal and reject the selection with a reason";
  console.log(step);
  await proposal(t.bulkReject).locator('input[type="checkbox"]').check();
  await page.locator('[data-testid="review-bulk"]', { hasText: "1 selected" }).waitFor({ timeout: wait });
  await page.locator('button[data-action="reject-selected"]').click();
  await page.locator('[data-testid="review-bulk"] [data-testid="reject-reason"]').fill("a test: the endorsement is not the outlet’s");
  await page.locator('[data-testid="review-bulk"] button[data-action="confirm-reject"]').click();
  await idle();
  await waitState(t.bulkReject, "REJECTED");

  step = "an open view in live mode, around Marisol Tenterden";
  console.log(step);
  const live = await browser.context.newPage();
  live.on("pageerror", (err) => problems.push(`uncaught error in the live view during "${step}": ${err.message}`));
  await live.goto(new URL("?open=actors/marisol-tenterden&live=1", base).href);
  await live.waitForFunction(() => document.body.dataset.busy === "0" && window.explorer !== undefined, null, { timeout: wait });
  await live.evaluate(() => window.explorer.idle());
  assert.equal(await live.locator("#live").isChecked(), true, "the link keeps live mode");
  const piersShown = () => live.evaluate(() => window.explorer.cy.getElementById("actors/piers-vantongeren").nonempty());
  assert.equal(await piersShown(), false, "Piers Vantongeren is not in the graph yet");

  step = "select several and approve them at once";
  console.log(step);
  for (const name of t.bulkApprove) await proposal(name).locator('input[type="checkbox"]').check();
  await page.locator('[data-testid="review-bulk"]', { hasText: `${t.bulkApprove.length} selected` }).waitFor({ timeout: wait });
  assert.match(await page.locator('button[data-action="approve-shown"]').innerText(), /Approve all shown \(2\)/);
  await page.locator('button[data-action="approve-selected"]').click();
  await idle();
  for (const name of t.bulkApprove) await waitState(name, "APPROVED");
  assert.match(await page.locator('[data-testid="review-status"]').innerText(), /Approved 2 proposals/);
  assert.equal(await page.locator(`[data-testid="review-text"] mark.span.pending`).count(), 0, "nothing is left pending");
  assert.match(await docItem().innerText(), /0 pending · 3 approved · 2 rejected/);
  await screenshot("decided");

  step = "the approved relation appears in the open view, highlighted";
  console.log(step);
  await live.waitForFunction(() => {
    const cy = window.explorer.cy;
    const piers = cy.getElementById("actors/piers-vantongeren");
    return piers.nonempty() && piers.edgesWith(cy.getElementById("actors/marisol-tenterden")).filter(".live").nonempty();
  }, null, { timeout: wait });
  console.log("  Marisol Tenterden — Piers Vantongeren appeared, highlighted");
  await live.close();

  step = "the decisions are kept: reload the page";
  console.log(step);
  await page.reload();
  await idle();
  await proposal(t.approve).waitFor({ timeout: wait });
  assert.ok(await page.locator('[data-testid="review-gate"]').isHidden(), "the tab still holds the key");
  const states = await page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll("li.proposal")].map((li) => [li.dataset.proposal, li.dataset.state])));
  assert.deepEqual(states, {
    ...Object.fromEntries([t.approve, ...t.bulkApprove].map((n) => [n, "APPROVED"])),
    [t.reject]: "REJECTED",
    [t.bulkReject]: "REJECTED",
  });
  assert.ok((await proposal(t.reject).innerText()).includes(t.reason), "the reason is kept");
  await axeClean(page, "the review with proposals approved and rejected");
  await noSidewaysOnPhone(page, "a document with proposals approved and rejected", ["li.proposal", "li.pentity", ".doc-item", "[data-testid=review-text]"]);
  await page.locator('[data-testid="review-state-filter"]').selectOption({ label: "approved (3)" });
  assert.equal(await page.locator("li.proposal").count(), 3, "the state filter shows the approved ones");

  step = "show the approved relation in the graph";
  console.log(step);
  const relation = await proposal(t.approve).locator(".p-outcome code").innerText();
  await proposal(t.approve).locator('button[data-action="show-in-graph"]').click();
  await page.waitForSelector('body[data-mode="graph"]', { timeout: wait });
  await idle();
  await page.locator('[data-panel="relation"]').waitFor({ timeout: wait });
  const drawn = await page.evaluate((id) => {
    const e = window.explorer.cy.getElementById(id);
    return { drawn: e.nonempty(), selected: e.nonempty() && e.selected(), from: e.nonempty() ? e.source().id() : "", to: e.nonempty() ? e.target().id() : "" };
  }, relation);
  assert.deepEqual(drawn, { drawn: true, selected: true, from: "actors/zorba-quillfeather", to: "actors/marisol-tenterden" });
  const panel = await page.locator('[data-panel="relation"]').innerText();
  assert.ok(panel.includes(t.excerpt), "the relation's claim is the approved proposal's sentence");
  assert.ok(panel.includes(t.title), "citing the document");
  assert.ok(!page.url().includes("review"), `the address is the graph's: ${page.url()}`);
  await screenshot("shown-in-graph");

  step = "back to the review, then forget the key";
  console.log(step);
  await page.click("#mode-review");
  await idle();
  await proposal(t.approve).waitFor({ timeout: wait });
  assert.ok(page.url().includes(`review=${t.document}`), "the review comes back on its document");

  step = "add a document from the page";
  console.log(step);
  await page.locator(".ingest-box summary").click();
  const form = page.locator('[data-testid="review-ingest"]');
  await form.locator("textarea").fill(t.ingest.content);
  await form.locator('input[name="title"]').fill(t.ingest.title);
  await form.locator('input[name="outlet"]').fill(t.outlet);
  await form.locator('input[name="published"]').fill(t.published);
  await form.locator('button[type="submit"]').click();
  await idle();
  await page.waitForFunction((title) => document.querySelector('[data-testid="review-title"]')?.textContent === title, t.ingest.title, { timeout: wait });
  assert.match(await page.locator('[data-testid="review-status"]').innerText(), /^Read “.*”: \d+ proposals? and \d+ proposed entit(y|ies) queued\.$/);
  assert.equal(await page.locator("button.doc-item").first().locator(".doc-title").innerText(), t.ingest.title, "the newest document comes first");
  assert.ok((await page.locator('[data-testid="review-text"] mark.span.pending').count()) >= 1, "what it proposes is highlighted");
  // "The Labour leader", on the document's date, is whoever the graph says led Labour then.
  assert.equal(await page.locator('[data-testid="proposal-resolved"]').first().innerText(), "The Labour leader → Keir Starmer, LEADS Labour 2020–");
  assert.ok(!page.url().includes(t.document), "the address follows the new document");
  step = "an admin keeps two entities that may be one apart: the pair leaves the list";
  console.log(step);
  const pair = page.locator(`li.match[data-pair="${t.match.pair}"]`);
  await pair.waitFor({ timeout: wait });
  assert.match(await pair.innerText(), /born \+2\.0 \(both born in 1950\)/, "the pair says why it may be one");
  await page.locator('[data-testid="review-forget-key"]').click();
  await useKey(t.adminKey);
  await pair.locator('[data-action="apart"]').click();
  await pair.locator('[data-testid="reject-reason"]').fill(t.match.reason);
  await pair.locator('button[type="submit"]').click();
  await idle();
  await pair.waitFor({ state: "detached", timeout: wait });
  assert.match(await page.locator('[data-testid="review-status"]').innerText(), /are judged not the same: “.*”\.$/);

  await page.locator('[data-testid="review-forget-key"]').click();
  await page.locator('[data-testid="review-gate"]').waitFor({ state: "visible", timeout: wait });
  assert.equal(await page.evaluate(() => sessionStorage.getItem("polgraph.editorKey")), null);

  assert.deepEqual(problems, [], "the page logged no errors");
  console.log("ok: the review view passed every check");
} catch (err) {
  console.error(`FAILED at "${step}": ${err.stack ?? err}`);
  if (problems.length) console.error(problems.join("\n"));
  try {
    await screenshot("failure");
  } catch {
    // the page is gone; the error above says why
  }
  process.exitCode = 1;
} finally {
  await browser.close();
}
