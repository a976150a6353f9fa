//===- TileUtils.h - Helpers for tile IR producers and lowerings -*- C++
//-*-===//
#ifndef TLC_DIALECT_TILE_IR_TILEUTILS_H
#define TLC_DIALECT_TILE_IR_TILEUTILS_H

#include "tlc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"

namespace tlc::tile {

/// Converts a scalar or a vector of numbers to element type `to`: index,
/// signless integers, floats (f16 <-> bf16 and anything <-> f8 through
/// f32; f32 -> bf16 is an
/// arith.truncf, which targets without a native conversion expand with
/// tile-expand-bf16-truncf) and i1 as bool
/// (non-zero is true). `srcUnsigned` / `dstUnsigned` say whether integer
/// bits are read / produced as unsigned (u8); i1 is always unsigned.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type to, bool srcUnsigned = false,
                         bool dstUnsigned = false);

/// f32 (scalar or vector) -> bf16 with round-to-nearest-even in integer
/// operations (NaNs stay NaNs), for targets without a native conversion
/// (tile-expand-bf16-truncf).
mlir::Value roundF32ToBF16(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v);

/// Whether `t` is one of the 8-bit float types tlc knows (f8e4m3 is MLIR's
/// f8E4M3FN, f8e5m2 its f8E5M2).
bool isF8Type(mlir::Type t);

/// An f8 scalar or vector widened to f32 exactly, in integer operations on
/// its bits (no target has to know the f8 types; tile-expand-f8).
mlir::Value decodeF8ToF32(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value v);

/// f32 (scalar or vector) -> the f8 type `f8`: round to nearest even,
/// saturating to the largest finite value (infinities too), NaN to NaN, in
/// integer and f32 operations (tile-expand-f8).
mlir::Value encodeF32ToF8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::FloatType f8);

/// The scalar side of a reduction kind, shared by every target's lowering:
/// the identity, the per-element preparation (abs for absmax) and the
/// combination of two partial results.
struct ReduceCombiner {
  ReduceKind kind;
  bool isFloat;

  mlir::Value identity(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Type t) const;
  mlir::Value prepare(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value v) const;
  mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y) const;
};

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_TILEUTILS_H
