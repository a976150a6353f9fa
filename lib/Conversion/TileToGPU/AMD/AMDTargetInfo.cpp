//===- AMDTargetInfo.cpp - AMD's instructions in the tile lowering --------===//
//
// What convert-tile-to-gpu uses on AMD GPUs: wave-wide shuffles (64 lanes
// on CDNA, 32 on RDNA) through the default gpu.shuffle. No asynchronous
// copies: pipelined loops stay synchronous.
//
//===----------------------------------------------------------------------===//
#include "../KernelLowering.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

class AMDTargetInfo : public GPUTargetInfo {
public:
  using GPUTargetInfo::GPUTargetInfo;
};

} // namespace

void gpu_lowering::amd::registerTargetInfo() {
  registerGPUTargetInfo(
      "rocm",
      [](tile::TargetAttr target) -> std::unique_ptr<GPUTargetInfo> {
        return std::make_unique<AMDTargetInfo>(target);
      },
      [](DialectRegistry &) {});
}
