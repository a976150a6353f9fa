"""check_dump_dom.py DUMP_DIR DOM_FILE: the DOM headless Chromium made of
DUMP_DIR/index.html after running its script: one list entry per stage file
(in order, each named after its stage), the first stage selected, and the
diff view filled in (a <pre> and the +/- line counts)."""
import os
import re
import sys

dump, dom_file = sys.argv[1], sys.argv[2]
dom = open(dom_file, encoding="utf-8").read()
files = sorted(f for f in os.listdir(dump) if re.match(r"\d\d-", f))
entries = re.findall(
    r'<div class="(sel|)"><span class="n">(\d\d)</span> ([^<]*)</div>', dom)
failures = []
if len(entries) != len(files):
    failures.append("%d list entries for %d stage files" % (len(entries),
                                                            len(files)))
for (cls, number, name), f in zip(entries, files):
    stem = f[3:].rsplit(".", 1)[0]
    if number != f[:2] or name != stem:
        failures.append("entry %s %s for file %s" % (number, name, f))
if not entries or entries[0][0] != "sel":
    failures.append("the first stage is not selected")
if '<div id="view"><pre>' not in dom:
    failures.append("the view shows no stage")
if not re.search(r'<span id="stat">\+\d+ -\d+ lines</span>', dom):
    failures.append("no diff statistics")
for f in failures:
    print("FAIL " + f)
print("PASS the page shows %d stages" % len(entries) if not failures
      else "FAILED")
sys.exit(1 if failures else 0)
