//===- SharedMemory.h - Placing shared tiles in a block's shared memory -*- C++
//-*-===//
//
// Shared by tile-plan-pipelines (how many buffers fit), tile-plan-shared-memory
// (where each tile goes) and convert-tile-to-gpu (the views it creates).
//
//===----------------------------------------------------------------------===//
#ifndef TLC_CONVERSION_TILETOGPU_SHAREDMEMORY_H
#define TLC_CONVERSION_TILETOGPU_SHAREDMEMORY_H

#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace tlc::gpu_lowering {

/// The shape of a shared tile's storage: `stages` buffers (if not 0) and,
/// when `padded`, rows that are a multiple of 32 bytes get 16 more bytes so
/// that the 8 rows a matrix load reads (or a column walk touches) fall in
/// different banks.
llvm::SmallVector<int64_t> sharedTileShape(mlir::MemRefType type,
                                           int64_t stages, bool padded);
/// Bytes of the storage of a shared tile with `stages` buffers: padded, or
/// dense when it is swizzled (`swizzle` bytes, not 0).
int64_t sharedTileBytes(mlir::MemRefType type, int64_t stages, int64_t swizzle);
/// What shared tile `alloc` with `stages` pipeline buffers is stored as: its
/// type and buffer count, or for a staging tile (tile.store_staging =
/// [chunk, buffers]) `buffers` buffers of `chunk` of its columns.
std::pair<mlir::MemRefType, int64_t> sharedStorage(tile::AllocOp alloc,
                                                   int64_t stages);
/// Swizzled tiles start at multiples of this many bytes (the repeat of the
/// widest swizzle pattern: 8 rows of 128 bytes), so that the pattern the
/// lowering writes is the one the hardware reads by address.
constexpr int64_t kSwizzleAlignment = 1024;

/// Sets tile.swizzle on the shared operand tiles of the gemms in `func` whose
/// MMA kind (the first of `target`'s kinds that the accumulator layout
/// matches) reads them swizzled. Idempotent; tile-plan-pipelines and
/// tile-plan-shared-memory both run it, so their footprints agree.
void swizzleMmaOperands(mlir::Operation *func, tile::TargetAttr target);

/// Where each shared tile lives in the block's shared memory.
struct SharedPlan {
  llvm::DenseMap<mlir::Value, int64_t> offsets;
  int64_t bytes = 0;
  bool hasSwizzled = false;
};

/// Places the shared tiles (tile.alloc in the shared scope) of the kernel
/// whose body is `entry`; `stagesOf` gives the buffers of multi-buffered
/// tiles. Tiles whose uses do not overlap share memory: each tile is live
/// from the first to the last op of `entry` that uses it (a loop is one op,
/// so everything a loop touches is live through the whole loop). The
/// largest tiles are placed first, each at the lowest 128-byte aligned
/// offset that no live-overlapping tile occupies (1024-byte aligned for
/// swizzled tiles, and then the plan leaves kSwizzleAlignment bytes of
/// slack for aligning the base at run time). The barrier after a tile's
/// last use orders it before the next tile's writes. In a kernel that
/// becomes persistent (walksTiles) every tile is live throughout: the
/// producer fills the next tile's buffers meanwhile.
SharedPlan
planSharedMemory(mlir::Block &entry,
                 const llvm::DenseMap<mlir::Value, int64_t> &stagesOf);

} // namespace tlc::gpu_lowering

#endif // TLC_CONVERSION_TILETOGPU_SHAREDMEMORY_H
