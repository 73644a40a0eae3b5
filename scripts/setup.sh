#!/usr/bin/env bash
# Installs what mnemo's build and tests need, only where it is missing:
# the wasm32 target, wasm-bindgen-cli and wasm-pack (pinned together),
# Debian's chromium + chromium-driver + clang + llvm + tmux, and the npm dev tools.
# Idempotent: on a ready machine it finishes in about a second.
# Usage: scripts/setup.sh [--no-browser]
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
WASM_PACK_VERSION=0.15.1
browser=1
[ "${1:-}" = "--no-browser" ] && browser=0

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

for target in wasm32-unknown-unknown wasm32-wasip2; do
  if ! rustup target list --installed | grep -qx "$target"; then
    say "adding the $target target"
    rustup target add "$target"
  fi
done

# PyPI wasmtime runs the WIT component in the tests (2 s to install).
if ! python3 -c 'import wasmtime.component' 2>/dev/null; then
  say "installing the wasmtime Python package"
  python3 -m pip install --quiet --disable-pip-version-check wasmtime==50.0.1
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 10 minutes on 2 cores)"
  # --locked fails for this version (its lock file names a yanked crate).
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
  say "installing wasm-pack $WASM_PACK_VERSION (about 10 minutes on 2 cores)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --force
fi

if [ "$browser" = 1 ]; then
  missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v chromedriver >/dev/null || missing+=(chromium-driver)
  command -v clang >/dev/null || missing+=(clang)
  command -v llvm-ar >/dev/null || missing+=(llvm)
  # tmux gives `mnemo journey --play`'s test a real terminal.
  command -v tmux >/dev/null || missing+=(tmux)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} from Debian"
    sudo_=""
    [ "$(id -u)" = 0 ] || sudo_=sudo
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

# npm dev tools (playwright-core drives Debian's chromium; binaryen's
# wasm-opt shrinks the release .wasm; vite builds the packed package's test
# page). `npm ci` only when the lock changed.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.mnemo-lock; then
  say "installing npm dev tools"
  # (The benchmark peers live in bench/package.json: `npm run bench`
  # installs them; one of them builds native code.)
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.mnemo-lock
fi
