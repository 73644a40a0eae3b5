// Browser storage in headless Chromium: open time with a full store, write
// latency per backend, and what the IndexedDB image costs as the database
// grows (OPFS beside it). One run; medians (p50) and p95 of each sample set.
// A browser profile on disk, as users have; `--private` measures a private
// window instead (OPFS held in the browser process's memory).
// Run: scripts/build-js.sh && node bench/browser-storage.mjs [--no-curve] [--private]
import { serve, launch, launchProfile, tab } from "../tests/browser/harness.mjs";

const { server, url } = await serve();
const priv = process.argv.includes("--private");
const browser = priv ? await launch() : null;
const context = priv ? await browser.newContext() : await launchProfile();
const page = await tab(context, url);

const curve = !process.argv.includes("--no-curve");
const results = await page.evaluate(async (curve) => {
  const { Memory } = window.mnemo;
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] };
  };
  const time = async (f) => {
    const t0 = performance.now();
    await f();
    return performance.now() - t0;
  };
  // A full store: ~120,000 chars of notes in MEMORY.md, ~20,000 in USER.md.
  const notes = [];
  for (let i = 0, n = 0; n < 118_000; i++) {
    const text = `# Service ${i}\nstaging server ${i} listens on port ${2000 + i}; owner team-${i % 17}, see [[Service ${(i * 7) % 900}]]`;
    notes.push(text);
    n += text.length + 3;
  }
  const user = Array.from({ length: 200 }, (_, i) => `Preference ${i}: likes option ${i % 9} for topic ${i}`);
  const files = { "MEMORY.md": notes.join("\n§\n").slice(0, 118_000).replace(/\n§\n[^§]*$/, ""), "USER.md": user.join("\n§\n") };
  const out = { rows: [], curve: [] };
  // Warm-up: the engine compiles hot wasm functions again with its
  // optimizing tier after a while, so the first storage measured would pay
  // for that alone.
  {
    const w = await Memory.open({ storage: "memory", name: "bench-warm-up" });
    await w.importMarkdown({ "MEMORY.md": files["MEMORY.md"].slice(0, 100_000).replace(/\n§\n[^§]*$/, "") });
    for (let i = 0; i < 60; i++) {
      await w.tool({ action: "add", target: "memory", content: `warm-up note ${i}` });
      await w.tool({ action: "remove", target: "memory", old_text: `warm-up note ${i}` });
      await w.recordTurn({ session: "warm-up", user: `question ${i}`, assistant: `answer ${i}` });
    }
    await w.close();
  }
  for (const storage of ["memory", "indexeddb", "opfs"]) {
    const name = `bench-${storage}`;
    await Memory.delete(name).catch(() => {});
    let m = await Memory.open({ storage, name });
    // Leave room for the writes below.
    await m.importMarkdown({ "MEMORY.md": files["MEMORY.md"].slice(0, 100_000).replace(/\n§\n[^§]*$/, ""), "USER.md": files["USER.md"] });
    const chars = (await m.status()).memory.chars;
    const writes = [];
    for (let i = 0; i < 40; i++) {
      writes.push(await time(() => m.tool({ action: "add", target: "memory", content: `bench note ${i}: deploy window ${i}` })));
    }
    const replaces = [];
    for (let i = 0; i < 20; i++) {
      replaces.push(await time(() => m.tool({ action: "replace", target: "memory", old_text: `bench note ${i}:`, content: `bench note ${i}: moved to ${i + 1}` })));
    }
    const turns = [];
    for (let i = 0; i < 40; i++) {
      turns.push(await time(() => m.recordTurn({ session: "bench", user: `question ${i} about staging port`, assistant: `answer ${i}: port ${2000 + i}` })));
    }
    const queries = [];
    for (let i = 0; i < 40; i++) queries.push(await time(() => m.sessionSearch(`staging port ${i}`)));
    await m.close();
    // Open again in this page: from the Memory.open() call to the first
    // context() resolving (database load + derived state + first context).
    const opens = [];
    if (storage !== "memory") {
      for (let i = 0; i < 9; i++) {
        let o;
        opens.push(
          await time(async () => {
            o = await Memory.open({ storage, name });
            await o.context("which port does staging server 7 use?");
          }),
        );
        await o.close();
      }
    }
    out.rows.push({ storage, chars, open: opens.length ? stats(opens) : null, add: stats(writes), replace: stats(replaces), turn: stats(turns), search: stats(queries) });
  }
  // The cost curve: grow each database with 64 KB turns, timing one note
  // write at each size.
  for (const storage of curve ? ["indexeddb", "opfs"] : []) {
    const name = `curve-${storage}`;
    await Memory.delete(name).catch(() => {});
    const m = await Memory.open({ storage, name });
    const big = "lorem ipsum dolor sit amet consectetur ".repeat(850); // ~33 KB
    let turns = 0;
    for (const mb of [0, 1, 4, 16, 32]) {
      while (turns * 2 * big.length < mb * 1_000_000) {
        await m.recordTurn({ session: `grow-${turns % 10}`, user: big, assistant: big });
        turns++;
      }
      const samples = [];
      for (let i = 0; i < 7; i++) {
        samples.push(await time(() => m.tool({ action: "add", target: "memory", content: `curve ${mb} MB note ${i}` })));
      }
      out.curve.push({ storage, mb, write: stats(samples).p50 });
    }
    await m.close();
    await Memory.delete(name);
  }
  return out;
}, curve);

// A page load: a new tab imports the package, then opens the memory the
// tab before it left: at once (the page's worker is still starting), and
// after a second (it is ready). First as a first visit (the server says
// no-store: the wasm is fetched and compiled afresh), then as a returning
// visit (the server revalidates with an ETag, as production servers do, so
// the browser keeps the wasm and the code it compiled for it).
async function pageLoads(keys) {
  for (const row of results.rows) {
    if (row.storage === "memory") continue;
    for (const [key, delay] of keys) await pageLoad(row, key, delay);
  }
}
async function pageLoad(row, key, delay) {
  const samples = [];
  for (let i = 0; i < 9; i++) {
    const fresh = await tab(context, url);
    samples.push(
      await fresh.evaluate(
        async ([storage, delay]) => {
          const { Memory } = window.mnemo;
          await new Promise((resolve) => setTimeout(resolve, delay));
          const t0 = performance.now();
          const o = await Memory.open({ storage, name: `bench-${storage}` });
          await o.context("which port does staging server 7 use?");
          const took = performance.now() - t0;
          await o.close();
          return took;
        },
        [row.storage, delay],
      ),
    );
    await fresh.close();
  }
  samples.sort((a, b) => a - b);
  row[key] = { p50: samples[4], p95: samples[8] };
}
await pageLoads([["load", 0], ["later", 1000]]);
server.revalidate = true;
{
  // The visit that puts the wasm in the browser's cache; Chromium keeps
  // the compiled code once the page has used it a while.
  const warm = await tab(context, url);
  await warm.evaluate(async () => {
    const { Memory } = window.mnemo;
    for (let i = 0; i < 200; i++) {
      const m = await Memory.open({ storage: "memory", name: "bench-cache-warm-up" });
      await m.tool({ action: "add", target: "memory", content: `cache warm-up note ${i}` });
      await m.search("note");
      await m.context(`note ${i}`);
      await m.close();
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 6000));
  await warm.close();
}
await pageLoads([["cached", 0]]);
await page.evaluate(async () => {
  for (const storage of ["memory", "indexeddb", "opfs"]) await window.mnemo.Memory.delete(`bench-${storage}`).catch(() => {});
});

await context.close();
await browser?.close();
server.close();

const ms = (x) => (x == null ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(1));
const cell = (s) => (s ? `${ms(s.p50)} / ${ms(s.p95)}` : "–");
console.log(
  `Browser storage, headless Chromium, ${priv ? "a private window" : "a profile on disk"} (${results.rows[0].chars.toLocaleString("en")} chars in MEMORY.md). ms, p50 / p95.\n`,
);
console.log(
  "| storage | open + first context: new page, at once | the same, a returning visit | new page, 1 s after import | again in the page | tool add | tool replace | recordTurn | sessionSearch |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of results.rows) {
  console.log(
    `| ${r.storage} | ${cell(r.load)} | ${cell(r.cached)} | ${cell(r.later)} | ${cell(r.open)} | ${cell(r.add)} | ${cell(r.replace)} | ${cell(r.turn)} | ${cell(r.search)} |`,
  );
}
if (!curve) process.exit(0);
console.log("\nOne note write (p50 ms) as the database grows with recorded sessions:\n");
const sizes = [...new Set(results.curve.map((c) => c.mb))];
console.log(`| database | ${sizes.map((s) => `${s} MB`).join(" | ")} |`);
console.log(`|---|${sizes.map(() => "---").join("|")}|`);
for (const storage of ["indexeddb", "opfs"]) {
  console.log(`| ${storage} | ${sizes.map((s) => ms(results.curve.find((c) => c.storage === storage && c.mb === s).write)).join(" | ")} |`);
}
