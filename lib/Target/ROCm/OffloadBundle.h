//===- OffloadBundle.h - Code objects of several chips in one file -*- C++
//-*-===//
//
// The clang offload bundle format that HIP's module loader reads: the magic
// "__CLANG_OFFLOAD_BUNDLE__", the number of entries, per entry its offset,
// size and ID ("hipv4-amdgcn-amd-amdhsa--gfx942"), then the code objects.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_TARGET_ROCM_OFFLOADBUNDLE_H
#define TLC_LIB_TARGET_ROCM_OFFLOADBUNDLE_H

#include <string>
#include <utility>
#include <vector>

namespace tlc {
/// A bundle of (arch, code object) entries, each code object 4096-byte
/// aligned, after an empty host entry as clang writes one.
std::string writeOffloadBundle(
    const std::vector<std::pair<std::string, std::string>> &codeObjects);
} // namespace tlc

#endif // TLC_LIB_TARGET_ROCM_OFFLOADBUNDLE_H
