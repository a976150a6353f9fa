//===- Types.h - Dtypes, memory scopes and Sema types -----------*- C++ -*-===//
//
// The small type system of the tile language, shared by Sema, MLIRGen and
// the stub emitter.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_TYPES_H
#define TLC_FRONTEND_TYPES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

/// Element types.
/// The order is the stub ABI's (tlc_dtype): new dtypes go at the end.
enum class DType {
  F64,
  F32,
  F16,
  BF16,
  I64,
  I32,
  I16,
  I8,
  U8,
  Bool,
  F8E4M3, // OCP E4M3 ("fn"): no infinities, max 448
  F8E5M2, // OCP E5M2: IEEE-like, max 57344
  U4,     // packed two per byte along the innermost dimension, low first
  I4,
};

std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef dtypeName(DType t);
/// The name with its article, for messages: "an i4", "a u4".
std::string withArticle(DType t);
bool isFloat(DType t);
/// The 8-bit floats: storage types whose arithmetic is done in f32.
bool isF8(DType t);
/// The 4-bit integers, packed two per byte: storage types whose arithmetic
/// is done in i32.
bool isPacked(DType t);
/// The dtype a value of dtype `t` is computed in (f8 in f32, u4/i4 in i32).
DType computeDType(DType t);
/// `v` rounded to the float dtype `t` as a conversion in generated code
/// rounds it (to nearest even; f8 saturates to its largest finite value).
double roundToFloatDType(double v, DType t);
/// An integer converted to the integer dtype `to`: its low bits, as the
/// generated code's truncation keeps them (i8(300) is 44, u8(-1) is 255);
/// `v` itself for 64-bit and non-integer dtypes.
int64_t truncateInt(int64_t v, DType to);
bool isSigned(DType t);
unsigned bitWidth(DType t);
/// Bytes per element in memory (bool is stored as one byte; a packed
/// 4-bit element counts as one, its pair's byte).
unsigned byteSize(DType t);

/// Where a tile lives. Global tensors are kernel arguments.
enum class MemScope { Global, Shared, Fragment, Local };
llvm::StringRef scopeName(MemScope s);

/// One dimension of a tensor or tile: a static size, or a symbolic dimension
/// (bound at run time from an argument shape) named by `symbol`.
struct Dim {
  int64_t size = -1;  // >= 0 when static
  std::string symbol; // non-empty when symbolic
  bool isStatic() const { return symbol.empty(); }
  bool operator==(const Dim &o) const {
    return size == o.size && symbol == o.symbol;
  }
  std::string str() const;
};

enum class TypeKind {
  Invalid, // error already reported
  Void,
  Int,        // untyped integer: literals, loop and block indices (index type)
  Float,      // untyped float literal; adopts the other operand's float dtype
  Scalar,     // a typed scalar of `dtype`
  DTypeValue, // a dtype used as a value (`T` in `f32(x)`-like positions)
  Tensor,     // global tensor argument
  Tile,       // shared / fragment / local tile
};

struct Type {
  TypeKind kind = TypeKind::Invalid;
  DType dtype = DType::F32;
  MemScope scope = MemScope::Global;
  std::vector<Dim> shape;

  static Type invalid() { return Type(); }
  static Type voidTy() { return make(TypeKind::Void); }
  static Type intTy() { return make(TypeKind::Int); }
  static Type floatLit() { return make(TypeKind::Float); }
  static Type scalar(DType d) {
    Type t = make(TypeKind::Scalar);
    t.dtype = d;
    return t;
  }
  static Type tile(DType d, MemScope s, std::vector<Dim> shape) {
    Type t = make(s == MemScope::Global ? TypeKind::Tensor : TypeKind::Tile);
    t.dtype = d;
    t.scope = s;
    t.shape = std::move(shape);
    return t;
  }
  bool isInvalid() const { return kind == TypeKind::Invalid; }
  bool isShaped() const {
    return kind == TypeKind::Tensor || kind == TypeKind::Tile;
  }
  /// Int, Float, Scalar: usable in arithmetic.
  bool isArith() const {
    return kind == TypeKind::Int || kind == TypeKind::Float ||
           kind == TypeKind::Scalar;
  }
  bool isBool() const {
    return kind == TypeKind::Scalar && dtype == DType::Bool;
  }
  unsigned rank() const { return shape.size(); }
  bool operator==(const Type &o) const {
    return kind == o.kind && dtype == o.dtype && scope == o.scope &&
           shape == o.shape;
  }
  std::string str() const;

private:
  static Type make(TypeKind k) {
    Type t;
    t.kind = k;
    return t;
  }
};

/// A compile-time value: parameters, literals, folded expressions.
struct ConstValue {
  enum Kind { Int, Float, Bool, DTypeVal } kind = Int;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  DType dtype = DType::F32;

  static ConstValue ofInt(int64_t v) {
    ConstValue c;
    c.kind = Int;
    c.i = v;
    return c;
  }
  static ConstValue ofFloat(double v) {
    ConstValue c;
    c.kind = Float;
    c.f = v;
    return c;
  }
  static ConstValue ofBool(bool v) {
    ConstValue c;
    c.kind = Bool;
    c.b = v;
    return c;
  }
  static ConstValue ofDType(DType d) {
    ConstValue c;
    c.kind = DTypeVal;
    c.dtype = d;
    return c;
  }
  double asDouble() const {
    return kind == Float ? f : kind == Bool ? b : double(i);
  }
  std::string str() const;
};

} // namespace tlc

#endif // TLC_FRONTEND_TYPES_H
