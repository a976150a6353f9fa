//===- ShaderStubEmitter.cpp - Launch stubs for Vulkan and Metal ----------===//
//
// NAME.h has the API of every stub; the source embeds the kernel (Vulkan:
// the SPIR-V module; Metal: the MSL text), checks the arguments and
// computes the grid like every stub (StubCommon) and launches entry
// tlc_NAME through the runtime's Kernel (tlc/Runtime/tlc_vulkan.h,
// tlc_metal.h: the same interface). The kernel ABI of both
// (tile-vulkan-prepare-spirv): tensor i at binding/buffer i; 32-bit words
// holding each tensor's element offset in its buffer (the runtime fills
// these), then, in argument order, a tensor's sizes and strides (innermost
// stride 1) and a scalar's value.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/StubEmitter.h"

#include "StubCommon.h"

#include "llvm/Support/raw_ostream.h"

using namespace tlc;
using namespace tlc::stub;

namespace {

/// What differs between the Vulkan and the Metal stub.
struct ShaderRuntime {
  const char *target; // "vulkan"
  const char *title;  // "Vulkan"
  const char *space;  // the runtime's namespace, "tlc::vulkan"
  const char *header; // "tlc/Runtime/tlc_vulkan.h"
  bool textKernel;    // the kernel is text (MSL), not SPIR-V words
  const char *device; // "tlc's Vulkan device (TLC_VULKAN_DEVICE=N picks one)"
  const char *groups; // "workgroups", "threadgroups"
  const char *subgroups; // "subgroups", "SIMD groups"
  const char *loading;   // how the library is found and the stub built
  const char *launching; // what a launch waits for, LaunchOptions
};

const ShaderRuntime kVulkan{
    "vulkan",
    "Vulkan",
    "tlc::vulkan",
    "tlc/Runtime/tlc_vulkan.h",
    false,
    "tlc's Vulkan device (its own: TLC_VULKAN_DEVICE=N\n//    picks one; "
    "or the caller's: tlc::vulkan::useDevice)",
    "workgroups",
    "subgroups",
    "libvulkan.so.1 is loaded with dlopen at the first use. Build:\n"
    "//    g++ -std=c++17 app.cpp NAME.cpp -I<tlc>/include -pthread -ldl",
    "Without LaunchOptions::stream a launch waits until it is done; with a\n"
    "//    VkCommandBuffer there (of tlc's device, recording) it is recorded "
    "into\n"
    "//    it, after a barrier on earlier shader writes, and runs when the "
    "caller\n"
    "//    submits it (needs VK_KHR_push_descriptor)."};

const ShaderRuntime kMetal{
    "metal",
    "Metal",
    "tlc::metal",
    "tlc/Runtime/tlc_metal.h",
    true,
    "the system's default Metal device\n//    (TLC_METAL_DEVICE=N picks "
    "another)",
    "threadgroups",
    "SIMD groups",
    "The MSL is compiled at the first launch (newLibraryWithSource). This\n"
    "//    file is Objective-C++; build on macOS:\n"
    "//    clang++ -std=c++17 app.cpp NAME.mm -I<tlc>/include \\\n"
    "//      -framework Metal -framework Foundation",
    "The launch waits until it is done. LaunchOptions are ignored."};

class ShaderStubEmitter : public EmbeddedBinaryStub {
public:
  ShaderStubEmitter(const ShaderRuntime &runtime, const GpuKernelInfo &info,
                    const StubPlacement &placement, int64_t subgroupSize,
                    const std::vector<int32_t> *pushWords,
                    llvm::StringRef function = "")
      : EmbeddedBinaryStub(info.kernel, placement), runtime(runtime),
        info(info), subgroupSize(subgroupSize), pushWords(pushWords),
        function(function.empty() ? info.entryName : function.str()) {}

  llvm::StringRef targetName() const override { return runtime.target; }
  std::string fillUnits() const override {
    return std::string(runtime.space) + "::multiprocessorCount()";
  }

private:
  const ShaderRuntime &runtime;
  const GpuKernelInfo &info;
  int64_t subgroupSize;
  const std::vector<int32_t> *pushWords;

public:
  /// Vulkan: the words come in a storage buffer.
  bool paramsBuffer = false;
  /// Vulkan: the side of the f16 cooperative matrices the kernel uses (0:
  /// none).
  int64_t coopMatrixSize = 0;

private:
  std::string function;

  std::string abiComment() const override {
    std::string loading = runtime.loading;
    size_t at = loading.find("NAME");
    loading.replace(at, 4, k.name);
    return std::string(R"(//
// Launch ABI (docs/)") +
           runtime.target + R"(.md in the tlc sources has the details):
//  - A tensor argument is a tlc_tensor (tlc::TensorView) whose data is an
//    address of )" +
           runtime.space + R"(::allocate (a buffer plus a byte offset),
//    with dtype code, rank, shape and strides, strides counted in elements.
//    The innermost dimension must be contiguous (stride 1) and data aligned
//    to the element size. Sizes, strides and scalars must fit in 32 bits.
//  - Symbolic dimensions are read from the shapes and must agree across all
//    arguments; fixed dimensions must match exactly.
//  - The kernel runs on )" +
           runtime.device + "\n//    with " + runtime.groups + " of " +
           std::to_string(info.threads) + " threads in " + runtime.subgroups +
           " of " + std::to_string(subgroupSize) + ".\n//    " +
           runtime.launching +
           R"(
//  - Errors are reported as a status: TLC_ERR_INVALID_ARGUMENT (-1),
//    TLC_ERR_ALIGNMENT (-2), TLC_ERR_RUNTIME (-3, driver errors), with a
//    message that starts with the kernel name. Nothing throws through the C
//    entry point; nothing calls exit().
//  - )" + loading +
           "\n";
  }

  llvm::StringRef runtimeHeader() const override { return runtime.header; }

  void emitBinary(llvm::raw_ostream &os) const override {
    const std::vector<uint8_t> &bin = info.binary;
    if (runtime.textKernel) {
      // Bytes, not a string literal: the MSL may exceed what compilers take
      // in one literal. NUL-terminated for newLibraryWithSource.
      os << "namespace {\n// The kernels' MSL (" << bin.size() << " bytes).\n";
      os << "const char " << binaryVar() << "[] = {";
      for (size_t i = 0; i < bin.size(); ++i) {
        if (i % 16 == 0)
          os << "\n   ";
        os << " " << static_cast<int>(static_cast<signed char>(bin[i])) << ",";
      }
      os << " 0\n};\nconstexpr size_t " << binarySizeVar() << " = "
         << bin.size() << ";\n} // namespace\n\n";
      return;
    }
    // 32-bit words: the SPIR-V module's own unit (and alignment).
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
      const std::string a = launchName(i);
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
      os << "    if (!" << runtime.space << "::pushWord(" << source
         << ", tlc_words[" << w << "]))\n"
         << "      return tlc::runtime::invalidArgument(std::string("
         << quotedName() << ") + \": " << what << " does not fit in 32 bits ("
         << runtime.title << " kernels take 32-bit sizes)\");\n";
    }
    // The kernel's block holds the words it reads, listed by their index
    // in the ABI's list (all of them when the kernel is not known).
    size_t words = tensors.size() + wordSources.size();
    std::vector<int32_t> block;
    if (pushWords)
      block = *pushWords;
    else
      for (size_t w = 0; w < words; ++w)
        block.push_back(static_cast<int32_t>(w));
    for (int32_t w : block)
      if (w < 0 || static_cast<size_t>(w) >= words) {
        os << "#error \"tlc: the kernel reads word " << w
           << " of its push constants; this stub has " << words << "\"\n";
        break;
      }
    os << "    static const uint32_t tlc_push_words[] = {";
    for (size_t i = 0; i < block.size(); ++i)
      os << (i ? ", " : "") << block[i];
    os << (block.empty() ? "0" : "") << "};\n";
    os << "    static " << runtime.space << "::Kernel tlc_kernel("
       << binaryVar() << ", " << binarySizeVar() << ", \"" << info.entryName
       << "\", ";
    if (runtime.textKernel) // the unit's macro names the entry point
      os << "\"" << function << "\", ";
    os << tensors.size() << ", tlc_push_words, " << block.size() << ", "
       << info.threads << ", " << subgroupSize;
    if (!runtime.textKernel)
      os << ", /*paramsBuffer=*/" << (paramsBuffer ? "true" : "false");
    if (coopMatrixSize)
      os << ", /*coopMatrixSize=*/" << coopMatrixSize;
    os << ");\n";
    os << "    return tlc_kernel.launch(" << quotedName()
       << ", tlc_gx, tlc_gy, tlc_gz, tlc_tensors, tlc_element_bytes, "
          "tlc_words"
       << (runtime.textKernel ? "" : ", options.stream") << ");\n";
  }
};

} // namespace

StubFiles tlc::emitVulkanStub(const GpuKernelInfo &info,
                              const StubPlacement &placement,
                              int64_t subgroupSize,
                              const std::vector<int32_t> *pushWords,
                              bool paramsBuffer, int64_t coopMatrixSize) {
  ShaderStubEmitter emitter(kVulkan, info, placement, subgroupSize, pushWords);
  emitter.paramsBuffer = paramsBuffer;
  emitter.coopMatrixSize = coopMatrixSize;
  return emitter.emit();
}

StubFiles tlc::emitMetalStub(const GpuKernelInfo &info,
                             const StubPlacement &placement,
                             int64_t subgroupSize,
                             const std::vector<int32_t> *pushWords,
                             llvm::StringRef function) {
  return ShaderStubEmitter(kMetal, info, placement, subgroupSize, pushWords,
                           function)
      .emit();
}
