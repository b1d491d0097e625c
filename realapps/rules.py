#!/usr/bin/env python3
"""What each of guided's rules spent and found, from run stores (a bench's runs/*/run.sqlite).

    python3 realapps/rules.py RUN_DIR...   # e.g. bench-state/long-10m/runs/*-guided-s1

Each step is put under the rule that chose it (the step's `decision`, as the report shows
it: "untried anywhere", "link to a kind of page never shown", a pair after an in-place
change, a form filled before its button...), with what the step newly caused (its `novelty`, the report's "opened"):
functions run for the first time (credited when coverage is next taken, so a step may get
its neighbour's), and scripts, endpoints and pages. A rule that takes many steps and finds
little per step is where the run's time went for nothing.
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


def main():
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
