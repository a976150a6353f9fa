//===- AttrNames.h - Names of the discardable attributes tlc uses -*- C++
//-*-===//
//
// Every attribute that stages of tlc hand to each other by name, in one
// place: MLIRGen sets the kernel facts, passes read them and add their own
// decisions. Spelled out only here, so a typo is a compile error.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_DIALECT_TILE_IR_ATTRNAMES_H
#define TLC_DIALECT_TILE_IR_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tlc::tile {
/// The entry point of kernel `name` in GPU binaries, as stubs launch it.
inline std::string kernelEntryName(llvm::StringRef name) {
  return "tlc_" + name.str();
}
/// The source kernel name of an entry point (the inverse of
/// kernelEntryName); other names are returned as they are.
inline llvm::StringRef kernelSourceName(llvm::StringRef entry) {
  entry.consume_front("tlc_");
  return entry;
}
} // namespace tlc::tile

namespace tlc::tile::attr {

// On the module.
/// The #tile.target description of the target being compiled for.
constexpr llvm::StringLiteral kTarget = "tile.target";

// On kernels (func.func, then gpu.func).
/// Unit: the function is a kernel.
constexpr llvm::StringLiteral kKernel = "tile.kernel";
/// i64: threads per block.
constexpr llvm::StringLiteral kThreads = "tile.threads";
/// i64: blocks per thread block cluster (`cluster(c)`): blocks x, x + 1,
/// ... in groups of c run together and tile.cluster_reduce combines their
/// tiles. Absent: no clusters.
constexpr llvm::StringLiteral kClusterBlocks = "tile.cluster_blocks";
/// i64: number of grid dimensions.
constexpr llvm::StringLiteral kGridRank = "tile.grid_rank";
/// Dictionary: symbolic dimension -> [argument, dimension] uses.
constexpr llvm::StringLiteral kDims = "tile.dims";
/// Dictionary: symbolic dimension -> the value -D fixed it to.
constexpr llvm::StringLiteral kStaticDims = "tile.static_dims";
/// Dictionary: the kernel's signature for its launch stub (see
/// tlc/Stub/KernelSignature.h).
constexpr llvm::StringLiteral kSignature = "tile.signature";
/// On the module: the operations of the file (OperationSignature), for
/// their launch stubs.
constexpr llvm::StringLiteral kOperations = "tile.operations";
/// On the memref.reinterpret_cast of `view(X, ...)`: a reshaped view of a
/// tensor argument, not the argument the stub describes (no tensor copies).
constexpr llvm::StringLiteral kView = "tile.view";
/// On a gpu.barrier: orders global-memory accesses of the block
/// (tile-gpu-order-global-memory); barrier elimination keeps it.
constexpr llvm::StringLiteral kGlobalOrder = "tile.global_order";
/// Unit, on a gpu.barrier right after a wait for asynchronous MMAs: the
/// shared-memory reads of the MMAs waited for end there, so barrier
/// elimination counts a read before it (and keeps it before a write).
constexpr llvm::StringLiteral kMmaReadsDone = "tile.mma_reads_done";
/// i64: bytes of dynamic shared memory a block needs (GPU kernels).
constexpr llvm::StringLiteral kSharedBytes = "tile.shared_bytes";

// On tile fns.
/// Unit: a tile fn instance (inlined, then removed).
constexpr llvm::StringLiteral kFn = "tile.fn";

// On loops.
/// i64: `pipelined(n, stages = S)`.
constexpr llvm::StringLiteral kStages = "tile.stages";
/// i64: `range(n, unroll = U)`.
constexpr llvm::StringLiteral kUnroll = "tile.unroll";
/// i64: the stages tile-plan-pipelines chose for a pipelined loop.
constexpr llvm::StringLiteral kPipelineStages = "tile.pipeline_stages";
/// Unit: the GPU pipeliner rewrote this loop.
constexpr llvm::StringLiteral kPipelined = "tile.pipelined";

// On tile.alloc.
/// #tile.layout: the thread layout of a fragment.
constexpr llvm::StringLiteral kLayout = "tile.layout";
/// i64: byte offset of a shared tile in the block's shared memory.
constexpr llvm::StringLiteral kSharedOffset = "tile.shared_offset";
/// i64: buffers of a multi-buffered shared tile (a pipeline's stages).
constexpr llvm::StringLiteral kBuffers = "tile.buffers";
/// i64: the swizzle (32, 64 or 128 bytes) of a shared tile kept in the
/// layout the target's matrix instructions read (tile-plan-shared-memory;
/// see docs/cuda.md): the last dimension is split into rows of that many
/// bytes, and the 16-byte chunks of each row are permuted by its row.
constexpr llvm::StringLiteral kSwizzle = "tile.swizzle";
/// Type: the i4 memref type a tile had before tile-pack-sub-byte stored it
/// as bytes (for reports).
constexpr llvm::StringLiteral kPacked = "tile.packed";
/// String: why layout inference moved a fragment to shared memory.
constexpr llvm::StringLiteral kDemoted = "tile.demoted";

// On the two results of the grouped block order (tile-gpu-kernel-abi).
/// i64: the block index (0: x, column; 1: y, row) the op computes.
constexpr llvm::StringLiteral kRasterAxis = "tile.raster_axis";

// On tile.gemm.
/// i64: groups of asynchronous MMAs the gemm may leave running (the GPU
/// pipeliner waits for them where the accumulator is read).
constexpr llvm::StringLiteral kMmaInFlight = "tile.mma_in_flight";
/// Unit: the gemm's asynchronous MMAs are not waited for where they are
/// issued; convert-tile-to-gpu placed the wait before the first op that
/// needs them done (MmaWaits.cpp).
constexpr llvm::StringLiteral kMmaWaitDeferred = "tile.mma_wait_deferred";

// On tile.copy.
/// Unit: the copy is issued asynchronously by a pipelined loop.
constexpr llvm::StringLiteral kAsync = "tile.async";
/// Unit: a copy into a shared tile outside pipelined loops that is issued
/// as the target's asynchronous copies and waited for right away: all its
/// chunks are in flight at once and none passes through registers
/// (tile-plan-pipelines).
constexpr llvm::StringLiteral kAsyncOnce = "tile.async_once";
/// Unit: an asynchronous copy that runs once per loop (a pipeline's
/// prologue), lowered to fewer code paths: compile time over speed.
constexpr llvm::StringLiteral kColdCopy = "tile.cold_copy";
/// Unit: a pipelined copy the target's tensor-copy unit runs (NVIDIA's TMA),
/// completing on the loop's copy barriers (tile-plan-pipelines).
constexpr llvm::StringLiteral kTensorCopy = "tile.tensor_copy";
/// (A copy from a shared tile to a global window with tile.tensor_copy is a
/// tensor store: the unit reads the tile and writes the window while the
/// threads go on; tile-plan-pipelines stages a warp-specialized kernel's
/// accumulator stores through such a tile.)

// On a shared tile.alloc.
/// DenseI64ArrayAttr [chunk, buffers]: the tile a tensor store reads, written
/// by one copy from a register fragment right before (tile-plan-pipelines).
/// Its storage is `buffers` buffers of `chunk` of its columns: the two copies
/// go chunk by chunk, each waiting until the store that last read its
/// buffer has.
constexpr llvm::StringLiteral kStoreStaging = "tile.store_staging";

// On gpu.barrier.
/// Unit: orders the threads' shared-memory accesses against the
/// tensor-copy unit's (a wait for its reads of a tile before the tile is
/// rewritten; writes, fenced, before it reads them); barrier elimination
/// keeps it.
constexpr llvm::StringLiteral kAsyncProxyOrder = "tile.async_proxy_order";

// On a pipelined scf.for.
/// i64: byte offset in the block's dynamic shared memory of the loop's
/// copy barriers, one per stage (tile-plan-shared-memory).
constexpr llvm::StringLiteral kCopyBarriers = "tile.copy_barriers";

/// i64: threads the target adds to the block as producers of the loop's
/// tensor copies (warp specialization; tile-plan-pipelines).
constexpr llvm::StringLiteral kProducerThreads = "tile.producer_threads";
/// Unit, on a warp-specialized loop: its kernel becomes persistent, each
/// block walking the grid's tiles (tile-plan-pipelines; tile.persistent).
constexpr llvm::StringLiteral kWalksTiles = "tile.walks_tiles";
/// Unit, on the barrier ops by which the consumer warpgroups of a
/// warp-specialized loop take turns issuing its gemms (Pipeline.cpp):
/// they touch no memory, so in-flight MMAs need not be waited for there.
constexpr llvm::StringLiteral kWarpgroupTurn = "tile.warpgroup_turn";
/// i64: on the op whose region holds the code of a warp-specialized
/// kernel's computing threads: how many they are (their barriers wait for
/// them alone).
constexpr llvm::StringLiteral kConsumerThreads = "tile.consumer_threads";

// On Vulkan kernels (tile-vulkan-prepare-spirv).
/// DenseI32ArrayAttr: the push-constant block, word by word: the index of
/// each word in the ABI's list (tensor offsets, then sizes, strides and
/// scalars); the words the kernel does not read are left out.
constexpr llvm::StringLiteral kVulkanPushWords = "tile.vulkan_push_words";
/// Unit: those words are too many for push constants (more than Vulkan's
/// guaranteed 128 bytes) and come in a storage buffer at the binding after
/// the tensors.
constexpr llvm::StringLiteral kVulkanParamsBuffer = "tile.vulkan_params_buffer";

// On GPU kernels with tensor copies.
/// i64: threads per block the kernel is launched with when they differ
/// from tile.threads (producer threads added by warp specialization).
constexpr llvm::StringLiteral kBlockThreads = "tile.block_threads";
/// i64: a persistent kernel, and how many of the grid's extents (x, y and,
/// for 3, z: i64 parameters) come before its tensor maps; it is launched
/// with as many blocks as the device holds at once (or fewer), along x, and
/// each block walks the grid's blocks (x fastest, then y, then z) from its
/// index in steps of the blocks launched.
constexpr llvm::StringLiteral kPersistent = "tile.persistent";
/// String (on a CPU function): the whole-range task entry of the named
/// gemm-shaped kernel (tile-cpu-task-nest): it runs a rectangle of the
/// grid's blocks; its five trailing index arguments are bx0, bx1, by0, by1
/// and the grid's z extent. It returns an i32 status: kCPUTaskOk, or
/// kCPUTaskOutOfMemory when a panel could not be allocated (nothing
/// written).
constexpr llvm::StringLiteral kCPUTaskEntry = "tile.cpu_task_entry";
constexpr int kCPUTaskOk = 0;
constexpr int kCPUTaskOutOfMemory = 1;
/// i64: a persistent kernel that may be launched in thread-block clusters
/// of this many blocks along x when the grid's y extent is a multiple of
/// it: the blocks of a cluster take consecutive tiles (rows of one column
/// under the grouped raster) and share the copies of operand tiles that do
/// not depend on the tile's row (multicast).
constexpr llvm::StringLiteral kClusterRows = "tile.cluster_rows";
/// String: the entry of the same kernel without tensor copies (launched
/// when a tensor breaks the tensor-copy unit's rules).
constexpr llvm::StringLiteral kFallback = "tile.fallback";
/// Array of dictionaries {param, box, swizzle}: the kernel's trailing
/// parameters are tensor maps (descriptors the host builds), one per entry:
/// of the tensor whose data pointer is parameter `param`, copied in boxes
/// of `box` elements (outermost first) into tiles swizzled by `swizzle`
/// bytes.
constexpr llvm::StringLiteral kTensorMaps = "tile.tensor_maps";
/// Unit, on a memref.extract_aligned_pointer_as_index of a shared tile: the
/// address only reads the tile (a matrix descriptor), which
/// tile-gpu-eliminate-barriers then counts as a read, not as any access.
constexpr llvm::StringLiteral kReadOnlyAddress = "tile.read_only_address";

// On gpu.module.
/// String: the gpu.module tile-gpu-split-kernels moved this one's kernel
/// out of, and tile-gpu-merge-kernels moves it back into.
constexpr llvm::StringLiteral kSplitFrom = "tile.split_from";

} // namespace tlc::tile::attr

#endif // TLC_DIALECT_TILE_IR_ATTRNAMES_H
