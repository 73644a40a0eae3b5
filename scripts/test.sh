#!/usr/bin/env bash
# Installs what is missing, then runs every check and test of mnemo:
# formatting, clippy (host and wasm32), docs, the native suites (unit,
# behaviour, CLI, doc tests), the behaviour suite in wasm under Node, in a
# headless Chromium page and in a dedicated worker, the npm package's JS API
# tests, the packed package as users install it (Node, a Vite page, a
# Worker, npx), and the demo page in a real browser.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# The npm package's two builds: full (js + sqlite) and lean (js alone).
wasm=(--target wasm32-unknown-unknown --no-default-features --features js,sqlite)
lean=(--target wasm32-unknown-unknown --no-default-features --features js)

step "format"
cargo fmt --check

step "clippy (host, wasm32, component)"
cargo clippy --all-targets --quiet -- -D warnings
cargo clippy "${wasm[@]}" --all-targets --quiet -- -D warnings
cargo clippy "${lean[@]}" --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-wasip2 --no-default-features --features component --quiet -- -D warnings
cargo clippy --target wasm32-wasip2 --no-default-features --features component-review --quiet -- -D warnings

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet "${wasm[@]}"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet "${lean[@]}"

step "no JS binding crates without the js feature"
# The core with SQLite must not pull wasm-bindgen, js-sys or web-sys into a
# wasm build: sqlite-wasm-rs then leaves its five host hooks (clock,
# randomness, sleep) to whoever links it, and sqlite-wasm-vfs is empty;
# only `js` turns on their wasm-bindgen parts.
for features in sqlite component ""; do
  if cargo tree --target wasm32-unknown-unknown --no-default-features ${features:+--features "$features"} \
    -e normal --prefix none | grep -E '^(wasm-bindgen|js-sys|web-sys) '; then
    echo "a JS binding crate is in the dependency tree of --features '$features'" >&2
    exit 1
  fi
done

step "native tests"
cargo test --quiet
# The learned layer's byte-for-byte retraining check, optimised: it is
# skipped unoptimised, where it takes half an hour (four minutes here).
cargo test --release --quiet --test scan_model

step "behaviour suite in wasm: node"
wasm-pack test --node --no-default-features --features sqlite --test wasm_node

step "state.db through the node:fs VFS (wasm under Node)"
wasm-pack test --node --no-default-features --features js,sqlite --test wasm_node_fs

step "npm package + JS API tests (node)"
scripts/build-js.sh
node --test tests/js/
node examples/quickstart.mjs >/dev/null
node examples/review-agent.mjs >/dev/null

step "crash campaign, load and soak, short forms: the CLI and Node's \"fs\" storage killed mid-write, CLI + Node + MCP writers at once, a 15 s soak"
node --test tests/reliability/

step "the packed package installed into a fresh project: ESM, CommonJS, workerd, npx mnemo mcp, the README's programs"
node --test tests/packed/

step "edge examples: Cloudflare under workerd, Fastly under Viceroy (when installed)"
if command -v viceroy >/dev/null; then scripts/build-fastly.sh; fi
node --test tests/edge/

step "behaviour suite in wasm: browser page, dedicated worker"
wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" \
  --no-default-features --features sqlite --test wasm_browser
wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" \
  --no-default-features --features sqlite --test wasm_worker

step "WIT components: wasip2 under wasmtime, WASI-free under jco"
scripts/build-component.sh
python3 -m unittest discover -s tests/component
node --test tests/component/

step "browser storage (OPFS, IndexedDB, tabs, reload; the packed package in a Vite build) in Chromium"
node --test tests/browser/

step "demo page in Chromium"
rm -rf www/pkg && cp -r pkg/web www/pkg
node --test tests/page/

printf '\n\033[1mall checks passed\033[0m\n'
