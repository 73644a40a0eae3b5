// mnemo for web pages and workers: `import { Memory } from "mnemo/browser"`.
//
// The same API as the web build, with the wasm already initialised (top-level
// await) and one addition: in a page, `storage: "opfs"` or `"auto"` runs the
// memory in a dedicated Worker this module starts itself (OPFS sync access
// exists only in workers). The page gets the same async methods; it never
// touches postMessage. Inside a worker, or with "indexeddb" / "memory",
// everything runs in the calling context.

import init, * as wasm from "./mnemo.js";

await init();
// The compiled module, handed to the workers this file starts so they need
// not fetch and compile the wasm again.
const MODULE = init.__wbindgen_wasm_module;

export { scan, errorCodes, NoteIndex, wasmMemoryBytes } from "./mnemo.js";

const IN_WORKER = typeof WorkerGlobalScope !== "undefined" && globalThis instanceof WorkerGlobalScope;

/** The instance methods a worker memory forwards: those of the wasm class. */
const METHODS = Object.getOwnPropertyNames(wasm.Memory.prototype).filter(
  (m) => m !== "constructor" && m !== "close" && m !== "free" && !m.startsWith("__"),
);
const CODES = new Set(wasm.errorCodes());

/** A MnemoError from what the worker sent: its code when it is one of mnemo's, else `storage`. */
function mnemoError(data) {
  const e = new Error(data?.message ?? String(data));
  e.name = "MnemoError";
  e.code = CODES.has(data?.code) ? data.code : "storage";
  return e;
}

/** A dedicated worker running worker.js. */
function startWorker() {
  return new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "mnemo" });
}

/** A memory living in a dedicated worker; every call is a message. */
class WorkerMemory {
  #worker;
  #pending = new Map();
  #next = 1;
  #closed = null;

  constructor(worker) {
    this.#worker = worker;
    worker.onmessage = ({ data }) => {
      const waiting = this.#pending.get(data.id);
      if (!waiting) return;
      this.#pending.delete(data.id);
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

  call(method, args, module) {
    if (this.#closed) return Promise.reject(mnemoError(this.#closed));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ id, method, args, module });
      } catch (e) {
        this.#pending.delete(id);
        reject(mnemoError({ code: "invalid-input", message: `arguments of ${method} cannot be sent to the worker: ${e.message}` }));
      }
    });
  }

  static async open(opts) {
    if (typeof opts?.classifier === "function") {
      throw Object.assign(
        new Error(
          "classifier cannot cross to the worker that runs an OPFS memory for a page; " +
            "open the memory inside your own worker, or use storage \"indexeddb\"",
        ),
        { name: "MnemoError", code: "invalid-config" },
      );
    }
    const worker = startWorker();
    const memory = new WorkerMemory(worker);
    await memory.call("open", [opts], MODULE).catch((e) => {
      worker.terminate();
      throw e;
    });
    return memory;
  }

  /** Closes the memory and stops its worker; later calls reject with `closed`. */
  async close() {
    if (this.#closed) return;
    await this.call("close", []);
    this.#closed = { code: "closed", message: "this memory was closed; open it again with Memory.open" };
    this.#worker.terminate();
  }
}

for (const method of METHODS) {
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
    const storage = opts?.storage;
    if (!IN_WORKER && (storage === "opfs" || storage === "auto") && typeof Worker === "function") {
      return WorkerMemory.open(opts);
    }
    return wasm.Memory.open(opts);
  }

  /** Names of the memories kept on this origin. */
  static list() {
    return wasm.Memory.list();
  }

  /** Removes every byte of memory `name` from this origin. */
  static delete(name) {
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

  /** The session_search tool's definition. */
  static sessionToolSchema() {
    return wasm.Memory.sessionToolSchema();
  }
}
