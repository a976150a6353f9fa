//===- Parser.h - Recursive-descent parser for .tl files --------*- C++ -*-===//
#ifndef TLC_FRONTEND_PARSER_H
#define TLC_FRONTEND_PARSER_H

#include "tlc/Frontend/AST.h"
#include "tlc/Frontend/Diagnostics.h"

namespace tlc {

/// Parses buffer `bufferId` of the diagnostic engine's SourceMgr. Always
/// returns a Module holding every declaration that parsed; errors (with
/// recovery, so several can be reported) go to `diags`.
std::unique_ptr<Module> parseModule(unsigned bufferId, DiagnosticEngine &diags);

} // namespace tlc

#endif // TLC_FRONTEND_PARSER_H
