//===- TensorCopy.h - TMA copies and mbarriers on sm_90+ --------*- C++ -*-===//
//
// The tensor-copy unit of Hopper (TMA): cp.async.bulk.tensor moves a box of
// a tensor, described by a tensor map the host encodes, into shared memory
// and completes on an mbarrier. Tensor maps are the kernel's trailing
// parameters (tile.tensor_maps), passed by value as __grid_constant__.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_CONVERSION_TILETOGPU_NVIDIA_TENSORCOPY_H
#define TLC_CONVERSION_TILETOGPU_NVIDIA_TENSORCOPY_H

#include "../KernelLowering.h"

namespace tlc::gpu_lowering::nvidia {

/// Whether TMA can copy `copy`'s window into its destination swizzled by
/// `swizzle` bytes: a 2-D tile of at most 256 rows whose rows are whole
/// swizzle atoms, from a kernel tensor argument of rank 2 to 5.
bool tensorCopySuits(tile::CopyOp copy, int64_t swizzle);

/// Whether TMA can store `copy`'s source tile, staged in shared memory
/// swizzled by `swizzle` bytes, to its window: a 2-D tile of at most 256
/// rows whose rows are whole swizzle atoms (in the destination's element
/// type), over the two innermost dimensions of a kernel tensor argument of
/// rank 2 to 5. Out-of-bounds parts of a box are not written.
bool tensorStoreSuits(tile::CopyOp copy, int64_t swizzle);
/// One TMA store per swizzle atom of the swizzled shared `tile` to the
/// window of `dest` at `destIndex`, then a commit of the bulk group.
void emitTensorStore(KernelLowering &k, mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value tile, mlir::Value dest,
                     mlir::ValueRange destIndex);
/// cp.async.bulk.wait_group(.read) `pending`.
void waitTensorStores(mlir::OpBuilder &b, mlir::Location loc, bool readsOnly,
                      int64_t pending);

void initBarriers(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::ValueRange barriers, int64_t arrivals);
void arriveBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barrier);
/// bar.warp.sync (orders the warp's memory accesses before lane 0's), then
/// lane 0 arrives for its warp: on `barrier`, or with `clusterRanks` on the
/// barrier at its address in each of those blocks of the cluster.
void arriveBarrierPerWarp(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value barrier, mlir::Value tid,
                          int64_t warpSize, mlir::ValueRange clusterRanks);
/// %clusterid.x, %nclusterid.x, %cluster_ctarank, %cluster_nctarank.
GPUTargetInfo::ClusterPosition clusterPosition(mlir::OpBuilder &b,
                                               mlir::Location loc);
/// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire).
void clusterSync(mlir::OpBuilder &b, mlir::Location loc);
/// ld.shared::cluster of a `type` value at shared byte `address` (index) of
/// cluster block `rank` (index), through mapa.
mlir::Value loadClusterShared(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type type, mlir::Value address,
                              mlir::Value rank);
/// The registers per thread a warp-specialized block's consumers take.
int64_t consumerRegisters(int64_t consumerThreads, int64_t producerThreads);
/// setmaxnreg: producers keep few registers, consumers share the rest of
/// the register file.
void setRoleRegisters(mlir::OpBuilder &b, mlir::Location loc, bool producer,
                      int64_t consumerThreads, int64_t producerThreads);
void expectBytes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barrier,
                 int64_t bytes);
void waitBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barrier,
                 mlir::Value parity);
/// One TMA copy per swizzle atom (a box of the tile's rows by one atom's
/// columns) into the atoms of `dst`, stacked along its rows. `shared`: see
/// GPUTargetInfo::tensorCopy; in clusters of 2, block r copies rows
/// [r * rows / 2, (r + 1) * rows / 2) of each atom into both blocks
/// (multicast), when the half is whole swizzle periods (8 rows).
void emitTensorCopy(KernelLowering &k, mlir::OpBuilder &b, mlir::Location loc,
                    tile::CopyOp copy, mlir::ValueRange srcIndex,
                    mlir::Value dst, mlir::Value barrier,
                    const GPUTargetInfo::ClusterPosition *shared);

} // namespace tlc::gpu_lowering::nvidia

#endif // TLC_CONVERSION_TILETOGPU_NVIDIA_TENSORCOPY_H
