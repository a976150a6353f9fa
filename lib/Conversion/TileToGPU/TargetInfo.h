//===- TargetInfo.h - What a GPU vendor adds to the tile lowering -*- C++
//-*-===//
//
// convert-tile-to-gpu is target-neutral: it distributes tile ops over a
// block's threads with gpu/scf/memref/vector ops. Where a vendor has its own
// instructions (warp shuffles of its width, asynchronous copies, matrix
// instructions, ops its upstream lowering lacks), the lowering asks the
// GPUTargetInfo of the module's #tile.target. Each vendor implements it in
// its own folder (NVIDIA/, AMD/) and registers it in Registry.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_CONVERSION_TILETOGPU_TARGETINFO_H
#define TLC_CONVERSION_TILETOGPU_TARGETINFO_H

#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <memory>

namespace tlc::gpu_lowering {

class KernelLowering;

class GPUTargetInfo {
public:
  explicit GPUTargetInfo(tile::TargetAttr target) : target(target) {}
  virtual ~GPUTargetInfo() = default;

  /// The description this info was made for.
  tile::TargetAttr target;
  int64_t warpSize() const { return target.getWarpSize(); }

  /// `v` exchanged with lane `lane ^ offset` of the same warp (offset below
  /// the warp size). Default: gpu.shuffle xor on 32-bit values.
  virtual mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value v, int64_t offset) const;

  /// Asynchronous copies (only when target.getAsyncCopy()): starts copying
  /// `srcElements` (at most `elements`, the rest zero-filled) consecutive
  /// elements from src[srcIndex] to dst[dstIndex] (dst in shared memory).
  virtual void asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value dst, mlir::ValueRange dstIndex,
                         mlir::Value src, mlir::ValueRange srcIndex,
                         int64_t elements, mlir::Value srcElements) const;
  /// Whether asyncCopy takes chunks of `bytes` (16 always).
  virtual bool asyncCopyBytes(int64_t bytes) const { return bytes == 16; }
  /// Closes the group of copies started since the last commit.
  virtual void asyncCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until at most `pending` committed groups are still in flight.
  virtual void asyncWait(mlir::OpBuilder &b, mlir::Location loc,
                         int64_t pending) const;

  /// Atomic adds of consecutive elements in one instruction: the most
  /// elements of type `elem` one takes (1: element by element only).
  virtual int64_t vectorAtomicAddWidth(mlir::Type elem) const { return 1; }
  /// Adds `values` (a power of two of them, at most vectorAtomicAddWidth)
  /// to the consecutive elements at global byte address `address` (i64),
  /// which is aligned to their total size.
  virtual void vectorAtomicAdd(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value address,
                               mlir::ArrayRef<mlir::Value> values) const {}

  /// Tensor copies: a unit that moves a whole tile from global into shared
  /// memory by itself (NVIDIA's TMA), completing on a copy barrier in shared
  /// memory. Barriers are given as byte addresses in shared memory (index),
  /// kCopyBarrierBytes each. Whether the unit can run `copy` (a pipeline's
  /// producer; its destination swizzled by `swizzle` bytes, 0 if not).
  static constexpr int64_t kCopyBarrierBytes = 8;
  virtual bool canTensorCopy(tile::CopyOp copy, int64_t swizzle) const {
    return false;
  }
  /// One thread: initializes `barriers` (`arrivals` arrivals complete a
  /// phase). The block synchronizes before using them.
  virtual void initCopyBarriers(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::ValueRange barriers,
                                int64_t arrivals) const {}
  /// Arrives on `barrier` (no bytes expected).
  virtual void arriveCopyBarrier(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value barrier) const {}
  /// Every thread of whole warps: once the warp's threads are done with
  /// what `barrier` guards, one of them arrives for the warp (the barrier
  /// counts warps; `tid` is the thread index). With `clusterRanks`, it
  /// arrives once on the barrier at the same address in each of those
  /// blocks of the cluster (index values; a rank may repeat).
  virtual void
  arriveCopyBarrierPerWarp(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value barrier, mlir::Value tid,
                           mlir::ValueRange clusterRanks = {}) const {}
  /// One thread: arrives on `barrier`, whose phase then completes when
  /// `bytes` more bytes of tensor copies have landed.
  virtual void expectCopyBytes(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier, int64_t bytes) const {}
  /// Where this block is among the thread-block clusters of the launch
  /// (index values): cluster `id` of `count`, block `rank` of `size`.
  struct ClusterPosition {
    mlir::Value id, count, rank, size;
  };
  /// Whether blocks can run in clusters that fill each other's tiles
  /// (tensor copies multicast to several blocks).
  virtual bool hasClusters() const { return false; }
  /// Without clusters: block x of the grid's x extent, rank 0 of 1.
  virtual ClusterPosition clusterPosition(mlir::OpBuilder &b,
                                          mlir::Location loc) const;
  /// Every thread of every block of the cluster: waits for all of them;
  /// what each did before (barrier set-up included) is then visible to all.
  virtual void clusterSync(mlir::OpBuilder &b, mlir::Location loc) const {}
  /// The `type` value at byte `address` (an index into shared memory) of
  /// block `rank` (an index) of this block's cluster. Only where
  /// hasClusters().
  virtual mlir::Value loadClusterShared(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Type type, mlir::Value address,
                                        mlir::Value rank) const {
    return {};
  }
  /// Marks `func` as launched in clusters of `blocks` blocks along x (a
  /// kernel with tile.cluster_blocks; only where hasClusters()).
  virtual void setClusterShape(mlir::gpu::GPUFuncOp func,
                               int64_t blocks) const {}

  /// One thread: starts copying the window of `copy` at `srcIndex` into
  /// `dst` (a buffer of its destination), completing on `barrier`. With
  /// `shared` (the block's cluster rank and the cluster's size), every block
  /// of a cluster copies the same window: where the size is 2, each block
  /// copies a half into both blocks (the barriers at `barrier`'s address
  /// in each expect all of the bytes).
  virtual void tensorCopy(KernelLowering &k, mlir::OpBuilder &b,
                          mlir::Location loc, tile::CopyOp copy,
                          mlir::ValueRange srcIndex, mlir::Value dst,
                          mlir::Value barrier,
                          const ClusterPosition *shared = nullptr) const {}
  /// Tensor stores: the tensor-copy unit writes a shared tile (swizzled by
  /// `swizzle` bytes) to a global window while the threads go on. Whether it
  /// can run `copy` (a copy of a 2-D tile to a window of a tensor argument;
  /// its source may still be a register fragment: sizes come from the
  /// destination's element type).
  virtual bool canTensorStore(tile::CopyOp copy, int64_t swizzle) const {
    return false;
  }
  /// One thread: starts storing the swizzled shared `tile` (the threads'
  /// writes to it fenced and synchronized) to the window of global `dest`
  /// at `destIndex` (over its two innermost dimensions; a kernel tensor
  /// argument) and closes the stores into a group.
  virtual void tensorStore(KernelLowering &k, mlir::OpBuilder &b,
                           mlir::Location loc, mlir::Value tile,
                           mlir::Value dest, mlir::ValueRange destIndex) const {
  }
  /// The thread that issued tensor stores: waits until at most `pending`
  /// of its groups of them have not read their tiles (`readsOnly`) or not
  /// completed.
  virtual void tensorStoreWait(mlir::OpBuilder &b, mlir::Location loc,
                               bool readsOnly, int64_t pending) const {}
  /// Every thread: waits until the phase of `barrier` with parity `parity`
  /// (index, 0 or 1) has completed; the copies' data is then visible.
  virtual void waitCopyBarrier(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier, mlir::Value parity) const {}

  /// Warp specialization: the threads (whole warpgroups; 0 for none) the
  /// target adds to a block to issue a pipeline's tensor copies while the
  /// block's own threads compute, and the register budgets of the two roles
  /// (set at the start of each; `consumerThreads` compute).
  virtual int64_t producerThreads() const { return 0; }
  virtual int64_t consumerRegisters(int64_t consumerThreads) const { return 0; }
  /// Groups of `consumerThreads` that can take turns issuing a loop's
  /// asynchronous MMAs (0: none), and the two halves of a turn: group
  /// `group` (an i32 in [0, groups)) waits until the group before it has
  /// passed the turn, and passes it to the next. Each returns its op.
  virtual int64_t turnTakingGroups(int64_t consumerThreads) const { return 0; }
  virtual mlir::Operation *waitTurn(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value group, int64_t groups) const {
    return nullptr;
  }
  virtual mlir::Operation *passTurn(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value group, int64_t groups) const {
    return nullptr;
  }
  virtual void setRoleRegisters(mlir::OpBuilder &b, mlir::Location loc,
                                bool producer, int64_t consumerThreads) const {}

  /// `value` (an i32) again, through an instruction the compiler below
  /// cannot move or see through, so that what is computed from the result
  /// stays where it is computed (not hoisted out of a loop). Default:
  /// `value` itself.
  virtual mlir::Value opaqueCopy(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value) const {
    return value;
  }

  /// Orders this thread's earlier writes to shared memory before reads of
  /// swizzled operand tiles by the matrix instructions (which may read
  /// through another memory proxy); the barrier that follows makes them
  /// visible to the block. Default: nothing.
  virtual void fenceSharedForMma(mlir::OpBuilder &b, mlir::Location loc) const {
  }

  /// Lowers `op` on the target's matrix instructions when its accumulator
  /// has the layout of the target's MMA kind and the operands suit it;
  /// failure (nothing changed) otherwise, and the FMA path runs.
  virtual mlir::LogicalResult lowerMmaGemm(KernelLowering &k,
                                           tile::GemmOp op) const {
    return mlir::failure();
  }

  /// Whether lowerMmaGemm will run `op` as asynchronous MMAs that may stay
  /// in flight after it (tile.mma_in_flight), and waiting until at most
  /// `pending` groups of them are.
  virtual bool mmaIsAsync(tile::GemmOp op) const { return false; }
  virtual void mmaWait(mlir::OpBuilder &b, mlir::Location loc,
                       int64_t pending) const {}

  /// Rewrites what the vendor's upstream lowering does not cover, once the
  /// tile ops are gone.
  virtual void legalize(mlir::gpu::GPUFuncOp func) const {}
};

using GPUTargetInfoFactory =
    std::function<std::unique_ptr<GPUTargetInfo>(tile::TargetAttr)>;
/// Makes the target info of `vendor` (a #tile.target vendor) known, with
/// the dialects its ops come from.
void registerGPUTargetInfo(
    llvm::StringRef vendor, GPUTargetInfoFactory factory,
    std::function<void(mlir::DialectRegistry &)> dialects);
/// The target info for `target`, or null when its vendor is unknown.
std::unique_ptr<GPUTargetInfo> createGPUTargetInfo(tile::TargetAttr target);
/// Adds the dialects of every registered vendor (a pass's dependent
/// dialects: which vendor a module needs is known only when it runs).
void insertVendorDialects(mlir::DialectRegistry &registry);

// Each vendor's registration: its GPUTargetInfo and its MMA kinds.
namespace nvidia {
void registerTargetInfo();
} // namespace nvidia
namespace amd {
void registerTargetInfo();
} // namespace amd
namespace vulkan {
void registerTargetInfo();
} // namespace vulkan

} // namespace tlc::gpu_lowering

#endif // TLC_CONVERSION_TILETOGPU_TARGETINFO_H
