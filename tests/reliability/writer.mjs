// A Node writer for the crash campaign, load and soak (tests/reliability/
// harness.mjs starts it): one process, one `Memory.open({storage: "fs"})`
// on a memories directory, a loop of writes. It prints one JSON line per
// event on stdout (a pipe, written synchronously on Linux, so a line
// printed before a SIGKILL reaches the reader):
//   {ready, ms}        the memory is open (ms: the open)
//   {begin: op}        a write starts
//   {ack: true, ms}    it was acknowledged (the promise resolved, success)
//   {fail: result}     it was answered with a failure (nothing changed)
//   {read: kind, ms}   a read (soak)
//   {sample: {...}}    memory use (soak): rss, heap, wasm bytes, store size
//   {done: true}       the loop ended (count reached or time up)
// Argument: JSON {dir, name, seed, start?, count?, kinds?, soakSeconds?, sampleEvery?}.
import { statSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { PKG, memoryClass, nextOp, rng, tokenOf } from "./harness.mjs";

const spec = JSON.parse(process.argv[2]);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const Memory = memoryClass();
const { wasmMemoryBytes } = createRequire(import.meta.url)(PKG);
const r = rng(spec.seed);
const counter = { next: spec.start ?? 0 };
const soak = spec.soakSeconds !== undefined;

const t0 = performance.now();
const m = await Memory.open({ storage: "fs", dir: spec.dir, agent: spec.name });
print({ ready: true, ms: performance.now() - t0 });
const entries = async () => {
  const text = (await m.exportMarkdown())["MEMORY.md"];
  return text === "" ? [] : text.split("\n§\n");
};
let own = (await entries()).filter((e) => e.startsWith(`${spec.name} `));

/** Runs write `op`; true when it was acknowledged. */
async function write(op) {
  let result;
  switch (op.kind) {
    case "add":
      result = await m.tool({ action: "add", target: "memory", content: op.text });
      break;
    case "replace":
      result = await m.tool({ action: "replace", target: "memory", old_text: tokenOf(op.old), content: op.text });
      break;
    case "remove":
      result = await m.tool({ action: "remove", target: "memory", old_text: tokenOf(op.old) });
      break;
    case "session":
      await m.recordTurn({ session: op.session, user: op.text, assistant: "noted" });
      return true;
    case "note":
      await m.log(op.text);
      return true;
  }
  if (!result.success) print({ fail: result });
  return result.success;
}

/** A read of the soak: search, the per-turn context, status or session search. */
async function read() {
  const kind = ["search", "context", "status", "sessions"][Math.floor(r() * 4)];
  const started = performance.now();
  if (kind === "search") await m.search("release amber cedar", { limit: 5 });
  if (kind === "context") await m.context("which release did the harbor team ship?");
  if (kind === "status") await m.status();
  if (kind === "sessions") await m.sessionSearch("asked about release", { limit: 5 });
  print({ read: kind, ms: performance.now() - started });
}

function sample(elapsed) {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  let db = 0;
  try {
    db = statSync(join(spec.dir, "state.db")).size;
  } catch {}
  print({ sample: { s: elapsed / 1000, rss, heap: heapUsed, wasm: wasmMemoryBytes(), notes: own.length, db } });
}

const end = soak ? performance.now() + spec.soakSeconds * 1000 : Infinity;
let nextSample = 0;
for (let i = 0; spec.count === undefined || i < spec.count; i++) {
  const now = performance.now();
  if (now > end) break;
  if (soak && now - t0 >= nextSample) {
    sample(now - t0);
    nextSample += (spec.sampleEvery ?? 10) * 1000;
  }
  if (soak && r() < 0.5) {
    await read();
    continue;
  }
  const op = nextOp(r, spec.name, own, counter, spec.kinds);
  print({ begin: op });
  const started = performance.now();
  if (await write(op)) {
    print({ ack: true, ms: performance.now() - started });
    if (op.kind === "replace" || op.kind === "remove") own = own.filter((e) => e !== op.old);
    if (op.kind === "add" || op.kind === "replace") own.push(op.text);
  }
}
if (soak) sample(performance.now() - t0);
await m.close();
print({ done: true });
