// Builds the explorer into dist/ (or $POLGRAPH_WEB_OUT, where `make check` builds it to compare): one
// bundle of src/main.ts with its dependencies, the stylesheet, the page, and the licences of the bundled
// packages. `make web` runs it after `npm ci`.
import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";

const out = process.env.POLGRAPH_WEB_OUT ? process.env.POLGRAPH_WEB_OUT.replace(/\/?$/, "/") : new URL("./dist/", import.meta.url).pathname;
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: { explorer: "src/main.ts", "explorer-style": "src/explorer.css" },
  outdir: out,
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  legalComments: "linked",
  logLevel: "warning",
});
await copyFile(new URL("./src/index.html", import.meta.url), out + "index.html");
