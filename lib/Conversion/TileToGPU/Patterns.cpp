//===- Patterns.cpp - The tile op lowerings as rewrite patterns -----------===//
//
// One pattern per tile op. Each puts a barrier after its op when the op
// touches shared memory (tile-gpu-eliminate-barriers later removes the
// ones that order nothing; asynchronous copies are synchronized by their
// pipeline), emits the op's SIMT code through KernelLowering (Ops.cpp, with
// the vendor's parts behind GPUTargetInfo) and erases it.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

bool gpu_lowering::touchesShared(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isWorkgroup(v))
        found = true;
  });
  return found;
}

namespace {

template <typename OpT, void (KernelLowering::*Lower)(OpT)>
struct TileOpLowering : public OpRewritePattern<OpT> {
  TileOpLowering(MLIRContext *ctx, KernelLowering &k)
      : OpRewritePattern<OpT>(ctx), k(k) {}

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (touchesShared(op) && !op->hasAttr(tile::attr::kAsync)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(op);
      gpu::BarrierOp::create(rewriter, op.getLoc());
    }
    (k.*Lower)(op);
    rewriter.eraseOp(op);
    return success();
  }

  KernelLowering &k;
};

} // namespace

void gpu_lowering::populateTileToGPUPatterns(RewritePatternSet &patterns,
                                             KernelLowering &k) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<TileOpLowering<tile::FillOp, &KernelLowering::lowerFill>,
           TileOpLowering<tile::CopyOp, &KernelLowering::lowerCopy>,
           TileOpLowering<tile::ParallelOp, &KernelLowering::lowerParallel>,
           TileOpLowering<tile::ReduceOp, &KernelLowering::lowerReduce>,
           TileOpLowering<tile::GemmOp, &KernelLowering::lowerGemm>,
           TileOpLowering<tile::AtomicAddOp, &KernelLowering::lowerAtomicAdd>,
           TileOpLowering<tile::ClusterReduceOp,
                          &KernelLowering::lowerClusterReduce>>(ctx, k);
}
