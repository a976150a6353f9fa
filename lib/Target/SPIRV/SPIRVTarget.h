//===- SPIRVTarget.h - Targets whose kernels are SPIR-V shaders -*- C++ -*-===//
//
// Vulkan runs the SPIR-V; Metal translates the same SPIR-V to the Metal
// Shading Language. Both describe the device by a profile (-arch): the
// subgroup size the kernels are written for and the workgroup memory they
// may use.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_TARGET_SPIRV_SPIRVTARGET_H
#define TLC_LIB_TARGET_SPIRV_SPIRVTARGET_H

#include "tlc/Target/Target.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace tlc {

/// A device profile of -arch.
struct ShaderProfile {
  const char *name;
  int64_t subgroupSize;
  int64_t workgroupBytes;
  const char *devices;
  /// The MMA kind gemms of f16 use (#tile.target's `mma`; empty: FMAs).
  const char *mma = "";
};

/// The binary of a copy of `module` that holds only the kernel `entry` and
/// what it uses: a driver (or SPIRV-Cross) may count every workgroup
/// variable of a module against each of its kernels. False after MLIR's
/// serializer reported an error.
bool serializeEntry(mlir::spirv::ModuleOp module, llvm::StringRef entry,
                    llvm::SmallVectorImpl<uint32_t> &words);

/// The part of compile() that SPIR-V targets share: the tile-to-gpu
/// pipeline with the target's #tile.target, the SPIR-V passes, the
/// finished spirv.module (-emit=asm prints it). finish() makes the form
/// the target ships from it.
class SPIRVBasedTarget : public Target {
public:
  /// `title`: the API's name in messages ("Vulkan").
  SPIRVBasedTarget(const char *title, llvm::ArrayRef<ShaderProfile> profiles)
      : title(title), profiles(profiles), chosen(&profiles.front()) {}

  llvm::StringRef defaultArch() const override { return profiles[0].name; }
  std::string archHelp() const override;
  llvm::Error setArch(llvm::StringRef arch) override;
  TargetConstants languageConstants() const override {
    return {chosen->workgroupBytes, chosen->subgroupSize};
  }
  llvm::StringRef asmExtension() const override { return ".spirv.mlir"; }
  mlir::Attribute describe(mlir::MLIRContext &ctx) const override;
  void buildTilePipeline(mlir::OpPassManager &pm) const override;
  std::optional<CompiledModule> compile(mlir::ModuleOp module, EmitKind kind,
                                        const CompileOptions &options,
                                        CompileError &error) const override;
  bool stubsEmbedBinary() const override { return true; }
  void emitStub(const KernelSignature &kernel, const CompiledModule &compiled,
                const StubPlacement &placement, std::string &header,
                std::string &source) const override;

protected:
  const ShaderProfile &profile() const { return *chosen; }
  /// Writes the Obj form of the finished module (its binary in `words`)
  /// into compiled.bytes; false after reporting an error.
  virtual bool finish(mlir::spirv::ModuleOp module,
                      llvm::ArrayRef<uint32_t> words, CompiledModule &compiled,
                      CompileError &error) const = 0;
  /// The stub of one kernel (info.binary: the Obj form, when it embeds it).
  virtual StubFiles emitShaderStub(const GpuKernelInfo &info,
                                   const StubPlacement &placement,
                                   const CompiledModule &compiled) const = 0;

private:
  const char *title;
  llvm::ArrayRef<ShaderProfile> profiles;
  const ShaderProfile *chosen;
};

} // namespace tlc

#endif // TLC_LIB_TARGET_SPIRV_SPIRVTARGET_H
