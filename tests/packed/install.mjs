// The npm package as a user meets it, shared by the tests that use it: the
// built pkg/ packed with `npm pack` and installed from the tarball into a
// fresh project (no workspace link; its one dependency, the MCP SDK, from
// the registry or npm's cache). Packed and installed once per build of
// pkg/: the project is kept in the temp directory under a key made from
// pkg/'s files and their times, so every test file of a run (and the next
// run, until the next build) reuses it. Tests put their own files in a
// fresh directory inside the project (`scratch()`), where `mnemo` resolves
// to the installed copy.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PKG = join(ROOT, "pkg");

/** Every file under `dir`, as paths relative to it. */
export function walk(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name), base) : [relative(base, join(dir, e.name))],
  );
}

/** Names this build of pkg/: its files with their sizes and times. */
function buildKey() {
  if (!existsSync(join(PKG, "package.json"))) throw new Error("pkg/ is missing: run scripts/build-js.sh first");
  const hash = createHash("sha256");
  for (const f of walk(PKG).sort()) {
    const s = statSync(join(PKG, f));
    hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

const npm = (args, cwd) => spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 180_000 });
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Holds `lock` (a directory) while `fn` runs: test files may run in parallel. */
function locked(lock, fn) {
  for (let waited = 0; ; waited += 100) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      // A holder that died long ago (an install takes seconds) left it.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      if (waited > 300_000) throw new Error(`${lock} is held for too long`);
      sleep(100);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

let cached;

/**
 * The fresh project with the tarball installed: `{app, tarball}` (`app`:
 * its directory, `tarball`: the packed file), or `{skip}` (why) when npm
 * could install it from neither the registry nor its cache.
 */
export function installed() {
  if (cached) return cached;
  const key = buildKey();
  const work = join(tmpdir(), `mnemo-packed-${key}`);
  const app = join(work, "app");
  const done = join(work, "installed.json");
  cached = locked(`${work}.lock`, () => {
    if (existsSync(done)) return JSON.parse(readFileSync(done, "utf8"));
    // Another build's project is of no use any more.
    for (const old of readdirSync(tmpdir())) {
      if (/^mnemo-packed-[0-9a-f]{16}$/.test(old) && old !== `mnemo-packed-${key}` && !existsSync(join(tmpdir(), `${old}.lock`))) {
        rmSync(join(tmpdir(), old), { recursive: true, force: true });
      }
    }
    rmSync(work, { recursive: true, force: true });
    mkdirSync(app, { recursive: true });
    const packed = npm(["pack", PKG, "--pack-destination", work, "--silent"], work);
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz")));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
    const install = npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], app);
    // Not cached: the registry or the cache may be back next time.
    if (install.status !== 0) return { skip: `npm install of the tarball failed (no registry or cache?): ${install.stderr.slice(0, 300)}` };
    const result = { app, tarball };
    writeFileSync(done, JSON.stringify(result));
    return result;
  });
  return cached;
}

/** A fresh directory inside the installed project, for one test's files. */
export function scratch(app, prefix = "t-") {
  return mkdtempSync(join(app, prefix));
}
