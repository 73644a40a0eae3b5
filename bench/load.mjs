// Load: many writers at once on each shared surface of one memory, on
// 127.0.0.1 only, bounded in count and time. Each writer adds its own notes
// one after another; afterwards every acknowledged note must be there.
// Prints p50 / p95 per write (as its writer waited for it), the wall time
// from the first write's start to the last one's answer (processes, servers
// and tabs start and open first, untimed, except the CLI's process per
// write) and the throughput, one row per surface:
//   cli      CLI processes on one directory (a process per write)
//   node     Node processes on one "fs" memory (Memory.open, one each)
//   mcp      `npx mnemo mcp` servers on one directory, an SDK client each
//   opfs, indexeddb  Chromium tabs on one memory
//   workerd  HTTP clients of one Durable Object (the Cloudflare example)
// Run (after `cargo build` and scripts/build-js.sh):
//   node bench/load.mjs [--writers 4] [--each 25] [--surface cli,node,mcp,opfs,indexeddb,workerd]
// MNEMO_BIN picks the CLI build (default target/debug/mnemo). The short
// form (zero lost writes, no times) is tests/reliability/load.test.mjs.
import { load, notesOf, stats, tmp } from "../tests/reliability/harness.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const WRITERS = Number(arg("writers", 4));
const EACH = Number(arg("each", 25));
const SURFACES = arg("surface", "cli,node,mcp,opfs,indexeddb,workerd").split(",");

async function local(surface) {
  const dir = tmp(`load-${surface}`);
  const out = await load(surface, dir, { writers: WRITERS, each: EACH });
  const kept = new Set(await notesOf(dir));
  return { ...out, lost: out.texts.filter((t) => !kept.has(t)) };
}

async function tabs(storage) {
  const { serve, launch, tab, tabWrites } = await import("../tests/browser/harness.mjs");
  const { server, url } = await serve();
  const browser = await launch();
  const context = await browser.newContext();
  const pages = [];
  for (let i = 0; i < WRITERS; i++) pages.push(await tab(context, url));
  const name = `load-${storage}`;
  const outs = await Promise.all(pages.map((p, i) => p.evaluate(tabWrites, { storage, name, who: `tab${i}`, each: EACH })));
  const wallMs = Math.max(...outs.map((o) => o.last)) - Math.min(...outs.map((o) => o.first));
  const text = await pages[0].evaluate(
    async ({ storage, name }) => {
      const m = await window.mnemo.Memory.open({ storage, name });
      const files = await m.exportMarkdown();
      await m.close();
      return files["MEMORY.md"];
    },
    { storage, name },
  );
  await browser.close();
  server.close();
  const kept = new Set(text.split("\n§\n"));
  const texts = outs.flatMap((o) => o.texts);
  return { texts, ms: outs.flatMap((o) => o.ms), wallMs, lost: texts.filter((t) => !kept.has(t)) };
}

async function durableObject() {
  const { stage, serve } = await import("../tests/edge/hosts.mjs");
  const { workerdLoad } = await import("../tests/reliability/edge.mjs");
  const w = await serve(stage(), tmp("load-do"));
  try {
    // A first request compiles the wasm and opens the object: not counted.
    await w.call("/w/team/status");
    return await workerdLoad(w, "team", { clients: WRITERS, each: EACH });
  } finally {
    await w.stop();
  }
}

const LABEL = {
  cli: "CLI processes, one directory",
  node: 'Node processes, one "fs" memory',
  mcp: "MCP servers (stdio), one directory",
  opfs: "Chromium tabs, one OPFS memory",
  indexeddb: "Chromium tabs, one IndexedDB memory",
  workerd: "HTTP clients, one Durable Object (workerd)",
};

console.log(`load: ${WRITERS} writers × ${EACH} notes each, at once\n`);
console.log("| surface | writers × notes | acknowledged | lost | per write p50 / p95 ms | wall s | writes/s |");
console.log("|---|---:|---:|---:|---|---:|---:|");
let lost = 0;
for (const surface of SURFACES) {
  const out =
    surface === "opfs" || surface === "indexeddb" ? await tabs(surface) : surface === "workerd" ? await durableObject() : await local(surface);
  const s = stats(out.ms);
  lost += out.lost.length;
  console.log(
    `| ${LABEL[surface]} | ${WRITERS} × ${EACH} | ${out.texts.length} | ${out.lost.length} | ${s.p50.toFixed(1)} / ${s.p95.toFixed(1)} | ${(out.wallMs / 1000).toFixed(1)} | ${((out.texts.length * 1000) / out.wallMs).toFixed(1)} |`,
  );
}
process.exitCode = lost > 0 ? 1 : 0;
