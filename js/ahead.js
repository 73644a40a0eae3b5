// A memory held open for an open that has not been called yet, shared by
// `mnemo/browser`'s page module (IndexedDB memories) and its worker (OPFS
// and "auto"): the memory the last page load opened, opened ahead when the
// package is imported, or a memory the page closed, kept for its next open
// with the same options. An open with those options takes it (its stores
// read again and its prompt frozen again when it was held before the call);
// a memory nothing takes is closed after PREFETCH_KEEP_MS.

/** How long a held memory waits to be taken before it is closed. */
export const PREFETCH_KEEP_MS = 10_000;

/** The database name of open options, as `Memory.list()` shows it: `name` or `name@workspace`. */
export function nameOf(opts) {
  const name = opts?.name == null ? "default" : String(opts.name);
  return opts?.workspace == null ? name : `${name}@${opts.workspace}`;
}

/**
 * One memory held ahead of its open: `{key (its options as JSON), name,
 * memory (a promise of it, or of null), done, timer}`, or nothing.
 */
export class Ahead {
  #entry = null;

  /**
   * Opens the memory of `opts` with `Memory` (the wasm class) and builds
   * its derived state, if it exists on the origin (nothing is created);
   * `settled` runs when that is done.
   */
  open(Memory, opts, settled) {
    const entry = this.#hold(opts, null);
    entry.memory = (async () => {
      if (!(await Memory.list()).includes(entry.name)) return null;
      const memory = await Memory.open(opts);
      await memory.prepare();
      return memory;
    })().catch(() => null);
    entry.memory.then((memory) => {
      entry.done = true;
      settled?.();
      if (memory && this.#entry === entry) this.#expire(entry);
    });
  }

  /**
   * Holds `memory`, which the page closed (options `opts`): it writes what
   * it counted and lets go of its lock, as a close would (`__suspend`),
   * so that its next call checks storage and reloads what another context
   * changed; closed at once if that fails.
   */
  async keep(memory, opts) {
    try {
      await memory.__suspend();
    } catch {
      await memory.close().catch(() => {});
      return;
    }
    const entry = this.#hold(opts, memory);
    entry.done = true;
    this.#expire(entry);
  }

  /**
   * The memory held, if its options were `opts` (its stores read again
   * and its prompt frozen again when it was held before this call): then
   * it is no longer held. Else null, and whatever is held stays.
   */
  async take(opts) {
    const entry = this.#entry;
    if (!entry || entry.key !== JSON.stringify(opts)) return null;
    this.#entry = null;
    clearTimeout(entry.timer);
    const early = entry.done;
    const memory = await entry.memory;
    if (!memory) return null;
    try {
      if (early) await memory.startSession();
      return memory;
    } catch {
      // Deleted or damaged meanwhile: the open says what is wrong.
      memory.close().catch(() => {});
      return null;
    }
  }

  /** Closes the memory held, if any (only if it is memory `name`, when given). */
  drop(name) {
    const entry = this.#entry;
    if (!entry || (name !== undefined && entry.name !== String(name))) return;
    this.#entry = null;
    clearTimeout(entry.timer);
    entry.memory.then((memory) => memory?.close()).catch(() => {});
  }

  /** Holds a new entry for `opts` (`memory`, if already open), closing the one held. */
  #hold(opts, memory) {
    this.drop();
    const entry = { key: JSON.stringify(opts), name: nameOf(opts), memory: Promise.resolve(memory), done: false, timer: 0 };
    this.#entry = entry;
    return entry;
  }

  /** Closes `entry`'s memory after PREFETCH_KEEP_MS unless it was taken. */
  #expire(entry) {
    entry.timer = setTimeout(() => {
      if (this.#entry === entry) this.drop();
    }, PREFETCH_KEEP_MS);
  }
}
