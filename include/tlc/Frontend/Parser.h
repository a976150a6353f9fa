//===- Parser.h - Recursive-descent parser for .tl files --------*- C++ -*-===//
#ifndef TLC_FRONTEND_PARSER_H
#define TLC_FRONTEND_PARSER_H

#include "tlc/Frontend/AST.h"
#include "tlc/Frontend/Diagnostics.h"

namespace tlc {

struct Program; // Sema.h

/// Parses buffer `bufferId` of the diagnostic engine's SourceMgr. Always
/// returns a Module holding every declaration that parsed; errors (with
/// recovery, so several can be reported) go to `diags`.
std::unique_ptr<Module> parseModule(unsigned bufferId, DiagnosticEngine &diags);

/// An `import "path";` of a file: the path as written and where.
struct ImportRef {
  std::string path;
  llvm::SMRange range;
};

/// parseModule for file `fileName` (buffer `bufferId`), appended to
/// `program`; returns the file's imports, in order, for the caller to
/// resolve (the compiler against folders, the fuzzer among its parts).
std::vector<ImportRef> parseFileInto(unsigned bufferId,
                                     const std::string &fileName,
                                     DiagnosticEngine &diags, Program &program);

} // namespace tlc

#endif // TLC_FRONTEND_PARSER_H
