//===- StubEmitter.h - C++/C launch stubs for compiled kernels --*- C++ -*-===//
//
// For each kernel tlc writes a launch stub NAME.h / NAME.cpp that users
// compile into their program. The stub checks the arguments (dtypes, ranks,
// shapes against the kernel's symbolic dimensions, strides, alignment),
// computes the grid and runs the kernel: on the CPU every block of
// NAME.o (_mlir_ciface_tlc_block_NAME) on the tlc runtime thread pool; on
// CUDA and ROCm the device binary embedded in NAME.cpp, through the CUDA
// driver API or the HIP module API loaded at run time. See docs/abi.md.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_STUB_STUBEMITTER_H
#define TLC_STUB_STUBEMITTER_H

#include "tlc/Stub/KernelSignature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tlc {

namespace stub {
/// Element type in memory (f16 and bf16 as their bits), e.g. "float"; also
/// the C++ type of a scalar argument in a stub's API.
llvm::StringRef elementCType(DType t);
/// The tlc_dtype enumerator, e.g. "TLC_F32".
llvm::StringRef dtypeCode(DType t);
} // namespace stub

struct StubFiles {
  std::string header;
  std::string source;
};

/// The variants of a kernel compiled from a tuning database, and the shape
/// buckets that pick them (see docs/tuning.md).
struct DispatchTable {
  struct Bucket {
    /// The shape the bucket was tuned at (symbolic dimensions by name).
    std::vector<std::pair<std::string, int64_t>> shape;
    unsigned variant = 0;
  };
  /// Variant I is the kernel `NAME__vI`; its label says what it sets
  /// ("BM=16, BN=256").
  std::vector<const KernelSignature *> variants;
  std::vector<std::string> labels;
  std::vector<Bucket> buckets;
  /// Where the table came from ("db.json"), for the generated comments.
  std::string origin;
  /// No buckets: the variants come largest tiles first and each call runs
  /// the first whose grid fills the machine (tlc::runtime::fillingVariant).
  bool fillHeuristic = false;
};

/// Where the text of a stub goes.
struct StubPlacement {
  StubPlacement(std::string headerName = "")
      : headerName(std::move(headerName)) {}
  /// How the source includes its header (e.g. "gemm.h").
  std::string headerName;
  /// A variant inside the stub of a tuned kernel: the header holds only the
  /// declarations (no #pragma once) and the source does not include it;
  /// the caller puts both into the tuned kernel's source.
  bool variant = false;
  /// GPU variants share one binary: its array's name, and whether an earlier
  /// variant in the same source already embedded it.
  std::string binaryName; // empty: tlc_binary_NAME
  bool binaryEmbedded = false;
  /// The stub of a tuned kernel: its source holds `variantSources` and
  /// then NAME, which picks a variant per call from the table.
  const DispatchTable *dispatch = nullptr;
  std::string variantSources;
};

/// STEM.py: Python bindings (ctypes) of the C entry points of `entries`
/// (kernels and operations of `sourceFile`, compiled for `target`), for
/// NumPy arrays and PyTorch tensors, loading `library` from the module's
/// directory by default; docs/python.md.
std::string emitPythonModule(llvm::StringRef stem, llvm::StringRef sourceFile,
                             llvm::StringRef target, llvm::StringRef library,
                             llvm::ArrayRef<const KernelSignature *> entries);

/// Generates the CPU launch stub of a checked kernel. With `taskEntry` the
/// object also has tlc_tasks_NAME (tile-cpu-task-nest), which the stub
/// calls once per worker thread for a rectangle of the grid.
StubFiles emitCpuStub(const KernelSignature &kernel,
                      const StubPlacement &placement, bool taskEntry = false);

/// What a GPU stub needs beyond the kernel's signature: facts fixed when the
/// device code was compiled.
struct GpuKernelInfo {
  const KernelSignature &kernel;
  /// The entry point in the binary (`tlc_NAME`).
  std::string entryName;
  /// Threads per block (blockDim.x; y and z are 1).
  int64_t threads = 128;
  /// Dynamic shared memory per block, in bytes.
  int64_t dynamicSharedBytes = 0;
  /// The device binary (CUDA: cubin, fatbin or NUL-terminated PTX; ROCm: an
  /// AMDGPU code object or offload bundle). Empty when no binary exists: the
  /// stub then fails every launch with "kernel binary not available".
  std::vector<uint8_t> binary;
  /// Kernels with tensor copies (CUDA): the tensor maps the entry takes
  /// after its ABI parameters, and the entry of the twin without tensor
  /// copies (same ABI, no maps) with its dynamic shared memory, launched
  /// when a tensor does not suit the tensor-copy unit. Empty otherwise.
  std::vector<TensorMapParam> tensorMaps{};
  std::string fallbackEntry{};
  int64_t fallbackSharedBytes = 0;
  int64_t fallbackThreads = 0;
  /// The entry with tensor copies is persistent when not 0: its parameters
  /// before the tensor maps are this many of the grid's extents (i64: x, y
  /// and, for 3, z) and it is launched with Kernel::launchPersistent.
  int64_t persistentExtents = 0;
  /// The persistent entry may run in clusters of this many blocks when the
  /// grid's y extent is a multiple of it (tile.cluster_rows); 1: never.
  int64_t clusterRows = 1;
  /// A dispatching stub of the fill heuristic: for each variant, the blocks
  /// that fill one multiprocessor (what its shared memory and threads let
  /// one hold at once, at most 4). Empty: 4 for every variant.
  std::vector<int64_t> fillBlocksPerUnit{};
};

/// Generates the CUDA launch stub: NAME.h with the same C++/C API as the CPU
/// stub (LaunchOptions::stream is the CUstream) and NAME.cpp with the binary
/// embedded, launched through tlc/Runtime/tlc_cuda.h. The kernel parameter
/// ABI is described in docs/abi.md.
StubFiles emitCudaStub(const GpuKernelInfo &info,
                       const StubPlacement &placement);

/// Generates the ROCm launch stub: the same as the CUDA stub (API, kernel
/// parameter ABI, `threads` x 1 x 1 blocks, dynamic shared memory = LDS)
/// launched through tlc/Runtime/tlc_hip.h, which loads libamdhip64.so with
/// dlopen; LaunchOptions::stream is the hipStream_t.
StubFiles emitHipStub(const GpuKernelInfo &info,
                      const StubPlacement &placement);

/// Generates the Vulkan launch stub: the same API; the SPIR-V is launched
/// through tlc/Runtime/tlc_vulkan.h (libvulkan loaded with dlopen) with
/// tensors as storage buffers and sizes, strides and scalars as push
/// constants (docs/vulkan.md); the device must offer `subgroupSize`.
/// `pushWords`: the push-constant block of the compiled kernel as indices
/// into the ABI's words (nullptr: unknown, e.g. no/// binary); a stub that
/// would fill another number has an #error. `paramsBuffer`: the kernel reads
/// them from a storage buffer at the binding after the tensors instead of push
/// constants. `coopMatrixSize`: the kernel multiplies f16 on square
/// cooperative matrices of this side, which the device must offer (0: none).
StubFiles emitVulkanStub(const GpuKernelInfo &info,
                         const StubPlacement &placement, int64_t subgroupSize,
                         const std::vector<int32_t> *pushWords,
                         bool paramsBuffer, int64_t coopMatrixSize);

/// Generates the Metal launch stub: the same API and the same kernel ABI
/// as Vulkan's (tensor t at [[buffer(t)]], the push-constant words after
/// them); the source is Objective-C++ and launches the MSL (info.binary,
/// text) through tlc/Runtime/tlc_metal.h. `function`: the kernel's MSL
/// name when it is not info.entryName.
StubFiles emitMetalStub(const GpuKernelInfo &info,
                        const StubPlacement &placement, int64_t subgroupSize,
                        const std::vector<int32_t> *pushWords,
                        llvm::StringRef function);

/// Where the stub of an operation gets memory for its scratch tensors: the
/// runtime header and the class (allocate, data, release) it declares.
struct ScratchRuntime {
  std::string header;
  std::string allocator;
};

/// Generates the launch stub of an operation: NAME.h with a kernel's C++/C
/// API, NAME.cpp (its source includes the headers of the operation's
/// kernels) which checks the arguments, allocates the scratch tensors,
/// launches the kernels through their stubs in order and frees the scratch.
StubFiles emitOperationStub(const OperationSignature &operation,
                            llvm::StringRef target,
                            const ScratchRuntime &runtime);

} // namespace tlc

#endif // TLC_STUB_STUBEMITTER_H
