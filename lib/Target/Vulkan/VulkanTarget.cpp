//===- VulkanTarget.cpp - Tile IR to SPIR-V compute shaders ---------------===//
//
// The tile IR becomes gpu.func kernels like on every GPU (the shared
// tile-to-gpu pipeline, with Vulkan's #tile.target: no asynchronous copies,
// no matrix instructions yet); tile-vulkan-prepare-spirv rewrites them into
// the Vulkan ABI and flat memory, tile-vulkan-convert-to-spirv makes the
// spirv.module, upstream's spirv-lower-abi-attrs and spirv-update-vce
// finish it and MLIR's serializer writes the SPIR-V binary. Stubs embed it
// and launch it through tlc/Runtime/tlc_vulkan.h.
//
// -arch names a device profile: the subgroup size the kernels are written
// for (the stub requires it from the device) and the workgroup memory they
// may use.
//
//===----------------------------------------------------------------------===//
#include "VulkanTarget.h"
#include "../GPU/GPUTarget.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;

namespace {

/// A device profile of -arch.
struct VulkanProfile {
  const char *name;
  int64_t subgroupSize;
  int64_t workgroupBytes;
  const char *devices;
};

const VulkanProfile kProfiles[] = {
    {"generic", 32, 32768,
     "any Vulkan 1.2 device with 32-wide subgroups (NVIDIA, AMD RDNA, "
     "Intel Xe, Apple through MoltenVK)"},
    {"nvidia", 32, 49152, "NVIDIA GPUs"},
    {"amd", 64, 65536, "AMD GCN/CDNA, RDNA in wave64"},
    {"lavapipe", 8, 32768, "Mesa's lavapipe (llvmpipe, 256-bit vectors)"},
};

class VulkanTarget : public Target {
public:
  llvm::StringRef name() const override { return "vulkan"; }
  llvm::StringRef defaultArch() const override { return "generic"; }
  std::string archHelp() const override {
    std::string help;
    for (const VulkanProfile &p : kProfiles)
      help += std::string(help.empty() ? "" : ", ") + p.name +
              (p.name == defaultArch() ? " (default)" : "");
    return help + " (a device profile: subgroup size and workgroup memory)";
  }
  llvm::Error setArch(llvm::StringRef arch) override {
    for (const VulkanProfile &p : kProfiles)
      if (arch == p.name) {
        profile = &p;
        return llvm::Error::success();
      }
    std::string names;
    for (const VulkanProfile &p : kProfiles)
      names += std::string(names.empty() ? "" : ", ") + p.name;
    return llvm::createStringError("unknown Vulkan architecture '" +
                                   arch.str() + "'; expected one of " + names);
  }
  TargetConstants languageConstants() const override {
    return {profile->workgroupBytes, profile->subgroupSize};
  }
  llvm::StringRef binaryExtension() const override { return ".spv"; }
  llvm::StringRef asmExtension() const override { return ".spirv.mlir"; }
  std::vector<EmitStage> emitStages() const override {
    return {{"spirv", EmitKind::Obj, ".spv",
             "the SPIR-V binary (the same as -emit=obj)"}};
  }

  mlir::Attribute describe(mlir::MLIRContext &ctx) const override {
    ctx.getOrLoadDialect<tile::TileDialect>();
    // 4-byte vectors: SPIR-V's logical addressing has no vector access to
    // a scalar array, so the kernels load element by element.
    return tile::TargetAttr::get(&ctx, name(), profile->name,
                                 profile->subgroupSize, profile->workgroupBytes,
                                 /*maxThreads=*/1024, /*maxRegisters=*/255,
                                 /*vectorBytes=*/4, /*asyncCopy=*/false, "");
  }
  void buildTilePipeline(mlir::OpPassManager &pm) const override {
    pm.addPass(tile::createTileInferLayouts());
  }

  std::optional<CompiledModule> compile(mlir::ModuleOp module, EmitKind kind,
                                        const CompileOptions &options,
                                        CompileError &error) const override {
    if (kind == EmitKind::LLVM || kind == EmitKind::DeviceImage) {
      error.message = "the vulkan target has no LLVM IR stage; use "
                      "-emit=gpu, asm (the SPIR-V dialect) or spirv";
      error.status = 1;
      return std::nullopt;
    }
    mlir::PassManager pm(module.getContext());
    if (options.configurePasses)
      options.configurePasses(pm);
    buildTileToGPUPipeline(pm);
    if (kind != EmitKind::GPU) {
      pm.addPass(createTileVulkanPrepareSPIRV());
      pm.addPass(createTileVulkanConvertToSPIRV());
      mlir::OpPassManager &spirvPm = pm.nest<mlir::spirv::ModuleOp>();
      spirvPm.addPass(mlir::spirv::createSPIRVLowerABIAttributesPass());
      spirvPm.addPass(mlir::spirv::createSPIRVUpdateVCEPass());
      spirvPm.addPass(mlir::createCanonicalizerPass());
    }
    if (mlir::failed(pm.run(module))) {
      error.diagnosed = true;
      return std::nullopt;
    }
    CompiledModule compiled;
    module.walk([&](mlir::spirv::FuncOp func) {
      if (auto words = func->getAttrOfType<mlir::IntegerAttr>(
              tile::attr::kVulkanPushWords))
        compiled.pushConstantWords[func.getName()] = words.getInt();
    });
    llvm::raw_string_ostream os(compiled.bytes);
    if (kind == EmitKind::GPU) {
      module.print(os);
      return compiled;
    }
    mlir::spirv::ModuleOp spirvModule;
    module.walk([&](mlir::spirv::ModuleOp m) { spirvModule = m; });
    if (!spirvModule) // no kernel: no SPIR-V (the stubs launch nothing)
      return compiled;
    finishModule(spirvModule);
    if (kind == EmitKind::Asm) {
      spirvModule.print(os);
      return compiled;
    }
    llvm::SmallVector<uint32_t, 0> words;
    if (mlir::failed(mlir::spirv::serialize(spirvModule, words))) {
      error.diagnosed = true;
      return std::nullopt;
    }
    os.write(reinterpret_cast<const char *>(words.data()),
             words.size() * sizeof(uint32_t));
    return compiled;
  }

  bool stubsEmbedBinary() const override { return true; }
  void emitStub(const KernelSignature &kernel, const CompiledModule &compiled,
                const StubPlacement &placement, std::string &header,
                std::string &source) const override {
    bool needsBinary = !placement.binaryEmbedded && !placement.dispatch;
    GpuKernelInfo info{
        kernel, tile::kernelEntryName(kernel.name), kernel.threads, 0,
        needsBinary
            ? std::vector<uint8_t>(compiled.bytes.begin(), compiled.bytes.end())
            : std::vector<uint8_t>()};
    StubFiles files =
        emitVulkanStub(info, placement, profile->subgroupSize,
                       compiled.pushConstantWords.lookup(info.entryName));
    header = std::move(files.header);
    source = std::move(files.source);
  }

private:
  const VulkanProfile *profile = &kProfiles[0];

  /// spirv-lower-abi-attrs gives every interface variable a descriptor
  /// set and binding; Vulkan forbids them on the push-constant block. The
  /// entry points list every global they use, which needs SPIR-V 1.4 or
  /// newer: spirv-update-vce may have chosen an older version.
  static void finishModule(mlir::spirv::ModuleOp module) {
    if (auto triple = module.getVceTriple();
        triple && triple->getVersion() < mlir::spirv::Version::V_1_5)
      module.setVceTripleAttr(mlir::spirv::VerCapExtAttr::get(
          mlir::spirv::Version::V_1_5,
          llvm::to_vector(triple->getCapabilities()),
          llvm::to_vector(triple->getExtensions()), module.getContext()));
    module.walk([](mlir::spirv::GlobalVariableOp var) {
      auto type = llvm::cast<mlir::spirv::PointerType>(var.getType());
      if (type.getStorageClass() != mlir::spirv::StorageClass::PushConstant)
        return;
      var->removeAttr("descriptor_set");
      var->removeAttr("binding");
    });
  }
};

} // namespace

std::unique_ptr<Target> tlc::createVulkanTarget() {
  return std::make_unique<VulkanTarget>();
}
