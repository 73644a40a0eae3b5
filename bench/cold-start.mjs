// Cold start per host: instantiate + open a memory holding 400 notes
// (over its verbatim budget, so context() searches) + the first context().
// Medians of 9. Run: scripts/build-js.sh && scripts/build-component.sh &&
// node bench/cold-start.mjs (the wasmtime figure: python3 bench/cold_start_wasmtime.py)
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const notes = Array.from({ length: 400 }, (_, i) => `# Note ${i}\nstaging server ${i} listens on port ${2000 + i}`).join("\n§\n");
const message = "which port does staging server 7 use?";
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const rows = [];

// The npm package under Node: a fresh process per sample would include
// Node's own start; instead each sample compiles and instantiates the
// module anew (what a cold worker isolate does).
for (const [dir, build] of [["web", "full"], [join("lean", "web"), "lean"]]) {
  const wasm = await readFile(join(root, "pkg", dir, "mnemo_bg.wasm"));
  const times = [];
  for (let i = 0; i < 9; i++) {
    const mod = await import(`${join(root, "pkg", dir, "mnemo.js")}?v=${i}`);
    const t0 = performance.now();
    mod.initSync({ module: new WebAssembly.Module(wasm) });
    const m = await mod.Memory.open({});
    await m.importMarkdown({ "MEMORY.md": notes });
    await m.context(message);
    times.push(performance.now() - t0);
  }
  rows.push([`npm package (wasm-bindgen web build, ${build}) under Node 20`, median(times)]);
}

// The WASI-free component through jco.
if (existsSync(join(root, "target", "component", "js", "mnemo.js"))) {
  const times = [];
  for (let i = 0; i < 9; i++) {
    const blobs = new Map([["MEMORY.md", new TextEncoder().encode(notes)]]);
    const { instantiate } = await import(`${join(root, "target", "component", "js", "mnemo.js")}?v=${i}`);
    const t0 = performance.now();
    const exports = await instantiate((p) => readFile(join(root, "target", "component", "js", p)).then(WebAssembly.compile), {
      "mnemo:memory/host-storage": {
        read: (n) => blobs.get(n),
        write: (n, d) => void blobs.set(n, Uint8Array.from(d)),
        delete: (n) => void blobs.delete(n),
        names: () => [...blobs.keys()],
        now: () => BigInt(Date.now()),
      },
      "mnemo:memory/types": {},
    });
    const m = exports.api.Memory.open(undefined);
    m.context(message);
    times.push(performance.now() - t0);
  }
  rows.push(["WASI-free component through jco under Node 20", median(times)]);
}

// Cloudflare: workerd restarted on a workspace that holds the notes; the
// first request is a cold isolate, a new Durable Object, Memory.open over
// its storage and context().
{
  const { stage, serve } = await import("../tests/edge/hosts.mjs");
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = stage();
  const disk = mkdtempSync(join(tmpdir(), "mnemo-do-bench-"));
  let w = await serve(dir, disk);
  await w.call("/w/bench/import", { "MEMORY.md": notes });
  await w.stop();
  const times = [];
  for (let i = 0; i < 9; i++) {
    w = await serve(dir, disk);
    const t0 = performance.now();
    const r = await w.call("/w/bench/context", { message });
    times.push(performance.now() - t0);
    if (!r.body.context) throw new Error("no context from workerd");
    await w.stop();
  }
  rows.push(["Cloudflare example under workerd: first request after a restart", median(times)]);
}

// Fastly: Viceroy instantiates the app anew for every request, so each
// request is a cold start (instantiate, open from the KV store, context).
{
  const { fastlyApp, serveFastly, viceroy } = await import("../tests/edge/hosts.mjs");
  if (viceroy && existsSync(fastlyApp)) {
    const v = await serveFastly();
    const operations = notes.split("\n§\n").map((content) => ({ action: "add", target: "memory", content }));
    const added = await v.call("/w/bench/tool", { operations });
    if (!added.body.success) throw new Error(JSON.stringify(added.body));
    const times = [];
    for (let i = 0; i < 9; i++) {
      const t0 = performance.now();
      const r = await v.call("/w/bench/context", { message });
      times.push(performance.now() - t0);
      if (!r.body.context) throw new Error("no context from viceroy");
    }
    await v.stop();
    rows.push(["Fastly example under Viceroy: a request (each one instantiates the app)", median(times)]);
  }
}

console.log("| host | instantiate + open + first context(), median of 9 |");
console.log("|---|---:|");
for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(1)} ms |`);
