//===- StageDump.cpp - --dump-dir: every stage of a compile ---------------===//
#include "StageDump.h"

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace tlc;

namespace {

/// Reports the module after each pass that changed it to a StageDump.
class DumpAfterChange : public mlir::PassManager::IRPrinterConfig {
public:
  explicit DumpAfterChange(StageDump &dump)
      : IRPrinterConfig(/*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/true),
        dump(dump) {}

  void printAfterIfEnabled(mlir::Pass *pass, mlir::Operation *,
                           PrintCallbackFn print) override {
    std::string text;
    llvm::raw_string_ostream os(text);
    print(os);
    dump.add(pass->getArgument().empty() ? pass->getName()
                                         : pass->getArgument(),
             ".mlir", text);
  }

private:
  StageDump &dump;
};

/// `text` as a JavaScript string literal inside a <script> element.
std::string jsString(llvm::StringRef text) {
  std::string s = "\"";
  for (char c : text) {
    switch (c) {
    case '\\':
      s += "\\\\";
      break;
    case '"':
      s += "\\\"";
      break;
    case '\n':
      s += "\\n";
      break;
    case '\r':
      s += "\\r";
      break;
    case '\t':
      s += "\\t";
      break;
    case '<': // never "</script>" inside the element
      s += "\\u003c";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        s += buf;
      } else {
        s += c;
      }
    }
  }
  return s + "\"";
}

/// The page: stage list on the left; the chosen stage's diff against the
/// one before (Myers' algorithm over lines), or both side by side.
const char *const kPage = R"HTML(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>tlc stages: @SOURCE@</title>
<style>
body{margin:0;font:13px sans-serif;display:flex;height:100vh}
#list{width:260px;overflow:auto;border-right:1px solid #ccc;background:#f7f7f7}
#list div{padding:3px 8px;cursor:pointer;white-space:nowrap}
#list div.sel{background:#cde}
#list .n{color:#888;font-size:11px}
#main{flex:1;display:flex;flex-direction:column;min-width:0}
#bar{padding:6px;border-bottom:1px solid #ccc}
#view{flex:1;overflow:auto;display:flex}
pre{margin:0;padding:6px;font:12px monospace;flex:1;min-width:0}
.add{background:#dfd}.del{background:#fdd}.hunk{color:#888}
</style></head><body>
<div id="list"></div>
<div id="main"><div id="bar"><b id="title"></b>
<label><input type="radio" name="m" value="diff" checked> diff with the stage before</label>
<label><input type="radio" name="m" value="side"> side by side</label>
<label><input type="radio" name="m" value="text"> this stage</label>
<span id="stat"></span></div><div id="view"></div></div>
<script>
const stages = [@STAGES@];
let cur = 0;
function lines(s) { return s.split("\n"); }
// Myers' O(ND) diff of two line arrays: [[op, line]], op in " +-". The
// common head and tail are cut first; past kMaxD edits (stages of different
// languages, e.g. MLIR -> LLVM IR) the middle shows as removed then added.
const kMaxD = 3000;
function diff(a, b) {
  let head = 0, tail = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  while (tail < a.length - head && tail < b.length - head &&
         a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = a.slice(0, head).map(l => [" ", l]);
  const x = a.slice(head, a.length - tail), y = b.slice(head, b.length - tail);
  const mid = myers(x, y) ||
      x.map(l => ["-", l]).concat(y.map(l => ["+", l]));
  return out.concat(mid, a.slice(a.length - tail).map(l => [" ", l]));
}
function myers(a, b) {
  const n = a.length, m = b.length, off = Math.min(n + m, kMaxD) + 1;
  const v = new Int32Array(2 * off + 1), trace = [];
  for (let d = 0; d <= Math.min(n + m, kMaxD); d++) {
    trace.push(v.slice(off - d - 1, off + d + 2)); // v[-d-1 .. d+1]
    for (let k = -d; k <= d; k += 2) {
      let x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
          ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) { x++; y++; }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, n, m);
    }
  }
  return null;
}
function backtrack(trace, a, b, x, y) {
  const out = [];
  for (let d = trace.length - 1; d >= 0; d--) {
    const t = trace[d], at = k => t[k + d + 1], k = x - y;
    const pk = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    const px = d ? at(pk) : 0, py = px - pk;
    while (x > px && y > py) { out.push([" ", a[x - 1]]); x--; y--; }
    if (d > 0) {
      if (x == px) out.push(["+", b[y - 1]]); else out.push(["-", a[x - 1]]);
    }
    x = px; y = py;
  }
  return out.reverse();
}
function esc(s) { return s.replace(/&/g, "&amp;").replace(/</g, "&lt;"); }
function show() {
  const s = stages[cur], prev = cur ? stages[cur - 1] : {name: "", text: ""};
  const mode = document.querySelector("input[name=m]:checked").value;
  document.getElementById("title").textContent = s.file + "  ";
  const view = document.getElementById("view");
  let stat = "";
  if (mode == "text") {
    view.innerHTML = "<pre>" + esc(s.text) + "</pre>";
  } else if (mode == "side") {
    view.innerHTML = "<pre>" + esc(prev.text) + "</pre><pre>" + esc(s.text) + "</pre>";
  } else {
    const d = diff(lines(prev.text), lines(s.text));
    let html = "", added = 0, removed = 0, gap = 0;
    d.forEach((e, i) => {
      const near = d.slice(Math.max(0, i - 3), i + 4).some(f => f[0] != " ");
      if (e[0] == "+") added++;
      if (e[0] == "-") removed++;
      if (e[0] == " " && !near) { gap++; return; }
      if (gap) { html += "<span class=hunk>  ... " + gap + " unchanged lines</span>\n"; gap = 0; }
      const cls = e[0] == "+" ? "add" : e[0] == "-" ? "del" : "";
      html += "<span class='" + cls + "'>" + e[0] + " " + esc(e[1]) + "</span>\n";
    });
    if (gap) html += "<span class=hunk>  ... " + gap + " unchanged lines</span>\n";
    view.innerHTML = "<pre>" + html + "</pre>";
    stat = "+" + added + " -" + removed + " lines";
  }
  document.getElementById("stat").textContent = stat;
  document.querySelectorAll("#list div").forEach((el, i) =>
    el.className = i == cur ? "sel" : "");
}
const list = document.getElementById("list");
stages.forEach((s, i) => {
  const el = document.createElement("div");
  el.innerHTML = "<span class=n>" + s.file.slice(0, 2) + "</span> " + esc(s.name);
  el.onclick = () => { cur = i; show(); };
  list.appendChild(el);
});
document.querySelectorAll("input[name=m]").forEach(r => r.onchange = show);
document.onkeydown = e => {
  if (e.key == "ArrowDown" || e.key == "j") cur = Math.min(cur + 1, stages.length - 1);
  else if (e.key == "ArrowUp" || e.key == "k") cur = Math.max(cur - 1, 0);
  else return;
  e.preventDefault(); show();
};
show();
</script></body></html>
)HTML";

void replaceAll(std::string &s, llvm::StringRef from, llvm::StringRef to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to.str());
}

} // namespace

bool StageDump::open(const std::string &path, const std::string &source) {
  if (std::error_code ec = llvm::sys::fs::create_directories(path)) {
    llvm::errs() << "tlc: error: --dump-dir: cannot create " << path << ": "
                 << ec.message() << "\n";
    return false;
  }
  dir = path;
  sourceName = source;
  return true;
}

void StageDump::add(llvm::StringRef name, llvm::StringRef ext,
                    llvm::StringRef text) {
  if (!enabled())
    return;
  char number[16];
  std::snprintf(number, sizeof number, "%02zu-", stages.size());
  std::string file = number + name.str() + ext.str();
  for (char &c : file)
    if (c == '/' || c == ' ')
      c = '_';
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    if (!failed)
      llvm::errs() << "tlc: error: --dump-dir: cannot write " << path << ": "
                   << ec.message() << "\n";
    failed = true;
    return;
  }
  os << text;
  stages.push_back({name.str(), file, text.str()});
}

void StageDump::instrument(mlir::PassManager &pm) {
  if (!enabled())
    return;
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting(std::make_unique<DumpAfterChange>(*this));
}

bool StageDump::writePage() {
  if (!enabled())
    return true;
  std::string list;
  for (const Stage &s : stages)
    list += "{name:" + jsString(s.name) + ",file:" + jsString(s.file) +
            ",text:" + jsString(s.text) + "},\n";
  // The title first: the stages' text may hold "@SOURCE@" too.
  std::string page = kPage;
  std::string title;
  for (char c : sourceName)
    title += c == '<' ? std::string("&lt;") : std::string(1, c);
  replaceAll(page, "@SOURCE@", title);
  replaceAll(page, "@STAGES@", list);
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "index.html");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "tlc: error: --dump-dir: cannot write " << path << ": "
                 << ec.message() << "\n";
    return false;
  }
  os << page;
  return !failed;
}
