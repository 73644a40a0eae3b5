// Note-search benchmark: mnemo's NoteIndex (wasm, under Node) beside
// MiniSearch, FlexSearch and SQLite FTS5, all in one run.
//
//   npm run bench            (= node --expose-gc bench/note-search.mjs)
//   node --expose-gc bench/note-search.mjs [path/to/locomo10.json]
//
// Needs the built package (scripts/build-js.sh → pkg/) and the dev
// dependencies (npm install). The data defaults to ../shared/locomo/locomo10.json
// beside the repository (or $LOCOMO). Progress goes to stderr, the Markdown
// tables to stdout. Timings are medians over repetitions, and every speed
// column has a ratio to mnemo beside it, because the machine may be noisy.
//
// 1. Quality on LoCoMo: one index per conversation, each turn a note
//    (`speaker: text [image: caption]`), the question as the query; R@5,
//    R@10, MRR@10 over the 1,982 questions that keep evidence (the same
//    evaluation as examples/locomo.rs).
// 2. Speed: build time of the 10 LoCoMo indexes (5,882 turns) and of one
//    100,000-note index (turn i % 5,882 with " (i)" appended so that every
//    note is distinct); p50/p95 latency of one query (top 10) on both.
// 3. mnemo's per-turn `context()` on a full default MEMORY.md (just under
//    120,000 chars of LoCoMo turns).
// 4. Memory of the 100,000-note index, each engine in a fresh child process:
//    wasm linear memory growth for mnemo, JS heap (after gc) for the peers.
import { loadLocomo } from "./locomo.mjs";
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import os from "node:os";

const self = fileURLToPath(import.meta.url);
const root = join(dirname(self), "..");
const pkgEntry = join(root, "pkg", "node", "mnemo.js");
// pkg/package.json marks pkg/node/*.js as CommonJS (the repository's own
// package.json says "type": "module"), so both must be there.
for (const file of [pkgEntry, join(root, "pkg", "node", "mnemo_bg.wasm"), join(root, "pkg", "package.json")]) {
  if (!existsSync(file)) {
    console.error(`bench: ${file} is missing: build the npm package into pkg/ first (scripts/build-js.sh)`);
    process.exit(1);
  }
}
const require = createRequire(import.meta.url);
const { NoteIndex, Memory, wasmMemoryBytes } = require(pkgEntry);
let MiniSearch, FlexSearch, EnglishPreset, Database;
try {
  MiniSearch = require("minisearch");
  FlexSearch = require("flexsearch");
  EnglishPreset = require("flexsearch/lang/en");
  Database = require("better-sqlite3");
} catch (e) {
  console.error(`bench: a peer library is missing (${e.message.split("\n")[0]}): run npm install in ${root}`);
  process.exit(1);
}
// The peers are installed in bench/node_modules (bench/package.json).
const version = (name) =>
  JSON.parse(readFileSync(join(root, "bench", "node_modules", name, "package.json"), "utf8")).version;
const mnemoVersion = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8")).version;

const args = process.argv.slice(2);
const child = args.find((a) => a.startsWith("--memory-child="))?.split("=")[1];
const dataPath = args.find((a) => !a.startsWith("--")) ?? process.env.LOCOMO ?? join(root, "..", "shared", "locomo", "locomo10.json");
if (!existsSync(dataPath)) {
  console.error(`bench: LoCoMo data not found at ${dataPath} (pass its path or set LOCOMO)`);
  process.exit(1);
}
const log = (...a) => console.error(child ? `  [${child}]` : "bench:", ...a);

// Repetitions (medians are taken over them).
const REPS_LOCOMO = 5; // builds of the 10 indexes + one pass over the questions
const REPS_BIG_BUILD = 3; // 100k builds per engine
const BIG_N = 100_000;
// On the 100k corpus MiniSearch (no result limit: it scores and sorts every
// note matching any query term) and FTS5 (OR of every token, stop words
// included) take tens to hundreds of ms a query, so they run every 10th
// question; mnemo's ratio is then taken on the same sample.
const SAMPLE_STEP = 10;

// ---------------------------------------------------------------- data

const convs = loadLocomo(dataPath);
const allTurns = convs.flatMap((c) => c.docs);
const allQuestions = convs.flatMap((c) => c.questions.map((q) => q.text));
/** Note i of the big corpus: turn i % 5,882, with its number appended.
 * The JSON round trip leaves flat strings: V8 would otherwise flatten the
 * concatenations during the first build (time and heap charged to it). */
const bigCorpus = () =>
  JSON.parse(JSON.stringify(Array.from({ length: BIG_N }, (_, i) => `${allTurns[i % allTurns.length]} (${i})`)));

// ---------------------------------------------------------------- engines

/** FTS5 query: an OR of the question's tokens, each quoted. */
const ftsQuery = (q) =>
  q
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "")
    .map((t) => `"${t}"`)
    .join(" OR ");

const engines = [
  {
    key: "mnemo",
    name: `mnemo ${mnemoVersion} (wasm)`,
    config: "`new NoteIndex(notes)`, `ix.search(q, 10)` (defaults: stemmed EN/RU analysis, BM25 + proximity, typo tolerance, RM3-style feedback)",
    build: (docs) => new NoteIndex(docs),
    search: (ix, q, k) => ix.search(q, k),
    ids: (hits) => hits.map((h) => h.index),
    free: (ix) => ix.free(),
  },
  {
    key: "minisearch",
    name: `MiniSearch ${version("minisearch")} (JS)`,
    config: "`new MiniSearch({fields: [\"text\"]})` + `addAll([{id, text}])`; `search(q)` with default options (default tokenizer and processTerm = lowercase, OR, no prefix, no fuzzy, BM25+), first 10 results",
    build: (docs) => {
      const ms = new MiniSearch({ fields: ["text"] });
      ms.addAll(docs.map((text, id) => ({ id, text })));
      return ms;
    },
    search: (ms, q) => ms.search(q),
    ids: (hits, k) => hits.slice(0, k).map((r) => r.id),
    free: () => {},
  },
  {
    key: "flexsearch",
    name: `FlexSearch ${version("flexsearch")} (JS)`,
    config: "`new Index({encoder: EnglishPreset})` with `EnglishPreset = require(\"flexsearch/lang/en\")` (FlexSearch's documented Node.js way to use its English pack: stop words, stemmer, contractions, on the default Normalize charset; tokenize \"strict\", resolution 9); `index.add(i, note)`; `search(q, {limit: 10, suggest: true})` (`suggest` lets a note match without all query terms; without it R@10 is 0.10)",
    build: (docs) => {
      const ix = new FlexSearch.Index({ encoder: EnglishPreset });
      for (let i = 0; i < docs.length; i++) ix.add(i, docs[i]);
      return ix;
    },
    search: (ix, q, k) => ix.search(q, { limit: k, suggest: true }),
    ids: (hits) => hits,
    free: () => {},
  },
  {
    key: "fts5",
    name: `SQLite FTS5 (native; better-sqlite3 ${version("better-sqlite3")})`,
    config: "in-memory DB, `CREATE VIRTUAL TABLE notes USING fts5(body, tokenize='porter')`, inserts in one transaction; query `SELECT rowid FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 10` with MATCH = the question split on non-letters/digits, each token double-quoted, joined by OR",
    build: (docs) => {
      const db = new Database(":memory:");
      db.exec("CREATE VIRTUAL TABLE notes USING fts5(body, tokenize='porter')");
      const insert = db.prepare("INSERT INTO notes(rowid, body) VALUES (?, ?)");
      db.transaction(() => {
        for (let i = 0; i < docs.length; i++) insert.run(i, docs[i]);
      })();
      const stmt = db.prepare("SELECT rowid FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT ?").pluck();
      return { db, stmt };
    },
    search: ({ stmt }, q, k) => {
      const m = ftsQuery(q);
      return m === "" ? [] : stmt.all(m, k);
    },
    ids: (rows) => rows,
    free: ({ db }) => db.close(),
  },
];
const byKey = Object.fromEntries(engines.map((e) => [e.key, e]));

// ---------------------------------------------------------------- helpers

const now = () => process.hrtime.bigint();
const ms = (t0, t1) => Number(t1 - t0) / 1e6;
const gc = () => {
  if (typeof globalThis.gc === "function") {
    globalThis.gc();
    globalThis.gc();
  }
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Nearest-rank percentile. */
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)];
};
const f3 = (x) => x.toFixed(3);
const fms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const ratio = (x, base) => `${(x / base).toFixed(2)}×`;
const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const table = (head, rows) =>
  [`| ${head.join(" | ")} |`, `|${head.map((_, i) => (i ? " ---: " : " --- ")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

// ---------------------------------------------------------------- memory child

if (child) {
  // Fresh process per engine: the corpus first, then a baseline after gc,
  // then the index, then gc again; the index stays referenced to the end.
  const engine = byKey[child];
  const corpus = bigCorpus();
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const wasm0 = wasmMemoryBytes();
  const ix = engine.build(corpus);
  gc();
  const out = {
    heap: process.memoryUsage().heapUsed - heap0,
    rss: process.memoryUsage().rss - rss0,
    wasm: wasmMemoryBytes() - wasm0,
    wasmAfter: wasmMemoryBytes(),
  };
  if (child === "mnemo") {
    // A second index built while the first lives reuses the first build's
    // freed transient memory, so its growth approximates the resident size.
    const before = wasmMemoryBytes();
    const second = engine.build(corpus);
    out.secondWasm = wasmMemoryBytes() - before;
    second.free();
  }
  if (child === "fts5") out.sqlitePages = ix.db.pragma("page_count", { simple: true }) * ix.db.pragma("page_size", { simple: true });
  if (engine.ids(engine.search(ix, "hello", 1), 1).length > 1) throw new Error("unreachable");
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

if (typeof globalThis.gc !== "function") log("note: run with --expose-gc (npm run bench) for steadier numbers");
const t00 = now();
log(`${convs.length} conversations, ${allTurns.length} turns, ${allQuestions.length} questions with evidence`);

// ---------------------------------------------------------------- 1. quality

const quality = {};
for (const e of engines) {
  let r5 = 0, r10 = 0, mrr = 0, n = 0;
  for (const c of convs) {
    const ix = e.build(c.docs);
    for (const { text, evidence } of c.questions) {
      const ranked = e.ids(e.search(ix, text, 10), 10).slice(0, 10).map((i) => c.ids[i]);
      const recall = (k) => evidence.filter((ev) => ranked.slice(0, k).includes(ev)).length / evidence.length;
      const first = ranked.findIndex((r) => evidence.includes(r));
      r5 += recall(5);
      r10 += recall(10);
      mrr += first < 0 ? 0 : 1 / (first + 1);
      n++;
    }
    e.free(ix);
  }
  quality[e.key] = { r5: r5 / n, r10: r10 / n, mrr: mrr / n, n };
  log(`quality ${e.key}: R@5 ${f3(r5 / n)} R@10 ${f3(r10 / n)} MRR@10 ${f3(mrr / n)} (${n} questions)`);
}

// ---------------------------------------------------------------- 2a. speed, LoCoMo

// Warm-up: one more build of every conversation and a pass over the
// questions per engine (the quality pass above already ran them once).
for (const e of engines) {
  for (const c of convs) {
    const ix = e.build(c.docs);
    for (const q of c.questions) e.search(ix, q.text, 10);
    e.free(ix);
  }
}
gc();

const locomo = Object.fromEntries(engines.map((e) => [e.key, { build: [], p50: [], p95: [] }]));
for (let rep = 0; rep < REPS_LOCOMO; rep++) {
  // Rotate the order so that a noisy stretch does not always hit one engine.
  for (let j = 0; j < engines.length; j++) {
    const e = engines[(rep + j) % engines.length];
    const t0 = now();
    const indexes = convs.map((c) => e.build(c.docs));
    const build = ms(t0, now());
    const lat = [];
    convs.forEach((c, ci) => {
      for (const q of c.questions) {
        const a = now();
        e.search(indexes[ci], q.text, 10);
        lat.push(ms(a, now()));
      }
    });
    indexes.forEach((ix) => e.free(ix));
    gc();
    const r = locomo[e.key];
    r.build.push(build);
    r.p50.push(pct(lat, 0.5));
    r.p95.push(pct(lat, 0.95));
  }
  log(`LoCoMo speed rep ${rep + 1}/${REPS_LOCOMO}: ` + engines.map((e) => `${e.key} build ${fms(locomo[e.key].build[rep])} ms`).join(", "));
}

// ---------------------------------------------------------------- 2b. speed, 100k notes

const corpus = bigCorpus();
const sample = allQuestions.filter((_, i) => i % SAMPLE_STEP === 0);
const big = {};
for (const e of engines) {
  const builds = [];
  let ix;
  for (let rep = 0; rep < REPS_BIG_BUILD; rep++) {
    if (ix !== undefined) {
      e.free(ix);
      ix = undefined;
      gc();
    }
    const t0 = now();
    ix = e.build(corpus);
    builds.push(ms(t0, now()));
    log(`100k build ${e.key} ${rep + 1}/${REPS_BIG_BUILD}: ${fms(builds.at(-1))} ms`);
  }
  const slow = e.key === "minisearch" || e.key === "fts5";
  const timePass = (qs) => {
    const lat = [];
    for (const q of qs) {
      const a = now();
      e.search(ix, q, 10);
      lat.push(ms(a, now()));
    }
    return lat;
  };
  timePass(sample.slice(0, 20)); // warm-up
  const r = { build: median(builds), builds };
  // Full question set: two timed passes (medians of their p50/p95), except
  // for the slow peers; the sample: one pass for everyone.
  if (!slow) {
    const passes = [timePass(allQuestions), timePass(allQuestions)];
    r.p50 = median(passes.map((l) => pct(l, 0.5)));
    r.p95 = median(passes.map((l) => pct(l, 0.95)));
  }
  const s = timePass(sample);
  r.s50 = pct(s, 0.5);
  r.s95 = pct(s, 0.95);
  big[e.key] = r;
  log(`100k query ${e.key}: ${r.p50 !== undefined ? `all p50 ${fms(r.p50)} p95 ${fms(r.p95)} ms, ` : ""}sample p50 ${fms(r.s50)} p95 ${fms(r.s95)} ms`);
  e.free(ix);
  ix = undefined;
  gc();
}

// ---------------------------------------------------------------- 3. context()

const entries = [];
let chars = 0;
for (const t of allTurns) {
  const add = (entries.length ? 3 : 0) + t.length; // "\n§\n" between entries
  if (chars + add >= 120_000) break;
  entries.push(t);
  chars += add;
}
const mem = await Memory.open({ storage: "memory" });
const status = await mem.importMarkdown({ "MEMORY.md": entries.join("\n§\n") });
if (status.memory.mode !== "searched") throw new Error(`MEMORY.md is ${status.memory.mode}, expected searched`);
log(`context(): MEMORY.md ${status.memory.usage}, ${status.memory.entries} entries, ${status.memory.mode}`);
for (const q of allQuestions.slice(0, 300)) await mem.context(q); // warm-up
const ctx = { p50: [], p95: [] };
let blockChars = 0, nonEmpty = 0;
for (let rep = 0; rep < 3; rep++) {
  const lat = [];
  for (const q of allQuestions) {
    const a = now();
    const block = await mem.context(q);
    lat.push(ms(a, now()));
    if (rep === 0) {
      blockChars += block.length;
      if (block !== "") nonEmpty++;
    }
  }
  ctx.p50.push(pct(lat, 0.5));
  ctx.p95.push(pct(lat, 0.95));
}
await mem.close();
// Reference: the bare NoteIndex over the same entries.
const storeIx = new NoteIndex(entries);
for (const q of allQuestions.slice(0, 300)) storeIx.search(q, 10);
const raw = { p50: [], p95: [] };
for (let rep = 0; rep < 3; rep++) {
  const lat = [];
  for (const q of allQuestions) {
    const a = now();
    storeIx.search(q, 10);
    lat.push(ms(a, now()));
  }
  raw.p50.push(pct(lat, 0.5));
  raw.p95.push(pct(lat, 0.95));
}
storeIx.free();
log(`context() p50 ${fms(median(ctx.p50))} ms p95 ${fms(median(ctx.p95))} ms`);

// ---------------------------------------------------------------- 4. memory

const memory = {};
for (const e of engines) {
  log(`memory: 100k index of ${e.key} in a child process`);
  const out = execFileSync(process.execPath, ["--expose-gc", self, `--memory-child=${e.key}`, dataPath], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  });
  memory[e.key] = JSON.parse(out);
}

// ---------------------------------------------------------------- report

const total = ms(t00, now()) / 1000;
log(`done in ${total.toFixed(0)} s`);
const m = (key, field, set) => median(set[key][field]);
const out = [];
out.push(`## Note search: mnemo vs MiniSearch, FlexSearch, SQLite FTS5\n`);
out.push(
  `Node ${process.version}, ${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}, ${new Date().toISOString().slice(0, 10)}; ` +
    `LoCoMo: ${convs.length} conversations, ${allTurns.length} turns, ${allQuestions.length} questions with evidence. Run time ${total.toFixed(0)} s.\n`,
);
out.push(`### Quality on LoCoMo (one index per conversation, query = question)\n`);
out.push(
  table(
    ["engine", "R@5", "R@10", "MRR@10"],
    engines.map((e) => [e.name, f3(quality[e.key].r5), f3(quality[e.key].r10), f3(quality[e.key].mrr)]),
  ),
);
out.push(
  `\n### Speed on LoCoMo (10 indexes, ${allTurns.length} turns; ${allQuestions.length} queries, top 10)\n\n` +
    `Medians over ${REPS_LOCOMO} repetitions (build of all 10 indexes; p50/p95 of one query within a repetition). ` +
    `"÷ mnemo" = engine ÷ mnemo (above 1: slower than mnemo).\n`,
);
const lb = (k) => m(k, "build", locomo);
const l50 = (k) => m(k, "p50", locomo);
const l95 = (k) => m(k, "p95", locomo);
out.push(
  table(
    ["engine", "build 10 indexes (ms)", "÷ mnemo", "query p50 (ms)", "÷ mnemo", "query p95 (ms)", "÷ mnemo"],
    engines.map((e) => [e.name, fms(lb(e.key)), ratio(lb(e.key), lb("mnemo")), fms(l50(e.key)), ratio(l50(e.key), l50("mnemo")), fms(l95(e.key)), ratio(l95(e.key), l95("mnemo"))]),
  ),
);
out.push(
  `\n### Speed on ${BIG_N.toLocaleString("en")} notes (one index)\n\n` +
    `Note i = LoCoMo turn i mod ${allTurns.length} with " (i)" appended (every note distinct; each turn appears ${Math.floor(BIG_N / allTurns.length)}–${Math.ceil(BIG_N / allTurns.length)} times). ` +
    `Build: median of ${REPS_BIG_BUILD}. "all": the ${allQuestions.length} questions, median of 2 passes; ` +
    `"sample": every ${SAMPLE_STEP}th question (${sample.length}), one pass — MiniSearch and FTS5 run only the sample ` +
    `(they score every note that matches any query term: ${fms(big.minisearch.s50)} and ${fms(big.fts5.s50)} ms a query), and their ratios are to mnemo on the sample.\n`,
);
out.push(
  table(
    ["engine", "build (ms)", "÷ mnemo", "p50 all (ms)", "p95 all (ms)", "p50 sample (ms)", "÷ mnemo", "p95 sample (ms)", "÷ mnemo"],
    engines.map((e) => {
      const r = big[e.key], b = big.mnemo;
      return [
        e.name,
        fms(r.build),
        ratio(r.build, b.build),
        r.p50 !== undefined ? `${fms(r.p50)} (${ratio(r.p50, b.p50)})` : "—",
        r.p95 !== undefined ? `${fms(r.p95)} (${ratio(r.p95, b.p95)})` : "—",
        fms(r.s50),
        ratio(r.s50, b.s50),
        fms(r.s95),
        ratio(r.s95, b.s95),
      ];
    }),
  ),
);
out.push(
  `\n### mnemo per-turn context() on a full MEMORY.md (default config)\n\n` +
    `${status.memory.entries} LoCoMo turns imported with importMarkdown, ${status.memory.usage} (verbatim budget ${status.memory.verbatim_budget.toLocaleString("en")}, so context() searches); ` +
    `\`await mem.context(question)\` over the ${allQuestions.length} questions after 300 warm-up calls, medians of 3 passes. ` +
    `${nonEmpty} of ${allQuestions.length} calls returned a block, ${Math.round(blockChars / Math.max(1, nonEmpty))} chars on average.\n`,
);
out.push(
  table(
    ["call", "p50 (ms)", "p95 (ms)", "budget p95"],
    [
      ["`await mem.context(question)`", fms(median(ctx.p50)), fms(median(ctx.p95)), median(ctx.p95) < 1 ? "< 1 ms: met" : "< 1 ms: MISSED"],
      [`reference: \`new NoteIndex(entries).search(question, 10)\``, fms(median(raw.p50)), fms(median(raw.p95)), ""],
    ],
  ),
);
out.push(
  `\n### Memory of the ${BIG_N.toLocaleString("en")}-note index (each engine in a fresh process)\n\n` +
    `mnemo: wasm linear memory growth (\`wasmMemoryBytes()\` after − before the build; it includes the build's transient peak, as wasm memory never shrinks). ` +
    `JS peers: \`process.memoryUsage().heapUsed\` after − before, both after gc, the corpus allocated before. RSS Δ is rough (allocator retention included). ` +
    `FTS5 is native: its data lives outside the JS heap; its DB size is page_count × page_size.\n`,
);
out.push(
  table(
    ["engine", "index memory", "÷ mnemo", "how measured", "RSS Δ"],
    engines.map((e) => {
      const r = memory[e.key];
      const val = e.key === "mnemo" ? r.wasm : e.key === "fts5" ? r.sqlitePages : r.heap;
      const how =
        e.key === "mnemo"
          ? `wasm memory growth, build peak included (JS heap Δ ${mb(r.heap)}); a 2nd index built beside it grew it by ${mb(r.secondWasm)} (≈ resident size)` : e.key === "fts5" ? `SQLite DB pages (JS heap Δ ${mb(r.heap)})` : "JS heap Δ after gc";
      return [e.name, mb(val), ratio(val, memory.mnemo.wasm), how, mb(r.rss)];
    }),
  ),
);
out.push(`\n### Peer configurations\n`);
for (const e of engines) out.push(`- **${e.name}**: ${e.config}.`);
console.log(out.join("\n"));
