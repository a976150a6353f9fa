//===- MetalTarget.h - The Metal target ------------------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_METAL_METALTARGET_H
#define TLC_LIB_TARGET_METAL_METALTARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
/// Metal compute: the SPIR-V of the Vulkan route translated to the Metal
/// Shading Language by SPIRV-Cross; Objective-C++ stubs (.mm) embed the MSL
/// and compile it at the first launch through tlc_metal.h (macOS only).
std::unique_ptr<Target> createMetalTarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_METAL_METALTARGET_H
