//===- StageDump.h - --dump-dir: every stage of a compile -------*- C++ -*-===//
//
// `tlc k.tl --dump-dir=DIR` writes what the compiler made at each stage to
// numbered files (00-ast.txt, 01-mlirgen.mlir, then the module after each
// pass that changed it, the LLVM IR and the target assembly) and
// DIR/index.html, one self-contained page showing the stages side by side
// with the diff of each against the one before (docs/architecture.md).
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TOOLS_TLC_STAGEDUMP_H
#define TLC_TOOLS_TLC_STAGEDUMP_H

#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace tlc {

class StageDump {
public:
  /// Creates `dir`; false (with a message on stderr) if it cannot.
  bool open(const std::string &dir, const std::string &sourceName);
  bool enabled() const { return !dir.empty(); }

  /// Writes NN-name.ext holding `text` and records it for the page.
  void add(llvm::StringRef name, llvm::StringRef ext, llvm::StringRef text);

  /// Makes `pm` report the module after every pass that changes it.
  void instrument(mlir::PassManager &pm);

  /// Writes index.html; false if it cannot.
  bool writePage();

private:
  struct Stage {
    std::string name, file, text;
  };
  std::string dir, sourceName;
  std::vector<Stage> stages;
  bool failed = false;
};

} // namespace tlc

#endif // TLC_TOOLS_TLC_STAGEDUMP_H
