//===- TileUtils.cpp - Helpers shared by tile IR producers and lowerings --===//
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

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
  if (from.isIndex()) { // through i64
    v = arith::IndexCastOp::create(b, loc, retype(b.getI64Type()), v);
    return castElements(b, loc, v, to, false, dstUnsigned);
  }
  auto ff = llvm::dyn_cast<FloatType>(from), tf = llvm::dyn_cast<FloatType>(to);
  bool srcU = srcUnsigned || from.isInteger(1);
  if (to.isIndex()) {
    if (ff)
      return arith::IndexCastOp::create(
          b, loc, retype(to),
          arith::FPToSIOp::create(b, loc, retype(b.getI64Type()), v));
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
    if (ff.getWidth() == tf.getWidth()) { // f16 <-> bf16
      v = arith::ExtFOp::create(b, loc, retype(b.getF32Type()), v);
      ff = b.getF32Type();
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
