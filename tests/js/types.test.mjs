// The package's hand-kept TypeScript types (src/bindings/js/types.d.ts and
// the method signatures in src/bindings/js/mod.rs, emitted into
// pkg/*/mnemo.d.ts; js/browser.d.ts) checked against use: tsc compiles
// tests/types/*.mts, which call every method and option as a user would and
// mark misuse with `@ts-expect-error`, against the built package in pkg/
// (run scripts/build-js.sh first). A type that refuses real use, or accepts
// marked misuse, fails here with tsc's report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsc = join(root, "node_modules", ".bin", "tsc");

test("the TypeScript types accept the API's real use and refuse misuse", () => {
  for (const built of ["node/mnemo.d.ts", "web/browser.d.ts", "lean/node/mnemo.d.ts"]) {
    assert.ok(existsSync(join(root, "node_modules", "mnemo", built)), `node_modules/mnemo/${built} is missing: run scripts/build-js.sh first`);
  }
  assert.ok(existsSync(tsc), "node_modules/.bin/tsc is missing: run scripts/setup.sh (typescript is a devDependency)");
  const version = JSON.parse(readFileSync(join(root, "node_modules", "typescript", "package.json"), "utf8")).version;
  const run = spawnSync(tsc, ["-p", join(root, "tests", "types"), "--pretty", "false"], { cwd: root, encoding: "utf8" });
  assert.equal(run.error, undefined, String(run.error));
  assert.equal(run.status, 0, `tsc ${version} -p tests/types failed:\n${run.stdout}${run.stderr}`);
});
