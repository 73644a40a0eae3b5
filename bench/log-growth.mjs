// What a note write costs as the day's activity log grows: the npm package
// under Node on storage "fs" (a memories directory) with today's log
// already holding 0, 0.5 and 2 MB of records, and storage "memory" (the
// whole memory in SQLite) after 0, 2,000 and 8,000 logged writes. Each
// write appends one record to the log; this shows whether it also pays for
// the records before it.
// Run (after scripts/build-js.sh): node bench/log-growth.mjs [--pkg DIR] [--writes N]
// `--pkg` picks another build of the package (to compare with an earlier one).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const pkg = resolve(arg("--pkg", new URL("../pkg", import.meta.url).pathname));
const WRITES = Number(arg("--writes", 100));
const { Memory } = await import(pathToFileURL(join(pkg, "node", "mnemo.js")).href);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.round((s.length - 1) * q)];
  return { p50: at(0.5), p95: at(0.95) };
};

/** A day's log of about `bytes` bytes of well-formed records. */
function logOf(day, bytes) {
  let out = `# Activity ${day}\n\n`;
  for (let i = 0; out.length < bytes; i++) {
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i % 86400)).toISOString().slice(11, 19);
    out += `- ${t} · bench · memory add · Earlier note ${i}: the staging host moved to rack ${i % 40}\n`;
  }
  return out;
}

/** p50 / p95 of `WRITES` add + remove pairs on `memory`, ms per write. */
async function writes(memory) {
  const ms = [];
  for (let i = 0; i < WRITES; i++) {
    for (const call of [
      { action: "add", target: "memory", content: `Log growth probe ${i}: the descaler is under the sink` },
      { action: "remove", target: "memory", old_text: `probe ${i}:` },
    ]) {
      const t = performance.now();
      const r = await memory.tool(call);
      ms.push(performance.now() - t);
      if (!r.success) throw new Error(JSON.stringify(r));
    }
  }
  return stats(ms);
}

const rows = [];
const day = new Date().toISOString().slice(0, 10);
for (const mb of [0, 0.5, 2]) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-log-growth-"));
  if (mb > 0) {
    mkdirSync(join(dir, "logs"));
    writeFileSync(join(dir, "logs", `${day}.md`), logOf(day, mb * 1048576));
  }
  const memory = await Memory.open({ storage: "fs", dir });
  await memory.tool({ action: "add", target: "memory", content: "Warm-up note" });
  const s = await writes(memory);
  rows.push([`"fs", the day's log at ${mb} MB`, s]);
  memory.close?.();
  rmSync(dir, { recursive: true, force: true });
}
{
  const memory = await Memory.open({ storage: "memory" });
  let done = 0;
  for (const n of [0, 2000, 8000]) {
    for (; done < n; done++) await memory.log(`Filler record ${done}: the staging host moved to rack ${done % 40}`);
    const s = await writes(memory);
    rows.push([`"memory" (SQLite), after ${n} logged records`, s]);
  }
}
console.log(`package: ${pkg}; ${WRITES * 2} writes per row (add + remove), ms\n`);
console.log("| storage, log | p50 | p95 |");
console.log("|---|---:|---:|");
for (const [name, s] of rows) console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p95.toFixed(2)} |`);
