//===- SPIRVTarget.cpp - The SPIR-V route shared by Vulkan and Metal ------===//
//
// The tile IR becomes gpu.func kernels like on every GPU (the shared
// tile-to-gpu pipeline, with the target's #tile.target: no asynchronous
// copies; cooperative matrices where the profile names a kind);
// tile-vulkan-prepare-spirv rewrites
// them into the shader ABI and flat memory, tile-vulkan-convert-to-spirv
// makes the spirv.module, upstream's spirv-lower-abi-attrs and
// spirv-update-vce finish it and MLIR's serializer writes the binary.
//
//===----------------------------------------------------------------------===//
#include "SPIRVTarget.h"
#include "../GPU/GPUTarget.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

using namespace tlc;

namespace {

/// spirv-lower-abi-attrs gives every interface variable a descriptor set
/// and binding; Vulkan forbids them on the push-constant block. The entry
/// points list every global they use, which needs SPIR-V 1.4 or newer:
/// spirv-update-vce may have chosen an older version.
void finishModule(mlir::spirv::ModuleOp module) {
  if (auto triple = module.getVceTriple();
      triple && triple->getVersion() < mlir::spirv::Version::V_1_5)
    module.setVceTripleAttr(mlir::spirv::VerCapExtAttr::get(
        mlir::spirv::Version::V_1_5, llvm::to_vector(triple->getCapabilities()),
        llvm::to_vector(triple->getExtensions()), module.getContext()));
  module.walk([](mlir::spirv::GlobalVariableOp var) {
    auto type = llvm::cast<mlir::spirv::PointerType>(var.getType());
    if (type.getStorageClass() != mlir::spirv::StorageClass::PushConstant)
      return;
    var->removeAttr("descriptor_set");
    var->removeAttr("binding");
  });
}

} // namespace

bool tlc::serializeEntry(mlir::spirv::ModuleOp module, llvm::StringRef entry,
                         llvm::SmallVectorImpl<uint32_t> &words) {
  mlir::OwningOpRef<mlir::spirv::ModuleOp> copy = module.clone();
  llvm::SmallVector<mlir::Operation *> others;
  for (mlir::Operation &op : copy->getBody()->getOperations()) {
    if (auto point = llvm::dyn_cast<mlir::spirv::EntryPointOp>(op)) {
      if (point.getFn() != entry)
        others.push_back(&op);
    } else if (auto mode = llvm::dyn_cast<mlir::spirv::ExecutionModeOp>(op)) {
      if (mode.getFn() != entry)
        others.push_back(&op);
    }
  }
  for (mlir::Operation *op : others)
    op->erase();
  // Then whatever nothing uses any more: the other kernels, then their
  // globals (the functions first: they use the globals).
  for (bool functions : {true, false}) {
    llvm::SmallVector<mlir::Operation *> unused;
    for (mlir::Operation &op : copy->getBody()->getOperations()) {
      bool isFunction = llvm::isa<mlir::spirv::FuncOp>(op);
      bool isGlobal = llvm::isa<mlir::spirv::GlobalVariableOp>(op);
      if ((functions ? isFunction : isGlobal) &&
          mlir::SymbolTable::symbolKnownUseEmpty(&op, copy->getOperation()))
        unused.push_back(&op);
    }
    for (mlir::Operation *op : unused)
      op->erase();
  }
  // The kernel's own capabilities and extensions: another kernel's
  // cooperative matrices must not make it a module that needs
  // VK_KHR_cooperative_matrix (its stub does not ask the device for them).
  // The version stays the module's, at most 1.5 unless the kernel itself
  // needs 1.6: the entry points list their interface variables the way
  // that version wants (1.4 and later: push constants and buffers too).
  mlir::spirv::VerCapExtAttr moduleTriple = module.getVceTripleAttr();
  mlir::PassManager pm(copy->getContext(),
                       mlir::spirv::ModuleOp::getOperationName());
  pm.addPass(mlir::spirv::createSPIRVUpdateVCEPass());
  if (mlir::failed(pm.run(*copy)))
    return false;
  if (mlir::spirv::VerCapExtAttr own = copy->getVceTripleAttr();
      own && moduleTriple) {
    auto version =
        std::max(own.getVersion(), std::min(moduleTriple.getVersion(),
                                            mlir::spirv::Version::V_1_5));
    copy->setVceTripleAttr(mlir::spirv::VerCapExtAttr::get(
        mlir::Builder(copy->getContext())
            .getI32IntegerAttr(static_cast<uint32_t>(version)),
        own.getCapabilitiesAttr(), own.getExtensionsAttr()));
  }
  llvm::SmallVector<uint32_t, 0> binary;
  if (mlir::failed(mlir::spirv::serialize(*copy, binary)))
    return false;
  words.assign(binary.begin(), binary.end());
  return true;
}

std::string SPIRVBasedTarget::archHelp() const {
  std::string help;
  for (const ShaderProfile &p : profiles)
    help += std::string(help.empty() ? "" : ", ") + p.name +
            (p.name == defaultArch() ? " (default)" : "");
  return help + " (a device profile: subgroup size, workgroup memory, "
                "cooperative matrices)";
}

llvm::Error SPIRVBasedTarget::setArch(llvm::StringRef arch) {
  for (const ShaderProfile &p : profiles)
    if (arch == p.name) {
      chosen = &p;
      return llvm::Error::success();
    }
  std::string names;
  for (const ShaderProfile &p : profiles)
    names += std::string(names.empty() ? "" : ", ") + p.name;
  return llvm::createStringError(std::string("unknown ") + title +
                                 " architecture '" + arch.str() +
                                 "'; expected one of " + names);
}

mlir::Attribute SPIRVBasedTarget::describe(mlir::MLIRContext &ctx) const {
  ctx.getOrLoadDialect<tile::TileDialect>();
  // 4-byte vectors: SPIR-V's logical addressing has no vector access to a
  // scalar array, so the kernels load element by element.
  return tile::TargetAttr::get(
      &ctx, name(), chosen->name, chosen->subgroupSize, chosen->workgroupBytes,
      /*maxThreads=*/1024, /*maxRegisters=*/255,
      /*vectorBytes=*/4, /*asyncCopy=*/false, chosen->mma);
}

void SPIRVBasedTarget::buildTilePipeline(mlir::OpPassManager &pm) const {
  pm.addPass(tile::createTileInferLayouts());
}

std::optional<CompiledModule>
SPIRVBasedTarget::compile(mlir::ModuleOp module, EmitKind kind,
                          const CompileOptions &options,
                          CompileError &error) const {
  if (kind == EmitKind::LLVM) {
    error.message = "the " + name().str() +
                    " target has no LLVM IR stage; use -emit=gpu, asm (the "
                    "SPIR-V dialect)";
    std::vector<EmitStage> stages = emitStages();
    for (size_t i = 0; i < stages.size(); ++i)
      error.message += (i + 1 == stages.size() ? " or " : ", ") +
                       std::string(stages[i].name);
    error.status = 1;
    return std::nullopt;
  }
  mlir::PassManager pm(module.getContext());
  if (options.configurePasses)
    options.configurePasses(pm);
  buildTileToGPUPipeline(pm);
  pm.addPass(tile::createTileExpandF8());
  if (kind != EmitKind::GPU) {
    pm.addPass(createTileVulkanPrepareSPIRV());
    pm.addPass(createTileVulkanConvertToSPIRV());
    mlir::OpPassManager &spirvPm = pm.nest<mlir::spirv::ModuleOp>();
    spirvPm.addPass(mlir::spirv::createSPIRVLowerABIAttributesPass());
    spirvPm.addPass(mlir::spirv::createSPIRVUpdateVCEPass());
    spirvPm.addPass(mlir::createCanonicalizerPass());
  }
  if (mlir::failed(pm.run(module))) {
    error.diagnosed = true;
    return std::nullopt;
  }
  CompiledModule compiled;
  module.walk([&](mlir::spirv::FuncOp func) {
    if (auto words = func->getAttrOfType<mlir::DenseI32ArrayAttr>(
            tile::attr::kVulkanPushWords))
      compiled.pushConstantWords[func.getName()] = std::vector<int32_t>(
          words.asArrayRef().begin(), words.asArrayRef().end());
    if (func->hasAttr(tile::attr::kVulkanParamsBuffer))
      compiled.paramsBuffers.insert(func.getName());
    func.walk([&](mlir::spirv::KHRCooperativeMatrixMulAddOp mma) {
      compiled.coopMatrixSizes[func.getName()] =
          llvm::cast<mlir::spirv::CooperativeMatrixType>(mma.getType())
              .getRows();
    });
  });
  llvm::raw_string_ostream os(compiled.bytes);
  if (kind == EmitKind::GPU) {
    module.print(os);
    return compiled;
  }
  mlir::spirv::ModuleOp spirvModule;
  module.walk([&](mlir::spirv::ModuleOp m) { spirvModule = m; });
  if (!spirvModule) // no kernel: nothing to run (the stubs launch nothing)
    return compiled;
  finishModule(spirvModule);
  if (kind == EmitKind::Asm) {
    spirvModule.print(os);
    return compiled;
  }
  llvm::SmallVector<uint32_t, 0> words;
  if (mlir::failed(mlir::spirv::serialize(spirvModule, words))) {
    error.diagnosed = true;
    return std::nullopt;
  }
  if (kind == EmitKind::DeviceImage) { // the SPIR-V binary itself
    os.write(reinterpret_cast<const char *>(words.data()),
             words.size() * sizeof(uint32_t));
    return compiled;
  }
  os.flush();
  if (!finish(spirvModule, words, compiled, error))
    return std::nullopt;
  return compiled;
}

void SPIRVBasedTarget::emitStub(const KernelSignature &kernel,
                                const CompiledModule &compiled,
                                const StubPlacement &placement,
                                std::string &header,
                                std::string &source) const {
  std::string entry = tile::kernelEntryName(kernel.name);
  // A kernel with a module of its own embeds that (each variant of a tuned
  // kernel its own), else the whole module (variants share it).
  auto own = compiled.entryBinaries.find(entry);
  StubPlacement where = placement;
  if (own != compiled.entryBinaries.end() && !placement.dispatch) {
    where.binaryName.clear();
    where.binaryEmbedded = false;
  }
  const std::string &binary =
      own != compiled.entryBinaries.end() ? own->second : compiled.bytes;
  bool needsBinary = !where.binaryEmbedded && !where.dispatch;
  GpuKernelInfo info{kernel, entry, kernel.threads, 0,
                     needsBinary
                         ? std::vector<uint8_t>(binary.begin(), binary.end())
                         : std::vector<uint8_t>()};
  StubFiles files = emitShaderStub(info, where, compiled);
  header = std::move(files.header);
  source = std::move(files.source);
}
