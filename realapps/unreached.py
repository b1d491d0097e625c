#!/usr/bin/env python3
"""What no run of a real-apps bench reached on the server, per application.

    python3 realapps/unreached.py BENCH_DIR [--top N]
        # BENCH_DIR: a realapps/bench.sh output (bench-state/realapps-<rev>), one folder per app

Each wayfarer run of the bench (random, guided: their runs/*/run.sqlite) keeps the server's
coverage per file (`server_coverage.by_file`: lines, lines run, lines run by the first page
load). A peer's run (Bombadil, gremlins) keeps totals only, so the union here is of the
wayfarer runs; the peers' totals were below guided's on every app but one. Per file, the
best run's lines beyond the first load say whether any exploring run went there; files are
grouped by their folder inside the application's package, and the folders with the most
lines left unrun by every run are listed: the admin-only views, error paths and features
behind data the app does not have, as the server sees them.
"""
import collections
import json
import sqlite3
import sys
from pathlib import Path

# Where an application's own package starts inside an installed path.
ROOTS = ("site-packages/", "node_modules/", "/gems/", "/app/", "/www/", "/lib/")


def package_path(path):
    """The path from the application's package on: `wagtail/admin/views/pages/edit.py`."""
    for root in ROOTS:
        if root in path:
            return path.split(root, 1)[1]
    return path.lstrip("/")


def folder(path, depth=3):
    """The file's folder, `depth` levels into its package (a scoped npm package's name is
    one level; a build folder, `dist`, `build` or `lib`, adds one); `path` from the package."""
    parts = path.split("/")[:-1]
    if parts and parts[0].startswith("@") and len(parts) > 1:
        parts = [parts[0] + "/" + parts[1]] + parts[2:]
    depth += sum(1 for p in parts[:depth] if p in ("dist", "build", "lib", "node_modules"))
    return "/".join(parts[:depth]) or "."


def runs_of(app_dir):
    for store in sorted(app_dir.glob("runs/*/run.sqlite")):
        try:
            db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
            row = db.execute("select value from meta where key = 'summary'").fetchone()
        except sqlite3.Error:
            continue
        if not row:
            continue
        cov = (json.loads(row[0]).get("server_coverage") or {})
        if cov.get("by_file"):
            yield store.parent.name, cov["by_file"]


def main():
    args = sys.argv[1:]
    top = 6
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    bench = Path(args[0])
    for app_dir in sorted(p for p in bench.iterdir() if p.is_dir()):
        files = {}  # path -> (lines, best covered, best beyond the first load)
        runs = 0
        for _, by_file in runs_of(app_dir):
            runs += 1
            for f in by_file:
                lines, cov, first = f["lines"], f["covered"], f.get("first_covered", 0)
                # One file, wherever a run's fresh copy of the application put it.
                key = package_path(f["path"])
                old = files.get(key, (lines, 0, 0))
                files[key] = (lines, max(old[1], cov), max(old[2], cov - first))
        if not files:
            continue
        total = sum(v[0] for v in files.values())
        run = sum(v[1] for v in files.values())
        groups = collections.defaultdict(lambda: [0, 0, 0, 0])  # unrun, lines, files, untouched
        for path, (lines, cov, beyond) in files.items():
            g = groups[folder(path)]
            g[0] += lines - cov
            g[1] += lines
            g[2] += 1
            g[3] += beyond == 0
        print(f"## {app_dir.name}: {runs} runs, {len(files)} server files, "
              f"{run} of {total} lines run by some run ({100 * run / max(total, 1):.0f}%)\n")
        print("| folder | lines no run ran | of | files | files no run went past the first load |")
        print("|---|---|---|---|---|")
        for name, (unrun, lines, n, untouched) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"| {name} | {unrun} | {lines} | {n} | {untouched} |")
        print()


if __name__ == "__main__":
    main()
