#!/usr/bin/env bash
# Starts browserless (installed here by scripts/ensure-grid.sh) on 127.0.0.1 with Debian's
# Chromium, in the foreground, so that its caller holds its pid:
#
#   PORT=3000 TOKEN=secret TIMEOUT=30000 CONCURRENT=10 QUEUED=10 bash tools/browserless/start.sh
#
# browserless 2.42 has no setting for the browser's path: it launches what Playwright's
# registry names, under PLAYWRIGHT_BROWSERS_PATH, and refuses to start while any of its
# routes lacks its browser. So a folder of our own gives Playwright's path to Debian's
# Chromium, and ROUTES keeps the Chromium and management routes only (Chrome, Edge,
# Firefox and WebKit are not installed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pkg="$here/node_modules/@browserless.io/browserless"
[ -d "$pkg/build" ] || { echo "browserless is not installed: bash scripts/ensure-grid.sh" >&2; exit 2; }
chromium=""
for c in /usr/lib/chromium/chromium /usr/bin/chromium; do
  if [ -x "$c" ]; then chromium="$c"; break; fi
done
[ -n "$chromium" ] || { echo "no Chromium (/usr/lib/chromium/chromium): bash scripts/ensure-grid.sh" >&2; exit 2; }
node="${BROWSERLESS_NODE:-$(cat "$here/node.path" 2>/dev/null || command -v node)}"
run="$(mktemp -d "${TMPDIR:-/tmp}/wayfarer-browserless-XXXXXX")"
export PLAYWRIGHT_BROWSERS_PATH="$run/browsers"
exe="$(cd "$pkg/build" && "$node" -e "console.log(require(require.resolve('playwright-core', {paths: ['.']})).chromium.executablePath())")"
mkdir -p "$(dirname "$exe")" "$run/routes" "$run/data"
ln -s "$chromium" "$exe"
ln -s "$pkg/build/routes/chromium" "$run/routes/chromium"
ln -s "$pkg/build/routes/management" "$run/routes/management"
# The folder goes when browserless does (it is this shell's child, not exec'd, for that).
# From its install folder: its /meta route reads ./node_modules/playwright-core.
cd "$here"
trap 'kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; rm -rf "$run"' EXIT TERM INT
HOST=127.0.0.1 PORT="${PORT:-3000}" TOKEN="${TOKEN:-}" ROUTES="$run/routes" \
  DATA_DIR="$run/data" TIMEOUT="${TIMEOUT:-30000}" CONCURRENT="${CONCURRENT:-10}" \
  QUEUED="${QUEUED:-10}" "$node" "$pkg/build/index.js" &
child=$!
wait "$child"
