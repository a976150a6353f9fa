//===- CUDATarget.h - The CUDA target (launch stubs only so far) -*- C++
//-*-===//
#ifndef TLC_LIB_TARGET_CUDA_CUDATARGET_H
#define TLC_LIB_TARGET_CUDA_CUDATARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
/// The CUDA target. Only launch stubs exist yet (with no device binary);
/// every code-generation step fails with "code generation for the cuda
/// target is not implemented yet".
std::unique_ptr<Target> createCUDATarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_CUDA_CUDATARGET_H
