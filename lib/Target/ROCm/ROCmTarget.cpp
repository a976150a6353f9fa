//===- ROCmTarget.cpp - Tile IR to AMDGPU assembly and code objects -------===//
//
// tile-infer-layouts and convert-tile-to-gpu make a gpu.module (MFMA gemms
// on gfx90a/gfx94x); upstream convert-amdgpu-to-rocdl and
// convert-gpu-to-rocdl lower it to the ROCDL/LLVM dialects; the module is
// translated to LLVM IR, the ROCm device libraries (ocml, ockl) are linked
// when the kernels call them, LLVM's AMDGPU backend writes assembly or an
// object and ld.lld links the code object (HSACO). Stubs launch it through
// HIP (tlc_hip.h).
//
// Why not upstream gpu-module-to-binary: it makes one form per run from the
// MLIR module, while tlc hands one optimized LLVM module to -emit=llvm,
// -emit=isa and -emit=hsaco alike (as the CUDA target does), so only the
// device-library link and the ld.lld step are tlc's own.
//
//===----------------------------------------------------------------------===//
#include "ROCmTarget.h"
#include "../GPU/GPUTarget.h"
#include "OffloadBundle.h"
#include "tlc/Conversion/Passes.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

using namespace tlc;

namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";

/// The folder of the ROCm device-library bitcode (ocml.bc, ockl.bc):
/// $ROCM_PATH/amdgcn/bitcode, Debian's rocm-device-libs, or /opt/rocm.
std::string deviceLibDir() {
  std::vector<std::string> candidates;
  for (const char *var : {"ROCM_PATH", "ROCM_HOME"})
    if (const char *dir = std::getenv(var); dir && *dir)
      candidates.push_back(std::string(dir) + "/amdgcn/bitcode");
  candidates.push_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
  candidates.push_back("/usr/lib/aarch64-linux-gnu/amdgcn/bitcode");
  candidates.push_back("/opt/rocm/amdgcn/bitcode");
  for (const std::string &dir : candidates)
    if (llvm::sys::fs::exists(dir + "/ocml.bc"))
      return dir;
  return candidates.front();
}

/// Where ld.lld is looked for before PATH: LLVM 22's own bin folder.
std::vector<std::string> lldDirs() { return {"/usr/lib/llvm-22/bin"}; }

class ROCmTarget : public GPUTarget {
public:
  ScratchRuntime scratchRuntime() const override {
    return {"tlc/Runtime/tlc_hip.h", "tlc::hip::Scratch"};
  }
  llvm::StringRef name() const override { return "rocm"; }
  llvm::StringRef defaultArch() const override { return "gfx942"; }
  llvm::StringRef binaryExtension() const override { return ".hsaco"; }
  llvm::StringRef asmExtension() const override { return ".s"; }
  /// For a bundle: what every chip offers (the least LDS, the narrowest
  /// wave).
  TargetConstants languageConstants() const override {
    TargetConstants c{ldsBytes(), waveSize()};
    for (const std::string &chip : bundleArchs) {
      c.sharedBytes = std::min(c.sharedBytes, ldsBytesOf(chip));
      c.warpSize = std::min(c.warpSize, waveSizeOf(chip));
    }
    return c;
  }
  std::string archHelp() const override {
    return "gfx942 (default), gfx90a, gfx1100, ... (any gfx9, gfx10, gfx11 "
           "or gfx12 chip LLVM knows; several, comma-separated, make one "
           "offload bundle)";
  }

  /// One chip, or several separated by commas (gfx942,gfx90a): the code
  /// objects then go into one offload bundle, and the first chip's
  /// description is what -emit=tile shows.
  llvm::Error setArch(llvm::StringRef archList) override {
    llvm::SmallVector<llvm::StringRef> names;
    archList.split(names, ',');
    for (llvm::StringRef n : names)
      if (llvm::Error err = checkArch(n.trim()))
        return err;
    bundleArchs.clear();
    for (llvm::StringRef n : names)
      if (!llvm::is_contained(bundleArchs, n.trim().str()))
        bundleArchs.push_back(n.trim().str());
    return setOneArch(bundleArchs.front());
  }

  std::optional<CompiledModule> compile(mlir::ModuleOp module, EmitKind kind,
                                        const CompileOptions &options,
                                        CompileError &error) const override {
    if (bundleArchs.size() == 1)
      return LLVMBasedTarget::compile(module, kind, options, error);
    if (kind != EmitKind::Obj) {
      error.message = "-arch=" + llvm::join(bundleArchs, ",") +
                      " makes an offload bundle (the default output, "
                      "-emit=obj or -emit=hsaco); give one -arch for the "
                      "other -emit kinds";
      error.status = 1;
      return std::nullopt;
    }
    // Each chip compiles its own copy of the module, with its description.
    CompiledModule bundle;
    std::vector<std::pair<std::string, std::string>> codeObjects;
    for (const std::string &chip : bundleArchs) {
      ROCmTarget one;
      if (llvm::Error err = one.setArch(chip)) {
        error.message = llvm::toString(std::move(err));
        return std::nullopt;
      }
      mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
      (*copy)->setAttr(tile::attr::kTarget, one.describe(*module.getContext()));
      std::optional<CompiledModule> compiled =
          one.LLVMBasedTarget::compile(*copy, kind, options, error);
      if (!compiled)
        return std::nullopt;
      codeObjects.push_back({chip, std::move(compiled->bytes)});
      // The launch gives the most any chip's code needs.
      for (auto &entry : compiled->sharedBytes) {
        int64_t &bytes = bundle.sharedBytes[entry.getKey()];
        bytes = std::max(bytes, entry.getValue());
      }
    }
    bundle.bytes = writeOffloadBundle(codeObjects);
    return bundle;
  }

private:
  /// Whether `archName` is a gfx9-or-newer chip LLVM's AMDGPU backend knows.
  static llvm::Error checkArch(llvm::StringRef archName) {
    llvm::StringRef digits = archName;
    if (!digits.consume_front("gfx") || digits.size() < 3 ||
        !llvm::isDigit(digits[0]))
      return badArch(archName);
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    std::string error;
    llvm::Triple triple(kTriple);
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return llvm::createStringError("cannot target AMDGPU: " + error);
    {
      std::unique_ptr<llvm::MCSubtargetInfo> info(
          target->createMCSubtargetInfo(triple, "", ""));
      if (!info || !info->isCPUStringValid(archName))
        return badArch(archName);
    }
    if (majorOf(archName) < 9)
      return badArch(archName);
    return llvm::Error::success();
  }

  /// gfxMmS: the digits before the last two (minor and stepping, hex); 0
  /// when they are not a number.
  static unsigned majorOf(llvm::StringRef chip) {
    unsigned major = 0;
    if (chip.drop_front(3).drop_back(2).getAsInteger(10, major))
      return 0;
    return major;
  }

  llvm::Error setOneArch(llvm::StringRef archName) {
    arch = archName.str();
    return createMachine(kTriple, arch, "");
  }

public:
  mlir::Attribute describe(mlir::MLIRContext &ctx) const override {
    ctx.getOrLoadDialect<tile::TileDialect>();
    return tile::TargetAttr::get(
        &ctx, name(), arch, waveSize(), ldsBytes(), /*maxThreads=*/1024,
        /*maxRegisters=*/256, /*vectorBytes=*/16, /*asyncCopy=*/false,
        hasMfma() ? "mfma_f32_16x16x16" : "");
  }

  bool hasPythonBindings() const override { return true; }
  std::vector<std::string> reportedInstructions() const override {
    return {"v_mfma",       "v_fma",     "v_fmac",   "global_load",
            "global_store", "ds_read",   "ds_write", "ds_load",
            "ds_store",     "s_barrier", "scratch_"};
  }

  std::vector<EmitStage> emitStages() const override {
    return {
        {"isa", EmitKind::Asm, ".s", "AMDGPU assembly (the same as -emit=asm)"},
        {"hsaco", EmitKind::Obj, ".hsaco",
         "the code object (the same as -emit=obj)"}};
  }

  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const CompileOptions &options) const override {
    buildGPUPipeline(pm);
    pm.addPass(tile::createTileExpandF8());
    pm.addPass(tile::createTileExpandBF16Truncf());
    // The kernels are lowered to the LLVM dialect in parallel, each in a
    // gpu.module of its own, then merged back into one.
    pm.addPass(createTileGPUSplitKernels());
    std::string chip = "chipset=" + arch;
    // Math first, to ocml calls: inside convert-gpu-to-rocdl some functions
    // (tanh) become LLVM intrinsics the AMDGPU backend cannot select.
    std::string upstream =
        "convert-math-to-rocdl{" + chip +
        "},gpu.module(convert-scf-to-cf,arith-expand,expand-strided-metadata,"
        "lower-affine,convert-amdgpu-to-rocdl{" +
        chip + "},convert-gpu-to-rocdl{" + chip +
        " index-bitwidth=64 use-bare-ptr-memref-call-conv=true runtime=HIP},"
        "convert-vector-to-llvm,canonicalize,cse),"
        "reconcile-unrealized-casts";
    if (mlir::failed(mlir::parsePassPipeline(upstream, pm, llvm::errs())))
      llvm::report_fatal_error("tlc: bad built-in ROCm pass pipeline");
    pm.addPass(createTileGPUMergeKernels());
  }

  void registerVendorTranslation(mlir::MLIRContext &ctx) const override {
    mlir::registerROCDLDialectTranslation(ctx);
  }
  llvm::CallingConv::ID kernelCallingConv() const override {
    return llvm::CallingConv::AMDGPU_KERNEL;
  }

  llvm::Error prepareModule(llvm::Module &module) const override {
    // Code object v5: what ROCm 5.x and newer load.
    module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                         500);
    std::string libs = deviceLibDir();
    const char *hint = "install rocm-device-libs or set ROCM_PATH";
    if (llvm::Error err =
            linkBitcodeLibrary(module, "__ocml_", libs + "/ocml.bc", hint))
      return err;
    if (llvm::Error err =
            linkBitcodeLibrary(module, "__ockl_", libs + "/ockl.bc", hint))
      return err;
    defineLibraryControls(module);
    movePrivateAllocas(module);
    return llvm::Error::success();
  }

  llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                       const CompileOptions &options,
                       llvm::raw_pwrite_stream &os) const override {
    if (kind == EmitKind::Asm || kind == EmitKind::LLVM) {
      auto assembly = codegen(module, llvm::CodeGenFileType::AssemblyFile);
      if (!assembly)
        return assembly.takeError();
      os << *assembly;
      return llvm::Error::success();
    }
    auto object = codegen(module, llvm::CodeGenFileType::ObjectFile);
    if (!object)
      return object.takeError();
    TempDir tmp;
    std::string objectPath = tmp.file("kernels.o");
    std::string hsacoPath = tmp.file("kernels.hsaco");
    if (llvm::Error err = writeFile(objectPath, *object))
      return err;
    if (llvm::Error err =
            runTool("ld.lld", lldDirs(),
                    {"-shared", "--no-undefined", objectPath, "-o", hsacoPath},
                    "install lld-22"))
      return err;
    auto bytes = readFile(hsacoPath);
    if (!bytes)
      return bytes.takeError();
    os << *bytes;
    return llvm::Error::success();
  }

private:
  /// The chips of -arch, the first one also in `arch`.
  std::vector<std::string> bundleArchs;
  std::string arch;

  /// gfx9 (GCN/CDNA) runs waves of 64; RDNA (gfx10 and newer) of 32.
  static int64_t waveSizeOf(llvm::StringRef chip) {
    return majorOf(chip) == 9 ? 64 : 32;
  }
  /// LDS per workgroup: 160 KiB on gfx950, 64 KiB elsewhere.
  static int64_t ldsBytesOf(llvm::StringRef chip) {
    return chip == "gfx950" ? 160 * 1024 : 65536;
  }
  int64_t waveSize() const { return waveSizeOf(arch); }
  int64_t ldsBytes() const { return ldsBytesOf(arch); }
  /// v_mfma_f32_16x16x16 for f16 and bf16 (the bf16 form from gfx90a on).
  bool hasMfma() const {
    return arch == "gfx90a" || arch == "gfx940" || arch == "gfx941" ||
           arch == "gfx942" || arch == "gfx950";
  }

  StubFiles emitGpuStub(const GpuKernelInfo &info,
                        const StubPlacement &placement) const override {
    return emitHipStub(info, placement);
  }

  /// Stack memory (local tiles indexed at run time, which SROA cannot turn
  /// into registers) must be allocated in AMDGPU's private address space
  /// 5; MLIR's lowering allocates it in the generic one, which the backend
  /// cannot select. Each such alloca moves to address space 5 and is cast
  /// back to a generic pointer for its users (as clang's HIP code does).
  static void movePrivateAllocas(llvm::Module &module) {
    constexpr unsigned kPrivate = 5;
    for (llvm::Function &fn : module) {
      llvm::SmallVector<llvm::AllocaInst *> generic;
      for (llvm::Instruction &inst : llvm::instructions(fn))
        if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
            alloca && alloca->getAddressSpace() != kPrivate)
          generic.push_back(alloca);
      for (llvm::AllocaInst *old : generic) {
        auto *moved = new llvm::AllocaInst(old->getAllocatedType(), kPrivate,
                                           old->getArraySize(), old->getAlign(),
                                           old->getName(), old->getIterator());
        auto *cast = new llvm::AddrSpaceCastInst(moved, old->getType(),
                                                 old->getName() + ".generic",
                                                 old->getIterator());
        old->replaceAllUsesWith(cast);
        old->eraseFromParent();
      }
    }
  }

  /// The device libraries read their configuration from __oclc_*
  /// constants that the ROCm toolchain defines per compile: IEEE
  /// behaviour (no fast math, no flushing of denormals), correctly rounded
  /// f32 sqrt, the wave size and the ISA version.
  void defineLibraryControls(llvm::Module &module) const {
    unsigned version = 0;
    {
      // gfxMmS: major * 1000 + minor * 100 + stepping (hex digits).
      llvm::StringRef digits = llvm::StringRef(arch).drop_front(3);
      unsigned minor = 0, stepping = 0;
      digits.take_back(2).take_front(1).getAsInteger(16, minor);
      digits.take_back(1).getAsInteger(16, stepping);
      version = majorOf(arch) * 1000 + minor * 100 + stepping;
    }
    std::pair<const char *, unsigned> controls[] = {
        {"__oclc_finite_only_opt", 0},
        {"__oclc_unsafe_math_opt", 0},
        {"__oclc_daz_opt", 0},
        {"__oclc_correctly_rounded_sqrt32", 1},
        {"__oclc_wavefrontsize64", waveSize() == 64},
        {"__oclc_ISA_version", version},
        {"__oclc_ABI_version", 500}};
    for (auto [name, value] : controls) {
      llvm::GlobalVariable *global = module.getGlobalVariable(name);
      if (!global || !global->isDeclaration())
        continue;
      auto *type = global->getValueType();
      if (!type->isIntegerTy())
        continue;
      global->setInitializer(llvm::ConstantInt::get(type, value));
      global->setConstant(true);
      global->setLinkage(llvm::GlobalValue::PrivateLinkage);
    }
  }

  static llvm::Error badArch(llvm::StringRef archName) {
    return llvm::createStringError(
        "unknown ROCm architecture '" + archName.str() +
        "'; expected an AMD GPU from gfx9 on: gfx90a, gfx942, gfx950, "
        "gfx1030, gfx1100, gfx1201, ...");
  }
};

} // namespace

std::unique_ptr<Target> tlc::createROCmTarget() {
  return std::make_unique<ROCmTarget>();
}
