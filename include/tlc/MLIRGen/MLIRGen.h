//===- MLIRGen.h - Checked AST to the tile dialect --------------*- C++ -*-===//
#ifndef TLC_MLIRGEN_MLIRGEN_H
#define TLC_MLIRGEN_MLIRGEN_H

#include "tlc/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tlc {

/// Emits one func.func per kernel (attribute `tile.kernel`) and one private
/// func.func per tile fn instance, in the tile dialect plus arith, math, scf
/// and memref. Every op carries the .tl source location it came from. The
/// AST must have been checked by Sema without errors.
mlir::OwningOpRef<mlir::ModuleOp> generateTileIR(mlir::MLIRContext &context,
                                                 const Sema &sema,
                                                 llvm::SourceMgr &srcMgr);

/// The MLIR type of a tlc dtype (bool is i1; u8 is a signless i8).
mlir::Type getElementType(mlir::MLIRContext &context, DType dtype);

} // namespace tlc

#endif // TLC_MLIRGEN_MLIRGEN_H
