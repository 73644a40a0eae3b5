// mnemo/browser as a web developer meets it: a tiny app in the project where
// the packed package was installed (tests/packed/install.mjs), built by
// Vite (`vite build`, the root package's pinned devDependency), served by
// `vite preview` on 127.0.0.1 and opened in headless Chromium. The page
// keeps a memory in OPFS, which in a page runs in the worker mnemo/browser
// starts: it passes only if Vite found and shipped the wasm and that worker,
// and a reload finds the entry. The README's `mnemo/browser` programs
// (tests/packed/readme.mjs) run in a second page of the same build. The
// same app under Vite's dev server (`vite`, which pre-bundles
// dependencies) works as well.
// Run scripts/build-js.sh first.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, createServer, preview } from "vite";
import { launch } from "./harness.mjs";
import { installed, scratch } from "../packed/install.mjs";
import { programs } from "../packed/readme.mjs";

/** The page that keeps a memory: writes an entry when the memory is empty, then reports what it holds. */
const MAIN = `import { Memory } from "mnemo/browser";

const name = new URLSearchParams(location.search).get("name");
try {
  const memory = await Memory.open({ storage: "opfs", name });
  const before = (await memory.status()).memory.entries;
  const added = before === 0 ? await memory.tool({ action: "add", target: "memory", content: "Written by a page Vite built" }) : null;
  window.report = {
    before,
    added,
    storage: (await memory.status()).storage,
    files: await memory.exportMarkdown(),
    found: await memory.tool({ action: "search", query: "which page wrote this" }),
    prompt: await memory.startSession(),
  };
  await memory.close();
} catch (e) {
  window.report = { error: String(e?.stack ?? e) };
}
`;

const page = (script) =>
  `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>mnemo</title><script type="module" src="./${script}"></script>\n`;

let app, skip, dir, server, url, browser, dev;

before(async () => {
  ({ app, skip } = installed());
  if (skip) return;
  dir = scratch(app, "vite-");
  writeFileSync(join(dir, "index.html"), page("main.js"));
  writeFileSync(join(dir, "main.js"), MAIN);
  // The README's programs, one module each, imported in turn by readme.js.
  const readme = readFileSync(join(app, "node_modules", "mnemo", "README.md"), "utf8");
  const snippets = programs(readme).filter((p) => p.entry === "mnemo/browser");
  snippets.forEach((p, i) => writeFileSync(join(dir, `readme-${i}.js`), p.code));
  writeFileSync(
    join(dir, "readme.js"),
    `import { Memory } from "mnemo/browser";
const ran = [];
try {
${snippets.map((p, i) => `  await import("./readme-${i}.js");\n  ran.push(${p.line});`).join("\n")}
  window.report = { ran, names: await Memory.list() };
} catch (e) {
  window.report = { ran, error: String(e?.stack ?? e) };
}
`,
  );
  writeFileSync(join(dir, "readme.html"), page("readme.js"));
  await build({
    root: dir,
    configFile: false,
    cacheDir: join(dir, ".vite"),
    logLevel: "warn",
    build: { outDir: "dist", rolldownOptions: { input: { main: join(dir, "index.html"), readme: join(dir, "readme.html") } } },
  });
  server = await preview({ root: dir, configFile: false, logLevel: "warn", preview: { host: "127.0.0.1", port: 0 } });
  url = server.resolvedUrls.local[0];
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await dev?.close();
});

/** Opens `path` of `base` in a fresh tab; resolves to the page and what it fetched or failed to. */
async function open(context, path, base = url) {
  const tab = await context.newPage();
  const fetched = [];
  const failed = [];
  tab.on("response", (r) => (r.status() < 400 ? fetched : failed).push(new URL(r.url()).pathname));
  tab.on("requestfailed", (r) => failed.push(r.url()));
  tab.on("pageerror", (e) => failed.push(e.message));
  await tab.goto(new URL(path, base).href);
  return { tab, fetched, failed };
}

const report = (tab) => tab.waitForFunction(() => window.report, null, { timeout: 60_000 }).then((h) => h.jsonValue());

test("Vite ships the wasm and the OPFS worker: a page writes, a reload reads the entry back", async (t) => {
  if (skip) return t.skip(skip);
  const assets = readdirSync(join(dir, "dist", "assets"));
  assert.ok(assets.some((f) => f.endsWith(".wasm")), `no wasm among ${assets}`);
  const worker = assets.find((f) => /^worker.*\.js$/.test(f));
  assert.ok(worker, `no worker among ${assets}`);
  const context = await browser.newContext();
  const name = `vite-${Date.now()}`;
  const { tab, fetched, failed } = await open(context, `/?name=${name}`);
  const first = await report(tab);
  assert.equal(first.error, undefined, first.error);
  assert.equal(first.before, 0);
  assert.equal(first.added.success, true, JSON.stringify(first.added));
  assert.equal(first.storage, "opfs");
  // The page started the bundled worker, and the wasm came from the build.
  assert.ok(fetched.includes(`/assets/${worker}`), fetched.join(" "));
  assert.ok(fetched.some((p) => p.startsWith("/assets/") && p.endsWith(".wasm")), fetched.join(" "));
  await tab.evaluate(() => delete window.report);
  await tab.reload();
  const second = await report(tab);
  assert.equal(second.error, undefined, second.error);
  assert.equal(second.before, 1, "the entry survived the reload");
  assert.equal(second.added, null);
  assert.deepEqual(second.files["MEMORY.md"], "Written by a page Vite built");
  assert.deepEqual(second.found.results.map((r) => r.text), ["Written by a page Vite built"]);
  assert.match(second.prompt, /Written by a page Vite built/);
  assert.deepEqual(failed, []);
  await context.close();
});

test("the README's mnemo/browser programs run in a page Vite built", async (t) => {
  if (skip) return t.skip(skip);
  const context = await browser.newContext();
  const { tab, failed } = await open(context, "/readme.html");
  const out = await report(tab);
  assert.equal(out.error, undefined, out.error);
  assert.ok(out.ran.length >= 1, "the README has a mnemo/browser program");
  // The Browser storage program deletes the memory it made.
  assert.ok(!out.names.includes("assistant"), out.names.join());
  assert.deepEqual(failed, []);
  await context.close();
});

test("under Vite's dev server too, the page writes and a reload reads the entry back", async (t) => {
  if (skip) return t.skip(skip);
  dev = await createServer({ root: dir, configFile: false, cacheDir: join(dir, ".vite"), logLevel: "warn", server: { host: "127.0.0.1", port: 0 } });
  await dev.listen();
  const context = await browser.newContext();
  const { tab, failed } = await open(context, `/?name=vite-dev-${Date.now()}`, dev.resolvedUrls.local[0]);
  const first = await report(tab);
  assert.equal(first.error, undefined, first.error);
  assert.deepEqual([first.before, first.added.success, first.storage], [0, true, "opfs"]);
  await tab.evaluate(() => delete window.report);
  await tab.reload();
  const second = await report(tab);
  assert.equal(second.error, undefined, second.error);
  assert.deepEqual(second.found.results.map((r) => r.text), ["Written by a page Vite built"]);
  assert.deepEqual(failed, []);
  await context.close();
});
