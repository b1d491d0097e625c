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
    python3 realapps/rules.py --links RUN_DIR...     # link clicks, to a kind of page shown or not

With --by-kind, steps are put under their action's kind (a press by its key: Enter, an
arrow, Tab, Escape, a shortcut), with the share of the steps and of the run's time they
took, and what they yielded: new states, functions and server lines first run, and the
failures first raised by a step of that kind. A kind that takes more of the budget than
it yields is named so by the numbers.

With --links, clicks on links are put under whether the page they showed was of a kind
(`/issues/<id>`: ids masked, query keys kept) the run had shown before, with the server
lines they first ran per step and per second: where a run spends its time on the same
server code again (issue 74's dry links).
"""
import collections
import json
import re
import sqlite3
import sys
from pathlib import Path
from urllib.parse import urlsplit

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


def is_id(seg):
    """A path segment naming a record, as core's page_pattern masks the common ones."""
    digits = sum(c.isdigit() for c in seg)
    hexish = all(c in "0123456789abcdefABCDEF-" for c in seg)
    return bool(seg) and (digits == len(seg) or (hexish and len(seg) >= 8 and digits > 0))


def pattern(url):
    u = urlsplit(url)
    path = "/".join("<id>" if is_id(s) else s for s in u.path.split("/"))
    keys = sorted({kv.split("=")[0] for kv in u.query.split("&") if kv})
    route = u.fragment.lstrip("!")
    if route.startswith("/"):
        route = "/".join("<id>" if is_id(s) else s for s in route.split("?")[0].split("/"))
    else:
        route = ""
    return path + ("?" + "&".join(keys) if keys else "") + ("#" + route if route else "")


def links(dirs):
    steps, time, server, new = (collections.Counter() for _ in range(4))
    for d in dirs:
        store = Path(d) / "run.sqlite"
        if not store.is_file():
            sys.exit(f"rules.py: {store} not found (give run directories, e.g. OUT/runs/*-guided-s1)")
        db = sqlite3.connect(store)
        shown, last = set(), None
        for (text,) in db.execute("select record from steps order by step"):
            r = json.loads(text)
            a, e, url = r.get("action") or {}, r.get("element") or {}, r.get("url_after") or ""
            if a.get("kind") == "click" and e.get("tag") == "a":
                k = "same URL" if url == last else (
                    "a kind shown before" if pattern(url) in shown else "a kind not shown")
            else:
                k = "(not a link click)"
            lines = (r.get("novelty") or {}).get("server_lines", 0) or 0
            steps[k] += 1
            time[k] += secs((r.get("timings") or {}).get("total"))
            server[k] += lines
            new[k] += 1 if lines > 0 else 0
            shown.add(pattern(url))
            last = url
    n, t = sum(steps.values()) or 1, sum(time.values()) or 1
    print(f"{len(dirs)} run(s), {n} steps")
    print()
    print("| link click to | steps | share of time | new server lines | per step | per second | "
          "steps with new server lines |")
    print("|---|---|---|---|---|---|---|")
    for k, c in steps.most_common():
        print(f"| {k} | {c} | {100 * time[k] / t:.1f}% | {server[k]} | {server[k] / c:.1f} | "
              f"{server[k] / max(time[k], 1e-9):.1f} | {new[k]} |")


def main():
    if sys.argv[1:2] == ["--by-kind"]:
        return by_kind(sys.argv[2:])
    if sys.argv[1:2] == ["--links"]:
        return links(sys.argv[2:])
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
