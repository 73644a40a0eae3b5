#!/usr/bin/env bash
# Builds mnemo's WIT components into target/component/:
#   mnemo.wasip2.wasm  for wasmtime-based hosts (wasm32-wasip2, WASI imports)
#   mnemo.wasm         WASI-free (wasm32-unknown-unknown core + `jco new`),
#                      for JS and edge hosts; transpiled by jco into js/
#   mnemo-review.wasm  the second world (`mnemo-review`: the host's model for
#                      the background review), WASI-free; transpiled into
#                      review-js/
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_PROFILE_RELEASE_STRIP=true
out=target/component
mkdir -p "$out"
cargo build --quiet --release --target wasm32-wasip2 --no-default-features --features component
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/mnemo.wasm" "$out/mnemo.wasip2.wasm"
# A separate target dir keeps this core build from displacing the npm
# package's wasm32-unknown-unknown build (beside CARGO_TARGET_DIR when set).
core="${CARGO_TARGET_DIR:-target}/component-core"
CARGO_TARGET_DIR="$core" cargo build --quiet --release \
  --target wasm32-unknown-unknown --no-default-features --features component
node_modules/.bin/jco new "$core/wasm32-unknown-unknown/release/mnemo.wasm" \
  -o "$out/mnemo.wasm" >/dev/null
rm -rf "$out/js"
node_modules/.bin/jco transpile "$out/mnemo.wasm" -o "$out/js" --instantiation async \
  --name mnemo --quiet >/dev/null
# The second world shares the core build's dependencies (only mnemo itself
# is compiled again).
CARGO_TARGET_DIR="$core" cargo build --quiet --release \
  --target wasm32-unknown-unknown --no-default-features --features component-review
node_modules/.bin/jco new "$core/wasm32-unknown-unknown/release/mnemo.wasm" \
  -o "$out/mnemo-review.wasm" >/dev/null
rm -rf "$out/review-js"
node_modules/.bin/jco transpile "$out/mnemo-review.wasm" -o "$out/review-js" \
  --instantiation async --name mnemo --quiet >/dev/null
for f in "$out/mnemo.wasip2.wasm" "$out/mnemo.wasm" "$out/mnemo-review.wasm"; do
  echo "$f: $(wc -c < "$f") bytes, $(gzip -9 -c "$f" | wc -c) gzipped"
done
