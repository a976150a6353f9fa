//===- FastExp2.cpp - tile-nvvm-fast-exp2 ---------------------------------===//
//
// Softmax and attention take one exp2 per score: the subnormal-exact
// ex2.approx.f32 costs a compare and two multiplies besides the MUFU.EX2,
// a third of the non-MMA instructions of a FlashAttention step.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace tlc {
#define GEN_PASS_DEF_TILENVVMFASTEXP2
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

struct TileNVVMFastExp2
    : public tlc::impl::TileNVVMFastExp2Base<TileNVVMFastExp2> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<math::Exp2Op> ops;
    getOperation().walk([&](math::Exp2Op op) {
      if (op.getType().isF32())
        ops.push_back(op);
    });
    for (math::Exp2Op op : ops) {
      OpBuilder b(op);
      auto call = LLVM::CallIntrinsicOp::create(
          b, op.getLoc(), op.getType(),
          b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
          ValueRange{op.getOperand()});
      op.replaceAllUsesWith(call.getResult(0));
      op.erase();
    }
  }
};

} // namespace
