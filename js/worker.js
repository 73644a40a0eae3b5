// The dedicated worker that `mnemo/browser` starts for OPFS storage: it
// opens one memory and answers the page's calls `{id, method, args}` with
// `{id, ok, result | error, pending}` (`pending`: the staged writes, for the
// page's synchronous pendingCount()).
//
// A review's llm stays in the page (a function cannot cross): the call
// arrives as `{id, method: "review", args, llm: true, aborted}`, and each
// step of it asks the page `{llm, review, request}` and waits for `{llm,
// ok, result | error}`. `{abort: id}` cancels review `id`.
//
// The host's embedder stays in the page too: `open` arrives with `embed:
// true` and the embedder's `{model, dimensions}`, and each batch of texts
// asks the page `{embed, texts}` and waits for `{embed, ok, result | error}`.
// `recall`'s array carries `mode` and `skipped`, which a structured clone
// drops, so it crosses as `{results, mode, skipped?}` and the page rebuilds it.
import init, { Memory } from "./mnemo.js";

// The first message carries the page's compiled module (when it has one),
// so the worker instantiates it instead of fetching and compiling again.
let ready = null;
let memory = null;

/** The reviews in progress by call id: their AbortController. */
const reviews = new Map();
/** The page's answers awaited, by llm call number. */
const answers = new Map();
let nextLlmCall = 1;
/** The page's embedder answers awaited, by embed call number. */
const embeddings = new Map();
let nextEmbedCall = 1;

/** The page's embedder as the worker's: each batch is a round trip. */
const pageEmbed = (texts) =>
  new Promise((resolve, reject) => {
    const call = nextEmbedCall++;
    embeddings.set(call, { resolve, reject });
    self.postMessage({ embed: call, texts });
  });

/** Runs a review whose llm is the page's. */
async function review(id, options, aborted) {
  const controller = new AbortController();
  if (aborted) controller.abort();
  reviews.set(id, controller);
  const llm = (request) =>
    new Promise((resolve, reject) => {
      const call = nextLlmCall++;
      answers.set(call, { resolve, reject, review: id });
      self.postMessage({ llm: call, review: id, request });
    });
  try {
    return await memory.review({ ...options, llm, signal: controller.signal });
  } finally {
    reviews.delete(id);
    // An answer still awaited lost to the abort: drop it.
    for (const [call, waiting] of answers) if (waiting.review === id) answers.delete(call);
  }
}

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
    reviews.get(data.abort)?.abort();
    return;
  }
  const { id, method, args, module } = data;
  try {
    ready ??= init(module instanceof WebAssembly.Module ? { module_or_path: module } : undefined);
    await ready;
    let result;
    if (method === "open") {
      const opts = data.embed === true ? { ...args[0], embedder: { ...args[0].embedder, embed: pageEmbed } } : args[0];
      memory = await Memory.open(opts);
      result = null;
    } else if (method === "recover") {
      result = await Memory.recover(...args);
    } else if (!memory) {
      throw Object.assign(new Error("this memory is not open"), { name: "MnemoError", code: "closed" });
    } else if (method === "review" && data.llm === true) {
      result = await review(id, args[0], data.aborted);
    } else if (method === "recall") {
      const found = await memory.recall(...args);
      result = { results: Array.from(found), mode: found.mode };
      if (found.skipped !== undefined) result.skipped = found.skipped;
    } else {
      result = await memory[method](...args);
    }
    self.postMessage({ id, ok: true, result, pending: pendingCount() });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name, code: e?.code, message: e?.message ?? String(e) }, pending: pendingCount() });
  }
};
