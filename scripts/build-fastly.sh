#!/usr/bin/env bash
# Builds the Fastly Compute example (examples/fastly) for wasm32-wasip1 into
# target/fastly/wasm32-wasip1/release/mnemo-fastly.wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
(cd examples/fastly && CARGO_TARGET_DIR=../../target/fastly cargo build --quiet --release)
f=target/fastly/wasm32-wasip1/release/mnemo-fastly.wasm
echo "$f: $(wc -c < "$f") bytes, $(gzip -9 -c "$f" | wc -c) gzipped"
