#!/usr/bin/env python3
"""What a long run buys over a short one, from run stores (a bench's runs/*/run.sqlite).

    python3 realapps/curve.py [--at 2,5,10] RUN_DIR...   # e.g. bench-state/long/*/runs/*

Per run, from the samples the store keeps after every step and reset (elapsed time, the
server's lines run so far, the client's covered bytes): the gain over the first load at
each of the given minutes, in server lines and in kB of client JS, and the time of the
last step that made the server run new code (a run still finding server code at its end
is bounded by its time, one that stopped early by what its interface reaches).
"""
import json
import sqlite3
import sys
from pathlib import Path


def samples(store):
    db = sqlite3.connect(store)
    rows = [json.loads(s) for (s,) in db.execute(
        "select sample from steps union all select sample from resets")]
    return sorted((r for r in rows if "elapsed_ms" in r), key=lambda r: r["elapsed_ms"])


def main():
    args = sys.argv[1:]
    minutes = [2.0, 5.0, 10.0]
    if args[:1] == ["--at"]:
        minutes = [float(m) for m in args[1].split(",")]
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    head = " | ".join(f"{m:g} min" for m in minutes)
    print(f"| run | server lines over the first load: {head} | JS kB: {head} | "
          "last new server code at |")
    print("|---|" + "---|" * (2 * len(minutes) + 1))
    for d in args:
        store = Path(d) / "run.sqlite"
        if not store.is_file():
            sys.exit(f"curve.py: {store} not found (give run directories, e.g. OUT/runs/*-guided-s1)")
        rows = samples(store)
        if not rows:
            print(f"| {Path(d).name} | no samples |")
            continue
        first = rows[0]
        s0 = first.get("server_lines") or 0
        c0 = ((first.get("coverage") or {}).get("first_load_covered_bytes")
              or (first.get("coverage") or {}).get("covered_bytes") or 0)

        def at(m):
            upto = [r for r in rows if r["elapsed_ms"] <= m * 60000]
            if not upto or rows[-1]["elapsed_ms"] < m * 60000 * 0.98:
                return None, None
            r = upto[-1]
            return ((r.get("server_lines") or 0) - s0,
                    ((r.get("coverage") or {}).get("covered_bytes", 0) - c0) / 1000)

        points = [at(m) for m in minutes]
        last, prev = 0, s0
        for r in rows:
            lines = r.get("server_lines") or 0
            if lines > prev:
                last = r["elapsed_ms"]
            prev = max(prev, lines)
        srv = " | ".join("-" if s is None else str(s) for s, _ in points)
        js = " | ".join("-" if j is None else f"{j:.1f}" for _, j in points)
        print(f"| {Path(d).name} | {srv} | {js} | {last / 1000:.0f} s |")


if __name__ == "__main__":
    main()
