// Load's short form (the long form with times is bench/load.mjs): CLI
// processes, Node processes on storage "fs" and MCP servers, three of each,
// all writing to one memories directory at once; every acknowledged note is
// there afterwards, once. (Tabs on one browser memory and clients of one
// Durable Object are tests/browser/storage.test.mjs's and
// tests/edge/cloudflare.test.mjs's "writing at once" tests.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { MNEMO, load, notesOf, tmp } from "./harness.mjs";

test("CLI processes, Node processes and MCP servers writing at once to one directory lose nothing", async () => {
  const dir = tmp("load");
  const surfaces = existsSync(MNEMO) ? ["cli", "node", "mcp"] : ["node", "mcp"];
  const outs = await Promise.all(surfaces.map((s) => load(s, dir, { writers: 3, each: 5 })));
  const acknowledged = outs.flatMap((o) => o.texts);
  assert.equal(acknowledged.length, surfaces.length * 15);
  const kept = await notesOf(dir);
  assert.deepEqual([...kept].sort(), [...acknowledged].sort());
});
