//===- Passes.h - Target-neutral tile passes --------------------*- C++ -*-===//
#ifndef TLC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TLC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tlc::tile {
#define GEN_PASS_DECL
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_PASSES_H
