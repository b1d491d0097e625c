#!/usr/bin/env bash
# `wayfarer init` on each real application (issue 43), as a new user would run it: start
# the application fresh, run init with its seeded credentials, then a short exploration
# with the configuration init wrote; keep what init wrote and said, stop the application,
# and print a Markdown table (app, steps, verdict, deny rules, what the exploration saw).
#   WAYFARER=target/release/wayfarer bash realapps/init-table.sh OUTDIR [APP...]
# The applications must be installed (see realapps/README.md); ports 18700-18760.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apps_dir=${WAYFARER_REALAPPS:-/work/shared/realapps}
bin=${WAYFARER:-$here/../target/release/wayfarer}
out=${1:?usage: init-table.sh OUTDIR [APP...]}
shift
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(wagtail pretix redmine roundup datasette mlflow verdaccio directus tiddlywiki maildev)
# The seeded administrators (each application's README in the realapps folder).
declare -A user=([wagtail]=admin [pretix]=admin@localhost [redmine]=admin [roundup]=admin
  [verdaccio]=admin [directus]=admin@example.com)
mkdir -p "$out"
echo "| app | start URL | login steps | init says | deny rules | explore 30 steps with it |"
echo "| --- | --- | --- | --- | --- | --- |"
port=18700
for app in "${apps[@]}"; do
  port=$((port + 4))
  path=$(sed -n 's|^url = "http://127.0.0.1:{port}\(.*\)"|\1|p' "$here/$app.toml")
  url="http://127.0.0.1:$port${path:-/}"
  setsid bash "$apps_dir/$app/start.sh" "$port" >"$out/$app.server.log" 2>&1 &
  pgid=$!
  ready=no
  for _ in $(seq 360); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)
    if [ "${code:-000}" != 000 ] && [ "$code" -lt 500 ]; then ready=yes; break; fi
    sleep 0.5
  done
  creds=()
  if [ -n "${user[$app]:-}" ]; then
    creds=(WAYFARER_USER="${user[$app]}" WAYFARER_PASSWORD=admin)
  fi
  if [ $ready = yes ]; then
    env "${creds[@]}" "$bin" init "$url" -o "$out/$app.toml" --force >"$out/$app.init.txt" 2>&1 || true
    env "${creds[@]}" "$bin" explore "$url" --config "$out/$app.toml" --budget 30 --seed 1 \
      --shrink off --json --out "$out/$app-run" >"$out/$app.explore.json" 2>"$out/$app.explore.err" || true
  else
    echo "not ready after 180 s" >"$out/$app.init.txt"
  fi
  kill -TERM -- "-$pgid" 2>/dev/null || true
  wait "$pgid" 2>/dev/null || true
  steps=$(grep -c '^\[\[login\]\]' "$out/$app.toml" 2>/dev/null || true)
  # (grep finds nothing for some apps: `|| true`, or set -e ends the script)
  said=$( (grep -E '^  login (tried|not tried)' "$out/$app.init.txt" || true) | sed 's/^  //; s/|/\\|/g')
  [ -n "$said" ] || said=$( (grep -E '^  login:|^error' "$out/$app.init.txt" || true) | head -1 | sed 's/^  //; s/|/\\|/g')
  deny=$( (grep -E '^  deny:' "$out/$app.init.txt" || true) | sed 's/^  deny: //' | paste -sd ';' - | sed 's/|/\\|/g')
  seen=$(python3 - "$out/$app.explore.json" "$out/$app.explore.err" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    err = open(sys.argv[2]).read().strip().splitlines()
    print("no summary: " + (err[-1][:80] if err else "?"))
    sys.exit()
line = "%s steps, %s URLs, logged out %sx" % (d["steps"], d["urls"], d.get("logged_out", 0))
if d.get("stopped_early"):
    line += ", stopped: " + d["stopped_early"][:60]
print(line.replace("|", "\\|"))
PY
)
  echo "| $app | \`${path:-/}\` | ${steps:-0} | ${said:-?} | ${deny:-none} | $seen |"
done
