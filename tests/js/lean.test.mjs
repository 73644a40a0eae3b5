// The lean npm build (`mnemo/lean`: the `js` feature without `sqlite`)
// under Node.js: every note behaviour of tests/js/api.test.mjs, run again
// here against the lean build, and what it does instead of what needs
// SQLite (sessions, OPFS, IndexedDB): a clear `unsupported`. The approval
// and review tests of tests/js/approval.test.mjs and the importance and
// recall tests of tests/js/importance.test.mjs, the log, curation and
// workspace tests of tests/js/curation.test.mjs and the skills tests of
// tests/js/skills.test.mjs run here too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const lean = join(root, "pkg", "lean", "node", "mnemo.js");
if (!existsSync(lean)) throw new Error("pkg/lean is missing: run scripts/build-js.sh first");
const require = createRequire(import.meta.url);
const { Memory } = require(lean);
const full = require(join(root, "pkg", "node", "mnemo.js"));

process.env.MNEMO_PKG = lean;
await import("./api.test.mjs");
// Write approval and the review need no SQLite: the same tests, on the lean build.
await import("./approval.test.mjs");
// Importance, recall and the host's embedder need no SQLite either (vectors
// are kept in memory only: importance.test.mjs checks that a reopen embeds again).
await import("./importance.test.mjs");
// The activity log, curation and workspaces are blobs through the storage
// seam: the same tests, on the lean build.
await import("./curation.test.mjs");
// Skills are blobs through the storage seam too (files in the CLI's layout
// for "fs"): the same tests, on the lean build.
await import("./skills.test.mjs");

const add = (target, content) => ({ action: "add", target, content });

async function rejects(promise, code) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.name, "MnemoError", String(e));
    assert.equal(e.code, code, e.message);
    return true;
  });
}

test("lean: storage memory keeps notes in memory; status says sessions are absent", async () => {
  for (const opts of [undefined, { storage: "memory", name: "notes" }]) {
    const m = await Memory.open(opts);
    assert.ok((await m.tool(add("memory", "Staging SSH listens on port 2222"))).success);
    const status = await m.status();
    assert.equal(status.storage, "memory");
    assert.match(status.sessions, /^absent: this build has no SQLite/);
    assert.equal((await m.search("ssh port"))[0].text, "Staging SSH listens on port 2222");
    await m.close();
  }
  await rejects(Memory.open({ storage: "memory", name: "../elsewhere" }), "invalid-config");
});

test("lean: opfs and indexeddb are unsupported; auto falls back to memory with a warning", async () => {
  for (const storage of ["opfs", "indexeddb"]) {
    const e = await Memory.open({ storage, name: "x" }).catch((e) => e);
    assert.equal(e.code, "unsupported", e.message);
    assert.match(e.message, /full build/);
  }
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(String(message));
  try {
    const m = await Memory.open({ storage: "auto", name: "x" });
    assert.equal((await m.status()).storage, "memory");
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^mnemo: storage "auto" fell back to "memory" \(.+\); notes will not survive a reload$/);
});

test("lean: every session call and Memory.list/recover/delete answer unsupported", async () => {
  const m = await Memory.open({ storage: "memory" });
  for (const call of [
    () => m.recordTurn({ session: "s", user: "hi", assistant: "hello" }),
    () => m.sessionSearch("hi"),
    () => m.sessionMessages("s"),
    () => m.sessions(),
    () => m.sessionTool({ query: "hi" }),
    () => m.deleteSession("s"),
    () => m.purgeSessions(),
    () => m.importTranscript("codex", ""),
    () => Memory.list(),
    () => Memory.recover("x", { storage: "indexeddb" }),
    () => Memory.delete("x"),
  ]) {
    const p = call();
    assert.ok(p instanceof Promise);
    await rejects(p, "unsupported");
  }
  assert.throws(() => Memory.sessionToolSchema(), (e) => e.code === "unsupported");
  // The notes are untouched, and a closed memory still says closed.
  assert.ok((await m.tool(add("user", "Prefers metric units"))).success);
  await m.close();
  await rejects(m.recordTurn({ session: "s", user: "a", assistant: "b" }), "closed");
});

test("lean: storage fs reads and writes the same directory as the full build", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-lean-"));
  const a = await Memory.open({ storage: "fs", dir });
  assert.ok((await a.tool(add("memory", "written by the lean build"))).success);
  const b = await full.Memory.open({ storage: "fs", dir });
  assert.ok((await b.tool(add("memory", "written by the full build"))).success);
  await b.recordTurn({ session: "s", user: "where?", assistant: "here" });
  assert.ok((await a.tool(add("memory", "the lean build again"))).success);
  assert.deepEqual((await b.exportMarkdown())["MEMORY.md"].split("\n§\n"), [
    "written by the lean build",
    "written by the full build",
    "the lean build again",
  ]);
  assert.equal((await a.status()).storage, "fs");
});

test("lean: mnemo/lean is exported, typed like the full build, and much smaller", () => {
  assert.equal(require.resolve("mnemo/lean"), require.resolve(lean));
  const pkg = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
  assert.deepEqual(Object.keys(pkg.exports["./lean"]), ["types", "workerd", "node", "default"]);
  const dts = (p) => readFileSync(join(root, "pkg", ...p, "mnemo.d.ts"), "utf8");
  const signature = /recordTurn\(turn: TurnRecord\): Promise<RecordedTurn>;/;
  assert.match(dts(["node"]), signature);
  assert.match(dts(["lean", "node"]), signature);
  const size = (p) => statSync(join(root, "pkg", ...p, "mnemo_bg.wasm")).size;
  // The lean build leaves out SQLite, FTS5 and the VFSs: over a megabyte.
  assert.ok(size(["web"]) - size(["lean", "web"]) > 1_000_000, `${size(["lean", "web"])} vs ${size(["web"])}`);
});
