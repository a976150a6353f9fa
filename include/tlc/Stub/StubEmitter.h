//===- StubEmitter.h - C++/C launch stubs for compiled kernels --*- C++ -*-===//
//
// For each kernel tlc writes NAME.o (the compiled blocks, exporting
// _mlir_ciface_tlc_block_NAME) plus a launch stub NAME.h / NAME.cpp that users
// compile into their program. The stub checks the arguments (dtypes, ranks,
// shapes against the kernel's symbolic dimensions, strides, alignment),
// computes the grid and runs every block on the tlc runtime thread pool.
// See docs/abi.md.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_STUB_STUBEMITTER_H
#define TLC_STUB_STUBEMITTER_H

#include "tlc/Frontend/Sema.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tlc {

struct StubFiles {
  std::string header;
  std::string source;
};

/// Generates the CPU launch stub of a checked kernel. `headerName` is how the
/// source includes the header (e.g. "gemm.h").
StubFiles emitCpuStub(const KernelInfo &kernel, llvm::StringRef headerName);

} // namespace tlc

#endif // TLC_STUB_STUBEMITTER_H
