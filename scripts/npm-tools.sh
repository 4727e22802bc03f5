#!/usr/bin/env bash
# Install the pinned npm tools the tests and benches drive from outside (MCP clients and peer
# servers no one here wrote), with the machine's Node, into a cache folder outside the checkout.
# No browser is downloaded: they are given this machine's Chromium. Safe to run again.
# Prints the folder whose node_modules/ holds them. Exit 1, saying why, when npm is missing.
set -euo pipefail
PINS=(
  "@modelcontextprotocol/inspector@2.12.0"  # the MCP Inspector; its --cli mode lists and calls tools
)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/webmcp-harness/npm-tools"
if ! command -v npm >/dev/null 2>&1; then
  echo "npm-tools: npm is not on PATH; install Node.js 20 or newer to run the tests that use it" >&2
  exit 1
fi
mkdir -p "$dir"
stamp="$dir/.installed"
want="${PINS[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "npm-tools: installing ${want} into $dir" >&2
  [ -f "$dir/package.json" ] || echo '{"private": true}' > "$dir/package.json"
  (cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
     npm install --no-audit --no-fund --loglevel=error "${PINS[@]}" >&2)
  printf '%s' "$want" > "$stamp"
fi
echo "$dir"
