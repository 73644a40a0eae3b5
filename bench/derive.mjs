// Derived-state rebuild in wasm under Node on a full 120,000-char store of
// ~950 tagged, linked notes (the same notes as `cargo run --release
// --example derive`): after a write, the next read rebuilds the graph and
// the BM25 indexes of both stores. Run: scripts/build-js.sh && node bench/derive.mjs
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = process.env.MNEMO_PKG ?? join(root, "pkg", "node", "mnemo.js");
if (!existsSync(pkg)) throw new Error("pkg/ is missing: run scripts/build-js.sh first");
const { Memory } = createRequire(import.meta.url)(pkg);

const words = ["deploy", "staging", "server", "port", "backup", "schedule", "review", "python",
  "rust", "cache", "proxy", "index", "latency", "budget", "release", "incident"];
const notes = [];
for (let i = 0, chars = 0; chars < 118_000; i++) {
  const tag = i % 3 === 0 ? "" : ` #sector${i % 30}`;
  const body = Array.from({ length: 8 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ");
  const note = `# Note ${i}${tag}\n${body} see [[Note ${(i * 37 + 1) % 1200}]], [[Note ${(i * 91 + 7) % 1200}]] and [[Note ${(i * 13 + 400) % 1300}]].`;
  chars += [...note].length + 3;
  notes.push(note);
}

const m = await Memory.open({});
await m.importMarkdown({ "MEMORY.md": notes.join("\n§\n") });
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const rebuild = [];
const cached = [];
for (let r = 0; r < 21; r++) {
  // A write invalidates the derived state; the next read rebuilds it.
  await m.tool({ action: r % 2 ? "remove" : "add", target: "memory", content: "bench marker note", old_text: "bench marker note" });
  let t0 = performance.now();
  await m.sectors({ limit: 1 });
  rebuild.push(performance.now() - t0);
  t0 = performance.now();
  await m.sectors({ limit: 1 });
  cached.push(performance.now() - t0);
}
const report = await m.sectors({ limit: 0 });
console.log(`| store | notes | links | sectors | rebuild (graph + BM25 indexes), median of 21 | the same call, cached |`);
console.log(`|---|---:|---:|---:|---:|---:|`);
console.log(`| full MEMORY.md (${(await m.status()).memory.chars.toLocaleString("en")} chars) | ${report.summary.memories} | ${report.summary.links.toLocaleString("en")} | ${report.summary.sectors} | ${(median(rebuild) - median(cached)).toFixed(2)} ms | ${median(cached).toFixed(2)} ms |`);
