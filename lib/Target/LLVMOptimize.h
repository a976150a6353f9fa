//===- LLVMOptimize.h - LLVM's optimization pipeline ------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_LLVMOPTIMIZE_H
#define TLC_LIB_TARGET_LLVMOPTIMIZE_H

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace tlc {
/// Runs LLVM's default module pipeline at `optLevel` (0 to 3) with the
/// target's own passes registered (NVVMReflect on NVPTX, for instance).
void optimizeModule(llvm::Module &module, llvm::TargetMachine *machine,
                    unsigned optLevel);
} // namespace tlc

#endif // TLC_LIB_TARGET_LLVMOPTIMIZE_H
