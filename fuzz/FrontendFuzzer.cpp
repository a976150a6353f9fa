//===- FrontendFuzzer.cpp - libFuzzer target: lexer, parser, Sema ---------===//
//
// Parses and checks each input as tlc does (FuzzInput.h), then prints the
// checked AST as `tlc -emit=ast` would. Any crash, sanitizer report or hang
// is a bug: bad input must end in diagnostics.
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

#include "tlc/Frontend/ASTPrinter.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tlc::fuzz::CheckedInput input(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (input.ok()) {
    llvm::raw_null_ostream os;
    tlc::printAST(*input.program().modules[0], input.sourceMgr(), os);
  }
  return 0;
}
