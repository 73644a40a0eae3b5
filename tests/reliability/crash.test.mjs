// The crash campaign's short form (the long form is bench/crash.mjs): the
// native CLI and a Node process writing through the "fs" storage, each
// killed with SIGKILL at random points of a loop of writes (adds, replaces,
// removes, session turns, log notes). After each kill every acknowledged
// write is there and nothing else but the write in flight, whole or not at
// all; the files and state.db read back; the lock is not held by the dead
// process (the next writer proceeds). Needs scripts/build-js.sh and the
// CLI's debug build (cargo build); seeds are printed for a rerun.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MNEMO, Model, crashTrial, finalCheck, rng, tmp } from "./harness.mjs";

const SEED = Number(process.env.MNEMO_CRASH_SEED ?? Date.now() % 100_000);

async function campaign(surface, trials) {
  const dir = tmp(`crash-${surface}`);
  const model = new Model();
  const counter = { next: 0 };
  const r = rng(SEED);
  let killed = 0;
  let acked = 0;
  for (let t = 0; t < trials; t++) {
    const seed = SEED * 1000 + t;
    const out = await crashTrial(surface, dir, model, { tag: `w${t % 3}`, seed, acks: Math.floor(r() * 3), delay: r() * 40, counter });
    assert.deepEqual(out.problems, [], `${surface} trial ${t}, seed ${seed} (MNEMO_CRASH_SEED=${SEED})`);
    killed += out.killed ? 1 : 0;
    acked += out.acked;
  }
  assert.deepEqual(await finalCheck(surface, dir, model), [], "every session and log note acknowledged is there at the end");
  assert.equal(killed, trials);
  assert.ok(acked > 0, "some writes were acknowledged before the kills");
  return dir;
}

test("the native CLI killed at random points of a write loop loses no acknowledged write", { skip: !existsSync(MNEMO) && `${MNEMO} is not built` }, async () => {
  await campaign("cli", 10);
});

test('a Node process on storage "fs" killed at random points of a write loop loses no acknowledged write', async () => {
  await campaign("node", 8);
});

test("the lock file holds its writer's pid from the moment it exists and leaves nothing beside it", async () => {
  const { nodeFsStorage } = await import(join(import.meta.dirname, "..", "..", "js", "fs-storage.js"));
  const dir = tmp("lock");
  const storage = nodeFsStorage(dir);
  await storage.lock();
  assert.equal(readFileSync(join(dir, ".mnemo.lock"), "utf8"), String(process.pid));
  assert.deepEqual(readdirSync(dir), [".mnemo.lock"]);
  await storage.unlock();
  assert.deepEqual(readdirSync(dir), []);
});
