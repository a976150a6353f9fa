//===- VulkanTargetInfo.cpp - Vulkan's part of the tile lowering ----------===//
//
// What convert-tile-to-gpu uses on Vulkan: subgroup shuffles of the
// subgroup size the -arch promises (the stub requires it from the device
// through VK_EXT_subgroup_size_control) through the default gpu.shuffle,
// which convert-gpu-to-spirv turns into OpGroupNonUniformShuffleXor. There
// are no asynchronous copies and no matrix instructions yet: gemms take
// the FMA path. Everything SPIR-V's logical addressing cannot express
// (pointer arguments, reinterpreted and strided views, one shared buffer
// of bytes) is rewritten afterwards by tile-vulkan-prepare-spirv.
//
//===----------------------------------------------------------------------===//
#include "../TargetInfo.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

void gpu_lowering::vulkan::registerTargetInfo() {
  // Metal's kernels are this SPIR-V, translated to MSL: the same lowering.
  for (llvm::StringRef vendor : {"vulkan", "metal"})
    registerGPUTargetInfo(
        vendor,
        [](tile::TargetAttr target) -> std::unique_ptr<GPUTargetInfo> {
          // The defaults are Vulkan's (shuffles through gpu.shuffle).
          return std::make_unique<GPUTargetInfo>(target);
        },
        [](DialectRegistry &registry) {
          registry.insert<spirv::SPIRVDialect>();
        });
}
