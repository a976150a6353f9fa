//===- VulkanStubEmitter.cpp - C++/C launch stubs for Vulkan kernels ------===//
#include "tlc/Stub/StubEmitter.h"

#include "StubCommon.h"

using namespace tlc;

StubFiles tlc::emitVulkanStub(const GpuKernelInfo &info,
                              const StubPlacement &placement,
                              int64_t subgroupSize) {
  return {};
}
