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
  open(opts?: BrowserMemoryOptions): Promise<Memory>;
};

/** Options of `Memory.open` in "mnemo/browser". */
export interface BrowserMemoryOptions extends MemoryOptions {
  /**
   * In a page: whether the next page load may open this memory ahead of
   * time, as soon as the module is imported (default `true`). A page
   * remembers (in localStorage) the options of the last OPFS, IndexedDB or
   * "auto" memory it opened, when they hold no function; the next load
   * opens that memory before it is asked, and `Memory.open` with the same
   * options then takes it. `false` forgets it and opens as usual.
   */
  prefetch?: boolean;
}
