#!/usr/bin/env python3
"""The goal lines of the real-apps bench, from the bench.csv files that realapps/bench.sh keeps.

    python3 realapps/goals.py [--tables] [REV_DIR...]   # default: every realapps/results/<rev>/

--tables also prints, per application in apps.toml's order, the rows of its bench.md "Reach"
table and of its stops.md: the two tables of docs/src/real-apps.md, ready to paste.

Per application (the newest REV_DIR that has it wins, in the order given): the median over
seeds of each tool's JavaScript gain (js_covered_bytes - js_first_load_bytes), distinct URLs
and states, and the two ratios the goal asks for, guided / random and guided / Bombadil
(goal: >= 1.3 and >= 1.5), and whether guided saw at least as many URLs as Bombadil.
"""
import csv
import statistics
import sys
from pathlib import Path

TOOLS = ["random", "webexplor", "guided", "bombadil", "gremlins"]


def load(dirs):
    apps = {}
    for d in dirs:
        for f in sorted(Path(d).glob("*/bench.csv")):
            rows = list(csv.DictReader(f.open()))
            if rows:
                apps[f.parent.name] = (Path(d).name, rows)
    return apps


def med(rows, tool, key):
    vals = [float(r[key]) for r in rows if r["strategy"] == tool and r[key] != ""]
    return statistics.median(vals) if vals else None


def gain(rows, tool):
    vals = [
        (float(r["js_covered_bytes"]) - float(r["js_first_load_bytes"])) / 1000
        for r in rows
        if r["strategy"] == tool and r["js_covered_bytes"] != ""
    ]
    return statistics.median(vals) if vals else None


def ratio(a, b):
    if a is None or b is None:
        return "-"
    if b <= 0.05:
        return "inf" if a > 0.05 else "-"
    return f"{a / b:.2f}"


def rows_of(path, first_cell):
    """The body rows of a markdown table whose rows start with `| first_cell |`."""
    if not path.is_file():
        return []
    return [l for l in path.read_text().splitlines() if l.startswith(f"| {first_cell} |")]


def tables(apps):
    order = [
        l.split('"')[1]
        for l in (Path(__file__).parent / "apps.toml").read_text().splitlines()
        if l.startswith("name = ")
    ]
    for name, md in [("reach", "bench.md"), ("where it stops", "stops.md")]:
        print(f"\n{name}:\n")
        for app in order:
            if app in apps:
                rev_dir = Path(__file__).parent / "results" / apps[app][0] / app
                for l in rows_of(rev_dir / md, app):
                    print(l)


def main():
    args = sys.argv[1:]
    want_tables = "--tables" in args
    args = [a for a in args if a != "--tables"]
    if not args:
        root = Path(__file__).parent / "results"
        # Dated dirs hold the whole-bench runs of before bench.sh; the newest commit dir wins.
        args = sorted(
            (p for p in root.iterdir() if p.is_dir() and not p.name.startswith("2026-")),
            key=lambda p: p.stat().st_mtime,
        )
    apps = load(args)
    head = ["app", "rev"] + [f"{t} kB" for t in TOOLS]
    head += ["g/random", "g/bombadil", "URLs g/b", "states g/b"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    held = {"random": 0, "bombadil": 0}
    for app, (rev, rows) in sorted(apps.items()):
        g = {t: gain(rows, t) for t in TOOLS}
        r_rand, r_bomb = ratio(g["guided"], g["random"]), ratio(g["guided"], g["bombadil"])
        held["random"] += r_rand == "inf" or (r_rand != "-" and float(r_rand) >= 1.3)
        held["bombadil"] += r_bomb == "inf" or (r_bomb != "-" and float(r_bomb) >= 1.5)
        urls = f"{med(rows, 'guided', 'urls'):.0f}/{med(rows, 'bombadil', 'urls') or 0:.0f}"
        states = f"{med(rows, 'guided', 'states'):.0f}/{med(rows, 'bombadil', 'states') or 0:.0f}"
        cells = [app, rev] + ["-" if g[t] is None else f"{g[t]:.1f}" for t in TOOLS]
        cells += [r_rand, r_bomb, urls, states]
        print("| " + " | ".join(cells) + " |")
    n = len(apps)
    print(f"\nguided >= 1.3x random on {held['random']}/{n}; >= 1.5x Bombadil on {held['bombadil']}/{n}")
    if want_tables:
        tables(apps)


if __name__ == "__main__":
    main()
