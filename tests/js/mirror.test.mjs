// The JS API and the WIT interface mirror each other: every call of the
// built npm package (`mnemo`: Memory's statics and instance methods, the
// module's functions) has its counterpart in wit/mnemo.wit (the `memory`
// resource's functions, the `api` interface's free functions), or an entry
// with its reason in tests/fixtures/mirror.json, the documented
// differences. An entry for a call that is gone, or that now exists on
// both sides, fails too, so the list stays true. Run scripts/build-js.sh
// first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
const mnemo = require("mnemo");
const wit = readFileSync(join(root, "wit", "mnemo.wit"), "utf8");
const allowed = JSON.parse(readFileSync(join(root, "tests", "fixtures", "mirror.json"), "utf8"));

// Names as the README writes them: `Memory.open` (static), `memory.tool`
// (instance), `scan` (module function).

/** wasm-bindgen's own members: `free`, `__wrap`, `__destroy_into_raw`, `__wasm`. */
const internal = (name) => name === "constructor" || name === "free" || name.startsWith("__");

function jsCalls() {
  const { Memory } = mnemo;
  const calls = new Set();
  for (const name of Object.getOwnPropertyNames(Memory)) {
    if (typeof Memory[name] === "function" && !internal(name)) calls.add(`Memory.${name}`);
  }
  for (const name of Object.getOwnPropertyNames(Memory.prototype)) {
    if (typeof Memory.prototype[name] === "function" && !internal(name)) calls.add(`memory.${name}`);
  }
  for (const [name, value] of Object.entries(mnemo)) {
    // Memory itself is the WIT `memory` resource, compared call by call.
    if (typeof value === "function" && name !== "Memory" && !internal(name)) calls.add(name);
  }
  return calls;
}

/** `export-markdown` -> `exportMarkdown`; `%in` (an escaped keyword) -> `in`. */
const camel = (kebab) => kebab.replace(/^%/, "").replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());

/** The text between the `{` at `open` and its matching `}`. */
function block(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`wit/mnemo.wit: unbalanced braces after offset ${open}`);
}

/** The body of `<keyword> <name> {` in `text`. */
function body(text, keyword, name) {
  const m = new RegExp(`\\b${keyword}\\s+${name}\\s*\\{`).exec(text);
  assert.ok(m, `wit/mnemo.wit has no ${keyword} ${name}`);
  return block(text, m.index + m[0].length - 1);
}

/** The `name: [static] func(...)` items of a WIT body, without nested blocks; anything else it cannot read is an error, so a new kind of item gets a decision here. */
function functions(text, where) {
  const items = [];
  for (const raw of text.split(";")) {
    const item = raw.trim();
    if (item === "" || /^use\s/.test(item) || /^type\s/.test(item)) continue;
    const m = /^(%?[a-z][a-z0-9-]*)\s*:\s*(static\s+)?(async\s+)?func\s*\(/.exec(item);
    if (!m) throw new Error(`${where}: cannot read ${JSON.stringify(item.slice(0, 80))}; teach tests/js/mirror.test.mjs this kind of item`);
    items.push({ name: camel(m[1]), isStatic: Boolean(m[2]) });
  }
  return items;
}

function witCalls() {
  const source = wit.replace(/\/\/[^\n]*/g, "");
  const api = body(source, "interface", "api");
  const calls = new Set();
  // Nested blocks of the interface: the memory resource, and nothing else
  // (a new resource or type needs a decision about its JS counterpart).
  let outside = "";
  let at = 0;
  for (const m of api.matchAll(/\b(resource|record|enum|variant|flags)\s+(%?[a-z][a-z0-9-]*)\s*\{/g)) {
    if (m.index < at) continue;
    assert.deepEqual([m[1], m[2]], ["resource", "memory"], `api in wit/mnemo.wit has ${m[1]} ${m[2]}; the mirror test knows only resource memory`);
    const open = m.index + m[0].length - 1;
    const inner = block(api, open);
    for (const f of functions(inner, "resource memory")) {
      if (f.name === "constructor") throw new Error("resource memory has a constructor; JS has none (Memory.open): decide how to mirror it");
      calls.add(f.isStatic ? `Memory.${f.name}` : `memory.${f.name}`);
    }
    outside += api.slice(at, m.index);
    at = open + inner.length + 2;
  }
  outside += api.slice(at);
  for (const f of functions(outside, "interface api")) calls.add(f.name);
  return calls;
}

test("the mirror list is well formed: every difference has a reason", () => {
  assert.deepEqual(Object.keys(allowed).sort(), ["about", "js_only", "wit_only"]);
  for (const side of ["js_only", "wit_only"]) {
    for (const [name, why] of Object.entries(allowed[side])) {
      assert.ok(typeof why === "string" && why.trim().length > 10, `${side}.${name} needs its reason`);
    }
  }
});

test("the parsers read what they must: Memory.open and memory.tool on both sides", () => {
  const js = jsCalls();
  const w = witCalls();
  for (const name of ["Memory.open", "memory.tool", "memory.search", "scan"]) {
    assert.ok(js.has(name), `JS: ${name} not found in ${[...js]}`);
    assert.ok(w.has(name), `WIT: ${name} not found in ${[...w]}`);
  }
});

test("every JS call has its WIT counterpart, or a documented reason not to", () => {
  const js = jsCalls();
  const w = witCalls();
  const undocumented = [...js].filter((n) => !w.has(n) && !(n in allowed.js_only));
  assert.deepEqual(undocumented, [], `in the JS API but not in wit/mnemo.wit: add them to the WIT interface, or to js_only in tests/fixtures/mirror.json with the reason`);
  const stale = Object.keys(allowed.js_only).filter((n) => !js.has(n) || w.has(n));
  assert.deepEqual(stale, [], `js_only entries of tests/fixtures/mirror.json for calls the JS API no longer has, or that WIT now has too: remove them`);
});

test("every WIT function has its JS counterpart, or a documented reason not to", () => {
  const js = jsCalls();
  const w = witCalls();
  const undocumented = [...w].filter((n) => !js.has(n) && !(n in allowed.wit_only));
  assert.deepEqual(undocumented, [], `in wit/mnemo.wit but not in the JS API: add them to the JS binding, or to wit_only in tests/fixtures/mirror.json with the reason`);
  const stale = Object.keys(allowed.wit_only).filter((n) => !w.has(n) || js.has(n));
  assert.deepEqual(stale, [], `wit_only entries of tests/fixtures/mirror.json for functions WIT no longer has, or that the JS API now has too: remove them`);
});
