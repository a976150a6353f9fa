//===- VulkanTarget.h - The Vulkan target ----------------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_VULKAN_VULKANTARGET_H
#define TLC_LIB_TARGET_VULKAN_VULKANTARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
/// Vulkan compute: SPIR-V shaders through MLIR's SPIR-V dialect (one
/// module, one entry point per kernel), stubs that embed the SPIR-V and
/// launch it through libvulkan (tlc_vulkan.h).
std::unique_ptr<Target> createVulkanTarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_VULKAN_VULKANTARGET_H
