//===- Registry.cpp - The list of code-generation targets -----------------===//
#include "tlc/Target/Target.h"

#include "CPU/CPUTarget.h"
#include "CUDA/CUDATarget.h"
#include "Metal/MetalTarget.h"
#include "ROCm/ROCmTarget.h"
#include "Vulkan/VulkanTarget.h"

using namespace tlc;

namespace {
struct TargetEntry {
  const char *name;
  std::unique_ptr<Target> (*create)();
};
const TargetEntry kTargets[] = {{"cpu", createCPUTarget},
                                {"cuda", createCUDATarget},
                                {"rocm", createROCmTarget},
                                {"vulkan", createVulkanTarget},
                                {"metal", createMetalTarget}};
} // namespace

std::vector<std::string> tlc::targetNames() {
  std::vector<std::string> names;
  for (const TargetEntry &t : kTargets)
    names.push_back(t.name);
  return names;
}

std::unique_ptr<Target> tlc::createTarget(llvm::StringRef name,
                                          std::string &known) {
  known.clear();
  for (const TargetEntry &t : kTargets)
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  for (const TargetEntry &t : kTargets)
    if (name == t.name)
      return t.create();
  return nullptr;
}
