#!/usr/bin/env python3
"""The goal lines of the real-apps bench, from the bench.csv files that realapps/bench.sh keeps.

    python3 realapps/goals.py [--tables] [--long DIR] [--default DIR] [REV_DIR...]
                                  # default: every realapps/results/<rev>/

--tables also prints, per application in apps.toml's order, the rows of its bench.md "Reach"
table and of its stops.md: the two tables of docs/src/real-apps.md, ready to paste.

Per application (the newest REV_DIR that has it wins, in the order given): the median over
seeds of each tool's JavaScript gain (js_covered_bytes - js_first_load_bytes), distinct URLs
and states, and the two ratios the goal asks for, guided / random and guided / Bombadil
(goal: >= 1.3 and >= 1.5), whether guided saw at least as many URLs as Bombadil, and the
peers' URLs behind the login (Bombadil/gremlins; benches from 1881f5c on log the peers in).

--long DIR reads the bench.csv of longer runs (realapps/results/studies/long-10m-*/) and
prints, per application, what 1.3x random's median asks against the best two-minute run of
any tool and against those longer runs: whether the goal is within what the application
gives any explorer. Studies (realapps/results/studies/) are never read as the bench.

When the bench read the servers' own coverage (bench.csv's server_lines, from 72d265b on),
a second table gives each tool's server lines (median over seeds: lines run at the end, and
the gain over the first page load) with the goal lines of the next issue: the default's
server-line gain >= 1.3x random's and >= 1.5x Bombadil's.

--default DIR reads the bench.csv of the default as a user gets it (`guided` with
`--workers auto`, realapps/results/studies/default-*/) and sets its medians against the same
random and Bombadil runs, with the goal lines for it.
"""
import csv
import statistics
import subprocess
import sys
from pathlib import Path

TOOLS = ["random", "webexplor", "guided", "bombadil", "gremlins"]


def load(dirs):
    """Application name -> (its REV_DIR, its bench.csv rows); a later dir replaces an earlier."""
    apps = {}
    for d in map(Path, dirs):
        for f in sorted(d.glob("*/bench.csv")):
            rows = list(csv.DictReader(f.open()))
            if rows:
                apps[f.parent.name] = (d, rows)
    return apps


def med(rows, tool, value):
    """Median over the tool's runs of value(row); None where the tool has no such run."""
    vals = [value(r) for r in rows if r["strategy"] == tool and r["js_covered_bytes"] != ""]
    return statistics.median(vals) if vals else None


def gain_kb(r):
    return (float(r["js_covered_bytes"]) - float(r["js_first_load_bytes"])) / 1000


def ratio(a, b):
    """a / b, infinite where b gained nothing and a did; None where either is missing."""
    if a is None or b is None or (b <= 0.05 and a <= 0.05):
        return None
    return a / b if b > 0.05 else float("inf")


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def by_commit_date(dirs):
    """Oldest first by the commit that added each dir: file times mean nothing in a fresh clone."""
    def when(d):
        out = subprocess.run(["git", "log", "-1", "--format=%ct", "--", str(d)],
                             capture_output=True, text=True, cwd=d.parent).stdout.strip()
        return int(out or 0)
    return sorted(dirs, key=when)


def rows_of(path, first_cell):
    """The body rows of a markdown table whose rows start with `| first_cell |`."""
    if not path.is_file():
        return []
    return [l for l in path.read_text().splitlines() if l.startswith(f"| {first_cell} |")]


def count(rows, tool, key):
    """Median of a count column (urls, states, steps) over the tool's runs; 0 where none."""
    return med(rows, tool, lambda r: float(r[key])) or 0


def judge(mine, bench, held):
    """The goal cells of `mine` (one application's guided runs) against the bench's random and
    Bombadil runs: ratios of the gain and URLs, states; tallies what holds into `held`."""
    gain = med(mine, "guided", gain_kb)
    r_rand = ratio(gain, med(bench, "random", gain_kb))
    r_bomb = ratio(gain, med(bench, "bombadil", gain_kb))
    urls = (count(mine, "guided", "urls"), count(bench, "bombadil", "urls"))
    states = (count(mine, "guided", "states"), count(bench, "bombadil", "states"))
    held["random"] += r_rand is not None and r_rand >= 1.3
    held["bombadil"] += r_bomb is not None and r_bomb >= 1.5
    held["urls"] += urls[0] >= urls[1]
    return [fmt(r_rand), fmt(r_bomb), "%.0f/%.0f" % urls, "%.0f/%.0f" % states]


def behind(rows):
    """The peers' median URLs seen behind the login, as "bombadil/gremlins"; "-" where the
    bench has no such column (before the peers logged in) or the application no login."""
    def one(tool):
        vals = [float(r["behind_login"]) for r in rows
                if r["strategy"] == tool and r.get("behind_login", "") != ""]
        return "-" if not vals else "%.0f" % statistics.median(vals)
    return f"{one('bombadil')}/{one('gremlins')}"


def server_gain(r):
    return float(r["server_lines"]) - float(r["server_first_lines"])


def server_med(rows, tool, value):
    vals = [value(r) for r in rows if r["strategy"] == tool and r.get("server_lines", "") != ""]
    return statistics.median(vals) if vals else None


def server_table(apps):
    """Each tool's server lines and gain per application, with the server goal lines."""
    measured = {a: v for a, v in apps.items() if any(r.get("server_lines", "") for r in v[1])}
    if not measured:
        return
    print("\nserver lines at the end (gain over the first load), median over seeds:\n")
    head = ["app", "stack"] + TOOLS + ["g/random", "g/bombadil"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    held = {"random": 0, "bombadil": 0}
    for app, (_, rows) in sorted(measured.items()):
        stack = next(r["server_stack"] for r in rows if r.get("server_stack"))
        cells = [app, stack]
        for t in TOOLS:
            lines = server_med(rows, t, lambda r: float(r["server_lines"]))
            gain = server_med(rows, t, server_gain)
            cells.append("-" if lines is None else f"{lines:.0f} (+{gain:.0f})")
        g = server_med(rows, "guided", server_gain)
        r_rand = ratio(g, server_med(rows, "random", server_gain))
        r_bomb = ratio(g, server_med(rows, "bombadil", server_gain))
        held["random"] += r_rand is not None and r_rand >= 1.3
        held["bombadil"] += r_bomb is not None and r_bomb >= 1.5
        print("| " + " | ".join(cells + [fmt(r_rand), fmt(r_bomb)]) + " |")
    n = len(measured)
    print(f"\nguided's server-line gain >= 1.3x random on {held['random']}/{n}; "
          f">= 1.5x Bombadil on {held['bombadil']}/{n}")


def goal_line(who, held, n):
    return (f"\n{who} >= 1.3x random on {held['random']}/{n}; >= 1.5x Bombadil on "
            f"{held['bombadil']}/{n}; URLs >= Bombadil's on {held['urls']}/{n}")


def ceiling(apps, long_csv):
    """Per application: 1.3x random's median gain against the best run and the long runs."""
    rows = list(csv.DictReader(Path(long_csv).open()))
    print("\n| app | random (2 min, median) | 1.3x random | best 2-min run of any tool | "
          "guided 10 min | 10 min / random |")
    print("|---|---|---|---|---|---|")
    within = 0
    for app, (_, bench) in sorted(apps.items()):
        rnd = med(bench, "random", gain_kb)
        long = [gain_kb(r) for r in rows if r["app"] == app and r["js_covered_bytes"] != ""]
        if rnd is None or not long:
            continue
        best = max(gain_kb(r) for r in bench if r["js_covered_bytes"] != "")
        lg = statistics.median(long)
        within += lg >= 1.3 * rnd
        print(f"| {app} | {rnd:.1f} | {1.3 * rnd:.1f} | {best:.1f} | {lg:.1f} | {lg / rnd:.2f} |")
    print(f"\nthe longer runs reach 1.3x random's two-minute median on {within} application(s)")


def default(apps, default_csv):
    """The default (guided, --workers auto) against the bench's random and Bombadil runs."""
    rows = [r for r in csv.DictReader(Path(default_csv).open()) if r["strategy"] == "guided"]
    print("\n| app | default kB | guided kB | random kB | bombadil kB | d/random | d/bombadil "
          "| URLs d/b | states d/b | steps d/g |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    held = {"random": 0, "bombadil": 0, "urls": 0}
    n = 0
    for app, (_, bench) in sorted(apps.items()):
        mine = [r for r in rows if r["app"] == app]
        if not mine:
            continue
        n += 1
        kb = [med(mine, "guided", gain_kb)] + [med(bench, t, gain_kb) for t in ("guided", "random", "bombadil")]
        steps = (med(mine, "guided", lambda r: float(r["steps"])),
                 med(bench, "guided", lambda r: float(r["steps"])))
        cells = [app] + ["-" if x is None else f"{x:.1f}" for x in kb] + judge(mine, bench, held)
        cells.append(fmt(ratio(*steps) if None not in steps else None))
        print("| " + " | ".join(cells) + " |")
    print(goal_line("the default", held, n))


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
                for l in rows_of(apps[app][0] / app / md, app):
                    print(l)


def option(args, name):
    """DIR/bench.csv of `name DIR` in args (removed from them); None where it is not given."""
    if name not in args:
        return None
    i = args.index(name)
    if i + 1 == len(args):
        sys.exit(f"goals.py: {name} needs a directory (see --help)")
    path = Path(args[i + 1]) / "bench.csv"
    del args[i : i + 2]
    return path


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return
    unknown = [a for a in args if a.startswith("-") and a not in ("--tables", "--long", "--default")]
    if unknown:
        sys.exit(f"goals.py: unknown option {unknown[0]} (see --help)")
    want_tables = "--tables" in args
    args = [a for a in args if a != "--tables"]
    long_csv, default_csv = option(args, "--long"), option(args, "--default")
    if not args:
        root = Path(__file__).parent / "results"
        # Dated dirs hold the whole-bench runs of before bench.sh; the newest commit dir
        # wins; studies (other budgets, one strategy) are not the bench.
        args = by_commit_date(
            p
            for p in root.iterdir()
            if p.is_dir() and not p.name.startswith("2026-") and p.name != "studies"
        )
    apps = load(args)
    head = ["app", "rev"] + [f"{t} kB" for t in TOOLS]
    head += ["g/random", "g/bombadil", "URLs g/b", "states g/b", "behind login b/g"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    held = {"random": 0, "bombadil": 0, "urls": 0}
    for app, (rev_dir, rows) in sorted(apps.items()):
        g = {t: med(rows, t, gain_kb) for t in TOOLS}
        cells = [app, rev_dir.name] + ["-" if g[t] is None else f"{g[t]:.1f}" for t in TOOLS]
        print("| " + " | ".join(cells + judge(rows, rows, held) + [behind(rows)]) + " |")
    print(goal_line("guided", held, len(apps)))
    server_table(apps)
    if default_csv:
        default(apps, default_csv)
    if long_csv:
        ceiling(apps, long_csv)
    if want_tables:
        tables(apps)


if __name__ == "__main__":
    main()
