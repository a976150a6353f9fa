//===- Wgmma.h - Hopper's warpgroup MMA kind ------------------*- C++ -*-===//
#ifndef TLC_CONVERSION_TILETOGPU_NVIDIA_WGMMA_H
#define TLC_CONVERSION_TILETOGPU_NVIDIA_WGMMA_H

#include "../KernelLowering.h"

#include <memory>

namespace tlc::gpu_lowering::nvidia {

/// The name sm_90a targets list first in their #tile.target `mma`.
constexpr llvm::StringLiteral kWgmmaKind = "wgmma_m64nNk16";

std::unique_ptr<tile::MmaKind> createWgmmaKind();
/// wgmma.mma_async for `op` when its accumulator has kind's layout and its
/// operands are swizzled shared tiles; failure (nothing emitted) otherwise.
mlir::LogicalResult lowerWgmma(KernelLowering &k, tile::GemmOp op,
                               const tile::MmaKind &kind);

} // namespace tlc::gpu_lowering::nvidia

#endif // TLC_CONVERSION_TILETOGPU_NVIDIA_WGMMA_H
