// `npx mnemo sessions import --from claude-code|codex|mnemo [PATH|-]` as a
// user runs it: `node pkg/cli.mjs` in a process of its own over temporary
// directories, with $HOME, $MNEMO_HOME and $CLAUDE_CONFIG_DIR pointed at
// them so that no real transcript or memory is touched. The same fixtures
// as the native CLI's tests (tests/cli_import.rs), the same lines printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = join(root, "pkg", "cli.mjs");
if (!existsSync(cli)) throw new Error("pkg/cli.mjs is missing: run scripts/build-js.sh first");
const { Memory } = createRequire(import.meta.url)(join(root, "pkg", "node", "mnemo.js"));

const fixtures = join(root, "tests", "fixtures", "transcripts");
const CLAUDE_CODE = join(fixtures, "claude-code.jsonl");
const CODEX = join(fixtures, "codex.jsonl");
const CLAUDE_SESSION = "7f3c2a10-5b8e-4c1d-9a6f-2e4b8d1c0a93";
const FIELDS = ["files", "sessions", "messages", "present", "skipped", "too_long", "ignored"];

/** A fresh $HOME and $MNEMO_HOME, and the command run in them. */
function world() {
  const home = mkdtempSync(join(tmpdir(), "mnemo-cli-import-home-"));
  const mnemo = mkdtempSync(join(tmpdir(), "mnemo-cli-import-mnemo-"));
  const run = (args, { env = {}, input } = {}) => {
    const clean = { ...process.env };
    for (const name of ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "MNEMO_AGENT", "MNEMO_SCOPE", "MNEMO_WORKSPACE"]) delete clean[name];
    return spawnSync(process.execPath, [cli, ...args], {
      cwd: home,
      env: { ...clean, HOME: home, MNEMO_HOME: mnemo, ...env },
      input,
      encoding: "utf8",
    });
  };
  const ok = (args, options) => {
    const r = run(args, options);
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  const write = (rel, text) => {
    const path = join(home, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { home, mnemo, dir: join(mnemo, "memories"), run, ok, write };
}

async function storedSessions(dir, options = {}) {
  const memory = await Memory.open({ storage: "fs", dir, ...options });
  try {
    return await memory.sessions();
  } finally {
    await memory.close();
  }
}

test("a Claude Code file: its messages once, then nothing more", async () => {
  const w = world();
  assert.equal(
    w.ok(["sessions", "import", "--from", "claude-code", CLAUDE_CODE]),
    "imported 1 file: 1 session, 5 messages added, 1 line skipped (not readable)\n",
  );
  assert.equal(
    w.ok(["sessions", "import", "--from", "claude-code", CLAUDE_CODE]),
    "imported 1 file: 1 session, 0 messages added, 5 already there, 1 line skipped (not readable)\n",
  );
  // Into the memories directory the native CLI uses ($MNEMO_HOME/memories).
  const [session, ...others] = await storedSessions(w.dir);
  assert.equal(others.length, 0);
  assert.equal(session.id, CLAUDE_SESSION);
  assert.equal(session.source, "claude-code");
  assert.equal(session.messages, 5);
});

test("--json prints importTranscript's report, summed over the files", async () => {
  const w = world();
  const first = JSON.parse(w.ok(["sessions", "import", "--from", "claude-code", CLAUDE_CODE, "--json"]));
  assert.deepEqual(Object.keys(first), FIELDS);
  // The very report the JS API gives for the same text in a fresh memory.
  const memory = await Memory.open({ storage: "memory" });
  const direct = await memory.importTranscript("claude-code", readFileSync(CLAUDE_CODE, "utf8"), { name: CLAUDE_CODE });
  await memory.close();
  assert.deepEqual(first, direct);
  const again = JSON.parse(w.ok(["sessions", "import", "--from", "claude-code", CLAUDE_CODE, "--json"]));
  assert.deepEqual(again, { ...first, messages: 0, present: 5 });

  // A directory of two agents' worth of files: the reports add up.
  w.write("two/a/claude.jsonl", readFileSync(CLAUDE_CODE, "utf8"));
  w.write("two/b/other.jsonl", readFileSync(CLAUDE_CODE, "utf8").replaceAll(CLAUDE_SESSION, "second-session"));
  w.write("two/notes.txt", "not a .jsonl file: not read");
  const both = JSON.parse(w.ok(["sessions", "import", "--from", "claude-code", join(w.home, "two"), "--json"]));
  assert.deepEqual(both, {
    files: 2,
    sessions: 2,
    messages: 5,
    present: 5,
    skipped: 2 * first.skipped,
    too_long: 0,
    ignored: 2 * first.ignored,
  });
  assert.equal((await storedSessions(w.dir)).length, 2);
});

test("standard input, Codex, and mnemo's own format with its own line", async () => {
  const w = world();
  const codex = JSON.parse(w.ok(["sessions", "import", "--from", "codex", "-", "--json"], { input: readFileSync(CODEX, "utf8") }));
  assert.equal(codex.files, 1);
  assert.equal(codex.messages, 4);
  const own = '{"session": "s1", "role": "user", "text": "Which port for staging?"}\n' +
    '{"session": "s1", "role": "assistant", "text": "2222."}\n';
  assert.equal(w.ok(["sessions", "import", "-"], { input: own }), "recorded 2 messages\n");
  const ids = (await storedSessions(w.dir)).map((s) => s.id).sort();
  assert.deepEqual(ids, ["019ad3e4-6b1f-7c20-9d4e-5a8b7c6d5e4f", "s1"]);
});

test("without PATH: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects", async () => {
  const w = world();
  const config = join(w.home, "elsewhere", "claude");
  w.write(`elsewhere/claude/projects/-home-dana-src-shop/${CLAUDE_SESSION}.jsonl`, readFileSync(CLAUDE_CODE, "utf8"));
  // ~/.claude/projects holds a file too: CLAUDE_CONFIG_DIR wins over it.
  w.write(".claude/projects/p/other.jsonl", readFileSync(CLAUDE_CODE, "utf8").replaceAll(CLAUDE_SESSION, "from-home"));
  const env = { CLAUDE_CONFIG_DIR: config };
  assert.equal(
    w.ok(["sessions", "import", "--from", "claude-code"], { env }),
    "imported 1 file: 1 session, 5 messages added, 1 line skipped (not readable)\n",
  );
  assert.deepEqual((await storedSessions(w.dir)).map((s) => s.id), [CLAUDE_SESSION]);
  assert.equal(
    w.ok(["sessions", "import", "--from", "claude-code"]),
    "imported 1 file: 1 session, 5 messages added, 1 line skipped (not readable)\n",
  );
  assert.equal((await storedSessions(w.dir)).length, 2);

  // No transcripts where the agent keeps them: an error, nothing made.
  const empty = mkdtempSync(join(tmpdir(), "mnemo-cli-import-empty-"));
  const r = w.run(["sessions", "import", "--from", "claude-code"], { env: { CLAUDE_CONFIG_DIR: empty } });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^error \[invalid-input\]: no claude-code transcripts at .*projects \(the default\)/);
  // mnemo's own format has no default place.
  const none = w.run(["sessions", "import"]);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /name the transcript file to import/);
});

test("a file that is not a transcript of the format: exit status 1 and an error; nothing recorded from it or after it", async () => {
  const w = world();
  const bad = w.write("bad.jsonl", '{"name": "not a transcript"}\n{"x": 1}\n');
  const r = w.run(["sessions", "import", "--from", "claude-code", bad]);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^error \[invalid-input\]: .*bad\.jsonl: .*not a Claude Code session file/);
  // A Codex file named as Claude Code's says which format it looks like.
  const codex = w.run(["sessions", "import", "--from", "claude-code", CODEX]);
  assert.equal(codex.status, 1);
  assert.match(codex.stderr, /codex\.jsonl: .*format "codex"/);
  // An unknown format is the core's to refuse, before any file is read.
  const unknown = w.run(["sessions", "import", "--from", "gemini", join(w.home, "missing.jsonl")]);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /^error \[invalid-input\]: unknown transcript format "gemini"/);
  const missing = w.run(["sessions", "import", "--from", "claude-code", join(w.home, "missing.jsonl")]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^error \[invalid-input\]: cannot read .*missing\.jsonl/);
  assert.deepEqual(await storedSessions(w.dir), []);
  // Each file is its own transaction: a bad one after a good one stops the
  // run, and the error says what was recorded.
  w.write("mixed/a.jsonl", readFileSync(CLAUDE_CODE, "utf8"));
  w.write("mixed/b.jsonl", '{"name": "not a transcript"}\n');
  const mixed = w.run(["sessions", "import", "--from", "claude-code", join(w.home, "mixed")]);
  assert.equal(mixed.status, 1);
  assert.match(mixed.stderr, /b\.jsonl: .*not a Claude Code session file.*; the 1 file before it was recorded\n$/);
  assert.deepEqual((await storedSessions(w.dir)).map((s) => s.id), [CLAUDE_SESSION]);
  // The native CLI's other sessions commands are not this one's: a wrong command line.
  const list = w.run(["sessions", "list"]);
  assert.equal(list.status, 2);
  assert.match(list.stderr, /sessions import/);
});

test("--dir, --workspace and MNEMO_WORKSPACE pick the memory as for mcp", async () => {
  const w = world();
  w.ok(["sessions", "import", "--from", "claude-code", CLAUDE_CODE, "--workspace", "research"]);
  assert.deepEqual(await storedSessions(w.dir), []);
  assert.equal((await storedSessions(w.dir, { workspace: "research" })).length, 1);
  w.ok(["sessions", "import", "--from", "codex", CODEX], { env: { MNEMO_WORKSPACE: "research" } });
  assert.equal((await storedSessions(w.dir, { workspace: "research" })).length, 2);
  const other = join(w.home, "other-memories");
  w.ok(["sessions", "import", "--from", "codex", CODEX, "--dir", other]);
  assert.equal((await storedSessions(other)).length, 1);
  const badName = w.run(["sessions", "import", "--from", "codex", CODEX, "--workspace", "../escape"]);
  assert.equal(badName.status, 1);
  assert.match(badName.stderr, /^error \[invalid-input\]/);
});
