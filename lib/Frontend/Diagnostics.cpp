//===- Diagnostics.cpp - Clang-style diagnostics for .tl sources ----------===//
#include "tlc/Frontend/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

using namespace tlc;

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg,
                             llvm::ArrayRef<llvm::SMRange> ranges) {
  if (numErrors >= errorLimit) {
    if (!limitReported)
      srcMgr.PrintMessage(loc, llvm::SourceMgr::DK_Note,
                          "too many errors; stopping here");
    limitReported = true;
    ++numErrors;
    return;
  }
  ++numErrors;
  // A range that ends on another line than it starts confuses the caret
  // printer; keep the caret only then.
  llvm::SmallVector<llvm::SMRange, 1> printable;
  for (llvm::SMRange r : ranges)
    if (r.isValid() &&
        srcMgr.FindLineNumber(r.Start) == srcMgr.FindLineNumber(r.End))
      printable.push_back(r);
  srcMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error, msg, printable);
  if (numErrors == errorLimit && !limitReported) {
    llvm::errs() << "note: too many errors (limit " << errorLimit
                 << "); stopping here\n";
    limitReported = true;
  }
}

void DiagnosticEngine::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (!loc.isValid()) { // about the command line, not a source line
    llvm::errs() << "tlc: warning: " << msg << "\n";
    return;
  }
  srcMgr.PrintMessage(loc, llvm::SourceMgr::DK_Warning, msg);
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (numErrors > errorLimit)
    return;
  srcMgr.PrintMessage(loc, llvm::SourceMgr::DK_Note, msg);
}
