//===- CUDATarget.h - The CUDA target --------------------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_CUDA_CUDATARGET_H
#define TLC_LIB_TARGET_CUDA_CUDATARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
/// NVIDIA GPUs: PTX through LLVM's NVPTX backend, cubin through ptxas,
/// fatbin (cubin + PTX) through fatbinary, stubs that embed the fatbin.
std::unique_ptr<Target> createCUDATarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_CUDA_CUDATARGET_H
