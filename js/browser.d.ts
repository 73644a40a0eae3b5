// Types of "mnemo/browser": the web build's API with the wasm initialised.
// Only what browser.js exports is a value here: not the web build's
// `init` (default) and `initSync`, which browser.js has already run.
import type { Memory as WasmMemory, MemoryOptions } from "./mnemo.js";

export type * from "./mnemo.js";
export { NoteIndex, errorCodes, scan, wasmMemoryBytes } from "./mnemo.js";

/**
 * An open agent memory. In a page, `storage: "opfs"` and `"auto"` run it in
 * a worker this module starts, so it has every method of the web build's
 * `Memory` but not `free()`: `close()` releases it (and stops the worker).
 */
export type Memory = Omit<WasmMemory, "free" | typeof Symbol.dispose>;

/** The static calls of `Memory`, as in the web build. */
export declare const Memory: Pick<
  typeof WasmMemory,
  "list" | "delete" | "recover" | "toolSchema" | "skillToolSchema" | "sessionToolSchema"
> & {
  /**
   * Opens a memory. In a page, "opfs" and "auto" run it in a worker;
   * everything else (and everything inside a worker) runs in the caller.
   */
  open(opts?: MemoryOptions): Promise<Memory>;
};
