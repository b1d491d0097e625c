#!/usr/bin/env bash
# The test suite on a busy machine (issue 45): every core kept busy by a spinning process
# while `scripts/test.sh` runs, RUNS times (default 3). A browser test that passes alone
# and fails here waits on time instead of on what it waits for. Extra arguments go to
# scripts/test.sh (e.g. `-p wayfarer --test coverage_modes`).
#   RUNS=5 LOAD=2 bash scripts/test-under-load.sh -p wayfarer --test hostile_pages
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
load="${LOAD:-$(nproc)}"
pids=()
stop_load() {
  # Only the spinners this script started, by pid.
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop_load EXIT
# Build first, unloaded: the load is for the tests, not for the compiler.
cargo test --workspace --locked --no-run "$@" >/dev/null
for _ in $(seq "$load"); do
  yes >/dev/null &
  pids+=("$!")
done
failed=0
for i in $(seq "$runs"); do
  echo "== run $i of $runs with $load busy process(es)"
  if bash scripts/test.sh "$@"; then
    echo "== run $i passed"
  else
    echo "== run $i FAILED"
    failed=$((failed + 1))
  fi
done
echo "== $failed of $runs run(s) failed under load"
[ "$failed" -eq 0 ]
