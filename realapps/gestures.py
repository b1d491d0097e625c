#!/usr/bin/env python3
"""What the whole hand (issue 75's gestures) reached on the real apps, from a before/after.

    python3 realapps/gestures.py bench-state/realapps-REV/ab-since-OLDREV

Reads the raw runs `realapps/ab.sh --before OLDREV` leaves: base-sS/APP/runs/* (the older
build, without the gestures) and since-OLDREV-sS/APP/runs/* (this build). Per application,
over the seeds of the newer build:

- gestures: the steps whose action is a hover, a right click, a key press, a drag, an
  upload or a scroll (the kinds 75 added), their share of the steps and of the time, and
  what they reached first: new states, new URLs, functions and server lines first run;
- after: the same for the step right after a gesture that changed the state (the click
  on the item of the menu a hover opened), which the gesture made possible;
- double clicks are counted apart: the older build offered them too (on an element with
  its own listener), the newer adds delegated ones;
- failures only the newer build found: signatures (ports masked) raised in none of the
  older build's runs of the app, the kind of the step that first raised each, and the
  gestures its reproduction holds (shrunk where the bench's shrink budget allowed).
"""
import collections
import json
import re
import sqlite3
import sys
from pathlib import Path

GESTURES = {"hover", "context_menu", "press", "drag", "upload", "scroll"}


def secs(t):
    return (t or {}).get("secs", 0) + (t or {}).get("nanos", 0) / 1e9


def masked(signature):
    return re.sub(r"127\.0\.0\.1:\d+", "HOST", signature or "")


def runs(state, prefix, app):
    return sorted(state.glob(f"{prefix}-s*/{app}/runs/*/run.sqlite"))


def failures(store):
    """Per masked signature: its kind, the kind of action of the step that first raised it,
    and the action kinds of its reproduction."""
    db = sqlite3.connect(store)
    kind_at = {}
    for (text,) in db.execute("select record from steps"):
        r = json.loads(text)
        kind_at[r.get("step")] = (r.get("action") or {}).get("kind")
    out = {}
    for sig, kind, step, text in db.execute("select signature, kind, step, failure from failures"):
        trace = (json.loads(text).get("trace") or []) if text else []
        kinds = [a.get("kind") for a in trace]
        out[masked(sig)] = (kind, kind_at.get(step, "(reset or login)"), kinds)
    return out


def reach(store):
    """Per bucket (gesture, after, double_click, all): steps, time, states, urls, functions,
    server lines first reached."""
    db = sqlite3.connect(store)
    tally = collections.defaultdict(collections.Counter)
    prev = None
    for (text,) in db.execute("select record from steps order by step"):
        r = json.loads(text)
        k = (r.get("action") or {}).get("kind")
        buckets = ["all"]
        if k in GESTURES:
            buckets.append("gesture")
        elif k == "double_click":
            buckets.append("double click")
        elif (prev and prev.get("episode") == r.get("episode")
              and (prev.get("action") or {}).get("kind") in GESTURES
              and prev.get("state_after") != prev.get("state_before")):
            buckets.append("after")
        o = r.get("novelty") or {}
        for b in buckets:
            t = tally[b]
            t["steps"] += 1
            t["time"] += secs((r.get("timings") or {}).get("total"))
            t["states"] += 1 if r.get("new_state") else 0
            t["urls"] += o.get("urls", 0)
            t["functions"] += o.get("functions", 0)
            t["server"] += o.get("server_lines", 0) or 0
        prev = r
    return tally


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    state = Path(sys.argv[1])
    after = sorted({p.name.rsplit("-s", 1)[0] for p in state.glob("since-*-s*")})
    if not after:
        sys.exit(f"gestures.py: no since-OLDREV-sS runs under {state} (realapps/ab.sh --before)")
    after = after[0]
    apps = sorted({p.parent.parent.parent.name for p in state.glob(f"{after}-s*/*/runs/*/run.sqlite")})
    print(f"{state}: the older build (base) against {after}, {len(apps)} application(s)\n")
    print("| app | runs | gesture steps | share of time | new states | new URLs | functions | "
          "server lines | the step after: states / URLs / functions / server lines | "
          "double clicks before / after: the after's states / URLs / functions / server lines |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    found = []
    for app in apps:
        new = runs(state, after, app)
        old = runs(state, "base", app)
        total = collections.defaultdict(collections.Counter)
        for s in new:
            for b, t in reach(s).items():
                total[b].update(t)
        dbl_old = sum(reach(s)["double click"]["steps"] for s in old)
        a, g, n, d = total["all"], total["gesture"], total["after"], total["double click"]
        share = lambda k: 100 * g[k] / a[k] if a[k] else 0  # noqa: E731
        print(f"| {app} | {len(old)} / {len(new)} | {g['steps']} ({share('steps'):.1f}%) | "
              f"{share('time'):.1f}% | {g['states']} of {a['states']} | {g['urls']} of {a['urls']} | "
              f"{g['functions']} of {a['functions']} | {g['server']} of {a['server']} | "
              f"{n['states']} / {n['urls']} / {n['functions']} / {n['server']} | "
              f"{dbl_old} / {d['steps']}: {d['states']} / {d['urls']} / {d['functions']} / {d['server']} |")
        seen_old = set()
        for s in old:
            seen_old |= failures(s).keys()
        firsts, runs_with = {}, collections.Counter()
        for s in new:
            for sig, f in failures(s).items():
                if sig not in seen_old:
                    firsts.setdefault(sig, (s.parent.name, *f))
                    runs_with[sig] += 1
        for sig, (run, kind, by, kinds) in sorted(firsts.items()):
            through = sorted({k for k in kinds if k in GESTURES or k == "double_click"})
            found.append((app, f"{runs_with[sig]} of {len(new)}: {run}", kind, sig, by,
                          len(kinds), through))
    print("\nFailures the newer build raised that the older raised in none of its runs of the app"
          " (signatures with ports masked):\n")
    print("| app | runs raising it: the first | kind | signature | raised by | its reproduction: actions, gestures |")
    print("|---|---|---|---|---|---|")
    for app, run, kind, sig, by, n, through in found:
        short = sig if len(sig) <= 110 else sig[:107] + "..."
        print(f"| {app} | {run} | {kind} | `{short}` | {by} | {n}, {', '.join(through) or '-'} |")


if __name__ == "__main__":
    main()
