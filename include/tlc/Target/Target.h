//===- Target.h - What a tlc code-generation target provides ----*- C++ -*-===//
//
// A target turns the tile IR (after the target-neutral passes) into device
// code and launch stubs. Each target lives in its own folder under
// lib/Target and is listed once in lib/Target/Registry.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TARGET_TARGET_H
#define TLC_TARGET_TARGET_H

#include "tlc/Stub/KernelSignature.h"
#include "tlc/Stub/StubEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class LLVMContext;
} // namespace llvm

namespace tlc {

/// What `-emit=` asks for, beyond the target-neutral ast and tile forms.
/// GPU is the gpu-dialect MLIR after the tile lowering; Obj the target's
/// binary (what stubs embed or link with); DeviceImage a GPU target's
/// single-architecture image inside it.
enum class EmitKind { GPU, LLVM, Asm, Obj, DeviceImage };

/// A target's own spelling of an -emit= kind (e.g. "isa" for Asm), with
/// the file name extension it is written with.
struct EmitStage {
  const char *name;
  EmitKind kind;
  const char *extension;
  const char *help;
};

/// How the driver wants passes run and code optimized.
struct CompileOptions {
  unsigned optLevel = 3;
  /// `-g`: line tables that map the code back to .tl lines.
  bool debugInfo = false;
  /// `--precise-math` (GPU targets): every floating-point multiply and add
  /// rounds on its own, and CUDA's f32 exp2 keeps subnormal results. By
  /// default a multiply feeding an add may fuse into one FMA (as nvcc's
  /// -fmad=true and hipcc do) and CUDA's f32 exp2 is ex2.approx.ftz (one
  /// instruction where the subnormal-exact form takes four;
  /// tile-nvvm-fast-exp2).
  bool preciseMath = false;
  /// Applied to every pass manager (IR printing, timing).
  std::function<void(mlir::PassManager &)> configurePasses;
  /// --dump-dir: receives the stages after the MLIR passes (LLVM IR,
  /// target assembly) as name, file extension and text.
  std::function<void(llvm::StringRef, llvm::StringRef, llvm::StringRef)>
      dumpStage;
};

/// What a compile made: the bytes of the asked form and, for the stubs,
/// what the kernels need at launch.
struct CompiledModule {
  std::string bytes;
  /// Dynamic shared memory per kernel entry (tlc_NAME) on GPU targets.
  llvm::StringMap<int64_t> sharedBytes;
  /// Kernels with tensor copies: the entry of their twin without them
  /// (tile.fallback) and the tensor maps they take (tile.tensor_maps).
  llvm::StringMap<std::string> fallbacks;
  llvm::StringMap<std::vector<TensorMapParam>> tensorMaps;
  /// Threads per block of the kernels launched with more threads than their
  /// signature says (warp specialization's producers, tile.block_threads).
  llvm::StringMap<int64_t> blockThreads;
  /// Persistent kernels (tile.persistent): they take this many of the
  /// grid's extents (x, y[, z]) before their tensor maps and walk the grid.
  llvm::StringMap<int64_t> persistent;
  /// Persistent kernels that may run in clusters of this many blocks
  /// (tile.cluster_rows).
  llvm::StringMap<int64_t> clusterRows;
  /// Vulkan and Metal kernels: their push-constant block, word by word, as
  /// indices into the ABI's list of words (tile.vulkan_push_words).
  llvm::StringMap<std::vector<int32_t>> pushConstantWords;
  /// Vulkan kernels whose words come in a storage buffer, not push
  /// constants (tile.vulkan_params_buffer).
  llvm::StringSet<> paramsBuffers;
  /// Vulkan: the side of the square f16 cooperative matrices (a
  /// VK_KHR_cooperative_matrix shape the device must have) each kernel
  /// multiplies on, by entry point; absent for kernels without them.
  llvm::StringMap<int64_t> coopMatrixSizes;
  /// CPU kernels with a whole-range task entry (tlc_tasks_NAME,
  /// tile.cpu_task_entry), by kernel name.
  llvm::StringSet<> cpuTaskEntries;
  /// Kernels whose function has another name in the shipped code (Metal:
  /// SPIRV-Cross makes doubled underscores single): entry -> that name.
  llvm::StringMap<std::string> functionNames;
  /// Kernels shipped in a binary of their own, which their stubs embed
  /// instead of `bytes` (Vulkan: one SPIR-V module per kernel).
  llvm::StringMap<std::string> entryBinaries;
};

/// The push-constant words of `entry` (nullptr: not known).
inline const std::vector<int32_t> *pushWordsOf(const CompiledModule &compiled,
                                               llvm::StringRef entry) {
  auto it = compiled.pushConstantWords.find(entry);
  return it == compiled.pushConstantWords.end() ? nullptr : &it->second;
}

/// A failed compile. `diagnosed`: the errors were reported (located, through
/// MLIR's diagnostics) and the message is empty; otherwise the message
/// says what went wrong in the target (a tool, LLVM).
struct CompileError {
  bool diagnosed = false;
  std::string message;
  /// The driver's exit status: 2 for a failure in the target, 1 for a
  /// request the target refuses.
  int status = 2;
};

/// What kernels may ask of the target in compile-time expressions (the
/// builtin constants target_shared_bytes, target_warp_size,
/// target_warpgroup_mma, target_cluster_blocks and target_max_cluster),
/// e.g. to size tiles: `BK = target_shared_bytes < 120000 ? 32 : 128`.
struct TargetConstants {
  /// Shared memory (LDS; on the CPU: tile memory) one block may use.
  int64_t sharedBytes = 0;
  /// Threads that run in lockstep (1 on the CPU).
  int64_t warpSize = 1;
  /// 1 where gemms run as asynchronous MMAs of a warpgroup (four warps) fed
  /// by a producer warpgroup (sm_90a's wgmma), else 0.
  int64_t warpgroupMma = 0;
  /// Blocks the hardware runs together as one thread block cluster (their
  /// shared memory reachable from each other): 8 on sm_90 and later, 1
  /// where clusters are emulated or missing.
  int64_t clusterBlocks = 1;
  /// The largest `cluster(c)` a kernel may ask for (the CPU emulates
  /// clusters: 8; 1 where they are missing).
  int64_t maxCluster = 1;
};

/// The builtin constants of the language, by name, for Sema.
inline std::map<std::string, int64_t>
builtinConstants(const TargetConstants &constants) {
  return {{"target_shared_bytes", constants.sharedBytes},
          {"target_warp_size", constants.warpSize},
          {"target_warpgroup_mma", constants.warpgroupMma},
          {"target_cluster_blocks", constants.clusterBlocks},
          {"target_max_cluster", constants.maxCluster}};
}

/// What an assembler says one kernel uses (--report).
struct KernelResources {
  int64_t registers = -1; // per thread; -1: unknown
  int64_t spillStores = 0, spillLoads = 0;
};

class Target {
public:
  virtual ~Target() = default;
  virtual llvm::StringRef name() const = 0;

  //===--- For the authors' tools ---------------------------------------===//
  /// -emit=python: the stubs take host or CUDA/HIP device pointers that
  /// NumPy arrays or PyTorch tensors provide.
  virtual bool hasPythonBindings() const { return false; }
  /// --report: instruction prefixes worth counting in this target's
  /// assembly (matrix instructions, asynchronous copies, barriers, ...).
  virtual std::vector<std::string> reportedInstructions() const { return {}; }
  /// --report: the dumpStage that holds the assembler's resource log, and
  /// its registers and spills per kernel entry.
  virtual llvm::StringRef resourceStage() const { return ""; }
  virtual std::map<std::string, KernelResources>
  parseResourceLog(llvm::StringRef log) const {
    return {};
  }
  /// --report: blocks of `threads` threads using `registers` each and
  /// `sharedBytes` resident per multiprocessor, and what limits them;
  /// {0, ""} when the target cannot say.
  virtual std::pair<int64_t, std::string>
  estimateOccupancy(int64_t threads, int64_t registers,
                    int64_t sharedBytes) const {
    return {0, ""};
  }
  /// The default for `-arch=` (e.g. "native" on the CPU).
  virtual llvm::StringRef defaultArch() const = 0;
  /// The -arch= values, for --help ("sm_90a (default), sm_80, ...").
  virtual std::string archHelp() const = 0;
  /// Resolves `-arch=`; an error names the accepted values.
  virtual llvm::Error setArch(llvm::StringRef arch) = 0;
  /// The builtin constants for the -arch given to setArch.
  virtual TargetConstants languageConstants() const = 0;
  /// File name extension of the compiled kernels (".o").
  virtual llvm::StringRef binaryExtension() const = 0;
  /// File name extension of the stubs' sources (".cpp"; Metal's are
  /// Objective-C++, ".mm").
  virtual llvm::StringRef stubSourceExtension() const { return ".cpp"; }
  /// File name extension of -emit=asm (".s").
  virtual llvm::StringRef asmExtension() const { return ".s"; }
  /// The -emit= kinds this target adds (beyond ast, tile, gpu, llvm, asm,
  /// obj and stub), e.g. "ptx".
  virtual std::vector<EmitStage> emitStages() const { return {}; }

  /// The description of the target and -arch that tile passes read
  /// (#tile.target, set on the module as attribute tile.target); null for
  /// targets whose passes need none.
  virtual mlir::Attribute describe(mlir::MLIRContext &ctx) const { return {}; }
  /// Target-dependent passes that still produce tile IR (layout inference
  /// on GPUs); `-emit=tile` shows their result.
  virtual void buildTilePipeline(mlir::OpPassManager &) const {}

  /// Lowers `module` (tile IR after the target-neutral passes, with the
  /// description set; it is changed) to `kind`. Targets keep no state
  /// between calls.
  virtual std::optional<CompiledModule> compile(mlir::ModuleOp module,
                                                EmitKind kind,
                                                const CompileOptions &options,
                                                CompileError &error) const = 0;

  /// Whether stubs embed the device binary (the driver then compiles
  /// first and hands the result to emitStub).
  virtual bool stubsEmbedBinary() const { return false; }
  /// Whether stubs depend on what the compile of their module found (the
  /// binary, or the entries it has): the driver then compiles before it
  /// writes stubs, also for -emit=stub.
  virtual bool stubsNeedCompile() const { return stubsEmbedBinary(); }
  /// The launch stub of one kernel: header and source text. `compiled` is
  /// the Obj compile of its module when stubsNeedCompile().
  virtual void emitStub(const KernelSignature &kernel,
                        const CompiledModule &compiled,
                        const StubPlacement &placement, std::string &header,
                        std::string &source) const = 0;
  /// Where the stubs of operations allocate scratch tensors (host memory
  /// unless the target says otherwise).
  virtual ScratchRuntime scratchRuntime() const {
    return {"tlc/Runtime/tlc_runtime.h", "tlc::runtime::HostScratch"};
  }
};

/// The part of compile() that every LLVM-based target shares: the lowering
/// passes, the translation to optimized LLVM IR and the code generator,
/// each supplied by the target.
class LLVMBasedTarget : public Target {
public:
  std::optional<CompiledModule> compile(mlir::ModuleOp module, EmitKind kind,
                                        const CompileOptions &options,
                                        CompileError &error) const override;

protected:
  /// Passes that lower tile IR to the LLVM dialect.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm,
                                     const CompileOptions &options) const = 0;
  /// The passes up to the gpu dialect (EmitKind::GPU); false for targets
  /// without that stage.
  virtual bool buildGPUPipeline(mlir::OpPassManager &) const { return false; }
  /// What the stubs need of the lowered module (its kernels' shared memory).
  virtual void collectLaunchFacts(mlir::ModuleOp lowered,
                                  CompiledModule &compiled) const {}
  /// Translates the LLVM-dialect module to optimized LLVM IR.
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
            const CompileOptions &options) const = 0;
  /// Writes assembly, an object or an image for `module`.
  virtual llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                               const CompileOptions &options,
                               llvm::raw_pwrite_stream &os) const = 0;
  /// What translate and emitCode write, with each kernel of the lowered
  /// `module` optimized and compiled on a thread of its own; std::nullopt
  /// where the target does not (or not for these options, or not for these
  /// kernels), and compile() goes on with translate and emitCode.
  virtual std::optional<llvm::Error>
  emitCodeInParallel(mlir::ModuleOp module, EmitKind kind,
                     const CompileOptions &options,
                     llvm::raw_pwrite_stream &os) const {
    return std::nullopt;
  }

private:
  /// --dump-dir: the optimized LLVM IR and the assembly of a copy.
  void dumpLLVMStages(const llvm::Module &module,
                      const CompileOptions &options) const;
};

/// The target called `name`, or nullptr (then `known` lists the names).
std::unique_ptr<Target> createTarget(llvm::StringRef name, std::string &known);
/// Every target's name, in the registry's order.
std::vector<std::string> targetNames();

} // namespace tlc

#endif // TLC_TARGET_TARGET_H
