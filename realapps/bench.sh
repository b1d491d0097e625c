#!/usr/bin/env bash
# The ten-app bench of docs/src/real-apps.md, one application at a time, so that a bench of
# five hours can be finished over several sittings, on machines that do not keep their
# files: each application's tables are copied into the repository as soon as it is done.
#
#   bash realapps/bench.sh [APP...]        # default: the eleven of apps.toml, in its order
#
# Runs random and guided with gremlins and Bombadil (0.7.0, installed from npm by the
# bench) beside them, the server's own coverage read for every run (`coverage` in each
# app's config; coverage.py is installed into a Python app's venv), 2 minutes, 3 seeds (BUDGET, SEEDS, STRATEGIES, PEERS override;
# PEERS=...,bombadil@0.4.5 adds the source build the earlier benches compared with). The raw runs go to
# bench-state/realapps-REV/APP (REV: the last commit that changed the code; gitignored;
# `--resume` skips the runs finished there);
# bench.md, bench.csv, stops.md and findings.md of each finished application go to
# realapps/results/REV/APP/, to commit. An application whose results are already
# there is skipped. Needs an otherwise idle machine: never two benches at once. Stop it
# with `kill -TERM PID` (of this script): the finished runs stay for the next sitting.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${WAYFARER_REALAPPS:=$(cd .. && pwd)/shared/realapps}"
export WAYFARER_REALAPPS
BUDGET=${BUDGET:-2m}
SEEDS=${SEEDS:-3}
STRATEGIES=${STRATEGIES:-random,guided}
PEERS=${PEERS:-gremlins,bombadil}
source realapps/common.sh
code_rev realapps/bench.sh
app_list "$@"

bash scripts/ensure-chromium.sh
install_apps realapps/bench.sh
if [[ ",$PEERS," == *",bombadil@0.4.5,"* ]] && [ ! -x "${BOMBADIL_BIN:-/opt/peers/bombadil/target/release/bombadil}" ]; then
  echo "realapps/bench.sh: building Bombadil 0.4.5 (~11 min cold on 2 cores)" >&2
  bash "$(cd .. && pwd)/shared/peers/bombadil/build.sh"
fi
cargo build --release --locked -p wayfarer
bin=target/release/wayfarer

for a in "${apps[@]}"; do
  keep=realapps/results/$rev/$a
  if [ -f "$keep/bench.csv" ]; then
    echo "realapps/bench.sh: $a done at $rev ($keep), skipped" >&2
    continue
  fi
  out=bench-state/realapps-$rev/$a
  echo "realapps/bench.sh: $a -> $out ($(date +%T))" >&2
  # In the background and waited for, so a TERM to this script reaches the bench at once
  # (bash runs a trap only after a foreground child ends); the bench stops its runs cleanly.
  "$bin" bench --apps-file realapps/apps.toml --apps "$a" --strategies "$STRATEGIES" \
    --peer "$PEERS" --budget "$BUDGET" --seeds "$SEEDS" --out "$out" --resume &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM INT
  wait "$child"
  trap - TERM INT
  mkdir -p "$keep"
  for f in bench.md bench.csv stops.md findings.md; do
    if [ -f "$out/$f" ]; then cp "$out/$f" "$keep/"; fi
  done
done
echo "realapps/bench.sh: results in realapps/results/$rev/ (commit them)" >&2
