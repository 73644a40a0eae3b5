// `npx mnemo mcp` beside the reference MCP memory server
// (@modelcontextprotocol/server-memory: a JSON Lines knowledge graph
// rewritten whole on every change), each driven by the official SDK client
// over stdio, in one run:
// - writes from one client, one after another: p50 and p95 per write;
// - three servers on one memory at once (one per agent window), 20 writes
//   each, then a fourth server counts what was kept.
// Run after scripts/build-js.sh: `npm --prefix bench ci && node bench/mcp.mjs`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "bench", "package.json"));
const reference = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const SEQUENTIAL = 200;
const WRITERS = 3;
const EACH = 20;

/** How each server is started on `dir`, writes a note, and counts notes. */
const servers = {
  mnemo: {
    start(dir) {
      const config = join(dir, "config.json");
      writeFileSync(config, JSON.stringify({ memory: { memory_char_limit: 100000 } }));
      return { command: process.execPath, args: [join(root, "pkg", "cli.mjs"), "mcp", "--dir", join(dir, "memories"), "--config", config] };
    },
    write: (client, text) => client.callTool({ name: "memory", arguments: { action: "add", target: "memory", content: text } }),
    async count(client) {
      const { contents } = await client.readResource({ uri: "mnemo://memory/MEMORY.md" });
      return contents[0].text.split("\n§\n").filter((e) => e.trim()).length;
    },
  },
  "server-memory (reference)": {
    start(dir) {
      return { command: process.execPath, args: [reference], env: { ...process.env, MEMORY_FILE_PATH: join(dir, "memory.jsonl") } };
    },
    write: (client, text) =>
      client.callTool({ name: "create_entities", arguments: { entities: [{ name: text, entityType: "note", observations: [text] }] } }),
    async count(client) {
      const result = await client.callTool({ name: "read_graph", arguments: {} });
      return JSON.parse(result.content[0].text).entities.length;
    },
  },
};

async function connect(spec, dir, name) {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...spec.start(dir), stderr: "ignore" }));
  return client;
}

// Notes that differ in more than their numbers: the memory tool answers a
// near-duplicate (the same words in another order) with "no entry added".
const WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lagoon"];
const note = (w, i) => `writer ${WORDS[w % WORDS.length]} remembers the ${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} release, item ${w}-${i}`;

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const rows = [];
for (const [name, spec] of Object.entries(servers)) {
  // One client, writes one after another.
  let dir = mkdtempSync(join(tmpdir(), "mnemo-mcp-bench-"));
  const one = await connect(spec, dir, "bench");
  const times = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now();
    const r = await spec.write(one, note(99, i) + ` (${i})`);
    times.push(performance.now() - t);
    if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  }
  const kept = await spec.count(one);
  await one.close();
  // Three servers on one memory, writing at once.
  dir = mkdtempSync(join(tmpdir(), "mnemo-mcp-bench-"));
  const writers = await Promise.all(Array.from({ length: WRITERS }, (_, w) => connect(spec, dir, `writer-${w}`)));
  const failed = [];
  const started = performance.now();
  await Promise.all(
    writers.map(async (client, w) => {
      for (let i = 0; i < EACH; i++) {
        const r = await spec.write(client, note(w, i));
        if (r.isError) failed.push(r.content[0].text);
      }
    }),
  );
  const wall = performance.now() - started;
  await Promise.all(writers.map((c) => c.close()));
  const reader = await connect(spec, dir, "reader");
  const together = await spec.count(reader);
  await reader.close();
  if (failed.length) console.error(`${name}: ${failed.length} writes answered with an error, e.g. ${failed[0].slice(0, 300)}`);
  rows.push({ name, p50: pct(times, 50), p95: pct(times, 95), kept, together, wall, failed: failed.length });
}

console.log(`| server | write p50 | write p95 | kept of ${SEQUENTIAL} | ${WRITERS} servers × ${EACH} writes at once: kept | time |`);
console.log("|---|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.p50.toFixed(2)} ms | ${r.p95.toFixed(2)} ms | ${r.kept} | ${r.together} of ${WRITERS * EACH} | ${r.wall.toFixed(0)} ms |`,
  );
}
