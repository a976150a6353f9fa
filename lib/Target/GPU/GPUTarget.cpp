//===- GPUTarget.cpp - What the LLVM-based GPU targets share --------------===//
#include "GPUTarget.h"
#include "../LLVMOptimize.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Runtime/tlc_runtime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <atomic>
#include <system_error>
#include <thread>

using namespace tlc;

TempDir::TempDir() { llvm::sys::fs::createUniqueDirectory("tlc-gpu", path); }
TempDir::~TempDir() { llvm::sys::fs::remove_directories(path); }
std::string TempDir::file(llvm::StringRef name) const {
  return (path + "/" + name).str();
}

llvm::Error tlc::runTool(llvm::StringRef name, llvm::ArrayRef<std::string> dirs,
                         llvm::ArrayRef<std::string> args, llvm::StringRef hint,
                         std::string *captured) {
  llvm::SmallVector<llvm::StringRef> paths(dirs.begin(), dirs.end());
  auto program = llvm::sys::findProgramByName(name, paths);
  if (!program)
    program = llvm::sys::findProgramByName(name);
  if (!program) {
    std::string where;
    for (const std::string &d : dirs)
      where += d + " ";
    return llvm::createStringError(name.str() + " not found in " + where +
                                   "or PATH (" + hint.str() + ")");
  }
  llvm::SmallString<128> log;
  llvm::sys::fs::createTemporaryFile("tlc-" + name.str(), "log", log);
  llvm::SmallVector<llvm::StringRef> argv = {*program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, argv, std::nullopt, redirects, 0,
                                     0, &message);
  auto text = llvm::MemoryBuffer::getFile(log);
  std::string output = text ? (*text)->getBuffer().str() : "";
  llvm::sys::fs::remove(log);
  if (rc != 0)
    return llvm::createStringError(name.str() + " failed" +
                                   (message.empty() ? "" : ": " + message) +
                                   (output.empty() ? "" : ":\n" + output));
  if (captured)
    *captured = std::move(output);
  return llvm::Error::success();
}

llvm::Expected<std::string> tlc::readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read " + path.str());
  return (*buffer)->getBuffer().str();
}

llvm::Error tlc::writeFile(llvm::StringRef path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path.str());
  file << contents;
  return llvm::Error::success();
}

void GPUTarget::buildTilePipeline(mlir::OpPassManager &pm) const {
  pm.addPass(tile::createTileInferLayouts());
}

bool GPUTarget::buildGPUPipeline(mlir::OpPassManager &pm) const {
  buildTileToGPUPipeline(pm);
  return true;
}

void tlc::buildTileToGPUPipeline(mlir::OpPassManager &pm) {
  pm.addPass(tile::createTileInferLayouts());
  pm.addPass(createTileGPUKernelABI());
  pm.addPass(createTilePlanPipelines());
  pm.addPass(createTileGPUTensorCopyFallback());
  pm.addPass(createTilePlanSharedMemory());
  pm.addPass(createTileGPUOrderGlobalMemory());
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createTileGPUEliminateBarriers());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

int64_t GPUTarget::blocksPerMultiprocessor(int64_t sharedBytes,
                                           int64_t threads) const {
  // A multiprocessor has about the shared memory one block may use plus
  // the 1 KiB the driver reserves per block (228 KiB on sm_90), and runs
  // at most 2048 threads (NVIDIA since sm_80, AMD CDNA). Registers can
  // lower this further; the heuristic does not know them.
  constexpr int64_t kReservedBytes = 1024, kMaxThreads = 2048;
  int64_t bySharedMemory = (languageConstants().sharedBytes + kReservedBytes) /
                           (std::max<int64_t>(sharedBytes, 0) + kReservedBytes);
  int64_t byThreads = kMaxThreads / std::max<int64_t>(threads, 1);
  return std::clamp<int64_t>(std::min(bySharedMemory, byThreads), 1,
                             runtime::kFillBlocksPerUnit);
}

void GPUTarget::emitStub(const KernelSignature &kernel,
                         const CompiledModule &compiled,
                         const StubPlacement &placement, std::string &header,
                         std::string &source) const {
  std::string entry = tile::kernelEntryName(kernel.name);
  // A variant after the first refers to the binary the first embedded; a
  // dispatching stub launches nothing itself.
  bool needsBinary = !placement.binaryEmbedded && !placement.dispatch;
  GpuKernelInfo info{kernel, entry, kernel.threads,
                     compiled.sharedBytes.lookup(entry),
                     needsBinary ? std::vector<uint8_t>(compiled.bytes.begin(),
                                                        compiled.bytes.end())
                                 : std::vector<uint8_t>()};
  if (int64_t threads = compiled.blockThreads.lookup(entry))
    info.threads = threads;
  if (placement.dispatch && placement.dispatch->fillHeuristic)
    for (const KernelSignature *variant : placement.dispatch->variants) {
      std::string variantEntry = tile::kernelEntryName(variant->name);
      int64_t threads = compiled.blockThreads.lookup(variantEntry);
      info.fillBlocksPerUnit.push_back(
          blocksPerMultiprocessor(compiled.sharedBytes.lookup(variantEntry),
                                  threads ? threads : variant->threads));
    }
  auto fallback = compiled.fallbacks.find(entry);
  if (fallback != compiled.fallbacks.end()) {
    info.tensorMaps = compiled.tensorMaps.lookup(entry);
    info.persistentExtents = compiled.persistent.lookup(entry);
    if (int64_t rows = compiled.clusterRows.lookup(entry))
      info.clusterRows = rows;
    info.fallbackEntry = fallback->second;
    info.fallbackSharedBytes = compiled.sharedBytes.lookup(fallback->second);
    info.fallbackThreads = kernel.threads;
    if (int64_t threads = compiled.blockThreads.lookup(fallback->second))
      info.fallbackThreads = threads;
  }
  StubFiles files = emitGpuStub(info, placement);
  header = std::move(files.header);
  source = std::move(files.source);
}

void GPUTarget::collectLaunchFacts(mlir::ModuleOp lowered,
                                   CompiledModule &compiled) const {
  lowered.walk([&](mlir::LLVM::LLVMFuncOp func) {
    if (auto bytes =
            func->getAttrOfType<mlir::IntegerAttr>(tile::attr::kSharedBytes))
      compiled.sharedBytes[func.getName()] = bytes.getInt();
    if (auto threads =
            func->getAttrOfType<mlir::IntegerAttr>(tile::attr::kBlockThreads))
      compiled.blockThreads[func.getName()] = threads.getInt();
    if (auto fallback =
            func->getAttrOfType<mlir::StringAttr>(tile::attr::kFallback))
      compiled.fallbacks[func.getName()] = fallback.getValue().str();
    if (auto extents =
            func->getAttrOfType<mlir::IntegerAttr>(tile::attr::kPersistent))
      compiled.persistent[func.getName()] = extents.getInt();
    if (auto rows =
            func->getAttrOfType<mlir::IntegerAttr>(tile::attr::kClusterRows))
      compiled.clusterRows[func.getName()] = rows.getInt();
    auto maps = func->getAttrOfType<mlir::ArrayAttr>(tile::attr::kTensorMaps);
    if (!maps)
      return;
    std::vector<TensorMapParam> &params = compiled.tensorMaps[func.getName()];
    for (mlir::Attribute a : maps) {
      auto entry = llvm::cast<mlir::DictionaryAttr>(a);
      TensorMapParam map;
      map.param = entry.getAs<mlir::IntegerAttr>("param").getInt();
      llvm::ArrayRef<int64_t> box =
          entry.getAs<mlir::DenseI64ArrayAttr>("box").asArrayRef();
      map.box.assign(box.begin(), box.end());
      map.swizzle = entry.getAs<mlir::IntegerAttr>("swizzle").getInt();
      map.store = entry.contains("store");
      params.push_back(std::move(map));
    }
  });
}

llvm::Error GPUTarget::createMachine(llvm::StringRef tripleName,
                                     llvm::StringRef cpu,
                                     llvm::StringRef features) {
  llvm::Triple triple(tripleName);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("cannot target " + tripleName.str() + ": " +
                                   error);
  machine.reset(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for " +
                                   cpu.str());
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
GPUTarget::translateGPUModule(mlir::ModuleOp module,
                              llvm::LLVMContext &ctx) const {
  mlir::gpu::GPUModuleOp gpuModule;
  module.walk([&](mlir::gpu::GPUModuleOp op) { gpuModule = op; });
  if (!gpuModule) { // no kernel: an empty (but valid) binary
    auto empty = std::make_unique<llvm::Module>("tlc", ctx);
    empty->setTargetTriple(machine->getTargetTriple());
    empty->setDataLayout(machine->createDataLayout());
    return empty;
  }
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(gpuModule, ctx, "tlc");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  return llvmModule;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
GPUTarget::translate(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                     const CompileOptions &options) const {
  auto llvmModule = translateUnoptimized(module, ctx, options);
  if (!llvmModule)
    return llvmModule.takeError();
  if (!(*llvmModule)->empty())
    optimizeModule(**llvmModule, machine.get(), options.optLevel);
  return llvmModule;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
GPUTarget::translateUnoptimized(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                                const CompileOptions &options) const {
  mlir::MLIRContext *mctx = module.getContext();
  mlir::registerBuiltinDialectTranslation(*mctx);
  mlir::registerLLVMDialectTranslation(*mctx);
  mlir::registerGPUDialectTranslation(*mctx);
  registerVendorTranslation(*mctx);
  auto translated = translateGPUModule(module, ctx);
  if (!translated)
    return translated.takeError();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*translated);
  if (llvmModule->empty())
    return llvmModule;
  // Before the device libraries come in: their code keeps its own
  // rounding.
  if (!options.preciseMath)
    for (llvm::Function &f : *llvmModule)
      for (llvm::Instruction &inst : llvm::instructions(f))
        if (llvm::isa<llvm::FPMathOperator>(inst))
          inst.setHasAllowContract(true);
  if (llvm::Error err = prepareModule(*llvmModule))
    return std::move(err);
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration() && f.getCallingConv() != kernelCallingConv())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  return llvmModule;
}

llvm::Expected<std::string>
GPUTarget::mergeAssembly(llvm::ArrayRef<std::string>) const {
  return llvm::createStringError("target " + name().str() +
                                 " does not merge assembly");
}

llvm::Error GPUTarget::emitFromAssembly(std::string, int64_t, EmitKind,
                                        const CompileOptions &,
                                        llvm::raw_pwrite_stream &) const {
  return llvm::createStringError("target " + name().str() +
                                 " does not emit from assembly");
}

namespace {
/// Keeps the text of error diagnostics (other severities are printed as
/// LLVM does by default).
struct ErrorRecorder : llvm::DiagnosticHandler {
  explicit ErrorRecorder(std::string &errors) : errors(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error)
      return false;
    llvm::raw_string_ostream os(errors);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    os << "\n";
    return true;
  }
  std::string &errors;
};
} // namespace

std::optional<llvm::Error>
GPUTarget::emitCodeInParallel(mlir::ModuleOp module, EmitKind kind,
                              const CompileOptions &options,
                              llvm::raw_pwrite_stream &os) const {
  // Line information: each module would number the source files its own
  // way.
  if (!mergesAssembly() || options.debugInfo)
    return std::nullopt;
  int64_t loweredKernels = 0;
  module.walk([&](mlir::LLVM::LLVMFuncOp func) {
    loweredKernels += func->hasAttr(tile::attr::kSharedBytes);
  });
  if (loweredKernels < 2)
    return std::nullopt;
  llvm::LLVMContext ctx;
  auto whole = translateUnoptimized(module, ctx, options);
  if (!whole)
    return whole.takeError();
  std::vector<const llvm::Function *> kernels;
  for (const llvm::Function &f : **whole)
    if (!f.isDeclaration() && f.getCallingConv() == kernelCallingConv())
      kernels.push_back(&f);
  if (kernels.size() < 2)
    return std::nullopt;
  // A variable one kernel writes and another reads would be optimized in
  // each module as if the other did not exist.
  for (const llvm::GlobalVariable &global : (*whole)->globals())
    if (!global.isDeclaration() && !global.isConstant())
      return std::nullopt;

  // Each kernel's module as bitcode: an LLVM context (and what lives in
  // it) belongs to one thread at a time.
  std::vector<llvm::SmallString<0>> bitcode(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(**whole, map, [&](const llvm::GlobalValue *value) {
          auto *f = llvm::dyn_cast<llvm::Function>(value);
          return !f || f == kernels[i] ||
                 f->getCallingConv() != kernelCallingConv();
        });
    // The other kernels, now declarations, are called by no one.
    for (llvm::Function &f : llvm::make_early_inc_range(*part))
      if (f.isDeclaration() && f.getCallingConv() == kernelCallingConv() &&
          f.use_empty())
        f.eraseFromParent();
    llvm::raw_svector_ostream out(bitcode[i]);
    llvm::WriteBitcodeToFile(*part, out);
  }

  std::vector<std::string> assembly(kernels.size());
  std::vector<std::string> errors(kernels.size());
  auto compileKernel = [&](size_t i) {
    llvm::LLVMContext threadContext;
    // An error diagnostic ends the process by default: from a worker
    // thread it becomes this kernel's error instead.
    threadContext.setDiagnosticHandler(
        std::make_unique<ErrorRecorder>(errors[i]));
    auto part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(bitcode[i], "kernel"), threadContext);
    if (!part) {
      errors[i] = llvm::toString(part.takeError());
      return;
    }
    std::unique_ptr<llvm::TargetMachine> threadMachine(
        machine->getTarget().createTargetMachine(
            machine->getTargetTriple(), machine->getTargetCPU(),
            machine->getTargetFeatureString(), machine->Options, std::nullopt,
            std::nullopt, machine->getOptLevel()));
    if (!threadMachine) {
      errors[i] =
          "cannot create a target machine for " + machine->getTargetCPU().str();
      return;
    }
    optimizeModule(**part, threadMachine.get(), options.optLevel);
    auto text = codegenWith(**part, *threadMachine,
                            llvm::CodeGenFileType::AssemblyFile);
    if (!text) {
      errors[i] = llvm::toString(text.takeError());
      return;
    }
    if (errors[i].empty())
      assembly[i] = std::move(*text);
  };
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < kernels.size();)
      compileKernel(i);
  };
  // The CPUs this process may use (tlc tune runs one compile per CPU).
  unsigned helpers = std::min<unsigned>(
      llvm::heavyweight_hardware_concurrency().compute_thread_count() - 1,
      kernels.size() - 1);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < helpers; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error &) {
      break; // the threads there are (this one included) take the rest
    }
  }
  worker();
  for (std::thread &t : threads)
    t.join();
  for (const std::string &message : errors)
    if (!message.empty())
      return llvm::createStringError(message);

  auto merged = mergeAssembly(assembly);
  if (!merged) {
    llvm::consumeError(merged.takeError());
    return std::nullopt; // compiled as one module instead
  }
  return emitFromAssembly(std::move(*merged), kernels.size(), kind, options,
                          os);
}

llvm::Error GPUTarget::linkBitcodeLibrary(llvm::Module &module,
                                          llvm::StringRef prefix,
                                          llvm::StringRef path,
                                          llvm::StringRef hint) const {
  bool needed = false;
  for (llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with(prefix))
      needed = true;
  if (!needed)
    return llvm::Error::success();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read " + path.str() + " (" +
                                   hint.str() + ")");
  auto library =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!library)
    return library.takeError();
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*library),
                                llvm::Linker::LinkOnlyNeeded))
    return llvm::createStringError("linking " + path.str() + " failed");
  return llvm::Error::success();
}

llvm::Expected<std::string>
GPUTarget::codegen(llvm::Module &module, llvm::CodeGenFileType type) const {
  return codegenWith(module, *machine, type);
}

llvm::Expected<std::string> tlc::codegenWith(llvm::Module &module,
                                             llvm::TargetMachine &machine,
                                             llvm::CodeGenFileType type) {
  std::string out;
  {
    llvm::raw_string_ostream stream(out);
    llvm::buffer_ostream buffer(stream); // written out when it goes
    llvm::legacy::PassManager pm;
    if (machine.addPassesToEmitFile(pm, buffer, nullptr, type))
      return llvm::createStringError("the LLVM backend cannot emit this file");
    pm.run(module);
  }
  return out;
}
