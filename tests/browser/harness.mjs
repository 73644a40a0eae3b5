// Shared by the browser storage tests and benchmark: a static server for the
// repository on 127.0.0.1 (a secure context, so OPFS works) whose "/" is a
// page that loads mnemo/browser as `window.mnemo`, and Debian's Chromium.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const MIME = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

const PAGE = `<!doctype html><meta charset="utf-8"><title>mnemo browser harness</title>
<script type="module">
  import * as mnemo from "/pkg/web/browser.js";
  window.mnemo = mnemo;
  // Runs an async function body in a fresh dedicated worker that imports
  // mnemo/browser itself (so the memory runs inside that worker).
  window.inWorker = (body) => new Promise((resolve, reject) => {
    const w = new Worker("/tests/browser/worker-runner.js", { type: "module" });
    w.onmessage = ({ data }) => { w.terminate(); data.ok ? resolve(data.result) : reject(new Error(data.error)); };
    w.onerror = (e) => { w.terminate(); reject(new Error(e.message)); };
    w.postMessage(body);
  });
  // The stored image of IndexedDB memory \`name\` as its layout has it: the
  // pages joined, "size" long, then the log of later commits applied in
  // key order (see js/browser-db.js).
  window.idbImage = (name) =>
    new Promise((resolve, reject) => {
      const r = indexedDB.open("mnemo:" + name);
      r.onerror = () => reject(r.error);
      r.onsuccess = () => {
        const db = r.result;
        const store = db.transaction("db").objectStore("db");
        const size = store.get("size");
        const pages = store.getAll(IDBKeyRange.bound(0, Infinity));
        const log = store.getAll(IDBKeyRange.lowerBound([]));
        store.transaction.oncomplete = () => {
          db.close();
          let bytes = new Uint8Array(size.result);
          let at = 0;
          for (const p of pages.result) {
            bytes.set(p.subarray(0, bytes.length - at), at);
            at += Math.min(p.length, bytes.length - at);
          }
          for (const c of log.result) {
            const grown = new Uint8Array(c.size);
            grown.set(bytes.subarray(0, Math.min(bytes.length, c.size)));
            bytes = grown;
            let from = 0;
            for (const i of c.indices) {
              const length = Math.min(c.page, c.size - i * c.page);
              bytes.set(c.bytes.subarray(from, from + length), i * c.page);
              from += length;
            }
          }
          resolve(bytes);
        };
      };
    });
  window.ready = true;
</script>`;

/**
 * Serves the repository; resolves to {server, url}. Files are served with
 * `cache-control: no-store` (every page load fetches and compiles the wasm
 * afresh, as a first visit does) until `server.revalidate` is set: then with
 * an ETag and `no-cache`, as a production server serves them, so the
 * browser keeps them and the code it compiled for them (a returning visit).
 */
export function serve() {
  if (!existsSync(path.join(ROOT, "pkg/web/browser.js"))) {
    throw new Error("pkg/web/browser.js is missing: run scripts/build-js.sh first");
  }
  const server = http.createServer(async (req, res) => {
    const { pathname } = new URL(req.url, "http://localhost");
    if (pathname === "/" || pathname === "/index.html") {
      res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
      return;
    }
    const file = path.resolve(ROOT, "." + decodeURIComponent(pathname));
    if (!file.startsWith(ROOT + path.sep)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      const headers = { "content-type": MIME[path.extname(file)] || "application/octet-stream" };
      if (server.revalidate) {
        headers["cache-control"] = "no-cache";
        headers.etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`;
        if (req.headers["if-none-match"] === headers.etag) return res.writeHead(304, headers).end();
      } else {
        headers["cache-control"] = "no-store";
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })),
  );
}

/** Headless Chromium. */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
}

/**
 * A browser context with a profile on disk, as a user's browser has: OPFS
 * and IndexedDB live in files there. `launch().newContext()` gives an
 * off-the-record (private window) context instead, whose OPFS is kept in
 * the browser process's memory and reached through a message for every
 * read and write. Its `close()` also removes the profile.
 */
export async function launchProfile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mnemo-profile-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  const close = context.close.bind(context);
  context.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return context;
}

/** A new tab of `context` on the harness page, with mnemo loaded. */
export async function tab(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(url);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60_000 });
  page.errors = errors;
  return page;
}

/**
 * Runs in a harness page (pass it to `page.evaluate`): a dedicated worker
 * opens memory `name` on `storage`, adds `entry <i>` notes after the ones it
 * finds and posts each acknowledged write; once `acks` were (0: once it
 * opened) it is terminated `delay` ms later, in the middle of later writes.
 * The page then reopens the memory. Resolves with {entries, acked,
 * reopenMs}: the notes found, the acknowledgements received before the
 * kill, and the reopen's time.
 */
export async function killedWorkerTrial({ storage, name, acks, delay }) {
  const channel = `progress-${name}-${Math.random()}`;
  const progress = new BroadcastChannel(channel);
  const w = new Worker("/tests/browser/worker-runner.js", { type: "module" });
  let acked = 0;
  let failed = null;
  const kill = new Promise((resolve) => {
    w.onmessage = ({ data }) => {
      failed = data.error ?? "the writer stopped";
      resolve();
    };
    progress.onmessage = ({ data }) => {
      if (data === "open") {
        if (acks === 0) setTimeout(resolve, delay);
        return;
      }
      acked = data;
      if (acked === acks) setTimeout(resolve, delay);
    };
  });
  w.postMessage(`
    const progress = new BroadcastChannel(${JSON.stringify(channel)});
    const m = await mnemo.Memory.open({ storage: ${JSON.stringify(storage)}, name: ${JSON.stringify(name)} });
    const text = (await m.exportMarkdown())["MEMORY.md"];
    let i = text === "" ? 0 : text.split("\\n§\\n").length;
    progress.postMessage("open");
    for (let n = 1; ; n++, i++) {
      const r = await m.tool({ action: "add", target: "memory", content: "entry " + i });
      if (!r.success) throw new Error(JSON.stringify(r));
      progress.postMessage(n);
    }
  `);
  await kill;
  w.terminate();
  progress.close();
  if (failed) throw new Error(failed);
  const t0 = performance.now();
  const m = await window.mnemo.Memory.open({ storage, name });
  const reopenMs = performance.now() - t0;
  const text = (await m.exportMarkdown())["MEMORY.md"];
  await m.close();
  return { entries: text === "" ? [] : text.split("\n§\n"), acked, reopenMs };
}

/**
 * Checks a [`killedWorkerTrial`] on a memory that held `before` notes:
 * the notes are exactly `entry 0` … `entry n-1` (each whole, none twice),
 * with every acknowledged one among them. Returns the problems (none: []).
 */
export function checkKilledWorker(out, before) {
  const problems = [];
  const n = out.entries.length;
  out.entries.forEach((e, i) => e !== `entry ${i}` && problems.push(`note ${i} is ${JSON.stringify(e)}`));
  if (n < before + out.acked) problems.push(`${before + out.acked} writes acknowledged, ${n} notes found`);
  return problems;
}

/**
 * Runs in a harness page: opens memory `name` on `storage` and adds `each`
 * notes one after another, tagged `who`. Resolves with {texts, ms,
 * first, last}: the notes acknowledged, each write's time, and when the
 * writes started and ended (`Date.now()`, comparable across tabs).
 */
export async function tabWrites({ storage, name, who, each }) {
  const m = await window.mnemo.Memory.open({ storage, name });
  const texts = [];
  const ms = [];
  const first = Date.now();
  const words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor"];
  for (let i = 0; i < each; i++) {
    const text = `${who} recalls the ${words[i % 8]} ${words[(i * 3 + 1) % 8]} release ${who}k${i}`;
    const t0 = performance.now();
    const r = await m.tool({ action: "add", target: "memory", content: text });
    ms.push(performance.now() - t0);
    if (!r.success) throw new Error(JSON.stringify(r));
    texts.push(text);
  }
  const last = Date.now();
  await m.close();
  return { texts, ms, first, last };
}
