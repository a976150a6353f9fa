// check_dump_page.js DIR: checks the index.html that tlc --dump-dir wrote
// to DIR: its stages are the numbered files of DIR in order, with their
// exact text, and the page's diff of each stage against the one before
// turns the earlier text into the later one (run with node; the page's
// own script is evaluated with a stand-in document).
const fs = require("fs");
const path = require("path");
const dir = process.argv[2];
const page = fs.readFileSync(path.join(dir, "index.html"), "utf8");
const start = page.indexOf("<script>"), end = page.lastIndexOf("</script>");
if (start < 0 || end < start || page.indexOf("</script>") != end)
  throw new Error("the page does not hold exactly one script element");
const script = page.slice(start + "<script>".length, end);
// Only the data and the diff: cut the script before its DOM code.
const logic = script.slice(0, script.indexOf("const list ="));
const fakeElement = {textContent: "", innerHTML: "", className: ""};
const document = {
  getElementById: () => fakeElement,
  querySelector: () => ({value: "diff"}),
  querySelectorAll: () => [],
};
const exported = new Function("document", logic +
  "; return {stages, diff, lines};")(document);
const files = fs.readdirSync(dir).filter(f => /^\d\d-/.test(f)).sort();
if (files.length != exported.stages.length)
  throw new Error(files.length + " files but " + exported.stages.length +
                  " stages");
let failures = 0;
exported.stages.forEach((s, i) => {
  const text = fs.readFileSync(path.join(dir, files[i]), "utf8");
  if (s.file != files[i] || s.text != text) {
    console.log("FAIL stage " + i + ": " + s.file + " vs " + files[i]);
    failures++;
  }
  if (i == 0) return;
  const a = exported.lines(exported.stages[i - 1].text);
  const b = exported.lines(s.text);
  const ops = exported.diff(a, b);
  const before = ops.filter(o => o[0] != "+").map(o => o[1]);
  const after = ops.filter(o => o[0] != "-").map(o => o[1]);
  if (before.join("\n") != a.join("\n") || after.join("\n") != b.join("\n")) {
    console.log("FAIL diff " + files[i - 1] + " -> " + files[i]);
    failures++;
  }
});
console.log((failures ? "FAILED " : "PASS ") + exported.stages.length +
            " stages, " + failures + " failures");
process.exit(failures ? 1 : 0);
