// Soak: one long-lived Node memory on storage "fs" doing mixed reads and
// writes for ten minutes (half reads: search, context, status, session
// search; writes: add, replace, remove, session turns, log notes, the store
// kept near 30 notes), with a CLI process writing to the same directory
// twice a second beside it. Memory is sampled in the Node process (after a
// collection) at the start and every 30 s; at the end every acknowledged
// write must be there.
// Run (after `cargo build` and scripts/build-js.sh):
//   node bench/soak.mjs [--seconds 600]
// MNEMO_BIN picks the CLI build (default target/debug/mnemo). The short
// form (no loss only) is tests/reliability/soak.test.mjs.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { soak, stats, tmp } from "../tests/reliability/harness.mjs";

const i = process.argv.indexOf("--seconds");
const SECONDS = i > 0 ? Number(process.argv[i + 1]) : 600;
const dir = tmp("soak");
console.log(`soak: ${SECONDS} s on ${dir}`);
const out = await soak(dir, { seconds: SECONDS, sampleEvery: 30 });
const mb = (b) => (b / 1048576).toFixed(1);
console.log("\n| at | RSS MB | JS heap MB | wasm memory MB | state.db MB | the writer's notes |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const s of out.samples) console.log(`| ${s.s.toFixed(0)} s | ${mb(s.rss)} | ${mb(s.heap)} | ${mb(s.wasm)} | ${mb(s.db)} | ${s.notes} |`);
const ends = (xs, n = Math.min(500, Math.floor(xs.length / 4))) => {
  const [a, b] = [stats(xs.slice(0, n)), stats(xs.slice(-n))];
  return `first ${n} ${a.p50.toFixed(1)} / ${a.p95.toFixed(1)} ms, last ${n} ${b.p50.toFixed(1)} / ${b.p95.toFixed(1)} ms`;
};
const log = statSync(join(dir, "logs", readdirSync(join(dir, "logs")).sort().pop())).size;
console.log(`\nwrites acknowledged: ${out.writes}; reads: ${out.reads}; problems: ${out.problems.length}; the day's activity log: ${mb(log)} MB`);
console.log(`Node write p50 / p95: ${ends(out.nodeMs)}`);
console.log(`CLI write p50 / p95: ${ends(out.cliMs)}`);
out.problems.forEach((p) => console.log(`  ${p}`));
process.exitCode = out.problems.length ? 1 : 0;
