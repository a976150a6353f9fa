//===- CPULowering.h - Pieces of the tile-to-CPU lowering ------*- C++ -*-===//
//
// Each tile op has its own lowering function; they share the chunking helper
// and element-type casts declared here.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_CONVERSION_TILETOCPU_CPULOWERING_H
#define TLC_LIB_CONVERSION_TILETOCPU_CPULOWERING_H

#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace tlc::cpu {

/// Lanes of a vector register for `elementType` (at least 1).
int64_t vectorLanes(mlir::Type elementType, unsigned vectorBits);

/// Columns of C one register block of the gemm micro-kernel covers (NR):
/// two vectors of the accumulator's type.
int64_t gemmBlockColumns(mlir::Type accType, unsigned vectorBits);

/// Covers [0, total) in chunks of `lanes`: an scf.for over the full chunks,
/// then one static tail chunk. `body(offset, width)` emits one chunk.
void forEachChunk(mlir::OpBuilder &b, mlir::Location loc, int64_t total,
                  int64_t lanes,
                  const std::function<void(mlir::Value, int64_t)> &body);

/// Emits a loop nest over `extents` (may be empty) and calls `body` with the
/// induction variables at the innermost level.
void buildLoopNest(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<int64_t> extents,
                   const std::function<void(mlir::ValueRange)> &body);

/// `v` as a vector of `width` lanes: broadcasts scalars.
mlir::Value broadcastTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        int64_t width);

// Lowerings of the individual tile ops; each erases the op.
void lowerCopy(tile::CopyOp op, unsigned vectorBits);
void lowerFill(tile::FillOp op, unsigned vectorBits);
void lowerReduce(tile::ReduceOp op, unsigned vectorBits);
void lowerAtomicAdd(tile::AtomicAddOp op);
/// `blocks`: the kernel's tile.cluster_blocks (1: the op is erased).
void lowerClusterReduce(tile::ClusterReduceOp op, int64_t blocks);
void lowerGemm(tile::GemmOp op, unsigned vectorBits, unsigned vectorRegisters);
void lowerParallel(tile::ParallelOp op, unsigned vectorBits);

} // namespace tlc::cpu

#endif // TLC_LIB_CONVERSION_TILETOCPU_CPULOWERING_H
