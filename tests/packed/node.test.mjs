// The installed tarball (install.mjs) imported as Node users do: an ES
// module (`import { Memory } from "mnemo"`) and a CommonJS script
// (`require("mnemo")`), each a file of the project run by `node`, for the
// full build and the lean one. Each opens an in-memory memory, adds an
// entry with the tool, finds it with the tool's search and sees it in the
// system prompt. Run scripts/build-js.sh first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installed, scratch } from "./install.mjs";

/** The scenario, the same in both module systems; prints its findings as JSON. */
const scenario = (entry) => `
  const memory = await Memory.open({ storage: "memory" });
  const added = await memory.tool({ action: "add", target: "memory", content: "Staging SSH listens on port 2222" });
  const found = await memory.tool({ action: "search", query: "staging ssh port" });
  const prompt = await memory.startSession();
  console.log(JSON.stringify({ entry: ${entry}, added, found, prompt }));
  await memory.close();
`;

const ESM = (name) => `import { Memory } from "${name}";
${scenario(`import.meta.resolve("${name}")`)}`;
const CJS = (name) => `const { Memory } = require("${name}");
(async () => {${scenario(`require.resolve("${name}")`)}})().catch((e) => { console.error(e); process.exit(1); });`;

for (const [name, build] of [["mnemo", "node/mnemo.js"], ["mnemo/lean", "lean/node/mnemo.js"]]) {
  for (const [kind, file, source] of [["ESM", "use.mjs", ESM], ["CommonJS", "use.cjs", CJS]]) {
    test(`${kind}: ${name} from the installed tarball opens, writes, searches and prompts`, (t) => {
      const { app, skip } = installed();
      if (skip) return t.skip(skip);
      const dir = scratch(app);
      writeFileSync(join(dir, file), source(name));
      const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      const out = JSON.parse(run.stdout);
      // The node build of the installed copy, not this checkout's pkg/.
      assert.ok(out.entry.endsWith(`${app}/node_modules/mnemo/${build}`), out.entry);
      assert.equal(out.added.success, true, JSON.stringify(out.added));
      assert.deepEqual(out.found.results.map((r) => r.text), ["Staging SSH listens on port 2222"]);
      assert.match(out.prompt, /Staging SSH listens on port 2222/);
    });
  }
}

test("every file the package.json names is in the tarball, and Workers get the workerd entries", (t) => {
  const { app, skip } = installed();
  if (skip) return t.skip(skip);
  const root = join(app, "node_modules", "mnemo");
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const targets = [manifest.main, manifest.module, manifest.types, ...Object.values(manifest.bin)];
  const collect = (v) => (typeof v === "string" ? targets.push(v) : Object.values(v).forEach(collect));
  collect(manifest.exports);
  for (const target of targets) assert.ok(existsSync(join(root, target)), `${target} is named but not packed`);
  // What a Worker bundler resolves (wrangler sets the "workerd" condition).
  const resolve = (name) =>
    spawnSync(process.execPath, ["--conditions=workerd", "--input-type=module", "-e", `console.log(import.meta.resolve("${name}"))`], {
      cwd: app,
      encoding: "utf8",
    }).stdout.trim();
  assert.match(resolve("mnemo"), /\/node_modules\/mnemo\/web\/workerd\.js$/);
  assert.match(resolve("mnemo/lean"), /\/node_modules\/mnemo\/lean\/web\/workerd\.js$/);
});
