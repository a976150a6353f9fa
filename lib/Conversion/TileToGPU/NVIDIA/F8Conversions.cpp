//===- F8Conversions.cpp - tile-nvvm-f8-conversions -----------------------===//
//
// sm_89 and newer convert between f32 and the 8-bit floats in hardware, two
// values per cvt: one instruction where tile-expand-f8's integer sequence
// takes about twenty.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace tlc {
#define GEN_PASS_DEF_TILENVVMF8CONVERSIONS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

/// The lanes of `v` (one for a scalar).
SmallVector<Value> lanesOf(OpBuilder &b, Location loc, Value v) {
  auto vt = llvm::dyn_cast<VectorType>(v.getType());
  if (!vt)
    return {v};
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    lanes.push_back(vector::ExtractOp::create(b, loc, v, i));
  return lanes;
}

/// `lanes` as a value of `type` (a vector of them, or the one scalar).
Value fromLanes(OpBuilder &b, Location loc, Type type, ArrayRef<Value> lanes) {
  if (llvm::isa<VectorType>(type))
    return vector::FromElementsOp::create(b, loc, type, lanes);
  return lanes.front();
}

/// f32 lanes -> f8 lanes, two per cvt (the first of a pair in the low byte).
Value truncToF8(OpBuilder &b, Location loc, Value v, Type resultType,
                FloatType f8) {
  SmallVector<Value> in = lanesOf(b, loc, v), out;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  auto pairType = VectorType::get({2}, b.getI8Type());
  for (size_t i = 0; i < in.size(); i += 2) {
    Value lo = in[i], hi = i + 1 < in.size() ? in[i + 1] : zero;
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, pairType, hi, lo, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, f8);
    for (int64_t e = 0; e < 2 && i + e < in.size(); ++e) {
      Value byte = vector::ExtractOp::create(b, loc, pair, e);
      out.push_back(arith::BitcastOp::create(b, loc, f8, byte));
    }
  }
  return fromLanes(b, loc, resultType, out);
}

/// f8 lanes -> lanes of `resultType`'s element type, through f16 (exact).
Value extFromF8(OpBuilder &b, Location loc, Value v, Type resultType) {
  Type elem = getElementTypeOrSelf(v.getType());
  Type to = getElementTypeOrSelf(resultType);
  SmallVector<Value> in = lanesOf(b, loc, v), out;
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  auto pairType = VectorType::get({2}, b.getI8Type());
  auto halfPair = VectorType::get({2}, b.getF16Type());
  for (size_t i = 0; i < in.size(); i += 2) {
    Value lo = arith::BitcastOp::create(b, loc, b.getI8Type(), in[i]);
    Value hi = i + 1 < in.size()
                   ? arith::BitcastOp::create(b, loc, b.getI8Type(), in[i + 1])
                         .getResult()
                   : zero;
    Value bytes =
        vector::FromElementsOp::create(b, loc, pairType, ValueRange{lo, hi});
    Value halves = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, halfPair, bytes,
                                                      /*relu=*/false, elem);
    for (int64_t e = 0; e < 2 && i + e < in.size(); ++e) {
      Value half = vector::ExtractOp::create(b, loc, halves, e);
      out.push_back(to.isF16()
                        ? half
                        : arith::ExtFOp::create(b, loc, to, half).getResult());
    }
  }
  return fromLanes(b, loc, resultType, out);
}

struct TileNVVMF8Conversions
    : public tlc::impl::TileNVVMF8ConversionsBase<TileNVVMF8Conversions> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (auto trunc = llvm::dyn_cast<arith::TruncFOp>(op)) {
        if (tile::isF8Type(getElementTypeOrSelf(trunc.getType())) &&
            getElementTypeOrSelf(trunc.getIn().getType()).isF32())
          ops.push_back(op);
      } else if (auto ext = llvm::dyn_cast<arith::ExtFOp>(op)) {
        Type to = getElementTypeOrSelf(ext.getType());
        if (tile::isF8Type(getElementTypeOrSelf(ext.getIn().getType())) &&
            (to.isF16() || to.isF32() || to.isF64()))
          ops.push_back(op);
      }
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      Type resultType = op->getResult(0).getType();
      Value r = llvm::isa<arith::TruncFOp>(op)
                    ? truncToF8(b, loc, op->getOperand(0), resultType,
                                llvm::cast<FloatType>(
                                    getElementTypeOrSelf(resultType)))
                    : extFromF8(b, loc, op->getOperand(0), resultType);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
  }
};

} // namespace
