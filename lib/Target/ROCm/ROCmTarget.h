//===- ROCmTarget.h - The ROCm target --------------------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_ROCM_ROCMTARGET_H
#define TLC_LIB_TARGET_ROCM_ROCMTARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
/// AMD GPUs: AMDGPU code objects (HSACO) through LLVM's AMDGPU backend and
/// ld.lld, with the ROCm device libraries linked for math; stubs that
/// embed the code object and launch it through HIP.
std::unique_ptr<Target> createROCmTarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_ROCM_ROCMTARGET_H
