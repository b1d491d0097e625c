#!/usr/bin/env bash
# What driving remote browsers costs the one coordinating wayfarer process: its own CPU
# (user + system, not the browsers') per step, with N browsers from a local browserless,
# the bundled clinic app served by a separate `wayfarer serve` so that its CPU is not
# counted either. docs/src/workers.md quotes what this printed.
#
#   bash scripts/measure-grid-cpu.sh [BUDGET] [N ...]      # default: 60s, 1 2 4
#
# Needs `bash scripts/ensure-grid.sh` and a release build. The browsers share this
# machine's cores with wayfarer, so steps/s is this machine's; the CPU per step is not.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release/wayfarer}
budget=${1:-60s}
shift || true
counts=("$@")
[ "${#counts[@]}" -gt 0 ] || counts=(1 2 4)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
work=$(mktemp -d)
app_port=$(free_port)
bl_port=$(free_port)
token=measure$$
"$bin" serve clinic --port "$app_port" >"$work/app.log" 2>&1 &
app=$!
PORT=$bl_port TOKEN=$token TIMEOUT=3600000 CONCURRENT=16 QUEUED=16 \
  bash tools/browserless/start.sh >"$work/browserless.log" 2>&1 &
bl=$!
trap 'kill -TERM $app $bl 2>/dev/null || true; wait $app $bl 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$bl_port/json/version?token=$token" >/dev/null && break
  sleep 0.5
done
echo "| browsers | steps | steps/s | wayfarer CPU s | CPU ms per step | steps/s one core drives |"
echo "|---|---|---|---|---|---|"
for n in "${counts[@]}"; do
  out="$work/run-$n"
  /usr/bin/time -f "%U %S" -o "$work/time-$n" "$bin" explore "http://127.0.0.1:$app_port/" \
    --cdp "ws://127.0.0.1:$bl_port/chromium?token=$token" --workers "$n" \
    --budget "$budget" --shrink off --out "$out" >/dev/null 2>"$work/err-$n" || true
  python3 - "$out/report.json" "$work/time-$n" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
user, sys_ = map(float, open(sys.argv[2]).read().split()[-2:])
cpu = user + sys_
steps, dur = r["steps"], r["duration_s"]
ms = 1000 * cpu / max(steps, 1)
print(f"| {sys.argv[3]} | {steps} | {steps / dur:.1f} | {cpu:.1f} | {ms:.1f} | {1000 / ms:.0f} |")
PY
done
