//===- PlanSharedMemory.cpp - tile-plan-shared-memory: tile offsets -------===//
//
// Records where each shared tile of a GPU kernel lives in the block's
// dynamic shared memory (SharedMemory.cpp has the placement rule), and the
// copy barriers of pipelines with tensor copies (behind the tiles).
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "SharedMemory.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

namespace tlc {
#define GEN_PASS_DEF_TILEPLANSHAREDMEMORY
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

struct TilePlanSharedMemory
    : public tlc::impl::TilePlanSharedMemoryBase<TilePlanSharedMemory> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func->hasAttr(tile::attr::kThreads))
        return;
      swizzleMmaOperands(func, tile::getTarget(getOperation()));
      // Multi-buffered tiles: the stages of the pipeline that fills them.
      llvm::DenseMap<Value, int64_t> stagesOf;
      SmallVector<PipelinedLoop> pipelines = plannedPipelines(func);
      for (const PipelinedLoop &p : pipelines)
        for (tile::CopyOp copy : p.producers)
          stagesOf[copy.getDest()] = p.stages;
      SharedPlan plan = planSharedMemory(func.getBody().front(), stagesOf);
      OpBuilder b(func.getContext());
      for (auto &[value, offset] : plan.offsets) {
        Operation *alloc = value.getDefiningOp();
        alloc->setAttr(tile::attr::kSharedOffset, b.getI64IntegerAttr(offset));
        if (int64_t stages = stagesOf.lookup(value))
          alloc->setAttr(tile::attr::kBuffers, b.getI64IntegerAttr(stages));
      }
      int64_t bytes = plan.bytes;
      for (const PipelinedLoop &p : pipelines) {
        if (llvm::none_of(p.producers, [](tile::CopyOp copy) {
              return copy->hasAttr(tile::attr::kTensorCopy);
            }))
          continue;
        bytes = llvm::alignTo(bytes, GPUTargetInfo::kCopyBarrierBytes);
        p.loop->setAttr(tile::attr::kCopyBarriers, b.getI64IntegerAttr(bytes));
        // Full barriers; warp specialization adds as many empty ones.
        int64_t perStage =
            p.loop->hasAttr(tile::attr::kProducerThreads) ? 2 : 1;
        bytes += perStage * p.stages * GPUTargetInfo::kCopyBarrierBytes;
      }
      func->setAttr(tile::attr::kSharedBytes, b.getI64IntegerAttr(bytes));
    });
  }
};

} // namespace
