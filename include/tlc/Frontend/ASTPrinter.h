//===- ASTPrinter.h - Textual dump of the AST (-emit=ast) -------*- C++ -*-===//
#ifndef TLC_FRONTEND_ASTPRINTER_H
#define TLC_FRONTEND_ASTPRINTER_H

#include "tlc/Frontend/AST.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace tlc {

/// Prints one node per line, indented by nesting, with `line:col` of each
/// node and, where Sema has run, its type and constant value.
void printAST(const Module &module, llvm::SourceMgr &srcMgr,
              llvm::raw_ostream &os);

} // namespace tlc

#endif // TLC_FRONTEND_ASTPRINTER_H
