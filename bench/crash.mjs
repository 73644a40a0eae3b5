// The crash campaign, long form: writers on one memories directory killed
// with SIGKILL at random points of their write loops, hundreds of times;
// after each kill, every acknowledged write must be there (notes, session
// turns, log notes), the files and state.db must read back, and the lock
// must not stay held by the dead process. Surfaces:
//   cli   the native CLI (`mnemo add|replace|remove|note|sessions import`)
//   node  a Node process writing through Memory.open({storage: "fs"})
// Run (after `cargo build` and scripts/build-js.sh):
//   node bench/crash.mjs [--trials 300] [--surface cli,node] [--seed 1]
// MNEMO_BIN picks the CLI build (default target/debug/mnemo). The short
// form is tests/reliability/crash.test.mjs.
import { Model, crashTrial, rng, stats, tmp } from "../tests/reliability/harness.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const TRIALS = Number(arg("trials", 300));
const SURFACES = arg("surface", "cli,node").split(",");
const SEED = Number(arg("seed", Date.now() % 100_000));

console.log(`crash campaign: ${TRIALS} trials per surface, seed ${SEED}`);
const rows = [];
for (const surface of SURFACES) {
  const dir = tmp(`crash-${surface}`);
  const model = new Model();
  const counter = { next: 0 };
  const r = rng(SEED);
  // The kills' scale: a write's time here, as the trials measure it.
  const times = [];
  const totals = { killed: 0, acked: 0, lockLeft: 0, problems: [], recover: [] };
  const started = performance.now();
  for (let t = 0; t < TRIALS; t++) {
    // After 0 to 3 acknowledged writes, the next is killed at a random
    // point of a typical write's time: before, inside or after its commit.
    const window = times.length ? stats(times.slice(-200)).p50 : 30;
    const acks = Math.floor(r() * 4);
    const delay = r() * window * 1.2;
    const out = await crashTrial(surface, dir, model, { tag: `w${t % 7}`, seed: SEED * 1000 + t, acks, delay, counter });
    times.push(...out.writeMs);
    totals.killed += out.killed ? 1 : 0;
    totals.acked += out.acked;
    totals.lockLeft += out.lock.left ? 1 : 0;
    if (Number.isFinite(out.recoverMs)) totals.recover.push(out.recoverMs);
    for (const p of out.problems) {
      totals.problems.push(`trial ${t}: ${p}`);
      console.log(`  ${surface} trial ${t} (seed ${SEED * 1000 + t}): ${p}`);
    }
    if ((t + 1) % 50 === 0) console.log(`  ${surface}: ${t + 1} trials, ${totals.acked} writes acknowledged, ${totals.problems.length} problems`);
  }
  const rec = stats(totals.recover);
  rows.push({
    surface,
    trials: TRIALS,
    killed: totals.killed,
    acked: totals.acked,
    notes: model.entries.size,
    sessions: model.sessions.size,
    lockLeft: totals.lockLeft,
    problems: totals.problems.length,
    recover: rec,
    write: stats(times),
    minutes: (performance.now() - started) / 60_000,
  });
}

const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
console.log("\n| surface | trials | killed mid-loop | writes acknowledged | acknowledged writes lost | reads that failed or differed | lock file left by the killed writer | next open after the kill: p50 / p95 / max ms | run |");
console.log("|---|---:|---:|---:|---:|---:|---:|---|---:|");
for (const r of rows) {
  console.log(
    `| ${r.surface} | ${r.trials} | ${r.killed} | ${r.acked} | ${r.problems === 0 ? 0 : "see above"} | ${r.problems} | ${r.lockLeft} (broken at once by the next writer) | ${f(r.recover.p50)} / ${f(r.recover.p95)} / ${f(r.recover.max)} | ${r.minutes.toFixed(1)} min |`,
  );
}
process.exitCode = rows.some((r) => r.problems > 0) ? 1 : 0;
