//===- StubEmitter.cpp - C++/C launch stubs for compiled kernels ----------===//
//
// The CPU stub: the generated source checks every argument with the helpers
// of tlc_runtime.h (StubCommon), binds the symbolic dimensions from the first
// argument that uses them, evaluates the grid on the host and runs every
// block through tlc::runtime::parallelFor, calling
// _mlir_ciface_tlc_block_NAME with memref descriptors built once per launch.
//
//===----------------------------------------------------------------------===//
#include "tlc/Stub/StubEmitter.h"

#include "StubCommon.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;
using namespace tlc::stub;
using llvm::StringRef;

namespace {

class CpuStubEmitter : public StubBuilder {
public:
  CpuStubEmitter(const KernelSignature &k, const StubPlacement &placement,
                 bool taskEntry)
      : StubBuilder(k, placement), taskEntry(taskEntry) {}

  llvm::StringRef targetName() const override { return "cpu"; }
  std::string fillUnits() const override {
    return "tlc::runtime::workerCount(options.num_threads)";
  }

private:
  bool taskEntry;

  std::string abiComment() const override {
    return R"(//
// Launch ABI (docs/abi.md in the tlc sources has the details):
//  - A tensor argument is a tlc_tensor (tlc::TensorView): data pointer, dtype
//    code, rank, shape and strides, strides counted in elements. The innermost
//    dimension must be contiguous (stride 1) and data aligned to the element
//    size. The caller owns the memory; the kernel writes only `out`/`inout`
//    tensors.
//  - Symbolic dimensions are read from the shapes and must agree across all
//    arguments; fixed dimensions must match exactly.
//  - The blocks of the grid run on the tlc runtime thread pool
//    (LaunchOptions::num_threads, 0 = all hardware threads). The call returns
//    when every block is done. Launches may come from several threads.
//  - Errors are reported as a status: TLC_ERR_INVALID_ARGUMENT (-1),
//    TLC_ERR_ALIGNMENT (-2), TLC_ERR_RUNTIME (-3), with a message that starts
//    with the kernel name. Nothing throws through the C entry point.
//  - Build: g++ app.cpp )" +
           k.name + ".cpp " + k.name + R"(.o -I<tlc>/include -pthread
)";
  }

  static std::string memrefType(DType t, unsigned rank) {
    return "tlc_memref_" + dtypeName(t).str() + "_" + std::to_string(rank) +
           "d";
  }

  void emitSource(std::string &out) override {
    llvm::raw_string_ostream os(out);
    const std::string &name = k.name;
    emitSourcePrologue(os);
    os << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
          "#include <cstdio>\n#include <cstdlib>\n#include <exception>\n"
          "#include <limits>\n#include <string>\n\n";
    if (placement.dispatch)
      return emitDispatchSource(os);

    // Memref descriptors, one struct per (dtype, rank). Guarded, so the
    // stubs of several kernels can share a translation unit (tlc --bundle).
    os << "namespace {\n// Memref descriptors (MLIR C interface) of the "
          "tensor arguments.\n";
    llvm::StringSet<> declared;
    for (unsigned i = 0; i < k.args.size(); ++i) {
      if (!isTensor(i))
        continue;
      const Type &t = k.args[i].type;
      std::string ty = memrefType(t.dtype, t.rank());
      if (!declared.insert(ty).second)
        continue;
      StringRef elt = elementCType(t.dtype);
      os << "#ifndef " << ty << "_defined\n#define " << ty << "_defined\n";
      os << "struct " << ty << " {\n  " << elt << " *allocated;\n  " << elt
         << " *aligned;\n  int64_t offset;\n  int64_t sizes[" << t.rank()
         << "];\n  int64_t strides[" << t.rank() << "];\n};\n#endif\n";
    }
    os << "} // namespace\n\n";

    // The compiled kernel: one call runs one block.
    auto declareEntry = [&](llvm::StringRef result, llvm::StringRef entry,
                            llvm::StringRef trailing) {
      os << "extern \"C\" " << result << " _mlir_ciface_" << entry << name
         << "(";
      for (unsigned i = 0; i < k.args.size(); ++i) {
        const Type &t = k.args[i].type;
        if (isTensor(i))
          os << memrefType(t.dtype, t.rank()) << " *" << argNames[i];
        else
          os << elementCType(t.dtype) << " " << argNames[i];
        os << ", ";
      }
      os << trailing << ");\n";
    };
    declareEntry("void", "tlc_block_",
                 "int64_t tlc_bx, int64_t tlc_by, int64_t tlc_bz");
    // The same blocks, a rectangle of them per call (tile-cpu-task-nest);
    // it returns tile::attr::kCPUTaskOk or kCPUTaskOutOfMemory.
    if (taskEntry)
      declareEntry("int32_t", "tlc_tasks_",
                   "int64_t tlc_bx0, int64_t tlc_bx1, "
                   "int64_t tlc_by0, int64_t tlc_by1, "
                   "int64_t tlc_gz");
    // What the kernel's cluster reductions call: weak, so that the stubs of
    // several kernels link into one program.
    // (Guarded: several such stubs may share a translation unit, --bundle
    // or a tuned kernel's variants.)
    if (k.cluster > 1)
      os << "#ifndef TLC_CPU_CLUSTER_FUNCTIONS_DEFINED\n"
            "#define TLC_CPU_CLUSTER_FUNCTIONS_DEFINED\n"
            "extern \"C\" __attribute__((weak)) void *\n"
            "tlc_cpu_cluster_exchange(void *tile, int64_t bytes) {\n"
            "  return tlc::runtime::clusterExchange(tile, bytes);\n}\n"
            "extern \"C\" __attribute__((weak)) void tlc_cpu_cluster_sync() "
            "{\n  tlc::runtime::clusterSync();\n}\n"
            "#endif\n";
    os << "\n";

    emitCxxEntry(os, [&](llvm::raw_ostream &os) { emitBody(os); });
    emitCEntry(os);
  }

  void emitBody(llvm::raw_ostream &os) {
    const std::string &name = k.name;
    emitArgumentChecks(os);
    emitGrid(os);
    os << "    if (tlc_gx > std::numeric_limits<int64_t>::max() / tlc_gy / "
          "tlc_gz)\n"
       << "      return tlc::runtime::invalidArgument(\"" << name
       << ": the grid has too many blocks\");\n";

    // Descriptors, built once and shared (read-only) by all blocks.
    for (unsigned i = 0; i < k.args.size(); ++i) {
      if (!isTensor(i))
        continue;
      const Type &t = k.args[i].type;
      const std::string a = launchName(i);
      std::string ptr =
          "static_cast<" + elementCType(t.dtype).str() + " *>(" + a + ".data)";
      os << "    " << memrefType(t.dtype, t.rank()) << " tlc_desc_" << a << "{"
         << ptr << ", " << ptr << ", 0, {";
      for (unsigned d = 0; d < t.rank(); ++d)
        os << (d ? ", " : "") << a << ".shape[" << d << "]";
      os << "}, {";
      for (unsigned d = 0; d + 1 < t.rank(); ++d)
        os << a << ".strides[" << d << "], ";
      os << "1}};\n";
    }

    std::string args;
    for (unsigned i = 0; i < k.args.size(); ++i)
      args += (isTensor(i) ? "&tlc_desc_" + launchName(i) : argNames[i]) + ", ";
    if (taskEntry) {
      // One rectangle of blocks per task when that keeps the threads
      // evenly busy (tlc::runtime::splitGrid), else block by block.
      os << "    const tlc::runtime::GridSplit tlc_split = "
            "tlc::runtime::splitGrid(\n"
         << "        tlc_gx, tlc_gy, tlc_gz, "
            "tlc::runtime::workerCount(options.num_threads));\n"
         << "    if (tlc_split.columns > 0) {\n"
         << "      std::atomic<bool> tlc_out_of_memory{false};\n"
         << "      tlc::runtime::parallelFor(\n"
         << "          tlc_split.columns * tlc_split.rows, "
            "options.num_threads, [&](int64_t tlc_task) {\n"
         << "            const int64_t tlc_c = tlc_task % tlc_split.columns;\n"
         << "            const int64_t tlc_r = tlc_task / tlc_split.columns;\n"
         << "            if (_mlir_ciface_tlc_tasks_" << name << "(" << args
         << "\n"
         << "                    tlc_c * tlc_gx / tlc_split.columns, "
            "(tlc_c + 1) * tlc_gx / tlc_split.columns,\n"
         << "                    tlc_r * tlc_gy / tlc_split.rows, "
            "(tlc_r + 1) * tlc_gy / tlc_split.rows, 1) != "
         << tile::attr::kCPUTaskOk << ")\n"
         << "              tlc_out_of_memory = true;\n"
         << "          });\n"
         << "      if (tlc_out_of_memory)\n"
         << "        return tlc::Status{TLC_ERR_RUNTIME, \"" << name
         << ": out of memory for the gemm's panels (the output may be "
            "partly written)\"};\n"
         << "      return tlc::Status{};\n"
         << "    }\n";
    }
    if (k.cluster > 1)
      return emitClusters(os, args);
    // The blocks.
    os << "    tlc::runtime::parallelFor(\n"
       << "        tlc_gx * tlc_gy * tlc_gz, options.num_threads, "
          "[&](int64_t tlc_block) {\n"
       << "          _mlir_ciface_tlc_block_" << name << "(" << args
       << "tlc_block % tlc_gx,\n"
       << "              tlc_block / tlc_gx % tlc_gy, "
          "tlc_block / (tlc_gx * tlc_gy));\n"
       << "        });\n";
    os << "    return tlc::Status{};\n";
  }

  /// A task per cluster, whose blocks run a thread each.
  void emitClusters(llvm::raw_ostream &os, const std::string &args) {
    const std::string &name = k.name;
    std::string c = std::to_string(k.cluster);
    os << "    const int64_t tlc_cx = tlc_gx / " << c << ";\n"
       << "    std::atomic<bool> tlc_returned_early{false}, "
          "tlc_no_threads{false};\n"
       << "    tlc::runtime::parallelFor(\n"
       << "        tlc_cx * tlc_gy * tlc_gz, options.num_threads, "
          "[&](int64_t tlc_cluster) {\n"
       << "          const int64_t tlc_x0 = tlc_cluster % tlc_cx * " << c
       << ";\n"
       << "          const int64_t tlc_by = tlc_cluster / tlc_cx % tlc_gy;\n"
       << "          const int64_t tlc_bz = tlc_cluster / (tlc_cx * tlc_gy);\n"
       << "          switch (tlc::runtime::runCluster(" << c
       << ", [&](int64_t tlc_rank) {\n"
       << "            _mlir_ciface_tlc_block_" << name << "(" << args
       << "tlc_x0 + tlc_rank, tlc_by, tlc_bz);\n"
       << "          })) {\n"
       << "          case tlc::runtime::ClusterRun::Ok: break;\n"
       << "          case tlc::runtime::ClusterRun::BlockReturnedEarly:\n"
       << "            tlc_returned_early = true; break;\n"
       << "          case tlc::runtime::ClusterRun::NoThreads:\n"
       << "            tlc_no_threads = true; break;\n"
       << "          }\n"
       << "        });\n"
       << "    if (tlc_no_threads)\n"
       << "      return tlc::Status{TLC_ERR_RUNTIME, \"" << name
       << ": cannot start a thread for each block of a cluster of " << c
       << "\"};\n"
       << "    if (tlc_returned_early)\n"
       << "      return tlc::Status{TLC_ERR_RUNTIME, \"" << name
       << ": a block of a cluster returned while the others waited for it "
          "at a cluster_reduce (every block of a cluster must reach each "
          "one)\"};\n"
       << "    return tlc::Status{};\n";
  }
};

} // namespace

StubFiles tlc::emitCpuStub(const KernelSignature &kernel,
                           const StubPlacement &placement, bool taskEntry) {
  return CpuStubEmitter(kernel, placement, taskEntry).emit();
}
