//===- CUDATarget.cpp - Tile IR to PTX, cubin and fatbin ------------------===//
//
// tile-infer-layouts and convert-tile-to-gpu make a gpu.module of SIMT
// kernels; upstream passes lower it to the NVVM/LLVM dialects; LLVM's NVPTX
// backend writes PTX (libdevice linked for math); the CUDA toolkit's ptxas
// and fatbinary make the cubin and the fatbin (cubin + PTX, so newer GPUs
// can JIT the PTX). Stubs follow docs/abi.md and embed the fatbin.
//
//===----------------------------------------------------------------------===//
#include "CUDATarget.h"
#include "../GPU/GPUTarget.h"
#include "../LLVMOptimize.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Stub/StubEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

using namespace tlc;

namespace {

/// The CUDA toolkit: $CUDA_HOME, $CUDA_PATH or /usr/local/cuda.
std::string toolkitDir() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *dir = std::getenv(var); dir && *dir)
      return dir;
  return "/usr/local/cuda";
}

/// Runs a program of the CUDA toolkit.
llvm::Error runToolkit(llvm::StringRef name, llvm::ArrayRef<std::string> args,
                       std::string *output = nullptr) {
  return runTool(name, {toolkitDir() + "/bin"}, args,
                 "set CUDA_HOME to the CUDA toolkit", output);
}

/// ptxas cannot parse an escaped quote in a `.file` name (a .tl file named
/// a"b.tl with -g): in `.file` lines, \" becomes ' (other escapes stay).
std::string withPtxasFileNames(std::string ptx) {
  for (size_t at = ptx.find("\t.file\t"); at != std::string::npos;
       at = ptx.find("\t.file\t", at + 1)) {
    size_t end = std::min(ptx.find('\n', at), ptx.size());
    std::string line;
    for (size_t i = at; i < end; ++i) {
      if (ptx[i] == '\\' && i + 1 < end) {
        if (ptx[i + 1] == '"')
          line += '\'';
        else
          line.append(ptx, i, 2);
        ++i;
      } else {
        line += ptx[i];
      }
    }
    ptx.replace(at, end - at, line);
  }
  return ptx;
}

class CUDATarget : public GPUTarget {
public:
  ScratchRuntime scratchRuntime() const override {
    return {"tlc/Runtime/tlc_cuda.h", "tlc::cuda::Scratch"};
  }
  llvm::StringRef name() const override { return "cuda"; }
  llvm::StringRef defaultArch() const override { return "sm_90a"; }
  llvm::StringRef binaryExtension() const override { return ".fatbin"; }
  llvm::StringRef asmExtension() const override { return ".ptx"; }
  TargetConstants languageConstants() const override {
    int64_t clusters = version >= 90 ? 8 : 1;
    return {maxSharedBytes(), 32, arch == "sm_90a" ? 1 : 0, clusters, clusters};
  }
  std::string archHelp() const override {
    return "sm_90a (default), sm_80, sm_86, sm_89, sm_100a, ... (sm_75 and "
           "newer)";
  }

  llvm::Error setArch(llvm::StringRef archName) override {
    // sm_NN or sm_NNa / sm_NNf (e.g. sm_80, sm_90a, sm_100a).
    llvm::StringRef digits = archName;
    if (!digits.consume_front("sm_") || digits.empty())
      return badArch(archName);
    if (digits.back() == 'a' || digits.back() == 'f')
      digits = digits.drop_back();
    // CUDA 13's ptxas starts at sm_75 and calls sm_101 sm_110.
    unsigned parsedVersion = 0;
    if (digits.getAsInteger(10, parsedVersion) || parsedVersion < 75)
      return badArch(archName);
    if (parsedVersion == 101)
      return llvm::createStringError(
          "'" + archName.str() +
          "' is called sm_110 since CUDA 13; use -arch=" + "sm_110" +
          archName.drop_front(6).str());
    arch = archName.str();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return llvm::createStringError("cannot target NVPTX: " + error);
    {
      std::unique_ptr<llvm::MCSubtargetInfo> info(
          target->createMCSubtargetInfo(triple, "", ""));
      if (!info || !info->isCPUStringValid(arch))
        return badArch(archName);
    }
    version = parsedVersion;
    // PTX 8.0 covers everything older than sm_90; sm_90 and sm_90a take
    // 8.1 for vector red (red.global.add.v2.f32: atomic_add of f32 pairs);
    // PTX 9.0 every Blackwell variant (sm_100f, sm_110, sm_121a, ...) and
    // sm_88.
    std::string features = version >= 100 || version == 88 ? "+ptx90"
                           : version >= 90                 ? "+ptx81"
                                                           : "+ptx80";
    return createMachine(triple.str(), arch, features);
  }

  mlir::Attribute describe(mlir::MLIRContext &ctx) const override {
    ctx.getOrLoadDialect<tile::TileDialect>();
    return tile::TargetAttr::get(
        &ctx, name(), arch, /*warpSize=*/32, maxSharedBytes(),
        /*maxThreads=*/1024, /*maxRegisters=*/255, /*vectorBytes=*/16,
        /*asyncCopy=*/version >= 80, // cp.async is sm_80+
        // bf16 mma.sync m16n8k16 needs sm_80; wgmma sm_90a (and mma.sync
        // stays for the gemms wgmma cannot take)
        arch == "sm_90a" ? "wgmma_m64nNk16,mma_sync_m16n8k16"
        : version >= 80  ? "mma_sync_m16n8k16"
                         : "");
  }

  bool hasPythonBindings() const override { return true; }
  std::vector<std::string> reportedInstructions() const override {
    return {
        "wgmma.mma_async", "mma.sync",    "ldmatrix",  "cp.async.bulk.tensor",
        "cp.async.cg",     "cp.async.ca", "mbarrier",  "bar.sync",
        "fma.rn",          "ld.global",   "st.global", "ld.shared",
        "st.shared"};
  }
  llvm::StringRef resourceStage() const override { return "ptxas"; }

  /// ptxas -v: "Compiling entry function 'tlc_k' for 'sm_90a'" (or
  /// "Function properties for tlc_k"), then "N bytes spill stores, M bytes
  /// spill loads" and "Used R registers".
  std::map<std::string, KernelResources>
  parseResourceLog(llvm::StringRef log) const override {
    std::map<std::string, KernelResources> out;
    KernelResources *current = nullptr;
    auto numberBefore = [](llvm::StringRef line, llvm::StringRef what) {
      size_t at = line.find(what);
      if (at == llvm::StringRef::npos)
        return int64_t(-1);
      llvm::StringRef head = line.take_front(at).rtrim();
      llvm::StringRef digits =
          head.take_back(head.size() - head.find_last_not_of("0123456789") - 1);
      int64_t v = -1;
      return digits.getAsInteger(10, v) ? int64_t(-1) : v;
    };
    llvm::SmallVector<llvm::StringRef> lines;
    log.split(lines, '\n');
    for (llvm::StringRef line : lines) {
      if (line.contains("entry function '")) {
        current = &out[line.drop_front(line.find('\'') + 1)
                           .take_until([](char c) { return c == '\''; })
                           .str()];
        continue;
      }
      if (size_t at = line.find("Function properties for ");
          at != llvm::StringRef::npos) {
        current = &out[line.drop_front(at + 24).trim().str()];
        continue;
      }
      if (!current)
        continue;
      if (int64_t r = numberBefore(line, " registers"); r >= 0)
        current->registers = r;
      if (int64_t st = numberBefore(line, " bytes spill stores"); st >= 0)
        current->spillStores = st;
      if (int64_t ld = numberBefore(line, " bytes spill loads"); ld >= 0)
        current->spillLoads = ld;
    }
    return out;
  }

  /// Per-multiprocessor limits of each architecture (the CUDA programming
  /// guide's compute capability table): registers go to warps in units of
  /// 256, shared memory keeps 1 KiB per block.
  std::pair<int64_t, std::string>
  estimateOccupancy(int64_t threads, int64_t registers,
                    int64_t sharedBytes) const override {
    if (registers < 0)
      return {0, ""};
    int64_t threadsPerSM = version <= 75 ? 1024
                           : version == 86 || version == 87 || version == 89
                               ? 1536
                               : 2048;
    int64_t blocksLimit = version <= 75 || version == 86 || version == 87 ? 16
                          : version == 89                                 ? 24
                                                                          : 32;
    int64_t warps = (std::max<int64_t>(threads, 1) + 31) / 32;
    int64_t perWarp = (std::max<int64_t>(registers, 1) * 32 + 255) / 256 * 256;
    std::pair<int64_t, std::string> limits[] = {
        {blocksLimit, "blocks per multiprocessor"},
        {threadsPerSM / std::max<int64_t>(threads, 1), "threads"},
        {65536 / (perWarp * warps), "registers"},
        {sharedBytes > 0 ? (maxSharedBytes() + 1024) / (sharedBytes + 1024)
                         : blocksLimit,
         "shared memory"}};
    return *llvm::min_element(
        limits, [](auto &a, auto &b) { return a.first < b.first; });
  }

  std::vector<EmitStage> emitStages() const override {
    return {{"ptx", EmitKind::Asm, ".ptx", "PTX (the same as -emit=asm)"},
            {"cubin", EmitKind::DeviceImage, ".cubin", "the cubin of -arch"},
            {"fatbin", EmitKind::Obj, ".fatbin",
             "cubin + PTX (the same as -emit=obj)"}};
  }

  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const CompileOptions &options) const override {
    buildGPUPipeline(pm);
    pm.addPass(createTileNVVMPartialBarriers());
    pm.addPass(createTileNVVMFloatMinMax());
    if (!options.preciseMath)
      pm.addPass(createTileNVVMFastExp2());
    // sm_89 and newer convert f32 <-> f8 in hardware (cvt ... e4m3x2);
    // older chips in integer operations, as every other target.
    if (version >= 89)
      pm.addPass(createTileNVVMF8Conversions());
    pm.addPass(tile::createTileExpandF8());
    // sm_80 and newer convert f32 -> bf16 in one instruction (cvt.rn.bf16);
    // older chips round in integer operations.
    bool nativeBF16 = version >= 80;
    if (!nativeBF16)
      pm.addPass(tile::createTileExpandBF16Truncf());
    // The kernels are lowered to the LLVM dialect in parallel, each in a
    // gpu.module of its own, then merged back into one.
    pm.addPass(createTileGPUSplitKernels());
    std::string upstream =
        std::string("gpu.module(convert-scf-to-cf,arith-expand{include-bf16=") +
        (nativeBF16 ? "false" : "true") +
        "},"
        "expand-strided-metadata,lower-affine,convert-nvgpu-to-nvvm,"
        "convert-gpu-to-nvvm{index-bitwidth=64 "
        "use-bare-ptr-memref-call-conv=true},convert-vector-to-llvm,"
        // NVVM ops without an LLVM intrinsic (wgmma) become inline PTX
        "convert-nvvm-to-llvm,"
        "canonicalize,cse),"
        "reconcile-unrealized-casts";
    if (mlir::failed(mlir::parsePassPipeline(upstream, pm, llvm::errs())))
      llvm::report_fatal_error("tlc: bad built-in CUDA pass pipeline");
    pm.addPass(createTileGPUMergeKernels());
    pm.addPass(createTileNVVMTensorMapParams());
    if (options.debugInfo &&
        mlir::failed(mlir::parsePassPipeline(
            // Walks the kernels inside the gpu.module too. Directives only:
            // .file/.loc for ptxas -lineinfo, no DWARF sections (which
            // ptxas accepts only with -g, unoptimized).
            "ensure-debug-info-scope-on-llvm-func{emission-kind="
            "DebugDirectivesOnly}",
            pm, llvm::errs())))
      llvm::report_fatal_error("tlc: bad built-in debug info pipeline");
  }

  void registerVendorTranslation(mlir::MLIRContext &ctx) const override {
    mlir::registerNVVMDialectTranslation(ctx);
  }
  llvm::CallingConv::ID kernelCallingConv() const override {
    return llvm::CallingConv::PTX_Kernel;
  }
  llvm::Error prepareModule(llvm::Module &module) const override {
    declareDynamicSharedMemory(module);
    return linkLibdevice(module);
  }

  /// MLIR defines a kernel's dynamic shared memory as an internal
  /// zero-sized array, which NVPTX prints as a one-byte static `.shared`
  /// variable: a kernel with exactly 48 KiB of dynamic shared memory then
  /// needs 48 KiB + 1 byte, more than a launch may use without the opt-in,
  /// and cuLaunchKernel fails. Declared external it is
  /// `.extern .shared .b8 NAME[]`, which takes no static bytes.
  static void declareDynamicSharedMemory(llvm::Module &module) {
    for (llvm::GlobalVariable &global : module.globals()) {
      auto *array = llvm::dyn_cast<llvm::ArrayType>(global.getValueType());
      if (global.getAddressSpace() != kSharedAddressSpace || !array ||
          array->getNumElements() != 0 || !global.hasInitializer())
        continue;
      global.setInitializer(nullptr);
      global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
  }
  static constexpr unsigned kSharedAddressSpace = 3; // NVPTX's .shared

  llvm::Error emitCode(llvm::Module &module, EmitKind kind,
                       const CompileOptions &options,
                       llvm::raw_pwrite_stream &os) const override {
    int64_t kernels = llvm::count_if(module, [&](const llvm::Function &f) {
      return !f.isDeclaration() && f.getCallingConv() == kernelCallingConv();
    });
    auto assembly = codegen(module, llvm::CodeGenFileType::AssemblyFile);
    if (!assembly)
      return assembly.takeError();
    return emitFromAssembly(std::move(*assembly), kernels, kind, options, os);
  }

  bool mergesAssembly() const override { return true; }

  /// The kernels' PTX files as one, laid out as NVPTX lays out one module:
  /// the header (up to .address_size) once, the module-scope variables of
  /// every file (an `.extern` that several declare the same way once) after
  /// the first file's `.globl` note, then each file's functions in order,
  /// their labels and local depots numbered as in one module. An error for
  /// files of another shape or names two files define (the caller then
  /// compiles the whole module at once).
  llvm::Expected<std::string>
  mergeAssembly(llvm::ArrayRef<std::string> parts) const override {
    struct Part {
      llvm::StringRef globl, rest;
    };
    std::vector<Part> split;
    std::string header, variables;
    llvm::StringMap<std::string> declared; // name -> its declaration line
    for (const std::string &text : parts) {
      llvm::StringRef body = text;
      size_t at = body.find("\n.address_size");
      size_t end = at == llvm::StringRef::npos ? at : body.find('\n', at + 1);
      if (end == llvm::StringRef::npos)
        return llvm::createStringError("PTX without .address_size");
      if (header.empty())
        header = body.take_front(end + 1).str();
      else if (header != body.take_front(end + 1))
        return llvm::createStringError("PTX headers differ");
      body = body.drop_front(end + 1);
      // "\n\t// .globl\tNAME\n", the variables, "\n", the functions.
      if (!body.consume_front("\n") || !body.starts_with("\t// .globl"))
        return llvm::createStringError("unexpected PTX layout");
      Part part;
      part.globl = body.take_front(body.find('\n') + 1);
      body = body.drop_front(part.globl.size());
      while (!body.starts_with("\n")) {
        llvm::StringRef line =
            body.take_until([](char c) { return c == '\n'; });
        std::string name = declaredName(line);
        if (name.empty() || !line.ends_with(";") || line.contains(".func") ||
            line.contains(".entry"))
          return llvm::createStringError("unexpected PTX layout");
        auto [it, inserted] = declared.try_emplace(name, line.str());
        if (inserted)
          variables += (line + "\n").str();
        else if (!line.starts_with(".extern") || it->second != line)
          return llvm::createStringError("'" + name + "' is defined twice");
        body = body.drop_front(std::min(body.size(), line.size() + 1));
      }
      part.rest = body.drop_front(1);
      split.push_back(part);
    }
    std::string merged = header + "\n" + split.front().globl.str() + variables;
    for (auto [i, part] : llvm::enumerate(split)) {
      if (i > 0)
        merged += part.globl;
      else
        merged += "\n";
      // Functions: the kernel, and functions only it calls.
      int functions = 0;
      llvm::SmallVector<llvm::StringRef> lines;
      part.rest.split(lines, '\n');
      for (llvm::StringRef line : lines) {
        std::string name = declaredName(line);
        if (name.empty())
          continue;
        if (!declared.try_emplace(name, line.str()).second)
          return llvm::createStringError("'" + name + "' is defined twice");
        ++functions;
      }
      std::string rest = part.rest.str();
      if (functions == 1 && i > 0) {
        // Labels and local depots are numbered by function in the module;
        // they are scoped to the function either way.
        rest = renameWord(rest, "$L__BB0_", "$L__BB" + std::to_string(i) + "_");
        rest = renameWord(rest, "__local_depot0",
                          "__local_depot" + std::to_string(i));
      }
      merged += rest;
    }
    return merged;
  }

  /// `text` with `from` replaced by `to` where it starts a word (is not part
  /// of a longer identifier such as a kernel named x__local_depot0).
  static std::string renameWord(llvm::StringRef text, llvm::StringRef from,
                                llvm::StringRef to) {
    auto identifier = [](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '$';
    };
    std::string out;
    size_t done = 0;
    for (size_t at = text.find(from); at != llvm::StringRef::npos;
         at = text.find(from, at + from.size())) {
      if (at > 0 && identifier(text[at - 1]))
        continue;
      out += text.slice(done, at);
      out += to;
      done = at + from.size();
    }
    out += text.drop_front(done);
    return out;
  }

  /// The name a module-scope PTX line declares or defines (a function,
  /// entry or variable), "" for any other line.
  static std::string declaredName(llvm::StringRef line) {
    // Performance directives (.maxntid, .pragma, ...) name nothing.
    if (!llvm::any_of(
            llvm::ArrayRef<llvm::StringRef>{".visible", ".extern", ".weak",
                                            ".entry", ".func", ".global",
                                            ".const", ".shared", ".common"},
            [&](llvm::StringRef d) { return line.starts_with(d); }))
      return "";
    // `.func  (.param .b32 r) name(`: the return parameters first.
    size_t func = line.find(".func");
    if (func != llvm::StringRef::npos &&
        line.drop_front(func + 5).ltrim().starts_with("(")) {
      size_t close = line.find(')', func);
      if (close == llvm::StringRef::npos)
        return "";
      line = line.drop_front(close + 1);
    }
    line = line.take_until(
        [](char c) { return c == '(' || c == '[' || c == ';' || c == '='; });
    line = line.rtrim();
    size_t space = line.find_last_of(" \t");
    llvm::StringRef name =
        space == llvm::StringRef::npos ? line : line.drop_front(space + 1);
    return name.starts_with(".") || name.empty() ? "" : name.str();
  }

  llvm::Error emitFromAssembly(std::string assembly, int64_t kernels,
                               EmitKind kind, const CompileOptions &options,
                               llvm::raw_pwrite_stream &os) const override {
    std::string ptx = withPtxasFileNames(std::move(assembly));
    if (kind == EmitKind::Asm || kind == EmitKind::LLVM) {
      os << ptx;
      return llvm::Error::success();
    }
    TempDir tmp;
    std::string ptxPath = tmp.file("kernels.ptx");
    std::string cubinPath = tmp.file("kernels.cubin");
    if (llvm::Error err = writeFile(ptxPath, ptx))
      return err;
    std::vector<std::string> ptxasArgs = {"-arch=" + arch, "-O3", ptxPath, "-o",
                                          cubinPath};
    if (options.debugInfo)
      ptxasArgs.push_back("-lineinfo");
    // Kernels are compiled on as many threads as there are CPUs (the machine
    // code is the same as from one thread: only the toolkit note in the
    // cubin, which records the command, differs).
    if (kernels > 1)
      ptxasArgs.push_back("-split-compile=0");
    // --report / --dump-dir: ptxas's resource usage per kernel.
    if (options.dumpStage)
      ptxasArgs.push_back("-v");
    std::string ptxasLog;
    if (llvm::Error err = runToolkit("ptxas", ptxasArgs, &ptxasLog))
      return err;
    if (options.dumpStage)
      options.dumpStage("ptxas", ".txt", ptxasLog);
    std::string outPath = cubinPath;
    if (kind == EmitKind::Obj) {
      outPath = tmp.file("kernels.fatbin");
      std::string sm = llvm::StringRef(arch).drop_front(3).str();
      if (llvm::Error err = runToolkit(
              "fatbinary", {"-64", "--create=" + outPath,
                            "--image3=kind=elf,sm=" + sm + ",file=" + cubinPath,
                            "--image3=kind=ptx,sm=" + sm + ",file=" + ptxPath}))
        return err;
    }
    auto bytes = readFile(outPath);
    if (!bytes)
      return bytes.takeError();
    os << *bytes;
    return llvm::Error::success();
  }

  StubFiles emitGpuStub(const GpuKernelInfo &info,
                        const StubPlacement &placement) const override {
    return emitCudaStub(info, placement);
  }

private:
  std::string arch;
  unsigned version = 0;

  /// Dynamic shared memory a block may opt in to.
  int64_t maxSharedBytes() const {
    switch (version) {
    case 75:
      return 64 * 1024;
    case 80:
    case 87:
      return 163 * 1024;
    case 86:
    case 89:
    case 120: // consumer Blackwell
    case 121:
      return 99 * 1024;
    default:
      return 227 * 1024;
    }
  }

  /// Math functions lower to libdevice calls (__nv_expf, ...): link the
  /// ones used.
  llvm::Error linkLibdevice(llvm::Module &module) const {
    if (llvm::Error err = linkBitcodeLibrary(
            module, "__nv_", toolkitDir() + "/nvvm/libdevice/libdevice.10.bc",
            "set CUDA_HOME to the CUDA toolkit"))
      return err;
    // libdevice asks whether denormals flush; they do not.
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                         static_cast<uint32_t>(0));
    return llvm::Error::success();
  }

  static llvm::Error badArch(llvm::StringRef archName) {
    return llvm::createStringError(
        "unknown CUDA architecture '" + archName.str() +
        "'; expected an NVIDIA architecture from sm_75 on: sm_75, sm_80, "
        "sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100a, sm_120, ...");
  }
};

} // namespace

std::unique_ptr<Target> tlc::createCUDATarget() {
  return std::make_unique<CUDATarget>();
}
