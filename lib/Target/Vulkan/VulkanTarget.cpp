//===- VulkanTarget.cpp - Tile IR to SPIR-V compute shaders ---------------===//
//
// The shared SPIR-V route (lib/Target/SPIRV) makes the module; the Vulkan
// target ships it as it is. Stubs embed it and launch it through
// tlc/Runtime/tlc_vulkan.h.
//
// -arch names a device profile: the subgroup size the kernels are written
// for (the stub requires it from the device), the workgroup memory they
// may use and the cooperative-matrix shape f16 gemms use (the stub requires
// VK_KHR_cooperative_matrix with that shape from the device).
//
//===----------------------------------------------------------------------===//
#include "VulkanTarget.h"
#include "../SPIRV/SPIRVTarget.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace tlc;

namespace {

const ShaderProfile kProfiles[] = {
    {"generic", 32, 32768,
     "any Vulkan 1.2 device with 32-wide subgroups (NVIDIA, AMD RDNA, "
     "Intel Xe, Apple through MoltenVK)"},
    {"nvidia", 32, 49152,
     "NVIDIA GPUs (f16 gemms on 16x16x16 cooperative matrices)",
     "coopmat_16x16x16_sg32"},
    {"amd", 64, 65536, "AMD GCN/CDNA, RDNA in wave64"},
    {"lavapipe", 8, 32768, "Mesa's lavapipe (llvmpipe, 256-bit vectors)"},
    {"lavapipe-coopmat", 8, 32768,
     "Mesa's lavapipe with VK_KHR_cooperative_matrix (Mesa 26; f16 gemms "
     "on 8x8x8 cooperative matrices)",
     "coopmat_8x8x8_sg8"},
};

class VulkanTarget : public SPIRVBasedTarget {
public:
  ScratchRuntime scratchRuntime() const override {
    return {"tlc/Runtime/tlc_vulkan.h", "tlc::vulkan::Scratch"};
  }
  VulkanTarget() : SPIRVBasedTarget("Vulkan", kProfiles) {}

  llvm::StringRef name() const override { return "vulkan"; }
  llvm::StringRef binaryExtension() const override { return ".spv"; }
  std::vector<EmitStage> emitStages() const override {
    return {{"spirv", EmitKind::Obj, ".spv",
             "the SPIR-V binary (the same as -emit=obj)"}};
  }

protected:
  StubFiles emitShaderStub(const GpuKernelInfo &info,
                           const StubPlacement &placement,
                           const CompiledModule &compiled) const override {
    return emitVulkanStub(info, placement, profile().subgroupSize,
                          pushWordsOf(compiled, info.entryName),
                          compiled.paramsBuffers.contains(info.entryName),
                          compiled.coopMatrixSizes.lookup(info.entryName));
  }

  /// -emit=spirv writes the whole module; the stubs embed one module per
  /// kernel: a driver may size a pipeline's workgroup memory from every
  /// variable of its module (and the validation layer does, VUID 06530).
  bool finish(mlir::spirv::ModuleOp module, llvm::ArrayRef<uint32_t> words,
              CompiledModule &compiled, CompileError &error) const override {
    compiled.bytes.append(reinterpret_cast<const char *>(words.data()),
                          words.size() * sizeof(uint32_t));
    auto points = module.getOps<mlir::spirv::EntryPointOp>();
    if (llvm::hasSingleElement(points))
      return true; // the whole module is that kernel's already
    for (auto point : points) {
      llvm::SmallVector<uint32_t, 0> own;
      if (!serializeEntry(module, point.getFn(), own)) {
        error.diagnosed = true;
        return false;
      }
      compiled.entryBinaries[point.getFn()] =
          std::string(reinterpret_cast<const char *>(own.data()),
                      own.size() * sizeof(uint32_t));
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Target> tlc::createVulkanTarget() {
  return std::make_unique<VulkanTarget>();
}
