// The demo page (www/) in a real browser: headless Chromium driven by
// playwright-core, against a tiny static server started here. 127.0.0.1 is a
// secure context, so the page keeps its memory in OPFS; each test gets a new
// browser context (its own empty storage), so tests never see each other's
// notes.
//
// Needs the web build copied into www/pkg:
//   scripts/build-js.sh && rm -rf www/pkg && cp -r pkg/web www/pkg
// Run: node --test tests/page/

import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { SAMPLE_MEMORY_MD, SAMPLE_NOTES } from "../../www/sample-notes.js";

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../www");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
// Each test's budget (a suite-wide one would grow with the suite: every page
// load compiles the wasm twice, in the page and in its OPFS worker).
const TIMEOUT = 30_000;

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** Serves www/ on 127.0.0.1 with a free port; resolves to {server, url}. */
function serveWww() {
  const server = http.createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url, "http://localhost");
      let rel = decodeURIComponent(pathname);
      if (rel.endsWith("/")) rel += "index.html";
      const file = path.resolve(WWW, "." + rel);
      if (file !== WWW && !file.startsWith(WWW + path.sep)) {
        res.writeHead(403).end("forbidden");
        return;
      }
      const body = await readFile(file);
      const type = MIME[path.extname(file).toLowerCase()] || "application/octet-stream";
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

let server;
let baseUrl;
let browser;

before(async () => {
  if (!existsSync(path.join(WWW, "pkg", "browser.js"))) {
    throw new Error(
      "www/pkg/browser.js is missing: run scripts/build-js.sh and copy pkg/web to www/pkg " +
        "(cd /work/main && scripts/build-js.sh && rm -rf www/pkg && cp -r pkg/web www/pkg)",
    );
  }
  ({ server, url: baseUrl } = await serveWww());
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--no-default-browser-check",
    ],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

// ---------------------------------------------------------------- per test

let context;
let page;
/** Console errors, page errors and failed requests seen by the current page. */
let problems;

beforeEach(async () => {
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") {
      problems.push(`console.${msg.type()}: ${msg.text()}`);
    }
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()}`));
  page.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.goto(baseUrl);
  await pageReady();
});

afterEach(async () => {
  await context?.close();
  assert.deepEqual(problems, [], "the page logged errors");
});

// ---------------------------------------------------------------- helpers

const text = (selector) => page.locator(selector).textContent();

/** Waits until the page has opened its memory and shown it. */
const pageReady = () => page.locator('#app-status[data-state="ready"]').waitFor();

/** Where the page says its memory lives. */
const storageShown = () => page.locator("#storage-note").getAttribute("data-storage");

/** The entries listed under a store ("memory" or "user"). */
function entries(target) {
  return page.locator(`#store-${target}-entries li .entry-text`).allTextContents();
}

/** Clicks `selector` and waits for the next tool result; returns its panel state. */
async function callAndWait(act) {
  const before = Number(await page.locator("#tool-result").getAttribute("data-seq"));
  await act();
  await page.locator(`#tool-result[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
  const panel = page.locator("#tool-result");
  return {
    success: await panel.getAttribute("data-success"),
    code: await panel.getAttribute("data-code"),
    badge: await text("#tool-result-badge"),
    message: await text("#tool-result-message"),
    json: await text("#tool-result-json"),
  };
}

/** Runs an action through the form. */
async function formCall({ action, target, content, old_text }) {
  await page.selectOption("#tool-action", action);
  await page.selectOption("#tool-target", target);
  if (content !== undefined) await page.fill("#tool-content", content);
  if (old_text !== undefined) await page.fill("#tool-old-text", old_text);
  return callAndWait(() => page.click("#tool-run"));
}

/** Runs a raw JSON call. */
async function rawCall(json) {
  await page.fill("#raw-args", typeof json === "string" ? json : JSON.stringify(json, null, 2));
  return callAndWait(() => page.click("#raw-run"));
}

/** Clicks "Load sample notes" and waits until MEMORY holds them. */
async function loadSamples() {
  await page.click("#load-samples");
  await page.locator("#samples-status", { hasText: "Loaded" }).waitFor();
  await page.locator("#store-memory-count", { hasText: `${SAMPLE_NOTES.length} entries` }).waitFor();
}

/** Runs a search through the form; returns the status line and the results shown. */
async function searchAndWait(query, target = "") {
  await page.fill("#search-query", query);
  await page.selectOption("#search-target", target);
  const before = Number(await page.locator("#search-output").getAttribute("data-seq"));
  await page.click("#search-run");
  await page.locator(`#search-output[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
  const hits = await page.$$eval("#search-results li", (lis) =>
    lis.map((li) => ({
      target: li.dataset.target,
      index: Number(li.dataset.index),
      meta: li.querySelector(".hit-meta").textContent,
      text: li.querySelector(".entry-text").textContent,
    })),
  );
  return { status: await text("#search-status"), hits };
}

/** Asks for the memory context of `message`; returns the block, the status line and why it is empty. */
async function contextAndWait(message) {
  await page.fill("#context-message", message);
  const before = Number(await page.locator("#context-output").getAttribute("data-seq"));
  await page.click("#context-run");
  await page.locator(`#context-output[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
  return {
    block: await text("#context-block"),
    visible: await page.locator("#context-block").isVisible(),
    status: await text("#context-status"),
    empty: await page.locator("#context-output").getAttribute("data-empty"),
  };
}

/** The sample note whose title (first line) starts with `title`. */
function sample(title) {
  const note = SAMPLE_NOTES.find((n) => n.startsWith(title));
  assert.ok(note, `no sample note titled ${title}`);
  return note;
}

/** The sectors panel's report: waits until its summary counts `memories` notes. */
async function sectorsReady(memories) {
  await page.locator("#sectors-summary .sectors-totals", { hasText: ` ${memories} memories ` }).waitFor();
}

/** What sectors() answers in the page (every note listed unless `limit` is given). */
function apiSectors(options = { limit: 100_000 }) {
  return page.evaluate((o) => window.mnemo.memory.sectors(o), options);
}

/** Chooses a sector in the panel's filter ("" for all) and waits for the report. */
async function filterSectors(name) {
  const before = Number(await page.locator("#sectors-output").getAttribute("data-seq"));
  await page.selectOption("#sectors-filter", name);
  await page.locator(`#sectors-output[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
}

/** The sectors listed in the panel, with their headers and notes. */
function sectorsListed() {
  return page.$$eval("#sectors-list .sector", (blocks) =>
    blocks.map((b) => ({
      name: b.dataset.sector,
      heading: b.querySelector(".sector-name").textContent,
      count: Number(b.querySelector(".sector-count").textContent),
      stats: b.querySelector(".sector-stats").textContent,
      bar: b.querySelector(".sector-bar-fill").getBoundingClientRect().width /
        b.querySelector(".sector-bar").getBoundingClientRect().width,
      entries: [...b.querySelectorAll(".sector-entry")].map((e) => ({
        node: e.dataset.node,
        title: e.querySelector(".sector-entry-title").textContent,
        links: e.querySelector(".sector-entry-links").textContent,
        flag: e.querySelector(".flag")?.textContent ?? null,
        flagTitle: e.querySelector(".flag")?.title ?? null,
        inherited: e.querySelector(".mark.inherited") !== null,
        pinned: e.querySelector(".mark.pinned") !== null,
      })),
    })),
  );
}

/** The summary lines under the report. */
function sectorsSummary() {
  return page.locator("#sectors-summary p").allTextContents();
}

/** The note open in the sectors panel's detail view: title, text and links both ways. */
function noteShown() {
  return page.$eval("#sector-note", (view) => {
    const titles = (sel) => [...view.querySelectorAll(sel)].map((el) => el.querySelector(".note-link-title").textContent);
    return {
      visible: !view.hidden,
      node: view.dataset.node,
      title: view.querySelector("#sector-note-title").textContent,
      text: view.querySelector("#sector-note-text").textContent,
      out: titles("#sector-note-out button.note-link"),
      dangling: titles("#sector-note-out li.dangling"),
      in: titles("#sector-note-in button.note-link"),
    };
  });
}

/** Opens the note `node` from the sectors list; returns what the detail view shows. */
async function openFromList(node) {
  await page.click(`#sectors-list .sector-entry[data-node="${node}"]`);
  await page.locator(`#sector-note[data-node="${node}"]`).waitFor();
  return noteShown();
}

/** Follows the link to the note titled `title` in the detail view's "out" or "in" list. */
async function followLink(list, title) {
  const link = page.locator(`#sector-note-${list} button.note-link`, {
    has: page.locator(".note-link-title", { hasText: title }),
  });
  const node = await link.getAttribute("data-node");
  await link.click();
  await page.locator(`#sector-note[data-node="${node}"]`).waitFor();
  return noteShown();
}

/** The entry of the report titled `title`. */
function entryOf(report, title) {
  const entry = report.sectors.flatMap((s) => s.entries).find((e) => e.title === title);
  assert.ok(entry, `no note titled ${title} in the report`);
  return entry;
}

// ---------------------------------------------------------------- tests

describe("demo page", () => {
  test("loads without console errors and shows an empty memory saved in the browser", { timeout: TIMEOUT }, async () => {
    assert.equal(await storageShown(), "opfs");
    assert.equal(await text("#storage-text"),
      "Your memory is saved in this browser (OPFS) — it survives reloads and never leaves this device.");
    assert.ok(await page.locator("#delete-memory").isEnabled());
    assert.equal(await page.locator("#delete-result").isVisible(), false);
    assert.equal(await text("#store-memory-count"), "0 entries");
    assert.equal(await text("#store-user-count"), "0 entries");
    assert.match(await text("#store-memory-usage"), /0\/120,000 chars/);
    assert.match(await text("#store-memory-mode"), /^in prompt/);
    assert.deepEqual(await entries("memory"), []);
    assert.ok(await page.locator("#store-memory-empty").isVisible());
    // The empty stores add nothing to the prompt, and the page says so.
    assert.equal(await text("#system-prompt"), "");
    assert.ok(await page.locator("#system-prompt-empty").isVisible());
    assert.match(await text("#prompt-note"), /only after you start a new session/);
    assert.match(await text("#session-info"), /^Session 1/);
    // The schema is collapsed until opened, and is the real tool definition.
    assert.equal(await page.locator("#tool-schema-json").isVisible(), false);
    await page.click("#tool-schema summary");
    assert.ok(await page.locator("#tool-schema-json").isVisible());
    const schema = JSON.parse(await text("#tool-schema-json"));
    assert.equal(schema.name, "memory");
    assert.ok(schema.parameters.properties.operations);
    assert.match(await text("#error-codes"), /no-match/);
    // Every input has a label.
    const unlabeled = await page.$$eval("input, select, textarea", (els) =>
      els.filter((el) => el.labels.length === 0).map((el) => el.id),
    );
    assert.deepEqual(unlabeled, []);
  });

  test("adding an entry through the form shows success and the entry under MEMORY", { timeout: TIMEOUT }, async () => {
    const r = await formCall({
      action: "add",
      target: "memory",
      content: "User's project is a Rust web service at ~/code/myapi",
    });
    assert.equal(r.success, "true");
    assert.match(r.badge, /success/);
    assert.equal(r.message, "Entry added.");
    assert.equal(JSON.parse(r.json).entry_count, 1);
    assert.deepEqual(await entries("memory"), ["User's project is a Rust web service at ~/code/myapi"]);
    assert.deepEqual(await entries("user"), []);
    assert.equal(await text("#store-memory-count"), "1 entry");
    assert.match(await text("#store-memory-usage"), /52\/120,000 chars/);
    // The form is cleared for the next entry.
    assert.equal(await page.inputValue("#tool-content"), "");
  });

  test("the activity log shows each write, and Curate runs without a model and shows the metrics", { timeout: TIMEOUT }, async () => {
    assert.equal(await page.locator("#activity-empty").isVisible(), true);
    await formCall({ action: "add", target: "memory", content: "Deploys run on Fridays" });
    const logged = page.locator('#activity-list li[data-what="memory add"]');
    await logged.waitFor();
    assert.equal(await logged.locator(".entry-text").textContent(), "Deploys run on Fridays");
    assert.match(await logged.locator(".hit-meta").textContent(), /^memory add · \d\d:\d\d:\d\d UTC · no agent named$/);
    // A note logged by an agent through the API shows at the next refresh, newest first.
    await page.evaluate(() => window.mnemo.memory.log("Looked into the flaky CI job", { agent: "ops-bot" }));
    await page.click("#curate");
    await page.locator('#activity[data-seq="1"]').waitFor({ state: "attached" });
    assert.match(await text("#curate-status"), /^Curated\. Extraction skipped: no llm was given/);
    const metrics = await page.$$eval("#curate-report dd", (dds) => Object.fromEntries(dds.map((d) => [d.dataset.metric, d.textContent])));
    assert.deepEqual(metrics, {
      facts_extracted: "0",
      facts_added: "0",
      memories_updated: "0",
      memories_pruned: "0",
      merged: "0",
      existing_memories: "1",
    });
    const listed = await page.$$eval("#activity-list li", (lis) =>
      lis.map((li) => [li.dataset.what, li.querySelector(".hit-meta").textContent.split(" · ")[2], li.querySelector(".entry-text").textContent]),
    );
    assert.deepEqual(listed.map(([what, agent]) => [what, agent]), [
      ["curation", "no agent named"],
      ["note", "ops-bot"],
      ["memory add", "no agent named"],
    ]);
    assert.match(listed[0][2], /^extracted 0, added 0/);
  });

  test("the frozen prompt stays unchanged until a new session starts", { timeout: TIMEOUT }, async () => {
    const frozen = await text("#system-prompt");
    // Keyboard only: type the entry and run it with Ctrl+Enter.
    await page.focus("#tool-content");
    await page.keyboard.type("This machine runs Debian 12 with Docker");
    const r = await callAndWait(() => page.keyboard.press("Control+Enter"));
    assert.equal(r.success, "true");
    assert.deepEqual(await entries("memory"), ["This machine runs Debian 12 with Docker"]);

    assert.equal(await text("#system-prompt"), frozen, "a write must not change the frozen prompt");
    assert.ok(await page.locator("#prompt-stale").isVisible());

    await page.focus("#start-session");
    await page.keyboard.press("Enter");
    await page.locator('#system-prompt[data-session="2"]').waitFor({ state: "attached" });
    const prompt = await text("#system-prompt");
    assert.notEqual(prompt, frozen);
    assert.match(prompt, /MEMORY \(your personal notes\) \[/);
    assert.ok(prompt.includes("This machine runs Debian 12 with Docker"));
    assert.match(await text("#session-info"), /^Session 2/);
    assert.equal(await page.locator("#prompt-stale").isVisible(), false);
  });

  test("a remove whose old_text matches nothing shows no-match and changes nothing", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "memory", content: "Keep me" });
    const r = await formCall({ action: "remove", target: "memory", old_text: "no entry has this text" });
    assert.equal(r.success, "false");
    assert.equal(r.code, "no-match");
    assert.match(r.badge, /no-match/);
    assert.match(r.message, /No entry in memory contains/);
    assert.equal(JSON.parse(r.json).code, "no-match");
    assert.deepEqual(await entries("memory"), ["Keep me"]);
    // The content field is hidden for remove: the form sends only what remove uses.
    assert.equal(await page.locator("#tool-content").isVisible(), false);
  });

  test("a raw JSON batch applies both operations", { timeout: TIMEOUT }, async () => {
    const r = await rawCall({
      operations: [
        { action: "add", target: "memory", content: "Project uses tabs and 120-char lines" },
        { action: "add", target: "user", content: "User prefers concise answers" },
      ],
    });
    assert.equal(r.success, "true");
    assert.match(r.message, /Applied 2 operations/);
    assert.deepEqual(await entries("memory"), ["Project uses tabs and 120-char lines"]);
    assert.deepEqual(await entries("user"), ["User prefers concise answers"]);
    assert.equal(await text("#store-user-count"), "1 entry");

    // A batch is atomic: one bad operation and nothing is applied.
    const bad = await rawCall({
      operations: [
        { action: "add", target: "memory", content: "Would be added" },
        { action: "replace", target: "user", old_text: "nothing like this", content: "x" },
      ],
    });
    assert.equal(bad.success, "false");
    assert.equal(bad.code, "no-match");
    assert.deepEqual(await entries("memory"), ["Project uses tabs and 120-char lines"]);

    // Text that is not JSON is reported by the page and never sent.
    const notJson = await rawCall("{action: add");
    assert.equal(notJson.success, "false");
    assert.match(notJson.badge, /invalid JSON/);
    assert.deepEqual(await entries("memory"), ["Project uses tabs and 120-char lines"]);
  });

  test("exporting MEMORY.md downloads the canonical text", { timeout: TIMEOUT }, async () => {
    await rawCall({
      operations: [
        { action: "add", target: "memory", content: "First note" },
        { action: "add", target: "memory", content: "A multiline\nnote" },
        { action: "add", target: "memory", content: "Third note" },
      ],
    });
    const shown = await entries("memory");
    assert.deepEqual(shown, ["First note", "A multiline\nnote", "Third note"]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click("#export-memory"),
    ]);
    assert.equal(download.suggestedFilename(), "MEMORY.md");
    const saved = await readFile(await download.path(), "utf8");
    assert.equal(saved, "First note\n§\nA multiline\nnote\n§\nThird note");
    assert.equal(saved, shown.join("\n§\n"));
    assert.match(await text("#files-status"), /Downloaded MEMORY\.md: 3 entries/);
  });

  test("importing USER.md replaces that store; a bad file shows the error code", { timeout: TIMEOUT }, async () => {
    await page.setInputFiles("#import-files", {
      name: "USER.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("Name: Ada\n§\nTimezone: Europe/London"),
    });
    await page.click("#import-run");
    await page.locator("#files-status", { hasText: "Imported USER.md" }).waitFor();
    assert.deepEqual(await entries("user"), ["Name: Ada", "Timezone: Europe/London"]);
    assert.equal(await text("#store-user-count"), "2 entries");
    assert.ok(await page.locator("#prompt-stale").isVisible());

    await page.setInputFiles("#import-files", {
      name: "notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("something"),
    });
    await page.click("#import-run");
    await page.locator('#files-status[data-code="invalid-input"]').waitFor();
    assert.match(await text("#files-status"), /^invalid-input .*notes\.md/);
    assert.deepEqual(await entries("user"), ["Name: Ada", "Timezone: Europe/London"]);
  });

  test("a rejected promise shows its error code and message", { timeout: TIMEOUT }, async () => {
    // The console handle closes the memory; the next call rejects with `closed`.
    await page.evaluate(() => window.mnemo.memory.close());
    const r = await formCall({ action: "add", target: "memory", content: "Too late" });
    assert.equal(r.success, "false");
    assert.equal(r.code, "closed");
    assert.match(r.badge, /rejected · closed/);
    assert.match(r.message, /this memory was closed/);
    await page.click("#start-session");
    await page.locator('#session-error[data-code="closed"]').waitFor();
    assert.match(await text("#session-error"), /^closed this memory was closed/);
  });

  test("an entry's Replace… button prefills the form for a replace", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "user", content: "User prefers dark mode" });
    await page.click('#store-user-entries li button:has-text("Replace…")');
    assert.equal(await page.inputValue("#tool-action"), "replace");
    assert.equal(await page.inputValue("#tool-target"), "user");
    assert.equal(await page.inputValue("#tool-old-text"), "User prefers dark mode");
    await page.fill("#tool-content", "User prefers light mode in VS Code, dark mode in terminal");
    const r = await callAndWait(() => page.click("#tool-run"));
    assert.equal(r.success, "true");
    assert.deepEqual(await entries("user"), ["User prefers light mode in VS Code, dark mode in terminal"]);
  });

  test("loading the sample notes replaces MEMORY.md and makes MEMORY searched", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "memory", content: "Replaced by the samples" });
    await formCall({ action: "add", target: "user", content: "User prefers metric units" });
    assert.match(await text("#load-samples"), /replaces MEMORY\.md/);
    await loadSamples();
    assert.equal(SAMPLE_NOTES.length, 40);
    assert.ok(SAMPLE_MEMORY_MD.length > 2_200, "the samples must exceed the verbatim budget");
    assert.deepEqual(await entries("memory"), SAMPLE_NOTES);
    assert.deepEqual(await entries("user"), ["User prefers metric units"], "USER.md is left alone");
    assert.match(await text("#store-memory-mode"), /^searched \(over the 2,200-char verbatim budget\)/);
    assert.equal(await page.locator("#store-memory-mode").getAttribute("data-mode"), "searched");
    assert.match(await text("#store-user-mode"), /^in prompt/);
    assert.match(await text("#samples-status"), /Loaded 40 sample notes into MEMORY\.md .*MEMORY is now searched/);
    assert.ok(await page.locator("#prompt-stale").isVisible());
  });

  test("after the samples a new session's prompt carries the digest, not the notes", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    await page.click("#start-session");
    await page.locator('#system-prompt[data-session="2"]').waitFor({ state: "attached" });
    const prompt = await text("#system-prompt");
    assert.match(prompt, /MEMORY \(your personal notes\) \[\d+% — [\d,]+\/120,000 chars\]/);
    assert.match(prompt, /40 notes in MEMORY\.md, \d+ links between them\./);
    assert.match(prompt, /\nSectors: infra \(\d+\), /);
    assert.match(prompt, /\nPinned:\n/);
    assert.ok(prompt.includes(sample("Ground rules #pinned")), "the pinned note is in the digest");
    assert.ok(!prompt.includes(sample("Backups #ops")), "unpinned notes are not in the prompt");
    assert.match(prompt, /memory\(action="search", query="…"\)/);
  });

  test("a search ranks the notes: \"порт\" finds the Russian note first", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    const russian = sample("Сервер мониторинга слушает портами 9090 и 9093");
    const { status, hits } = await searchAndWait("порт");
    assert.ok(hits.length >= 1);
    assert.equal(hits[0].text, russian);
    assert.equal(hits[0].target, "memory");
    assert.equal(hits[0].index, SAMPLE_NOTES.indexOf(russian));
    assert.match(hits[0].meta, /^MEMORY · entry \d+ \(index \d+\) · score \d+\.\d{2}$/);
    assert.match(status, new RegExp(`^${hits.length} notes? in both stores for “порт”, best first\\.$`));
    // The page shows what search() returns, in its order, scores to 2 decimals.
    const api = await page.evaluate(() => window.mnemo.memory.search("порт"));
    assert.deepEqual(hits.map((h) => h.text), api.map((h) => h.text));
    assert.ok(hits[0].meta.endsWith(`score ${api[0].score.toFixed(2)}`));

    // Only USER.md: it has no such note.
    const user = await searchAndWait("порт", "user");
    assert.deepEqual(user.hits, []);
    assert.match(user.status, /^No note in USER PROFILE matches “порт”\.$/);
    assert.equal(await page.locator("#search-results").isVisible(), false);

    // The tool's search action answers the same notes.
    const r = await rawCall({ action: "search", query: "порт" });
    assert.equal(r.success, "true");
    assert.equal(JSON.parse(r.json).results[0].text, russian);
  });

  test("recall shows each score's parts; pin and importance change the ranking", { timeout: TIMEOUT }, async () => {
    await rawCall({
      operations: [
        { action: "add", target: "memory", content: "Backups run nightly with restic", importance: 0.3, category: "project" },
        { action: "add", target: "memory", content: "Backups of the database run hourly", importance: 0.8, category: "decision" },
      ],
    });
    async function recallAndWait(query) {
      await page.fill("#recall-query", query);
      const before = Number(await page.locator("#recall-output").getAttribute("data-seq"));
      await page.click("#recall-run");
      await page.locator(`#recall-output[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
      return {
        status: await text("#recall-status"),
        hits: await page.$$eval("#recall-results li", (lis) =>
          lis.map((li) => ({
            meta: li.querySelector(".hit-meta").textContent,
            text: li.querySelector(".entry-text").textContent,
            explain: li.querySelector(".hit-explain").textContent,
          })),
        ),
      };
    }
    const first = await recallAndWait("backups run");
    assert.match(first.status, /^2 notes for “backups run”, ranked by keyword\./);
    assert.equal(first.hits[0].text, "Backups of the database run hourly");
    assert.match(first.hits[0].meta, /\[decision\] · importance 0\.80/);
    assert.match(first.hits[0].explain, /^\(keyword 0\.\d+ \(BM25 [\d.]+\) \+0\.06 importance\) × decay 1\.00 \(0\.0 days old\) = /);
    // Pinning the low one puts it first.
    await page.getByRole("button", { name: "Pin MEMORY note “Backups run nightly with restic”" }).click();
    await page.locator("#recall-status", { hasText: "Pinned." }).waitFor();
    const pinned = await recallAndWait("backups run");
    assert.equal(pinned.hits[0].text, "Backups run nightly with restic");
    assert.match(pinned.hits[0].meta, /importance 1\.00 · relevance [\d.]+ · 📌 pinned/);
    assert.match(pinned.hits[0].explain, /pinned: none/);
    // Importance set from the result list.
    await page.getByRole("spinbutton", { name: "Importance of MEMORY note “Backups of the database run hourly”" }).fill("0.2");
    await page.getByRole("button", { name: "Set importance of MEMORY note “Backups of the database run hourly”" }).click();
    await page.locator("#recall-status", { hasText: "Importance 0.2 set on 1 entry." }).waitFor();
    const lowered = await recallAndWait("backups run");
    assert.match(lowered.hits[1].meta, /importance 0\.20/);
    // A filter that leaves nothing says so.
    await page.fill("#recall-min", "0.5");
    await page.selectOption("#recall-category", "decision");
    const none = await recallAndWait("backups run");
    assert.match(none.status, /^Nothing recalled for “backups run” \(keyword\)\./);
  });

  test("the context of a message holds the matching note and a note linked to it", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    const backups = sample("Backups #ops");
    // Links to [[Backups]]; shares no word with the message.
    const linked = sample("Резервные копии проверяем");
    assert.ok(linked.includes("[[Backups]]"));
    const c = await contextAndWait("When do the restic snapshots run?");
    assert.ok(c.visible);
    assert.equal(c.empty, null);
    assert.ok(c.block.startsWith("<memory-context>\n" + backups + "\n§\n"), c.block);
    assert.ok(c.block.endsWith("\n</memory-context>"));
    assert.ok(c.block.includes(linked), "the note linking to the match is attached too");
    assert.ok(!c.block.includes(sample("Alice Chen #people")), "unrelated notes stay out");
    // Exactly what context() returns.
    const api = await page.evaluate(() => window.mnemo.memory.context("When do the restic snapshots run?"));
    assert.equal(c.block, api);
    assert.match(c.status, /^Append this block to the user's message: \d+ notes, [\d,]+ chars\.$/);
  });

  test("the context is empty while every store fits in the prompt, and says why", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "memory", content: "Staging SSH listens on port 2222" });
    const c = await contextAndWait("Which port does staging SSH use?");
    assert.equal(c.block, "");
    assert.equal(c.visible, false);
    assert.equal(c.empty, "fits");
    assert.match(c.status, /^Empty: every store still fits in the prompt/);
    assert.equal(await page.evaluate(() => window.mnemo.memory.context("Which port does staging SSH use?")), "");

    // Once MEMORY is searched, an empty context means nothing matched.
    await loadSamples();
    const none = await contextAndWait("zxqv");
    assert.equal(none.block, "");
    assert.equal(none.empty, "no-match");
    assert.match(none.status, /^Empty: nothing matched\. No note in the searched store MEMORY \(MEMORY\.md\)/);
    // The next message that matches replaces the explanation with the block.
    const some = await contextAndWait("Who is on call on even weeks?");
    assert.ok(some.visible);
    assert.ok(some.block.includes(sample("Ivan Petrov #people")));
  });
});

describe("persistence", () => {
  test("a note added through the form is still there after a reload, kept in OPFS", { timeout: TIMEOUT }, async () => {
    const r = await formCall({ action: "add", target: "memory", content: "Survives a reload" });
    assert.equal(r.success, "true");
    await page.reload();
    await pageReady();
    assert.deepEqual(await entries("memory"), ["Survives a reload"]);
    assert.equal(await text("#store-memory-count"), "1 entry");
    assert.equal(await storageShown(), "opfs");
    assert.match(await text("#storage-text"), /^Your memory is saved in this browser \(OPFS\)/);
    assert.equal(await page.evaluate(async () => (await window.mnemo.memory.status()).storage), "opfs");
    // The reloaded page's session starts from the saved stores.
    assert.ok((await text("#system-prompt")).includes("Survives a reload"));
  });

  test("Delete this memory asks first, removes every byte and opens a fresh memory", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "memory", content: "Delete me" });
    await formCall({ action: "add", target: "user", content: "User is about to start over" });
    assert.equal((await searchAndWait("Delete me")).hits.length, 1);
    await page.evaluate(() => (window.before = window.mnemo.memory));

    // Dismissing the question changes nothing.
    const questions = [];
    page.once("dialog", (d) => {
      questions.push(`${d.type()}: ${d.message()}`);
      d.dismiss();
    });
    await page.click("#delete-memory");
    assert.equal(questions.length, 1);
    assert.match(questions[0], /^confirm: Delete this memory \("demo"\)\? .*cannot be undone/);
    assert.equal(await page.locator("#delete-result").isVisible(), false);
    assert.deepEqual(await entries("memory"), ["Delete me"]);

    page.once("dialog", (d) => d.accept());
    await page.click("#delete-memory");
    // The result appears once the fresh memory is open and shown.
    await page.locator("#delete-result", { hasText: "Deleted" }).waitFor();
    assert.ok(await page.locator("#delete-memory").isEnabled());
    assert.equal(await text("#delete-result"), "Deleted: every byte of this memory was removed from OPFS.");
    assert.deepEqual(await entries("memory"), []);
    assert.deepEqual(await entries("user"), []);
    assert.equal(await text("#store-memory-count"), "0 entries");
    assert.equal(await text("#store-user-count"), "0 entries");
    await sectorsReady(0);
    assert.equal(await storageShown(), "opfs");
    // Nothing of the deleted notes stays on screen.
    assert.equal(await page.locator("#search-results").isVisible(), false);
    assert.equal(await page.locator("#tool-result-body").isVisible(), false);
    assert.equal(await text("#system-prompt"), "");
    assert.match(await text("#session-info"), /^Session 2/);
    // window.mnemo follows the new instance; the old one is closed.
    const handles = await page.evaluate(async () => ({
      replaced: window.mnemo.memory !== window.before,
      oldCode: await window.before.status().then(() => null, (e) => e.code),
      files: await window.mnemo.memory.exportMarkdown(),
    }));
    assert.deepEqual(handles, { replaced: true, oldCode: "closed", files: { "MEMORY.md": "", "USER.md": "" } });

    // The fresh memory works, and after a reload the deleted notes are still gone.
    assert.equal((await formCall({ action: "add", target: "memory", content: "A new start" })).success, "true");
    await page.reload();
    await pageReady();
    assert.deepEqual(await entries("memory"), ["A new start"]);
    assert.deepEqual(await entries("user"), []);
    assert.equal((await searchAndWait("Delete me")).hits.length, 0);
  });
});

describe("sectors panel", () => {
  test("the sectors panel lists the sample's sectors with the counts of sectors()", { timeout: TIMEOUT }, async () => {
    // Empty memory: no sectors, and the summary says so in the CLI's words.
    await sectorsReady(0);
    assert.deepEqual(await sectorsSummary(), [
      "0 sectors · 0 memories · 0 note↔note links",
      "0/0 notes are linked to another note (0%)",
    ]);
    assert.ok(await page.locator("#sectors-empty").isVisible());
    assert.deepEqual(await sectorsListed(), []);

    await loadSamples();
    await sectorsReady(SAMPLE_NOTES.length);
    const api = await apiSectors();
    const listed = await sectorsListed();
    assert.deepEqual(listed.map((s) => s.name), api.sectors.map((s) => s.name));
    assert.ok(listed.some((s) => s.name === "infra"));
    assert.equal(listed.at(-1).name, "unsorted", "unsorted comes last");
    const max = Math.max(...api.sectors.map((s) => s.count));
    for (const [i, sector] of api.sectors.entries()) {
      const shown = listed[i];
      assert.equal(shown.heading, sector.name);
      assert.equal(shown.count, sector.count);
      assert.equal(shown.stats, `◆${sector.count} ⇄${sector.links}`);
      // The bar is drawn with CSS, in proportion to the largest sector.
      assert.ok(Math.abs(shown.bar - sector.count / max) < 0.05, `${sector.name}: bar ${shown.bar}`);
      assert.deepEqual(shown.entries.map(({ flagTitle, ...e }) => e), sector.entries.map((e) => ({
        node: e.node,
        title: e.title,
        links: `→${e.out} ←${e.in}`,
        flag: e.dangling.length ? `⚑${e.dangling.length}` : null,
        inherited: e.inherited,
        pinned: e.pinned,
      })));
      // The ⚑ flag's title lists the missing targets.
      for (const [j, e] of sector.entries.entries()) {
        for (const missing of e.dangling) assert.ok(shown.entries[j].flagTitle.includes(missing));
      }
    }
    assert.equal(listed.flatMap((s) => s.entries).length, SAMPLE_NOTES.length, "every note is listed");
    // The pinned note has no sector tag of its own: it inherits one through its link.
    const rules = listed.flatMap((s) => s.entries).find((e) => e.title === "Ground rules");
    assert.ok(rules.pinned && rules.inherited);

    const s = api.summary;
    assert.equal(s.memories, SAMPLE_NOTES.length);
    const summary = await sectorsSummary();
    assert.equal(summary[0], `${s.sectors} sectors · ${s.memories} memories · ${s.links} note↔note links`);
    assert.match(summary[0], /^\d+ sectors · 40 memories · \d+ note↔note links$/);
    assert.equal(summary[1], `${s.linked}/${s.memories} notes are linked to another note (${Math.round((s.linked * 100) / s.memories)}%)`);
    // The filter offers every sector.
    const options = await page.$$eval("#sectors-filter option", (os) => os.map((o) => o.value));
    assert.deepEqual(options, ["", ...api.sectors.map((x) => x.name)]);
    // The default listing (12 notes a sector) is the same report, cut short.
    const byDefault = await apiSectors(undefined);
    assert.deepEqual(byDefault.summary, s);
  });

  test("every note's links in the detail view agree with the report's →out ←in", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    await sectorsReady(SAMPLE_NOTES.length);
    const api = await apiSectors();
    const titles = new Map(api.sectors.flatMap((s) => s.entries).map((e) => [e.node, e.title]));
    let links = 0;
    for (const entry of api.sectors.flatMap((s) => s.entries)) {
      const note = await openFromList(entry.node);
      assert.equal(note.title, entry.title);
      assert.equal(note.text, SAMPLE_NOTES[entry.index], `text of ${entry.node}`);
      assert.equal(note.out.length, entry.out, `→ of ${entry.title}`);
      assert.equal(note.in.length, entry.in, `← of ${entry.title}`);
      assert.deepEqual(note.dangling, entry.dangling);
      for (const t of [...note.out, ...note.in]) assert.ok([...titles.values()].includes(t));
      links += note.out.length;
      await page.click("#sector-note-back");
      await page.locator("#sector-note").waitFor({ state: "hidden" });
    }
    assert.equal(links, api.summary.links);
  });

  test("filtering the sectors to one narrows the list, keeps the summary, and follows writes", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    await sectorsReady(SAMPLE_NOTES.length);
    const summary = await sectorsSummary();
    await filterSectors("people");
    const people = await apiSectors({ sector: "people" });
    assert.equal(people.sectors.length, 1);
    const listed = await sectorsListed();
    assert.deepEqual(listed.map((s) => s.name), ["people"]);
    assert.equal(listed[0].count, people.sectors[0].count);
    assert.deepEqual(listed[0].entries.map((e) => e.title), people.sectors[0].entries.map((e) => e.title));
    assert.deepEqual(await sectorsSummary(), summary, "the summary stays whole-graph");

    // A write refreshes the panel; the filter stays.
    const r = await formCall({ action: "add", target: "user", content: "Bob Stone #people\nPairs with [[alice   CHEN]] on billing." });
    assert.equal(r.success, "true");
    await sectorsReady(SAMPLE_NOTES.length + 1);
    assert.equal(await page.inputValue("#sectors-filter"), "people");
    const after = await apiSectors({ sector: "people", limit: 100_000 });
    const now = await sectorsListed();
    assert.deepEqual(now.map((s) => s.name), ["people"]);
    assert.equal(now[0].count, after.sectors[0].count);
    const bob = now[0].entries.find((e) => e.title === "Bob Stone");
    assert.match(bob.node, /^memory:user:e\d+$/, "node ids end with the stable entry id");
    assert.equal(bob.links, "→1 ←0");
    assert.equal(now[0].entries.find((e) => e.title === "Alice Chen").links, `→0 ←${entryOf(after, "Alice Chen").in}`);
    assert.equal((await sectorsSummary())[0],
      `${after.summary.sectors} sectors · ${after.summary.memories} memories · ${after.summary.links} note↔note links`);

    await filterSectors("");
    assert.equal((await sectorsListed()).length, (await apiSectors()).sectors.length);
  });

  test("a note shows its text and its links both ways, and the links move to other notes", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    await sectorsReady(SAMPLE_NOTES.length);
    const api = await apiSectors();
    const monitoring = entryOf(api, "Monitoring");
    assert.ok(monitoring.out > 0 && monitoring.in > 0, "Monitoring links out and is linked to");

    const note = await openFromList(monitoring.node);
    assert.ok(note.visible);
    assert.equal(note.title, "Monitoring");
    assert.equal(note.text, sample("Monitoring #infra"));
    assert.deepEqual(note.out, ["Logging"]);
    assert.deepEqual(note.in, ["Production cluster", "Сервер мониторинга слушает портами 9090 и 9093"]);
    assert.equal(note.in.length, monitoring.in);
    assert.equal(await page.locator("#sector-note-out-heading").textContent(), "Links to (→)");
    assert.equal(await page.locator("#sector-note-in-heading").textContent(), "Linked from (←)");
    assert.match(await text("#sector-note-meta"), /^MEMORY · entry 6 \(index 5\) · sector infra · memory:memory:e\d+$/);
    assert.equal(await page.evaluate(() => document.activeElement.id), "sector-note-title");
    assert.equal(await page.locator("#sectors-list").isVisible(), false);
    assert.ok(await page.locator("#sectors-summary").isVisible());

    // Backwards: to a note that links here; it links forward to Monitoring.
    const cluster = await followLink("in", "Production cluster");
    assert.equal(cluster.title, "Production cluster");
    assert.equal(cluster.text, sample("Production cluster #infra"));
    assert.deepEqual(cluster.out, ["Deploy procedure", "Monitoring"]);
    assert.deepEqual(cluster.in, ["Load balancer", "API service"]);
    // Forwards, by keyboard: back to Monitoring.
    await page.focus('#sector-note-out button.note-link:has-text("Monitoring")');
    await page.keyboard.press("Enter");
    await page.locator(`#sector-note[data-node="${monitoring.node}"]`).waitFor();
    assert.equal((await noteShown()).title, "Monitoring");
    // Forwards again, then Escape returns to the list with the open note's entry focused.
    const logging = await followLink("out", "Logging");
    assert.deepEqual(logging.out, []);
    assert.deepEqual(logging.in, ["Monitoring"]);
    await page.keyboard.press("Escape");
    await page.locator("#sector-note").waitFor({ state: "hidden" });
    assert.ok(await page.locator("#sectors-list").isVisible());
    assert.equal(await page.evaluate(() => document.activeElement.dataset.node), logging.node);
  });

  test("a dangling link is flagged with ⚑ and is not a link to follow", { timeout: TIMEOUT }, async () => {
    await loadSamples();
    await sectorsReady(SAMPLE_NOTES.length);
    const api = await apiSectors();
    const incident = entryOf(api, "Incident process");
    assert.deepEqual(incident.dangling, ["Incident runbook"]);
    const listed = (await sectorsListed()).flatMap((s) => s.entries).find((e) => e.node === incident.node);
    assert.equal(listed.flag, "⚑1");
    assert.match(listed.flagTitle, /Incident runbook/);
    assert.equal(api.summary.dangling, 1);
    assert.ok((await sectorsSummary()).includes("⚑ 1 link points at notes that don't exist yet"));

    const note = await openFromList(incident.node);
    assert.deepEqual(note.out, []);
    assert.deepEqual(note.dangling, ["Incident runbook"]);
    const item = page.locator("#sector-note-out li.dangling");
    assert.match(await item.textContent(), /^⚑ Incident runbook/);
    assert.match(await item.getAttribute("title"), /No note is titled “Incident runbook” yet/);
    assert.equal(await item.locator("button, a").count(), 0, "nothing to follow");
  });
});

describe("pending panel", () => {
  /** Waits until the panel's badge shows `n`. */
  const badgeIs = (n) => page.locator(`#pending-badge[data-count="${n}"]`).waitFor({ state: "attached" });
  /** Runs a click in the pending panel and waits for the outcome it reports. */
  async function pendingAction(act) {
    const before = Number((await page.locator("#pending").getAttribute("data-seq")) ?? 0);
    await act();
    await page.locator(`#pending[data-seq="${before + 1}"]`).waitFor({ state: "attached" });
    return text("#pending-status");
  }
  const listed = () => page.$$eval("#pending-list li", (lis) => lis.map((li) => [li.dataset.id, li.dataset.state, li.querySelector(".entry-text").textContent]));

  test("writes are staged while approval is on, and approved, edited or rejected from the panel", { timeout: TIMEOUT }, async () => {
    assert.equal(await page.locator("#approval-toggle").isChecked(), false);
    assert.equal(await text("#pending-badge"), "0");
    assert.ok(await page.locator("#pending-empty").isVisible());
    assert.match(await pendingAction(() => page.click("#approval-toggle")), /Write approval is on/);
    assert.equal(await text("#approval-source"), "(switched here; kept with this memory)");

    const staged = await formCall({ action: "add", target: "memory", content: "Deploys on Fridays" });
    assert.equal(staged.success, "true");
    assert.equal(staged.badge, "staged · p1");
    assert.match(staged.message, /Staged for the user's approval/);
    assert.match(await text("#tool-result-notification"), /awaiting your approval \(p1\)/);
    await formCall({ action: "add", target: "memory", content: "Uses zsh" });
    await formCall({ action: "add", target: "user", content: "Likes tea" });
    await badgeIs(3);
    assert.deepEqual(await listed(), [
      ["p1", "pending", "Memory ➕ Deploys on Fridays"],
      ["p2", "pending", "Memory ➕ Uses zsh"],
      ["p3", "pending", "User profile ➕ Likes tea"],
    ]);
    assert.deepEqual(await entries("memory"), [], "nothing staged is in the stores");

    // Staged writes survive a reload.
    await page.reload();
    await pageReady();
    await badgeIs(3);
    assert.equal(await page.locator("#approval-toggle").isChecked(), true);

    // Edit, then approve.
    const first = page.locator('#pending-list li[data-id="p1"]');
    await first.getByRole("button", { name: "Edit p1 before approving" }).click();
    await first.locator("textarea").fill("Deploys on Thursdays");
    assert.match(await pendingAction(() => first.getByRole("button", { name: "Approve edited" }).click()), /^Applied p1\. 💾 Memory updated$/);
    assert.deepEqual(await entries("memory"), ["Deploys on Thursdays"]);
    await badgeIs(2);
    assert.match(await pendingAction(() => page.getByRole("button", { name: "Reject p2" }).click()), /^Rejected p2; its text is kept in the history\.$/);
    await badgeIs(1);
    assert.match(await pendingAction(() => page.click("#approve-all")), /^Applied p3\./);
    assert.deepEqual(await entries("user"), ["Likes tea"]);
    await badgeIs(0);
    assert.ok(await page.locator("#pending-empty").isVisible());
    assert.equal(await page.locator("#pending-all").isVisible(), false);

    // Switched off: writes apply at once again.
    assert.match(await pendingAction(() => page.click("#approval-toggle")), /Write approval is off/);
    const direct = await formCall({ action: "add", target: "memory", content: "Uses fish" });
    assert.equal(direct.badge, "success");
    await badgeIs(0);
  });

  test("a write that no longer applies stays for review; reject all clears the queue", { timeout: TIMEOUT }, async () => {
    await formCall({ action: "add", target: "memory", content: "Port 2222 for staging" });
    await pendingAction(() => page.click("#approval-toggle"));
    await formCall({ action: "replace", target: "memory", old_text: "2222", content: "Port 2200 for staging" });
    await formCall({ action: "add", target: "memory", content: "Backups at 03:00" });
    await badgeIs(2);
    // The entry changes (approval is off for this write) before the user approves.
    await page.evaluate(async () => {
      const m = window.mnemo.memory;
      await m.setApproval(false);
      await m.tool({ action: "replace", target: "memory", old_text: "2222", content: "Port 22 for staging" });
      await m.setApproval(true);
    });
    const outcome = await pendingAction(() => page.click("#approve-all"));
    assert.match(outcome, /Applied p2\./);
    assert.match(outcome, /p1 not applied \(no-match\)/);
    assert.deepEqual(await listed(), [["p1", "needs_review", 'Memory ✏️ "Port 2222 for staging" → "Port 2200 for staging"']]);
    assert.match(await text('#pending-list li[data-id="p1"] .warning'), /^Not applied: .*2222/);
    assert.match(await pendingAction(() => page.click("#reject-all")), /^Rejected p1;/);
    await badgeIs(0);
  });

  test("the review runs in the OPFS worker with the page's llm, and a cancel interrupts a hanging one", { timeout: TIMEOUT }, async () => {
    const result = await page.evaluate(async () => {
      const m = window.mnemo.memory;
      await m.setApproval(true);
      const transcript = [{ role: "user", content: "I always use vim keybindings." }];
      let step = 0;
      const seen = [];
      const report = await m.review({
        transcript,
        sameModel: false,
        llm: async ({ messages, tools }) => {
          seen.push([messages.length, tools[0].function.name]);
          return step++ === 0
            ? { tool_calls: [{ id: "c1", type: "function", function: { name: "memory", arguments: JSON.stringify({ action: "add", target: "user", content: "Uses vim keybindings" }) } }] }
            : { content: "Saved.", usage: { input_tokens: 3, output_tokens: 1 } };
        },
      });
      const count = m.pendingCount();
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const cancelled = await m.review({ transcript, llm: () => new Promise(() => {}), signal: controller.signal });
      const failed = await m.review({ transcript, llm: () => { throw new Error("model offline"); } });
      let refused = null;
      await m.review({ transcript, llm: "gpt" }).catch((e) => (refused = e.code));
      return { report, count, seen, cancelled: cancelled.stopped, failed: [failed.stopped, failed.error], refused, pending: await m.pending() };
    });
    assert.equal(result.report.stopped, "done");
    assert.deepEqual(result.report.staged, ["p1"]);
    assert.equal(result.report.digest, true);
    assert.equal(result.report.message, "Saved.");
    assert.deepEqual(result.seen, [[2, "memory"], [4, "memory"]]);
    assert.equal(result.count, 1);
    assert.equal(result.cancelled, "cancelled");
    assert.equal(result.failed[0], "error");
    assert.match(result.failed[1], /model offline/);
    assert.equal(result.refused, "invalid-input");
    assert.equal(result.pending[0].origin, "review");
    // The panel follows at its next refresh (after any call the page makes).
    await page.click("#start-session");
    await badgeIs(1);
    await pendingAction(() => page.click("#approve-all"));
    assert.deepEqual(await entries("user"), ["Uses vim keybindings"]);
  });

  test("an embedder given to an OPFS memory stays in the page; recall crosses with its mode", { timeout: TIMEOUT }, async () => {
    const result = await page.evaluate(async () => {
      const { Memory } = window.mnemo;
      const AXES = [["rate", "limiting", "throttling"], ["database", "postgres"]];
      const seen = [];
      const embed = async (texts) => {
        seen.push(texts.length);
        return texts.map((t) => {
          const v = new Float32Array(AXES.length + 1);
          for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) {
            const i = AXES.findIndex((axis) => axis.includes(w));
            if (i >= 0) v[i] += 1;
            else if (w) v[AXES.length] += 0.1;
          }
          return v;
        });
      };
      const name = `embed-${Date.now()}`;
      const m = await Memory.open({ storage: "opfs", name, embedder: { model: "concepts-v1", dimensions: 3, embed } });
      await m.tool({ action: "add", target: "memory", content: "Rate limiting is 100 requests/min", importance: 0.9, category: "decision" });
      await m.tool({ action: "add", target: "memory", content: "The database is Postgres 16" });
      const hybrid = await m.recall("throttling", { explain: true });
      const status = (await m.status()).recall;
      await m.close();
      const failing = await Memory.open({ storage: "opfs", name, embedder: { model: "other", dimensions: 3, embed: () => { throw new Error("service down"); } } });
      const keyword = await failing.recall("rate limiting");
      await failing.close();
      let refused = null;
      await Memory.open({ storage: "opfs", name, embedder: { model: "m", dimensions: 3 } }).catch((e) => (refused = e.code));
      let refusedFn = null;
      await Memory.open({ storage: "opfs", name, embedder: embed }).catch((e) => (refusedFn = e.code));
      return {
        hybrid: { isArray: Array.isArray(hybrid), mode: hybrid.mode, skipped: hybrid.skipped, first: hybrid[0], length: hybrid.length },
        keyword: { mode: keyword.mode, skipped: keyword.skipped, first: keyword[0]?.content },
        status,
        seen,
        refused,
        refusedFn,
      };
    });
    assert.equal(result.hybrid.isArray, true);
    assert.equal(result.hybrid.mode, "hybrid");
    assert.equal(result.hybrid.skipped, undefined);
    assert.match(result.hybrid.first.content, /^Rate limiting/);
    assert.equal(result.hybrid.first.category, "decision");
    assert.ok(result.hybrid.first.explain.semantic > 0.9);
    assert.equal(result.status, "hybrid (concepts-v1, 3 dimensions)");
    // The two entries, then the query: each batch was one round trip to the page.
    assert.deepEqual(result.seen, [2, 1]);
    assert.equal(result.keyword.mode, "keyword");
    assert.match(result.keyword.skipped, /service down/);
    assert.match(result.keyword.first, /^Rate limiting/);
    assert.equal(result.refused, "invalid-config");
    assert.equal(result.refusedFn, "invalid-config");
  });
});

describe("star map", () => {
  /** The notes of the star map tests: ops (Alpha ↔ Beta), dev (Gamma → Alpha, ⚑), Delta unsorted in USER. */
  const NOTES = [
    { target: "memory", content: "Alpha #ops\nRuns the nightly job; see [[Beta]]." },
    { target: "memory", content: "Beta #ops\nStarted by [[Alpha]] at 02:00." },
    { target: "memory", content: "Gamma #dev\nDepends on [[Alpha]] and on [[Missing manual]]." },
    { target: "user", content: "Delta\nPrefers short answers." },
  ];

  /** Adds the notes through the form, one call each (so each has its own first_seen). */
  async function addNotes(notes = NOTES) {
    for (const { target, content } of notes) {
      const r = await formCall({ action: "add", target, content });
      assert.equal(r.success, "true", r.message);
    }
  }

  /** What the page's memory answers: the journey and the whole sectors report. */
  const payloads = () => page.evaluate(async () => ({
    journey: await window.mnemo.memory.journey(),
    report: await window.mnemo.memory.sectors({ limit: 100_000 }),
  }));

  /** The drawn map: stars, sector labels, links, and what the svg says it shows. */
  function mapShown() {
    return page.$eval("#starmap-svg", (svg) => ({
      hidden: svg.hasAttribute("hidden"),
      step: svg.dataset.step,
      stars: [...svg.querySelectorAll(".starmap-star")].map((g) => ({
        node: g.dataset.node,
        kind: g.dataset.kind,
        sector: g.dataset.sector,
        shown: g.getAttribute("display") !== "none",
        label: g.getAttribute("aria-label"),
        shape: g.querySelector(".starmap-body").tagName,
        pinned: g.querySelector(".starmap-pin") !== null,
      })),
      labels: [...svg.querySelectorAll(".starmap-label")].map((t) => t.textContent),
      groups: [...svg.querySelectorAll(".starmap-sector")].map((g) => g.getAttribute("aria-label")),
      links: [...svg.querySelectorAll(".starmap-link")].map((p) => ({
        from: p.dataset.from,
        to: p.dataset.to,
        both: p.dataset.both === "true",
        start: p.getAttribute("marker-start"),
        end: p.getAttribute("marker-end"),
        shown: p.getAttribute("display") !== "none",
      })),
      visible: Number(svg.dataset.stars),
    }));
  }

  /** The node id of the journey node titled `title`. */
  function idOf(journey, title) {
    const node = journey.nodes.find((n) => n.title === title);
    assert.ok(node, `no node titled ${title}`);
    return node.id;
  }

  const star = (id) => page.locator(`#starmap-svg .starmap-star[data-node="${id}"]`);

  test("one star per node in its sector, labelled, with links drawn both ways", { timeout: TIMEOUT }, async () => {
    // Empty memory: no map, a hint, nothing to replay.
    assert.equal((await mapShown()).hidden, true);
    assert.ok(await page.locator("#starmap-empty").isVisible());
    assert.equal(await page.locator("#starmap-play").isDisabled(), true);

    await addNotes();
    const { journey, report } = await payloads();
    const map = await mapShown();
    assert.equal(map.hidden, false);
    assert.equal(await page.locator("#starmap-empty").isVisible(), false);
    // One star per journey node, in the sector sectors() files it in.
    assert.equal(map.stars.length, journey.nodes.length);
    const sectorOf = new Map(report.sectors.flatMap((s) => s.entries.map((e) => [e.node, s.name])));
    for (const s of map.stars) {
      assert.equal(s.sector, sectorOf.get(s.node), `sector of ${s.node}`);
      assert.equal(s.kind, "note");
      assert.equal(s.shape, "circle");
      assert.equal(s.shown, true);
    }
    // One labelled cluster per sector, in the report's order.
    assert.deepEqual(map.labels, report.sectors.map((s) => s.name));
    assert.deepEqual(map.labels, ["ops", "dev", "unsorted"]);
    assert.deepEqual(map.groups, ["Sector ops: 2 notes", "Sector dev: 1 note", "Sector unsorted: 1 note"]);

    const [alpha, beta, gamma, delta] = ["Alpha", "Beta", "Gamma", "Delta"].map((t) => idOf(journey, t));
    // Alpha ↔ Beta: one line with a head at each end; Gamma → Alpha: one head, at Alpha.
    const pair = (a, b) => map.links.find((l) => (l.from === a && l.to === b) || (l.from === b && l.to === a));
    const ab = pair(alpha, beta);
    assert.equal(ab.both, true);
    assert.ok(ab.start && ab.end && ab.start === ab.end, "both ends have an arrowhead");
    const ga = pair(gamma, alpha);
    assert.deepEqual([ga.from, ga.to, ga.both, ga.start], [gamma, alpha, false, null]);
    assert.match(ga.end, /^url\(#starmap-svg-arrow-plain\)$/);
    assert.equal(pair(delta, alpha), undefined);
    assert.equal(map.links.reduce((n, l) => n + (l.both ? 2 : 1), 0), journey.links);
    assert.equal(journey.links, 3);

    // Every star says what it is, with its links both ways.
    const labelOf = (id) => map.stars.find((s) => s.node === id).label;
    assert.equal(labelOf(alpha), "Alpha: note in MEMORY, sector ops; 1 link out, 2 in");
    assert.equal(labelOf(gamma), "Gamma: note in MEMORY, sector dev; 1 link out, 0 in; ⚑ 1 link to notes that don't exist yet");
    assert.equal(labelOf(delta), "Delta: note in USER, sector unsorted; 0 links out, 0 in");

    // Hovering shows a card with the title, sector and counts.
    await star(alpha).hover();
    const tip = page.locator("#starmap-tip");
    await tip.waitFor();
    assert.equal(await tip.getAttribute("data-node"), alpha);
    assert.match(await tip.textContent(), /^Alpha.*note in MEMORY · sector ops.*→1 out · ←2 in.*first seen /);

    // Clicking lights up the star's neighbours and says who they are.
    await star(alpha).click();
    assert.equal(await star(alpha).getAttribute("aria-pressed"), "true");
    const lit = await page.$$eval("#starmap-svg .starmap-star.is-neighbour", (gs) => gs.map((g) => g.dataset.node).sort());
    assert.deepEqual(lit, [beta, gamma].sort());
    assert.equal(await page.locator("#starmap-svg .starmap-link.is-lit").count(), 2);
    assert.match(await page.locator("#starmap-svg").getAttribute("class"), /has-selection/);
    assert.equal(await text("#starmap-info .starmap-out"), "→ links to: Beta");
    assert.equal(await text("#starmap-info .starmap-in"), "← linked from: Beta, Gamma");

    // By keyboard: focus another star, Enter chooses it, Escape lets go.
    await star(delta).focus();
    assert.equal(await tip.getAttribute("data-node"), delta);
    await page.keyboard.press("Enter");
    assert.equal(await star(delta).getAttribute("aria-pressed"), "true");
    assert.equal(await star(alpha).getAttribute("aria-pressed"), "false");
    assert.equal(await page.locator("#starmap-svg .starmap-star.is-neighbour").count(), 0);
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#starmap-svg .starmap-star.is-selected").count(), 0);
    // Arrows move between stars.
    await page.keyboard.press("Home");
    const first = await page.evaluate(() => document.activeElement.dataset.node);
    await page.keyboard.press("ArrowRight");
    const second = await page.evaluate(() => document.activeElement.dataset.node);
    assert.deepEqual([first, second], map.stars.slice(0, 2).map((s) => s.node));

    // Space chooses the focused star; a chosen note opens in the sectors panel.
    await page.keyboard.press(" ");
    assert.equal(await star(second).getAttribute("aria-pressed"), "true");
    await page.locator("#starmap-info").getByRole("button", { name: "Open Beta in the sectors panel" }).click();
    await page.locator(`#sector-note[data-node="${second}"]`).waitFor();

    // A write refreshes the map: the removed note's star goes, the chosen star stays chosen.
    // (Choosing the chosen star again lets it go.)
    await star(beta).click();
    assert.equal(await star(beta).getAttribute("aria-pressed"), "false");
    await star(alpha).click();
    const removed = await formCall({ action: "remove", target: "user", old_text: "short answers" });
    assert.equal(removed.success, "true");
    const after = await mapShown();
    assert.equal(after.stars.length, journey.nodes.length - 1);
    assert.ok(!after.stars.some((s) => s.node === delta));
    assert.ok(!after.labels.includes("unsorted"));
    assert.equal(await star(alpha).getAttribute("aria-pressed"), "true");
    assert.equal(await text("#starmap-info .starmap-in"), "← linked from: Beta, Gamma");
  });

  test("the scrubber replays the timeline: start, end, and play", { timeout: TIMEOUT }, async () => {
    await addNotes();
    const { journey } = await payloads();
    const steps = [...new Set(journey.nodes.map((n) => n.first_seen))].sort((a, b) => a - b);
    assert.ok(steps.length >= 3, `the notes were written at ${steps.length} distinct times`);
    const range = page.locator("#starmap-time");
    assert.equal(await range.getAttribute("max"), String(steps.length - 1));
    assert.equal(await range.inputValue(), String(steps.length - 1), "the map starts at now");
    assert.equal((await mapShown()).visible, journey.nodes.length);
    assert.match(await text("#starmap-date"), new RegExp(`step ${steps.length} of ${steps.length} · 4 of 4 stars, 3 links$`));

    // To the start: only the first notes, and no link whose other end is not there yet.
    await range.focus();
    await page.keyboard.press("Home");
    let map = await mapShown();
    const early = journey.nodes.filter((n) => n.first_seen <= steps[0]).map((n) => n.id);
    assert.equal(map.step, "0");
    assert.deepEqual(map.stars.filter((s) => s.shown).map((s) => s.node).sort(), early.sort());
    assert.ok(map.visible < journey.nodes.length);
    const shownIds = new Set(early);
    for (const l of map.links) assert.equal(l.shown, shownIds.has(l.from) && shownIds.has(l.to), `${l.from} → ${l.to}`);
    assert.match(await text("#starmap-date"), new RegExp(`step 1 of ${steps.length} · ${early.length} of 4 stars`));
    assert.match(await range.getAttribute("aria-valuetext"), new RegExp(`: ${early.length} stars?$`));
    // Hidden stars cannot be focused.
    const later = journey.nodes.find((n) => n.first_seen > steps[0]).id;
    assert.equal(await star(later).isVisible(), false);

    // To the end: every star.
    await page.keyboard.press("End");
    map = await mapShown();
    assert.equal(map.visible, journey.nodes.length);
    assert.ok(map.links.every((l) => l.shown));

    // Play from the end starts over and steps forward to now, then stops.
    await range.fill("0");
    assert.equal((await mapShown()).visible, early.length);
    await page.click("#starmap-play");
    assert.equal(await page.locator("#starmap-play").getAttribute("data-playing"), "true");
    assert.equal(await text("#starmap-play"), "⏸ Pause");
    await page.locator('#starmap-svg:not([data-step="0"])').waitFor({ state: "attached" });
    assert.ok(Number(await range.inputValue()) > 0, "the scrubber moves with the replay");
    await page.locator('#starmap-play[data-playing="false"]').waitFor({ state: "attached", timeout: 15_000 });
    assert.equal(await range.inputValue(), String(steps.length - 1));
    assert.equal((await mapShown()).visible, journey.nodes.length);
    assert.equal(await text("#starmap-play"), "▶ Play");

    // Pause stops it where it is.
    await page.click("#starmap-play");
    await page.locator('#starmap-svg[data-step="1"]').waitFor({ state: "attached" });
    await page.click("#starmap-play");
    const paused = await range.inputValue();
    await page.waitForTimeout(1_000);
    assert.equal(await range.inputValue(), paused);
    assert.equal(await page.locator("#starmap-play").getAttribute("data-playing"), "false");
  });

  test("starmap.js draws skills, pinned and blocked notes, the same each time", { timeout: TIMEOUT }, async () => {
    // A hand-made payload with skills (the core's journey() gives none yet here).
    const drawn = await page.evaluate(async () => {
      const m = await import("./starmap.js");
      const node = (id, extra) => ({ id, kind: "note", target: "memory", index: 0, title: id, sector: "ops", first_seen: 1,
        last_changed: 1, out: [], in: [], dangling: [], pinned: false, blocked: false, ...extra });
      const journey = {
        nodes: [
          node("n1", { title: "Runbook", out: ["deploy"], in: ["deploy"], pinned: true }),
          node("n2", { title: "[BLOCKED entry]", sector: "unsorted", blocked: true, first_seen: 2 }),
          { id: "deploy", kind: "skill", index: 0, title: "deploy", description: "Ships a release", sector: "ops", first_seen: 3,
            last_changed: 3, out: ["n1"], in: ["n1"], dangling: [], pinned: false, blocked: false },
        ],
        links: 2,
        skill_links: 2,
      };
      const report = { sectors: [{ name: "ops", entries: [{ node: "n1" }] }, { name: "unsorted", entries: [{ node: "n2" }] }] };
      const draw = () => {
        const svg = document.createElementNS(m.SVG_NS, "svg");
        document.body.append(svg);
        m.render(svg, m.layout(journey, report, { width: 500 }), { prefix: "t" });
        const html = svg.outerHTML;
        svg.remove();
        return { svg, html };
      };
      const { svg, html } = draw();
      const g = (id) => svg.querySelector(`[data-node="${id}"]`);
      return {
        same: draw().html === html,
        skill: { kind: g("deploy").dataset.kind, shape: g("deploy").querySelector(".starmap-body").tagName, label: g("deploy").getAttribute("aria-label") },
        pinned: g("n1").querySelector(".starmap-pin") !== null,
        blocked: { cls: g("n2").getAttribute("class"), label: g("n2").getAttribute("aria-label") },
        link: [...svg.querySelectorAll(".starmap-link")].map((p) => [p.getAttribute("class"), p.dataset.both]),
        groups: [...svg.querySelectorAll(".starmap-sector")].map((s) => s.getAttribute("aria-label")),
      };
    });
    assert.equal(drawn.same, true, "same payload, same markup");
    assert.deepEqual(drawn.skill, { kind: "skill", shape: "path", label: "deploy: skill, sector ops; 1 link out, 1 in" });
    assert.equal(drawn.pinned, true);
    assert.match(drawn.blocked.cls, /is-blocked/);
    assert.match(drawn.blocked.label, /^\[BLOCKED entry\]: .*blocked by the security scanner/);
    assert.deepEqual(drawn.link, [["starmap-link is-both is-skill", "true"]]);
    assert.deepEqual(drawn.groups, ["Sector ops: 1 note and 1 skill", "Sector unsorted: 1 note"]);
  });

  // MNEMO_SCREENSHOT=1 node --test tests/page/ writes docs/star-map.png (the README's picture).
  test("screenshot of the star map for the README", { timeout: TIMEOUT * 2, skip: !process.env.MNEMO_SCREENSHOT }, async () => {
    await page.setViewportSize({ width: 1100, height: 1000 });
    await loadSamples();
    await addNotes([
      { target: "memory", content: "Release checklist #ops\nBefore the [[Deploy procedure]]: green [[CI pipeline]], a fresh [[Backups]] snapshot." },
      { target: "user", content: "Prefers dashboards to logs #people\nAsks for [[Monitoring]] links first; see [[Alice Chen]]." },
    ]);
    const { journey } = await payloads();
    await star(idOf(journey, "Production cluster")).click();
    // The panel: legend, timeline, the map (the chosen star's card shows), what it links.
    await page.locator("#starmap").screenshot({ path: path.resolve(WWW, "../docs/star-map.png") });
  });
});
