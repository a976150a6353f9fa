//===- VulkanStubEmitter.cpp - C++/C launch stubs for Vulkan kernels ------===//
//
// NAME.h has the API of every stub; NAME.cpp embeds the SPIR-V module,
// checks the arguments and computes the grid like every stub (StubCommon)
// and launches entry tlc_NAME through tlc::vulkan::Kernel
// (tlc/Runtime/tlc_vulkan.h). The Vulkan ABI (tile-vulkan-prepare-spirv):
// tensor i at binding i of set 0; 32-bit push constants holding each
// tensor's element offset in its binding (the runtime fills these), then,
// in argument order, a tensor's sizes and strides (innermost stride 1) and
// a scalar's value.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/StubEmitter.h"

#include "StubCommon.h"

#include "llvm/Support/raw_ostream.h"

using namespace tlc;
using namespace tlc::stub;

namespace {

class VulkanStubEmitter : public EmbeddedBinaryStub {
public:
  VulkanStubEmitter(const GpuKernelInfo &info, const StubPlacement &placement,
                    int64_t subgroupSize, int64_t pushWords)
      : EmbeddedBinaryStub(info.kernel, placement), info(info),
        subgroupSize(subgroupSize), pushWords(pushWords) {}

  llvm::StringRef targetName() const override { return "vulkan"; }
  std::string fillUnits() const override {
    return "tlc::vulkan::multiprocessorCount()";
  }

private:
  const GpuKernelInfo &info;
  int64_t subgroupSize, pushWords;

  std::string abiComment() const override {
    return R"(//
// Launch ABI (docs/vulkan.md in the tlc sources has the details):
//  - A tensor argument is a tlc_tensor (tlc::TensorView) whose data is an
//    address of tlc::vulkan::allocate (a Vulkan buffer plus a byte offset),
//    with dtype code, rank, shape and strides, strides counted in elements.
//    The innermost dimension must be contiguous (stride 1) and data aligned
//    to the element size. Sizes, strides and scalars must fit in 32 bits.
//  - Symbolic dimensions are read from the shapes and must agree across all
//    arguments; fixed dimensions must match exactly.
//  - The kernel runs on tlc's Vulkan device (TLC_VULKAN_DEVICE=N picks
//    one) with workgroups of )" +
           std::to_string(info.threads) + " invocations in subgroups of " +
           std::to_string(subgroupSize) + R"(; the
//    launch waits until it is done. LaunchOptions are ignored.
//  - Errors are reported as a status: TLC_ERR_INVALID_ARGUMENT (-1),
//    TLC_ERR_ALIGNMENT (-2), TLC_ERR_RUNTIME (-3, Vulkan errors), with a
//    message that starts with the kernel name. Nothing throws through the C
//    entry point; nothing calls exit().
//  - libvulkan.so.1 is loaded with dlopen at the first use. Build:
//    g++ -std=c++17 app.cpp )" +
           k.name + R"(.cpp -I<tlc>/include -pthread -ldl
)";
  }

  llvm::StringRef runtimeHeader() const override {
    return "tlc/Runtime/tlc_vulkan.h";
  }

  void emitBinary(llvm::raw_ostream &os) const override {
    // 32-bit words: the SPIR-V module's own unit (and alignment).
    const std::vector<uint8_t> &bin = info.binary;
    os << "namespace {\n// The SPIR-V module (" << bin.size() << " bytes).\n";
    os << "const uint32_t " << binaryVar() << "[] = {";
    if (bin.size() < 4)
      os << "0";
    for (size_t i = 0; i + 3 < bin.size(); i += 4) {
      if (i % 32 == 0)
        os << "\n   ";
      uint32_t word = bin[i] | bin[i + 1] << 8 | bin[i + 2] << 16 |
                      uint32_t(bin[i + 3]) << 24;
      os << " 0x";
      os.write_hex(word);
      os << "u,";
    }
    os << "\n};\nconstexpr size_t " << binarySizeVar() << " = " << bin.size()
       << ";\n} // namespace\n\n";
  }

  void emitBody(llvm::raw_ostream &os) override {
    emitArgumentChecks(os);
    emitGrid(os);
    std::vector<std::string> tensors, elementBytes;
    std::vector<std::pair<std::string, std::string>> wordSources;
    for (unsigned i = 0; i < k.args.size(); ++i) {
      const std::string &a = argNames[i];
      const Type &type = k.args[i].type;
      if (!isTensor(i)) {
        bool isFloatArg = hostKindOf(type) == HostKind::Float;
        wordSources.push_back({isFloatArg ? "static_cast<float>(" + a + ")"
                                          : "static_cast<int64_t>(" + a + ")",
                               "argument " + k.args[i].name});
        continue;
      }
      tensors.push_back(a + ".data");
      elementBytes.push_back(std::to_string(byteSize(type.dtype)));
      unsigned rank = type.rank();
      for (unsigned d = 0; d < rank; ++d)
        wordSources.push_back({a + ".shape[" + std::to_string(d) + "]",
                               "the size of " + k.args[i].name});
      for (unsigned d = 0; d + 1 < rank; ++d)
        wordSources.push_back({a + ".strides[" + std::to_string(d) + "]",
                               "a stride of " + k.args[i].name});
      if (rank)
        wordSources.push_back({"1", ""}); // the innermost stride
    }
    os << "    const void *tlc_tensors[] = {";
    for (size_t t = 0; t < tensors.size(); ++t)
      os << (t ? ", " : "") << tensors[t];
    os << (tensors.empty() ? "nullptr" : "") << "};\n";
    os << "    const uint32_t tlc_element_bytes[] = {";
    for (size_t t = 0; t < elementBytes.size(); ++t)
      os << (t ? ", " : "") << elementBytes[t];
    os << (elementBytes.empty() ? "0" : "") << "};\n";
    os << "    uint32_t tlc_words[" << std::max<size_t>(wordSources.size(), 1)
       << "] = {};\n";
    for (size_t w = 0; w < wordSources.size(); ++w) {
      const auto &[source, what] = wordSources[w];
      if (what.empty()) { // a constant
        os << "    tlc_words[" << w << "] = " << source << ";\n";
        continue;
      }
      os << "    if (!tlc::vulkan::pushWord(" << source << ", tlc_words[" << w
         << "]))\n"
         << "      return tlc::runtime::invalidArgument(std::string("
         << quotedName() << ") + \": " << what
         << " does not fit in 32 bits (Vulkan kernels take 32-bit sizes)\");\n";
    }
    size_t words = tensors.size() + wordSources.size();
    if (pushWords && static_cast<size_t>(pushWords) != words)
      os << "#error \"tlc: the kernel reads " << pushWords
         << " push-constant words; this stub would write " << words << "\"\n";
    os << "    static tlc::vulkan::Kernel tlc_kernel(" << binaryVar() << ", "
       << binarySizeVar() << ", \"" << info.entryName << "\", "
       << tensors.size() << ", " << words << ", " << info.threads << ", "
       << subgroupSize << ");\n";
    os << "    return tlc_kernel.launch(" << quotedName()
       << ", tlc_gx, tlc_gy, tlc_gz, tlc_tensors, tlc_element_bytes, "
          "tlc_words);\n";
  }
};

} // namespace

StubFiles tlc::emitVulkanStub(const GpuKernelInfo &info,
                              const StubPlacement &placement,
                              int64_t subgroupSize, int64_t pushWords) {
  return VulkanStubEmitter(info, placement, subgroupSize, pushWords).emit();
}
