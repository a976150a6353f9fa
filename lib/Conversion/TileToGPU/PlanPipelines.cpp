//===- PlanPipelines.cpp - tile-plan-pipelines: what pipelined loops overlap
//===//
//
// Marks the producer copies of each `pipelined` loop (tile.async) and the
// stages the loop keeps (tile.pipeline_stages), fewer when the buffers would
// not fit in shared memory. convert-tile-to-gpu builds the pipelines.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "SharedMemory.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

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
    if (!target || !target.getAsyncCopy())
      return; // pipelined loops stay plain loops
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func->hasAttr(tile::attr::kThreads))
        return;
      swizzleMmaOperands(func, target);
      plan(func, target.getMaxSharedBytes());
    });
  }

  void plan(gpu::GPUFuncOp func, int64_t maxSharedBytes) {
    SmallVector<PipelinedLoop> pipelined = findPipelinedLoops(func);
    Block &entry = func.getBody().front();
    auto footprint = [&]() {
      llvm::DenseMap<Value, int64_t> stagesOf;
      for (const PipelinedLoop &p : pipelined)
        for (tile::CopyOp copy : p.producers)
          stagesOf[copy.getDest()] = p.stages;
      return planSharedMemory(entry, stagesOf).bytes;
    };
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
    OpBuilder b(func.getContext());
    for (const PipelinedLoop &p : pipelined) {
      p.loop->setAttr(tile::attr::kPipelineStages,
                      b.getI64IntegerAttr(p.stages));
      for (tile::CopyOp copy : p.producers)
        copy->setAttr(tile::attr::kAsync, b.getUnitAttr());
    }
  }
};

} // namespace
