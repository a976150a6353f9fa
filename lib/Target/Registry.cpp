//===- Registry.cpp - The list of code-generation targets -----------------===//
#include "tlc/Target/Target.h"

#include "CPU/CPUTarget.h"
#include "CUDA/CUDATarget.h"

using namespace tlc;

std::unique_ptr<Target> tlc::createTarget(llvm::StringRef name,
                                          std::string &known) {
  known = "cpu, cuda (launch stubs only: -emit=stub)";
  if (name == "cpu")
    return createCPUTarget();
  if (name == "cuda")
    return createCUDATarget();
  return nullptr;
}
