//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
#ifndef TLC_DIALECT_TILE_IR_TILEDIALECT_H
#define TLC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "tlc/Dialect/Tile/IR/TileDialect.h.inc"
#include "tlc/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tlc::tile {
/// The scope of a tile memref, or nullopt for global (default space) memrefs.
std::optional<MemScope> getScope(mlir::MemRefType type);
/// Builds a memref type for a tile of `shape` in `scope`.
mlir::MemRefType getTileType(mlir::ArrayRef<int64_t> shape,
                             mlir::Type elementType, MemScope scope);
/// The target description of `op`'s nearest enclosing op (itself included)
/// that has one (see attr::kTarget), or null.
TargetAttr getTarget(mlir::Operation *op);
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_TILEDIALECT_H
