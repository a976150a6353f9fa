//===- Types.cpp - Dtypes, memory scopes and Sema types -------------------===//
#include "tlc/Frontend/Types.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>

#include <sstream>

using namespace tlc;

std::optional<DType> tlc::parseDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f64", DType::F64)
      .Case("f32", DType::F32)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("i64", DType::I64)
      .Case("i32", DType::I32)
      .Case("i16", DType::I16)
      .Case("i8", DType::I8)
      .Case("u8", DType::U8)
      .Case("bool", DType::Bool)
      .Case("f8e4m3", DType::F8E4M3)
      .Case("f8e5m2", DType::F8E5M2)
      .Case("u4", DType::U4)
      .Case("i4", DType::I4)
      .Default(std::nullopt);
}

llvm::StringRef tlc::dtypeName(DType t) {
  switch (t) {
  case DType::F64:
    return "f64";
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I16:
    return "i16";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::Bool:
    return "bool";
  case DType::F8E4M3:
    return "f8e4m3";
  case DType::F8E5M2:
    return "f8e5m2";
  case DType::U4:
    return "u4";
  case DType::I4:
    return "i4";
  }
  return "?";
}

std::string tlc::withArticle(DType t) {
  llvm::StringRef name = dtypeName(t);
  // "i" and "f" are read as vowels ("an f16"), "u" as "you" ("a u8").
  return (name.starts_with("i") || name.starts_with("f") ? "an " : "a ") +
         name.str();
}

bool tlc::isFloat(DType t) {
  return t == DType::F64 || t == DType::F32 || t == DType::F16 ||
         t == DType::BF16 || isF8(t);
}

bool tlc::isF8(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }

bool tlc::isPacked(DType t) { return t == DType::U4 || t == DType::I4; }

DType tlc::computeDType(DType t) {
  if (isF8(t))
    return DType::F32;
  if (isPacked(t))
    return DType::I32;
  return t;
}

int64_t tlc::truncateInt(int64_t v, DType to) {
  switch (to) {
  case DType::I32:
    return int32_t(uint32_t(uint64_t(v)));
  case DType::I16:
    return int16_t(uint16_t(uint64_t(v)));
  case DType::I8:
    return int8_t(uint8_t(uint64_t(v)));
  case DType::U8:
    return uint8_t(uint64_t(v));
  case DType::I4: // the low 4 bits, sign-extended
    return int64_t(uint64_t(v) << 60) >> 60;
  case DType::U4:
    return int64_t(uint64_t(v) & 15);
  default:
    return v;
  }
}

double tlc::roundToFloatDType(double v, DType t) {
  const llvm::fltSemantics *sem = nullptr;
  switch (t) {
  case DType::F32:
    sem = &llvm::APFloat::IEEEsingle();
    break;
  case DType::F16:
    sem = &llvm::APFloat::IEEEhalf();
    break;
  case DType::BF16:
    sem = &llvm::APFloat::BFloat();
    break;
  case DType::F8E4M3:
    sem = &llvm::APFloat::Float8E4M3FN();
    break;
  case DType::F8E5M2:
    sem = &llvm::APFloat::Float8E5M2();
    break;
  default:
    return v;
  }
  // f8 conversions of f64 values round to f32 first, as generated code
  // does (the literal is an f32 there).
  if (isF8(t))
    v = double(float(v));
  llvm::APFloat x(v);
  if (isF8(t) && !std::isnan(v)) { // saturating, infinities included
    llvm::APFloat largest = llvm::APFloat::getLargest(*sem);
    bool lost;
    largest.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    double m = largest.convertToDouble();
    x = llvm::APFloat(std::min(std::max(v, -m), m));
  }
  bool lost;
  x.convert(*sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  x.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return x.convertToDouble();
}

bool tlc::isSigned(DType t) {
  return t != DType::U8 && t != DType::U4 && t != DType::Bool;
}

unsigned tlc::bitWidth(DType t) {
  switch (t) {
  case DType::F64:
  case DType::I64:
    return 64;
  case DType::F32:
  case DType::I32:
    return 32;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 16;
  case DType::I8:
  case DType::U8:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 8;
  case DType::U4:
  case DType::I4:
    return 4;
  case DType::Bool:
    return 1;
  }
  return 0;
}

unsigned tlc::byteSize(DType t) {
  return t == DType::Bool || isPacked(t) ? 1 : bitWidth(t) / 8;
}

llvm::StringRef tlc::scopeName(MemScope s) {
  switch (s) {
  case MemScope::Global:
    return "global";
  case MemScope::Shared:
    return "shared";
  case MemScope::Fragment:
    return "fragment";
  case MemScope::Local:
    return "local";
  }
  return "?";
}

std::string Dim::str() const {
  return isStatic() ? std::to_string(size) : symbol;
}

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Invalid:
    return "<invalid>";
  case TypeKind::Void:
    return "void";
  case TypeKind::Int:
    return "int";
  case TypeKind::Float:
    return "float";
  case TypeKind::Scalar:
    return dtypeName(dtype).str();
  case TypeKind::DTypeValue:
    return "dtype";
  case TypeKind::Tensor:
  case TypeKind::Tile: {
    std::string s;
    if (kind == TypeKind::Tile)
      s = scopeName(scope).str() + " ";
    s += dtypeName(dtype).str() + "[";
    for (unsigned i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + shape[i].str();
    return s + "]";
  }
  }
  return "?";
}

std::string ConstValue::str() const {
  switch (kind) {
  case Int:
    return std::to_string(i);
  case Bool:
    return b ? "true" : "false";
  case DTypeVal:
    return dtypeName(dtype).str();
  case Float: {
    std::ostringstream os;
    os.precision(9);
    os << f;
    return os.str();
  }
  }
  return "?";
}
