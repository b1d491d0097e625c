#!/usr/bin/env python3
"""The A/B tables of realapps/ab.sh: guided with and without one setting, per application.

    python3 realapps/ab.py realapps/results/REV/ab-NAME

Per application, each variant's median over seeds (and min-max) of the JavaScript gain over
the first load (kB), the server-line gain over the first load, steps per second, states and
URLs, and distinct failures; then whether the base's median JS gain (guided as configured) lies below the
variant's by more than the seeds' spread (the larger of the two max - min): the bar of
issue 74 for a signal that "must not make the JS gain fall".
"""
import csv
import statistics
import sys
from pathlib import Path


def js_gain(r):
    return (float(r["js_covered_bytes"]) - float(r["js_first_load_bytes"])) / 1000


def server_gain(r):
    if r.get("server_lines", "") == "":
        return None
    return float(r["server_lines"]) - float(r["server_first_lines"])


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def cell(m, lo, hi, fmt="{:.0f}"):
    if m is None:
        return "-"
    return f"{fmt.format(m)} ({fmt.format(lo)}-{fmt.format(hi)})"


def main(argv):
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = Path(argv[1])
    head = ["app", "variant", "JS gain kB", "server gain", "steps/s", "states", "URLs",
            "failures"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    verdicts = []
    for f in sorted(root.glob("*/bench.csv")):
        rows = [r for r in csv.DictReader(f.open()) if r["js_covered_bytes"] != ""]
        labels = list(dict.fromkeys(r["strategy"] for r in rows))
        if len(labels) != 2:
            continue
        base, variant = labels
        stats = {}
        for label in labels:
            mine = [r for r in rows if r["strategy"] == label]
            js = spread([js_gain(r) for r in mine])
            srv = spread([server_gain(r) for r in mine])
            sps = spread([float(r["steps_per_second"]) for r in mine])
            states = spread([float(r["states"]) for r in mine])
            urls = spread([float(r["urls"]) for r in mine])
            fails = spread([float(r["failures"]) for r in mine if r.get("failures", "") != ""])
            stats[label] = (js, srv, sps)
            print("| " + " | ".join([
                f.parent.name, label, cell(*js, "{:.1f}"), cell(*srv), cell(*sps, "{:.2f}"),
                cell(*states), cell(*urls), cell(*fails)]) + " |")
        (bm, blo, bhi), _, _ = stats[base]
        (vm, vlo, vhi), _, _ = stats[variant]
        verdicts.append((f.parent.name, bm - vm, max(bhi - blo, vhi - vlo), variant))
    print()
    for app, diff, sp, variant in verdicts:
        word = "BELOW it by more than" if -diff > sp else "within"
        print(f"{app}: the base's median JS gain minus {variant}'s: {diff:+.1f} kB; "
              f"the seeds' spread {sp:.1f} kB: {word} the spread")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
