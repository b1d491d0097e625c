#!/usr/bin/env python3
"""What each of guided's rules spent and found, from run stores (a bench's runs/*/run.sqlite).

    python3 realapps/rules.py RUN_DIR...   # e.g. bench-state/long-10m/runs/*-guided-s1

Each step is put under the rule that chose it (the step's `decision`, as the report shows
it: "untried anywhere", "link to a kind of page never shown", a pair after an in-place
change, a form filled before its button...), with what the step newly caused (its `novelty`, the report's "opened"):
functions run for the first time (credited when coverage is next taken, so a step may get
its neighbour's), and scripts, endpoints and pages. A rule that takes many steps and finds
little per step is where the run's time went for nothing.

    python3 realapps/rules.py --by-kind RUN_DIR...   # per action kind, all runs together

With --by-kind, steps are put under their action's kind (a press by its key: Enter, an
arrow, Tab, Escape, a shortcut), with the share of the steps and of the run's time they
took, and what they yielded: new states, functions and server lines first run, and the
failures first raised by a step of that kind. A kind that takes more of the budget than
it yields is named so by the numbers.
"""
import collections
import json
import sqlite3
import sys
from pathlib import Path

RULES = [
    ("untried anywhere", "untried anywhere"),
    ("untried here", "untried here"),
    ("link to a kind of page", "link clicked"),
    ("link never followed", "link loaded"),
    ("back to", "return to work left"),
    ("form with values", "form refilled"),
    ("send the value", "send the value typed"),
    ("best known", "best by UCB"),
    ("opens", "opener of a form"),
]


def rule(decision):
    d = decision or ""
    if "changed the page in place" in d:
        return "pair after an in-place change"
    if d.startswith("fill ") or ": fill " in d:
        return "fill, then the button"
    for prefix, name in RULES:
        if d.startswith(prefix):
            return name
    return d.split(":")[0][:30] or "(none)"


def kind_of(action):
    k = action.get("kind", "?")
    if k != "press":
        return k + (" (page)" if k == "scroll" and not action.get("target") else "")
    key = action.get("value") or ""
    if key in ("Enter", "Tab", "Escape"):
        return f"press {key}"
    if key.startswith("Arrow"):
        return "press an arrow"
    return "press a shortcut" if "+" in key else f"press {key}"


def secs(t):
    return (t or {}).get("secs", 0) + (t or {}).get("nanos", 0) / 1e9


def by_kind(dirs):
    steps, time, states, functions, server, found = (collections.Counter() for _ in range(6))
    for d in dirs:
        store = Path(d) / "run.sqlite"
        if not store.is_file():
            sys.exit(f"rules.py: {store} not found (give run directories, e.g. OUT/runs/*-guided-s1)")
        db = sqlite3.connect(store)
        kind_at = {}
        for (text,) in db.execute("select record from steps"):
            r = json.loads(text)
            k = kind_of(r.get("action") or {})
            kind_at[r.get("step")] = k
            o = r.get("novelty") or {}
            steps[k] += 1
            time[k] += secs((r.get("timings") or {}).get("total"))
            states[k] += 1 if r.get("new_state") else 0
            functions[k] += o.get("functions", 0)
            server[k] += o.get("server_lines", 0) or 0
        for (step,) in db.execute("select step from failures"):
            found[kind_at.get(step, "(reset or login)")] += 1
    n, t = sum(steps.values()) or 1, sum(time.values()) or 1
    print(f"{len(dirs)} run(s), {n} steps")
    print()
    print("| kind | steps | share of steps | share of time | new states | new functions | "
          "new server lines | failures first raised |")
    print("|---|---|---|---|---|---|---|---|")
    for k, c in steps.most_common():
        print(f"| {k} | {c} | {100 * c / n:.1f}% | {100 * time[k] / t:.1f}% | {states[k]} | "
              f"{functions[k]} | {server[k]} | {found[k]} |")


def main():
    if sys.argv[1:2] == ["--by-kind"]:
        return by_kind(sys.argv[2:])
    print("| run | rule | steps | share | new functions / step | new scripts, endpoints, pages / step |")
    print("|---|---|---|---|---|---|")
    for d in sys.argv[1:]:
        store = Path(d) / "run.sqlite"
        if not store.is_file():
            sys.exit(f"rules.py: {store} not found (give run directories, e.g. OUT/runs/*-guided-s1)")
        db = sqlite3.connect(store)
        steps = collections.Counter()
        functions = collections.Counter()
        other = collections.Counter()
        for (text,) in db.execute("select record from steps"):
            r = json.loads(text)
            o = r.get("novelty") or {}
            k = rule(r.get("decision"))
            steps[k] += 1
            functions[k] += o.get("functions", 0)
            other[k] += o.get("scripts", 0) + o.get("endpoints", 0) + o.get("urls", 0)
        n = sum(steps.values()) or 1
        for k, c in steps.most_common():
            print(f"| {Path(d).name} | {k} | {c} | {100 * c / n:.0f}% | "
                  f"{functions[k] / c:.2f} | {other[k] / c:.2f} |")


if __name__ == "__main__":
    main()
