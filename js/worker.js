// The dedicated worker that `mnemo/browser` starts for OPFS storage: it
// opens one memory and answers the page's calls `{id, method, args}` with
// `{id, ok, result | error, pending}` (`pending`: the staged writes, for the
// page's synchronous pendingCount()).
//
// A review's llm stays in the page (a function cannot cross): the call
// arrives as `{id, method: "review", args, llm: true, aborted}`, and each
// step of it asks the page `{llm, review, request}` and waits for `{llm,
// ok, result | error}`. `{abort: id}` cancels review `id`.
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
      memory = await Memory.open(args[0]);
      result = null;
    } else if (method === "recover") {
      result = await Memory.recover(...args);
    } else if (!memory) {
      throw Object.assign(new Error("this memory is not open"), { name: "MnemoError", code: "closed" });
    } else if (method === "review" && data.llm === true) {
      result = await review(id, args[0], data.aborted);
    } else {
      result = await memory[method](...args);
    }
    self.postMessage({ id, ok: true, result, pending: pendingCount() });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name, code: e?.code, message: e?.message ?? String(e) }, pending: pendingCount() });
  }
};
