//===- Passes.h - Passes of the code-generation targets ---------*- C++ -*-===//
#ifndef TLC_TARGET_PASSES_H
#define TLC_TARGET_PASSES_H

#include "tlc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tlc {
#define GEN_PASS_DECL
#include "tlc/Target/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tlc/Target/Passes.h.inc"
} // namespace tlc

#endif // TLC_TARGET_PASSES_H
