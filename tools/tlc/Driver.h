//===- Driver.h - What the tlc commands share -------------------*- C++ -*-===//
//
// tlc (compile) and tlc tune: reading the command line and loading a .tl
// file with its imports.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TOOLS_TLC_DRIVER_H
#define TLC_TOOLS_TLC_DRIVER_H

#include "tlc/Frontend/Parser.h"
#include "tlc/Frontend/Sema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <map>
#include <optional>

#include <set>
#include <string>
#include <vector>

namespace tlc::driver {

/// CLI11 wants `--name`; tlc also accepts the clang-style `-name`.
inline std::vector<std::string> normalizeArgs(int argc, char **argv) {
  static const char *longNames[] = {"target",
                                    "arch",
                                    "emit",
                                    "mlir-print-ir-after-all",
                                    "mlir-timing",
                                    "version",
                                    "help",
                                    "max-errors",
                                    "mlir-print-debuginfo",
                                    "depfile",
                                    "bundle",
                                    "tuning",
                                    "kernel",
                                    "list",
                                    "shape",
                                    "value",
                                    "prepare",
                                    "cache-dir",
                                    "jobs",
                                    "budget-ms",
                                    "only-kernel",
                                    "kernel-suffix",
                                    "stub-binary",
                                    "stub-shared-bytes"};
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a.starts_with("--") && a.ends_with("=")) {
      llvm::errs() << "tlc: error: option '" << a << "' needs a value\n";
      std::exit(1);
    }
    if (a.size() > 2 && a[0] == '-' && a[1] != '-') {
      auto [name, value] = a.drop_front().split('=');
      if (a.contains('=') && value.empty()) {
        // CLI11 would take the next argument as the value.
        llvm::errs() << "tlc: error: option '" << a << "' needs a value\n";
        std::exit(1);
      }
      for (const char *n : longNames)
        if (name == n) {
          args.push_back("-" + a.str());
          goto next;
        }
    }
    args.push_back(a.str());
  next:;
  }
  return args;
}

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

/// Parses -D values (NAME=VALUE) into `defines`; on a malformed one, returns
/// it (the caller reports it).
inline std::optional<std::string>
parseDefines(const std::vector<std::string> &values,
             std::map<std::string, std::string> &defines) {
  for (const std::string &d : values) {
    auto [name, value] = llvm::StringRef(d).split('=');
    if (name.trim().empty() || !llvm::StringRef(d).contains('='))
      return d;
    defines[name.trim().str()] = value.trim().str();
  }
  return std::nullopt;
}

/// The arch a tuning database names for `arch` (empty: the target's
/// default): -arch=native is the host CPU, whose measurements hold only
/// there. tlc tune writes it, tlc --tuning matches it.
inline std::string tuningArch(llvm::StringRef defaultArch,
                              llvm::StringRef arch) {
  std::string name = arch.empty() ? defaultArch.str() : arch.str();
  if (name == "native")
    name = llvm::sys::getHostCPUName().str();
  return name;
}

/// `tlc tune ARGS...` (argv[0] is "tune").
int tuneMain(int argc, char **argv, const char *tlcPath);

} // namespace tlc::driver

#endif // TLC_TOOLS_TLC_DRIVER_H
