// The shared options fixture (tests/fixtures/options.json) through the npm
// package: every limit, default and error is the core's, so JS answers as
// the WIT component (tests/component) and the CLI (tests/cli.rs) do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Memory } from "mnemo";

const fixture = JSON.parse(readFileSync(new URL("../fixtures/options.json", import.meta.url), "utf8"));

async function memory() {
  const m = await Memory.open({});
  await m.importMarkdown({ "MEMORY.md": fixture.notes.join("\n§\n") });
  for (let i = 1; i <= fixture.turns; i++) {
    await m.recordTurn({ session: `s${i}`, user: `deploy step ${i}`, assistant: "ok", time: i });
  }
  return m;
}

function call(m, c) {
  switch (c.call) {
    case "search": return m.search(c.query, c.options);
    case "sectors": return m.sectors(c.options);
    case "sessions": return m.sessions(c.options);
    case "session_search": return m.sessionSearch(c.query, c.options);
    case "session_messages": return m.sessionMessages(c.session, c.options);
    default: throw new Error(`unknown call ${c.call}`);
  }
}

test("every shared option answers as in the other surfaces", async () => {
  const m = await memory();
  let ran = 0;
  for (const c of fixture.cases) {
    if (c.surfaces && !c.surfaces.includes("js")) continue;
    ran++;
    const what = `${c.call} ${JSON.stringify(c.options)}`;
    if (c.code) {
      await assert.rejects(call(m, c), (e) => {
        assert.equal(e.code, c.code, what);
        if (c.message) assert.equal(e.message, c.message, what);
        return true;
      }, what);
      continue;
    }
    const result = await call(m, c);
    if (c.count !== undefined) assert.equal(result.length, c.count, what);
    if (c.listed !== undefined) assert.equal(result.sectors[0].entries.length, c.listed, what);
  }
  assert.ok(ran > 10);
});

test("the memory tool's search takes the same limit rule", async () => {
  const m = await memory();
  const r = await m.tool({ action: "search", query: "port", limit: 5000 });
  assert.equal(r.success, false);
  assert.equal(r.code, "invalid-input");
  assert.equal(r.error, "limit must be an integer from 1 to 1000");
  assert.equal((await m.tool({ action: "search", query: "port", limit: 2 })).results.length, 2);
  assert.equal((await m.tool({ action: "search", query: "port" })).results.length, 10);
});

test("remember takes only a target", async () => {
  const m = await memory();
  await assert.rejects(m.remember("Name: Ada", { limit: 3 }), { code: "invalid-input" });
  const r = await m.remember("Name: Ada", { target: "user" });
  assert.equal(r.success, true);
});
