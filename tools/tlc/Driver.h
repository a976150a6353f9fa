//===- Driver.h - What the tlc commands share -------------------*- C++ -*-===//
//
// tlc (compile) and tlc tune: reading the command line and loading a .tl
// file with its imports.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TOOLS_TLC_DRIVER_H
#define TLC_TOOLS_TLC_DRIVER_H

#include "tlc/Frontend/Parser.h"
#include "tlc/Frontend/ProgramLoader.h"
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
