//===- LLVMBasedTarget.cpp - Lowering, translation and codegen in order ---===//
#include "tlc/Target/Target.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;

std::optional<CompiledModule>
LLVMBasedTarget::compile(mlir::ModuleOp module, EmitKind kind,
                         const CompileOptions &options,
                         CompileError &error) const {
  mlir::PassManager pm(module.getContext());
  if (options.configurePasses)
    options.configurePasses(pm);
  CompiledModule compiled;
  if (kind == EmitKind::GPU) {
    if (!buildGPUPipeline(pm)) {
      error.message = "target " + name().str() + " has no gpu stage";
      return std::nullopt;
    }
    if (mlir::failed(pm.run(module))) {
      error.diagnosed = true;
      return std::nullopt;
    }
    llvm::raw_string_ostream os(compiled.bytes);
    module.print(os);
    return compiled;
  }
  buildLoweringPipeline(pm, options);
  // The target's limits (e.g. tile memory per block) are reported as
  // located errors in the program.
  if (mlir::failed(pm.run(module))) {
    error.diagnosed = true;
    return std::nullopt;
  }
  collectLaunchFacts(module, compiled);
  llvm::LLVMContext llvmContext;
  auto llvmModule = translate(module, llvmContext, options);
  if (!llvmModule) {
    error.message = llvm::toString(llvmModule.takeError());
    return std::nullopt;
  }
  llvm::raw_string_ostream os(compiled.bytes);
  if (kind == EmitKind::LLVM) {
    (*llvmModule)->print(os, nullptr);
    return compiled;
  }
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream buffer(bytes);
  if (llvm::Error err = emitCode(**llvmModule, kind, options, buffer)) {
    error.message = llvm::toString(std::move(err));
    return std::nullopt;
  }
  os << bytes;
  return compiled;
}
