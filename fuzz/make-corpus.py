#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: every .tl file of examples/ and test/,
one seed each, with the files it imports appended as `//--- NAME` parts
(fuzz/FuzzInput.h), so seeds that import still check.

Usage: make-corpus.py SOURCE_ROOT OUT_DIR
"""
import os
import re
import sys

IMPORT = re.compile(r'^\s*import\s+"([^"]+)"', re.MULTILINE)


def with_imports(path):
    """The file's text, then each import (transitively, once) as a part
    named as the fuzz target resolves it."""
    text = open(path, encoding="utf-8", errors="surrogateescape").read()
    parts, seen = [], set()
    todo = [(path, "input.tl", text)]
    while todo:
        real, name, body = todo.pop()
        for imported in IMPORT.findall(body):
            part = os.path.normpath(os.path.join(os.path.dirname(name), imported))
            file = os.path.normpath(os.path.join(os.path.dirname(real), imported))
            if part in seen or not os.path.isfile(file):
                continue
            seen.add(part)
            part_text = open(file, encoding="utf-8", errors="surrogateescape").read()
            parts.append((part, part_text))
            todo.append((file, part, part_text))
    for name, body in parts:
        text += "\n//--- " + name + "\n" + body
    return text


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    for top in ("examples", "test"):
        for folder, _, files in sorted(os.walk(os.path.join(root, top))):
            for f in sorted(files):
                if not f.endswith(".tl"):
                    continue
                path = os.path.join(folder, f)
                seed = os.path.relpath(path, root).replace(os.sep, "_")
                with open(os.path.join(out, seed), "w", encoding="utf-8",
                          errors="surrogateescape") as o:
                    o.write(with_imports(path))
                count += 1
    print(f"make-corpus: {count} seeds in {out}")


if __name__ == "__main__":
    main()
