//===- FuzzInput.cpp - A fuzz input read as a checked tlc program ---------===//
#include "FuzzInput.h"

#include "tlc/Frontend/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <vector>

using namespace tlc;

namespace {

/// Splits `data` at lines starting with `//--- `: the main file, then the
/// parts by name (a later part of the same name wins).
llvm::StringRef splitParts(llvm::StringRef data,
                           llvm::StringMap<llvm::StringRef> &parts) {
  constexpr llvm::StringLiteral marker = "//--- ";
  llvm::StringRef main;
  llvm::StringRef name;
  bool inMain = true;
  size_t start = 0;
  auto finish = [&](size_t end) {
    llvm::StringRef text = data.slice(start, end);
    if (inMain)
      main = text;
    else
      parts[name] = text;
  };
  for (size_t pos = 0; pos < data.size();) {
    size_t eol = data.find('\n', pos);
    if (eol == llvm::StringRef::npos)
      eol = data.size();
    llvm::StringRef line = data.slice(pos, eol);
    size_t next = std::min(eol + 1, data.size());
    if (line.starts_with(marker)) {
      finish(pos);
      name = line.drop_front(marker.size()).trim();
      inMain = false;
      start = next;
    }
    pos = next;
  }
  finish(data.size());
  return main;
}

/// tools/tlc's ProgramLoader with the parts for files: every file parsed
/// once (which also ends import cycles), imports resolved against the
/// importing file's folder.
class PartLoader {
public:
  PartLoader(DiagnosticEngine &diags, llvm::SourceMgr &srcMgr,
             const llvm::StringMap<llvm::StringRef> &parts)
      : diags(diags), srcMgr(srcMgr), parts(parts) {}

  void load(llvm::StringRef text, llvm::StringRef name, Program &program) {
    seen.insert(name);
    unsigned id = srcMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
    std::string from = name.str();
    for (auto &[path, range] : parseFileInto(id, from, diags, program)) {
      llvm::SmallString<64> resolved(llvm::sys::path::parent_path(from));
      llvm::sys::path::append(resolved, path);
      llvm::sys::path::remove_dots(resolved, /*remove_dot_dot=*/true);
      if (seen.contains(resolved))
        continue;
      auto part = parts.find(resolved);
      if (part == parts.end()) {
        diags.error(range, "cannot find imported file '" + path + "'");
        continue;
      }
      load(part->second, part->first(), program);
    }
  }

private:
  DiagnosticEngine &diags;
  llvm::SourceMgr &srcMgr;
  const llvm::StringMap<llvm::StringRef> &parts;
  llvm::StringSet<> seen;
};

} // namespace

fuzz::CheckedInput::CheckedInput(llvm::StringRef data) {
  llvm::StringMap<llvm::StringRef> parts;
  llvm::StringRef main = splitParts(data, parts);
  PartLoader(diags, srcMgr, parts).load(main, "input.tl", prog);
  if (diags.hasErrors())
    return;
  // The CPU target's constants, tlc's default target.
  semaPtr = std::make_unique<Sema>(
      diags, std::map<std::string, std::string>{},
      std::map<std::string, int64_t>{{"target_shared_bytes", 4 << 20},
                                     {"target_warp_size", 1}});
  checked = semaPtr->check(prog);
}
