// Shared by the browser storage tests and benchmark: a static server for the
// repository on 127.0.0.1 (a secure context, so OPFS works) whose "/" is a
// page that loads mnemo/browser as `window.mnemo`, and Debian's Chromium.
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
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
  window.ready = true;
</script>`;

/** Serves the repository; resolves to {server, url}. */
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
      res.writeHead(200, {
        "content-type": MIME[path.extname(file)] || "application/octet-stream",
        "cache-control": "no-store",
      });
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
