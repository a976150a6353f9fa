//===- MetalTarget.cpp - Tile IR to the Metal Shading Language ------------===//
//
// The kernels take the SPIR-V route of Vulkan (lib/Target/SPIRV, with
// Apple's profile: 32-wide SIMD groups, 32 KiB of threadgroup memory) and
// SPIRV-Cross translates each entry point to MSL. The buffer indices are
// fixed here, the same as the Vulkan bindings: tensor t at [[buffer(t)]],
// the 32-bit words of the push constants after the kernel's tensors.
//
// SPIRV-Cross translates one entry point at a time, and the helpers and
// types of two translations may share names, so the .metal file holds one
// translation unit per kernel, each under #if defined(TLC_KERNEL_<entry>):
// the stubs compile their kernel's unit with that macro at the first
// launch (Metal has no offline compiler on Linux).
//
//===----------------------------------------------------------------------===//
#include "MetalTarget.h"
#include "../SPIRV/SPIRVTarget.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <spirv_cross/spirv_cross_c.h>

using namespace tlc;

namespace {

const ShaderProfile kProfiles[] = {
    {"apple", 32, 32768, "Apple GPUs (Apple silicon: M1 and later)"},
};

/// What the MSL of one kernel needs: its entry point and its tensors.
struct EntryPoint {
  std::string name;
  unsigned tensors = 0;
};

std::vector<EntryPoint> entryPoints(mlir::spirv::ModuleOp module) {
  std::vector<EntryPoint> entries;
  for (auto entry : module.getOps<mlir::spirv::EntryPointOp>()) {
    EntryPoint e{entry.getFn().str()};
    for (mlir::Attribute ref : entry.getInterface()) {
      auto var = mlir::SymbolTable::lookupNearestSymbolFrom<
          mlir::spirv::GlobalVariableOp>(
          module, llvm::cast<mlir::FlatSymbolRefAttr>(ref));
      auto type = var ? llvm::dyn_cast<mlir::spirv::PointerType>(var.getType())
                      : nullptr;
      if (type &&
          type.getStorageClass() == mlir::spirv::StorageClass::StorageBuffer)
        ++e.tensors;
    }
    entries.push_back(e);
  }
  return entries;
}

/// SPIRV-Cross 1.3.239 (Debian 12) spells a float atomic add
/// (OpAtomicFAddEXT) as GLSL's atomicAdd: Metal 3's atomic<float> does it.
constexpr llvm::StringLiteral kAtomicAddHelper =
    "\n// tlc: SPIRV-Cross writes float atomic adds as atomicAdd.\n"
    "template <typename T>\n"
    "inline T atomicAdd(device T &x, T v) {\n"
    "  return atomic_fetch_add_explicit((device atomic<T> *)&x, v,\n"
    "                                   memory_order_relaxed);\n"
    "}\n";

void addHelpers(std::string &msl) {
  if (msl.find("atomicAdd(") == std::string::npos)
    return;
  llvm::StringRef anchor = "using namespace metal;\n";
  size_t at = msl.find(anchor.str());
  if (at != std::string::npos)
    msl.insert(at + anchor.size(), kAtomicAddHelper.str());
}

/// One SPIRV-Cross context per module; errors land in `message`.
class Translator {
public:
  Translator() {
    spvc_context_create(&ctx);
    spvc_context_set_error_callback(
        ctx,
        [](void *user, const char *error) {
          *static_cast<std::string *>(user) = error;
        },
        &message);
  }
  ~Translator() { spvc_context_destroy(ctx); }

  /// The MSL of the entry point of `words`, or nullopt (then `message`
  /// says why).
  std::optional<std::string> translate(llvm::ArrayRef<uint32_t> words,
                                       const EntryPoint &entry) {
    spvc_parsed_ir ir = nullptr;
    if (spvc_context_parse_spirv(ctx, words.data(), words.size(), &ir) !=
        SPVC_SUCCESS)
      return std::nullopt;
    spvc_compiler compiler = nullptr;
    spvc_compiler_options options = nullptr;
    const char *source = nullptr;
    if (spvc_context_create_compiler(ctx, SPVC_BACKEND_MSL, ir,
                                     SPVC_CAPTURE_MODE_COPY,
                                     &compiler) != SPVC_SUCCESS ||
        spvc_compiler_set_entry_point(compiler, entry.name.c_str(),
                                      SpvExecutionModelGLCompute) !=
            SPVC_SUCCESS ||
        spvc_compiler_create_compiler_options(compiler, &options) !=
            SPVC_SUCCESS)
      return std::nullopt;
    // MSL 2.3 (macOS 11): SIMD-group shuffles, 16-bit types.
    spvc_compiler_options_set_uint(options, SPVC_COMPILER_OPTION_MSL_VERSION,
                                   SPVC_MAKE_MSL_VERSION(2, 3, 0));
    spvc_compiler_options_set_uint(options, SPVC_COMPILER_OPTION_MSL_PLATFORM,
                                   SPVC_MSL_PLATFORM_MACOS);
    if (spvc_compiler_install_compiler_options(compiler, options) !=
        SPVC_SUCCESS)
      return std::nullopt;
    auto bind = [&](unsigned set, unsigned binding, unsigned index) {
      spvc_msl_resource_binding b;
      spvc_msl_resource_binding_init(&b);
      b.stage = SpvExecutionModelGLCompute;
      b.desc_set = set;
      b.binding = binding;
      b.msl_buffer = index;
      return spvc_compiler_msl_add_resource_binding(compiler, &b) ==
             SPVC_SUCCESS;
    };
    for (unsigned t = 0; t < entry.tensors; ++t)
      if (!bind(0, t, t))
        return std::nullopt;
    if (!bind(SPVC_MSL_PUSH_CONSTANT_DESC_SET, SPVC_MSL_PUSH_CONSTANT_BINDING,
              entry.tensors))
      return std::nullopt;
    if (spvc_compiler_compile(compiler, &source) != SPVC_SUCCESS)
      return std::nullopt;
    // MSL reserves names with doubled underscores (SPIRV-Cross renames
    // tlc_K__v0 to tlc_K_v0).
    functionName = spvc_compiler_get_cleansed_entry_point_name(
        compiler, entry.name.c_str(), SpvExecutionModelGLCompute);
    std::string msl = source;
    addHelpers(msl);
    return msl;
  }

  std::string message;
  /// The MSL name of the last translated entry point.
  std::string functionName;

private:
  spvc_context ctx = nullptr;
};

class MetalTarget : public SPIRVBasedTarget {
public:
  ScratchRuntime scratchRuntime() const override {
    return {"tlc/Runtime/tlc_metal.h", "tlc::metal::Scratch"};
  }
  MetalTarget() : SPIRVBasedTarget("Metal", kProfiles) {}

  llvm::StringRef name() const override { return "metal"; }
  llvm::StringRef binaryExtension() const override { return ".metal"; }
  llvm::StringRef stubSourceExtension() const override { return ".mm"; }
  std::vector<EmitStage> emitStages() const override {
    return {{"msl", EmitKind::Obj, ".metal",
             "the Metal Shading Language (the same as -emit=obj)"},
            {"spirv", EmitKind::DeviceImage, ".spv",
             "the SPIR-V the MSL is translated from"}};
  }

protected:
  StubFiles emitShaderStub(const GpuKernelInfo &info,
                           const StubPlacement &placement,
                           const CompiledModule &compiled) const override {
    return emitMetalStub(info, placement, profile().subgroupSize,
                         pushWordsOf(compiled, info.entryName),
                         compiled.functionNames.lookup(info.entryName));
  }

  bool finish(mlir::spirv::ModuleOp module, llvm::ArrayRef<uint32_t>,
              CompiledModule &compiled, CompileError &error) const override {
    Translator translator;
    llvm::raw_string_ostream os(compiled.bytes);
    os << "// Generated by tlc (-target=metal -arch=" << profile().name
       << "): the Metal Shading Language of every kernel,\n"
          "// translated from its SPIR-V by SPIRV-Cross. One translation "
          "unit per kernel:\n"
          "// compile one with -DTLC_KERNEL_<entry point> (the stubs do, at "
          "the first launch).\n";
    for (const EntryPoint &entry : entryPoints(module)) {
      // SPIRV-Cross declares every workgroup variable of the module in
      // each kernel it translates: one module per kernel.
      llvm::SmallVector<uint32_t, 0> words;
      if (!serializeEntry(module, entry.name, words)) {
        error.diagnosed = true;
        return false;
      }
      std::optional<std::string> msl = translator.translate(words, entry);
      if (!msl) {
        error.message = "SPIRV-Cross cannot translate kernel " + entry.name +
                        " to MSL: " + translator.message;
        return false;
      }
      if (translator.functionName != entry.name)
        compiled.functionNames[entry.name] = translator.functionName;
      os << "\n#if defined(TLC_KERNEL_" << entry.name << ")\n"
         << *msl << "#endif // TLC_KERNEL_" << entry.name << "\n";
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Target> tlc::createMetalTarget() {
  return std::make_unique<MetalTarget>();
}
