//===- Registry.cpp - The list of code-generation targets -----------------===//
#include "tlc/Target/Target.h"

#include "CPU/CPUTarget.h"

using namespace tlc;

std::unique_ptr<Target> tlc::createTarget(llvm::StringRef name,
                                          std::string &known) {
  known = "cpu";
  if (name == "cpu")
    return createCPUTarget();
  return nullptr;
}
