//===- PlanPipelines.cpp - tile-plan-pipelines: what pipelined loops overlap
//===//
//
// Marks the producer copies of each `pipelined` loop (tile.async; also
// tile.tensor_copy where the target's tensor-copy unit can run them) and the
// stages the loop keeps (tile.pipeline_stages), fewer when the buffers would
// not fit in shared memory; warp-specializes a loop that suits it, and
// stages a persistent kernel's accumulator stores for the tensor-copy unit.
// The other copies from global memory into shared tiles are marked to run
// as asynchronous copies waited for at once (tile.async_once).
// convert-tile-to-gpu builds the pipelines.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "SharedMemory.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc {
#define GEN_PASS_DEF_TILEPLANPIPELINES
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

struct TilePlanPipelines
    : public tlc::impl::TilePlanPipelinesBase<TilePlanPipelines> {
  using Base::Base;

  void runOnOperation() override {
    tile::TargetAttr target = tile::getTarget(getOperation());
    if (!target)
      return;
    if (!target.getAsyncCopy()) {
      // Pipelined loops stay plain loops (tlc --remarks says so).
      getOperation().walk([&](scf::ForOp loop) {
        int64_t asked = askedStages(loop);
        if (asked >= 2)
          loop->emitRemark() << "loop is not pipelined (asked for " << asked
                             << " stages): " << target.getArch().str()
                             << " has no asynchronous copies";
      });
      return;
    }
    std::unique_ptr<GPUTargetInfo> info = createGPUTargetInfo(target);
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func->hasAttr(tile::attr::kThreads))
        return;
      swizzleMmaOperands(func, target);
      plan(func, target.getMaxSharedBytes(), info.get());
      specialize(func, target.getMaxThreads(), info.get());
      walkTiles(func, info.get());
      refit(func, target.getMaxSharedBytes(), info.get());
      for (const PipelinedLoop &p : plannedPipelines(func))
        if (p.loop->hasAttr(tile::attr::kProducerThreads))
          stageStores(func, p.loop, target.getMaxSharedBytes(), info.get());
      markAsyncOnce(func);
    });
  }

  /// The other copies from global memory into shared tiles become
  /// asynchronous copies waited for at once (tile.async_once): a thread then
  /// has all its chunks in flight, where loads through registers go one
  /// chunk per loop iteration. Not inside a pipelined loop, whose groups a
  /// wait for everything would drain.
  static void markAsyncOnce(gpu::GPUFuncOp func) {
    func.walk([&](tile::CopyOp copy) {
      if (copy->hasAttr(tile::attr::kAsync) ||
          copy->hasAttr(tile::attr::kTensorCopy) || !asyncCopyable(copy))
        return;
      bool inLoop = false;
      for (Operation *up = copy->getParentOp(); up != func;
           up = up->getParentOp()) {
        if (up->hasAttr(tile::attr::kPipelineStages))
          return;
        inLoop |= llvm::isa<LoopLikeOpInterface>(up);
      }
      copy->setAttr(tile::attr::kAsyncOnce, UnitAttr::get(copy.getContext()));
      // A copy that runs once gets the fewer code paths of a pipeline's
      // prologue (compile time over speed).
      if (!inLoop)
        copy->setAttr(tile::attr::kColdCopy, UnitAttr::get(copy.getContext()));
    });
  }

  /// The stages the source asks for (`pipelined(..., stages = N)`); 0 for
  /// other loops.
  static int64_t askedStages(scf::ForOp loop) {
    auto stages = loop->getAttrOfType<IntegerAttr>(tile::attr::kStages);
    return stages ? stages.getInt() : 0;
  }

  /// Whether `v` can be recomputed anywhere in the kernel: from kernel
  /// arguments and loop indices through pure ops. With `sameInEveryBlock`,
  /// from kernel arguments alone and without a block index: then `v` is
  /// the same in every block of the grid.
  static bool recomputable(Value v, llvm::DenseSet<Value> &seen,
                           bool sameInEveryBlock = false) {
    if (!seen.insert(v).second)
      return true;
    if (auto arg = llvm::dyn_cast<BlockArgument>(v))
      return !sameInEveryBlock ||
             llvm::isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
    Operation *def = v.getDefiningOp();
    if (sameInEveryBlock && llvm::isa<gpu::BlockIdOp>(def))
      return false;
    return isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
           llvm::all_of(def->getOperands(), [&](Value operand) {
             return recomputable(operand, seen, sameInEveryBlock);
           });
  }

  /// Warp specialization (tile.producer_threads on the loop): the kernel's
  /// one pipelined loop, at its top level, copying only with tensor copies
  /// that producer threads can issue on their own, for gemms on
  /// asynchronous MMAs, in a kernel of at least two producers' worth of
  /// threads.
  void specialize(gpu::GPUFuncOp func, int64_t maxThreads,
                  const GPUTargetInfo *info) {
    int64_t producers = info ? info->producerThreads() : 0;
    int64_t threads =
        func->getAttrOfType<IntegerAttr>(tile::attr::kThreads).getInt();
    SmallVector<PipelinedLoop> pipelines = plannedPipelines(func);
    // With one warpgroup of consumers two blocks share an SM and hide each
    // other's latency better than a producer would (measured on the H200);
    // from two on, a block fills the SM's registers anyway.
    // A cluster's reductions synchronize every thread of its blocks, which
    // a producer warpgroup looping on its own would never join.
    if (!producers || threads < 2 * producers ||
        threads + producers > maxThreads || pipelines.size() != 1 ||
        func->hasAttr(tile::attr::kClusterBlocks))
      return;
    PipelinedLoop p = pipelines.front();
    if (p.loop->getBlock() != &func.getBody().front() ||
        llvm::any_of(p.producers,
                     [](tile::CopyOp copy) {
                       return !copy->hasAttr(tile::attr::kTensorCopy);
                     }) ||
        llvm::none_of(
            p.loop.getBody()->getOps<tile::GemmOp>(),
            [&](tile::GemmOp gemm) { return info->mmaIsAsync(gemm); }))
      return;
    llvm::DenseSet<Value> seen;
    for (tile::CopyOp copy : p.producers) {
      // The producer warps recompute origins, not views made in the loop.
      Operation *view = copy.getSource().getDefiningOp();
      if ((view && p.loop->isProperAncestor(view)) ||
          !recomputable(copy.getSource(), seen) ||
          !llvm::all_of(copy.getSourceIndices(),
                        [&](Value v) { return recomputable(v, seen); }))
        return;
    }
    p.loop->setAttr(
        tile::attr::kProducerThreads,
        IntegerAttr::get(IntegerType::get(func.getContext(), 64), producers));
  }

  /// 32-bit registers per thread that the kernel's register fragments take.
  static int64_t fragmentRegisters(gpu::GPUFuncOp func) {
    int64_t registers = 0;
    func.walk([&](tile::AllocOp alloc) {
      auto attr = alloc->getAttrOfType<tile::LayoutAttr>(tile::attr::kLayout);
      MemRefType type = alloc.getType();
      if (!attr || tile::getScope(type) != tile::MemScope::fragment)
        return;
      int64_t slots =
          tile::FragmentLayout::fromAttr(attr, type.getRank()).numSlots();
      int64_t bits = type.getElementType().getIntOrFloatBitWidth();
      registers += llvm::divideCeil(slots * bits, 32);
    });
    return registers;
  }

  /// A warp-specialized kernel becomes persistent (tile.walks_tiles on its
  /// loop): its blocks walk the grid's tiles, so that the producer fills
  /// the next tile's stages while the consumers finish one. Not with
  /// `cluster(...)`; only on 2-D and
  /// 3-D grids whose blocks all run the loop equally often (a fixed walk
  /// balances equal tiles only: flash_attention.tl's causal loop, which
  /// ends at the diagonal, keeps a block per tile, started by the hardware
  /// as others finish), and where the fragments leave the consumers at
  /// least kTileWalkRegisters registers for the walk's bookkeeping and the
  /// values it keeps across tiles: flash_attention_bwd.tl's fragments take
  /// 228 of 232, and persistent it spilled 412 bytes against 56.
  static constexpr int64_t kTileWalkRegisters = 32;
  void walkTiles(gpu::GPUFuncOp func, const GPUTargetInfo *info) {
    auto rank = func->getAttrOfType<IntegerAttr>(tile::attr::kGridRank);
    if (!info || !rank || rank.getInt() < 2 || rank.getInt() > 3)
      return;
    // The blocks of a `cluster(...)` kernel are its clusters' members: a
    // block index stands for one.
    if (func->hasAttr(tile::attr::kClusterBlocks))
      return;
    int64_t consumers =
        func->getAttrOfType<IntegerAttr>(tile::attr::kThreads).getInt();
    if (fragmentRegisters(func) + kTileWalkRegisters >
        info->consumerRegisters(consumers))
      return;
    for (const PipelinedLoop &p : plannedPipelines(func)) {
      scf::ForOp loop = p.loop;
      llvm::DenseSet<Value> seen;
      if (!loop->hasAttr(tile::attr::kProducerThreads) ||
          !llvm::all_of(ValueRange{loop.getLowerBound(), loop.getUpperBound(),
                                   loop.getStep()},
                        [&](Value v) {
                          return recomputable(v, seen,
                                              /*sameInEveryBlock=*/true);
                        }))
        continue;
      loop->setAttr(tile::attr::kWalksTiles, UnitAttr::get(func.getContext()));
    }
  }

  /// Whether the target's tensor-copy unit can run producer `copy`.
  static bool tensorCopies(tile::CopyOp copy, const GPUTargetInfo *info) {
    if (!info || !copy.getGathers().empty()) // (TMA gather4: not yet)
      return false;
    auto swizzle = copy.getDest().getDefiningOp()->getAttrOfType<IntegerAttr>(
        tile::attr::kSwizzle);
    return info->canTensorCopy(copy, swizzle ? swizzle.getInt() : 0);
  }

  /// A persistent kernel (walksTiles) keeps every shared tile live
  /// throughout (planSharedMemory): where the tiles then no longer fit, the
  /// loop gives up stages (down to 2), then persistence (the stages plan()
  /// fitted come back).
  void refit(gpu::GPUFuncOp func, int64_t maxSharedBytes,
             const GPUTargetInfo *info) {
    Block &entry = func.getBody().front();
    SmallVector<PipelinedLoop> pipelines = plannedPipelines(func);
    for (PipelinedLoop &p : pipelines) {
      if (!p.loop->hasAttr(tile::attr::kProducerThreads) ||
          sharedFootprint(entry, pipelines, info) <= maxSharedBytes)
        continue;
      int64_t before = p.stages;
      while (sharedFootprint(entry, pipelines, info) > maxSharedBytes &&
             p.stages > 2)
        --p.stages;
      if (sharedFootprint(entry, pipelines, info) > maxSharedBytes) {
        p.stages = before;
        p.loop->removeAttr(tile::attr::kWalksTiles);
        continue;
      }
      p.loop->setAttr(
          tile::attr::kPipelineStages,
          IntegerAttr::get(IntegerType::get(func.getContext(), 64), p.stages));
      p.loop->emitRemark() << "pipelined loop runs " << p.stages
                           << " stages instead of " << before << " in kernel '"
                           << tile::kernelSourceName(func.getName())
                           << "': its shared tiles stay live across the tiles "
                              "of the persistent kernel";
    }
  }

  /// The shared memory of the kernel whose body is `entry`: its tiles, with
  /// `pipelined`'s buffers, and the copy barriers of loops with tensor
  /// copies.
  static int64_t sharedFootprint(Block &entry,
                                 ArrayRef<PipelinedLoop> pipelined,
                                 const GPUTargetInfo *info) {
    llvm::DenseMap<Value, int64_t> stagesOf;
    int64_t barrierBytes = 0;
    for (const PipelinedLoop &p : pipelined) {
      for (tile::CopyOp copy : p.producers)
        stagesOf[copy.getDest()] = p.stages;
      if (llvm::any_of(p.producers, [&](tile::CopyOp copy) {
            return tensorCopies(copy, info);
          }))
        // (full and, with warp specialization, empty barriers)
        barrierBytes += 2 * p.stages * GPUTargetInfo::kCopyBarrierBytes;
    }
    return llvm::alignTo(planSharedMemory(entry, stagesOf).bytes,
                         GPUTargetInfo::kCopyBarrierBytes) +
           barrierBytes;
  }

  /// Whether `copy` is the only op of the kernel whose body is `entry` that
  /// touches its destination tensor: a tensor store's writes are ordered
  /// with nothing the threads do after it.
  static bool onlyAccessTo(Block &entry, tile::CopyOp copy) {
    Value root = globalRoot(copy.getDest());
    return root && llvm::none_of(entry, [&](Operation &op) {
             if (&op == copy.getOperation())
               return false;
             GlobalAccess access = globalAccessOf(&op);
             return access.reads.contains(root) ||
                    access.writes.contains(root) ||
                    access.atomics.contains(root);
           });
  }

  /// A warp-specialized kernel's copies of register fragments (its gemm
  /// accumulators) to windows of 2-byte tensors after its loop become
  /// tensor stores from a swizzled shared tile where the kernel becomes
  /// persistent (walksTiles): the threads write the tile and go on with
  /// their next tile while the target's tensor-copy unit writes it out. The
  /// tile is kept in buffers of a part of its columns where the whole does
  /// not fit beside the loop's stages (tile.store_staging): the whole tile
  /// in one buffer, else the largest chunk of which two buffers fit (the
  /// tile a multiple of both), else one; none where even one swizzle atom's
  /// columns do not fit, where a chunk's elements are not the same slots in
  /// every thread, or where the kernel touches the tensor elsewhere.
  void stageStores(gpu::GPUFuncOp func, scf::ForOp loop, int64_t maxSharedBytes,
                   const GPUTargetInfo *info) {
    constexpr int64_t kStagingSwizzle = 128;
    if (!walksTiles(loop))
      return;
    bool reduces =
        func.walk([](tile::ReduceOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    MLIRContext *ctx = func.getContext();
    OpBuilder b(ctx);
    Block &entry = func.getBody().front();
    SmallVector<PipelinedLoop> pipelines = plannedPipelines(func);
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
      auto copy = llvm::dyn_cast<tile::CopyOp>(op);
      if (!copy ||
          tile::getScope(memrefType(copy.getSource())) !=
              tile::MemScope::fragment ||
          !info->canTensorStore(copy, kStagingSwizzle))
        continue;
      // What keeps a store from registers (tlc --remarks).
      auto refuse = [&](llvm::StringRef why) {
        copy->emitRemark() << "accumulator store of kernel '"
                           << tile::kernelSourceName(func.getName())
                           << "' stays a store from registers: " << why;
      };
      auto layoutAttr =
          copy.getSource().getDefiningOp()->getAttrOfType<tile::LayoutAttr>(
              tile::attr::kLayout);
      if (!layoutAttr)
        continue;
      // (2-byte results only for now: those are the ones run against
      // references on a GPU, bench/RESULTS.md 2026-12-05.)
      if (memrefType(copy.getDest()).getElementTypeBitWidth() != 16) {
        refuse("tensor stores are staged for 2-byte results only so far");
        continue;
      }
      // Reductions take scratch after the tiles (placed by the lowering),
      // and a staging tile would leave them too little room.
      if (reduces) {
        refuse("the kernel reduces, and its scratch needs the shared memory "
               "a staging tile would take");
        continue;
      }
      if (!onlyAccessTo(entry, copy)) {
        refuse("the kernel accesses the tensor elsewhere, and a tensor store "
               "is not ordered with that");
        continue;
      }
      tile::FragmentLayout layout =
          tile::FragmentLayout::fromAttr(layoutAttr, 2);
      Location loc = copy.getLoc();
      ArrayRef<int64_t> shape = memrefType(copy.getSource()).getShape();
      Type elem = memrefType(copy.getDest()).getElementType();
      int64_t cols = shape[1];
      int64_t atomCols = kStagingSwizzle / (elem.getIntOrFloatBitWidth() / 8);
      SmallVector<std::pair<int64_t, int64_t>> choices = {{cols, 1}};
      for (int64_t count : {2, 1})
        for (int64_t chunk = cols / 2; chunk >= atomCols; chunk /= 2)
          choices.push_back({chunk, count});
      b.setInsertionPointToStart(&entry);
      auto tile = tile::AllocOp::create(
          b, loc, tile::getTileType(shape, elem, tile::MemScope::shared));
      tile->setAttr(tile::attr::kSwizzle, b.getI64IntegerAttr(kStagingSwizzle));
      bool fits = false;
      for (auto [chunk, count] : choices) {
        if (chunk % atomCols || cols % (chunk * count) ||
            !slotColumnBlocks(layout, chunk))
          continue;
        tile->setAttr(tile::attr::kStoreStaging,
                      b.getDenseI64ArrayAttr({chunk, count}));
        if (sharedFootprint(entry, pipelines, info) <= maxSharedBytes) {
          fits = true;
          break;
        }
      }
      if (!fits) {
        tile.erase();
        refuse("no staging tile of whole 128-byte column chunks fits in "
               "shared memory beside the pipeline's stages");
        continue;
      }
      b.setInsertionPoint(copy);
      auto write = tile::CopyOp::create(b, loc, copy.getSource(), ValueRange(),
                                        tile, ValueRange());
      write.setSourceUnsigned(copy.getSourceUnsigned());
      write.setDestUnsigned(copy.getDestUnsigned());
      copy.getSourceMutable().assign(tile);
      copy.setSourceUnsigned(copy.getDestUnsigned());
      copy->setAttr(tile::attr::kTensorCopy, UnitAttr::get(ctx));
    }
  }

  void plan(gpu::GPUFuncOp func, int64_t maxSharedBytes,
            const GPUTargetInfo *info) {
    SmallVector<PipelinedLoop> pipelined = findPipelinedLoops(func);
    Block &entry = func.getBody().front();
    auto footprint = [&]() { return sharedFootprint(entry, pipelined, info); };
    // The bytes of one buffer of each producer tile of `p`.
    auto bufferBytes = [](const PipelinedLoop &p) {
      int64_t bytes = 0;
      for (tile::CopyOp copy : p.producers) {
        auto swizzle =
            copy.getDest().getDefiningOp()->getAttrOfType<IntegerAttr>(
                tile::attr::kSwizzle);
        bytes +=
            sharedTileBytes(llvm::cast<MemRefType>(copy.getDest().getType()), 0,
                            swizzle ? swizzle.getInt() : 0);
      }
      return bytes;
    };
    // Fewer stages (at least 2), then no pipelining, while the buffers do
    // not fit: the loop with the most stages first, of those the one with the
    // largest buffers.
    SmallVector<PipelinedLoop> requested = pipelined;
    int64_t requestedBytes = footprint();
    while (!pipelined.empty() && footprint() > maxSharedBytes) {
      auto deepest = llvm::max_element(
          pipelined, [&](const PipelinedLoop &a, const PipelinedLoop &b) {
            return std::make_pair(a.stages, bufferBytes(a)) <
                   std::make_pair(b.stages, bufferBytes(b));
          });
      if (deepest->stages > 2)
        --deepest->stages;
      else
        pipelined.erase(deepest);
    }
    // What the source asked for and did not get (tlc --remarks): copies
    // that stay synchronous, then stages.
    func.walk([&](scf::ForOp loop) {
      if (askedStages(loop) < 2)
        return;
      for (auto copy : loop.getBody()->getOps<tile::CopyOp>()) {
        if (copy.getSourceIndices().empty() ||
            tile::getScope(copy.getSource().getType()))
          continue;
        bool origin = originIssuableAhead(loop, copy);
        bool source = sourceWrittenIn(loop, copy);
        if (origin && !source && !gatherIndexWrittenIn(loop, copy))
          continue;
        InFlightDiagnostic remark = copy->emitRemark();
        remark << "copy is not issued ahead in the pipelined loop of kernel '"
               << tile::kernelSourceName(func.getName()) << "': ";
        if (!origin)
          remark << "its window's origin depends on a value read from "
                    "memory in the loop (a var the loop writes, or a tensor "
                    "the kernel writes)";
        else if (source)
          remark << "the loop writes the tensor it reads";
        else
          remark << "the loop writes an index tile of its gather (compute "
                    "the rows before the loop and shift them with an "
                    "offset: X[rows[:] + k, ...])";
      }
    });
    for (const PipelinedLoop &r : requested) {
      auto kept = llvm::find_if(
          pipelined, [&](const PipelinedLoop &p) { return p.loop == r.loop; });
      int64_t stages = kept == pipelined.end() ? 0 : kept->stages;
      int64_t asked = askedStages(r.loop);
      if (stages == asked)
        continue;
      InFlightDiagnostic remark = r.loop->emitRemark();
      if (stages)
        remark << "pipelined loop runs " << stages << " stages instead of "
               << asked;
      else
        remark << "loop is not pipelined (asked for " << asked << " stages)";
      remark << " in kernel '" << tile::kernelSourceName(func.getName())
             << "': ";
      if (stages == r.stages) // only the cap
        remark << "tlc pipelines at most " << r.stages << " stages";
      else
        remark << "with " << r.stages << " stages the kernel's tiles need "
               << requestedBytes << " bytes of shared memory; the target has "
               << maxSharedBytes;
    }
    OpBuilder b(func.getContext());
    for (const PipelinedLoop &p : pipelined) {
      p.loop->setAttr(tile::attr::kPipelineStages,
                      b.getI64IntegerAttr(p.stages));
      for (tile::CopyOp copy : p.producers) {
        copy->setAttr(tile::attr::kAsync, b.getUnitAttr());
        if (tensorCopies(copy, info))
          copy->setAttr(tile::attr::kTensorCopy, b.getUnitAttr());
      }
    }
  }
};

} // namespace
