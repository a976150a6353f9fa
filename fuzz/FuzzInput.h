//===- FuzzInput.h - A fuzz input read as a checked tlc program -*- C++ -*-===//
//
// Both fuzz targets read their input as the main .tl file of a program, the
// way tools/tlc reads a file: parsed with its imports, then checked by Sema.
// Lines `//--- NAME` split an input into files, as LLVM's split-file does:
// the text before the first such line is the main file, the text after one
// is the file NAME, which `import "NAME"` loads. So the fuzzer reaches
// imports without touching the file system; an import of any other name is
// the error of a missing file.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FUZZ_FUZZINPUT_H
#define TLC_FUZZ_FUZZINPUT_H

#include "tlc/Frontend/Diagnostics.h"
#include "tlc/Frontend/Sema.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace tlc::fuzz {

class CheckedInput {
public:
  explicit CheckedInput(llvm::StringRef data);

  /// The program parsed and Sema checked it without an error.
  bool ok() const { return checked; }
  Program &program() { return prog; }
  const Sema &sema() const { return *semaPtr; }
  llvm::SourceMgr &sourceMgr() { return srcMgr; }

private:
  llvm::SourceMgr srcMgr;
  DiagnosticEngine diags{srcMgr};
  Program prog;
  std::unique_ptr<Sema> semaPtr;
  bool checked = false;
};

} // namespace tlc::fuzz

#endif // TLC_FUZZ_FUZZINPUT_H
