//===- TileUtils.cpp - Helpers shared by tile IR producers and lowerings --===//
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tlc::tile;

/// CPUs without native bf16 would otherwise need compiler-rt's
/// __truncsfbf2 (missing from g++'s libgcc), and upstream's expansion
/// selects on bf16 vectors, which LLVM legalizes through that same call.
Value tlc::tile::roundF32ToBF16(OpBuilder &b, Location loc, Value v) {
  auto retype = [&](Type elem) -> Type {
    if (auto vt = llvm::dyn_cast<VectorType>(v.getType()))
      return VectorType::get(vt.getShape(), elem);
    return elem;
  };
  Type i32 = retype(b.getI32Type()), i16 = retype(b.getI16Type());
  auto c32 = [&](int64_t x) -> Value {
    return arith::ConstantOp::create(b, loc, i32,
                                     b.getIntegerAttr(b.getI32Type(), x))
        .getResult();
  };
  auto splat = [&](int64_t x) -> Value {
    if (auto vt = llvm::dyn_cast<VectorType>(i32))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vt, b.getI32IntegerAttr(x)));
    return c32(x);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  // A NaN gets its quiet bit set first, so rounding cannot carry it into
  // an infinity. No select: LLVM would turn one into a select on bf16.
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value nanBit = arith::ExtUIOp::create(b, loc, i32, isNaN);
  Value quiet = arith::ShLIOp::create(b, loc, nanBit, splat(22));
  bits = arith::OrIOp::create(b, loc, bits, quiet);
  // bits + 0x7fff + ((bits >> 16) & 1), then the upper half.
  Value high = arith::ShRUIOp::create(b, loc, bits, splat(16));
  Value lsb = arith::AndIOp::create(b, loc, high, splat(1));
  Value rounded = arith::AddIOp::create(
      b, loc, bits, arith::AddIOp::create(b, loc, lsb, splat(0x7fff)));
  Value upper = arith::ShRUIOp::create(b, loc, rounded, splat(16));
  Value narrow = arith::TruncIOp::create(b, loc, i16, upper);
  return arith::BitcastOp::create(b, loc, retype(b.getBF16Type()), narrow);
}

Value tlc::tile::castElements(OpBuilder &b, Location loc, Value v, Type to,
                              bool srcUnsigned, bool dstUnsigned) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  auto retype = [&](Type elem) -> Type {
    if (auto vt = llvm::dyn_cast<VectorType>(v.getType()))
      return VectorType::get(vt.getShape(), elem);
    return elem;
  };
  // An index to an integer is one cast (no i64 on the way: 32-bit index
  // targets such as SPIR-V would need 64-bit integers for it).
  if (from.isIndex() && to.isInteger() && !to.isInteger(1))
    return arith::IndexCastOp::create(b, loc, retype(to), v);
  if (from.isIndex()) { // through i64
    v = arith::IndexCastOp::create(b, loc, retype(b.getI64Type()), v);
    return castElements(b, loc, v, to, false, dstUnsigned);
  }
  auto ff = llvm::dyn_cast<FloatType>(from), tf = llvm::dyn_cast<FloatType>(to);
  bool srcU = srcUnsigned || from.isInteger(1);
  if (to.isIndex()) {
    if (ff) {
      Value wide = arith::FPToSIOp::create(b, loc, retype(b.getI64Type()), v);
      return arith::IndexCastOp::create(b, loc, retype(to), wide);
    }
    return srcU
               ? arith::IndexCastUIOp::create(b, loc, retype(to), v).getResult()
               : arith::IndexCastOp::create(b, loc, retype(to), v).getResult();
  }
  if (to.isInteger(1)) { // non-zero is true
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
    if (ff)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (ff && tf) {
    // f16 <-> bf16 and f64 -> bf16 go through f32: the bf16 rounding is
    // expanded into integer ops only from f32 (no compiler-rt calls).
    if (ff.getWidth() == tf.getWidth() || (to.isBF16() && ff.getWidth() > 32)) {
      v = ff.getWidth() > 32
              ? arith::TruncFOp::create(b, loc, retype(b.getF32Type()), v)
                    .getResult()
              : arith::ExtFOp::create(b, loc, retype(b.getF32Type()), v)
                    .getResult();
      ff = b.getF32Type();
      if (ff == to)
        return v;
    }
    if (ff.getWidth() < tf.getWidth())
      return arith::ExtFOp::create(b, loc, retype(to), v);
    return arith::TruncFOp::create(b, loc, retype(to), v);
  }
  if (ff)
    return dstUnsigned
               ? arith::FPToUIOp::create(b, loc, retype(to), v).getResult()
               : arith::FPToSIOp::create(b, loc, retype(to), v).getResult();
  if (tf)
    return srcU ? arith::UIToFPOp::create(b, loc, retype(to), v).getResult()
                : arith::SIToFPOp::create(b, loc, retype(to), v).getResult();
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return srcU ? arith::ExtUIOp::create(b, loc, retype(to), v).getResult()
                : arith::ExtSIOp::create(b, loc, retype(to), v).getResult();
  return arith::TruncIOp::create(b, loc, retype(to), v);
}

Value ReduceCombiner::identity(OpBuilder &b, Location loc, Type t) const {
  TypedAttr attr;
  if (kind == ReduceKind::sum || kind == ReduceKind::absmax)
    attr = b.getZeroAttr(t);
  else if (auto ft = llvm::dyn_cast<FloatType>(t))
    attr = b.getFloatAttr(
        ft, APFloat::getInf(ft.getFloatSemantics(),
                            /*Negative=*/kind == ReduceKind::max));
  else
    attr = b.getIntegerAttr(
        t, kind == ReduceKind::max
               ? APInt::getSignedMinValue(t.getIntOrFloatBitWidth())
               : APInt::getSignedMaxValue(t.getIntOrFloatBitWidth()));
  return arith::ConstantOp::create(b, loc, attr);
}

Value ReduceCombiner::prepare(OpBuilder &b, Location loc, Value v) const {
  if (kind != ReduceKind::absmax)
    return v;
  return isFloat ? math::AbsFOp::create(b, loc, v).getResult()
                 : math::AbsIOp::create(b, loc, v).getResult();
}

Value ReduceCombiner::combine(OpBuilder &b, Location loc, Value x,
                              Value y) const {
  switch (kind) {
  case ReduceKind::sum:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case ReduceKind::max:
  case ReduceKind::absmax:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case ReduceKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  return x;
}
