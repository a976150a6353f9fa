//===- TileUtils.cpp - Helpers shared by tile IR producers and lowerings --===//
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

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

bool tlc::tile::isF8Type(Type t) {
  return llvm::isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

namespace {
/// Integer and float constants, splat when the values are vectors.
struct ElementBuilder {
  OpBuilder &b;
  Location loc;
  Value like; // a value whose shape (scalar or vector) the results take

  Type retype(Type elem) const {
    if (auto vt = llvm::dyn_cast<VectorType>(like.getType()))
      return VectorType::get(vt.getShape(), elem);
    return elem;
  }
  Value constant(Type elem, TypedAttr attr) const {
    Type t = retype(elem);
    if (auto vt = llvm::dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(vt, attr));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value i32(int64_t x) const {
    return constant(b.getI32Type(), b.getI32IntegerAttr(int32_t(x)));
  }
  Value f32(double x) const {
    return constant(b.getF32Type(), b.getF32FloatAttr(float(x)));
  }
};

/// The parameters of an f8 format: exponent bias, mantissa bits, the code
/// of its largest finite magnitude and of its NaN.
struct F8Format {
  int bias, mantissaBits, maxCode, nanCode;
  bool hasInf;
};
F8Format f8Format(Type t) {
  if (llvm::isa<Float8E5M2Type>(t))
    return {15, 2, 0x7b, 0x7f, true};
  return {7, 3, 0x7e, 0x7f, false}; // E4M3FN: S.1111.111 is NaN
}
} // namespace

Value tlc::tile::decodeF8ToF32(OpBuilder &b, Location loc, Value v) {
  ElementBuilder e{b, loc, v};
  F8Format f = f8Format(getElementTypeOrSelf(v.getType()));
  Type i32 = e.retype(b.getI32Type());
  Value byte = arith::BitcastOp::create(b, loc, e.retype(b.getI8Type()), v);
  Value u = arith::ExtUIOp::create(b, loc, i32, byte);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, u, e.i32(0x80)), e.i32(24));
  Value mag = arith::AndIOp::create(b, loc, u, e.i32(0x7f));
  // Normal numbers: move the exponent and mantissa into place, rebias.
  Value normal = arith::AddIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, mag, e.i32(23 - f.mantissaBits)),
      e.i32(int64_t(127 - f.bias) << 23));
  // Subnormals (exponent 0): mantissa * 2^(1 - bias - mantissaBits), exact.
  Value scaled = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, e.retype(b.getF32Type()), mag),
      e.f32(std::ldexp(1.0, 1 - f.bias - f.mantissaBits)));
  Value subnormal = arith::BitcastOp::create(b, loc, i32, scaled);
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            mag, e.i32(1 << f.mantissaBits));
  Value bits = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  // Infinities and NaNs: the top exponent (E5M2) or S.1111.111 (E4M3FN).
  if (f.hasInf) {
    Value isSpecial = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                            mag, e.i32(0x7c));
    // Infinity when the mantissa is 0, else a quiet NaN.
    Value mantissa = arith::AndIOp::create(b, loc, mag, e.i32(3));
    Value quiet = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, mantissa,
                              e.i32(0)),
        e.i32(0x400000), e.i32(0));
    Value infNaN = arith::OrIOp::create(
        b, loc, e.i32(0x7f800000),
        arith::OrIOp::create(
            b, loc, arith::ShLIOp::create(b, loc, mantissa, e.i32(21)), quiet));
    bits = arith::SelectOp::create(b, loc, isSpecial, infNaN, bits);
  } else {
    Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mag,
                                        e.i32(0x7f));
    bits = arith::SelectOp::create(b, loc, isNaN, e.i32(0x7fc00000), bits);
  }
  bits = arith::OrIOp::create(b, loc, bits, sign);
  return arith::BitcastOp::create(b, loc, e.retype(b.getF32Type()), bits);
}

Value tlc::tile::encodeF32ToF8(OpBuilder &b, Location loc, Value v,
                               FloatType f8) {
  ElementBuilder e{b, loc, v};
  F8Format f = f8Format(f8);
  Type i32 = e.retype(b.getI32Type());
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value sign = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, bits, e.i32(0x80000000)),
      e.i32(24));
  Value a = arith::AndIOp::create(b, loc, bits, e.i32(0x7fffffff));
  // Normal results: round the f32 mantissa to `mantissaBits` bits (to
  // nearest even: add half an ulp minus one, plus the kept lowest bit),
  // then rebias the exponent.
  int drop = 23 - f.mantissaBits;
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, a, e.i32(drop)), e.i32(1));
  Value rounded = arith::AddIOp::create(
      b, loc, a,
      arith::AddIOp::create(b, loc, lsb,
                            e.i32((int64_t(1) << (drop - 1)) - 1)));
  Value normal = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, e.i32(drop)),
      e.i32(int64_t(127 - f.bias) << f.mantissaBits));
  // Below the smallest normal: |v| / 2^(1 - bias - mantissaBits) rounded to
  // an integer, in integers too (float tricks such as adding and
  // subtracting 2^23 are undone by shader compilers that reassociate):
  // the f32 significand (with its implicit one) shifted right to nearest
  // even. 2^mantissaBits comes out as the smallest normal's code; f32
  // subnormals shift out entirely.
  Value significand = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, a, e.i32(0x7fffff)),
      e.i32(0x800000));
  Value shift =
      arith::SubIOp::create(b, loc, e.i32(151 - f.bias - f.mantissaBits),
                            arith::ShRUIOp::create(b, loc, a, e.i32(23)));
  // (Clamped so that lanes taking the normal path shift by a defined amount.)
  shift = arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, shift, e.i32(31)), e.i32(1));
  Value kept = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, significand, shift), e.i32(1));
  Value halfMinusOne = arith::SubIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, e.i32(1),
                            arith::SubIOp::create(b, loc, shift, e.i32(1))),
      e.i32(1));
  Value subnormal = arith::ShRUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, significand,
                            arith::AddIOp::create(b, loc, halfMinusOne, kept)),
      shift);
  Value isSubnormal = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, a, e.i32(int64_t(128 - f.bias) << 23));
  Value code = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  // Saturate (infinities included), then NaN stays NaN.
  code = arith::MinUIOp::create(b, loc, code, e.i32(f.maxCode));
  code = arith::OrIOp::create(b, loc, code, sign);
  // NaN is the positive NaN code, as the host helpers and cvt give it.
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, a,
                                      e.i32(0x7f800000));
  code = arith::SelectOp::create(b, loc, isNaN, e.i32(f.nanCode), code);
  Value byte = arith::TruncIOp::create(b, loc, e.retype(b.getI8Type()), code);
  return arith::BitcastOp::create(b, loc, e.retype(f8), byte);
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
  // The 8-bit floats convert through f32, to and from anything.
  if (isF8Type(from) && to != b.getF32Type()) {
    v = arith::ExtFOp::create(b, loc, retype(b.getF32Type()), v);
    return castElements(b, loc, v, to, false, dstUnsigned);
  }
  if (isF8Type(to) && from != b.getF32Type()) {
    v = castElements(b, loc, v, b.getF32Type(), srcUnsigned, false);
    return arith::TruncFOp::create(b, loc, retype(to), v);
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
