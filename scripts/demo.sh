#!/usr/bin/env bash
# README command 1: install what is missing, build, and explore the bundled demo app.
# Extra arguments go to `wayfarer demo` (e.g. --budget 2m --strategy random --json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
cargo build --release --locked -p wayfarer
exec ./target/release/wayfarer demo "$@"
