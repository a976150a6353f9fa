//===- ExpandF8.cpp - tile-expand-f8 --------------------------------------===//
//
// The 8-bit floats reach the targets only as bytes: conversions and
// constants become integer operations on their bits (TileUtils'
// decodeF8ToF32 / encodeF32ToF8).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/IR/TileUtils.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEEXPANDF8
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using tlc::tile::isF8Type;

namespace {

bool hasF8(Type t) { return isF8Type(getElementTypeOrSelf(t)); }

/// `c` (an f8 constant) as i8 bits and a bitcast back to its type.
Value expandConstant(OpBuilder &b, arith::ConstantOp c) {
  Type i8 = b.getI8Type();
  TypedAttr bits;
  if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue()))
    bits = b.getIntegerAttr(i8, f.getValue().bitcastToAPInt());
  else if (auto dense = llvm::dyn_cast<DenseFPElementsAttr>(c.getValue()))
    bits = llvm::cast<TypedAttr>(dense.bitcast(i8));
  else
    return {};
  Value raw = arith::ConstantOp::create(b, c.getLoc(), bits);
  return arith::BitcastOp::create(b, c.getLoc(), c.getType(), raw);
}

struct TileExpandF8 : public tlc::tile::impl::TileExpandF8Base<TileExpandF8> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> work;
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (!llvm::isa_and_nonnull<arith::ArithDialect>(op->getDialect()))
        return;
      bool f8 = llvm::any_of(op->getOperandTypes(), hasF8) ||
                llvm::any_of(op->getResultTypes(), hasF8);
      if (!f8 || llvm::isa<arith::SelectOp, arith::BitcastOp>(op))
        return;
      if (!llvm::isa<arith::ExtFOp, arith::TruncFOp, arith::ConstantOp>(op)) {
        op->emitOpError("on 8-bit floats: tlc computes in f32 and only "
                        "converts, moves and selects f8 values");
        failed = true;
        return;
      }
      work.push_back(op);
    });
    if (failed)
      return signalPassFailure();
    for (Operation *op : work) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value replacement;
      if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
        replacement = expandConstant(b, c);
        if (!replacement) {
          op->emitOpError("with an f8 value of an unexpected form");
          return signalPassFailure();
        }
      } else if (auto ext = llvm::dyn_cast<arith::ExtFOp>(op)) {
        // f8 -> wider: decode (an f8 is never the result of an extf).
        Value wide = tlc::tile::decodeF8ToF32(b, loc, ext.getIn());
        replacement = tlc::tile::castElements(
            b, loc, wide, getElementTypeOrSelf(ext.getType()));
      } else {
        auto trunc = llvm::cast<arith::TruncFOp>(op);
        auto f8 = llvm::cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
        Value narrow =
            tlc::tile::castElements(b, loc, trunc.getIn(), b.getF32Type());
        replacement = tlc::tile::encodeF32ToF8(b, loc, narrow, f8);
      }
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  }
};
} // namespace
