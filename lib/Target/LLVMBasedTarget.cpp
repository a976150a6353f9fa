//===- LLVMBasedTarget.cpp - Lowering, translation and codegen in order ---===//
#include "tlc/Target/Target.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace tlc;

void LLVMBasedTarget::dumpLLVMStages(const llvm::Module &module,
                                     const CompileOptions &options) const {
  std::string ir;
  llvm::raw_string_ostream irStream(ir);
  module.print(irStream, nullptr);
  options.dumpStage("llvm", ".ll", ir);
  // The assembly from a copy: code generation changes the module it runs on.
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::SmallString<0> assembly;
  llvm::raw_svector_ostream asmStream(assembly);
  if (llvm::Error err = emitCode(*copy, EmitKind::Asm, options, asmStream)) {
    llvm::consumeError(std::move(err)); // the real compile reports it
    return;
  }
  std::string ext = ".s";
  for (const EmitStage &stage : emitStages())
    if (stage.kind == EmitKind::Asm)
      ext = stage.extension;
  options.dumpStage("asm", ext, assembly);
}

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
  // The stage dumps and -emit=llvm need the one optimized module.
  if (kind != EmitKind::LLVM && !options.dumpStage) {
    llvm::SmallString<0> bytes;
    llvm::raw_svector_ostream buffer(bytes);
    if (std::optional<llvm::Error> err =
            emitCodeInParallel(module, kind, options, buffer)) {
      if (*err) {
        error.message = llvm::toString(std::move(*err));
        return std::nullopt;
      }
      compiled.bytes.append(bytes.begin(), bytes.end());
      return compiled;
    }
  }
  llvm::LLVMContext llvmContext;
  auto llvmModule = translate(module, llvmContext, options);
  if (!llvmModule) {
    error.message = llvm::toString(llvmModule.takeError());
    return std::nullopt;
  }
  if (options.dumpStage)
    dumpLLVMStages(**llvmModule, options);
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
