// What recording a turn costs as the history grows: 10, 10,000 and 100,000
// messages already stored in a memories directory's state.db, appended to
// (a) by the npm package's "fs" storage under Node (wasm SQLite on the file
// through the node:fs VFS) and (b) by the native CLI (`mnemo sessions import`
// of one turn, process start included) and (c) the same core call in the
// CLI's process (`cargo run --release --example session_append`), in one run.
// The history is filled natively first (one import); each measurement then
// appends to the same file. Reports p50 / p95 in ms.
// Run: cargo build --release && scripts/build-js.sh && node bench/session-append.mjs
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { Memory } = require(join(root, "pkg", "node", "mnemo.js"));
const cli = join(root, "target", "release", "mnemo");
const example = join(root, "target", "release", "examples", "session_append");
for (const bin of [cli, example]) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: cargo build --release && cargo build --release --example session_append`);
}

const SIZES = [10, 10_000, 100_000];
const RUNS = { fs: 200, cli: 30 };
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(s.length / 2)], s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]];
};
const ms = (x) => (x < 1 ? x.toFixed(3) : x.toFixed(2));
const line = (session, role, text, time) => JSON.stringify({ session, role, text, time });

const rows = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-append-"));
  const fill = join(dir, "..", `${dir.split("/").pop()}.jsonl`);
  const lines = [];
  for (let i = 0; i < size; i++) {
    lines.push(line(`s${Math.floor(i / 50)}`, i % 2 ? "assistant" : "user", `message ${i} about deploys, keys and staging port ${i % 9000}`, i * 60_000));
  }
  writeFileSync(fill, lines.join("\n"));
  execFileSync(cli, ["--dir", dir, "sessions", "import", fill]);

  // (a) Node "fs" storage.
  const memory = await Memory.open({ storage: "fs", dir });
  const fs = [];
  for (let i = 0; i < RUNS.fs; i++) {
    const a = performance.now();
    await memory.recordTurn({ session: `new${i % 5}`, user: `how do I reach staging ${i}?`, assistant: `port ${i}`, time: 1e12 + i });
    fs.push(performance.now() - a);
  }
  await memory.close();

  // (b) The CLI, one process per turn.
  const one = join(dir, "..", `${dir.split("/").pop()}-one.jsonl`);
  writeFileSync(one, [line("cli", "user", "where are the deploy keys?", 2e12), line("cli", "assistant", "in the vault", 2e12)].join("\n"));
  const proc = [];
  for (let i = 0; i < RUNS.cli; i++) {
    const a = performance.now();
    execFileSync(cli, ["--dir", dir, "sessions", "import", one]);
    proc.push(performance.now() - a);
  }

  // (c) The core call the CLI makes, in one native process.
  const native = JSON.parse(execFileSync(example, [dir, String(RUNS.fs)], { encoding: "utf8" }));
  rows.push({ size, fs: stats(fs), native: [native.p50, native.p95], cli: stats(proc) });
  rmSync(dir, { recursive: true, force: true });
  rmSync(fill, { force: true });
  rmSync(one, { force: true });
}

console.log("| messages stored | \"fs\" storage (Node, wasm) p50 / p95 | native core call p50 / p95 | `mnemo sessions import` (process) p50 / p95 |");
console.log("|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.size.toLocaleString("en-US")} | ${ms(r.fs[0])} / ${ms(r.fs[1])} | ${ms(r.native[0])} / ${ms(r.native[1])} | ${ms(r.cli[0])} / ${ms(r.cli[1])} |`);
}
const [small, large] = [rows[0], rows[rows.length - 1]];
console.log(`\n100,000 vs 10 stored: "fs" ${(large.fs[0] / small.fs[0]).toFixed(2)}x, native ${(large.native[0] / small.native[0]).toFixed(2)}x, CLI ${(large.cli[0] / small.cli[0]).toFixed(2)}x (p50)`);
