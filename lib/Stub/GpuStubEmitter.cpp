//===- GpuStubEmitter.cpp - C++/C launch stubs for CUDA and ROCm kernels --===//
//
// The GPU stubs: NAME.h has the same API as the CPU stub; NAME.cpp embeds the
// device binary as a byte array, checks the arguments and computes the grid
// like every stub (StubCommon), then launches entry `tlc_NAME` through the
// Kernel class of a runtime header (tlc_cuda.h: libcuda, module per context;
// tlc_hip.h: libamdhip64, module per device), which loads the GPU library
// with dlopen. CUDA and HIP stubs differ only in that header and in the
// words of the ABI comment. Kernel parameters, in argument order: for a
// tensor of rank R `T *data, int64_t size_0..size_{R-1}, int64_t
// stride_0..stride_{R-1}` (in elements); for a scalar its value.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/StubEmitter.h"

#include "StubCommon.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace tlc;
using namespace tlc::stub;
using llvm::StringRef;

namespace {

/// What a stub says and includes to launch through one GPU runtime. The
/// comment fragments are worded so that the lines keep their wrapping.
struct GpuRuntime {
  /// The target name in the generation note ("cuda", "rocm").
  StringRef target;
  /// The runtime header with the Kernel class, and its namespace in tlc::.
  StringRef header;
  StringRef cxxNamespace;
  /// The runtime's name in "CUDA device memory" and "CUDA errors".
  StringRef vendor;
  /// What LaunchOptions::stream is.
  StringRef streamType;
  /// Where the kernel runs, between "NULL is the default stream)" and ", with
  /// N threads" (continuation lines start with "//    ").
  StringRef placement;
  /// What the dynamic shared memory is called.
  StringRef sharedMemory;
  /// The library loaded at the first launch.
  StringRef library;
};

const GpuRuntime cudaRuntime = {
    "cuda",
    "tlc/Runtime/tlc_cuda.h",
    "cuda",
    "CUDA",
    "CUstream",
    " in the context current on the\n"
    "//    calling thread (device 0's primary context when there is none)",
    "shared memory",
    "libcuda.so.1",
};

const GpuRuntime hipRuntime = {
    "rocm",
    "tlc/Runtime/tlc_hip.h",
    "hip",
    "HIP",
    "hipStream_t",
    " on the current HIP device\n"
    "//    (hipGetDevice: device 0 unless hipSetDevice chose another)",
    "LDS (shared memory)",
    "libamdhip64.so",
};

class GpuStubEmitter : public EmbeddedBinaryStub {
public:
  GpuStubEmitter(const GpuRuntime &runtime, const GpuKernelInfo &info,
                 const StubPlacement &placement)
      : EmbeddedBinaryStub(info.kernel, placement), runtime(runtime),
        info(info) {}

  llvm::StringRef targetName() const override { return runtime.target; }
  std::string fillUnits() const override {
    return "tlc::" + runtime.cxxNamespace.str() + "::multiprocessorCount()";
  }
  int64_t fillBlocksPerUnit(size_t v) const override {
    return v < info.fillBlocksPerUnit.size() ? info.fillBlocksPerUnit[v] : 0;
  }

private:
  const GpuRuntime &runtime;
  const GpuKernelInfo &info;

  std::string abiComment() const override {
    std::string vendor = runtime.vendor.str();
    return R"(//
// Launch ABI (docs/abi.md in the tlc sources has the details):
//  - A tensor argument is a tlc_tensor (tlc::TensorView) whose data is )" +
           vendor + R"(
//    device memory (or memory the device can access): data pointer, dtype
//    code, rank, shape and strides, strides counted in elements. The innermost
//    dimension must be contiguous (stride 1) and data aligned to the element
//    size. The caller owns the memory; the kernel writes only `out`/`inout`
//    tensors.
//  - Symbolic dimensions are read from the shapes and must agree across all
//    arguments; fixed dimensions must match exactly.
//  - The kernel is launched asynchronously on LaunchOptions::stream (a
//    )" + runtime.streamType.str() +
           "; NULL is the default stream)" + runtime.placement.str() +
           launchShape() + R"(. num_threads is ignored.
//  - Errors are reported as a status: TLC_ERR_INVALID_ARGUMENT (-1),
//    TLC_ERR_ALIGNMENT (-2), TLC_ERR_RUNTIME (-3, )" +
           vendor + " errors, with the " + vendor + R"(
//    error name and text), with a message that starts with the kernel name.
//    Nothing throws through the C entry point; nothing calls exit().
//  - )" + runtime.library.str() +
           R"( is loaded with dlopen at the first launch. Build:
//    g++ -std=c++17 app.cpp )" +
           k.name + R"(.cpp -I<tlc>/include -pthread -ldl
)";
  }

  /// ", with N threads\n//    per block and B bytes of dynamic shared memory".
  std::string launchShape() const {
    if (placement.dispatch)
      return ",\n//    with the threads per block and dynamic " +
             runtime.sharedMemory.str() + " of the variant\n//    it picks";
    return ", with " + std::to_string(info.threads) +
           " threads\n//    per block and " +
           std::to_string(info.dynamicSharedBytes) + " bytes of dynamic " +
           runtime.sharedMemory.str();
  }

  llvm::StringRef runtimeHeader() const override { return runtime.header; }

  void emitBinary(llvm::raw_ostream &os) const override {
    const std::vector<uint8_t> &bin = info.binary;
    os << "namespace {\n// The device binary (entry " << info.entryName << ", "
       << bin.size() << " bytes).\n";
    // A string literal: C++ compilers read one several times faster than
    // a braced list of byte values (a 700 KB binary: no measurable time
    // against 0.8 s with g++ -O2). Octal escapes, which end after three
    // digits, for all but printable characters; '?' too (trigraphs).
    os << "alignas(64) const char " << binaryVar() << "[] =";
    if (bin.empty())
      os << " \"\"";
    for (size_t i = 0; i < bin.size(); ++i) {
      if (i % 64 == 0)
        os << (i ? "\"\n    \"" : "\n    \"");
      uint8_t byte = bin[i];
      if (byte >= 0x20 && byte < 0x7f && byte != '"' && byte != '\\' &&
          byte != '?')
        os << static_cast<char>(byte);
      else
        os << '\\' << static_cast<char>('0' + (byte >> 6))
           << static_cast<char>('0' + ((byte >> 3) & 7))
           << static_cast<char>('0' + (byte & 7));
    }
    if (!bin.empty())
      os << "\"";
    os << ";\nconstexpr size_t " << binarySizeVar() << " = " << bin.size()
       << ";\n} // namespace\n\n";
  }

  void emitBody(llvm::raw_ostream &os) override {
    emitArgumentChecks(os);
    emitGrid(os);

    // Kernel parameters: one variable per tensor pointer and size/stride
    // array (the innermost stride is passed as 1, like on the CPU).
    std::vector<std::string> params;
    std::map<unsigned, unsigned> argOfParam; // tensor data parameters
    for (unsigned i = 0; i < k.args.size(); ++i) {
      const std::string a = launchName(i);
      if (!isTensor(i)) {
        params.push_back("&" + a);
        continue;
      }
      argOfParam[params.size()] = i;
      unsigned rank = k.args[i].type.rank();
      os << "    void *tlc_data_" << a << " = " << a << ".data;\n";
      os << "    int64_t tlc_dims_" << a << "[" << 2 * rank << "] = {";
      for (unsigned d = 0; d < rank; ++d)
        os << a << ".shape[" << d << "], ";
      for (unsigned d = 0; d + 1 < rank; ++d)
        os << a << ".strides[" << d << "], ";
      os << "1};\n";
      params.push_back("&tlc_data_" + a);
      for (unsigned d = 0; d < 2 * rank; ++d)
        params.push_back("&tlc_dims_" + a + "[" + std::to_string(d) + "]");
    }
    if (params.empty()) {
      os << "    void **tlc_params = nullptr;\n";
    } else {
      os << "    void *tlc_params[] = {";
      for (size_t i = 0; i < params.size(); ++i)
        os << (i ? ", " : "") << params[i];
      os << "};\n";
    }
    os << "    static tlc::" << runtime.cxxNamespace << "::Kernel tlc_kernel("
       << binaryVar() << ", " << binarySizeVar() << ", \"" << info.entryName
       << "\", " << info.dynamicSharedBytes << ");\n";
    if (!info.tensorMaps.empty() &&
        !emitTensorCopyLaunch(os, params, argOfParam))
      return;
    bool tensorCopies = !info.tensorMaps.empty();
    os << "    return " << (tensorCopies ? "tlc_fallback" : "tlc_kernel")
       << ".launch(" << quotedName() << ", tlc_gx, tlc_gy, tlc_gz, "
       << (tensorCopies ? info.fallbackThreads : info.threads)
       << ", options.stream, tlc_params);\n";
  }

  /// A kernel with tensor copies: its entry with the tensor maps appended
  /// to the parameters when every tensor it loads suits the tensor-copy
  /// unit (the tensors it only stores through maps set its store flag:
  /// docs/abi.md); the fallback entry (the statements after these)
  /// otherwise.
  bool emitTensorCopyLaunch(llvm::raw_ostream &os,
                            const std::vector<std::string> &params,
                            const std::map<unsigned, unsigned> &argOfParam) {
    std::string ns = runtime.cxxNamespace.str();
    os << "    static tlc::" << ns << "::Kernel tlc_fallback(" << binaryVar()
       << ", " << binarySizeVar() << ", \"" << info.fallbackEntry << "\", "
       << info.fallbackSharedBytes << ");\n";
    os << "    static tlc::" << ns << "::TensorMapCache tlc_map_cache["
       << info.tensorMaps.size() << "];\n";
    std::string condition = "!tlc::" + ns + "::tensorCopiesDisabled()";
    std::string storeCondition;
    for (size_t m = 0; m < info.tensorMaps.size(); ++m) {
      const TensorMapParam &map = info.tensorMaps[m];
      auto arg = argOfParam.find(map.param);
      if (arg == argOfParam.end() ||
          map.box.size() != k.args[arg->second].type.rank()) {
        os << "#error \"tlc: tensor map " << m
           << " does not describe a tensor argument\"\n";
        return false;
      }
      std::string var = "tlc_map_" + std::to_string(m);
      os << "    tlc::" << ns << "::TensorMap " << var << "{};\n";
      os << "    const uint32_t " << var << "_box[] = {";
      for (size_t d = 0; d < map.box.size(); ++d)
        os << (d ? ", " : "") << map.box[d];
      os << "};\n";
      std::string get =
          "tlc_map_cache[" + std::to_string(m) + "].get(" +
          launchName(arg->second) + ", " +
          std::to_string(byteSize(k.args[arg->second].type.dtype)) + ", " +
          var + "_box, " + std::to_string(map.swizzle) + ", " + var + ")";
      (map.store ? storeCondition : condition) += " &&\n        " + get;
    }
    os << "    if (" << condition << ") {\n";
    bool storeFlag = !storeCondition.empty();
    if (storeFlag) {
      // The store maps up to the first refused one are encoded; that one
      // and any after it stay zero, never read with the flag 0.
      os << "      int32_t tlc_store_by_map = true" << storeCondition << ";\n";
      os << "      if (!tlc_store_by_map && tlc::" << ns
         << "::traceLaunches())\n"
         << "        std::fprintf(stderr, \"tlc: %s: an output does not suit "
            "tensor stores: storing from registers\\n\", "
         << quotedName() << ");\n";
    }
    bool persistent = info.persistentExtents > 0;
    static const char *const extents[] = {"x", "y", "z"};
    if (persistent) {
      os << "      int64_t ";
      for (int64_t d = 0; d < info.persistentExtents; ++d)
        os << (d ? ", " : "") << "tlc_grid_" << extents[d] << " = tlc_g"
           << extents[d];
      os << ";\n";
    }
    os << "      void *tlc_tensor_copy_params[] = {";
    for (const std::string &p : params)
      os << p << ", ";
    if (storeFlag)
      os << "&tlc_store_by_map, ";
    for (int64_t d = 0; d < info.persistentExtents; ++d)
      os << "&tlc_grid_" << extents[d] << ", ";
    for (size_t m = 0; m < info.tensorMaps.size(); ++m)
      os << (m ? ", " : "") << "&tlc_map_" << m;
    os << "};\n";
    os << "      return tlc_kernel."
       << (persistent ? "launchPersistent(" : "launch(") << quotedName()
       << ", tlc_gx, tlc_gy, tlc_gz, " << info.threads
       << ", options.stream, tlc_tensor_copy_params";
    if (persistent && info.clusterRows > 1)
      os << ", " << info.clusterRows;
    os << ");\n";
    os << "    }\n";
    return true;
  }
};

} // namespace

StubFiles tlc::emitCudaStub(const GpuKernelInfo &info,
                            const StubPlacement &placement) {
  return GpuStubEmitter(cudaRuntime, info, placement).emit();
}

StubFiles tlc::emitHipStub(const GpuKernelInfo &info,
                           const StubPlacement &placement) {
  return GpuStubEmitter(hipRuntime, info, placement).emit();
}
