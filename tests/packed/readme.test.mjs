// The README's programs (readme.mjs: the js blocks that import the package)
// run as a user would copy them: each saved as a file of the project where
// the packed package was installed (install.mjs), so `mnemo` is the
// tarball's, and run by `node` in a fresh directory. The README read is the
// one inside the tarball, the one npm shows. The `mnemo/browser` programs
// run in a page built by Vite: tests/browser/vite-packed.test.mjs.
// Run scripts/build-js.sh first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, installed, scratch } from "./install.mjs";
import { programs } from "./readme.mjs";

/** The README's programs for Node, with the project to run them in. */
function nodePrograms(t) {
  const { app, skip } = installed();
  if (skip) return t.skip(skip);
  const readme = readFileSync(join(app, "node_modules", "mnemo", "README.md"), "utf8");
  assert.equal(readme, readFileSync(join(ROOT, "README.md"), "utf8"), "the tarball carries the README of this checkout");
  return { app, list: programs(readme).filter((p) => p.entry !== "mnemo/browser") };
}

/** Saves `code` as program.mjs in a fresh directory of the project, with the examples it imports; runs it there. */
function run(app, code) {
  const dir = scratch(app, "readme-");
  // The examples' own files it imports (./anthropic-llm.mjs, …), as beside them in examples/.
  for (const [, file] of code.matchAll(/from\s+"\.\/([\w-]+\.mjs)"/g)) copyFileSync(join(ROOT, "examples", file), join(dir, file));
  writeFileSync(join(dir, "program.mjs"), code);
  const r = spawnSync(process.execPath, ["program.mjs"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { ...r, dir };
}

test("the README has Node programs, and each runs against the installed tarball", (t) => {
  const got = nodePrograms(t);
  if (!got) return;
  const { app, list } = got;
  // The quickstart and the review loop at least.
  assert.ok(list.length >= 2, `${list.length} programs found`);
  for (const p of list) {
    const r = run(app, p.code);
    assert.equal(r.status, 0, `README line ${p.line}:\n${r.stderr}`);
    if (p.prints) {
      // An excerpt prints some of the lines announced, in their order.
      const printed = r.stdout.trimEnd().split("\n");
      let at = 0;
      for (const line of printed) {
        while (at < p.prints.length && p.prints[at] !== line) at++;
        assert.ok(at < p.prints.length, `README line ${p.line} printed ${JSON.stringify(line)}, not announced in order:\n${p.prints.join("\n")}`);
        at++;
      }
    }
  }
});

test("the README's quickstart writes the note it shows to ./memories", (t) => {
  const got = nodePrograms(t);
  if (!got) return;
  const quickstart = got.list.find((p) => p.code.includes('Memory.open({ storage: "fs", dir: "./memories" })') && p.code.includes("startSession"));
  assert.ok(quickstart, "the quickstart is a README program");
  const r = run(got.app, quickstart.code);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(join(r.dir, "memories", "MEMORY.md"), "utf8"), "Staging server 10.0.1.50 needs SSH port 2222");
});

test("examples/review-agent.mjs prints what the README says it prints", (t) => {
  const got = nodePrograms(t);
  if (!got) return;
  const excerpt = got.list.find((p) => p.prints && p.code.includes("memory.review("));
  assert.ok(excerpt, "the review loop is a README program that says what it prints");
  const example = readFileSync(join(ROOT, "examples", "review-agent.mjs"), "utf8");
  const r = run(got.app, example);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split("\n").slice(0, excerpt.prints.length), excerpt.prints);
});
