//===- CPUTarget.cpp - Tile IR to host or cross-compiled object files -----===//
#include "CPUTarget.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Stub/StubEmitter.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace tlc;

namespace {

/// A resolved `-arch=` for the CPU target.
struct CPUArch {
  std::string triple, cpu, features;
  unsigned vectorBits = 128;
  unsigned vectorRegisters = 16;
};

/// Vector width the tile lowering should use for a feature set.
unsigned vectorBitsFor(llvm::StringRef triple, llvm::StringRef features) {
  if (llvm::StringRef(triple).starts_with("aarch64"))
    return 128;
  if (features.contains("+avx512f"))
    return 512;
  if (features.contains("+avx2") || features.contains("+avx,"))
    return 256;
  return 128;
}

llvm::Expected<CPUArch> resolveArch(llvm::StringRef name) {
  CPUArch a;
  if (name == "native") {
    a.triple = llvm::sys::getProcessTriple();
    a.cpu = llvm::sys::getHostCPUName().str();
    std::string features;
    for (auto &f : llvm::sys::getHostCPUFeatures())
      features += std::string(f.second ? "+" : "-") + f.first().str() + ",";
    a.features = features;
  } else if (name == "x86-64" || name == "x86-64-v2" || name == "x86-64-v3" ||
             name == "x86-64-v4") {
    a.triple = "x86_64-unknown-linux-gnu";
    a.cpu = name.str();
    a.features = name == "x86-64-v3"   ? "+avx2,+fma,+f16c,"
                 : name == "x86-64-v4" ? "+avx512f,+avx2,+fma,+f16c,"
                                       : "";
  } else if (name == "aarch64" || name == "armv8-a") {
    a.triple = "aarch64-unknown-linux-gnu";
    a.cpu = "generic";
    a.features = "+neon,";
  } else {
    return llvm::createStringError(
        "unknown CPU arch '" + name.str() +
        "'; expected native, x86-64, x86-64-v2, x86-64-v3, x86-64-v4 or "
        "aarch64");
  }
  a.vectorBits = vectorBitsFor(a.triple, a.features);
  // AVX-512 and AArch64 have 32 vector registers, SSE/AVX2 16.
  a.vectorRegisters =
      a.vectorBits == 512 || llvm::StringRef(a.triple).starts_with("aarch64")
          ? 32
          : 16;
  return a;
}

class CPUTarget : public Target {
public:
  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef defaultArch() const override { return "native"; }
  llvm::StringRef binaryExtension() const override { return ".o"; }

  llvm::Error setArch(llvm::StringRef archName) override {
    auto resolved = resolveArch(archName);
    if (!resolved)
      return resolved.takeError();
    arch = *resolved;
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    std::string error;
    llvm::Triple triple(arch.triple);
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return llvm::createStringError("cannot target " + arch.triple + ": " +
                                     error);
    llvm::TargetOptions options;
    machine.reset(target->createTargetMachine(
        triple, arch.cpu, arch.features, options, llvm::Reloc::PIC_,
        std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    if (!machine)
      return llvm::createStringError("cannot create a target machine for " +
                                     arch.triple);
    return llvm::Error::success();
  }

  void buildLoweringPipeline(mlir::OpPassManager &pm) const override {
    pm.addPass(createConvertTileToCPU({arch.vectorBits, arch.vectorRegisters}));
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    pm.addPass(createCPUApproximateMath());
    // Upstream lowering to the LLVM dialect; bf16 arithmetic is done in f32.
    const char *upstream =
        "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
        "convert-vector-to-scf,lower-affine,convert-scf-to-cf,"
        "expand-strided-metadata,lower-affine,arith-expand{include-bf16=true},"
        // math-to-llvm first: it keeps vector fma/sqrt as LLVM intrinsics,
        // while math-to-libm would scalarize them into libm calls. Only what
        // has no intrinsic (erf of f64, ...) goes to libm.
        "convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,"
        "finalize-memref-to-llvm,convert-arith-to-llvm,"
        "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
        "reconcile-unrealized-casts";
    if (mlir::failed(mlir::parsePassPipeline(upstream, pm, llvm::errs())))
      llvm::report_fatal_error("tlc: bad built-in CPU pass pipeline");
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
            unsigned optLevel) const override {
    mlir::registerBuiltinDialectTranslation(*module.getContext());
    mlir::registerLLVMDialectTranslation(*module.getContext());
    std::unique_ptr<llvm::Module> llvmModule =
        mlir::translateModuleToLLVMIR(module, ctx, "tlc");
    if (!llvmModule)
      return llvm::createStringError("translation to LLVM IR failed");
    // Without a triple and data layout LLVM would not vectorize for the CPU.
    llvmModule->setTargetTriple(machine->getTargetTriple());
    llvmModule->setDataLayout(machine->createDataLayout());
    for (llvm::Function &f : *llvmModule) {
      if (f.isDeclaration())
        continue;
      f.addFnAttr("target-cpu", arch.cpu);
      if (!arch.features.empty())
        f.addFnAttr("target-features", arch.features);
    }
    optimize(*llvmModule, optLevel);
    return llvmModule;
  }

  llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                       llvm::raw_pwrite_stream &os) const override {
    llvm::legacy::PassManager pm;
    auto fileType = kind == EmitKind::Asm ? llvm::CodeGenFileType::AssemblyFile
                                          : llvm::CodeGenFileType::ObjectFile;
    if (machine->addPassesToEmitFile(pm, os, nullptr, fileType))
      return llvm::createStringError("the target cannot emit this file type");
    pm.run(module);
    return llvm::Error::success();
  }

  void emitStub(const KernelInfo &kernel, llvm::StringRef headerName,
                std::string &header, std::string &source) const override {
    StubFiles files = emitCpuStub(kernel, headerName);
    header = std::move(files.header);
    source = std::move(files.source);
  }

private:
  CPUArch arch;
  std::unique_ptr<llvm::TargetMachine> machine;

  void optimize(llvm::Module &module, unsigned optLevel) const {
    if (optLevel == 0)
      return;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = optLevel == 1 ? llvm::OptimizationLevel::O1
                                    : optLevel == 2
                                        ? llvm::OptimizationLevel::O2
                                        : llvm::OptimizationLevel::O3;
    pb.buildPerModuleDefaultPipeline(level).run(module, mam);
  }
};
} // namespace

std::unique_ptr<Target> tlc::createCPUTarget() {
  return std::make_unique<CPUTarget>();
}
