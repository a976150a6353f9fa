//===- Diagnostics.cpp - Clang-style diagnostics for .tl sources ----------===//
#include "tlc/Frontend/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;

/// Control bytes (but tabs, which the caret printer expands) read `?`: one
/// byte for one, so columns and carets stay where they were.
static std::string displayText(llvm::StringRef text) {
  std::string copy = text.str();
  for (char &c : copy) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f)
      c = '?';
  }
  return copy;
}

llvm::SMLoc DiagnosticEngine::display(llvm::SMLoc loc) {
  unsigned id = loc.isValid() ? srcMgr.FindBufferContainingLoc(loc) : 0;
  if (!id)
    return loc;
  const llvm::MemoryBuffer *buffer = srcMgr.getMemoryBuffer(id);
  unsigned shown = displayBuffer.lookup(id);
  if (!shown) {
    // The including file first: that call may insert into displayBuffer.
    llvm::SMLoc includedAt = display(srcMgr.getParentIncludeLoc(id));
    shown = displayMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(displayText(buffer->getBuffer()),
                                             buffer->getBufferIdentifier()),
        includedAt);
    displayBuffer[id] = shown;
  }
  const char *start = displayMgr.getMemoryBuffer(shown)->getBufferStart();
  return llvm::SMLoc::getFromPointer(
      start + (loc.getPointer() - buffer->getBufferStart()));
}

llvm::SourceMgr &DiagnosticEngine::displaySourceMgr() {
  for (unsigned id = 1; id <= srcMgr.getNumBuffers(); ++id)
    display(llvm::SMLoc::getFromPointer(
        srcMgr.getMemoryBuffer(id)->getBufferStart()));
  return displayMgr;
}

void DiagnosticEngine::print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                             const llvm::Twine &msg,
                             llvm::ArrayRef<llvm::SMRange> ranges) {
  llvm::SmallVector<llvm::SMRange, 1> moved;
  for (llvm::SMRange r : ranges)
    moved.push_back({display(r.Start), display(r.End)});
  displayMgr.PrintMessage(display(loc), kind, msg, moved);
}

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg,
                             llvm::ArrayRef<llvm::SMRange> ranges) {
  if (numErrors >= errorLimit) {
    if (!limitReported)
      print(loc, llvm::SourceMgr::DK_Note, "too many errors; stopping here");
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
  print(loc, llvm::SourceMgr::DK_Error, msg, printable);
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
  unsigned buffer = srcMgr.FindBufferContainingLoc(loc);
  auto [line, column] = srcMgr.getLineAndColumn(loc, buffer);
  std::string key =
      (buffer ? srcMgr.getMemoryBuffer(buffer)->getBufferIdentifier().str()
              : std::string()) +
      ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
      msg.str();
  if (!warned.insert(key).second)
    return;
  print(loc, llvm::SourceMgr::DK_Warning, msg);
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (numErrors > errorLimit)
    return;
  print(loc, llvm::SourceMgr::DK_Note, msg);
}
