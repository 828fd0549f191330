// Starts the headless Chromium the explorer's browser tests use: Debian's, with a fresh profile and
// without the background traffic that a closed network refuses.
import { chromium } from "playwright-core";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

export async function launch() {
  const profile = await mkdtemp(path.join(tmpdir(), "polgraph-explorer-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.POLGRAPH_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
