// The storage scenarios a user's browser runs most, in a browser profile on
// disk (storage.test.mjs runs in a private window, whose OPFS and
// IndexedDB are kept in the browser process's memory): a write survives a
// close and a reload, a page reopens a memory in the worker it kept, and
// two tabs share a memory.
//
// Needs the web build: scripts/build-js.sh. Run: node --test tests/browser/

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launchProfile, serve, tab as openTab } from "./harness.mjs";

let server, url, context;

before(async () => {
  ({ server, url } = await serve());
  context = await launchProfile();
});

after(async () => {
  await context?.close();
  server?.close();
});

const tab = () => openTab(context, url);

/** In another tab `page`: opens the memory with `opts`, adds `content` to
 * MEMORY.md, closes the memory and the tab. */
async function addFromTab(page, opts, content) {
  await page.evaluate(
    async ({ opts, content }) => {
      const m = await window.mnemo.Memory.open(opts);
      await m.tool({ action: "add", target: "memory", content });
      await m.close();
    },
    { opts, content },
  );
  await page.close();
}

for (const storage of ["opfs", "indexeddb"]) {
  test(`${storage} on disk: a write survives a close, a reopen in the page and a reload`, async () => {
    const page = await tab();
    const name = `disk-${storage}`;
    const first = await page.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        let m = await Memory.open({ storage, name });
        await m.tool({ action: "add", target: "memory", content: "Deploys run on Fridays #ops" });
        await m.recordTurn({ session: "s1", user: "Which port for staging?", assistant: "Port 2222." });
        await m.close();
        // Again in the page (on OPFS, in the worker the page kept).
        m = await Memory.open({ storage, name });
        await m.tool({ action: "add", target: "memory", content: "Backups run nightly" });
        const out = { status: (await m.status()).storage, files: await m.exportMarkdown() };
        // No close: the page goes away right after the write resolved.
        return out;
      },
      { storage, name },
    );
    assert.equal(first.status, storage);
    assert.equal(first.files["MEMORY.md"], "Deploys run on Fridays #ops\n§\nBackups run nightly");
    await page.reload();
    await page.waitForFunction(() => window.ready === true);
    const again = await page.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        const m = await Memory.open({ storage, name });
        const out = {
          files: await m.exportMarkdown(),
          hits: (await m.sessionSearch("staging port")).map((h) => [h.session, h.seq]),
        };
        await m.close();
        await Memory.delete(name);
        return out;
      },
      { storage, name },
    );
    assert.equal(again.files["MEMORY.md"], "Deploys run on Fridays #ops\n§\nBackups run nightly");
    assert.ok(again.hits.length > 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`${storage} on disk: two tabs writing in turn see each other's notes`, async () => {
    const [a, b] = [await tab(), await tab()];
    const name = `disk-tabs-${storage}`;
    const write = (page, content) =>
      page.evaluate(
        async ({ storage, name, content }) => {
          const m = await window.mnemo.Memory.open({ storage, name });
          await m.tool({ action: "add", target: "memory", content });
          const text = (await m.exportMarkdown())["MEMORY.md"];
          await m.close();
          return text;
        },
        { storage, name, content },
      );
    assert.equal(await write(a, "from tab a"), "from tab a");
    assert.equal(await write(b, "from tab b"), "from tab a\n§\nfrom tab b");
    assert.equal(await write(a, "again from a"), "from tab a\n§\nfrom tab b\n§\nagain from a");
    await b.evaluate((name) => window.mnemo.Memory.delete(name), name);
    assert.deepEqual([...a.errors, ...b.errors], []);
    await a.close();
    await b.close();
  });
}

for (const storage of ["opfs", "indexeddb"]) {
  test(`${storage} on disk: a page load opens the last page's memory ahead, and open() takes it with what was written meanwhile`, async () => {
    const name = `ahead-${storage}`;
    const first = await tab();
    const hint = await first.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        const m = await Memory.open({ storage, name });
        await m.tool({ action: "add", target: "memory", content: "Deploys run on Fridays" });
        await m.close();
        return localStorage.getItem("mnemo:last-open");
      },
      { storage, name },
    );
    assert.deepEqual(JSON.parse(hint), { storage, name });
    await first.close();
    // The next load opens the memory ahead; another tab writes after that,
    // and the page's open must still see the write, in its prompt too.
    const page = await tab();
    const writer = await tab();
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    await addFromTab(writer, { storage, name, prefetch: true }, "Backups run nightly");
    const out = await page.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        const m = await Memory.open({ storage, name });
        const taken = {
          prompt: await m.systemPrompt(),
          context: await m.context("when do backups run?"),
          files: await m.exportMarkdown(),
        };
        await m.tool({ action: "add", target: "memory", content: "Staging listens on 2222" });
        taken.after = (await m.exportMarkdown())["MEMORY.md"];
        await m.close();
        // Other options than the remembered ones open as usual.
        const other = await Memory.open({ storage, name, config: { memory: { memory_char_limit: 3000 } } });
        taken.limit = (await other.status()).memory.verbatim_budget;
        await other.close();
        return taken;
      },
      { storage, name },
    );
    assert.match(out.prompt, /Deploys run on Fridays/);
    assert.match(out.prompt, /Backups run nightly/);
    assert.equal(out.files["MEMORY.md"], "Deploys run on Fridays\n§\nBackups run nightly");
    assert.equal(out.after, "Deploys run on Fridays\n§\nBackups run nightly\n§\nStaging listens on 2222");
    assert.equal(out.limit, 3000);
    // prefetch: false forgets the memory; Memory.delete forgets it too; a
    // remembered memory that is gone is not made again by the next load.
    const last = await tab();
    const forgotten = await last.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        const m = await Memory.open({ storage, name, prefetch: false });
        const out = { afterFalse: localStorage.getItem("mnemo:last-open") };
        await m.close();
        await (await Memory.open({ storage, name })).close();
        out.remembered = localStorage.getItem("mnemo:last-open") !== null;
        await Memory.delete(name);
        out.afterDelete = localStorage.getItem("mnemo:last-open");
        localStorage.setItem("mnemo:last-open", JSON.stringify({ storage, name: "never-made" }));
        out.bad = await Memory.open({ storage, name, prefetch: "yes" }).then(() => "opened", (e) => e.code);
        return out;
      },
      { storage, name },
    );
    assert.equal(forgotten.afterFalse, null);
    assert.ok(forgotten.remembered);
    assert.equal(forgotten.afterDelete, null);
    assert.equal(forgotten.bad, "invalid-config");
    await last.close();
    const next = await tab();
    const listed = await next.evaluate(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return window.mnemo.Memory.list();
    });
    assert.ok(!listed.includes("never-made"), JSON.stringify(listed));
    await next.evaluate(() => localStorage.removeItem("mnemo:last-open"));
    await next.close();
  });
}

for (const storage of ["opfs", "indexeddb"]) {
  test(`${storage} on disk: a closed memory kept by the page opens again with what another tab wrote, and its old handle stays closed`, async () => {
    const name = `kept-${storage}`;
    const page = await tab();
    const other = await tab();
    await page.evaluate(
      async ({ storage, name }) => {
        const m = await window.mnemo.Memory.open({ storage, name });
        await m.tool({ action: "add", target: "memory", content: "Deploys run on Fridays" });
        await m.context("when do deploys run?");
        window.old = m;
        await m.close();
      },
      { storage, name },
    );
    await addFromTab(other, { storage, name }, "Backups run nightly");
    const out = await page.evaluate(
      async ({ storage, name }) => {
        const { Memory } = window.mnemo;
        const code = (p) => p.then(() => "ok", (e) => e.code);
        const out = { oldStatus: await code(window.old.status()), oldClose: await code(window.old.close()) };
        const m = await Memory.open({ storage, name });
        out.prompt = await m.systemPrompt();
        out.files = (await m.exportMarkdown())["MEMORY.md"];
        await m.close();
        // Deleted while kept: the next open starts afresh.
        await Memory.delete(name);
        const fresh = await Memory.open({ storage, name });
        out.afterDelete = (await fresh.exportMarkdown())["MEMORY.md"];
        await fresh.close();
        await Memory.delete(name);
        return out;
      },
      { storage, name },
    );
    assert.equal(out.oldStatus, "closed");
    assert.equal(out.oldClose, "ok");
    assert.match(out.prompt, /Deploys run on Fridays/);
    assert.match(out.prompt, /Backups run nightly/);
    assert.equal(out.files, "Deploys run on Fridays\n§\nBackups run nightly");
    assert.equal(out.afterDelete, "");
    await page.close();
  });
}
