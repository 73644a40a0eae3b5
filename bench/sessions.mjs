// Session search in wasm (the npm package under Node, storage "memory":
// SQLite through sqlite-wasm-rs) over 100,000 messages, beside SQLite FTS5
// natively (better-sqlite3, porter tokenizer) on the same messages and
// queries, in one run. The messages are LoCoMo turns (cycled, numbered so
// every one is distinct), 50 per session; the queries are the LoCoMo
// questions. Reports p50 / p95.
// Run: scripts/build-js.sh && npm --prefix bench ci && node bench/sessions.mjs [path/to/locomo10.json]
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadLocomo } from "./locomo.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { Memory } = require(join(root, "pkg", "node", "mnemo.js"));
const Database = require(join(root, "bench", "node_modules", "better-sqlite3"));
const dataPath = process.argv[2] ?? process.env.LOCOMO ?? join(root, "..", "shared", "locomo", "locomo10.json");
if (!existsSync(dataPath)) throw new Error(`LoCoMo data not found at ${dataPath} (pass its path or set LOCOMO)`);

const convs = loadLocomo(dataPath);
const turns = convs.flatMap((c) => c.docs);
const questions = convs.flatMap((c) => c.questions.map((q) => q.text));
const TOTAL = 100_000;
const message = (i) => `${turns[i % turns.length]} (${i})`;
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(s.length / 2)], s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]];
};
const ms = (x) => (x < 1 ? x.toFixed(3) : x.toFixed(2));
const rows = [];

// mnemo in wasm: a completed turn (user + assistant) per recordTurn.
{
  const memory = await Memory.open({ storage: "memory" });
  const appends = [];
  const t0 = performance.now();
  for (let i = 0; i < TOTAL; i += 2) {
    const a = performance.now();
    await memory.recordTurn({ session: `s${Math.floor(i / 50)}`, user: message(i), assistant: message(i + 1), time: i * 60_000 });
    appends.push(performance.now() - a);
  }
  const build = (performance.now() - t0) / 1000;
  for (const q of questions.slice(0, 100)) await memory.sessionSearch(q); // warm-up
  const search = [];
  for (const q of questions) {
    const a = performance.now();
    await memory.sessionSearch(q, { limit: 10 });
    search.push(performance.now() - a);
  }
  const scroll = [];
  for (let i = 0; i < 1000; i++) {
    const a = performance.now();
    await memory.sessionMessages(`s${i * 2}`, { around: 25, before: 5, after: 5 });
    scroll.push(performance.now() - a);
  }
  rows.push({ engine: "mnemo, wasm under Node (recordTurn = 2 messages)", appends, build, search, scroll });
}

// SQLite FTS5 natively, the peer: same messages, a message per insert
// (own transaction), an OR of the question's tokens.
{
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, session TEXT, seq INTEGER, role TEXT, text TEXT, time INTEGER);
           CREATE INDEX messages_session ON messages(session, seq);
           CREATE VIRTUAL TABLE messages_fts USING fts5(text, tokenize='porter');`);
  const insert = db.prepare("INSERT INTO messages (session, seq, role, text, time) VALUES (?, ?, ?, ?, ?)");
  const index = db.prepare("INSERT INTO messages_fts (rowid, text) VALUES (?, ?)");
  const append = db.transaction((i) => {
    const text = message(i);
    const { lastInsertRowid } = insert.run(`s${Math.floor(i / 50)}`, (i % 50) + 1, i % 2 ? "assistant" : "user", text, i * 60_000);
    index.run(lastInsertRowid, text);
  });
  const appends = [];
  const t0 = performance.now();
  for (let i = 0; i < TOTAL; i += 2) {
    const a = performance.now();
    append(i);
    append(i + 1);
    appends.push(performance.now() - a);
  }
  const build = (performance.now() - t0) / 1000;
  const query = db.prepare(
    "SELECT m.session, m.seq, snippet(messages_fts, 0, '**', '**', '…', 16) FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? ORDER BY bm25(messages_fts) LIMIT 10",
  );
  const match = (q) =>
    q.split(/[^\p{L}\p{N}]+/u).filter((t) => t !== "").map((t) => `"${t}"`).join(" OR ");
  const search = [];
  for (const q of questions) {
    const a = performance.now();
    query.all(match(q) || '""');
    search.push(performance.now() - a);
  }
  const around = db.prepare("SELECT * FROM messages WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq");
  const scroll = [];
  for (let i = 0; i < 1000; i++) {
    const a = performance.now();
    around.all(`s${i * 2}`, 20, 30);
    scroll.push(performance.now() - a);
  }
  rows.push({ engine: "SQLite FTS5 native (better-sqlite3, porter; 2 inserts per turn)", appends, build, search, scroll });
}

console.log(`Session search over ${TOTAL.toLocaleString("en")} LoCoMo messages, ${questions.length} questions. ms, p50 / p95.\n`);
console.log("| engine | record a turn | discovery (top 10) | scroll (11 around one) | build all |");
console.log("|---|---:|---:|---:|---:|");
for (const r of rows) {
  const [a50, a95] = stats(r.appends);
  const [s50, s95] = stats(r.search);
  const [c50, c95] = stats(r.scroll);
  console.log(`| ${r.engine} | ${ms(a50)} / ${ms(a95)} | ${ms(s50)} / ${ms(s95)} | ${ms(c50)} / ${ms(c95)} | ${r.build.toFixed(1)} s |`);
}
