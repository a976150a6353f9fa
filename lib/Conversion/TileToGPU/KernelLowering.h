//===- KernelLowering.h - Lowering one tile kernel to a GPU kernel --------===//
//
// State shared by the op lowerings of convert-tile-to-gpu: the thread id,
// where every tile lives (shared memory view, per-thread alloca, or the
// registers of a fragment with its layout) and helpers to visit the
// elements of a tile the way a block's threads share them.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_CONVERSION_TILETOGPU_KERNELLOWERING_H
#define TLC_CONVERSION_TILETOGPU_KERNELLOWERING_H

#include "TargetInfo.h"

#include "tlc/Dialect/Tile/IR/Layout.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace tlc::gpu_lowering {

inline mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t v) {
  return mlir::arith::ConstantIndexOp::create(b, loc, v);
}

/// Code that only the thread whose `index` is `which` runs (`body` builds
/// it inside an scf.if).
inline void inThread(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
                     int64_t which,
                     llvm::function_ref<void(mlir::OpBuilder &)> body) {
  mlir::Value is = mlir::arith::CmpIOp::create(
      b, loc, mlir::arith::CmpIPredicate::eq, index, indexConst(b, loc, which));
  auto ifOp = mlir::scf::IfOp::create(b, loc, is, /*withElseRegion=*/false);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

/// Moves `op` (whose results are unused) under `scf.if cond`.
inline mlir::scf::IfOp guardOp(mlir::Operation *op, mlir::Value cond) {
  mlir::OpBuilder b(op);
  auto ifOp =
      mlir::scf::IfOp::create(b, op->getLoc(), cond, /*withElseRegion=*/false);
  op->moveBefore(ifOp.thenBlock()->getTerminator());
  return ifOp;
}

/// A store or atomic on a global tensor (a memref outside every memory
/// space that is not a thread's own `alloca`).
inline bool writesGlobalTensor(mlir::Operation *op) {
  mlir::Value memref;
  if (auto store = llvm::dyn_cast<mlir::memref::StoreOp>(op))
    memref = store.getMemRef();
  else if (auto rmw = llvm::dyn_cast<mlir::memref::AtomicRMWOp>(op))
    memref = rmw.getMemref();
  else
    return false;
  auto type = llvm::cast<mlir::MemRefType>(memref.getType());
  return !type.getMemorySpace() &&
         !memref.getDefiningOp<mlir::memref::AllocaOp>();
}

/// for (i = 0; i < count; ++i) with `init` as iteration arguments. Its
/// constants are created in order: nested creates in one call's arguments
/// would order them by the host compiler's whim.
inline mlir::scf::ForOp countedLoop(mlir::OpBuilder &b, mlir::Location loc,
                                    int64_t count, mlir::ValueRange init = {}) {
  mlir::Value lower = indexConst(b, loc, 0);
  mlir::Value upper = indexConst(b, loc, count);
  mlir::Value step = indexConst(b, loc, 1);
  return mlir::scf::ForOp::create(b, loc, lower, upper, step, init);
}

inline mlir::MemRefType memrefType(mlir::Value v) {
  return llvm::cast<mlir::MemRefType>(v.getType());
}

/// The byte address (an index) of the first element of `view`, a memref of
/// `elemBytes`-byte elements: its aligned pointer plus its offset.
/// `readOnly`: nothing writes the view through it (tile.read_only_address).
mlir::Value viewByteAddress(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value view, int64_t elemBytes,
                            bool readOnly = false);

/// Buffer `stage` of a multi-buffered tile: [S, ...] -> [...].
mlir::Value stageView(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value buffers, mlir::Value stage);

/// For each slot of `layout` (a 2-D fragment), the block of `blockCols`
/// columns its element lies in, the same for every thread; nullopt when
/// some slot's column crosses a block boundary from one thread to another.
std::optional<llvm::SmallVector<int64_t>>
slotColumnBlocks(const tile::FragmentLayout &layout, int64_t blockCols);

/// Whether `v` is a memref in shared (workgroup) memory.
inline bool isWorkgroup(mlir::Value v) {
  auto type = llvm::dyn_cast<mlir::MemRefType>(v.getType());
  auto space = type ? llvm::dyn_cast_or_null<mlir::gpu::AddressSpaceAttr>(
                          type.getMemorySpace())
                    : nullptr;
  return space && space.getValue() == mlir::gpu::AddressSpace::Workgroup;
}

/// A fragment in registers: `slots` is a per-thread memref<S x T> whose
/// constant-indexed accesses LLVM promotes to registers.
struct RegisterFragment {
  mlir::Value slots;
  tile::FragmentLayout layout;
};

/// How a block's threads share the elements of an index space.
struct Distribution {
  enum Kind {
    Owned,    ///< each thread visits the elements `layout` gives it
    Strided,  ///< element e goes to thread e % threads
    Redundant ///< every thread visits every element
  } kind = Strided;
  const tile::FragmentLayout *layout = nullptr;
  /// Owned: only the first replica visits (for writes to memory).
  bool firstReplicaOnly = false;
  /// Redundant: only thread 0 visits (for atomics).
  bool threadZeroOnly = false;
};

class KernelLowering {
public:
  KernelLowering(mlir::gpu::GPUFuncOp func, int64_t threads,
                 const GPUTargetInfo &target)
      : func(func), threads(threads), target(target) {}

  mlir::gpu::GPUFuncOp func;
  int64_t threads;
  const GPUTargetInfo &target;
  mlir::Value tid; ///< index
  /// Blocks per cluster (tile.cluster_blocks; 1: no clusters).
  int64_t clusterBlocks = 1;
  /// The cluster reductions' two exchange buffers in shared memory (after
  /// the tiles; bytes each) and the per-thread parity (memref<1xindex>)
  /// that picks one: consecutive reductions alternate, so the cluster
  /// barrier of one orders the reads of the previous before the writes of
  /// the next.
  int64_t clusterExchangeOffset = 0, clusterExchangeBytes = 0;
  mlir::Value clusterParity;
  /// A persistent kernel's consumer tile loop and the thread index its body
  /// uses instead of `tid` (the target's opaque copy, taken per tile):
  /// what the body computes from the thread index (shared addresses of
  /// every copy) is then not hoisted out of the tile loop, where it would
  /// stay live across the kernel's main loop.
  mlir::Operation *tileLoop = nullptr;
  mlir::Value tileTid;
  llvm::DenseMap<mlir::Value, RegisterFragment> fragments;
  /// Bytes of dynamic shared memory: tiles first, then reduction scratch.
  int64_t sharedTileBytes = 0;
  int64_t scratchBytes = 0;
  mlir::Value sharedBase;

  /// Shared views of swizzled tiles (whole storage, stages included) and
  /// their swizzle in bytes (tile.swizzle).
  llvm::DenseMap<mlir::Value, int64_t> swizzles;
  /// The tiles tensor stores read (tile.store_staging), by their tile.alloc:
  /// `count` buffers of `chunkCols` of the tile's columns ([count, rows,
  /// chunkCols], swizzled).
  struct StoreStaging {
    mlir::Value buffers;
    int64_t chunkCols = 0, count = 0;
  };
  llvm::DenseMap<mlir::Value, StoreStaging> storeStaging;
  /// With staging tiles: the kernel's store flag (i1, from an i32 parameter
  /// before the grid extents and tensor maps; docs/abi.md). The stub clears
  /// it when the stored tensor does not suit the tensor-copy unit: the
  /// accumulators are then stored from registers.
  mlir::Value storeByTensorCopy;
  /// Whether the kernel's returns wait for its tensor stores yet.
  bool tensorStoresDrained = false;

  /// The swizzle of the shared tile `memref` is (a view of), 0 if none.
  int64_t swizzleOf(mlir::Value memref) const;
  /// Where element `index` of shared tile `memref` is stored: `index`
  /// itself, or its swizzled position (same shape) for a swizzled tile.
  llvm::SmallVector<mlir::Value> sharedPosition(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value memref,
                                                mlir::ValueRange index) const;

  const RegisterFragment *fragment(mlir::Value v) const {
    auto it = fragments.find(v);
    return it == fragments.end() ? nullptr : &it->second;
  }

  /// Calls `body(b, index, slot)` for the elements of `shape` this thread
  /// visits under `dist` (slot is -1 unless Owned).
  void forEachElement(
      mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> shape,
      const Distribution &dist,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::ValueRange, int64_t)>
          body);

  /// The distribution that writes `dest` (a fragment, shared, local or
  /// global memref) once per element.
  Distribution writerOf(mlir::Value dest) const;

  /// A view of `bytes` of reduction scratch (f32/i32/... words) in shared
  /// memory, behind the tiles.
  mlir::Value scratch(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Type elementType, int64_t count);

  // Op lowerings (Ops.cpp): each emits its op's code before it; the
  // pattern that calls it (Patterns.cpp) erases the op.
  void lowerFill(tile::FillOp op);
  void lowerCopy(tile::CopyOp op);
  mlir::LogicalResult lowerVectorCopy(tile::CopyOp op);
  void lowerAsyncCopy(tile::CopyOp op);
  /// A copy of a register fragment into a shared tile by vector stores of
  /// the runs of consecutive elements a thread holds; failure when the
  /// layout has no aligned runs.
  mlir::LogicalResult lowerFragmentToSharedVector(tile::CopyOp op);
  /// Writes the slots `takeSlot` selects of fragment copy `op`'s source into
  /// the 2-D shared tile `dst`, column c at c - `colShift` (one replica
  /// writes; vector stores where the layout has aligned runs).
  void writeFragmentRuns(mlir::OpBuilder &b, mlir::Location loc,
                         tile::CopyOp op, mlir::Value dst, int64_t colShift,
                         llvm::function_ref<bool(int64_t)> takeSlot);
  /// The write of an accumulator into its staging tile and the tensor
  /// store that reads it (tile-plan-pipelines): chunk by chunk of
  /// `staging`'s columns, through its buffers.
  void lowerStagedStore(tile::CopyOp write, const StoreStaging &staging);
  mlir::LogicalResult
  lowerFragmentVectorCopy(tile::CopyOp op, const tile::FragmentLayout &layout,
                          bool firstReplicaOnly);
  void emitVectorCopy(mlir::OpBuilder &b, tile::CopyOp op, int64_t width,
                      mlir::Value aligned);
  void forEachChunk(
      mlir::OpBuilder &b, mlir::Location loc, tile::CopyOp op, int64_t width,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::ValueRange)> body);
  void lowerParallel(tile::ParallelOp op);
  void lowerReduce(tile::ReduceOp op);
  /// On the target's matrix instructions (GPUTargetInfo::lowerMmaGemm)
  /// when they serve, FMAs otherwise.
  void lowerGemm(tile::GemmOp op);
  void lowerAtomicAdd(tile::AtomicAddOp op);
  /// Through the exchange buffer of this reduction's parity: each thread
  /// writes its slots, the cluster synchronizes, each thread combines its
  /// slots' values from every block in rank order (the same bits
  /// everywhere) (ClusterReduce.cpp).
  void lowerClusterReduce(tile::ClusterReduceOp op);
  /// atomic_add of a fragment whose layout gives each thread runs of
  /// consecutive elements: one vector atomic per run where the target has
  /// them (GPUTargetInfo::vectorAtomicAddWidth) and the run is in bounds
  /// and aligned, element by element elsewhere.
  mlir::LogicalResult lowerFragmentVectorAtomicAdd(tile::AtomicAddOp op,
                                                   const RegisterFragment &f);
};

/// A `pipelined` loop and the copies into shared tiles it overlaps with
/// compute (Pipeline.cpp).
struct PipelinedLoop {
  mlir::scf::ForOp loop;
  int64_t stages;
  llvm::SmallVector<tile::CopyOp> producers;
};
/// Whether the target's asynchronous copies can run `copy`: from a global
/// window into a shared tile of the same dtype whose rows are whole 16-byte
/// chunks.
bool asyncCopyable(tile::CopyOp copy);
/// The loops `pipelined` asks for and their candidate producers (copies
/// from global memory into shared tiles at the top level of the body whose
/// window depends only on pure ops of the loop index), stages capped at 8.
llvm::SmallVector<PipelinedLoop> findPipelinedLoops(mlir::Operation *func);
/// Whether `copy`'s window origin, in `loop`'s body, comes from the loop
/// index through pure ops only, so the copy of a later iteration can be
/// issued ahead.
bool originIssuableAhead(mlir::scf::ForOp loop, tile::CopyOp copy);
/// Whether an index tile of gather `copy` is written in `loop` (then a
/// later iteration's rows are not known ahead).
bool gatherIndexWrittenIn(mlir::scf::ForOp loop, tile::CopyOp copy);
/// The kernel argument a global memref comes from (through views), or null
/// for tiles and local memory.
mlir::Value globalRoot(mlir::Value memref);
/// What ops do to global tensors (by globalRoot): plain reads and writes,
/// and atomic updates apart (they commute with each other).
struct GlobalAccess {
  llvm::SmallSetVector<mlir::Value, 4> reads, writes, atomics;

  void merge(const GlobalAccess &o);
  bool empty() const {
    return reads.empty() && writes.empty() && atomics.empty();
  }
  /// Whether `later` must wait for these accesses: it reads what they
  /// wrote or updated, or writes or updates what they read.
  bool conflictsWith(const GlobalAccess &later) const;
};
/// The global accesses of `op` and everything nested in it.
GlobalAccess globalAccessOf(mlir::Operation *op);
/// Whether `loop` writes (or atomically updates) the tensor `copy` reads
/// (then reading it ahead would read stale data).
bool sourceWrittenIn(mlir::scf::ForOp loop, tile::CopyOp copy);
/// The pipelines tile-plan-pipelines chose: loops with tile.pipeline_stages
/// and their tile.async producers.
llvm::SmallVector<PipelinedLoop> plannedPipelines(mlir::Operation *func);
/// Whether the warp-specialized loop `loop` (tile.producer_threads) makes
/// its kernel persistent (tile.walks_tiles, which tile-plan-pipelines
/// decides).
bool walksTiles(mlir::scf::ForOp loop);
/// Rewrites the loop; `buffers` maps each producer's shared tile to its
/// [S, ...] buffers in shared memory.
void pipelineLoop(const PipelinedLoop &p,
                  const llvm::DenseMap<mlir::Value, mlir::Value> &buffers,
                  KernelLowering &k);

/// Marks the gemms `target` runs as asynchronous MMAs (tile.mma_wait_deferred),
/// while their operands are still tiles (MmaWaits.cpp).
void markAsyncMmaGemms(mlir::gpu::GPUFuncOp func, const GPUTargetInfo &target);
/// Lets the marked gemms outside the pipeliner's protocol run on past the
/// ops that do not need their results: each is waited for before the first
/// op that does, or at the end of its block (MmaWaits.cpp).
void placeMmaWaits(mlir::gpu::GPUFuncOp func, const GPUTargetInfo &target);

/// The rewrite patterns that lower the tile ops of `k`'s kernel.
void populateTileToGPUPatterns(mlir::RewritePatternSet &patterns,
                               KernelLowering &k);
/// Whether `op` (or an op nested in it) reads or writes shared memory.
bool touchesShared(mlir::Operation *op);

/// Reads element `index` of tile `v` (slot used for register fragments).
mlir::Value loadElement(mlir::OpBuilder &b, mlir::Location loc,
                        const KernelLowering &k, mlir::Value v,
                        mlir::ValueRange index, int64_t slot);
void storeElement(mlir::OpBuilder &b, mlir::Location loc,
                  const KernelLowering &k, mlir::Value value, mlir::Value v,
                  mlir::ValueRange index, int64_t slot);

} // namespace tlc::gpu_lowering

#endif // TLC_CONVERSION_TILETOGPU_KERNELLOWERING_H
