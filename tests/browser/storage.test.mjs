// Browser storage in a real browser: headless Chromium (Debian's) driven by
// playwright-core against pkg/web served from 127.0.0.1 (a secure context,
// so OPFS works). Scenarios run in a page through "mnemo/browser" (which
// starts its own worker for OPFS) and directly inside a dedicated worker.
//
// Needs the web build: scripts/build-js.sh. Run: node --test tests/browser/

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { checkKilledWorker, killedWorkerTrial, serve, launch, tab as openTab } from "./harness.mjs";

let server, url, browser, context;

before(async () => {
  ({ server, url } = await serve());
  browser = await launch();
  context = await browser.newContext();
});

after(async () => {
  await browser?.close();
  server?.close();
});

const tab = () => openTab(context, url);

/** Runs `fn(arg)` in the page, where `window.mnemo` is mnemo/browser. */
const run = (page, fn, arg) => page.evaluate(fn, arg);

const note = (content) => ({ action: "add", target: "memory", content });

for (const storage of ["opfs", "indexeddb"]) {
  test(`${storage}: write, close, reopen, read back (page)`, async () => {
    const page = await tab();
    const out = await run(
      page,
      async ({ storage, note }) => {
        const { Memory } = window.mnemo;
        const name = `page-${storage}`;
        let m = await Memory.open({ storage, name });
        const r = await m.tool(note);
        await m.remember("Prefers metric units");
        await m.recordTurn({ session: "s1", user: "Which port for staging?", assistant: "Port 2222." });
        await m.close();
        m = await Memory.open({ storage, name });
        const result = {
          ok: r.success,
          status: (await m.status()).storage,
          files: await m.exportMarkdown(),
          hits: await m.sessionSearch("ports"),
          names: await Memory.list(),
        };
        await m.close();
        return result;
      },
      { storage, note: note("Deploys run on Fridays #ops") },
    );
    assert.equal(out.ok, true);
    assert.equal(out.status, storage);
    assert.deepEqual(out.files, { "MEMORY.md": "Deploys run on Fridays #ops", "USER.md": "Prefers metric units" });
    assert.deepEqual(out.hits.map((h) => [h.session, h.seq]).sort(), [["s1", 1], ["s1", 2]]);
    assert.ok(out.names.includes(`page-${storage}`), out.names.join());
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`${storage}: write, close, reopen, read back (dedicated worker)`, async () => {
    const page = await tab();
    const out = await run(
      page,
      (storage) =>
        window.inWorker(`
          const { Memory } = mnemo;
          let m = await Memory.open({ storage: "${storage}", name: "worker-${storage}" });
          await m.tool({ action: "add", target: "user", content: "Lives in Helsinki" });
          await m.recordTurn({ session: "w", user: "Где живёт пользователь?", assistant: "В Хельсинки." });
          await m.close();
          m = await Memory.open({ storage: "${storage}", name: "worker-${storage}" });
          return { status: (await m.status()).storage, files: await m.exportMarkdown(),
                   hits: (await m.sessionSearch("живет")).length,
                   // Deleting from the worker names only what held data.
                   removed: (await Memory.delete("worker-${storage}")).removed };
        `),
      storage,
    );
    assert.deepEqual(out, {
      status: storage,
      files: { "MEMORY.md": "", "USER.md": "Lives in Helsinki" },
      hits: 1,
      removed: [storage],
    });
    await page.close();
  });

  test(`${storage}: a reload right after a write finds it`, async () => {
    const page = await tab();
    await run(
      page,
      async ({ storage, note }) => {
        const m = await window.mnemo.Memory.open({ storage, name: `reload-${storage}` });
        await m.tool(note);
        // No close: the page goes away right after the promise resolved.
      },
      { storage, note: note("Written just before the reload") },
    );
    await page.reload();
    await page.waitForFunction(() => window.ready === true);
    const files = await run(
      page,
      async (storage) => {
        const m = await window.mnemo.Memory.open({ storage, name: `reload-${storage}` });
        return m.exportMarkdown();
      },
      storage,
    );
    assert.equal(files["MEMORY.md"], "Written just before the reload");
    await page.close();
  });

  test(`${storage}: two tabs writing at once lose nothing and see each other`, async () => {
    const [a, b] = [await tab(), await tab()];
    const name = `shared-${storage}`;
    const open = (page) =>
      run(
        page,
        async ({ storage, name }) => {
          window.m = await window.mnemo.Memory.open({ storage, name });
          await window.m.startSession();
          window.frozen = await window.m.systemPrompt();
        },
        { storage, name },
      );
    await open(a);
    await open(b);
    const writes = (page, who) =>
      run(
        page,
        async (who) => {
          const results = [];
          for (let i = 0; i < 12; i++) {
            results.push(window.m.tool({ action: "add", target: "memory", content: `note ${i} from tab ${who}` }));
          }
          return (await Promise.all(results)).every((r) => r.success);
        },
        who,
      );
    const [okA, okB] = await Promise.all([writes(a, "A"), writes(b, "B")]);
    assert.ok(okA && okB);
    // Tab A learns of B's notes (BroadcastChannel) without reopening...
    await a.waitForFunction(
      async () => (await window.m.search("note 11 from tab B")).some((h) => h.text === "note 11 from tab B"),
      null,
      { timeout: 10_000, polling: 100 },
    );
    const seen = await run(a, async () => ({
      entries: (await window.m.exportMarkdown())["MEMORY.md"].split("\n§\n").length,
      // ...while its frozen prompt waits for startSession.
      same: (await window.m.systemPrompt()) === window.frozen,
      fresh: (await window.m.startSession()).includes("from tab B"),
    }));
    assert.deepEqual(seen, { entries: 24, same: true, fresh: true });
    await run(b, () => window.m.close());
    await a.close();
    await b.close();
  });

  test(`${storage}: two tabs writing as two agents lose nothing and the log names each`, async () => {
    const [a, b] = [await tab(), await tab()];
    const name = `agents-${storage}`;
    const open = (page, agent) =>
      run(
        page,
        async ({ storage, name, agent }) => {
          window.m = await window.mnemo.Memory.open({ storage, name, agent });
        },
        { storage, name, agent },
      );
    await open(a, "tab-a");
    await open(b, "tab-b");
    const writes = (page, agent) =>
      run(
        page,
        async (agent) => {
          const results = [];
          for (let i = 0; i < 10; i++) {
            results.push(window.m.tool({ action: "add", target: "memory", content: `${agent} note ${i}` }));
            results.push(window.m.log(`${agent} logged ${i}`));
          }
          return (await Promise.all(results)).every((r) => r.success !== false);
        },
        agent,
      );
    const [okA, okB] = await Promise.all([writes(a, "tab-a"), writes(b, "tab-b")]);
    assert.ok(okA && okB);
    const out = await run(a, async () => {
      const records = [];
      for (const day of await window.m.logDays()) records.push(...(await window.m.readLog(day)));
      return { entries: (await window.m.exportMarkdown())["MEMORY.md"].split("\n§\n"), records };
    });
    assert.equal(out.entries.length, 20);
    for (const agent of ["tab-a", "tab-b"]) {
      for (let i = 0; i < 10; i++) assert.ok(out.entries.includes(`${agent} note ${i}`), `${agent} note ${i}`);
    }
    assert.equal(out.records.length, 40);
    for (const r of out.records) {
      assert.equal(r.agent, r.text.split(" ")[0], JSON.stringify(r));
      assert.equal(r.what, r.text.includes(" note ") ? "memory add" : "note", JSON.stringify(r));
    }
    await run(a, () => window.m.close());
    await run(b, () => window.m.close());
    await a.close();
    await b.close();
  });

  test(`${storage}: a workspace is a database of its own beside the memory`, async () => {
    const page = await tab();
    const out = await run(
      page,
      async (storage) => {
        const { Memory } = window.mnemo;
        const main = await Memory.open({ storage, name: "ws" });
        const work = await Memory.open({ storage, name: "ws", workspace: "work" });
        await main.tool({ action: "add", target: "memory", content: "main fact" });
        await work.tool({ action: "add", target: "memory", content: "work fact" });
        const result = {
          main: (await main.exportMarkdown())["MEMORY.md"],
          work: (await work.exportMarkdown())["MEMORY.md"],
          workspaces: [(await main.status()).workspace, (await work.status()).workspace],
          logs: [(await main.readLog()).length, (await work.readLog()).length],
          listed: (await Memory.list()).filter((n) => n.startsWith("ws")),
        };
        await main.close();
        await work.close();
        result.deleted = (await Memory.delete("ws@work")).removed;
        const again = await Memory.open({ storage, name: "ws" });
        result.mainAfter = (await again.exportMarkdown())["MEMORY.md"];
        await again.close();
        result.bad = await Memory.open({ storage, name: "ws", workspace: "../x" }).then(() => "opened", (e) => e.code);
        result.badDelete = await Memory.delete("ws@../x").then(() => "deleted", (e) => e.code);
        return result;
      },
      storage,
    );
    assert.deepEqual(out, {
      main: "main fact",
      work: "work fact",
      workspaces: [null, "work"],
      logs: [1, 1],
      listed: ["ws", "ws@work"],
      deleted: [storage],
      mainAfter: "main fact",
      bad: "invalid-input",
      badDelete: "invalid-config",
    });
    await page.close();
  });

  test(`${storage}: delete() removes every byte and list() forgets it`, async () => {
    const page = await tab();
    const out = await run(
      page,
      async (storage) => {
        const { Memory } = window.mnemo;
        const m = await Memory.open({ storage, name: "doomed" });
        await m.tool({ action: "add", target: "memory", content: "secret plan" });
        await m.recordTurn({ session: "x", user: "secret?", assistant: "plan." });
        const before = await Memory.list();
        const deleted = await Memory.delete("doomed");
        const afterList = await Memory.list();
        let closedCode = null;
        try {
          await m.status();
        } catch (e) {
          closedCode = e.code;
        }
        const again = await Memory.open({ storage, name: "doomed" });
        const files = await again.exportMarkdown();
        const sessions = await again.sessions();
        await again.close();
        await Memory.delete("doomed");
        const opfs = await navigator.storage.getDirectory();
        let leftover = [];
        try {
          const dir = await opfs.getDirectoryHandle("mnemo");
          for await (const [n] of dir.entries()) leftover.push(n);
        } catch {}
        const dbs = (await indexedDB.databases()).map((d) => d.name);
        return { before, deleted, afterList, closedCode, files, sessions, leftover, dbs };
      },
      storage,
    );
    assert.ok(out.before.includes("doomed"));
    assert.equal(out.deleted.name, "doomed");
    assert.deepEqual(out.deleted.removed, [storage]);
    assert.ok(!out.afterList.includes("doomed"));
    assert.equal(out.closedCode, "closed");
    assert.deepEqual(out.files, { "MEMORY.md": "", "USER.md": "" });
    assert.deepEqual(out.sessions, []);
    assert.ok(!out.leftover.includes("doomed"), out.leftover.join());
    assert.ok(!out.dbs.includes("mnemo:doomed"), out.dbs.join());
    await page.close();
  });
}

test("opfs: curate() runs in the worker with the page's llm and embedder; a cancel interrupts a hanging llm", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const m = await Memory.open({ storage: "opfs", name: `curate-${Date.now()}`, agent: "page", config: { curation: { auto: "manual" } } });
    await m.tool({ action: "add", target: "memory", content: "The staging database runs on port 5432" });
    await m.log("Moved the staging database to port 6543 today", { agent: "ops-bot" });
    await m.log("Alice owns the billing service from now on");
    const seen = [];
    const answers = [
      { facts: [
        { content: "The staging database now runs on port 6543", category: "knowledge", line: 1 },
        { content: "Alice owns the billing service", category: "contact", importance: 0.7, line: 2 },
      ] },
      { decision: "supersede" },
    ];
    const llm = async ({ messages, tools }) => {
      seen.push([messages.length, tools.length, messages[1].content.includes("ops-bot · note")]);
      return { content: JSON.stringify(answers.shift()), usage: { input_tokens: 10, output_tokens: 2 } };
    };
    const embedded = [];
    const embed = async (texts) => {
      embedded.push(texts.length);
      return texts.map(() => new Float32Array([1, 0]));
    };
    const dry = await m.curate({ llm: async () => ({ content: '{"facts": []}' }), dryRun: true });
    const report = await m.curate({ llm });
    const history = await m.history();
    // An embedder lent to one curation: its embed stays in the page too.
    await m.log("Bob owns the search service");
    const withEmbedder = await m.curate({
      llm: async () => ({ content: JSON.stringify({ facts: [{ content: "Bob owns the search service", line: 1 }] }) }),
      embedder: { model: "flat", dimensions: 2, embed },
    });
    const recallAfter = (await m.status()).recall;
    // A cancel reaches the worker while the page's llm hangs.
    await m.log("Carol joined the team");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await m.curate({ llm: () => new Promise(() => {}), signal: controller.signal });
    const aborted = await m.curate({ llm, signal: AbortSignal.abort() });
    let refused = null;
    await m.curate({ llm: "gpt" }).catch((e) => (refused = e.code));
    let refusedSignal = null;
    await m.curate({ signal: "soon" }).catch((e) => (refusedSignal = e.code));
    const stopped = await m.stop({ llm });
    const log = await m.readLog();
    await m.close();
    return {
      dry: dry.dry_run,
      report: { status: report.extraction.status, outcomes: report.facts.map((f) => f.outcome), added: report.facts_added, updated: report.memories_updated, calls: report.usage.calls },
      seen,
      superseded: history.find((h) => h.cause === "supersede")?.text,
      withEmbedder: { similarity: withEmbedder.similarity, outcomes: withEmbedder.facts.map((f) => f.outcome) },
      embedded,
      recallAfter,
      cancelled: [cancelled.extraction.status, cancelled.extraction.reason],
      aborted: aborted.extraction.status,
      refused,
      refusedSignal,
      stopped,
      curatorWrites: log.filter((r) => r.what.endsWith(" (curation)")).map((r) => r.agent),
    };
  });
  assert.equal(out.dry, true);
  assert.deepEqual(out.report, { status: "done", outcomes: ["superseded", "added"], added: 1, updated: 1, calls: 2 });
  assert.deepEqual(out.seen, [[2, 0, true], [2, 0, false]]);
  assert.equal(out.superseded, "The staging database runs on port 5432");
  assert.equal(out.withEmbedder.similarity, "cosine");
  assert.ok(out.embedded.length > 0);
  assert.equal(out.recallAfter, "keyword");
  assert.equal(out.cancelled[0], "cancelled");
  assert.equal(out.aborted, "cancelled");
  assert.equal(out.refused, "invalid-input");
  assert.equal(out.refusedSignal, "invalid-input");
  assert.equal(out.stopped, null);
  assert.ok(out.curatorWrites.length >= 2 && out.curatorWrites.every((a) => a === "page"), out.curatorWrites.join());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("opfs: a page's signal reaches the worker: an embedder or classifier that never answers is given up on", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const never = { model: "hangs", dimensions: 2, embed: () => new Promise(() => {}) };
    const m = await Memory.open({ storage: "opfs", name: `hang-${Date.now()}`, embedder: never });
    await m.tool({ action: "add", target: "memory", content: "Rate limiting is 100 requests a minute" }, { signal: AbortSignal.abort() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const recalled = await m.recall("rate limiting", { signal: controller.signal });
    const searched = await m.search("rate limiting", { signal: AbortSignal.abort() });
    let refused = null;
    await m.recall("x", { signal: "soon" }).catch((e) => (refused = e.code));
    const files = await m.exportMarkdown();
    await m.close();
    return { mode: recalled.mode, skipped: recalled.skipped, first: recalled[0]?.content, searched: searched[0]?.text, refused, files };
  });
  assert.equal(out.mode, "keyword");
  assert.match(out.skipped, /cancelled/);
  assert.equal(out.first, "Rate limiting is 100 requests a minute");
  assert.equal(out.searched, "Rate limiting is 100 requests a minute");
  assert.equal(out.refused, "invalid-input");
  assert.equal(out.files["MEMORY.md"], "Rate limiting is 100 requests a minute");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("opfs: recover() runs in a worker from a page and refuses a sound database", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const m = await Memory.open({ storage: "opfs", name: "sound" });
    await m.tool({ action: "add", target: "memory", content: "fine" });
    await m.close();
    const codeOf = (p) => p.then(() => "ok", (e) => `${e.code}: ${e.message}`);
    return {
      sound: await codeOf(Memory.recover("sound", { storage: "opfs" })),
      missing: await codeOf(Memory.recover("never-made", { storage: "opfs" })),
      files: await (await Memory.open({ storage: "opfs", name: "sound" })).exportMarkdown(),
    };
  });
  assert.match(out.sound, /^invalid-input: .*not damaged/);
  assert.match(out.missing, /^no-match: /);
  assert.equal(out.files["MEMORY.md"], "fine");
  await page.close();
});

test("opfs: a damaged database is refused, kept aside by recover() twice over, and a pool keeps three slot files", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const name = "twice-damaged";
    const slots = async () => {
      const root = await navigator.storage.getDirectory();
      const dir = await (await (await root.getDirectoryHandle("mnemo")).getDirectoryHandle(name)).getDirectoryHandle(".opaque");
      const files = [];
      for await (const [, handle] of dir.entries()) if (handle.kind === "file") files.push(handle);
      return files;
    };
    // Overwrites the start of the database (SQLite's header, after the
    // slot's 4096-byte header naming the file) with garbage.
    const damage = async () => {
      for (const handle of await slots()) {
        const head = new Uint8Array(await (await handle.getFile()).slice(0, 16).arrayBuffer());
        if (new TextDecoder().decode(head).startsWith("/mnemo.db\0")) {
          const w = await handle.createWritable({ keepExistingData: true });
          await w.write({ type: "write", position: 4096, data: new Uint8Array(100).fill(0xa5) });
          await w.close();
          return true;
        }
      }
      return false;
    };
    const outcome = (p) => p.then(() => "ok", (e) => `${e.code}: ${e.message}`);
    const write = async (content) => {
      const m = await Memory.open({ storage: "opfs", name });
      await m.tool({ action: "add", target: "memory", content });
      const files = await m.exportMarkdown();
      await m.close();
      return files["MEMORY.md"];
    };
    const out = { first: await write("first"), freshSlots: (await slots()).length, rounds: [] };
    for (const content of ["second", "third"]) {
      const damaged = await damage();
      const refused = await outcome(Memory.open({ storage: "opfs", name }));
      const recovered = await Memory.recover(name, { storage: "opfs" });
      out.rounds.push({ damaged, refused, kept: recovered.kept, written: await write(content) });
    }
    const m = await Memory.open({ storage: "opfs", name });
    out.last = (await m.exportMarkdown())["MEMORY.md"];
    await m.close();
    out.slots = (await slots()).length;
    await Memory.delete(name);
    return out;
  });
  assert.equal(out.first, "first");
  assert.equal(out.freshSlots, 3, "the database and two spare slots");
  assert.equal(out.rounds.length, 2);
  for (const [i, round] of out.rounds.entries()) {
    assert.ok(round.damaged);
    assert.match(round.refused, /^store-damaged: /);
    assert.match(round.kept, /^OPFS pool mnemo\/twice-damaged, file \/damaged-\d+\.db$/);
    assert.equal(round.written, i === 0 ? "second" : "third");
  }
  assert.notEqual(out.rounds[0].kept, out.rounds[1].kept);
  assert.equal(out.last, "third");
  assert.equal(out.slots, 5, "two kept copies, the database and two spare slots");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("opfs: a page reopens a memory in the worker it kept, and a delete from another tab meanwhile is seen", async () => {
  const page = await tab();
  const other = await tab();
  const step = (fn, arg) => run(page, fn, arg);
  const write = async (content) =>
    step(async (content) => {
      const m = await window.mnemo.Memory.open({ storage: "opfs", name: "kept" });
      const before = (await m.exportMarkdown())["MEMORY.md"];
      await m.tool({ action: "add", target: "memory", content });
      await m.close();
      return before;
    }, content);
  assert.equal(await write("first"), "");
  // The second open finds the first in the worker the page kept.
  assert.equal(await write("second"), "first");
  // The memory is not open anywhere: another tab opens it at once, then deletes it.
  const seen = await run(other, async () => {
    const { Memory } = window.mnemo;
    const m = await Memory.open({ storage: "opfs", name: "kept" });
    const text = (await m.exportMarkdown())["MEMORY.md"];
    await m.close();
    await Memory.delete("kept");
    return { text, list: await Memory.list() };
  });
  assert.equal(seen.text, "first\n§\nsecond");
  assert.ok(!seen.list.includes("kept"), seen.list.join());
  // The kept worker's pool lost its directory: the next open starts afresh.
  assert.equal(await write("third"), "");
  assert.equal(await write("fourth"), "third");
  // Opens and closes keep at most a spare and two idle workers.
  assert.ok(page.workers().length <= 3, `${page.workers().length} workers`);
  await step(() => window.mnemo.Memory.delete("kept"));
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);
  await page.close();
  await other.close();
});

test("indexeddb: a page reopens a memory it kept loaded; another tab's write, and records replaced by another memory's at the same change counter, are seen", async () => {
  const page = await tab();
  const other = await tab();
  const name = "kept-idb";
  const write = async (content) =>
    run(
      page,
      async ({ name, content }) => {
        const m = await window.mnemo.Memory.open({ storage: "indexeddb", name });
        const before = (await m.exportMarkdown())["MEMORY.md"];
        await m.tool({ action: "add", target: "memory", content });
        await m.close();
        return before;
      },
      { name, content },
    );
  // The stored change counter, read as any script of the origin can.
  const counter = (t) =>
    run(
      t,
      (name) =>
        new Promise((res, rej) => {
          const r = indexedDB.open(`mnemo:${name}`);
          r.onerror = () => rej(r.error);
          r.onsuccess = () => {
            const db = r.result;
            const get = db.transaction("db").objectStore("db").get("version");
            get.onsuccess = () => {
              db.close();
              res(get.result ?? -1);
            };
          };
        }),
      name,
    );
  assert.equal(await write("first"), "");
  assert.equal(await write("second"), "first");
  // Another tab writes while the page keeps the memory closed.
  await run(
    other,
    async (name) => {
      const m = await window.mnemo.Memory.open({ storage: "indexeddb", name });
      await m.tool({ action: "add", target: "memory", content: "from the other tab" });
      await m.close();
    },
    name,
  );
  assert.equal(await write("third"), "first\n§\nsecond\n§\nfrom the other tab");
  // The page's counter goes past what a fresh database's first write
  // stores (its schema's own commits come first).
  for (let k = 0; (await counter(page)) < 12 && k < 30; k++) await write(`more ${k}`);
  const kept = await counter(page);
  // Another tab writes a second memory up to the change counter the
  // page's kept database has, and puts its records in place of the first
  // memory's (a restore from a backup): the page must read what is stored
  // now, not its kept database.
  const remade = await run(
    other,
    async ({ name, kept }) => {
      const { Memory } = window.mnemo;
      const idb = (n) =>
        new Promise((res, rej) => {
          const r = indexedDB.open(`mnemo:${n}`);
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
      const request = (r) => new Promise((res) => (r.onsuccess = () => res(r.result)));
      const version = async (n) => {
        const db = await idb(n);
        const v = await request(db.transaction("db").objectStore("db").get("version"));
        db.close();
        return v ?? -1;
      };
      const source = `${name}-backup`;
      const m = await Memory.open({ storage: "indexeddb", name: source });
      const seen = [];
      for (let i = 0; (seen.at(-1) ?? -1) < kept && i < 100; i++) {
        await m.tool({ action: "add", target: "memory", content: `remade ${i}` });
        seen.push(await version(source));
      }
      const text = (await m.exportMarkdown())["MEMORY.md"];
      await m.close();
      // Every record of the backup, in place of the memory's.
      const from = await idb(source);
      const store = from.transaction("db").objectStore("db");
      const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
      from.close();
      const to = await idb(name);
      await new Promise((res) => {
        const tx = to.transaction("db", "readwrite");
        const s = tx.objectStore("db");
        s.clear();
        keys.forEach((k, i) => s.put(values[i], k));
        tx.oncomplete = res;
      });
      to.close();
      await Memory.delete(source);
      return { at: seen.at(-1), seen, text };
    },
    { name, kept },
  );
  assert.equal(remade.at, kept, `the remade memory's counters ${remade.seen} missed ${kept}`);
  assert.match(remade.text, /^remade 0\n§\nremade 1/);
  assert.equal(await write("last"), remade.text);
  await run(page, (name) => window.mnemo.Memory.delete(name), name);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);
  await page.close();
  await other.close();
});

test("opfs: files held by something outside mnemo's lock get a clear locked error", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const m = await Memory.open({ storage: "opfs", name: "held" });
    await m.tool({ action: "add", target: "memory", content: "still here" });
    await m.close();
    // Another worker of this origin takes the pool's files.
    const holder = new Worker(
      URL.createObjectURL(
        new Blob(
          [
            `onmessage = async () => {
               const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle("mnemo")).getDirectoryHandle("held");
               const handles = [];
               for await (const [, h] of dir.entries()) if (h.kind === "file") handles.push(await h.createSyncAccessHandle());
               onmessage = () => { handles.forEach((h) => h.close()); postMessage("released"); };
               postMessage(handles.length);
             };`,
          ],
          { type: "text/javascript" },
        ),
      ),
    );
    const ask = () => new Promise((r) => { holder.onmessage = ({ data }) => r(data); holder.postMessage(0); });
    const held = await ask();
    const blocked = await Memory.open({ storage: "opfs", name: "held" }).then(() => "opened", (e) => `${e.code}: ${e.message}`);
    await ask();
    holder.terminate();
    const files = await (await Memory.open({ storage: "opfs", name: "held" })).exportMarkdown();
    return { held, blocked, files };
  });
  assert.ok(out.held > 0);
  assert.match(out.blocked, /^locked: OPFS open failed/);
  assert.equal(out.files["MEMORY.md"], "still here");
  await page.close();
});

test("IndexedDB unavailable (private mode): a clear error, and auto falls back to memory with a warning", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const blocked = () => {
      throw new DOMException("The user denied permission to access the database.", "SecurityError");
    };
    const open = indexedDB.open;
    indexedDB.open = blocked;
    const direct = await window.mnemo.Memory.open({ storage: "indexeddb", name: "private" }).then(
      () => "opened",
      (e) => `${e.code}: ${e.message}`,
    );
    indexedDB.open = open;
    // In a worker without OPFS and with IndexedDB blocked, "auto" keeps
    // working in memory and says so.
    const auto = await window.inWorker(`
      const warnings = [];
      console.warn = (m) => warnings.push(String(m));
      globalThis.FileSystemSyncAccessHandle = undefined;
      indexedDB.open = () => { throw new DOMException("denied", "SecurityError"); };
      const m = await mnemo.Memory.open({ storage: "auto", name: "private" });
      const r = await m.tool({ action: "add", target: "memory", content: "in the tab only" });
      return { storage: (await m.status()).storage, ok: r.success, warnings };
    `);
    return { direct, auto };
  });
  assert.match(out.direct, /^storage: IndexedDB is unavailable here \(SecurityError/);
  assert.equal(out.auto.storage, "memory");
  assert.equal(out.auto.ok, true);
  assert.match(out.auto.warnings.join("\n"), /fell back to "memory".*will not survive a reload/);
  await page.close();
});

test("auto picks OPFS in a page (through the worker) and status says so", async () => {
  const page = await tab();
  const storage = await run(page, async () => {
    const m = await window.mnemo.Memory.open({ storage: "auto", name: "auto" });
    const s = (await m.status()).storage;
    await m.close();
    return s;
  });
  assert.equal(storage, "opfs");
  await page.close();
});

test("a damaged or newer IndexedDB database is refused and kept; recover() salvages the stores", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const m = await Memory.open({ storage: "indexeddb", name: "patched" });
    await m.tool({ action: "add", target: "memory", content: "keep me" });
    await m.close();
    const idb = (name) =>
      new Promise((res, rej) => {
        const r = indexedDB.open(`mnemo:${name}`);
        // A memory made here: layout 1 (an earlier release's), then opened
        // by mnemo at layout 2.
        r.onupgradeneeded = () => r.result.createObjectStore("db");
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
    const get = (db, key) =>
      new Promise((res) => {
        const r = db.transaction("db").objectStore("db").get(key);
        r.onsuccess = () => res(r.result);
      });
    const put = (db, key, value) =>
      new Promise((res) => {
        const tx = db.transaction("db", "readwrite");
        tx.objectStore("db").put(value, key);
        tx.oncomplete = res;
      });
    // Replaces the stored image with `bytes`, as pages of 8 KiB.
    const putImage = (db, bytes) =>
      new Promise((res) => {
        const tx = db.transaction("db", "readwrite");
        const store = tx.objectStore("db");
        store.delete(IDBKeyRange.bound(0, Infinity));
        store.delete(IDBKeyRange.lowerBound([]));
        for (let i = 0; i * 8192 < bytes.length; i++) store.put(bytes.slice(i * 8192, (i + 1) * 8192), i);
        store.put(bytes.length, "size");
        tx.oncomplete = res;
      });
    const code = async (name) => {
      try {
        await Memory.open({ storage: "indexeddb", name });
        return "opened";
      } catch (e) {
        return `${e.code}: ${e.message}`;
      }
    };
    // A newer schema (PRAGMA user_version lives at byte 60 of the header).
    let db = await idb("patched");
    const image = await window.idbImage("patched");
    const newer = image.slice();
    new DataView(newer.buffer).setUint32(60, 99);
    await putImage(db, newer);
    await put(db, "version", 1000);
    db.close();
    const newerOutcome = await code("patched");
    db = await idb("patched");
    const kept = (await window.idbImage("patched")).length === newer.length;
    db.close();
    // Garbage instead of a database.
    db = await idb("garbage");
    await putImage(db, new TextEncoder().encode("this is not a database at all".repeat(200)));
    await put(db, "version", 3);
    db.close();
    const garbageOutcome = await code("garbage");
    db = await idb("garbage");
    const garbageKept = (await window.idbImage("garbage")).length === 5800;
    db.close();
    const recovered = async (name) => {
      try {
        return await Memory.recover(name, { storage: "indexeddb" });
      } catch (e) {
        return `${e.code}: ${e.message}`;
      }
    };
    // Recovery: a newer database is never touched; garbage is kept aside
    // and a fresh memory starts.
    const newerRecover = await recovered("patched");
    const garbageRecover = await recovered("garbage");
    const afterGarbage = await (await Memory.open({ storage: "indexeddb", name: "garbage" })).exportMarkdown();
    db = await idb("garbage");
    const keptAside = (await get(db, garbageRecover.kept.split("record ")[1]))?.length;
    db.close();
    // A damaged table beside intact stores: the stores are salvaged. Page 4
    // of a fresh mnemo database is the root of its meta table (the page size
    // is in the header, bytes 16-17).
    const m2 = await Memory.open({ storage: "indexeddb", name: "salvage" });
    await m2.tool({ action: "add", target: "memory", content: "salvage me" });
    await m2.close();
    db = await idb("salvage");
    const broken = (await window.idbImage("salvage")).slice();
    const pageSize = new DataView(broken.buffer).getUint16(16) || 65536;
    broken.fill(0xa5, 3 * pageSize, 4 * pageSize);
    await putImage(db, broken);
    await put(db, "version", 77);
    db.close();
    const salvageOutcome = await code("salvage");
    const salvageRecover = await recovered("salvage");
    const afterSalvage = await (await Memory.open({ storage: "indexeddb", name: "salvage" })).exportMarkdown();
    const soundRecover = await recovered("salvage");
    return {
      newerOutcome, kept, garbageOutcome, garbageKept, newerRecover, garbageRecover, afterGarbage,
      keptAside, salvageOutcome, salvageRecover, afterSalvage, soundRecover,
    };
  });
  assert.match(out.newerOutcome, /^store-damaged: .*newer mnemo/);
  assert.ok(out.kept);
  assert.match(out.garbageOutcome, /^store-damaged: .*damaged.*Memory\.recover/);
  assert.ok(out.garbageKept);
  assert.match(out.newerRecover, /^store-damaged: .*newer mnemo/);
  assert.deepEqual(out.garbageRecover.salvaged, []);
  assert.match(out.garbageRecover.kept, /^IndexedDB database mnemo:garbage, record damaged-\d+$/);
  assert.equal(out.keptAside, 5800);
  assert.deepEqual(out.afterGarbage, { "MEMORY.md": "", "USER.md": "" });
  assert.match(out.salvageOutcome, /^store-damaged: /);
  assert.ok(out.salvageRecover.salvaged.includes("MEMORY.md"), JSON.stringify(out.salvageRecover));
  assert.equal(out.afterSalvage["MEMORY.md"], "salvage me");
  assert.match(out.soundRecover, /^invalid-input: .*not damaged/);
  await page.close();
});

test("indexeddb: a write stores one log record of the pages it changed, folded into the pages as the log grows; earlier layouts are read and replaced, a newer one and a damaged log are refused", async () => {
  const page = await tab();
  const out = await run(page, async () => {
    const { Memory } = window.mnemo;
    const idb = (name, version) =>
      new Promise((res, rej) => {
        const r = indexedDB.open(`mnemo:${name}`, version);
        r.onupgradeneeded = () => {
          if (!r.result.objectStoreNames.contains("db")) r.result.createObjectStore("db");
        };
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
    const request = (r) => new Promise((res) => (r.onsuccess = () => res(r.result)));
    const keys = async (name) => {
      const db = await idb(name);
      const all = await request(db.transaction("db").objectStore("db").getAllKeys());
      db.close();
      return all;
    };
    const logKeys = async (name) => (await keys(name)).filter((k) => Array.isArray(k));
    const pageKeys = async (name) => (await keys(name)).filter((k) => typeof k === "number");
    // The records `f` puts.
    const puts = async (f) => {
      const put = IDBObjectStore.prototype.put;
      const written = [];
      IDBObjectStore.prototype.put = function (value, key) {
        written.push({ key, value });
        return put.call(this, value, key);
      };
      try {
        await f();
      } finally {
        IDBObjectStore.prototype.put = put;
      }
      return written;
    };
    const attempt = async (f) => {
      try {
        return await f();
      } catch (e) {
        return `${e.code}: ${e.message}`;
      }
    };
    // A memory of some size: sixty notes of about a thousand characters
    // and sixty session turns of about two thousand.
    const m = await Memory.open({ storage: "indexeddb", name: "paged" });
    for (let i = 0; i < 60; i++) {
      const words = Array.from({ length: 150 }, (_, j) => `word${(i * 151 + j * 7) % 997}`).join(" ");
      await m.tool({ action: "add", target: "memory", content: `Note ${i}: ${words}` });
      await m.recordTurn({ session: `s${i % 6}`, user: `Question ${i}: ${words}`, assistant: `Answer ${i}: ${words}` });
    }
    const pages = (await pageKeys("paged")).length;
    const logsAfterGrowth = (await logKeys("paged")).length;
    // One more note write, and then thirty, the records they put. The
    // growth leaves the log at some fill (its sessions' timestamps move
    // its bytes a little from run to run): a write that takes it past its
    // byte budget folds it instead, and the write after that logs.
    let one = await puts(() => m.tool({ action: "replace", target: "memory", old_text: "Note 30:", content: "Note 30: changed" }));
    const foldedFirst = !one.some(({ key }) => Array.isArray(key));
    const foldFirst = one.map(({ key }) => key);
    if (foldedFirst) {
      one = await puts(() => m.tool({ action: "replace", target: "memory", old_text: "Note 31:", content: "Note 31: changed" }));
    }
    const thirty = await puts(async () => {
      for (let i = 0; i < 30; i++) await m.tool({ action: "add", target: "memory", content: `Later ${i}` });
    });
    const after = (await m.exportMarkdown())["MEMORY.md"];
    await m.close();
    // Another context reads pages and log alike.
    const read = (await (await Memory.open({ storage: "indexeddb", name: "paged" })).exportMarkdown())["MEMORY.md"];
    const logsNow = (await logKeys("paged")).length;

    // The same memory as an earlier release stored it: one "image" record
    // (the image read back with mnemo's own reader: a copy of the memory).
    const copy = await Memory.open({ storage: "memory", name: "paged-copy" });
    await copy.importMarkdown({ "MEMORY.md": after });
    await copy.close();
    const image = await window.idbImage("paged");
    let db;
    // Layout 1 (pages only, no log) in a database at IndexedDB version 1,
    // as the release before this layout stored it.
    db = await idb("paged-v1", 1);
    await new Promise((res) => {
      const tx = db.transaction("db", "readwrite");
      const store = tx.objectStore("db");
      for (let i = 0; i * 8192 < image.length; i++) store.put(image.slice(i * 8192, (i + 1) * 8192), i);
      store.put(image.length, "size");
      store.put(1000, "version");
      tx.oncomplete = res;
    });
    db.close();
    const v1 = await Memory.open({ storage: "indexeddb", name: "paged-v1" });
    const readV1 = (await v1.exportMarkdown())["MEMORY.md"];
    await v1.tool({ action: "add", target: "memory", content: "Written over layout 1" });
    await v1.close();
    const rereadV1 = (await (await Memory.open({ storage: "indexeddb", name: "paged-v1" })).exportMarkdown())["MEMORY.md"];
    const v1Version = (await indexedDB.databases()).find((d) => d.name === "mnemo:paged-v1")?.version;
    // The oldest layout: the whole image as one "image" record.
    db = await idb("paged");
    await new Promise((res) => {
      const tx = db.transaction("db", "readwrite");
      const store = tx.objectStore("db");
      store.delete(IDBKeyRange.bound(0, Infinity));
      store.delete(IDBKeyRange.lowerBound([]));
      store.delete("size");
      // Earlier releases stored no identity stamp either.
      store.delete("id");
      store.put(image, "image");
      tx.oncomplete = res;
    });
    db.close();
    const old = await Memory.open({ storage: "indexeddb", name: "paged" });
    const readOld = (await old.exportMarkdown())["MEMORY.md"];
    await old.tool({ action: "add", target: "memory", content: "Written after the upgrade" });
    await old.close();
    const keysOld = await keys("paged");
    const again = await Memory.open({ storage: "indexeddb", name: "paged" });
    const reread = (await again.exportMarkdown())["MEMORY.md"];
    await again.close();
    // Appends a log record (made from the stored image's size) as a commit
    // stores one: with a new change counter (a context that keeps the
    // memory loaded reloads only when the counter moved).
    const appendLog = async (record, key) => {
      await (await Memory.open({ storage: "indexeddb", name: "paged" })).close();
      db = await idb("paged");
      await new Promise((res) => {
        const tx = db.transaction("db", "readwrite");
        const store = tx.objectStore("db");
        store.get("version").onsuccess = (e) => store.put(e.target.result + 1, "version");
        store.get("size").onsuccess = (e) => store.put(record(e.target.result), [key]);
        tx.oncomplete = res;
      });
      db.close();
    };
    // A log record that is not a commit: refused, and recover() salvages
    // the commits before it.
    await appendLog(() => ({ size: 3, page: 8192, indices: [5], bytes: "not bytes" }), 1e12);
    const damagedLog = await attempt(() => Memory.open({ storage: "indexeddb", name: "paged" }));
    const recovered = await attempt(() => Memory.recover("paged", { storage: "indexeddb" }));
    const afterRecover = (await (await Memory.open({ storage: "indexeddb", name: "paged" })).exportMarkdown())["MEMORY.md"];
    // A log record whose bytes do not cover the pages it names (two pages,
    // one page of bytes): refused the same way, and recovered.
    await appendLog((size) => ({ size, page: 8192, indices: [1, 2], bytes: new Uint8Array(8192) }), 2e12);
    const shortLog = await attempt(() => Memory.open({ storage: "indexeddb", name: "paged" }));
    const shortRecovered = await attempt(() => Memory.recover("paged", { storage: "indexeddb" }));
    const afterShort = (await (await Memory.open({ storage: "indexeddb", name: "paged" })).exportMarkdown())["MEMORY.md"];
    // A newer mnemo's layout (IndexedDB version 3): refused, left alone.
    db = await idb("future", 3);
    db.close();
    const future = await attempt(() => Memory.open({ storage: "indexeddb", name: "future" }));
    const futureVersion = (await indexedDB.databases()).find((d) => d.name === "mnemo:future")?.version;
    for (const name of ["paged", "paged-v1", "future"]) await Memory.delete(name);
    return {
      pages, logsAfterGrowth, foldedFirst, foldFirst, one: one.map(({ key, value }) => ({ key, indices: value?.indices?.length })),
      thirty: thirty.map(({ key }) => key), after, read, logsNow, readV1, rereadV1, v1Version, readOld,
      keysOld, reread, damagedLog, recovered, afterRecover, shortLog, shortRecovered, afterShort, future, futureVersion,
    };
  });
  const summary = JSON.stringify(out).slice(0, 600);
  assert.ok(out.pages >= 16, `the memory has ${out.pages} pages`);
  // A long log is folded: it never holds more than its budget of records.
  assert.ok(out.logsAfterGrowth <= 24, summary);
  // A write that folded the log put the pages at their keys.
  if (out.foldedFirst) assert.ok(out.foldFirst.some((k) => typeof k === "number"), summary);
  // One note write: one log record of a few pages, and the counter.
  const logged = out.one.filter(({ key }) => Array.isArray(key));
  assert.equal(logged.length, 1, summary);
  assert.ok(logged[0].indices >= 1 && logged[0].indices <= out.pages / 3, summary);
  assert.ok(!out.one.some(({ key }) => typeof key === "number"), summary);
  assert.ok(out.one.some(({ key }) => key === "version"), summary);
  // Thirty writes fold the log at least once: pages at their keys.
  assert.ok(out.thirty.some((k) => typeof k === "number"), summary);
  assert.ok(out.thirty.filter((k) => Array.isArray(k)).length >= 24, summary);
  assert.ok(out.logsNow >= 1 && out.logsNow <= 24, summary);
  assert.match(out.after, /Note 30: changed[^]*Later 29$/);
  assert.equal(out.read, out.after);
  assert.equal(out.readV1, out.after);
  assert.equal(out.rereadV1, `${out.after}\n§\nWritten over layout 1`);
  assert.equal(out.v1Version, 2);
  assert.equal(out.readOld, out.after);
  assert.ok(!out.keysOld.includes("image"), JSON.stringify(out.keysOld));
  assert.ok(out.keysOld.includes("size"));
  assert.equal(out.reread, `${out.after}\n§\nWritten after the upgrade`);
  assert.match(out.damagedLog, /^store-damaged: .*log.*damaged.*Memory\.recover/);
  assert.ok(out.recovered.salvaged?.includes("MEMORY.md"), JSON.stringify(out.recovered));
  assert.equal(out.afterRecover, out.reread);
  assert.match(out.shortLog, /^store-damaged: .*log.*damaged.*Memory\.recover/);
  assert.ok(out.shortRecovered.salvaged?.includes("MEMORY.md"), JSON.stringify(out.shortRecovered));
  assert.equal(out.afterShort, out.reread);
  assert.match(out.future, /^storage: .*newer mnemo/);
  assert.equal(out.futureVersion, 3);
  await page.close();
});

test("indexeddb: a quota error is clear and changes nothing", async () => {
  // Chromium does not let a test shrink an origin's quota reliably
  // (Storage.overrideQuotaForOrigin did not bite here), so IndexedDB is made
  // to fail the way it does when the quota is exceeded.
  const page = await tab();
  const out = await run(page, async () => {
    const m = await window.mnemo.Memory.open({ storage: "indexeddb", name: "quota" });
    await m.tool({ action: "add", target: "memory", content: "before the quota" });
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (value, key) {
      // Pages and log records (numeric and array keys).
      if (typeof key !== "string") throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      return put.call(this, value, key);
    };
    const r = await m.tool({ action: "add", target: "memory", content: "x".repeat(100_000) });
    const turn = await m.recordTurn({ session: "q", user: "a", assistant: "b" }).catch((e) => e.code);
    IDBObjectStore.prototype.put = put;
    const files = await m.exportMarkdown();
    const sessions = await m.sessions();
    await m.close();
    const reopened = await window.mnemo.Memory.open({ storage: "indexeddb", name: "quota" });
    return { r, turn, files, sessions, again: await reopened.exportMarkdown() };
  });
  assert.equal(out.r.success, false, JSON.stringify(out.r).slice(0, 300));
  assert.equal(out.r.code, "storage");
  assert.match(out.r.error, /quota exceeded/);
  assert.equal(out.turn, "storage");
  assert.equal(out.files["MEMORY.md"], "before the quota");
  assert.deepEqual(out.sessions, []);
  assert.equal(out.again["MEMORY.md"], "before the quota");
  await page.close();
});

test("a worker killed in the middle of writes leaves a whole state, trial after trial", async () => {
  // The crash campaign's short form in the browser (the long form: node
  // bench/crash.mjs --surface browser): a worker writing notes is
  // terminated at random points, then the memory reopens whole.
  const page = await tab();
  for (const storage of ["opfs", "indexeddb"]) {
    const name = `killed-${storage}`;
    let before = 0;
    for (let t = 0; t < 4; t++) {
      const trial = { storage, name, acks: t % 3, delay: Math.floor(Math.random() * 40) };
      const out = await run(page, killedWorkerTrial, trial);
      assert.deepEqual(checkKilledWorker(out, before), [], `${storage} trial ${t}: ${JSON.stringify(trial)}`);
      before = out.entries.length;
    }
    assert.ok(before >= 3, `${storage}: ${before} notes`);
    const after = await run(
      page,
      async ({ storage, name }) => {
        const m = await window.mnemo.Memory.open({ storage, name });
        const r = await m.tool({ action: "add", target: "memory", content: "after the crash" });
        await m.close();
        return r.success;
      },
      { storage, name },
    );
    assert.ok(after, storage);
  }
  await page.close();
});
