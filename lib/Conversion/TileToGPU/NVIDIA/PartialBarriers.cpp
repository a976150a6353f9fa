//===- PartialBarriers.cpp - tile-nvvm-partial-barriers -------------------===//
//
// Warp specialization leaves the producer warpgroup outside the consumers'
// code: a block-wide barrier there would wait forever for it.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tlc {
#define GEN_PASS_DEF_TILENVVMPARTIALBARRIERS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

/// Barrier 0 is the block's (bar.sync 0); the consumers use the next one.
constexpr int32_t kConsumerBarrier = 1;

struct TileNVVMPartialBarriers
    : public tlc::impl::TileNVVMPartialBarriersBase<TileNVVMPartialBarriers> {
  using Base::Base;

  void runOnOperation() override {
    // While a warpgroup holds its turn (between its turn barrier and the
    // arrival that passes the turn on, Pipeline.cpp), the next one waits
    // for it: a barrier of all consumers there would never complete.
    WalkResult turns = getOperation().walk([&](Block *block) {
      Operation *held = nullptr;
      for (Operation &op : *block) {
        if (op.hasAttr(tile::attr::kWarpgroupTurn))
          held = llvm::isa<NVVM::BarrierOp>(op) ? &op : nullptr;
        else if (held && op.walk([](gpu::BarrierOp) {
                             return WalkResult::interrupt();
                           }).wasInterrupted()) {
          op.emitError("a barrier of all consumers inside a warpgroup's "
                       "turn would never complete");
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (turns.wasInterrupted())
      return signalPassFailure();
    SmallVector<std::pair<gpu::BarrierOp, int64_t>> barriers;
    getOperation().walk([&](Operation *op) {
      auto threads =
          op->getAttrOfType<IntegerAttr>(tile::attr::kConsumerThreads);
      if (!threads)
        return;
      op->walk([&](gpu::BarrierOp barrier) {
        barriers.push_back({barrier, threads.getInt()});
      });
    });
    for (auto [barrier, threads] : barriers) {
      if (threads % 32 != 0) {
        barrier.emitError("consumer threads (")
            << threads << ") are not whole warps";
        return signalPassFailure();
      }
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      auto i32 = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
      };
      NVVM::BarrierOp::create(b, loc, /*res=*/Type(), i32(kConsumerBarrier),
                              i32(threads), /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
      barrier.erase();
    }
  }
};

} // namespace
