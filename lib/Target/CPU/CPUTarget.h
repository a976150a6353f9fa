//===- CPUTarget.h - The CPU target -----------------------------*- C++ -*-===//
#ifndef TLC_LIB_TARGET_CPU_CPUTARGET_H
#define TLC_LIB_TARGET_CPU_CPUTARGET_H

#include "tlc/Target/Target.h"

namespace tlc {
std::unique_ptr<Target> createCPUTarget();
} // namespace tlc

#endif // TLC_LIB_TARGET_CPU_CPUTARGET_H
