#!/usr/bin/env bash
# Builds the web package and serves the demo page on 127.0.0.1.
# Usage: scripts/demo.sh [PORT]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-browser
export PATH="$HOME/.cargo/bin:$PATH"
port="${1:-${PORT:-8080}}"

scripts/build-js.sh
rm -rf www/pkg && cp -r pkg/web www/pkg
echo
echo "mnemo demo: http://127.0.0.1:$port/"
echo "(Ctrl-C stops the server)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory www
