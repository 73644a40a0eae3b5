// Importance, pins, recall, injection and hybrid recall with the host's
// embedder through the npm package under Node.js (run scripts/build-js.sh
// first): metadata given on add and remember and shown by recall, the parts
// of a score, the filters, the answers of markImportant, pin, forget and
// updateMemory when a query selects no entry or several, the fallback
// injection, a deterministic embedder (synonyms share an axis) finding what
// keywords miss, one that throws or answers nonsense, vectors computed once
// and kept in the memory's database across a reopen, restore and
// purgeHistory. tests/js/lean.test.mjs runs these on the lean build too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// MNEMO_PKG runs these tests against another build (tests/js/lean.test.mjs).
const pkg = process.env.MNEMO_PKG ?? join(root, "pkg", "node", "mnemo.js");
if (!existsSync(pkg)) throw new Error(`${pkg} is missing: run scripts/build-js.sh first`);
const require = createRequire(import.meta.url);
const { Memory } = require(pkg);
const lean = process.env.MNEMO_PKG !== undefined;

const tmp = () => mkdtempSync(join(tmpdir(), "mnemo-importance-"));
const add = (content, extra = {}) => ({ action: "add", target: "memory", content, ...extra });

async function rejects(promise, code) {
  try {
    await promise;
  } catch (e) {
    assert.equal(e.name, "MnemoError", String(e));
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected a MnemoError with code ${code}`);
}

/** Concept axes: the words of one axis mean the same thing to this "model". */
const AXES = [
  ["rate", "limiting", "throttling", "throttle", "quota"],
  ["database", "postgres", "db", "sql"],
  ["deploy", "release", "ship"],
  ["auth", "authentication", "login", "oauth"],
];

/** A deterministic embedder over AXES; counts the texts it was asked for. */
function concepts({ fail = false, answer } = {}) {
  const seen = { calls: 0, texts: 0 };
  const embedder = {
    model: "concepts-v1",
    dimensions: AXES.length + 1,
    embed: async (texts) => {
      seen.calls++;
      seen.texts += texts.length;
      if (fail) throw new Error("embedding service down");
      if (answer) return answer(texts);
      return texts.map((t) => {
        const v = new Float32Array(AXES.length + 1);
        for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) {
          const i = AXES.findIndex((axis) => axis.includes(w));
          if (i >= 0) v[i] += 1;
          else if (w) v[AXES.length] += 0.1;
        }
        return v;
      });
    },
  };
  return { embedder, seen };
}

const NOTES = [
  add("Rate limiting is 100 requests/min per user (token bucket)", { importance: 0.9, category: "decision" }),
  add("The production database is Postgres 16 on db-1", { importance: 0.7, category: "project" }),
  add("Releases go out on Fridays after the smoke tests", { importance: 0.3, category: "event" }),
  add("Login uses OAuth with GitHub as the provider", { category: "security" }),
];

async function seeded(opts = {}) {
  const m = await Memory.open({ storage: "memory", ...opts });
  for (const note of NOTES) {
    const r = await m.tool(note);
    assert.equal(r.success, true, JSON.stringify(r));
  }
  return m;
}

test("add and remember carry importance and category; recall shows them, with mode", async () => {
  const m = await seeded();
  const fact = await m.remember("Prefers concise answers under 200 words", { importance: 0.6, category: "preference" });
  assert.equal(fact.success, true, JSON.stringify(fact));
  const r = await m.recall("rate limiting requests");
  assert.ok(Array.isArray(r));
  assert.equal(r.mode, "keyword");
  assert.equal(r.skipped, undefined);
  assert.equal(r.length, 1);
  const [hit] = r;
  assert.match(hit.content, /^Rate limiting is 100/);
  assert.equal(hit.importance, 0.9);
  assert.equal(hit.category, "decision");
  assert.equal(hit.target, "memory");
  assert.equal(hit.index, 0);
  assert.match(hit.id, /^memory:memory:/);
  assert.equal(typeof hit.created, "number");
  assert.ok(hit.created > 1.7e12);
  assert.equal(hit.pinned, false);
  assert.equal(hit.explain, undefined);
  assert.ok(hit.relevance > 0 && hit.relevance <= 1.2);
  const user = await m.recall("concise answers", { target: "user" });
  assert.equal(user[0].category, "preference");
  assert.equal(user[0].importance, 0.6);
  // No category given: general; no importance: the default 0.5.
  const login = await m.recall("OAuth login");
  assert.equal(login[0].category, "security");
  assert.equal(login[0].importance, 0.5);
  const status = await m.status();
  assert.equal(status.recall, "keyword");
  await m.close();
});

test("explain gives every part of the score, and the parts add up", async () => {
  const m = await seeded();
  const [hit] = await m.recall("production database Postgres", { explain: true });
  const e = hit.explain;
  for (const key of ["keyword", "bm25", "relevance", "boost", "decay", "age_days", "pinned", "adjusted"]) {
    assert.ok(key in e, `explain lacks ${key}: ${JSON.stringify(e)}`);
  }
  assert.equal(e.semantic, undefined);
  assert.ok(e.bm25 > 0);
  assert.ok(e.keyword > 0 && e.keyword < 1);
  assert.equal(e.relevance, e.keyword);
  // boost = (importance − 0.5) × 0.2
  assert.ok(Math.abs(e.boost - 0.04) < 1e-6, JSON.stringify(e));
  // A fresh entry has not decayed.
  assert.ok(e.decay > 0.999 && e.decay <= 1);
  assert.ok(e.age_days >= 0 && e.age_days < 0.01);
  assert.ok(Math.abs(e.adjusted - (e.relevance + e.boost) * e.decay) < 1e-3);
  assert.equal(hit.relevance, e.adjusted);
  await m.close();
});

test("filters by importance and category, a threshold, a limit, and bad options", async () => {
  const m = await seeded();
  // Words of every note, so every note matches.
  const all = "rate database releases login";
  assert.equal((await m.recall(all)).length, 4);
  const high = await m.recall(all, { minImportance: 0.7 });
  assert.deepEqual(high.map((h) => h.importance).sort(), [0.7, 0.9]);
  const low = await m.recall(all, { maxImportance: 0.5 });
  assert.deepEqual(low.map((h) => h.importance).sort(), [0.3, 0.5]);
  const decisions = await m.recall(all, { category: "decision" });
  assert.equal(decisions.length, 1);
  assert.equal(decisions[0].category, "decision");
  assert.equal((await m.recall(all, { limit: 2 })).length, 2);
  // Absolute scores: a threshold no keyword score reaches finds nothing.
  const none = await m.recall(all, { scoreThreshold: 0.99 });
  assert.equal(none.length, 0);
  assert.equal(none.mode, "keyword");
  const some = await m.recall(all, { scoreThreshold: 0.01, explain: true });
  assert.ok(some.length > 0);
  for (const h of some) assert.ok(h.relevance >= 0.01);
  // Importance moves a result up: the same words, a different importance.
  assert.equal((await m.recall("nothing like this here")).length, 0);
  await rejects(m.recall("x", { minImportance: 2 }), "invalid-input");
  await rejects(m.recall("x", { category: "gossip" }), "invalid-input");
  await rejects(m.recall("x", { lmit: 3 }), "invalid-input");
  await rejects(m.recall(42), "invalid-input");
  await rejects(m.recall("   "), "empty");
  await m.close();
});

test("markImportant and pin: no match and several matches change nothing; all: true", async () => {
  const m = await seeded();
  const none = await rejects(m.markImportant("no such words", 0.9), "no-match");
  assert.match(none.message, /no entry contains/);
  const many = await rejects(m.markImportant("the", 0.95), "ambiguous-match");
  assert.match(many.message, /Candidates: memory:memory:/);
  assert.match(many.message, /Fridays/);
  assert.match(many.message, /OAuth/);
  await rejects(m.pin("the"), "ambiguous-match");
  await rejects(m.pin("nothing of the sort"), "no-match");
  // Nothing changed.
  const before = await m.recall("rate database releases login", { limit: 10 });
  assert.deepEqual(before.map((h) => h.importance).sort(), [0.3, 0.5, 0.7, 0.9]);
  assert.ok(before.every((h) => !h.pinned));

  const one = await m.markImportant("Fridays", 0.8);
  assert.equal(one.entries.length, 1);
  assert.match(one.entries[0], /^memory:memory:/);
  assert.match(one.message, /importance 0.8 set on 1 entry/);
  assert.equal((await m.recall("Fridays"))[0].importance, 0.8);

  const all = await m.markImportant("the", 0.95, { all: true });
  assert.ok(all.entries.length >= 2, JSON.stringify(all));
  for (const h of await m.recall("rate database releases login")) {
    if (h.content.includes("the")) assert.equal(h.importance, 0.95);
  }

  const pinned = await m.pin("OAuth");
  assert.equal(pinned.entries.length, 1);
  const [login] = await m.recall("OAuth", { explain: true });
  assert.equal(login.pinned, true);
  assert.equal(login.importance, 1);
  assert.equal(login.explain.decay, 1);
  // Pinning again changes nothing.
  assert.deepEqual((await m.pin("OAuth")).entries, []);
  await rejects(m.markImportant("OAuth", 1.5), "invalid-input");
  await rejects(m.markImportant("OAuth", 0.5, { al: true }), "invalid-input");
  await rejects(m.pin("OAuth", { all: true }), "invalid-input");
  await m.close();
});

test("forget and updateMemory: candidates on no or several matches; all: true; staged under approval", async () => {
  const m = await seeded();
  const none = await m.forget("no such words");
  assert.equal(none.success, false);
  assert.equal(none.code, "no-match");
  const many = await m.forget("the");
  assert.equal(many.success, false);
  assert.equal(many.code, "ambiguous-match");
  assert.match(many.error, /Candidates:/);
  // Like the memory tool's, these failures count toward the per-turn retry
  // cap; context() ends the turn.
  await m.context("next turn");
  const upMany = await m.updateMemory("the", "Replaced");
  assert.equal(upMany.code, "ambiguous-match");
  const upNone = await m.updateMemory("nowhere", "Replaced");
  assert.equal(upNone.code, "no-match");
  assert.equal((await m.status()).memory.entries, 4);

  const up = await m.updateMemory("Releases go out", "Releases go out on Thursdays after the smoke tests", { importance: 0.85 });
  assert.equal(up.success, true, JSON.stringify(up));
  const [rel] = await m.recall("Thursdays");
  assert.match(rel.content, /Thursdays/);
  assert.equal(rel.importance, 0.85);
  await rejects(m.updateMemory("Thursdays", "x", { importance: -1 }), "invalid-input");

  const gone = await m.forget("Rate limiting");
  assert.equal(gone.success, true, JSON.stringify(gone));
  assert.equal((await m.recall("rate limiting")).length, 0);
  const wiped = await m.forget("the", { all: true });
  assert.equal(wiped.success, true, JSON.stringify(wiped));
  // Selection is by substring, case-sensitive as old_text: "The production…" stays.
  assert.equal((await m.status()).memory.entries, 1);
  assert.match((await m.recall("Postgres"))[0].content, /^The production database/);
  const history = await m.history();
  assert.ok(history.length >= 3);
  await m.close();

  // Under write approval both are staged, and nothing changes until approved.
  const g = await seeded({ config: { memory: { write_approval: true } } });
  assert.equal((await g.status()).memory.entries, 0);
  await g.approve("all");
  const staged = await g.forget("Postgres");
  assert.equal(staged.staged, true);
  assert.equal((await g.recall("Postgres")).length, 1);
  const edit = await g.updateMemory("OAuth", "Login uses OAuth with GitLab");
  assert.equal(edit.staged, true);
  await g.approve("all");
  assert.equal((await g.recall("Postgres")).length, 0);
  assert.match((await g.recall("OAuth"))[0].content, /GitLab/);
  await g.close();
});

test("inject: the Relevant Memory block, and the most important entries for a generic prompt", async () => {
  const m = await Memory.open({ storage: "memory" });
  assert.equal(await m.inject("anything"), "");
  for (const note of NOTES) await m.tool(note);
  const block = await m.inject("What is the rate limiting policy?");
  assert.match(block, /^## Relevant Memory\n/);
  assert.match(block, /- \[decision\] Rate limiting is 100 requests\/min per user \(token bucket\) \(importance: 0\.9\)/);
  // A generic prompt matches nothing: the top entries by importance, most important first.
  const fallback = await m.inject("check inbox");
  const lines = fallback.split("\n").slice(1);
  assert.ok(lines.length >= 2, fallback);
  assert.match(lines[0], /^- \[decision\] Rate limiting/);
  assert.match(lines[1], /^- \[project\] The production database/);
  assert.match(fallback, /- \[security\] Login uses OAuth .* \(importance: 0\.5\)/);
  await rejects(m.inject(7), "invalid-input");
  await m.close();
});

test("a host embedder: recall finds a synonym keywords miss, and status says hybrid", async () => {
  const keyword = await seeded();
  assert.equal((await keyword.recall("throttling")).length, 0);
  await keyword.close();

  const { embedder, seen } = concepts();
  const m = await seeded({ embedder });
  assert.equal((await m.status()).recall, "hybrid (concepts-v1, 5 dimensions)");
  const r = await m.recall("throttling", { explain: true });
  assert.equal(r.mode, "hybrid");
  assert.equal(r.skipped, undefined);
  assert.match(r[0].content, /^Rate limiting/);
  assert.ok(r[0].explain.semantic > 0.9, JSON.stringify(r[0].explain));
  assert.equal(r[0].explain.keyword, 0);
  // Vectors are not computed again: the second recall embeds the query only.
  const after = seen.texts;
  assert.equal(after, NOTES.length + 1);
  const again = await m.recall("postgres db");
  assert.match(again[0].content, /database/);
  assert.equal(seen.texts, after + 1);
  // A new entry is the only text embedded with the next query.
  await m.tool(add("Ship the mobile app through the store review"));
  await m.recall("release");
  assert.equal(seen.texts, after + 1 + 2);
  // inject uses it too.
  assert.match(await m.inject("how do we throttle clients?"), /\[decision\] Rate limiting/);
  // So do search and the tool's search: only matches, the synonym found.
  const hits = await m.search("throttling");
  assert.equal(hits.length, 1, JSON.stringify(hits));
  assert.match(hits[0].text, /^Rate limiting/);
  assert.equal((await keywordOnlySearch()).length, 0);
  await m.close();
});

async function keywordOnlySearch() {
  const k = await seeded();
  const hits = await k.search("throttling");
  await k.close();
  return hits;
}

test("an embedder that throws or answers nonsense: recall answers by keywords and says why", async () => {
  const failing = concepts({ fail: true });
  const m = await seeded({ embedder: failing.embedder });
  const r = await m.recall("rate limiting");
  assert.equal(r.mode, "keyword");
  assert.match(r.skipped, /embedding service down/);
  assert.match(r.skipped, /keywords only/);
  assert.match(r[0].content, /^Rate limiting/);
  assert.match(await m.inject("rate limiting"), /Rate limiting/);
  await m.close();

  const answers = [
    () => "not an array",
    (texts) => texts.map(() => [1, 2]), // wrong dimensions
    (texts) => texts.map(() => ["a", "b", "c", "d", "e"]),
    (texts) => texts.slice(1).map(() => new Float32Array(5)), // too few vectors
    (texts) => texts.map(() => [NaN, 0, 0, 0, 0]),
    () => null,
  ];
  for (const answer of answers) {
    const { embedder } = concepts({ answer });
    const n = await seeded({ embedder });
    const got = await n.recall("rate limiting");
    assert.equal(got.mode, "keyword", String(answer));
    assert.equal(typeof got.skipped, "string");
    assert.equal(got.length, 1);
    await n.close();
  }
  // Plain number arrays are fine.
  const plain = concepts({ answer: (texts) => texts.map((t) => Array.from(AXES, (axis) => (axis.some((w) => t.toLowerCase().includes(w)) ? 1 : 0)).concat(0.1)) });
  const p = await seeded({ embedder: plain.embedder });
  const hy = await p.recall("throttling");
  assert.equal(hy.mode, "hybrid", hy.skipped);
  assert.match(hy[0].content, /^Rate limiting/);
  await p.close();
});

test("a bad embedder option is invalid-config", async () => {
  const embed = async (texts) => texts.map(() => new Float32Array(3));
  for (const embedder of [
    "model",
    () => {},
    { dimensions: 3, embed },
    { model: "", dimensions: 3, embed },
    { model: "m", dimensions: 0, embed },
    { model: "m", dimensions: 2.5, embed },
    { model: "m", dimensions: "3", embed },
    { model: "m", dimensions: 100000, embed },
    { model: "m", dimensions: 3 },
    { model: "m", dimensions: 3, embed: "f" },
    { model: "m", dimensions: 3, embed, batch: 8 },
  ]) {
    await rejects(Memory.open({ storage: "memory", embedder }), "invalid-config");
  }
  const m = await Memory.open({ storage: "memory", embedder: { model: "m", dimensions: 3, embed } });
  assert.equal((await m.status()).recall, "hybrid (m, 3 dimensions)");
  await m.close();
});

test("vectors are kept in the memory's database: a reopened memory does not embed its entries again", async () => {
  const dir = tmp();
  const first = concepts();
  const m = await Memory.open({ storage: "fs", dir, embedder: first.embedder });
  for (const note of NOTES) await m.tool(note);
  assert.equal((await m.recall("throttling")).mode, "hybrid");
  assert.equal(first.seen.texts, NOTES.length + 1);
  await m.close();

  const second = concepts();
  const again = await Memory.open({ storage: "fs", dir, embedder: second.embedder });
  const r = await again.recall("throttling");
  assert.equal(r.mode, "hybrid");
  assert.match(r[0].content, /^Rate limiting/);
  // The full build reads them from state.db; the lean one has no database
  // and embeds the entries again.
  assert.equal(second.seen.texts, lean ? NOTES.length + 1 : 1);
  await again.close();

  // Another model's vectors are not reused.
  const other = concepts();
  other.embedder.model = "concepts-v2";
  const third = await Memory.open({ storage: "fs", dir, embedder: other.embedder });
  await third.recall("throttling");
  assert.equal(other.seen.texts, NOTES.length + 1);
  await third.close();
});

test("restore puts a forgotten text back; purgeHistory removes items for good", async () => {
  const m = await seeded();
  await m.forget("Postgres");
  await m.forget("Fridays");
  const history = await m.history();
  assert.equal(history.length, 2);
  for (const item of history) assert.match(item.id, /^h\d+$/);
  const postgres = history.find((i) => i.text.includes("Postgres"));
  const restored = await m.restore(postgres.id);
  assert.equal(restored.success, true, JSON.stringify(restored));
  assert.equal((await m.recall("Postgres")).length, 1);
  // The history keeps the item.
  assert.equal((await m.history()).length, 2);
  const missing = await m.restore("h999");
  assert.equal(missing.success, false);
  assert.equal(missing.code, "no-match");
  // Restoring twice is a duplicate, answered like the tool.
  assert.equal((await m.status()).memory.entries, 3);

  await rejects(m.purgeHistory({ id: "h999" }), "no-match");
  assert.equal(await m.purgeHistory({ id: postgres.id }), 1);
  assert.equal((await m.history()).length, 1);
  assert.equal(await m.purgeHistory({ before: 1 }), 0);
  assert.equal(await m.purgeHistory({ before: Date.now() + 1000 }), 1);
  assert.equal(await m.purgeHistory(), 0);
  await m.forget("OAuth");
  assert.equal(await m.purgeHistory(), 1);
  await rejects(m.purgeHistory({ when: 1 }), "invalid-input");
  await rejects(m.purgeHistory({ before: -5 }), "invalid-input");
  await m.close();
});

test("the new calls reject with closed after close()", async () => {
  const m = await seeded();
  await m.close();
  await rejects(m.recall("rate"), "closed");
  await rejects(m.inject("rate"), "closed");
  await rejects(m.markImportant("rate", 0.9), "closed");
  await rejects(m.pin("rate"), "closed");
  await rejects(m.forget("rate"), "closed");
  await rejects(m.updateMemory("rate", "x"), "closed");
  await rejects(m.restore("h1"), "closed");
  await rejects(m.purgeHistory(), "closed");
});

test("an embedder that never answers: the caller's signal gives up on it, recall answers by keywords, and later calls are not held", async () => {
  const never = { model: "hangs-v1", dimensions: AXES.length + 1, embed: () => new Promise(() => {}) };
  const m = await seeded({ embedder: never });
  const before = await m.exportMarkdown();
  const controller = new AbortController();
  const pending = m.recall("rate limiting", { signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  const r = await pending;
  assert.equal(r.mode, "keyword");
  assert.match(r.skipped, /cancelled while the host's embed was answering/);
  assert.match(r[0].content, /^Rate limiting/);
  // search, context and inject take the signal too; one already aborted
  // gives up at once.
  const aborted = AbortSignal.abort();
  assert.match((await m.search("rate limiting", { signal: aborted }))[0].text, /^Rate limiting/);
  assert.equal(typeof (await m.context("rate limiting", { signal: aborted })), "string");
  assert.match(await m.inject("rate limiting", { signal: aborted }), /Rate limiting/);
  // Nothing changed, and the memory still answers.
  assert.deepEqual(await m.exportMarkdown(), before);
  assert.equal((await m.status()).memory.entries, NOTES.length);
  // A signal that is not an AbortSignal is API misuse.
  await rejects(m.recall("x", { signal: "soon" }), "invalid-input");
  await rejects(m.context("x", { signal: 5 }), "invalid-input");
  await rejects(m.inject("x", { deadline: 5 }), "invalid-input");
  await m.close();
});
