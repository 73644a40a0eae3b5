#!/usr/bin/env bash
# Builds the npm package into pkg/: one wasm-bindgen build per target
# (nodejs, bundler, web) and a package.json whose "exports" picks the right
# one; twice: the full build (features js,sqlite: sessions, OPFS,
# IndexedDB) in pkg/{node,bundler,web}, and the lean one (feature js: no
# SQLite, about half the size, for Node and edge agents that need neither)
# in pkg/lean/{node,bundler,web}. Usage: scripts/build-js.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

profile=--release
[ "${1:-}" = "--dev" ] && profile=--dev

rm -rf pkg
for variant in full lean; do
  features=js,sqlite dir=pkg
  [ "$variant" = lean ] && features=js dir=pkg/lean
  for target in nodejs bundler web; do
    out=$target
    [ "$target" = nodejs ] && out=node
    wasm-pack --quiet build "$profile" --target "$target" --out-dir "$dir/$out" --out-name mnemo \
      --no-pack -- --no-default-features --features "$features"
    rm -f "$dir/$out/.gitignore"
    # Debian's wasm-opt breaks wasm-bindgen output; npm binaryen (pinned in
    # package.json) is the one that works. Release builds only.
    # `--low-memory-unused` folds a pointer's added constant into the
    # load's or store's offset, which differs only for a sum that wraps
    # past 4 GiB into the first KiB (no valid access of Rust's code does;
    # that KiB is the far end of its 1 MiB stack); `--converge` repeats -Oz
    # while it still shrinks. Together about 7 KB gzipped.
    if [ "$profile" = --release ]; then
      node_modules/.bin/wasm-opt -Oz --low-memory-unused --converge --strip-debug --strip-producers \
        "$dir/$out/mnemo_bg.wasm" -o "$dir/$out/mnemo_bg.wasm"
    fi
  done
done

# The browser entry (mnemo/browser): initialised wasm, and a worker of its
# own for OPFS when called from a page.
cp js/browser.js js/worker.js js/ahead.js pkg/web/
cp js/browser.d.ts pkg/web/browser.d.ts
# The Workers entry (the "workerd" condition) of each build: the web build
# initialised from the compiled module the Worker imports.
cp js/workerd.js pkg/web/workerd.js
cp js/workerd.js pkg/lean/web/workerd.js
# `npx mnemo pending|approve|reject|approval|mcp|sessions import` over the node build; the
# MCP server (on the official SDK, the package's one dependency) and its
# tools, which the Cloudflare example shares.
cp js/cli.mjs js/mcp.mjs js/mcp-tools.mjs pkg/
chmod +x pkg/cli.mjs
sdk=$(node -p 'require("./package.json").devDependencies["@modelcontextprotocol/sdk"]')

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
cat > pkg/package.json <<JSON
{
  "name": "mnemo",
  "version": "$version",
  "description": "Agent memory that runs where the agent runs: bounded Markdown stores, a memory tool and a frozen prompt, in WebAssembly.",
  "license": "MIT OR Apache-2.0",
  "main": "./node/mnemo.js",
  "module": "./bundler/mnemo.js",
  "types": "./node/mnemo.d.ts",
  "bin": { "mnemo": "./cli.mjs" },
  "sideEffects": ["./bundler/mnemo.js", "./bundler/snippets/*", "./lean/bundler/mnemo.js", "./lean/bundler/snippets/*", "./web/workerd.js", "./lean/web/workerd.js", "./web/browser.js"],
  "exports": {
    ".": {
      "types": "./node/mnemo.d.ts",
      "workerd": "./web/workerd.js",
      "node": "./node/mnemo.js",
      "default": "./bundler/mnemo.js"
    },
    "./web": {
      "types": "./web/mnemo.d.ts",
      "default": "./web/mnemo.js"
    },
    "./browser": {
      "types": "./web/browser.d.ts",
      "default": "./web/browser.js"
    },
    "./lean": {
      "types": "./lean/node/mnemo.d.ts",
      "workerd": "./lean/web/workerd.js",
      "node": "./lean/node/mnemo.js",
      "default": "./lean/bundler/mnemo.js"
    },
    "./lean/web": {
      "types": "./lean/web/mnemo.d.ts",
      "default": "./lean/web/mnemo.js"
    },
    "./package.json": "./package.json"
  },
  "files": ["node", "bundler", "web", "lean", "cli.mjs", "mcp.mjs", "mcp-tools.mjs", "README.md"],
  "dependencies": { "@modelcontextprotocol/sdk": "^$sdk" },
  "engines": { "node": ">=20.19" }
}
JSON
# The web and bundler builds are ES modules, the node build CommonJS.
for out in web bundler lean/web lean/bundler; do echo '{"type": "module"}' > "pkg/$out/package.json"; done
cp README.md pkg/README.md
# Lets the examples and tests import the package by name, as users do.
mkdir -p node_modules && ln -sfn ../pkg node_modules/mnemo
size() { echo "$(wc -c < "$1") bytes of wasm, $(gzip -9 -c "$1" | wc -c) gzipped"; }
# A C symbol left undefined (an SQLite option leaving out something still
# called) links as an import from "env", which no host provides.
if grep -l 'from "env"\|require(.env.)' pkg/*/mnemo.js pkg/lean/*/mnemo.js; then
  echo "the wasm imports undefined symbols from \"env\" (see .cargo/config.toml)" >&2
  exit 1
fi
echo "built pkg/ (node, bundler, web): $(size pkg/web/mnemo_bg.wasm)"
echo "built pkg/lean/ (node, bundler, web; no SQLite): $(size pkg/lean/web/mnemo_bg.wasm)"
