// mnemo for web pages and workers: `import { Memory } from "mnemo/browser"`.
//
// The same API as the web build, with the wasm already initialised (top-level
// await) and one addition: in a page, `storage: "opfs"` or `"auto"` runs the
// memory in a dedicated Worker this module starts itself (OPFS sync access
// exists only in workers). The page gets the same async methods; it never
// touches postMessage. Inside a worker, or with "indexeddb" / "memory",
// everything runs in the calling context.
//
// A few calls need more than a message each way in the worker's case:
// `review()`, `curate()` and `stop()` keep the host's `llm` (a function,
// which cannot cross) in the page and the worker calls it back for every
// step, and their `signal` is forwarded as an abort message;
// `pendingCount()` is synchronous, so it answers from the count the worker
// sends with every reply. The host's `embedder` (of `open`, and of one
// `curate()`) likewise keeps its `embed` in the page: the worker asks it
// for each batch of texts. `recall()`'s array and its `mode` and `skipped`
// cross as one object and are put together again here.

import init, * as wasm from "./mnemo.js";
import { Ahead, nameOf } from "./ahead.js";

const IN_WORKER = typeof WorkerGlobalScope !== "undefined" && globalThis instanceof WorkerGlobalScope;

/** A dedicated worker running worker.js. */
function startWorker() {
  return new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "mnemo" });
}

// A page's first worker starts before the wasm is compiled, so that it
// loads its scripts meanwhile; it gets the compiled module below.
const first = !IN_WORKER && typeof Worker === "function" ? startWorker() : null;

await init();
// The compiled module, handed to the workers this file starts so they need
// not fetch and compile the wasm again.
const MODULE = init.__wbindgen_wasm_module;

export { scan, errorCodes, NoteIndex, wasmMemoryBytes } from "./mnemo.js";

/** The instance methods a worker memory forwards: those of the wasm class. */
const METHODS = Object.getOwnPropertyNames(wasm.Memory.prototype).filter(
  (m) => m !== "constructor" && m !== "close" && m !== "free" && !m.startsWith("__"),
);
const CODES = new Set(wasm.errorCodes());
/** The calls whose options take a `signal` that gives up on the host's embedder or classifier. */
const SIGNALLED = new Set(["tool", "search", "context", "recall", "inject"]);

/** A MnemoError from what the worker sent: its code when it is one of mnemo's, else `storage`. */
function mnemoError(data) {
  const e = new Error(data?.message ?? String(data));
  e.name = "MnemoError";
  e.code = CODES.has(data?.code) ? data.code : "storage";
  return e;
}

/**
 * A worker started ahead of need, its wasm instantiated from the page's
 * module: an open takes it instead of paying for a worker's start, and
 * starts the next one. It holds no memory and no storage handle until an
 * open reaches it. `failed`: the error it stopped with before an open took it.
 */
let spare = null;

/**
 * Workers whose memory was closed, kept for the page's next opens: such a
 * worker keeps the OPFS pools of the memories it opened installed (paused,
 * holding no file handle and no lock), so opening one of them again only
 * takes the pool's file handles back, and its wasm is already compiled by
 * the engine's optimizing tier. `names`: the memories it opened.
 */
const idle = [];
/** How many closed memories' workers a page keeps. */
const IDLE_MAX = 2;

/**
 * `worker` (a new one if not given) made the spare: given the module and
 * warmed up, or told to open the memory of options `ahead` ahead of time
 * (see "The page's next open" below).
 */
function warmWorker(worker = startWorker(), ahead = null) {
  const warm = { worker, failed: false };
  warm.worker.onerror = (event) => {
    event.preventDefault?.();
    warm.failed = true;
  };
  if (ahead) warm.worker.postMessage({ method: "prefetch", args: [ahead], module: MODULE });
  else warm.worker.postMessage({ method: "warm", module: MODULE });
  return warm;
}

/**
 * A worker for memory `name`: an idle one that opened it before (its pool
 * is installed there), else any idle one, else the spare, as `{worker,
 * names}`. The next spare starts when the open is done (`restock`), so it
 * does not compete with the open for the CPU.
 */
function takeWorker(name) {
  let at = idle.findIndex((w) => w.names.has(name));
  if (at < 0) at = idle.length - 1;
  const reused = at >= 0 ? idle.splice(at, 1)[0] : null;
  if (reused && !reused.failed) {
    reused.worker.onerror = null;
    reused.names.add(name);
    return reused;
  }
  reused?.worker.terminate();
  const taken = spare;
  spare = null;
  if (taken && !taken.failed) {
    taken.worker.onerror = null;
    return { worker: taken.worker, names: new Set([name]) };
  }
  taken?.worker.terminate();
  return { worker: startWorker(), names: new Set([name]) };
}

/** Starts a spare worker if the page has none. */
function restock() {
  spare ??= warmWorker();
}

/** Keeps `kept` (a worker whose memory was closed) for a later open. */
function park(kept) {
  kept.failed = false;
  kept.worker.onmessage = null;
  kept.worker.onmessageerror = null;
  kept.worker.onerror = (event) => {
    event.preventDefault?.();
    kept.failed = true;
  };
  idle.push(kept);
  while (idle.length > IDLE_MAX) idle.shift().worker.terminate();
}

/**
 * Call ids, unique across the page's workers: a worker kept after its
 * memory closed may still answer a call of that memory, and that answer
 * must not resolve a call of the next one.
 */
let nextId = 1;

/** A memory living in a dedicated worker; every call is a message. */
class WorkerMemory {
  #worker;
  /** `{worker, names}`: this memory's worker, kept when it closes (see `park`). */
  #kept;
  #pending = new Map();
  #closed = null;
  /** The host's llm of each review or curation in progress, by call id. */
  #llms = new Map();
  /** Staged writes after the last reply (pendingCount). */
  #count = 0;
  /** The host's embed functions: the open's (key 0) and each curation's (its call id). */
  #embeds = new Map();
  /** Whether close() keeps the memory open in the worker (options without functions, prefetch not false). */
  #keep = false;

  constructor(worker, kept = null) {
    this.#worker = worker;
    this.#kept = kept;
    worker.onmessage = ({ data }) => {
      if (data.llm !== undefined) {
        this.#answerLlm(data);
        return;
      }
      if (data.embed !== undefined) {
        this.#answerEmbed(data);
        return;
      }
      const waiting = this.#pending.get(data.id);
      if (!waiting) return;
      this.#pending.delete(data.id);
      if (typeof data.pending === "number") this.#count = data.pending;
      if (data.ok) waiting.resolve(data.result);
      else waiting.reject(mnemoError(data.error));
    };
    const crash = (event) => {
      event.preventDefault?.();
      this.#fail({
        code: "storage",
        message: `mnemo's worker stopped: ${event.message ?? "could not load it (check that worker.js is served next to mnemo.js)"}`,
      });
    };
    worker.onerror = crash;
    worker.onmessageerror = crash;
  }

  #fail(error) {
    this.#closed = error;
    for (const waiting of this.#pending.values()) waiting.reject(mnemoError(error));
    this.#pending.clear();
    this.#worker.terminate();
  }

  /** Asks the page's llm of call `call` on the worker's behalf; answers `{llm, ok, result | error}`. */
  async #answerLlm({ llm: ask, call, request }) {
    let reply;
    try {
      const answer = await this.#llms.get(call)(request);
      // What crosses back is what the core reads anyway: the answer as JSON.
      reply = { llm: ask, ok: true, result: answer === undefined ? null : JSON.parse(JSON.stringify(answer)) };
    } catch (e) {
      reply = { llm: ask, ok: false, error: e?.message ?? String(e) };
    }
    if (!this.#closed) this.#worker.postMessage(reply);
  }

  /** Runs the host's embed (the open's, or call `call`'s) on the worker's behalf; answers `{embed, ok, result | error}`. */
  async #answerEmbed({ embed: ask, call, texts }) {
    let reply;
    try {
      const embed = this.#embeds.get(call ?? 0);
      if (typeof embed !== "function") throw new Error("the embedder is gone");
      reply = { embed: ask, ok: true, result: await embed(texts) };
    } catch (e) {
      reply = { embed: ask, ok: false, error: e?.message ?? String(e) };
    }
    if (this.#closed) return;
    try {
      this.#worker.postMessage(reply);
    } catch (e) {
      // An answer that cannot be cloned is nonsense: recall falls back to keywords.
      this.#worker.postMessage({ embed: ask, ok: false, error: `its answer cannot be sent to the worker: ${e.message}` });
    }
  }

  call(method, args, module, extra) {
    if (this.#closed) return Promise.reject(mnemoError(this.#closed));
    const id = nextId++;
    // The options' signal of a call that takes one stays here (it cannot
    // cross); its abort is sent as a message, and the worker aborts there.
    let signal = null;
    const options = args[1];
    if (SIGNALLED.has(method) && options !== null && typeof options === "object" && options.signal != null) {
      signal = options.signal;
      if (typeof signal.addEventListener !== "function" || !("aborted" in signal)) {
        return Promise.reject(mnemoError({ code: "invalid-input", message: "signal must be an AbortSignal" }));
      }
      const { signal: _, ...rest } = options;
      args = [args[0], rest, ...args.slice(2)];
      extra = { ...extra, signal: true, aborted: signal.aborted === true };
    }
    const abort = () => this.#closed || this.#worker.postMessage({ abort: id });
    return new Promise((resolve, reject) => {
      const done = (f) => (value) => {
        signal?.removeEventListener("abort", abort);
        f(value);
      };
      this.#pending.set(id, { resolve: done(resolve), reject: done(reject) });
      signal?.addEventListener("abort", abort);
      try {
        this.#worker.postMessage({ ...extra, id, method, args, module });
      } catch (e) {
        this.#pending.delete(id);
        signal?.removeEventListener("abort", abort);
        reject(mnemoError({ code: "invalid-input", message: `arguments of ${method} cannot be sent to the worker: ${e.message}` }));
      }
    });
  }

  static async open(opts, keep = true) {
    if (typeof opts?.classifier === "function") {
      throw Object.assign(
        new Error(
          "classifier cannot cross to the worker that runs an OPFS memory for a page; " +
            "open the memory inside your own worker, or use storage \"indexeddb\"",
        ),
        { name: "MnemoError", code: "invalid-config" },
      );
    }
    const kept = takeWorker(String(opts?.name ?? "default"));
    const worker = kept.worker;
    const memory = new WorkerMemory(worker, kept);
    // The embedder's embed stays here; its shape goes to the worker, which
    // checks it as Memory.open does (invalid-config on a bad one).
    let extra;
    if (opts?.embedder != null) {
      const { embedder, embed } = keepEmbed(opts.embedder);
      opts = { ...opts, embedder };
      if (embed) {
        memory.#embeds.set(0, embed);
        extra = { embed: true };
      }
    }
    memory.#keep = keep && hintOf(opts) !== null;
    try {
      await memory.call("open", [opts], MODULE, extra);
    } catch (e) {
      worker.terminate();
      throw e;
    } finally {
      restock();
    }
    return memory;
  }

  /**
   * Runs `method` (`review`, `curate`, `stop`) in the worker with the
   * host's functions kept here: its options' `llm` answers the worker's
   * requests, `embedder.embed` (in `curate`) its batches of texts, and
   * `signal` (not in `stop`) aborts the call there. What is wrong with the
   * options the worker's memory says, as it would here.
   */
  async #withHost(method, options) {
    if (options === null || typeof options !== "object") return this.call(method, [options]);
    const { llm, ...rest } = options;
    const id = nextId;
    const extra = { host: true };
    if (typeof llm === "function") {
      this.#llms.set(id, llm);
      extra.llm = true;
    } else if (llm !== undefined && llm !== null) {
      // Something else, which may not clone: a stand-in refused the same way.
      rest.llm = false;
    }
    if (method !== "stop" && rest.signal != null) {
      const { signal } = rest;
      if (typeof signal.addEventListener !== "function" || !("aborted" in signal)) {
        throw mnemoError({ code: "invalid-input", message: "signal must be an AbortSignal" });
      }
      delete rest.signal;
      extra.signal = true;
      extra.aborted = signal.aborted === true;
    } else if ("signal" in rest) {
      // stop() takes no signal: the worker's memory names the unknown key.
      rest.signal = null;
    }
    if (method === "curate" && rest.embedder != null) {
      const { embedder, embed } = keepEmbed(rest.embedder);
      rest.embedder = embedder;
      if (embed) {
        this.#embeds.set(id, embed);
        extra.embed = true;
      }
    }
    const signal = extra.signal ? options.signal : null;
    const abort = () => this.#closed || this.#worker.postMessage({ abort: id });
    signal?.addEventListener("abort", abort);
    try {
      return await this.call(method, [rest], undefined, extra);
    } finally {
      signal?.removeEventListener("abort", abort);
      this.#llms.delete(id);
      this.#embeds.delete(id);
    }
  }

  /**
   * Runs the background review in the worker; the host's `llm` stays here
   * and answers the worker's requests, and `signal` aborts it there.
   */
  review(options) {
    return this.#withHost("review", options);
  }

  /**
   * Curates in the worker; the host's `llm` and the embedder's `embed`
   * stay here and answer the worker's requests, and `signal` aborts it there.
   */
  curate(options) {
    return this.#withHost("curate", options);
  }

  /** Ends the agent's run in the worker, curating with the host's `llm` (kept here) when configured. */
  stop(options) {
    return this.#withHost("stop", options);
  }

  /** The best entries for `query`: an array that also carries `mode` and `skipped`. */
  async recall(...args) {
    const { results, ...how } = await this.call("recall", args);
    return Object.assign(results, how);
  }

  /** How many staged writes wait, as of the worker's last reply (synchronous, for badges). */
  pendingCount() {
    if (this.#closed) throw mnemoError(this.#closed);
    return this.#count;
  }

  /**
   * Closes the memory; later calls reject with `closed`. Its worker is
   * kept for the page's next open (see `park`), and with it the memory
   * itself when its options hold no function: an open with the same
   * options then only reads the stores again.
   */
  async close() {
    if (this.#closed) return;
    await this.call("close", [], undefined, this.#keep && this.#kept ? { keep: true } : undefined);
    this.#closed = { code: "closed", message: "this memory was closed; open it again with Memory.open" };
    // Reject what is still waiting (an answer after the close is not this memory's).
    for (const waiting of this.#pending.values()) waiting.reject(mnemoError(this.#closed));
    this.#pending.clear();
    if (this.#kept) park(this.#kept);
    else this.#worker.terminate();
  }
}

/**
 * An embedder option split for the worker: `embed` (a function, kept in the
 * page) and what crosses (its shape; a non-function `embed` crosses, so the
 * worker's memory refuses it as it would here).
 */
function keepEmbed(embedder) {
  if (typeof embedder !== "object") return { embedder: String(typeof embedder), embed: null };
  const { embed, ...shape } = embedder;
  if (typeof embed === "function") return { embedder: shape, embed };
  return { embedder: { ...shape, ...(embed !== undefined && { embed }) }, embed: null };
}

for (const method of METHODS) {
  if (Object.hasOwn(WorkerMemory.prototype, method)) continue;
  WorkerMemory.prototype[method] = function (...args) {
    return this.call(method, args);
  };
}

/** An agent memory; see the README and the TypeScript types. */
export class Memory {
  /**
   * Opens a memory. In a page, "opfs" and "auto" run it in a worker;
   * everything else (and everything inside a worker) runs here.
   */
  static open(opts) {
    let keep = true;
    if (opts !== null && typeof opts === "object" && "prefetch" in opts) {
      ({ prefetch: keep, ...opts } = opts);
      if (typeof keep !== "boolean") {
        return Promise.reject(mnemoError({ code: "invalid-config", message: "prefetch must be true or false" }));
      }
    }
    const storage = opts?.storage;
    let opened;
    if (!IN_WORKER && (storage === "opfs" || storage === "auto") && typeof Worker === "function") {
      opened = WorkerMemory.open(opts, keep);
    } else if (!IN_WORKER && storage === "indexeddb") {
      opened = openAhead(opts, keep);
    } else {
      return wasm.Memory.open(opts);
    }
    return opened.then((memory) => {
      if (keep) remember(opts);
      else forget(nameOf(opts));
      return memory;
    });
  }

  /** Names of the memories kept on this origin. */
  static list() {
    return wasm.Memory.list();
  }

  /** Removes every byte of memory `name` from this origin. */
  static async delete(name) {
    forget(name);
    ahead.drop(name);
    return wasm.Memory.delete(name);
  }

  /**
   * Recovers memory `name` from a damaged database; OPFS needs a worker,
   * which a page gets here as for open().
   */
  static async recover(name, opts) {
    if (!IN_WORKER && opts?.storage === "opfs" && typeof Worker === "function") {
      const worker = startWorker();
      try {
        return await new WorkerMemory(worker).call("recover", [name, opts], MODULE);
      } finally {
        worker.terminate();
      }
    }
    return wasm.Memory.recover(name, opts);
  }

  /** The memory tool's definition. */
  static toolSchema() {
    return wasm.Memory.toolSchema();
  }

  /** The skill tool's definition. */
  static skillToolSchema() {
    return wasm.Memory.skillToolSchema();
  }

  /** The session_search tool's definition. */
  static sessionToolSchema() {
    return wasm.Memory.sessionToolSchema();
  }
}

// The page's next open, ahead of time. A page remembers (in localStorage)
// the options of the last persistent memory it opened, when they hold no
// function. When this module is imported again (the next page load), it
// opens that memory at once, before the page asks: in the spare worker for
// "opfs" and "auto", here for "indexeddb". `Memory.open` with the same
// options then takes that memory (reading the stores again if they were
// opened more than a moment before) instead of opening it; other options
// open as usual. A memory opened ahead is an ordinary open memory (its
// lease is let go after a second, like any other's) and is closed after
// PREFETCH_KEEP_MS if nothing takes it. Nothing is created: a remembered
// memory no longer on the origin is not opened. `prefetch: false` in
// `Memory.open`'s options forgets the memory and opens it as usual;
// `Memory.delete` forgets it too.

/** The localStorage key of the last memory's options. */
const HINT = "mnemo:last-open";
/** The IndexedDB memory opened ahead in this page, or kept after its close (see ahead.js). */
const ahead = new Ahead();

/** Whether `value` is JSON through and through: no function, class instance or symbol. */
function plain(value) {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return true;
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) return value.every(plain);
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.values(value).every((v) => v === undefined || plain(v));
}

/** The options of a page's last persistent open, if they can be opened ahead. */
function hintOf(opts) {
  if (IN_WORKER || opts === null || typeof opts !== "object") return null;
  if (!["opfs", "auto", "indexeddb"].includes(opts.storage) || !plain(opts)) return null;
  return JSON.stringify(opts);
}

/** Remembers `opts` for the next page load (when they can be opened ahead). */
function remember(opts) {
  const hint = hintOf(opts);
  try {
    if (hint && localStorage.getItem(HINT) !== hint) localStorage.setItem(HINT, hint);
  } catch {
    // No localStorage (a sandboxed frame, storage off): nothing is opened ahead.
  }
}

/** Forgets the remembered memory if it is `name`. */
function forget(name) {
  try {
    const hint = localStorage.getItem(HINT);
    if (hint && nameOf(JSON.parse(hint)) === String(name)) localStorage.removeItem(HINT);
  } catch {
    // As above.
  }
}

/** The remembered options, or null. */
function recalled() {
  try {
    const hint = localStorage.getItem(HINT);
    const opts = hint && JSON.parse(hint);
    return hintOf(opts) === hint ? opts : null;
  } catch {
    return null;
  }
}

/** The wasm memory behind each PageMemory, until it is closed. */
const behind = new WeakMap();

/**
 * An IndexedDB memory opened in a page: the wasm memory behind a handle of
 * its own, so that `close()` can keep it (when its options hold no
 * function) for the page's next open with the same options, which then
 * only reads the stores again; it is closed for good after
 * PREFETCH_KEEP_MS. Later calls on a closed handle reject with `closed`.
 */
class PageMemory {
  #opts;

  constructor(memory, opts) {
    behind.set(this, memory);
    this.#opts = opts && hintOf(opts) ? opts : null;
  }

  /** The wasm memory, or a `closed` error. */
  static inner(handle) {
    const memory = behind.get(handle);
    if (!memory) throw mnemoError({ code: "closed", message: "this memory was closed; open it again with Memory.open" });
    return memory;
  }

  /** How many staged writes wait (synchronous, for badges). */
  pendingCount() {
    return PageMemory.inner(this).pendingCount();
  }

  /** The best entries for `query`: an array that also carries `mode` and `skipped`. */
  recall(...args) {
    try {
      return PageMemory.inner(this).recall(...args);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Closes the memory; later calls reject with `closed`. A memory kept for
   * the page's next open writes what it counted and lets go of its lock
   * and its loaded database, as a close does.
   */
  async close() {
    const memory = behind.get(this);
    if (!memory) return;
    behind.delete(this);
    if (this.#opts) await ahead.keep(memory, this.#opts);
    else await memory.close();
  }
}

for (const method of METHODS) {
  if (Object.hasOwn(PageMemory.prototype, method)) continue;
  PageMemory.prototype[method] = function (...args) {
    try {
      return PageMemory.inner(this)[method](...args);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/**
 * Opens an IndexedDB memory in this page: the one opened ahead, or closed
 * in this page a moment ago, when its options are `opts` (its stores read
 * again and its prompt frozen again if it was opened before this call),
 * else as usual.
 */
async function openAhead(opts, keep) {
  const held = hintOf(opts) ? await ahead.take(opts) : null;
  return new PageMemory(held ?? (await wasm.Memory.open(opts)), keep ? opts : null);
}

// The first open of a page finds its worker started and its wasm ready,
// and the memory the last page opened already open.
{
  const opts = recalled();
  if (first) spare = warmWorker(first, opts?.storage === "indexeddb" ? null : opts);
  if (opts?.storage === "indexeddb") ahead.open(wasm.Memory, opts);
}
