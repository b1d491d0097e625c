#!/usr/bin/env bash
# README command 2: install what is missing, build once, run every test (unit, simulator,
# the browser tests against the project's own test applications on 127.0.0.1, and the
# exported Playwright tests run by Playwright itself).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-xmllint.sh
bash scripts/ensure-playwright.sh
bash scripts/ensure-server-stacks.sh
bash scripts/ensure-grid.sh
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast "$@"
else
  cargo test --workspace --locked --no-fail-fast "$@"
fi
