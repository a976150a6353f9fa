//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
#ifndef TLC_DIALECT_TILE_IR_TILEOPS_H
#define TLC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"

#define GET_OP_CLASSES
#include "tlc/Dialect/Tile/IR/TileOps.h.inc"

namespace tlc::tile {
/// A window of a tile of `tileRank` dimensions over a memref of `rank`
/// without gathers: the tile covers the trailing dimensions (one tile
/// dimension each), the leading ones are points (-1).
llvm::SmallVector<int64_t> trailingWindowDims(int64_t rank, int64_t tileRank);
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_TILEOPS_H
