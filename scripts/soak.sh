#!/usr/bin/env bash
# Soak test: long `random` explorations (random+mutate inputs) of the four bundled test
# applications, one after another, watching memory, the store and the failure traces.
#
#   bash scripts/soak.sh                    # 4 x 15 min = one hour, into /tmp/wayfarer-soak
#   SOAK_MINUTES=2 bash scripts/soak.sh     # a short check
#
# Per application (expense, clinic, splitter, board) it serves the app with
# `wayfarer serve` on 127.0.0.1 (a port in 18800-18899) and runs ONE
# `wayfarer explore --strategy random --inputs random+mutate --budget <SOAK_MINUTES x 60>s`
# against it (the demo's configuration: "Log out" is never clicked). While it runs, every
# SOAK_INTERVAL seconds it samples VmRSS of the wayfarer process and the summed VmRSS of
# all its descendants (Chromium: browser, zygotes, GPU, utility and renderer processes;
# shared pages count once per process, as RSS does) into OUT/APP/rss.csv:
#   t_s,wayfarer_rss_kb,chromium_rss_kb,chromium_procs,chromium_pss_kb
# (the last column is the descendants' summed PSS, shared pages split between them).
# After the run it checks:
#   - lost steps: every step 1..N of the summary's `steps` must be a row of run.sqlite's
#     `steps` table (and no row beyond N);
#   - replays: every trace in OUT/APP/run/traces/ is replayed once (`wayfarer replay
#     --json`, against the same still-running server, so server-side state the run left
#     behind stays) and counted as reproduced when the expected signature came back;
#   - memory: RSS at the start (first sample at or after 30 s) and at the end (last
#     sample), and the least-squares slope in MB per minute over the second half of the
#     run (samples with t >= half the last sample's t), for wayfarer and for Chromium;
#   - restarts (browser restarts, the summary's `restarts`) and Chromium processes of the
#     run still alive after wayfarer exited ("orphans").
# It prints a markdown table and writes it to OUT/soak.md (details in OUT/soak.json and
# OUT/APP/check.json). One application's failure does not stop the others.
#
# Environment:
#   SOAK_MINUTES   minutes per application (default 15; decimals allowed, e.g. 0.5)
#   SOAK_OUT       output directory (default /tmp/wayfarer-soak; OUT/APP is replaced per app)
#   SOAK_APPS      applications, space-separated (default "expense clinic splitter board")
#   SOAK_SEED      seed (default 1)
#   SOAK_INTERVAL  seconds between RSS samples (default 10)
#   SOAK_PORT      first port tried (default 18801; ports up to 18899 are tried)
#   SOAK_REPLAY_TIMEOUT  seconds per replay before it is abandoned (default 300)
#   SOAK_REPLAYS   0 skips the replays (default 1)
#   WAYFARER       the wayfarer binary (default target/release/wayfarer; never rebuilt here)
#   CHROME         passed on to wayfarer as usual
#
# Exit status: 0 when every application's run completed with no problem (a lost step, a
# store that disagrees with the summary, a Chromium process left behind), 1 otherwise (the
# table lists the problems; failures the exploration found are the point of it and do not
# count, nor do replays that did not reproduce), 2 on a setup error.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WF="${WAYFARER:-$ROOT/target/release/wayfarer}"
MINUTES="${SOAK_MINUTES:-15}"
OUT="${SOAK_OUT:-/tmp/wayfarer-soak}"
APPS="${SOAK_APPS:-expense clinic splitter board}"
SEED="${SOAK_SEED:-1}"
INTERVAL="${SOAK_INTERVAL:-10}"
PORT="${SOAK_PORT:-18801}"
REPLAY_TIMEOUT="${SOAK_REPLAY_TIMEOUT:-300}"
REPLAYS="${SOAK_REPLAYS:-1}"

die() { echo "soak: $*" >&2; exit 2; }
say() { echo "soak: $*" >&2; }

[ -x "$WF" ] || die "no wayfarer binary at $WF; build it with: cargo build --release -p wayfarer"
command -v python3 >/dev/null || die "python3 is needed for sampling and the numbers"
BUDGET_S="$(python3 -c 'import sys; s=round(float(sys.argv[1])*60); assert s>0; print(s)' "$MINUTES" 2>/dev/null)" \
    || die "SOAK_MINUTES must be a positive number of minutes, not '$MINUTES'"
mkdir -p "$OUT" || die "cannot create $OUT"
OUT="$(cd "$OUT" && pwd)"

# Everything started here, killed by pid on the way out.
SERVER_PID=""
WF_PID=""
SAMPLER_PID=""
cleanup() {
    local p i
    # wayfarer first, as Ctrl-C would: it closes its browser and writes its report.
    if [ -n "$WF_PID" ] && kill -INT "$WF_PID" 2>/dev/null; then
        for i in $(seq 30); do kill -0 "$WF_PID" 2>/dev/null || break; sleep 1; done
        kill -KILL "$WF_PID" 2>/dev/null
    fi
    for p in "$SAMPLER_PID" "$WF_PID" "$SERVER_PID"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null
    done
    for p in "$SAMPLER_PID" "$WF_PID" "$SERVER_PID"; do
        [ -n "$p" ] && wait "$p" 2>/dev/null
    done
    SERVER_PID="" WF_PID="" SAMPLER_PID=""
}
trap cleanup EXIT
trap 'say "interrupted"; cleanup; exit 130' INT TERM

# The sampler: every INTERVAL s, the RSS of PID and of all its descendants (found by the
# ppid links of /proc/*/stat), until PID is gone. Every descendant seen is remembered
# (pid and start time), and those still alive after PID exited are written to ORPHANS.
SAMPLER=$(cat <<'EOF'

import os, sys, time
pid, csv_path, interval, orphans_path = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
def stat(p):
    try:
        with open(f"/proc/{p}/stat") as f:
            s = f.read()
    except OSError:
        return None
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[1]), rest[19]          # ppid, start time
def rss_kb(p):
    try:
        with open(f"/proc/{p}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
def pss_kb(p):
    try:
        with open(f"/proc/{p}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
def descendants(root):
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = stat(int(d))
            if st:
                children.setdefault(st[0], []).append((int(d), st[1]))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c[0])
    return out
seen = set()
t0 = time.monotonic()
with open(csv_path, "w") as f:
    f.write("t_s,wayfarer_rss_kb,chromium_rss_kb,chromium_procs,chromium_pss_kb\n")
    while True:
        own = rss_kb(pid)
        if stat(pid) is None or own == 0:
            break
        kids = descendants(pid)
        seen.update(kids)
        rss = sum(rss_kb(k) for k, _ in kids)
        pss = sum(pss_kb(k) for k, _ in kids)
        f.write(f"{time.monotonic() - t0:.1f},{own},{rss},{len(kids)},{pss}\n")
        f.flush()
        time.sleep(interval - (time.monotonic() - t0) % interval)
time.sleep(2)                               # let the browser finish closing
left = [p for p, start in seen if (stat(p) or (0, None))[1] == start]
with open(orphans_path, "w") as f:
    f.write(" ".join(map(str, sorted(left))) + "\n")
EOF
)

# The checks of one finished run, written as OUT/APP/check.json.
CHECK=$(cat <<'EOF'

import json, os, sqlite3, sys
d, app, wf_rc, wall_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
c = {"app": app, "wayfarer_exit": wf_rc, "wall_s": round(wall_s, 1), "problems": []}
try:
    rep = json.load(open(os.path.join(d, "run", "report.json")))
except Exception as e:
    rep = None
    c["problems"].append(f"no report.json ({e})")
if rep:
    c["steps"] = rep.get("steps")
    c["failures"] = len(rep.get("failures") or [])
    c["failure_occurrences"] = sum(f.get("count", 0) for f in rep.get("failures") or [])
    c["restarts"] = rep.get("restarts")
    c["step_errors"] = rep.get("step_errors")
    c["complete"] = rep.get("complete")
    c["stopped_early"] = rep.get("stopped_early")
    c["duration_s"] = rep.get("duration_s")
    if not rep.get("complete"):
        c["problems"].append("report says the run did not complete")
    if rep.get("stopped_early"):
        c["problems"].append(f"stopped early: {rep.get('stopped_early')}")
try:
    db = sqlite3.connect(f"file:{os.path.join(d, 'run', 'run.sqlite')}?mode=ro", uri=True)
    rows = [r[0] for r in db.execute("SELECT step FROM steps ORDER BY step")]
    c["store_steps"] = len(rows)
    c["store_failures"] = db.execute("SELECT count(*) FROM failures").fetchone()[0]
    c["store_resets"] = db.execute("SELECT count(*) FROM resets").fetchone()[0]
    n = c.get("steps")
    if n is None:
        n = max(rows, default=0)
    have = set(rows)
    missing = [k for k in range(1, n + 1) if k not in have]
    c["lost_steps"] = len(missing)
    c["lost_first"] = missing[:20]
    c["extra_steps"] = len([k for k in rows if k < 1 or k > n])
    if missing:
        c["problems"].append(f"{len(missing)} of {n} steps missing from the store (first {missing[:5]})")
    if c["extra_steps"]:
        c["problems"].append(f"{c['extra_steps']} store steps outside 1..{n}")
    if rep and c["store_failures"] != c["failures"]:
        c["problems"].append(f"store has {c['store_failures']} failures, summary {c['failures']}")
except Exception as e:
    c["problems"].append(f"cannot read run.sqlite ({e})")
    c["lost_steps"] = None
# Replays (one line per trace: verdict, reproduced count, trace).
replayed = reproduced = errors = 0
p = os.path.join(d, "replays.tsv")
if os.path.exists(p):
    for line in open(p):
        verdict = line.split("\t")[0]
        replayed += 1
        reproduced += verdict == "reproduced"
        errors += verdict == "error"
c["replayed"], c["reproduced"], c["replay_errors"] = replayed, reproduced, errors
# Memory.
samples = []
try:
    for i, line in enumerate(open(os.path.join(d, "rss.csv"))):
        if i:
            t, w, ch, n_ch, pss = line.strip().split(",")
            samples.append((float(t), int(w), int(ch), int(n_ch), int(pss)))
except Exception as e:
    c["problems"].append(f"no RSS samples ({e})")
c["samples"] = len(samples)
def slope(pts):
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None
if samples:
    start = next((s for s in samples if s[0] >= 30), samples[-1])
    end = samples[-1]
    half = [s for s in samples if s[0] >= end[0] / 2]
    for key, col in (("wayfarer", 1), ("chromium", 2), ("chromium_pss", 4)):
        m = key if key.endswith("pss") else f"{key}_rss"
        c[f"{m}_start_mb"] = round(start[col] / 1024, 1)
        c[f"{m}_end_mb"] = round(end[col] / 1024, 1)
        c[f"{m}_max_mb"] = round(max(s[col] for s in samples) / 1024, 1)
        k = slope([(s[0] / 60, s[col] / 1024) for s in half])   # MB per minute
        c[f"{key}_slope_mb_min"] = None if k is None else round(k, 2)
    c["rss_start_t_s"] = start[0]
    c["slope_from_t_s"] = half[0][0]
    c["chromium_procs_max"] = max(s[3] for s in samples)
try:
    c["orphans"] = len(open(os.path.join(d, "orphans.txt")).read().split())
except OSError:
    c["orphans"] = None
if c.get("orphans"):
    c["problems"].append(f"{c['orphans']} Chromium processes outlived wayfarer")
json.dump(c, open(os.path.join(d, "check.json"), "w"), indent=2)
EOF
)

# The table over every app's check.json.
TABLE=$(cat <<'EOF'

import json, os, sys
out, apps, minutes = sys.argv[1], sys.argv[2].split(), sys.argv[3]
def f(v, fmt="{}"):
    return "–" if v is None else fmt.format(v)
rows, all_checks = [], []
for app in apps:
    try:
        c = json.load(open(os.path.join(out, app, "check.json")))
    except Exception:
        c = {"app": app, "problems": ["no check (the run did not start)"]}
    all_checks.append(c)
    mb = lambda k: f(c.get(k), "{:.0f}")
    sl = lambda k: f(c.get(k), "{:+.2f}")
    rows.append(" | ".join([
        app, f(c.get("steps")), f(c.get("failures")),
        f"{f(c.get('replayed'))}/{f(c.get('reproduced'))}",
        f(c.get("lost_steps")), f(c.get("restarts")),
        f"{mb('wayfarer_rss_start_mb')}/{mb('wayfarer_rss_end_mb')}", sl("wayfarer_slope_mb_min"),
        f"{mb('chromium_rss_start_mb')}/{mb('chromium_rss_end_mb')}", sl("chromium_slope_mb_min"),
        f(c.get("orphans")),
    ]))
lines = [
    f"Soak: random strategy, random+mutate inputs, {minutes} min per application",
    "",
    "| app | steps | failures | replayed/reproduced | lost steps | restarts | wayfarer RSS start/end (MB) | slope (MB/min) | chromium RSS start/end (MB) | slope (MB/min) | orphans |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
] + [f"| {r} |" for r in rows] + [
    "",
    "RSS start: first sample at or after 30 s; slope: least squares over the second half of the run;",
    "chromium: summed VmRSS of all of wayfarer's descendant processes (shared pages counted in each;",
    "their summed PSS is in APP/rss.csv and APP/check.json); orphans: of those, still alive after wayfarer exited.",
]
problems = [f"- {c['app']}: {p}" for c in all_checks for p in c.get("problems", [])]
if problems:
    lines += ["", "Problems:"] + problems
text = "\n".join(lines) + "\n"
open(os.path.join(out, "soak.md"), "w").write(text)
json.dump(all_checks, open(os.path.join(out, "soak.json"), "w"), indent=2)
print(text, end="")
sys.exit(1 if any(c.get("problems") for c in all_checks) else 0)
EOF
)

port_free() {
    python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.close()' "$1" 2>/dev/null
}

# Serve APP on the first free port from PORT on; sets SERVER_PID and URL.
start_server() {
    local app="$1" dir="$2" p="$PORT" i
    while [ "$p" -le 18899 ]; do
        if port_free "$p"; then
            "$WF" serve "$app" --port "$p" >"$dir/serve.out" 2>"$dir/serve.err" &
            SERVER_PID=$!
            for i in $(seq 50); do
                URL="$(head -n1 "$dir/serve.out" 2>/dev/null)"
                [ -n "$URL" ] && return 0
                kill -0 "$SERVER_PID" 2>/dev/null || break
                sleep 0.1
            done
            kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null
            # 2: serve refused its arguments (an unknown application): no port helps.
            [ $? -eq 2 ] && { SERVER_PID=""; return 1; }
            SERVER_PID=""
        fi
        p=$((p + 1))
    done
    return 1
}

# The demo's configuration: logging out only undoes the login.
CONFIG="$OUT/wayfarer.toml"
printf '[[deny]]\ntext = "Log out"\n' >"$CONFIG"

say "$(echo $APPS | wc -w) application(s) x ${MINUTES} min, random + random+mutate, seed $SEED, into $OUT"
for app in $APPS; do
    dir="$OUT/$app"
    rm -rf "$dir"; mkdir -p "$dir"
    if ! start_server "$app" "$dir"; then
        say "$app: could not serve it on a port in $PORT-18899 ($(tail -n2 "$dir/serve.err" 2>/dev/null))"
        continue
    fi
    say "$app: served at $URL (pid $SERVER_PID); exploring for ${BUDGET_S}s"
    t0=$(date +%s)
    "$WF" explore "$URL" --strategy random --inputs random+mutate --budget "${BUDGET_S}s" \
        --seed "$SEED" --config "$CONFIG" --out "$dir/run" --json \
        >"$dir/summary.json" 2>"$dir/wayfarer.log" &
    WF_PID=$!
    python3 -c "$SAMPLER" "$WF_PID" "$dir/rss.csv" "$INTERVAL" "$dir/orphans.txt" &
    SAMPLER_PID=$!
    # A run past its budget by 5 minutes and a fifth is stopped: Ctrl-C first (it still
    # writes its report), then SIGKILL.
    deadline=$((t0 + BUDGET_S + 300 + BUDGET_S / 5))
    while kill -0 "$WF_PID" 2>/dev/null; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            say "$app: wayfarer is past its budget; interrupting it"
            kill -INT "$WF_PID" 2>/dev/null
            sleep 30
            kill -0 "$WF_PID" 2>/dev/null && kill -KILL "$WF_PID" 2>/dev/null
            break
        fi
        sleep 1
    done
    wait "$WF_PID"; wf_rc=$?
    WF_PID=""
    wall=$(( $(date +%s) - t0 ))
    wait "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=""
    say "$app: wayfarer exited $wf_rc after ${wall}s"
    if [ ! -f "$dir/run/report.json" ] && [ -f "$dir/run/run.sqlite" ]; then
        say "$app: no report.json; rebuilding it from the store (wayfarer report)"
        "$WF" report "$dir/run" >>"$dir/wayfarer.log" 2>&1
    fi
    : >"$dir/replays.tsv"
    if [ "$REPLAYS" != 0 ] && [ -d "$dir/run/traces" ]; then
        for trace in "$dir"/run/traces/*.json; do
            [ -f "$trace" ] || continue
            timeout -k 10 "$REPLAY_TIMEOUT" "$WF" replay --json "$trace" \
                >"$dir/replay.out" 2>>"$dir/replays.log"
            rrc=$?
            n="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reproduced"])' \
                "$dir/replay.out" 2>/dev/null)"
            case "$rrc:$n" in
                1:[1-9]*) verdict=reproduced ;;
                0:0) verdict=not-reproduced ;;
                *) verdict=error; n="exit $rrc" ;;
            esac
            printf '%s\t%s\t%s\n' "$verdict" "$n" "$(basename "$trace")" >>"$dir/replays.tsv"
        done
        rm -f "$dir/replay.out"
        say "$app: replays: $(cut -f1 "$dir/replays.tsv" | sort | uniq -c | awk '{printf "%s%s %s", (NR == 1 ? "" : ", "), $1, $2}')"
    fi
    kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
    python3 -c "$CHECK" "$dir" "$app" "$wf_rc" "$wall" \
        || say "$app: the checks could not be computed"
done

echo
python3 -c "$TABLE" "$OUT" "$APPS" "$MINUTES"
