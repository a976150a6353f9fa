//===- ExpandBF16Truncf.cpp - tile-expand-bf16-truncf
//----------------------===//
//
// f32 -> bf16 truncations rounded in integer operations, for targets that
// have no native conversion (the rounding is TileUtils' roundF32ToBF16).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/IR/TileUtils.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEEXPANDBF16TRUNCF
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;

namespace {
struct TileExpandBF16Truncf
    : public tlc::tile::impl::TileExpandBF16TruncfBase<TileExpandBF16Truncf> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<arith::TruncFOp> truncs;
    getOperation()->walk([&](arith::TruncFOp op) {
      if (getElementTypeOrSelf(op.getType()).isBF16() &&
          getElementTypeOrSelf(op.getIn().getType()).isF32())
        truncs.push_back(op);
    });
    for (arith::TruncFOp op : truncs) {
      OpBuilder b(op);
      op.replaceAllUsesWith(
          tlc::tile::roundF32ToBF16(b, op.getLoc(), op.getIn()));
      op.erase();
    }
  }
};
} // namespace
