#!/usr/bin/env bash
# One setting of the default strategy, with and without, side by side on the real apps: the
# A/B a weight is chosen by ("by measurement, not by guess").
#
#   bash realapps/ab.sh NAME 'TOML LINES' [APP...]      # default: the apps of apps.toml
#   bash realapps/ab.sh noserver $'[strategy.guided]\nserver_lines_per_unit = 0'
#   bash realapps/ab.sh --before OLDREV [APP...]         # this build against an older one
#
# Per application, seed by seed, the two runs alternate (guided as configured in
# realapps/APP.toml, then with the TOML lines appended to a copy of it), so both see the
# same machine; 2 minutes, 3 seeds, one browser (BUDGET, SEEDS, WORKERS override), the
# server's coverage read for every run. Raw runs go to bench-state/realapps-REV/ab-NAME/
# {base,NAME}-sSEED/APP (`--resume` keeps finished runs); each application's two bench.csv
# files, merged, go to realapps/results/REV/ab-NAME/APP/bench.csv with the strategy column
# reading `guided` and `guided NAME`. Compare them with `python3 realapps/ab.py DIR`.
# With --before OLDREV the base is OLDREV's binary with this checkout's configs (built once
# in bench-state/wt-OLDREV, kept as bench-state/bin-OLDREV) and the variant, named
# `since-OLDREV`, is this build unchanged: the before/after of a change of the default.
# Needs an otherwise idle machine, as bench.sh; stop it with `kill -TERM PID`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
base_bin=
if [ "$1" = --before ]; then
  old=$(git rev-parse --short "$2^{commit}") || { echo "realapps/ab.sh: no commit $2" >&2; exit 2; }
  name=since-$old
  lines=
  base_bin=bench-state/bin-$old
else
  name=$1
  lines=$2
fi
shift 2
case "$name" in
  *[!a-z0-9-]* | "") echo "realapps/ab.sh: NAME is lower-case letters, digits and dashes" >&2; exit 2 ;;
esac
: "${WAYFARER_REALAPPS:=$(cd .. && pwd)/shared/realapps}"
export WAYFARER_REALAPPS
BUDGET=${BUDGET:-2m}
SEEDS=${SEEDS:-3}
WORKERS=${WORKERS:-1}
source realapps/common.sh
code_rev realapps/ab.sh
app_list "$@"

# The variant's configs: copies beside the originals' own scripts (wordpress/ is read
# relative to its config), each with the lines appended; apps.toml copied as is.
state=bench-state/realapps-$rev/ab-$name
variant=$state/configs
mkdir -p "$variant"
cp realapps/apps.toml "$variant/"
for f in realapps/*.toml; do
  [ "$(basename "$f")" = apps.toml ] && continue
  { cat "$f"; printf '\n# realapps/ab.sh %s:\n%s\n' "$name" "$lines"; } > "$variant/$(basename "$f")"
done
for d in realapps/*/; do
  ln -sfn "$(pwd)/$d" "$variant/$(basename "$d")"
done

bash scripts/ensure-chromium.sh
install_apps realapps/ab.sh
cargo build --release --locked -p wayfarer
bin=target/release/wayfarer
if [ -n "$base_bin" ] && [ ! -x "$base_bin" ]; then
  # The old build's own worktree and target folder, so this checkout's target/ stays as is.
  echo "realapps/ab.sh: building $old into $base_bin (~12 minutes on 2 cores)" >&2
  [ -d "bench-state/wt-$old" ] || git worktree add --detach "bench-state/wt-$old" "$old" >/dev/null
  (cd "bench-state/wt-$old" && CARGO_TARGET_DIR="$(pwd)/../tgt-old" cargo build --release --locked -p wayfarer)
  cp "bench-state/tgt-old/release/wayfarer" "$base_bin"
fi

run() { # binary apps-file out seed app
  local bin=$1
  shift
  "$bin" bench --apps-file "$1" --apps "$4" --strategies guided --peer none \
    --workers "$WORKERS" --budget "$BUDGET" --seeds "$3..$3" --out "$2" --resume &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM INT
  wait "$child"
  trap - TERM INT
}

for a in "${apps[@]}"; do
  keep=realapps/results/$rev/ab-$name/$a
  if [ -f "$keep/bench.csv" ]; then
    echo "realapps/ab.sh: $a done at $rev ($keep), skipped" >&2
    continue
  fi
  for s in $(seq 1 "$SEEDS"); do
    echo "realapps/ab.sh: $a seed $s ($(date +%T))" >&2
    run "${base_bin:-$bin}" realapps/apps.toml "$state/base-s$s/$a" "$s" "$a"
    run "$bin" "$variant/apps.toml" "$state/$name-s$s/$a" "$s" "$a"
  done
  mkdir -p "$keep"
  python3 - "$keep/bench.csv" "$name" "$state" "$a" "$SEEDS" <<'EOF'
import csv, sys
out, name, state, app, seeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
rows, fields = [], None
for label, prefix in (("guided", "base"), (f"guided {name}", name)):
    for s in range(1, seeds + 1):
        with open(f"{state}/{prefix}-s{s}/{app}/bench.csv") as f:
            r = csv.DictReader(f)
            fields = fields or r.fieldnames
            for row in r:
                row["strategy"] = label
                rows.append(row)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
EOF
done
