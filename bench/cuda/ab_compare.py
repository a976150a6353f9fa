#!/usr/bin/env python3
"""ab_compare.py DIR: the table of an A/B run (bench/cuda/ab.sh).

DIR holds new1/, old1/, new2/, ... each with the results.md of one e2e run.
For every timed case that passed: tlc / vendor of each run (the `speed`
column; tlc's time where there is no vendor) and the best old tlc time over
the best new one (> 1: new is faster)."""
import os
import re
import sys


def timed_rows(path):
    """(config, check) -> (tlc ms, speed text) of the timed cases."""
    rows, header = {}, None
    for line in open(path, encoding="utf-8"):
        if not line.startswith("|"):
            if header is not None and rows:
                break  # the checks table ended; later tables differ
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            if "config" in cells and "speed" in cells and "tlc ms" in cells:
                header = cells
            continue
        if len(cells) != len(header):
            continue
        row = dict(zip(header, cells))
        if row.get("result") != "PASS" or not row.get("tlc ms"):
            continue
        try:
            ms = float(row["tlc ms"])
        except ValueError:
            continue
        rows[(row["config"], row["check"])] = (ms, row["speed"] or
                                               "%.4g ms" % ms)
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ab_compare.py DIR")
    top = sys.argv[1]
    runs = {}
    for name in sorted(os.listdir(top)):
        m = re.fullmatch(r"(new|old)(\d+)", name)
        path = os.path.join(top, name, "results.md")
        if m and os.path.isfile(path):
            runs[name] = timed_rows(path)
    news = sorted(n for n in runs if n.startswith("new"))
    olds = sorted(n for n in runs if n.startswith("old"))
    if not news or not olds:
        sys.exit("ab_compare: no new*/ and old*/ results.md under " + top)
    keys = []
    for n in news + olds:
        keys += [k for k in runs[n] if k not in keys]
    print("| config | check | new | old | old/new time |")
    print("|---|---|---|---|---|")
    for key in keys:
        new = [runs[n][key] for n in news if key in runs[n]]
        old = [runs[n][key] for n in olds if key in runs[n]]
        ratio = ("%.3f" % (min(t for t, _ in old) / min(t for t, _ in new))
                 if new and old else "-")
        print("| %s | %s | %s | %s | %s |" % (
            key[0], key[1], ", ".join(s for _, s in new) or "-",
            ", ".join(s for _, s in old) or "-", ratio))


if __name__ == "__main__":
    main()
