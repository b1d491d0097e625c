#!/usr/bin/env bash
# Installs the Playwright Test runner that exported specs run on (tools/playwright), once.
# Never a browser: the specs use Debian's Chromium (scripts/ensure-chromium.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d tools/playwright/node_modules/@playwright/test ]; then exit 0; fi
if ! command -v npx >/dev/null 2>&1; then
  echo "wayfarer: node/npm not found; installing Debian's nodejs and npm packages..." >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
echo "wayfarer: installing @playwright/test into tools/playwright/node_modules..." >&2
# npm ci installs exactly the committed lock file; the skip keeps Playwright from
# downloading its own browser builds.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix tools/playwright \
  --no-audit --no-fund --loglevel=error >/dev/null
[ -d tools/playwright/node_modules/@playwright/test ] || {
  echo "wayfarer: installing @playwright/test failed" >&2
  exit 2
}
