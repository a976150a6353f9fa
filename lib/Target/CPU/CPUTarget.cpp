//===- CPUTarget.cpp - Tile IR to host or cross-compiled object files -----===//
#include "CPUTarget.h"
#include "../LLVMOptimize.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Stub/StubEmitter.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
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
    for (auto &f : llvm::sys::getHostCPUFeatures()) {
      // LLVM 22's x86 backend aborts on some <N x bfloat> operations when
      // native bf16 conversions are enabled ("Do not know how to soft
      // promote this operator's operand"); bf16 then takes the integer
      // expansion used on every other x86 CPU.
      bool enable = f.second && !llvm::StringRef(f.first()).contains("bf16") &&
                    f.first() != "avxneconvert";
      features += std::string(enable ? "+" : "-") + f.first().str() + ",";
    }
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

bool usesBF16(const llvm::Module &module) {
  for (const llvm::Function &f : module)
    for (const llvm::BasicBlock &bb : f)
      for (const llvm::Instruction &i : bb) {
        if (i.getType()->getScalarType()->isBFloatTy())
          return true;
        for (const llvm::Value *op : i.operands())
          if (op->getType()->getScalarType()->isBFloatTy())
            return true;
      }
  return false;
}

/// The fmas of tlc's CPU code (the gemm micro-kernel's multiply-adds, the
/// polynomial approximations of exp, log, tanh, ...) need no single
/// rounding. As `llvm.fma` they must be exact, which a CPU without FMA
/// instructions (x86-64, x86-64-v2) computes by calling libm's fmaf lane by
/// lane: softmax ran 40 times slower there than with AVX-512. As
/// `llvm.fmuladd` they are one FMA instruction where the CPU has one (the
/// same code as before) and a multiply and an add elsewhere.
void relaxFusedMultiplyAdds(llvm::Module &module) {
  std::vector<llvm::IntrinsicInst *> fmas;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &i : bb)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i))
          if (call->getIntrinsicID() == llvm::Intrinsic::fma)
            fmas.push_back(call);
  for (llvm::IntrinsicInst *fma : fmas) {
    llvm::IRBuilder<> b(fma);
    llvm::Value *relaxed = b.CreateIntrinsic(
        llvm::Intrinsic::fmuladd, {fma->getType()},
        {fma->getArgOperand(0), fma->getArgOperand(1), fma->getArgOperand(2)});
    if (auto *fp = llvm::dyn_cast<llvm::Instruction>(relaxed))
      fp->copyFastMathFlags(fma);
    fma->replaceAllUsesWith(relaxed);
    fma->eraseFromParent();
  }
}

/// LLVM legalizes some bf16 vector operations on x86 CPUs without native
/// bf16 through the compiler-rt routines __truncsfbf2 / __truncdfbf2, which
/// g++'s libgcc (12) does not provide. Each object carries its own copies
/// (linkonce_odr, hidden), computed with integer operations:
/// round-to-nearest-even, NaN kept quiet.
void defineBF16Truncations(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  for (bool fromDouble : {false, true}) {
    const char *name = fromDouble ? "__truncdfbf2" : "__truncsfbf2";
    if (llvm::Function *existing = module.getFunction(name))
      if (!existing->isDeclaration())
        continue;
    llvm::Type *src =
        fromDouble ? llvm::Type::getDoubleTy(ctx) : llvm::Type::getFloatTy(ctx);
    auto *type =
        llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx), {src}, false);
    llvm::Function *fn = llvm::cast<llvm::Function>(
        module.getOrInsertFunction(name, type).getCallee());
    fn->setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
    fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *x = fn->getArg(0);
    if (fromDouble) // double rounding through f32 (the f32 step is exact
      x = b.CreateFPTrunc(x, b.getFloatTy()); // in most cases)
    llvm::Value *bits = b.CreateBitCast(x, b.getInt32Ty());
    llvm::Value *nan = b.CreateFCmpUNO(x, x);
    bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(nan, b.getInt32Ty()), 22));
    llvm::Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
    llvm::Value *rounded =
        b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff)));
    llvm::Value *half =
        b.CreateTrunc(b.CreateLShr(rounded, 16), b.getInt16Ty());
    b.CreateRet(b.CreateBitCast(half, llvm::Type::getBFloatTy(ctx)));
  }
}

class CPUTarget : public LLVMBasedTarget {
public:
  llvm::StringRef name() const override { return "cpu"; }
  std::string archHelp() const override {
    return "native (default), x86-64, x86-64-v2, x86-64-v3, x86-64-v4, "
           "aarch64";
  }
  llvm::StringRef defaultArch() const override { return "native"; }
  bool hasPythonBindings() const override { return true; }
  // The stub calls a kernel's task entry when the object has one.
  bool stubsNeedCompile() const override { return true; }
  std::vector<std::string> reportedInstructions() const override {
    return {"vfmadd", "fmla", "call"}; // x86 FMA, AArch64 FMA, calls
  }
  TargetConstants languageConstants() const override {
    // Clusters run emulated (a thread per block of a cluster): allowed, not
    // worth asking for.
    return {kCPUTileBytesPerBlock, 1, /*warpgroupMma=*/0, /*clusterBlocks=*/1,
            /*maxCluster=*/8};
  }
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

  void collectLaunchFacts(mlir::ModuleOp lowered,
                          CompiledModule &compiled) const override {
    lowered.walk([&](mlir::LLVM::LLVMFuncOp func) {
      if (auto kernel =
              func->getAttrOfType<mlir::StringAttr>(tile::attr::kCPUTaskEntry))
        compiled.cpuTaskEntries.insert(kernel.getValue());
    });
  }

  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const CompileOptions &options) const override {
    pm.addPass(createTileCPUTaskNest({arch.vectorBits}));
    pm.addPass(createConvertTileToCPU({arch.vectorBits, arch.vectorRegisters}));
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    pm.addPass(createCPUApproximateMath());
    pm.addPass(tile::createTileExpandF8());
    pm.addPass(tile::createTileExpandBF16Truncf());
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
    if (options.debugInfo &&
        mlir::failed(mlir::parsePassPipeline(
            "ensure-debug-info-scope-on-llvm-func{emission-kind="
            "LineTablesOnly}",
            pm, llvm::errs())))
      llvm::report_fatal_error("tlc: bad built-in debug info pipeline");
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
            const CompileOptions &options) const override {
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
    relaxFusedMultiplyAdds(*llvmModule);
    optimizeModule(*llvmModule, machine.get(), options.optLevel);
    // After optimization: nothing calls these yet, instruction selection
    // may introduce the calls.
    if (machine->getTargetTriple().isX86() && usesBF16(*llvmModule))
      defineBF16Truncations(*llvmModule);
    return llvmModule;
  }

  llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                       const CompileOptions &,
                       llvm::raw_pwrite_stream &os) const override {
    llvm::legacy::PassManager pm;
    auto fileType = kind == EmitKind::Asm ? llvm::CodeGenFileType::AssemblyFile
                                          : llvm::CodeGenFileType::ObjectFile;
    if (machine->addPassesToEmitFile(pm, os, nullptr, fileType))
      return llvm::createStringError("the target cannot emit this file type");
    pm.run(module);
    return llvm::Error::success();
  }

  void emitStub(const KernelSignature &kernel, const CompiledModule &compiled,
                const StubPlacement &placement, std::string &header,
                std::string &source) const override {
    StubFiles files = emitCpuStub(
        kernel, placement, compiled.cpuTaskEntries.contains(kernel.name));
    header = std::move(files.header);
    source = std::move(files.source);
  }

private:
  CPUArch arch;
  std::unique_ptr<llvm::TargetMachine> machine;
};
} // namespace

std::unique_ptr<Target> tlc::createCPUTarget() {
  return std::make_unique<CPUTarget>();
}
