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
