//===- Signature.h - The kernel signature from the checked AST --*- C++ -*-===//
#ifndef TLC_MLIRGEN_SIGNATURE_H
#define TLC_MLIRGEN_SIGNATURE_H

#include "tlc/Frontend/Sema.h"
#include "tlc/Stub/KernelSignature.h"

namespace tlc {
/// What the launch stub needs of a checked kernel; MLIRGen stores it on
/// the kernel as tile.signature.
KernelSignature buildSignature(const KernelInfo &kernel);
/// What the stub of an operation needs; MLIRGen stores the operations on
/// the module as tile.operations.
OperationSignature buildOperationSignature(const OperationInfo &operation);
} // namespace tlc

#endif // TLC_MLIRGEN_SIGNATURE_H
