// The crash campaign, long form: writers on one memories directory killed
// with SIGKILL at random points of their write loops, hundreds of times;
// after each kill, every acknowledged write must be there (notes, session
// turns, log notes), the files and state.db must read back, and the lock
// must not stay held by the dead process. Surfaces:
//   cli   the native CLI (`mnemo add|replace|remove|note|sessions import`)
//   node  a Node process writing through Memory.open({storage: "fs"})
//   opfs, indexeddb  a browser worker writing notes, terminated (Chromium)
//   workerd  the Cloudflare example's workerd, SIGKILLed with 4 clients'
//            requests in flight, restarted on the same Durable Object disk
// Run (after `cargo build` and scripts/build-js.sh):
//   node bench/crash.mjs [--trials 300] [--surface cli,node] [--seed 1]
// MNEMO_BIN picks the CLI build (default target/debug/mnemo). The short
// form is tests/reliability/crash.test.mjs.
import { Model, crashTrial, finalCheck, rng, stats, tmp } from "../tests/reliability/harness.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const TRIALS = Number(arg("trials", 300));
const SURFACES = arg("surface", "cli,node").split(",");
const SEED = Number(arg("seed", Date.now() % 100_000));

console.log(`crash campaign: ${TRIALS} trials per surface, seed ${SEED}`);
const rows = [];

/** A browser worker terminated mid-write, on OPFS and on IndexedDB. */
async function browserCampaign(storage) {
  const { serve, launch, tab, killedWorkerTrial, checkKilledWorker } = await import("../tests/browser/harness.mjs");
  const { server, url } = await serve();
  const browser = await launch();
  const page = await tab(await browser.newContext(), url);
  const r = rng(SEED);
  const totals = { killed: TRIALS, acked: 0, problems: [], recover: [] };
  const started = performance.now();
  // Each run starts from an empty memory (the browser keeps the origin's
  // storage between runs, and enough runs would fill the store).
  const name = `campaign-${storage}`;
  await page.evaluate((n) => window.mnemo.Memory.delete(n).catch(() => {}), name);
  let before = 0;
  for (let t = 0; t < TRIALS; t++) {
    const trial = { storage, name, acks: Math.floor(r() * 4), delay: Math.floor(r() * 40) };
    try {
      const out = await page.evaluate(killedWorkerTrial, trial);
      totals.acked += out.acked;
      totals.recover.push(out.reopenMs);
      for (const p of checkKilledWorker(out, before)) totals.problems.push(`trial ${t}: ${p}`);
      before = out.entries.length;
    } catch (e) {
      totals.problems.push(`trial ${t}: ${e.message}`);
    }
    if ((t + 1) % 50 === 0) console.log(`  ${storage}: ${t + 1} trials, ${totals.acked} writes acknowledged, ${totals.problems.length} problems`);
  }
  totals.problems.forEach((p) => console.log(`  ${storage} ${p}`));
  await browser.close();
  server.close();
  return { surface: `browser worker, ${storage}`, trials: TRIALS, ...totals, notes: before, lockLeft: "–", minutes: (performance.now() - started) / 60_000 };
}

/** workerd killed with requests in flight, restarted on the same disk. */
async function workerdCampaign() {
  const { stage } = await import("../tests/edge/hosts.mjs");
  const { workerdCrashTrial } = await import("../tests/reliability/edge.mjs");
  const dir = stage();
  const disk = tmp("crash-do");
  const known = new Set();
  const counter = { next: 0 };
  const r = rng(SEED);
  const totals = { killed: 0, acked: 0, problems: [], recover: [], inFlight: 0 };
  const started = performance.now();
  for (let t = 0; t < TRIALS; t++) {
    const out = await workerdCrashTrial({ dir, disk, workspace: "team", clients: 4, killAfter: Math.floor(r() * 300), known, counter });
    totals.killed++;
    totals.acked += out.acked;
    totals.inFlight += out.inFlight;
    totals.recover.push(out.restartMs);
    out.problems.forEach((p) => totals.problems.push(`trial ${t}: ${p}`));
    if ((t + 1) % 25 === 0) console.log(`  workerd: ${t + 1} trials, ${totals.acked} writes acknowledged, ${totals.problems.length} problems`);
  }
  totals.problems.forEach((p) => console.log(`  workerd ${p}`));
  return { surface: "workerd (Durable Object)", trials: TRIALS, ...totals, notes: known.size, lockLeft: "–", minutes: (performance.now() - started) / 60_000 };
}

for (const surface of SURFACES) {
  if (surface === "opfs" || surface === "indexeddb") {
    const row = await browserCampaign(surface);
    rows.push({ ...row, problems: row.problems.length, recover: stats(row.recover) });
    continue;
  }
  if (surface === "workerd") {
    const row = await workerdCampaign();
    rows.push({ ...row, problems: row.problems.length, recover: stats(row.recover) });
    continue;
  }
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
  const missing = await finalCheck(surface, dir, model);
  for (const p of missing) {
    totals.problems.push(p);
    console.log(`  ${surface}: ${p}`);
  }
  console.log(
    `  ${surface}: at the end ${model.entries.size} notes, ${model.sessions.size} sessions and ${model.notes.size} log notes acknowledged; ${missing.length} missing`,
  );
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
console.log("\n| surface | trials | writes acknowledged | acknowledged writes lost, states that did not read back | lock file left by the killed writer | reopen after the kill, ms: p50 / p95 / max | run |");
console.log("|---|---:|---:|---:|---:|---|---:|");
for (const r of rows) {
  const lock = typeof r.lockLeft === "number" ? `${r.lockLeft}, each broken by the next writer` : r.lockLeft;
  console.log(
    `| ${r.surface} | ${r.trials} | ${r.acked} | ${r.problems} | ${lock} | ${f(r.recover.p50)} / ${f(r.recover.p95)} / ${f(r.recover.max)} | ${r.minutes.toFixed(1)} min |`,
  );
}
process.exitCode = rows.some((r) => r.problems > 0) ? 1 : 0;
