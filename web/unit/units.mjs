// Unit tests of the explorer's pure modules, without a browser: esbuild bundles each TypeScript module
// in memory, and node:test runs the checks. `npm run unit`; web's TestUnits runs it in `go test`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { build } from "esbuild";

/** Imports a module of src/ (TypeScript) by bundling it. */
async function load(entry) {
  const out = await build({
    entryPoints: [new URL(`../src/${entry}`, import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "esm",
    target: ["es2022"],
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`);
}

const { byteIndexer, pieces } = await load("highlight.ts");
const { emptyView, formatView, parseView } = await load("view.ts");

/** The byte offset of a string index, as Go counts it. */
const bytesBefore = (text, index) => Buffer.byteLength(text.slice(0, index), "utf8");

test("byte offsets map to string indices", async (t) => {
  const cases = {
    ascii: "Mr Galloway said so.",
    "two-byte letters": "Señor Rahmán and Zoë",
    "three-byte punctuation": "Labour – said “no” … then yes",
    "four-byte characters (two code units)": "Posts 🗳️ #GE2024 🌹 Rushanara",
    empty: "",
  };
  for (const [name, text] of Object.entries(cases)) {
    await t.test(name, () => {
      const at = byteIndexer(text);
      // Every character's start maps back to its index.
      let i = 0;
      for (const ch of text) {
        assert.equal(at(bytesBefore(text, i)), i, `the character at ${i} (${ch})`);
        i += ch.length;
      }
      assert.equal(at(Buffer.byteLength(text, "utf8")), text.length, "the end");
      assert.equal(at(-5), 0, "before the start");
      assert.equal(at(1e9), text.length, "past the end");
    });
  }
  await t.test("an offset inside a character falls back to its start", () => {
    const text = "a–b"; // the dash is 3 bytes: 1..4
    const at = byteIndexer(text);
    assert.equal(at(2), 1);
    assert.equal(at(3), 1);
    assert.equal(at(4), 2);
  });
  await t.test("a sentence found by its bytes is the sentence", () => {
    const text = "Intro — “quoted”. Lutfur Rahman did not support Ajmal Masroor. Then 🌹 more.";
    const sentence = "Lutfur Rahman did not support Ajmal Masroor.";
    const start = bytesBefore(text, text.indexOf(sentence));
    const end = start + Buffer.byteLength(sentence, "utf8");
    const at = byteIndexer(text);
    assert.equal(text.slice(at(start), at(end)), sentence);
  });
});

test("the text is cut at every span's ends", async (t) => {
  const text = "One two. Three four. Five.";
  const cases = [
    { name: "no spans", spans: [], want: [[text, []]] },
    {
      name: "one span",
      spans: [{ id: "a", start: 9, end: 20 }],
      want: [["One two. ", []], ["Three four.", ["a"]], [" Five.", []]],
    },
    {
      name: "two proposals from one sentence share it",
      spans: [{ id: "a", start: 9, end: 20 }, { id: "b", start: 9, end: 20 }],
      want: [["One two. ", []], ["Three four.", ["a", "b"]], [" Five.", []]],
    },
    {
      name: "overlapping spans",
      spans: [{ id: "a", start: 0, end: 14 }, { id: "b", start: 9, end: 20 }],
      want: [["One two. ", ["a"]], ["Three", ["a", "b"]], [" four.", ["b"]], [" Five.", []]],
    },
    {
      name: "empty, reversed and outside spans are dropped or clamped",
      spans: [{ id: "e", start: 4, end: 4 }, { id: "r", start: 8, end: 3 }, { id: "o", start: 21, end: 999 }],
      want: [["One two. Three four. ", []], ["Five.", ["o"]]],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const got = pieces(text, c.spans);
      assert.deepEqual(got.map((p) => [p.text, p.ids]), c.want);
      assert.equal(got.map((p) => p.text).join(""), text, "the pieces make the text");
      let at = 0;
      for (const p of got) {
        assert.equal(p.start, at);
        at += p.text.length;
      }
    });
  }
});

test("the address holds the review view", async (t) => {
  const cases = [
    { name: "the graph", query: "open=actors/lutfur-rahman", review: null },
    { name: "the list of documents", query: "review", review: "" },
    { name: "a document", query: "review=0123456789abcdef", review: "0123456789abcdef" },
    { name: "a document, with the graph behind it", query: "open=actors/lutfur-rahman&sel=actors/lutfur-rahman&review=abc", review: "abc" },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const v = parseView(`?${c.query}`);
      assert.equal(v.review, c.review);
      assert.equal(formatView(v), c.query, "written back as it was");
    });
  }
  await t.test("an empty view has no review", () => {
    assert.equal(emptyView().review, null);
    assert.equal(formatView(emptyView()), "");
  });
});
