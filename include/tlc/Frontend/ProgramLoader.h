//===- ProgramLoader.h - A .tl file and its imports -------------*- C++ -*-===//
//
// Loads and parses a .tl file and every file it imports (each once, cycles
// harmless): tlc, tlc tune and tlc-lsp share it.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_PROGRAMLOADER_H
#define TLC_FRONTEND_PROGRAMLOADER_H

#include "tlc/Frontend/Parser.h"
#include "tlc/Frontend/Sema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

namespace tlc {

/// Loads and parses `path` and, transitively, every file it imports.
class ProgramLoader {
public:
  ProgramLoader(DiagnosticEngine &diags, llvm::SourceMgr &srcMgr,
                std::vector<std::string> includeDirs)
      : diags(diags), srcMgr(srcMgr), includeDirs(std::move(includeDirs)) {}

  bool load(const std::string &path, Program &program) {
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
    if (!buf) {
      llvm::errs() << "tlc: error: cannot open '" << path
                   << "': " << buf.getError().message() << "\n";
      return false;
    }
    loadBuffer(std::move(*buf), path, program);
    return true;
  }

  /// The same for a file's text that is not (or not yet) on disk, as an
  /// editor holds it; imports are still read from disk relative to `path`.
  void loadText(llvm::StringRef text, const std::string &path,
                Program &program) {
    loadBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path), path, program);
  }

  /// Every file read, for dependency files.
  const std::vector<std::string> &files() const { return loaded; }

private:
  DiagnosticEngine &diags;
  llvm::SourceMgr &srcMgr;
  std::vector<std::string> includeDirs;
  std::set<std::string> seen;
  std::vector<std::string> loaded;

  void loadBuffer(std::unique_ptr<llvm::MemoryBuffer> buf,
                  const std::string &path, Program &program) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      real = path;
    seen.insert(real.str().str());
    loaded.push_back(path);
    unsigned id = srcMgr.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
    for (const ImportRef &import : parseFileInto(id, path, diags, program))
      loadImport(import.path, import.range, path, program);
  }

  void loadImport(const std::string &importPath, llvm::SMRange range,
                  const std::string &from, Program &program) {
    std::vector<std::string> candidates;
    llvm::SmallString<256> rel(llvm::sys::path::parent_path(from));
    llvm::sys::path::append(rel, importPath);
    candidates.push_back(rel.str().str());
    for (const std::string &dir : includeDirs) {
      llvm::SmallString<256> p(dir);
      llvm::sys::path::append(p, importPath);
      candidates.push_back(p.str().str());
    }
    for (const std::string &c : candidates) {
      llvm::SmallString<256> real;
      if (llvm::sys::fs::real_path(c, real))
        continue;
      if (seen.count(real.str().str()))
        return; // already loaded (also breaks import cycles)
      auto buf = llvm::MemoryBuffer::getFile(c, /*IsText=*/true);
      if (!buf)
        continue;
      loadBuffer(std::move(*buf), c, program);
      return;
    }
    diags.error(range, "cannot find imported file '" + importPath + "'");
  }
};

} // namespace tlc

#endif // TLC_FRONTEND_PROGRAMLOADER_H
