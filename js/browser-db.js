// Browser glue for mnemo's persistent storage: Web Locks, IndexedDB records,
// OPFS directory removal and listing, BroadcastChannel. The storage logic is
// in Rust (src/storage/browser/); these are the calls it cannot make
// without a pile of web-sys bindings.
//
// Layout on an origin, per memory key N (the memory's name, or
// "name@workspace" for a named workspace: each workspace is a database of
// its own):
//   OPFS: directory "mnemo/N" (an opfs-sahpool pool holding N's database)
//   IndexedDB: database "mnemo:N", object store "db": "version" (the
//   database's change counter), "id" (a stamp drawn when the image was
//   first stored whole, so that a memory deleted and made again is not
//   taken for the one a context keeps), "size" (its serialized length) and the
//   serialized SQLite database in pages under the numeric keys 0, 1, 2, …
//   as of the last fold, then the writes since, one record each under the
//   array key [counter]: {size, indices, bytes} (the image's new length and
//   the pages it changed, joined), applied in key order; a write that
//   would make the log too long folds it into the pages instead (earlier
//   releases kept the whole image under "image", which is read and
//   replaced at the next write). The database's IndexedDB version is
//   LAYOUT: a release that wrote pages only (version 1) cannot open it,
//   so it never reads the pages without the log.
//   Web Lock "mnemo:N" serialises writers across tabs and workers;
//   BroadcastChannel "mnemo:N" tells the others that something changed.

const PREFIX = "mnemo:";
/** The IndexedDB version of a memory's database: its layout (see above). */
const LAYOUT = 2;
const OPFS_ROOT = "mnemo";

function fail(code, message, cause) {
  const e = new Error(message);
  e.code = code;
  if (cause !== undefined) e.cause = cause;
  return e;
}

/** Whether this context can use OPFS sync access handles (a dedicated worker). */
export function opfsAvailable() {
  return (
    typeof globalThis.DedicatedWorkerGlobalScope !== "undefined" &&
    globalThis instanceof globalThis.DedicatedWorkerGlobalScope &&
    typeof globalThis.FileSystemSyncAccessHandle !== "undefined" &&
    typeof globalThis.navigator?.storage?.getDirectory === "function"
  );
}

/** Whether IndexedDB can be opened here. */
export function idbAvailable() {
  return typeof globalThis.indexedDB?.open === "function";
}

/**
 * Takes the writers' lock of memory `name`; resolves to a function that
 * releases it.
 */
export function lockAcquire(name) {
  const locks = globalThis.navigator?.locks;
  if (!locks) {
    // No Web Locks (a non-browser host): only this context writes.
    return Promise.resolve(() => {});
  }
  return new Promise((resolve, reject) => {
    locks
      .request(PREFIX + name, () => new Promise((release) => resolve(release)))
      .catch((e) => reject(fail("storage", `Web Lock ${PREFIX + name} failed: ${e?.message ?? e}`, e)));
  });
}

function idbError(what, e) {
  const name = e?.name ?? "";
  if (name === "VersionError") {
    return fail(
      "storage",
      `IndexedDB database ${what} was written by a newer mnemo (layout above ${LAYOUT}); update mnemo to open it`,
      e,
    );
  }
  if (name === "QuotaExceededError") {
    return fail("storage", `browser storage quota exceeded while ${what}; nothing was changed`, e);
  }
  if (name === "InvalidStateError" || name === "SecurityError" || name === "UnknownError") {
    return fail(
      "storage",
      `IndexedDB is unavailable here (${name}; private browsing or blocked site data?) while ${what}`,
      e,
    );
  }
  return fail("storage", `IndexedDB failed while ${what}: ${e?.message ?? e}`, e);
}

/** Open connections by memory name: opening one costs more than a save. */
const connections = new Map();

/**
 * Memory `name`'s IndexedDB database, opened once per context and kept:
 * it closes itself when another context deletes or upgrades it (and is
 * opened again on the next call).
 */
function idbOpen(name) {
  const cached = connections.get(name);
  if (cached) return cached;
  const opening = new Promise((resolve, reject) => {
    let req;
    try {
      req = indexedDB.open(PREFIX + name, LAYOUT);
    } catch (e) {
      reject(idbError("opening the database", e));
      return;
    }
    // Layout 1 (pages only) reads as layout 2 with an empty log.
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains("db")) req.result.createObjectStore("db");
    };
    req.onsuccess = () => {
      const db = req.result;
      const forget = () => {
        if (connections.get(name) === opening) connections.delete(name);
      };
      // Another tab deleting this memory must not wait for us.
      db.onversionchange = () => {
        forget();
        db.close();
      };
      db.onclose = forget;
      resolve(db);
    };
    req.onerror = () =>
      reject(idbError(req.error?.name === "VersionError" ? PREFIX + name : "opening the database", req.error));
    req.onblocked = () =>
      reject(fail("locked", `IndexedDB database ${PREFIX + name} is blocked by another tab`));
  });
  connections.set(name, opening);
  opening.catch(() => {
    if (connections.get(name) === opening) connections.delete(name);
  });
  return opening;
}

/**
 * Runs `f(db)` on memory `name`'s open database; once more on a fresh
 * connection if the kept one was closed under it (InvalidStateError).
 */
async function withDb(name, f) {
  const db = await idbOpen(name);
  try {
    return await f(db);
  } catch (e) {
    if (e?.name !== "InvalidStateError") throw e;
    if (connections.get(name)) connections.delete(name);
    try {
      db.close();
    } catch {}
    return f(await idbOpen(name));
  }
}

function idbRequest(req, what) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(idbError(what, req.error));
  });
}

/**
 * `{version, id}`: the change counter stored with the image (-1 when there
 * is none) and the image's identity stamp (null when there is none).
 */
export async function idbVersion(name) {
  return withDb(name, async (db) => {
    const store = db.transaction("db", "readonly").objectStore("db");
    const [v, id] = await Promise.all([
      idbRequest(store.get("version"), "reading the version"),
      idbRequest(store.get("id"), "reading the version"),
    ]);
    return { version: typeof v === "number" ? v : -1, id: typeof id === "string" ? id : null };
  });
}

/** The numeric keys from `first` on: pages of the image. */
const pagesFrom = (first) => IDBKeyRange.bound(first, Infinity);
/**
 * Every array key: the log of writes since the pages were last folded. (A
 * function: this module is also loaded where IndexedDB does not exist.)
 */
const logKeys = () => IDBKeyRange.lowerBound([]);

/** `bytes` (a Uint8Array) at least `size` long, or cut to it. */
function sized(bytes, size) {
  if (bytes.length >= size) return bytes.length === size ? bytes : bytes.subarray(0, size);
  const grown = new Uint8Array(size);
  grown.set(bytes);
  return grown;
}

/**
 * The stored image `{version, id, bytes, paged, logged, logs, logBytes,
 * damaged}`, or null: its pages joined in key order with the log applied
 * (`paged`), or an earlier release's whole "image" record; `id` is its
 * identity stamp (null when there is none); `logged` the pages the log
 * changed, `logs` and `logBytes` its records and their bytes; `damaged`
 * when a log record does not read as one (the log is applied up to it).
 */
export async function idbLoad(name) {
  return withDb(name, async (db) => {
    const store = db.transaction("db", "readonly").objectStore("db");
    const [version, id, size, legacy, pages, log] = await Promise.all([
      idbRequest(store.get("version"), "reading the version"),
      idbRequest(store.get("id"), "reading the version"),
      idbRequest(store.get("size"), "reading the database"),
      idbRequest(store.get("image"), "reading the database"),
      idbRequest(store.getAll(pagesFrom(0)), "reading the database"),
      idbRequest(store.getAll(logKeys()), "reading the database"),
    ]);
    if (typeof version !== "number") return null;
    const stamp = typeof id === "string" ? id : null;
    if (typeof size === "number") {
      // Pages that do not add up to the size are copied as far as they go:
      // SQLite's checks on open then report the database as damaged.
      let bytes = new Uint8Array(size);
      let at = 0;
      for (const page of pages) {
        if (!(page instanceof Uint8Array) || at >= size) break;
        const part = page.subarray(0, size - at);
        bytes.set(part, at);
        at += part.length;
      }
      const logged = new Set();
      let logBytes = 0;
      let damaged = false;
      for (const entry of log) {
        const { size: length, page, indices, bytes: changed } = entry ?? {};
        const fits =
          Number.isSafeInteger(length) &&
          length >= 0 &&
          Number.isSafeInteger(page) &&
          page > 0 &&
          Array.isArray(indices) &&
          changed instanceof Uint8Array &&
          indices.every((i) => Number.isSafeInteger(i) && i >= 0 && i * page < length) &&
          // The pages, joined, are exactly as long as their indices say.
          changed.length === indices.reduce((sum, i) => sum + Math.min(page, length - i * page), 0);
        if (!fits) {
          damaged = true;
          break;
        }
        bytes = sized(bytes, length);
        let from = 0;
        for (const i of indices) {
          const part = changed.subarray(from, from + Math.min(page, length - i * page));
          bytes.set(part, i * page);
          from += part.length;
          logged.add(i);
        }
        logBytes += changed.length;
      }
      return { version, id: stamp, bytes, paged: true, logged: [...logged], logs: log.length, logBytes, damaged };
    }
    if (!(legacy instanceof Uint8Array)) return null;
    return { version, id: stamp, bytes: legacy, paged: false, logged: [], logs: 0, logBytes: 0, damaged: false };
  });
}

/**
 * Stores the image at change counter `version`, `size` bytes long, in one
 * transaction: `bytes` holds the pages of `page` bytes at `indices`, joined
 * (the last page of the image may be shorter). `mode` is "log" (one log
 * record under [version]), "fold" (the pages at their keys, the pages from
 * the image's end on and the whole log removed) or "whole" (as "fold",
 * and an earlier release's "image" record removed). `id` (unless null) is
 * the image's new identity stamp. Resolves once the browser reports it
 * durable ("strict" durability where supported); a failure changes
 * nothing.
 */
export async function idbSave(name, version, size, page, indices, bytes, mode, id) {
  return withDb(name, (db) =>
    new Promise((resolve, reject) => {
      let tx;
      try {
        tx = db.transaction("db", "readwrite", { durability: "strict" });
      } catch (e) {
        // A closed connection: let withDb open it again.
        if (e?.name === "InvalidStateError") throw e;
        tx = db.transaction("db", "readwrite");
      }
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(idbError("saving the database", tx.error));
      tx.onerror = () => {};
      try {
        const store = tx.objectStore("db");
        if (mode === "log") {
          store.put({ size, page, indices: Array.from(indices), bytes }, [version]);
        } else {
          let from = 0;
          for (const i of indices) {
            const length = Math.min(page, size - i * page);
            store.put(bytes.slice(from, from + length), i);
            from += length;
          }
          store.delete(pagesFrom(Math.ceil(size / page)));
          store.delete(logKeys());
          if (mode === "whole") store.delete("image");
          store.put(size, "size");
        }
        store.put(version, "version");
        if (id !== null && id !== undefined) store.put(id, "id");
      } catch (e) {
        // Some browsers throw quota errors from put() itself.
        tx.onabort = null;
        try {
          tx.abort();
        } catch {}
        reject(idbError("saving the database", e));
      }
    }),
  );
}

async function opfsRoot(create) {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(OPFS_ROOT, { create });
}

/** Names of the memories stored on this origin (OPFS and IndexedDB). */
export async function listMemories() {
  const names = new Set();
  if (typeof globalThis.navigator?.storage?.getDirectory === "function") {
    try {
      const dir = await opfsRoot(false);
      for await (const [entry, handle] of dir.entries()) {
        if (handle.kind === "directory") names.add(entry);
      }
    } catch (e) {
      if (e?.name !== "NotFoundError") throw fail("storage", `listing OPFS failed: ${e?.message ?? e}`, e);
    }
  }
  if (typeof globalThis.indexedDB?.databases === "function") {
    for (const db of await indexedDB.databases()) {
      if (db.name?.startsWith(PREFIX)) names.add(db.name.slice(PREFIX.length));
    }
  }
  return [...names].sort();
}

/**
 * Removes every byte of memory `name` from this origin (its OPFS pool
 * directory and its IndexedDB database); resolves to what was removed.
 */
export async function removeMemory(name) {
  const removed = [];
  if (typeof globalThis.navigator?.storage?.getDirectory === "function") {
    try {
      const dir = await opfsRoot(false);
      await dir.removeEntry(name, { recursive: true });
      removed.push("opfs");
    } catch (e) {
      if (e?.name === "NoModificationAllowedError" || e?.name === "InvalidStateError") {
        throw fail("locked", `memory ${name} is open with OPFS in another tab or worker; close it first`, e);
      }
      if (e?.name !== "NotFoundError") throw fail("storage", `removing OPFS data failed: ${e?.message ?? e}`, e);
    }
  }
  if (idbAvailable()) {
    const existed =
      typeof indexedDB.databases !== "function" ||
      (await indexedDB.databases()).some((d) => d.name === PREFIX + name);
    if (existed) {
      await new Promise((resolve, reject) => {
        const req = indexedDB.deleteDatabase(PREFIX + name);
        req.onsuccess = () => resolve();
        req.onerror = () => reject(idbError("deleting the database", req.error));
        req.onblocked = () => {};
      });
      removed.push("indexeddb");
    }
  }
  return removed;
}

/** A BroadcastChannel for memory `name` calling `onMessage(data)`; null where there is none. */
export function channelOpen(name, onMessage) {
  if (typeof globalThis.BroadcastChannel !== "function") return null;
  const channel = new BroadcastChannel(PREFIX + name);
  channel.onmessage = (event) => onMessage(event.data);
  return channel;
}

/** Sends `data` to the other contexts of memory `name`. */
export function channelPost(channel, data) {
  channel?.postMessage(data);
}

/** Stops listening. */
export function channelClose(channel) {
  channel?.close();
}

/** Sends `data` to every context of memory `name` (a one-off channel). */
export function channelAnnounce(name, data) {
  if (typeof globalThis.BroadcastChannel !== "function") return;
  const channel = new BroadcastChannel(PREFIX + name);
  channel.postMessage(data);
  channel.close();
}

/** Calls `f` after `ms` milliseconds. */
export function later(ms, f) {
  setTimeout(f, ms);
}

/** Keeps `bytes` under record `key` of memory `name`'s IndexedDB database. */
export async function idbKeep(name, key, bytes) {
  return withDb(name, (db) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction("db", "readwrite");
      tx.objectStore("db").put(bytes, key);
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(idbError("keeping the damaged database", tx.error));
    }),
  );
}
