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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace llvm {
class Module;
class LLVMContext;
} // namespace llvm

namespace tlc {

/// What `-emit=` asks for, beyond the target-neutral ast, tile and gpu
/// forms. Obj is the target's binary (what stubs embed or link with);
/// DeviceImage a GPU target's single-architecture image inside it.
enum class EmitKind { LLVM, Asm, Obj, DeviceImage };

/// A target's own spelling of an -emit= kind (e.g. "isa" for Asm), with
/// the file name extension it is written with.
struct EmitStage {
  const char *name;
  EmitKind kind;
  const char *extension;
  const char *help;
};

class Target {
public:
  virtual ~Target() = default;
  virtual llvm::StringRef name() const = 0;
  /// The default for `-arch=` (e.g. "native" on the CPU).
  virtual llvm::StringRef defaultArch() const = 0;
  /// The -arch= values, for --help ("sm_90a (default), sm_80, ...").
  virtual std::string archHelp() const = 0;
  /// Resolves `-arch=`; an error names the accepted values.
  virtual llvm::Error setArch(llvm::StringRef arch) = 0;
  /// Passes that lower tile IR to the LLVM dialect.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm) const = 0;
  /// Translates the LLVM-dialect module to optimized LLVM IR.
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
            unsigned optLevel) const = 0;
  /// Writes assembly or an object file for `module`.
  virtual llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                               llvm::raw_pwrite_stream &os) const = 0;
  /// The launch stub of one kernel: header and source text.
  virtual void emitStub(const KernelSignature &kernel,
                        llvm::StringRef headerName, std::string &header,
                        std::string &source) const = 0;
  /// File name extension of the compiled kernel (".o").
  virtual llvm::StringRef binaryExtension() const = 0;
  /// File name extension of -emit=asm (".s").
  virtual llvm::StringRef asmExtension() const { return ".s"; }

  /// The description of the target and -arch that tile passes read
  /// (#tile.target, set on the module as attribute tile.target); null for
  /// targets whose passes need none.
  virtual mlir::Attribute describe(mlir::MLIRContext &ctx) const { return {}; }

  /// Target-dependent passes that still produce tile IR (layout inference
  /// on GPUs); `-emit=tile` shows their result.
  virtual void buildTilePipeline(mlir::OpPassManager &) const {}

  // GPU targets.
  /// The passes up to the gpu dialect (what `-emit=gpu` prints); false for
  /// targets without that stage.
  virtual bool buildGPUPipeline(mlir::OpPassManager &) const { return false; }
  /// Whether stubs embed the device binary: the driver then writes them
  /// after emitCode(Obj) and hands the binary over first.
  virtual bool stubsEmbedBinary() const { return false; }
  virtual void setEmbeddedBinary(std::vector<uint8_t>) {}
  /// Overrides the dynamic shared memory stubs launch with (testing stubs
  /// with a hand-made binary).
  virtual void setStubSharedBytes(int64_t) {}
  /// The -emit= kinds this target adds (beyond ast, tile, gpu, llvm, asm,
  /// obj and stub), e.g. "ptx".
  virtual std::vector<EmitStage> emitStages() const { return {}; }

  /// `-g`: line tables that map the code back to .tl lines.
  void setDebugInfo(bool enable) { debugInfo = enable; }

protected:
  bool debugInfo = false;
};

/// The target called `name`, or nullptr (then `known` lists the names).
std::unique_ptr<Target> createTarget(llvm::StringRef name, std::string &known);
/// Every target's name, in the registry's order.
std::vector<std::string> targetNames();

} // namespace tlc

#endif // TLC_TARGET_TARGET_H
