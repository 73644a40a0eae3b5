// The soak's short form (the long form, ten minutes with memory figures, is
// bench/soak.mjs): a long-lived Node memory on storage "fs" doing mixed
// reads and writes for 15 s with the CLI writing to the same directory
// beside it; every acknowledged write is there at the end. (Memory growth
// is judged on the long form only: a 15 s window is too short to tell a
// leak from the allocator's warm-up without a flaky threshold.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { soak, tmp } from "./harness.mjs";

test("a long-lived memory reading and writing beside the CLI loses no acknowledged write", async () => {
  const out = await soak(tmp("soak"), { seconds: 15, sampleEvery: 5 });
  assert.deepEqual(out.problems, []);
  assert.ok(out.writes > 0 && out.reads > 0, JSON.stringify({ writes: out.writes, reads: out.reads }));
});
