//===- Passes.h - Lowerings of the tile dialect -----------------*- C++ -*-===//
#ifndef TLC_CONVERSION_PASSES_H
#define TLC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tlc {
#define GEN_PASS_DECL
#include "tlc/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tlc/Conversion/Passes.h.inc"

/// Tile memory one CPU block may use (its tiles live on the stack of the
/// thread that runs it).
constexpr int64_t kCPUTileBytesPerBlock = 4 << 20;

/// Registers every GPU vendor's part of convert-tile-to-gpu (its target
/// info and MMA kinds). Tools call it once, before running passes.
void registerGPUTargets();
} // namespace tlc

#endif // TLC_CONVERSION_PASSES_H
