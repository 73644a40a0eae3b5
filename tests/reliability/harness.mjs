// The crash campaign, load and soak harness: writers on the shared surfaces
// of one memories directory (the native CLI, Node's "fs" storage, MCP
// servers), a model of what they were told was written, and the checks run
// after each kill. Shared by the short forms (tests/reliability/*.test.mjs)
// and the long forms (bench/crash.mjs, bench/load.mjs, bench/soak.mjs).
//
// A write is acknowledged when the CLI exited 0, or when the Node API's
// promise resolved with success (the writer prints `ack` only then). After a
// SIGKILL the write in flight may or may not have happened; every
// acknowledged one must be there, and nothing else.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The native CLI (`MNEMO_BIN` names another build, e.g. a release one). */
export const MNEMO =
  process.env.MNEMO_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug", "mnemo");
/** The npm package's node build. */
export const PKG = join(ROOT, "pkg", "node", "mnemo.js");
/** The Node writer process (tests/reliability/writer.mjs). */
export const WRITER = join(ROOT, "tests", "reliability", "writer.mjs");
/** `npx mnemo`'s entry point in the built package. */
export const NPX_CLI = join(ROOT, "pkg", "cli.mjs");

export const tmp = (what = "crash") => mkdtempSync(join(tmpdir(), `mnemo-${what}-`));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The package's `Memory` class (loaded on first use). */
export function memoryClass() {
  if (!existsSync(PKG)) throw new Error(`${PKG} is missing: run scripts/build-js.sh first`);
  return createRequire(import.meta.url)(PKG).Memory;
}

/** A seeded pseudo-random generator (mulberry32): trials are reproducible from their seed. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** p50 / p95 / max of a sample (ms), and its size. */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => (s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : NaN);
  return { n: s.length, p50: at(0.5), p95: at(0.95), max: s.length ? s[s.length - 1] : NaN };
}

// Notes must differ in more than their numbers: the memory tool refuses a
// near-duplicate (the same words in another order). Each carries a token
// no other note contains, which replace and remove use as `old_text`.
const WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lagoon", "meadow", "nectar", "orchid", "pepper"];

/** A note of writer `tag`, unique by its token `<tag>k<n>`. */
export function noteText(tag, n, r = Math.random) {
  const w = () => WORDS[Math.floor(r() * WORDS.length)];
  // The token ends in a letter, so no token is a substring of another.
  return `${tag} recalls the ${w()} ${w()} ${w()} release ${tag}k${n}q`;
}

/** The token of a note written by [`noteText`]. */
export const tokenOf = (text) => text.slice(text.lastIndexOf(" ") + 1);

/**
 * The next write of writer `tag` on a memory where `own` are its live notes:
 * add, replace or remove a note, record a session turn, or log a note.
 * `counter` numbers the writer's texts.
 */
export function nextOp(r, tag, own, counter, kinds = ["add", "replace", "remove", "session", "note"]) {
  const pick = r();
  const can = (k) => kinds.includes(k) && (own.length > 0 || (k !== "replace" && k !== "remove"));
  // Keep the store small: past 30 notes a writer removes more than it adds.
  const full = own.length > 30;
  const n = counter.next++;
  if (can("remove") && (full ? pick < 0.5 : pick < 0.15)) {
    return { kind: "remove", old: own[Math.floor(r() * own.length)] };
  }
  if (can("replace") && pick < 0.35) {
    return { kind: "replace", old: own[Math.floor(r() * own.length)], text: noteText(tag, n, r) };
  }
  if (can("session") && pick < 0.45) return { kind: "session", session: `${tag}-s${n}`, text: `${tag} asked about release ${n}` };
  if (can("note") && pick < 0.55) return { kind: "note", text: `${tag} checked the deploy ${tag}n${n}` };
  return { kind: "add", text: noteText(tag, n, r) };
}

/** The notes after `op` was applied to `entries` (a Set of texts). */
function applied(entries, op) {
  const next = new Set(entries);
  if (op?.kind === "add") next.add(op.text);
  if (op?.kind === "replace" || op?.kind === "remove") next.delete(op.old);
  if (op?.kind === "replace") next.add(op.text);
  return next;
}

/**
 * What the writers of one directory were told was written: notes, sessions
 * and log notes acknowledged, and the write in flight when one was killed.
 */
export class Model {
  constructor() {
    this.entries = new Set();
    this.sessions = new Set();
    this.notes = new Set();
    // Acknowledged since the last check (sessions and log notes are checked
    // as they arrive, the notes' whole set every time).
    this.fresh = { sessions: new Set(), notes: new Set() };
    this.inflight = null;
  }

  /** The live notes of writer `tag`, oldest first. */
  own(tag) {
    return [...this.entries].filter((e) => e.startsWith(`${tag} `));
  }

  begin(op) {
    this.inflight = op;
  }

  ack(op) {
    this.entries = applied(this.entries, op);
    if (op.kind === "session") this.fresh.sessions.add(op.session);
    if (op.kind === "note") this.fresh.notes.add(op.text);
    this.inflight = null;
  }

  /** The write in flight failed cleanly (exit 1, success false): nothing changed. */
  fail() {
    this.inflight = null;
  }

  /**
   * Checks `state` (what a reader found) against the model: every
   * acknowledged write present, nothing else but the write in flight,
   * whole or not at all. Returns the problems found (none: []) and settles
   * the write in flight as the state shows it.
   */
  check(state) {
    const problems = [];
    const actual = new Set(state.entries);
    if (actual.size !== state.entries.length) problems.push(`duplicate notes in MEMORY.md: ${state.entries.length - actual.size}`);
    const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));
    const after = applied(this.entries, this.inflight);
    if (same(actual, after)) this.entries = after;
    else if (!same(actual, this.entries)) {
      const lost = [...this.entries].filter((e) => !actual.has(e) && !after.has(e));
      const extra = [...actual].filter((e) => !this.entries.has(e) && !after.has(e));
      problems.push(`notes differ from the acknowledged writes: lost ${JSON.stringify(lost)}, unexpected ${JSON.stringify(extra)}`);
      this.entries = actual;
    }
    const op = this.inflight;
    for (const id of this.fresh.sessions) if (!state.sessions.has(id)) problems.push(`acknowledged session ${id} is missing`);
    for (const text of this.fresh.notes) if (!state.notes.has(text)) problems.push(`acknowledged log note ${JSON.stringify(text)} is missing`);
    if (op?.kind === "session" && state.sessions.has(op.session)) this.sessions.add(op.session);
    if (op?.kind === "note" && state.notes.has(op.text)) this.notes.add(op.text);
    this.fresh.sessions.forEach((s) => this.sessions.add(s));
    this.fresh.notes.forEach((n) => this.notes.add(n));
    this.fresh = { sessions: new Set(), notes: new Set() };
    if (state.ids !== undefined && state.ids !== actual.size) {
      problems.push(`the metadata knows ${state.ids} notes with ids, the store holds ${actual.size}`);
    }
    this.inflight = null;
    return problems;
  }
}

const entriesOf = (text) => (text === "" ? [] : text.split("\n§\n"));

/** Runs a command; resolves with its exit code, signal, output and wall time (ms). */
export function run(command, args, { input, env } = {}) {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: env ?? process.env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.on("error", () => {});
  child.stdin.end(input ?? "");
  const done = new Promise((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started })),
  );
  return { child, done };
}

/** `mnemo --dir <dir> …args` to the end. */
export const mnemo = (dir, args, opts) => run(MNEMO, ["--dir", dir, ...args], opts).done;

/** The CLI's command line for `op`, and its standard input. */
export function cliArgs(op) {
  switch (op.kind) {
    case "add":
      return { args: ["add", op.text] };
    case "replace":
      return { args: ["replace", tokenOf(op.old), op.text] };
    case "remove":
      return { args: ["remove", tokenOf(op.old)] };
    case "session":
      return { args: ["sessions", "import", "-"], input: `${JSON.stringify({ session: op.session, role: "user", text: op.text })}\n` };
    case "note":
      return { args: ["note", op.text] };
  }
  throw new Error(`no such op ${op.kind}`);
}

/** The lock file a killed writer may leave, and whether its holder is alive. */
export function lockState(dir) {
  const path = join(dir, ".mnemo.lock");
  if (!existsSync(path)) return { left: false };
  let pid = NaN;
  try {
    pid = Number.parseInt(readFileSync(path, "utf8"), 10);
  } catch {}
  let alive = false;
  if (Number.isInteger(pid)) {
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
  }
  return { left: true, pid, alive };
}

/**
 * What the CLI reads back from `dir`: the notes (`export`), the sessions
 * among the 50 most recent (`sessions list`), today's log notes (`log`),
 * the number of notes with ids (`journey`), after `status` parsed
 * everything. Throws with the CLI's error when a command fails.
 */
export async function readCli(dir) {
  const out = async (args) => {
    const r = await mnemo(dir, args);
    if (r.code !== 0) throw new Error(`mnemo ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const started = performance.now();
  const status = await out(["status", "--json"]);
  const firstMs = performance.now() - started;
  if (status.memory.damaged) throw new Error(`MEMORY.md reported damaged: ${JSON.stringify(status.memory.damaged)}`);
  const files = await out(["export"]);
  const sessions = await out(["sessions", "list", "-n", "50", "--json"]);
  const log = await out(["log", "--json"]);
  const journey = await out(["journey", "--json"]);
  return {
    firstMs,
    entries: entriesOf(files["MEMORY.md"]),
    sessions: new Set(sessions.map((s) => s.id)),
    notes: new Set(log.filter((r) => r.what === "note").map((r) => r.text)),
    ids: new Set(journey.nodes.filter((n) => n.kind === "note").map((n) => n.entry_id)).size,
  };
}

/**
 * The same through the npm package (`Memory.open({storage: "fs"})` in this
 * process, closed again): the notes, which of `sessions` have messages,
 * today's log notes, the notes with ids.
 */
export async function readNode(dir, sessions = []) {
  const Memory = memoryClass();
  const started = performance.now();
  const m = await Memory.open({ storage: "fs", dir });
  const firstMs = performance.now() - started;
  try {
    const status = await m.status();
    if (status.memory.damaged) throw new Error(`MEMORY.md reported damaged: ${JSON.stringify(status.memory.damaged)}`);
    const files = await m.exportMarkdown();
    const present = new Set();
    for (const s of sessions) {
      // An unknown session is an error (`not-found`), not an empty list.
      const messages = await m.sessionMessages(s).catch((e) => (e.code === "no-match" ? [] : Promise.reject(e)));
      if (messages.length > 0) present.add(s);
    }
    const log = await m.readLog();
    const { nodes } = await m.journey();
    return {
      firstMs,
      entries: entriesOf(files["MEMORY.md"]),
      sessions: present,
      notes: new Set(log.filter((r) => r.what === "note").map((r) => r.text)),
      ids: new Set(nodes.filter((n) => n.kind === "note").map((n) => n.entry_id)).size,
    };
  } finally {
    await m.close();
  }
}

/**
 * Starts a Node writer process on `dir` (tests/reliability/writer.mjs)
 * with `spec` ({name, seed, start?, count?, kinds?, soakSeconds?, sampleEvery?}); `onLine` gets each
 * JSON line it prints. Resolves `done` with its exit code and signal.
 */
export function nodeWriter(dir, spec, onLine) {
  // --expose-gc: the soak's samples are taken after a collection.
  const args = ["--expose-gc", WRITER, JSON.stringify({ dir, ...spec })];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let buffer = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line) onLine(JSON.parse(line));
    }
  });
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
  return { child, done };
}

/**
 * One crash trial on `surface` ("cli" or "node"): a loop of writes to
 * `dir` by writer `tag`; `delay` ms after the `acks`-th acknowledgement
 * (or the start) the writer is SIGKILLed (the CLI: the process running
 * then; Node: the writer process). Then the checks. Returns {killed, acked, lock, problems, recoverMs, writeMs}.
 */
export async function crashTrial(surface, dir, model, { tag, seed, acks, delay, counter }) {
  const r = rng(seed);
  let acked = 0;
  let killed = false;
  const problems = [];
  const writeMs = [];
  if (surface === "cli") {
    // The kill's moment, once `acks` writes were acknowledged: whichever
    // process runs then is killed (one that starts later, at once).
    let deadline = acks === 0 ? performance.now() + delay : Infinity;
    for (;;) {
      const op = nextOp(r, tag, model.own(tag), counter);
      model.begin(op);
      const { args, input } = cliArgs(op);
      const { child, done } = run(MNEMO, ["--dir", dir, ...args], { input });
      const wait = deadline - performance.now();
      const timer = wait < Infinity ? setTimeout(() => child.kill("SIGKILL"), Math.max(0, wait)) : null;
      const result = await done;
      clearTimeout(timer);
      if (result.signal === "SIGKILL") {
        killed = true;
        break;
      }
      if (result.code === 0) {
        model.ack(op);
        acked++;
        writeMs.push(result.ms);
        if (acked === acks) deadline = performance.now() + delay;
      } else {
        problems.push(`mnemo ${args[0]} exited ${result.code}: ${result.stderr.trim()}`);
        model.fail();
      }
    }
  } else {
    let pending = null;
    const kill = () => setTimeout(() => writer.child.kill("SIGKILL"), delay);
    const writer = nodeWriter(dir, { name: tag, seed, start: counter.next }, (line) => {
      if (line.begin) {
        pending = line.begin;
        model.begin(pending);
      } else if (line.ack) {
        model.ack(pending);
        writeMs.push(line.ms);
        if (++acked === acks) kill();
      } else if (line.fail) {
        problems.push(`a write failed: ${JSON.stringify(line.fail)}`);
        model.fail();
      } else if (line.ready && acks === 0) {
        kill();
      }
    });
    const result = await writer.done;
    killed = result.signal === "SIGKILL";
    if (!killed) problems.push(`the writer ended on its own (${result.code}): ${result.stderr.trim()}`);
    // Texts are numbered by the writer: continue well after the last it began.
    counter.next += 10_000;
  }
  const lock = lockState(dir);
  if (lock.alive) problems.push(`the lock is held by a live process ${lock.pid}`);
  let state;
  try {
    const sessions = [...model.fresh.sessions, ...(model.inflight?.kind === "session" ? [model.inflight.session] : [])];
    state = surface === "cli" ? await readCli(dir) : await readNode(dir, sessions);
  } catch (e) {
    problems.push(`reading back failed: ${e.message}`);
    model.inflight = null;
    return { killed, acked, lock, problems, recoverMs: NaN, writeMs };
  }
  problems.push(...model.check(state));
  return { killed, acked, lock, problems, recoverMs: state.firstMs, writeMs };
}

/**
 * Load: `writers` writers adding `each` notes at once to `dir` through
 * `surface`: "cli" (a process per write), "node" (a writer process each)
 * or "mcp" (an `npx mnemo mcp` server each, driven by the SDK's client).
 * Resolves with {texts, ms, wallMs}: the notes acknowledged, each write's
 * time, and the time from the first write's start to the last one's
 * answer (Node processes and MCP servers start and open first, untimed).
 */
export async function load(surface, dir, { writers, each }) {
  const texts = [];
  const ms = [];
  let first = Infinity;
  let last = 0;
  const began = () => {
    const now = performance.now();
    first = Math.min(first, now);
    return now;
  };
  const ended = () => {
    const now = performance.now();
    last = Math.max(last, now);
    return now;
  };
  const one = {
    async cli(w) {
      for (let i = 0; i < each; i++) {
        const text = noteText(`cli${w}`, i);
        began();
        const r = await mnemo(dir, ["add", text]);
        ended();
        if (r.code !== 0) throw new Error(`mnemo add exited ${r.code}: ${r.stderr}`);
        texts.push(text);
        ms.push(r.ms);
      }
    },
    async node(w) {
      let op = null;
      const failures = [];
      const writer = nodeWriter(dir, { name: `node${w}`, seed: w + 1, count: each, kinds: ["add"] }, (line) => {
        if (line.begin) {
          op = line.begin;
          began();
        }
        if (line.ack) {
          ended();
          texts.push(op.text);
          ms.push(line.ms);
        }
        if (line.fail) failures.push(line.fail);
      });
      const { code, stderr } = await writer.done;
      if (code !== 0 || failures.length) throw new Error(`a Node writer failed (${code}): ${stderr} ${JSON.stringify(failures)}`);
    },
    async mcp(w, client) {
      for (let i = 0; i < each; i++) {
        const text = noteText(`mcp${w}`, i);
        const t0 = began();
        const result = await client.callTool({ name: "memory", arguments: { action: "add", target: "memory", content: text } });
        ms.push(ended() - t0);
        if (result.isError) throw new Error(result.content[0].text);
        texts.push(text);
      }
    },
  }[surface];
  const clients = surface === "mcp" ? await Promise.all(Array.from({ length: writers }, (_, w) => mcpClient(dir, `mcp-writer-${w}`))) : [];
  try {
    await Promise.all(Array.from({ length: writers }, (_, w) => one(w, clients[w])));
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return { texts, ms, wallMs: last - first };
}

/** A client of its own `npx mnemo mcp --dir <dir>` server (the built package's cli.mjs), named `name`. */
export async function mcpClient(dir, name) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [NPX_CLI, "mcp", "--dir", dir], stderr: "ignore" }));
  return client;
}

/** The notes of `dir` as the CLI (when built) or else the npm package reads them. */
export async function notesOf(dir) {
  if (existsSync(MNEMO)) {
    const r = await mnemo(dir, ["export"]);
    if (r.code !== 0) throw new Error(`mnemo export exited ${r.code}: ${r.stderr}`);
    return entriesOf(JSON.parse(r.stdout)["MEMORY.md"]);
  }
  return (await readNode(dir)).entries;
}

/**
 * Soak: a Node writer process on `dir` doing mixed reads and writes for
 * `seconds` (half reads: search, context, status, session search), with a
 * CLI writer beside it when `cli` (one write every `cliEvery` ms). Resolves
 * with {problems, samples, writes, reads, cliMs, nodeMs}: what the final
 * check found (every acknowledged write there), the writer's memory
 * samples, the counts, and the CLI's and the Node writer's write times in
 * order.
 */
export async function soak(dir, { seconds, sampleEvery = 10, cli = existsSync(MNEMO), cliEvery = 500, seed = 1 }) {
  const model = new Model();
  const samples = [];
  const problems = [];
  let writes = 0;
  let reads = 0;
  let pending = null;
  const nodeMs = [];
  const writer = nodeWriter(dir, { name: "soak", seed, soakSeconds: seconds, sampleEvery }, (line) => {
    if (line.begin) pending = line.begin;
    if (line.ack) {
      model.ack(pending);
      writes++;
      nodeMs.push(line.ms);
    }
    if (line.fail) problems.push(`a write failed: ${JSON.stringify(line.fail)}`);
    if (line.read) reads++;
    if (line.sample) samples.push(line.sample);
  });
  let running = true;
  const cliMs = [];
  const cliLoop = (async () => {
    const r = rng(seed + 1);
    const counter = { next: 0 };
    while (cli && running) {
      const op = nextOp(r, "cli", model.own("cli"), counter, ["add", "replace", "remove", "note"]);
      const { args, input } = cliArgs(op);
      const result = await mnemo(dir, args, { input });
      if (result.code === 0) {
        model.ack(op);
        cliMs.push(result.ms);
      } else problems.push(`mnemo ${args[0]} exited ${result.code}: ${result.stderr.trim()}`);
      await sleep(cliEvery);
    }
  })();
  const { code, stderr } = await writer.done;
  running = false;
  await cliLoop;
  if (code !== 0) problems.push(`the writer exited ${code}: ${stderr}`);
  problems.push(...model.check(await readNode(dir, [...model.fresh.sessions])));
  return { problems, samples, writes: writes + cliMs.length, reads, cliMs, nodeMs };
}

/**
 * After a campaign: every session and log note acknowledged in any trial
 * is still there (each trial checks only its own). Returns the problems.
 */
export async function finalCheck(surface, dir, model) {
  let sessions;
  let notes;
  if (surface === "cli") {
    sessions = new Set();
    for (let offset = 0; ; offset += 50) {
      const r = await mnemo(dir, ["sessions", "list", "-n", "50", "--offset", String(offset), "--json"]);
      if (r.code !== 0) return [`mnemo sessions list exited ${r.code}: ${r.stderr}`];
      const page = JSON.parse(r.stdout);
      page.forEach((s) => sessions.add(s.id));
      if (page.length < 50) break;
    }
    const log = await mnemo(dir, ["log", "--json"]);
    if (log.code !== 0) return [`mnemo log exited ${log.code}: ${log.stderr}`];
    notes = new Set(JSON.parse(log.stdout).filter((r) => r.what === "note").map((r) => r.text));
  } else {
    ({ sessions, notes } = await readNode(dir, [...model.sessions]));
  }
  return [
    ...[...model.sessions].filter((s) => !sessions.has(s)).map((s) => `acknowledged session ${s} is missing at the end`),
    ...[...model.notes].filter((n) => !notes.has(n)).map((n) => `acknowledged log note ${JSON.stringify(n)} is missing at the end`),
  ];
}
