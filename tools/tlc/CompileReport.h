//===- CompileReport.h - --report: what the compiler decided ----*- C++ -*-===//
//
// `tlc k.tl --report` (text on stderr) and `--report-json=FILE` say, per
// kernel, what the compiler decided and what it costs: threads, shared
// memory, every tile (scope, bytes, buffers, swizzle, fragment layout, or why
// it was moved to shared memory), every pipelined loop (stages asked and
// kept, asynchronous and tensor-unit copies, producer threads), the gemms,
// the instruction mix of the generated assembly (tensor-core instructions,
// asynchronous copies, barriers) and every performance remark with its
// source location. Facts are read from the IR right before the tile ops are
// lowered (the attributes the target-neutral and GPU planning passes leave)
// and from the assembly, so they are what the compiler did.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TOOLS_TLC_COMPILEREPORT_H
#define TLC_TOOLS_TLC_COMPILEREPORT_H

#include "tlc/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace tlc {

class CompileReport {
public:
  CompileReport(std::string file, std::string target, std::string arch)
      : file(std::move(file)), target(std::move(target)),
        arch(std::move(arch)) {}

  /// Makes `pm` record the module's tiles, loops and gemms right before
  /// they are lowered (convert-tile-to-gpu / convert-tile-to-cpu).
  void instrument(mlir::PassManager &pm);
  /// Records the compile-time parameters of the kernels of `module` (tile
  /// IR, before the GPU kernel ABI drops the signatures).
  void noteParams(mlir::ModuleOp module);
  /// Records the tile-level facts of every kernel of `module` (the first
  /// call wins).
  void collect(mlir::ModuleOp module);
  void addRemark(mlir::Location location, std::string message);
  bool hasKernels() const { return !kernels.empty(); }
  /// Records the operations of `module` (tile.operations).
  void noteOperations(mlir::ModuleOp module);
  /// Counts the instruction families `target` names in each kernel's
  /// code in `assembly`.
  void addAssembly(llvm::StringRef assembly, const Target &target);
  /// Registers and spills per kernel from the target's assembler log, and
  /// the occupancy the target estimates for them.
  void addResourceLog(llvm::StringRef log, const Target &target);

  void printText(llvm::raw_ostream &os) const;
  llvm::json::Value toJSON() const;

private:
  struct Tile {
    std::string name, scope, type, location, layout, demoted;
    int64_t bytes = 0, buffers = 1, swizzle = 0;
    /// A staging tile of TMA stores (tile.store_staging): the columns of
    /// each chunk and the buffers that hold chunks; 0 otherwise.
    int64_t stagingColumns = 0, stagingBuffers = 0;
  };
  struct Loop {
    std::string location;
    int64_t stagesAsked = 0, stagesKept = 0, producerThreads = 0;
    int64_t copies = 0, asyncCopies = 0, tensorCopies = 0;
  };
  struct Gemm {
    std::string location, shape;
  };
  struct Kernel {
    std::string name, location;
    int64_t threads = 0, blockThreads = 0, sharedBytes = -1;
    int64_t clusterBlocks = 1; // cluster(C): blocks per cluster
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<Tile> tiles;
    std::vector<Loop> loops;
    std::vector<Gemm> gemms;
    /// Copies into shared tiles outside pipelined loops, issued
    /// asynchronously and waited for at once (tile.async_once): locations.
    std::vector<std::string> asyncOnceCopies;
    std::map<std::string, int64_t> instructions;
    int64_t registers = -1, spillStores = 0, spillLoads = 0;
    /// Blocks per multiprocessor and what limits them (from the target).
    int64_t blocksPerSM = 0;
    std::string occupancyLimit;
  };
  struct Remark {
    std::string location, message;
  };
  /// An operation: its launches in order, each with the condition it runs
  /// under ("" when always).
  struct OperationSummary {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<std::string> scratch; // "NAME: DTYPE[dims]"
    std::vector<std::pair<std::string, std::string>> launches;
  };

  std::string file, target, arch;
  bool collected = false;
  std::string resourceSource; // the target's resourceStage()
  std::vector<Kernel> kernels;
  std::vector<OperationSummary> operations;
  std::vector<Remark> remarks;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      paramsByKernel;
};

} // namespace tlc

#endif // TLC_TOOLS_TLC_COMPILEREPORT_H
