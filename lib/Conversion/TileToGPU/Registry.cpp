//===- Registry.cpp - The GPU vendors of convert-tile-to-gpu --------------===//
//
// The one list of vendor lowerings: each registers its GPUTargetInfo and
// its MMA kinds. A new GPU target adds its folder and one line here.
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"

#include "tlc/Conversion/Passes.h"

void tlc::registerGPUTargets() {
  gpu_lowering::nvidia::registerTargetInfo();
  gpu_lowering::amd::registerTargetInfo();
  gpu_lowering::vulkan::registerTargetInfo();
}
