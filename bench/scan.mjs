// Security-scanner speed in wasm under Node: every note of a full
// 120,000-char store, and the attack/benign corpus, through `scan()`.
// Run: scripts/build-js.sh && node bench/scan.mjs
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = process.env.MNEMO_PKG ?? join(root, "pkg", "node", "mnemo.js");
if (!existsSync(pkg)) throw new Error("pkg/ is missing: run scripts/build-js.sh first");
const { scan, Memory } = createRequire(import.meta.url)(pkg);

const locomo = JSON.parse(readFileSync(join(root, "..", "shared", "locomo", "locomo10.json"), "utf8"));
const turns = [];
for (const sample of locomo) {
  for (let s = 1; sample.conversation[`session_${s}`]; s++) {
    for (const t of sample.conversation[`session_${s}`]) {
      turns.push(`${t.speaker}: ${t.text}${t.blip_caption ? ` [image: ${t.blip_caption}]` : ""}`);
    }
  }
}
const corpus = (f) =>
  readFileSync(join(root, "tests", "fixtures", "scan", f), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).text);
const attacks = corpus("attacks.jsonl");
const benign = corpus("benign.jsonl");

// A full store: LoCoMo turns up to 120,000 chars (joined by "\n§\n").
const store = [];
let chars = 0;
for (const t of turns) {
  const add = [...t].length + (store.length ? 3 : 0);
  if (chars + add > 119_900) break;
  store.push(t);
  chars += add;
}

const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
function timeEach(notes, rounds = 5) {
  const per = [];
  for (let r = 0; r < rounds; r++) {
    for (const n of notes) {
      const t0 = process.hrtime.bigint();
      scan(n);
      per.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
  }
  per.sort((a, b) => a - b);
  return { p50: q(per, 0.5), p95: q(per, 0.95), max: per[per.length - 1] };
}
function timeWhole(notes, rounds = 9) {
  const totals = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (const n of notes) scan(n);
    totals.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  totals.sort((a, b) => a - b);
  return totals[Math.floor(totals.length / 2)];
}

for (let i = 0; i < 3; i++) for (const n of store.concat(attacks, benign)) scan(n); // warm-up

const rows = [
  ["full store (LoCoMo turns)", store, timeEach(store), timeWhole(store)],
  ["attack corpus", attacks, timeEach(attacks), timeWhole(attacks)],
  ["benign lookalikes", benign, timeEach(benign), timeWhole(benign)],
];
// Opening a memory scans every entry of both stores once.
const text = store.join("\n§\n");
const opens = [];
for (let r = 0; r < 9; r++) {
  const m = await Memory.open({});
  const t0 = process.hrtime.bigint();
  await m.importMarkdown({ "MEMORY.md": text });
  opens.push(Number(process.hrtime.bigint() - t0) / 1e6);
  await m.close();
}
opens.sort((a, b) => a - b);
// Opening it again unchanged (Node's "fs" storage: the files and state.db
// in a directory): the verdicts come from the cache in the sidecar state.
const dir = mkdtempSync(join(tmpdir(), "mnemo-scan-bench-"));
const first = await Memory.open({ storage: "fs", dir, config: { memory: { recall: { memory_char_limit: 120_000 } } } });
await first.importMarkdown({ "MEMORY.md": text });
await first.close();
const reopens = [];
for (let r = 0; r < 9; r++) {
  const t0 = process.hrtime.bigint();
  const m = await Memory.open({ storage: "fs", dir, config: { memory: { recall: { memory_char_limit: 120_000 } } } });
  reopens.push(Number(process.hrtime.bigint() - t0) / 1e6);
  await m.close();
}
reopens.sort((a, b) => a - b);
rmSync(dir, { recursive: true, force: true });
const blocked = attacks.filter((a) => scan(a).blocked).length;
const passed = benign.filter((b) => !scan(b).blocked).length;

console.log(`| texts | notes | chars | per note p50 | per note p95 | per note max | all notes (median of 9) |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|`);
for (const [name, notes, t, whole] of rows) {
  const c = notes.reduce((a, n) => a + [...n].length, 0);
  console.log(
    `| ${name} | ${notes.length.toLocaleString("en")} | ${c.toLocaleString("en")} | ${t.p50.toFixed(1)} µs | ${t.p95.toFixed(1)} µs | ${t.max.toFixed(1)} µs | ${whole.toFixed(2)} ms |`,
  );
}
console.log();
console.log(`importMarkdown of the full store (parse, scan, commit; median of 9): ${opens[4].toFixed(2)} ms`);
console.log(`Memory.open of the same store unchanged ("fs", median of 9): ${reopens[4].toFixed(2)} ms`);
console.log(`corpus: ${blocked}/${attacks.length} attacks blocked, ${passed}/${benign.length} lookalikes passed`);

// Cost per KiB: 64 KiB of realistic text (LoCoMo turns) against 64 KiB of
// adversarial text built to make a scanner work hard (issue: no input may
// cost more than 3x realistic text of its length). Medians of 7.
const SIZE = 64 * 1024;
const fill = (unit) => {
  let s = unit.length >= SIZE ? unit.slice(0, SIZE) : unit.repeat(Math.ceil(SIZE / unit.length));
  // Trim to SIZE bytes: a cut by UTF-16 length first, then char by char.
  while (new TextEncoder().encode(s).length > SIZE) s = s.slice(0, s.length - Math.max(1, (new TextEncoder().encode(s).length - SIZE) >> 2));
  return s;
};
const perKib = (t) => {
  const kib = new TextEncoder().encode(t).length / 1024;
  const runs = [];
  for (let r = 0; r < 7; r++) {
    const t0 = process.hrtime.bigint();
    scan(t);
    runs.push(Number(process.hrtime.bigint() - t0) / 1e3 / kib);
  }
  runs.sort((a, b) => a - b);
  return runs[3];
};
const realistic = fill(turns.join("\n"));
const base = perKib(realistic);
console.log(`\n| text (64 KiB) | µs per KiB | × realistic |\n|---|---:|---:|`);
console.log(`| realistic (LoCoMo turns) | ${base.toFixed(1)} | 1.00 |`);
for (const [name, unit] of [
  ["`<!--` repeated", "<!--"],
  ["`ignore ` repeated", "ignore "],
  ["`system: ` lines", "system: you\n"],
  ["`api_key=` repeated", "api_key="],
  ["base64 run", "QUJDREVGR0hJSktMTU5PUA"],
  ["`-----BEGIN ` repeated", "-----BEGIN "],
  ["`<|` repeated", "<|"],
  ["spaced letters", "i g n o r e "],
  ["combining marks", "i\u0301"],
  ["Cyrillic lookalikes", "іgnоrе "],
  ["zero-width runs", "a\u200b"],
]) {
  const cost = perKib(fill(unit));
  console.log(`| ${name} | ${cost.toFixed(1)} | ${(cost / base).toFixed(2)} |`);
}
