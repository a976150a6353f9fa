#!/usr/bin/env python3
"""merge_tuning.py - fold tuner results into a tuning database.

    python3 bench/cuda/merge_tuning.py DB NEW.json [NEW.json...]

Each entry of a NEW file (what `tlc tune` or a tuning bundle writes)
replaces the entry of DB with the same kernel, target, arch, `for` and
shape, in place, or is appended after the entries of its kernel (at the end
when DB has none). DB keeps its one-entry-a-line layout, so a re-tune
shows in `git diff` as the lines that changed. Prints what it replaced and
added; exits non-zero on a file that is not a tlc-tuning-1 database.
"""
import json
import sys

FORMAT = "tlc-tuning-1"


def load(path):
    """The entries of a database as (entry, its text), the text as written
    (numbers keep their digits: 30.200 stays 30.200)."""
    with open(path) as f:
        text = f.read()
    try:
        db = json.loads(text)
    except json.JSONDecodeError as e:
        sys.exit("%s:%d:%d: not JSON: %s" % (path, e.lineno, e.colno, e.msg))
    if not isinstance(db, dict) or db.get("format") != FORMAT or \
            not isinstance(db.get("entries"), list):
        sys.exit("%s: not a %s database" % (path, FORMAT))
    rows = [l.strip().rstrip(",") for l in text.splitlines()
            if l.strip().startswith("{\"kernel\"")]
    if [json.loads(r) for r in rows] != db["entries"]:
        sys.exit("%s: not one entry a line (the layout tlc tune writes)" % path)
    return list(zip(db["entries"], rows))


def key(entry):
    return json.dumps([entry.get(k) for k in
                       ("kernel", "target", "arch", "for", "shape")],
                      sort_keys=True)


def describe(entry):
    shape = ",".join("%s=%s" % kv for kv in entry["shape"].items())
    pinned = "".join(" %s=%s" % kv for kv in entry.get("for", {}).items())
    return "%s%s %s" % (entry["kernel"], pinned, shape)


def write(path, entries):
    lines = ['{', '  "format": "%s",' % FORMAT, '  "entries": [']
    lines += ["    " + row + ("," if i + 1 < len(entries) else "")
              for i, (_, row) in enumerate(entries)]
    lines += ["  ]", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    db_path = argv[1]
    entries = load(db_path)
    for new_path in argv[2:]:
        for entry, row in load(new_path):
            k = key(entry)
            at = next((i for i, (e, _) in enumerate(entries) if key(e) == k),
                      None)
            if at is not None:
                old = entries[at][0]
                entries[at] = (entry, row)
                print("replaced %s: %s us -> %s us %s" % (
                    describe(entry), old.get("time_us"), entry.get("time_us"),
                    json.dumps(entry["params"])))
                continue
            last = max((i for i, (e, _) in enumerate(entries)
                        if e.get("kernel") == entry.get("kernel")),
                       default=len(entries) - 1)
            entries.insert(last + 1, (entry, row))
            print("added %s: %s us %s" % (describe(entry), entry.get("time_us"),
                                          json.dumps(entry["params"])))
    write(db_path, entries)


if __name__ == "__main__":
    main(sys.argv)
