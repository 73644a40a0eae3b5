// The dedicated worker that `mnemo/browser` starts for OPFS storage: it
// opens one memory and answers the page's calls `{id, method, args}` with
// `{id, ok, result | error, pending}` (`pending`: the staged writes, for the
// page's synchronous pendingCount()).
//
// The llm of a review, a curation or a stop stays in the page (a function
// cannot cross): the call arrives as `{id, method, args, host: true, llm:
// true, signal?, aborted?, embed?}`, and each step of it asks the page
// `{llm, call: id, request}` and waits for `{llm, ok, result | error}`.
// `{abort: id}` cancels call `id` (its signal, when the page gave one).
// A `tool`, `search`, `context`, `recall` or `inject` whose options held a
// signal arrives with `signal: true, aborted?` and gets one of the worker's.
//
// The host's embedder stays in the page too: `open` (and a `curate` given
// an embedder) arrives with `embed: true` and the embedder's `{model,
// dimensions}`, and each batch of texts asks the page `{embed, call?,
// texts}` (`call`: the curate's id; absent: the open's embedder) and waits
// for `{embed, ok, result | error}`.
// `recall`'s array carries `mode` and `skipped`, which a structured clone
// drops, so it crosses as `{results, mode, skipped?}` and the page rebuilds it.
import init, { Memory } from "./mnemo.js";
import { Ahead } from "./ahead.js";

// The first message carries the page's compiled module (when it has one),
// so the worker instantiates it instead of fetching and compiling again.
let ready = null;
let memory = null;
/** An open (or recover) has arrived: the warm-up gives way to it. */
let opening = false;

/** The reviews and curations in progress by call id: their AbortController. */
const calls = new Map();
/** The page's answers awaited, by llm call number. */
const answers = new Map();
let nextLlmCall = 1;
/** The page's embedder answers awaited, by embed call number. */
const embeddings = new Map();
let nextEmbedCall = 1;

/** The page's embedder (the open's, or call `call`'s) as the worker's: each batch is a round trip. */
const pageEmbed = (call) => (texts) =>
  new Promise((resolve, reject) => {
    const ask = nextEmbedCall++;
    embeddings.set(ask, { resolve, reject, call });
    self.postMessage({ embed: ask, call, texts });
  });

/** Runs `method` (review, curate, stop) with the page's llm, embed and signal. */
async function withHost(id, method, options, data) {
  const controller = new AbortController();
  if (data.aborted) controller.abort();
  calls.set(id, controller);
  const opts = { ...options };
  if (data.llm === true) {
    opts.llm = (request) =>
      new Promise((resolve, reject) => {
        const ask = nextLlmCall++;
        answers.set(ask, { resolve, reject, call: id });
        self.postMessage({ llm: ask, call: id, request });
      });
  }
  if (data.signal === true) opts.signal = controller.signal;
  if (data.embed === true) opts.embedder = { ...opts.embedder, embed: pageEmbed(id) };
  try {
    return await memory[method](opts);
  } finally {
    calls.delete(id);
    // Answers still awaited lost to the abort: drop them.
    for (const [ask, waiting] of answers) if (waiting.call === id) answers.delete(ask);
    for (const [ask, waiting] of embeddings) if (waiting.call === id) embeddings.delete(ask);
  }
}

/**
 * Runs the core's open path once on a small memory in this worker's heap
 * (import with its scan, index and graph, a write, a context), unless an
 * open arrives first. The engine compiles a wasm function at its first
 * call, and the compiled code is shared with the page (one module): without
 * this, a page's first open paid for compiling most of mnemo, two to three
 * times what the next open costs. It waits a moment so that a page opening
 * at once is not made to wait for it; nothing is stored.
 */
function warmUpSoon() {
  setTimeout(async () => {
    if (opening) return;
    const steps = [
      (warm) =>
        warm.importMarkdown({
          "MEMORY.md": "# Staging\nThe staging server listens on port 2001; see [[Deploys]] #ops\n§\nDeploy windows are on Tuesdays.",
          "USER.md": "Prefers short answers.",
        }),
      (warm) => warm.tool({ action: "add", target: "memory", content: "Backups run nightly at 02:00." }),
      (warm) => warm.context("which port does the staging server use?"),
    ];
    let warm = null;
    try {
      warm = await Memory.open({ storage: "memory", name: "mnemo-warm-up" });
      for (const step of steps) if (!opening) await step(warm);
    } catch {
      // Only speed was at stake.
    } finally {
      warm?.close().catch(() => {});
    }
  }, 200);
}

/** The memory opened ahead of the page's open, or kept after its close (see ahead.js). */
const ahead = new Ahead();

/** The options the open memory was opened with, when they hold no function. */
let openedOpts = null;

/** The staged writes of the open memory, or undefined. */
function pendingCount() {
  try {
    return memory?.pendingCount();
  } catch {
    return undefined;
  }
}

self.onmessage = async ({ data }) => {
  if (data.llm !== undefined && data.method === undefined) {
    const waiting = answers.get(data.llm);
    if (!waiting) return;
    answers.delete(data.llm);
    if (data.ok) waiting.resolve(data.result);
    else waiting.reject(new Error(data.error));
    return;
  }
  if (data.embed !== undefined && data.method === undefined) {
    const waiting = embeddings.get(data.embed);
    if (!waiting) return;
    embeddings.delete(data.embed);
    if (data.ok) waiting.resolve(data.result);
    else waiting.reject(new Error(data.error));
    return;
  }
  if (data.abort !== undefined) {
    calls.get(data.abort)?.abort();
    return;
  }
  const { id, method, args, module } = data;
  if (method === "open" || method === "recover") opening = true;
  try {
    ready ??= init(module instanceof WebAssembly.Module ? { module_or_path: module } : undefined);
    await ready;
    // A spare worker started ahead of an open: the wasm is ready, nothing to answer.
    if (method === "warm") {
      warmUpSoon();
      return;
    }
    if (method === "prefetch") {
      // Once it is open, the calls after an open (a context, a write) are
      // compiled too.
      ahead.open(Memory, args[0], warmUpSoon);
      return;
    }
    let result;
    if (method === "open") {
      const embed = data.embed === true;
      const opts = embed ? { ...args[0], embedder: { ...args[0].embedder, embed: pageEmbed(undefined) } } : args[0];
      memory = embed ? null : await ahead.take(opts);
      // A worker serves one memory: whatever else it held goes.
      ahead.drop();
      memory ??= await Memory.open(opts);
      openedOpts = embed ? null : opts;
      result = null;
    } else if (method === "close" && data.keep === true && memory && openedOpts) {
      // Kept for the page's next open with the same options.
      await ahead.keep(memory, openedOpts);
      memory = null;
    } else if (method === "recover") {
      result = await Memory.recover(...args);
    } else if (!memory) {
      throw Object.assign(new Error("this memory is not open"), { name: "MnemoError", code: "closed" });
    } else if (data.host === true) {
      result = await withHost(id, method, args[0], data);
    } else {
      // The page's signal, as an abort message: the call's options get one
      // of this worker's.
      if (data.signal === true) {
        const controller = new AbortController();
        if (data.aborted) controller.abort();
        calls.set(id, controller);
        args[1] = { ...args[1], signal: controller.signal };
      }
      try {
        if (method === "recall") {
          const found = await memory.recall(...args);
          result = { results: Array.from(found), mode: found.mode };
          if (found.skipped !== undefined) result.skipped = found.skipped;
        } else {
          result = await memory[method](...args);
        }
      } finally {
        calls.delete(id);
      }
    }
    self.postMessage({ id, ok: true, result, pending: pendingCount() });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name, code: e?.code, message: e?.message ?? String(e) }, pending: pendingCount() });
  }
};
