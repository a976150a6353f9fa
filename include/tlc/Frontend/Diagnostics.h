//===- Diagnostics.h - Clang-style diagnostics for .tl sources --*- C++ -*-===//
//
// Errors print as `file:line:col: error: message`, the source line and a
// caret, through llvm::SourceMgr. The engine counts errors so the driver can
// report several in one run and still exit non-zero. Source lines are shown
// from a display copy of each buffer whose control bytes read `?`, so a
// diagnostic never sends a source file's escape sequences to the terminal.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_DIAGNOSTICS_H
#define TLC_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include "llvm/ADT/DenseMap.h"

#include <limits>
#include <set>
#include <string>

namespace tlc {

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &srcMgr) : srcMgr(srcMgr) {}

  void error(llvm::SMLoc loc, const llvm::Twine &msg,
             llvm::ArrayRef<llvm::SMRange> ranges = {});
  void error(llvm::SMRange range, const llvm::Twine &msg) {
    error(range.Start, msg, {range});
  }
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg);

  unsigned errorCount() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }
  /// After this many errors further ones are dropped (and a note says so).
  /// Errors printed before the rest are dropped; 0 means no limit.
  void setErrorLimit(unsigned limit) {
    errorLimit = limit ? limit : std::numeric_limits<unsigned>::max();
  }
  bool tooManyErrors() const { return numErrors >= errorLimit; }

  llvm::SourceMgr &getSourceMgr() { return srcMgr; }
  /// The display copies of every buffer loaded so far, with the same names
  /// (for printers that find lines by file name: MLIR's diagnostics).
  llvm::SourceMgr &displaySourceMgr();

private:
  /// `loc` (and a range) moved into the display copy of its buffer.
  llvm::SMLoc display(llvm::SMLoc loc);
  void print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
             const llvm::Twine &msg, llvm::ArrayRef<llvm::SMRange> ranges = {});

  llvm::SourceMgr &srcMgr;
  llvm::SourceMgr displayMgr;
  llvm::DenseMap<unsigned, unsigned> displayBuffer; ///< srcMgr id -> copy
  unsigned numErrors = 0;
  unsigned errorLimit = 20;
  bool limitReported = false;
  /// Warnings already printed ("file:line:col: text"): the checks of
  /// tuned variants load and check the same source again.
  std::set<std::string> warned;
};

} // namespace tlc

#endif // TLC_FRONTEND_DIAGNOSTICS_H
