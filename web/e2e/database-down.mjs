// The explorer when polgraph answers but its database does not: the page must say so in a banner, with
// the error naming the database's address. cmd/polgraph's TestDatabaseDown runs it once its Dgraph is
// stopped.
//
// Environment: POLGRAPH_EXPLORER_URL (required), POLGRAPH_DGRAPH_ADDR (the stopped Dgraph's address),
// POLGRAPH_TEST_OUTPUT (where the screenshot goes), POLGRAPH_CHROMIUM.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.POLGRAPH_EXPLORER_URL;
const dgraph = process.env.POLGRAPH_DGRAPH_ADDR ?? "";
const out = path.resolve(process.env.POLGRAPH_TEST_OUTPUT ?? path.join(here, "../../test-output/explorer"));
assert.ok(base, "POLGRAPH_EXPLORER_URL is not set");
await mkdir(out, { recursive: true });

const browser = await launch();
const page = await browser.context.newPage();
try {
  await page.goto(base);
  const banner = page.locator("#banner");
  // The health watch sees it on its own; a search sees it at once.
  await page.locator("#search-input").pressSequentially("Lutfur", { delay: 40 });
  await banner.waitFor({ state: "visible", timeout: 20_000 });
  await page.waitForSelector('#banner[data-kind="database"]', { timeout: 20_000 });
  const text = await banner.innerText();
  assert.match(text, /database is not answering/);
  if (dgraph) assert.ok(text.includes(dgraph), `the banner names the database's address ${dgraph}: ${text}`);
  assert.equal(await page.locator("#conn").getAttribute("data-state"), "down");
  await page.locator("h1.brand").click(); // away from the search box, whose suggestions then close
  await page.locator("#search-list").waitFor({ state: "hidden", timeout: 20_000 });
  await page.screenshot({ path: path.join(out, "database-down.png") });
  console.log(`ok: the banner says: ${text.replace(/\s+/g, " ").trim()}`);
} catch (err) {
  console.error(`FAILED: ${err.stack ?? err}`);
  await page.screenshot({ path: path.join(out, "database-down-failure.png") }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
