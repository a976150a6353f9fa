//===- GPUTarget.h - What the LLVM-based GPU targets share -----*- C++ -*-===//
//
// CUDA and ROCm compile the same way: the tile IR becomes a gpu.module
// (tile-infer-layouts, convert-tile-to-gpu), upstream passes lower it to
// the vendor's LLVM dialect, LLVM's backend for the vendor writes assembly
// or an object, a vendor tool (ptxas, ld.lld) makes the device image, and
// the launch stubs embed it. This base holds the common parts; a target
// adds its architectures, description, upstream passes and tools.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_TARGET_GPU_GPUTARGET_H
#define TLC_LIB_TARGET_GPU_GPUTARGET_H

#include "tlc/Stub/StubEmitter.h"
#include "tlc/Target/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/Target/TargetMachine.h"

#include <string>
#include <vector>

namespace tlc {

/// A temporary directory removed with everything in it.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir();
  ~TempDir();
  std::string file(llvm::StringRef name) const;
};

/// Runs `program` (found in `dirs`, then PATH) with `args`; its output
/// becomes the error text when it fails, and goes to `output` (when given)
/// when it succeeds. `hint` says how to make it found.
llvm::Error runTool(llvm::StringRef program, llvm::ArrayRef<std::string> dirs,
                    llvm::ArrayRef<std::string> args, llvm::StringRef hint,
                    std::string *output = nullptr);
llvm::Expected<std::string> readFile(llvm::StringRef path);
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef contents);

/// The passes every GPU target runs from tile IR to gpu.func kernels:
/// layouts, kernel ABI, pipelines, shared memory, convert-tile-to-gpu,
/// barriers, canonicalize and cse. (Each target then expands the f8
/// conversions, tile-expand-f8, after lowering those it has instructions
/// for.)
void buildTileToGPUPipeline(mlir::OpPassManager &pm);

/// Runs `machine`'s code generator on `module`.
llvm::Expected<std::string> codegenWith(llvm::Module &module,
                                        llvm::TargetMachine &machine,
                                        llvm::CodeGenFileType type);

class GPUTarget : public LLVMBasedTarget {
public:
  void buildTilePipeline(mlir::OpPassManager &pm) const override;
  bool stubsEmbedBinary() const override { return true; }
  /// Embeds compiled.bytes; the kernel's dynamic shared memory comes from
  /// compiled.sharedBytes.
  /// Blocks of a kernel with `sharedBytes` of dynamic shared memory and
  /// `threads` threads that fill one multiprocessor for the fill
  /// heuristic: as many as fit at once, at most kFillBlocksPerUnit.
  int64_t blocksPerMultiprocessor(int64_t sharedBytes, int64_t threads) const;
  void emitStub(const KernelSignature &kernel, const CompiledModule &compiled,
                const StubPlacement &placement, std::string &header,
                std::string &source) const override;
  /// The gpu.module as optimized LLVM IR: translated, completed by
  /// prepareModule (device libraries), every function but the kernels
  /// internalized, then LLVM's pipeline at `optLevel`.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
            const CompileOptions &options) const final;

protected:
  std::unique_ptr<llvm::TargetMachine> machine;

  /// The tile passes, the GPU passes (kernel ABI, pipelines, shared memory,
  /// convert-tile-to-gpu, barriers), canonicalize and cse.
  bool buildGPUPipeline(mlir::OpPassManager &pm) const override;
  /// Each kernel's tile.shared_bytes.
  void collectLaunchFacts(mlir::ModuleOp lowered,
                          CompiledModule &compiled) const override;

  /// Registers the translation of the vendor's LLVM dialect (NVVM, ROCDL).
  virtual void registerVendorTranslation(mlir::MLIRContext &ctx) const = 0;
  /// Completes the translated module of kernels (links device libraries).
  virtual llvm::Error prepareModule(llvm::Module &module) const = 0;
  /// The calling convention of the vendor's kernels.
  virtual llvm::CallingConv::ID kernelCallingConv() const = 0;

  /// The vendor's stub for one kernel.
  virtual StubFiles emitGpuStub(const GpuKernelInfo &info,
                                const StubPlacement &placement) const = 0;

  /// Creates `machine` for `triple` and `cpu`; false if LLVM cannot.
  llvm::Error createMachine(llvm::StringRef triple, llvm::StringRef cpu,
                            llvm::StringRef features);
  /// The gpu.module of `module` as LLVM IR for `machine` (an empty module
  /// when there is no kernel).
  llvm::Expected<std::unique_ptr<llvm::Module>>
  translateGPUModule(mlir::ModuleOp module, llvm::LLVMContext &ctx) const;
  /// Links the functions `module` calls (declarations starting with
  /// `prefix`) from the bitcode file at `path`; nothing when none is called.
  llvm::Error linkBitcodeLibrary(llvm::Module &module, llvm::StringRef prefix,
                                 llvm::StringRef path,
                                 llvm::StringRef hint) const;
  /// Runs `machine`'s code generator on `module`.
  llvm::Expected<std::string> codegen(llvm::Module &module,
                                      llvm::CodeGenFileType type) const;

  /// One kernel per thread: the translated module (translateUnoptimized) is
  /// cut into one module per kernel, each optimized and compiled to
  /// assembly on its own thread with its own target machine, the
  /// assemblies merged (mergeAssembly) and finished (emitFromAssembly).
  /// Only for targets that merge assembly, without -g, with two kernels or
  /// more; the assembly is what the whole module would have given.
  std::optional<llvm::Error>
  emitCodeInParallel(mlir::ModuleOp module, EmitKind kind,
                     const CompileOptions &options,
                     llvm::raw_pwrite_stream &os) const override;
  /// Whether the target implements mergeAssembly and emitFromAssembly.
  virtual bool mergesAssembly() const { return false; }
  /// One assembly file of the kernels' separate ones, in their order; an
  /// error where they cannot be merged (the whole module is then compiled
  /// at once).
  virtual llvm::Expected<std::string>
  mergeAssembly(llvm::ArrayRef<std::string> parts) const;
  /// What emitCode writes, from the assembly of `kernels` kernels.
  virtual llvm::Error emitFromAssembly(std::string assembly, int64_t kernels,
                                       EmitKind kind,
                                       const CompileOptions &options,
                                       llvm::raw_pwrite_stream &os) const;
  /// The gpu.module as LLVM IR completed by prepareModule, every function
  /// but the kernels internalized: translate before the optimization.
  /// Without options.preciseMath the kernels' floating-point operations
  /// (not the device libraries') may contract into FMAs.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  translateUnoptimized(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                       const CompileOptions &options) const;
};

} // namespace tlc

#endif // TLC_LIB_TARGET_GPU_GPUTARGET_H
