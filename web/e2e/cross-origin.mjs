// A page on another origin tries to read, write and drop the local Dgraph and to call polgraph's API, as
// any web page the user visits could. cmd/polgraph's TestCrossOriginPagesAreShutOut serves that page
// (POLGRAPH_ATTACKER_URL), then checks from Go that nothing changed; this script only opens the page and
// prints what each attempt got, one JSON line starting "RESULTS ".
//
// Environment: POLGRAPH_ATTACKER_URL (required), POLGRAPH_CHROMIUM.
import assert from "node:assert/strict";
import { launch } from "./browser.mjs";

const url = process.env.POLGRAPH_ATTACKER_URL;
assert.ok(url, "POLGRAPH_ATTACKER_URL is not set");

const browser = await launch();
const page = await browser.context.newPage();
try {
  await page.goto(url);
  await page.waitForFunction(() => window.__done === true, null, { timeout: 60_000 });
  const results = await page.evaluate(() => window.__results);
  console.log("RESULTS " + JSON.stringify(results));
} catch (err) {
  console.error(`FAILED: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
