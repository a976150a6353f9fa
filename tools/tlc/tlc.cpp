//===- tlc.cpp - The tile language compiler driver ------------------------===//
//
// tlc FILE.tl -target=cpu [-arch=A] [-D NAME=V]... [-o OUT] [-emit=KIND]
//
// Parses and checks the file (and its imports), builds tile IR, runs the
// target-neutral passes, lowers through the target and writes the compiled
// kernels plus one launch stub (NAME.h + NAME.cpp) per kernel. With --bundle
// it also writes STEM.tlc.h and STEM.tlc.cpp, names a build system knows
// before it runs tlc.
//
//===----------------------------------------------------------------------===//
#include "CompileReport.h"
#include "StageDump.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Frontend/ASTPrinter.h"
#include "tlc/Frontend/Parser.h"
#include "tlc/Frontend/Sema.h"
#include "tlc/MLIRGen/MLIRGen.h"
#include "tlc/Stub/StubEmitter.h"
#include "tlc/Target/Target.h"
#include "tlc/Tune/LaunchHeuristic.h"
#include "tlc/Tune/TuningDatabase.h"

#include "Driver.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <set>

using namespace tlc;
using namespace tlc::driver;

namespace {

/// The -emit= help: the common kinds, then each target's own.
std::string emitHelp() {
  std::string help =
      "What to write (default: the compiled kernels plus stubs):\n"
      "  ast   the checked syntax tree, with types and constants\n"
      "  tile  tile-dialect MLIR after the target-neutral passes (and, for\n"
      "        GPU targets, layout inference: fragments show #tile.layout)\n"
      "  gpu   (GPU targets) gpu-dialect MLIR after the tile lowering\n"
      "  llvm  optimized LLVM IR of the kernels\n"
      "  asm   target assembly\n"
      "  obj   the compiled kernels only (what the stubs embed or link)\n"
      "  stub  the launch stubs only (NAME.h and NAME.cpp per kernel; Metal:\n"
      "        NAME.mm)\n"
      "  python (cpu, cuda, rocm) STEM.py: Python bindings of the kernels'\n"
      "        C entry points for NumPy arrays and PyTorch tensors (ctypes;\n"
      "        docs/python.md)";
  for (const std::string &name : targetNames()) {
    std::string known;
    std::unique_ptr<Target> target = createTarget(name, known);
    for (const EmitStage &stage : target->emitStages())
      help +=
          "\n  " + std::string(stage.name) + " (" + name + ") " + stage.help;
  }
  return help;
}

struct Options {
  std::string input;
  std::string target = "cpu";
  std::string arch;
  std::vector<std::string> defines;
  std::vector<std::string> includeDirs;
  std::string output;
  std::string emit;
  unsigned optLevel = 3;
  bool printIRAfterAll = false;
  bool timing = false;
  bool printDebugInfo = false;
  bool debugInfo = false;
  bool preciseMath = false;
  std::string depfile;
  bool bundle = false;
  std::vector<std::string> tuning; // tuning databases
  std::string pythonLibrary;       // -emit=python: the library file to load
  std::string dumpDir;             // --dump-dir: every stage, numbered
  bool report = false;             // --report: decisions, as text on stderr
  std::string reportJson;          // --report-json: the same as JSON
  bool fillHeuristic = true;       // variants for kernels without entries
  bool remarks = false;            // --remarks: slower paths taken
  // Hidden, for tlc tune's candidates: check only this kernel and append
  // the suffix to its name.
  std::string onlyKernel;
  std::string kernelSuffix;
  unsigned maxErrors = 20;
  // Developer options (hidden) for testing GPU stubs with a hand-made
  // device binary: the binary to embed and its shared memory.
  std::string stubBinary;
  std::optional<int64_t> stubSharedBytes;
};

/// The files written so far: kept only when the whole compile succeeds, so
/// a failure leaves no partial output behind (ToolOutputFile removes a file
/// it was not told to keep).
std::vector<std::unique_ptr<llvm::ToolOutputFile>> &pendingOutputs() {
  static std::vector<std::unique_ptr<llvm::ToolOutputFile>> outputs;
  return outputs;
}

void keepOutputs() {
  for (auto &file : pendingOutputs())
    file->keep();
  pendingOutputs().clear();
}

/// Opens `path` ("-" is stdout) and lets `print` write it; reports errors.
bool writeWith(const std::string &path,
               const std::function<void(llvm::raw_ostream &)> &print) {
  std::error_code ec;
  auto file =
      std::make_unique<llvm::ToolOutputFile>(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << "tlc: error: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return false;
  }
  print(file->os());
  // A failed write (a full disk) is reported, not left to LLVM's fatal
  // error when the stream closes.
  file->os().flush();
  if (file->os().has_error()) {
    llvm::errs() << "tlc: error: cannot write '" << path
                 << "': " << file->os().error().message() << "\n";
    file->os().clear_error();
    return false;
  }
  pendingOutputs().push_back(std::move(file));
  return true;
}

bool writeFile(const std::string &path, llvm::StringRef contents) {
  return writeWith(path, [&](llvm::raw_ostream &os) { os << contents; });
}

/// Where results go: `-o DIR/` (or an existing directory) names a folder,
/// otherwise `-o` names the one output file.
struct OutputPaths {
  std::string dir;    // for multi-file results
  std::string file;   // for single-file results ("-" is stdout)
  bool isDir = false; // -o named a directory
};

OutputPaths resolveOutput(const Options &opts) {
  OutputPaths out;
  bool isDir =
      !opts.output.empty() &&
      (opts.output.back() == '/' || llvm::sys::fs::is_directory(opts.output));
  out.isDir = isDir;
  if (isDir)
    out.dir = opts.output;
  else {
    out.dir = ".";
    out.file = opts.output;
  }
  return out;
}

std::string joinPath(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return p.str().str();
}

/// Writes text to `-o FILE`, to DIR/`defaultName` for `-o DIR/`, or to
/// stdout without -o.
bool emitText(const OutputPaths &out, llvm::StringRef defaultName,
              const std::function<void(llvm::raw_ostream &)> &print) {
  std::string path = out.file.empty() ? "-" : out.file;
  if (out.file.empty() && out.isDir) {
    llvm::sys::fs::create_directories(out.dir);
    path = joinPath(out.dir, defaultName);
  }
  return writeWith(path, print);
}

/// The outputs a build system tracks for the depfile: the object (and the
/// bundle with --bundle), or the single file of an -emit form.
std::vector<std::string> depTargets(const Options &opts, const OutputPaths &out,
                                    const std::string &stem,
                                    const Target &target) {
  if (!out.file.empty())
    return {out.file};
  std::vector<std::string> targets = {
      joinPath(out.dir, stem + target.binaryExtension().str())};
  if (opts.bundle) {
    targets.push_back(joinPath(out.dir, stem + ".tlc.h"));
    targets.push_back(
        joinPath(out.dir, stem + ".tlc" + target.stubSourceExtension().str()));
  }
  return targets;
}

/// The bundle of a .tl file: STEM.tlc.h includes the header of every kernel
/// and operation in the file, STEM.tlc.cpp every launch stub (one
/// translation unit; operations after their kernels). Their
/// names depend only on the file name, so a build system can declare them as
/// outputs before it knows the kernel names.
bool writeBundle(const std::string &dir, const std::string &stem,
                 const std::string &input, const Target &target,
                 const std::vector<std::string> &kernels) {
  std::string what = llvm::sys::path::filename(input).str() + " (target " +
                     target.name().str() + ")";
  std::string header =
      "// Generated by tlc: the launch API of every kernel in " + what +
      ". Do not edit.\n#pragma once\n";
  std::string source =
      "// Generated by tlc: the launch stubs of every kernel in " + what +
      ". Do not edit.\n";
  std::string ext = target.stubSourceExtension().str();
  for (const std::string &name : kernels) {
    header += "#include \"" + name + ".h\"\n";
    source += "#include \"" + name + ext + "\"\n";
  }
  return writeFile(joinPath(dir, stem + ".tlc.h"), header) &&
         writeFile(joinPath(dir, stem + ".tlc" + ext), source);
}

/// Make-style dependency file: the targets depend on the .tl file and every
/// file it imports, so editing an import rebuilds exactly its users.
bool writeDepfile(const std::string &path,
                  const std::vector<std::string> &targets,
                  const std::vector<std::string> &inputs) {
  auto escape = [](llvm::StringRef p) {
    std::string s;
    for (char c : p) {
      if (c == ' ' || c == '#')
        s += '\\';
      if (c == '$')
        s += '$';
      s += c;
    }
    return s;
  };
  std::string text;
  for (const std::string &target : targets)
    text += (text.empty() ? "" : " ") + escape(target);
  text += ":";
  for (const std::string &in : inputs)
    text += " \\\n  " + escape(in);
  text += "\n";
  return writeFile(path, text);
}

/// Every entry of the databases at `paths`.
bool loadTuning(const std::vector<std::string> &paths,
                tune::TuningDatabase &all) {
  for (const std::string &path : paths) {
    llvm::Expected<tune::TuningDatabase> db = tune::readTuningDatabase(path);
    if (!db) {
      llvm::errs() << "tlc: error: " << llvm::toString(db.takeError()) << "\n";
      return false;
    }
    for (tune::TuningEntry &entry : db->entries)
      all.entries.push_back(std::move(entry));
  }
  return true;
}

/// Whether `entry`'s "for" values are this compile's: a -D, else the
/// parameter's declared default (a dtype name, an integer or a bool
/// literal). An entry that
/// names a parameter the kernel lacks, or one whose value tlc cannot tell
/// without running the checks, is an error.
llvm::Expected<bool>
entryApplies(const tune::TuningEntry &entry, const KernelDecl &kernel,
             const std::map<std::string, std::string> &defines) {
  for (const auto &[name, value] : entry.when) {
    if (auto d = defines.find(name); d != defines.end()) {
      if (d->second != value)
        return false;
      continue;
    }
    const ParamDecl *param = nullptr;
    for (const ParamDecl &p : kernel.params)
      if (p.name == name)
        param = &p;
    if (!param)
      return llvm::createStringError(entry.origin + ".for: '" + name +
                                     "' is not a parameter of kernel '" +
                                     kernel.name + "'");
    std::string actual;
    if (param->isDType && parseDType(param->defaultDType))
      actual = param->defaultDType;
    else if (!param->isDType && param->defaultValue &&
             param->defaultValue->kind == ExprKind::IntLit)
      actual = std::to_string(
          static_cast<const IntLitExpr &>(*param->defaultValue).value);
    else if (!param->isDType && param->defaultValue &&
             param->defaultValue->kind == ExprKind::BoolLit)
      actual = static_cast<const BoolLitExpr &>(*param->defaultValue).value
                   ? "true"
                   : "false";
    else
      return llvm::createStringError(
          entry.origin + ".for: the value of '" + name + "' in kernel '" +
          kernel.name + "' is not a literal default; give -D " + name + "=...");
    if (actual != value)
      return false;
  }
  return true;
}

/// The tuned kernels of this file for this target and arch: the entries of
/// `all` for its kernels that apply to this compile.
bool selectTuning(const tune::TuningDatabase &all, const Program &program,
                  const Target &target, llvm::StringRef arch,
                  const std::map<std::string, std::string> &defines,
                  std::map<std::string, tune::KernelVariants> &tuned) {
  tune::TuningDatabase applying;
  for (const tune::TuningEntry &entry : all.entries) {
    if (entry.target != target.name() || entry.arch != arch)
      continue;
    const KernelDecl *kernel = nullptr;
    for (const DeclPtr &d : program.modules[0]->decls)
      if (d->kind == DeclKind::Kernel &&
          static_cast<const KernelDecl &>(*d).name == entry.kernel)
        kernel = static_cast<const KernelDecl *>(d.get());
    if (!kernel)
      continue; // another file's kernel
    llvm::Expected<bool> applies = entryApplies(entry, *kernel, defines);
    if (!applies) {
      llvm::errs() << "tlc: error: " << llvm::toString(applies.takeError())
                   << "\n";
      return false;
    }
    if (*applies)
      applying.entries.push_back(entry);
  }
  auto kernels = tune::variantsFor(applying, target.name(), arch);
  if (!kernels) {
    llvm::errs() << "tlc: error: " << llvm::toString(kernels.takeError())
                 << "\n";
    return false;
  }
  tuned = std::move(*kernels);
  return true;
}

/// The kernel name of variant `index` of a tuned kernel.
std::string variantName(llvm::StringRef kernel, size_t index) {
  return kernel.str() + "__v" + std::to_string(index);
}

/// -emit=python: STEM.py with the bindings of every kernel (a tuned one
/// through its dispatching entry) and operation of the file.
int writePythonModule(const OutputPaths &out, const std::string &stem,
                      const Options &opts, const Target &target,
                      const std::vector<KernelSignature> &signatures,
                      const std::set<std::string> &variantNames,
                      const std::map<std::string, tune::KernelVariants> &tuned,
                      const std::vector<OperationSignature> &operations) {
  if (!target.hasPythonBindings()) {
    std::vector<std::string> able;
    for (const std::string &name : targetNames()) {
      std::string known;
      if (createTarget(name, known)->hasPythonBindings())
        able.push_back(name);
    }
    std::string list;
    for (size_t i = 0; i < able.size(); ++i)
      list += (i == 0 ? "" : i + 1 == able.size() ? " or " : ", ") + able[i];
    llvm::errs() << "tlc: error: -emit=python needs -target=" << list
                 << " (the bindings pass host or device pointers)\n";
    return 1;
  }
  std::vector<KernelSignature> dispatchers;
  for (const auto &[kernel, table] : tuned)
    for (const KernelSignature &k : signatures)
      if (k.name == variantName(kernel, 0)) {
        dispatchers.push_back(k);
        dispatchers.back().name = kernel;
      }
  std::vector<const KernelSignature *> entries;
  for (const KernelSignature &k : signatures)
    if (!variantNames.count(k.name))
      entries.push_back(&k);
  for (const KernelSignature &k : dispatchers)
    entries.push_back(&k);
  for (const OperationSignature &op : operations)
    entries.push_back(&op.signature);
  std::string library =
      opts.pythonLibrary.empty() ? "lib" + stem + ".so" : opts.pythonLibrary;
  std::string text =
      emitPythonModule(stem, llvm::sys::path::filename(opts.input),
                       target.name(), library, entries);
  return emitText(out, stem + ".py", [&](llvm::raw_ostream &os) { os << text; })
             ? 0
             : 1;
}

/// Runs the passes after which the tile IR of separate checks can share a
/// module: tile fns inlined and dropped, leaving only kernels.
bool prepareForMerge(mlir::ModuleOp module) {
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::createInlinerPass());
  pm.addPass(mlir::createSymbolDCEPass());
  return mlir::succeeded(pm.run(module));
}

/// "BM=16, BN=256".
std::string paramsText(const tune::KernelVariants::Params &params) {
  std::string text;
  for (const auto &[name, value] : params)
    text += (text.empty() ? "" : ", ") + name + "=" + value;
  return text;
}

/// Checks each variant of the tuned kernels (its parameters on top of the
/// -D values, the kernel renamed NAME__vI) and adds its tile IR to
/// `module`. `usedDefines` gathers the -D names the checks used.
bool addTunedVariants(const std::map<std::string, tune::KernelVariants> &tuned,
                      const Options &opts,
                      const std::map<std::string, std::string> &defines,
                      const std::map<std::string, int64_t> &constants,
                      llvm::SourceMgr &srcMgr, DiagnosticEngine &diags,
                      mlir::MLIRContext &context, mlir::ModuleOp module,
                      std::vector<std::string> &usedDefines) {
  auto fail = [](const std::string &message) {
    llvm::errs() << "tlc: error: " << message << "\n";
    return false;
  };
  for (const auto &[kernel, table] : tuned) {
    for (size_t v = 0; v < table.variants.size(); ++v) {
      const tune::KernelVariants::Params &params = table.variants[v];
      auto bucket = llvm::find_if(
          table.buckets, [&](const auto &b) { return b.variant == v; });
      std::string origin =
          bucket != table.buckets.end() ? bucket->origin : table.origin;
      std::map<std::string, std::string> variantDefines = defines;
      for (const auto &[name, value] : params) {
        auto fixed = defines.find(name);
        if (fixed != defines.end() && fixed->second != value)
          return fail(origin + ": sets " + name + "=" + value +
                      " for kernel '" + kernel + "', but -D " + name + "=" +
                      fixed->second);
        variantDefines[name] = value;
      }
      Program program;
      ProgramLoader loader(diags, srcMgr, opts.includeDirs);
      if (!loader.load(opts.input, program))
        return false;
      Sema sema(diags, variantDefines, constants);
      KernelSelection selection;
      selection.only = {kernel};
      selection.suffix = variantName("", v);
      selection.warnUnusedDefines = false;
      sema.select(selection);
      bool ok = sema.check(program);
      if (sema.kernels().empty())
        return fail("internal error: variant of '" + kernel + "' not checked");
      const KernelInfo &info = sema.kernels().front();
      // What the entries name must be in the kernel.
      for (const auto &[name, value] : params)
        if (!llvm::any_of(info.decl->params,
                          [&, &name = name](const ParamDecl &p) {
                            return p.name == name;
                          }))
          return fail(origin + ": '" + name +
                      "' is not a parameter of kernel '" + kernel + "'");
      for (const auto &bucket : table.buckets)
        for (const auto &[name, size] : bucket.shape)
          if (v == 0 && !llvm::any_of(info.symDims,
                                      [&, &name = name](const SymDimInfo &d) {
                                        return d.name == name;
                                      })) {
            std::string dims;
            for (const SymDimInfo &d : info.symDims)
              dims += (dims.empty() ? "" : ", ") + d.name;
            return fail(bucket.origin + ": '" + name +
                        "' is not a symbolic dimension of kernel '" + kernel +
                        "' (" + (dims.empty() ? "it has none" : dims) + ")");
          }
      if (!ok) {
        llvm::errs() << "tlc: note: in variant " << v << " of kernel '"
                     << kernel << "' (" << paramsText(params) << ") from "
                     << origin << "\n";
        return false;
      }
      for (const std::string &name : sema.usedDefines())
        if (defines.count(name) && !llvm::is_contained(usedDefines, name))
          usedDefines.push_back(name);
      mlir::OwningOpRef<mlir::ModuleOp> variant =
          generateTileIR(context, sema, srcMgr);
      if (mlir::failed(mlir::verify(*variant)) || !prepareForMerge(*variant))
        return fail("internal error: the tile IR of variant " +
                    variantName(kernel, v) + " does not verify");
      mlir::SymbolTable symbols(module);
      for (mlir::Operation &op :
           llvm::make_early_inc_range(variant->getBody()->getOperations())) {
        if (auto name = mlir::SymbolTable::getSymbolName(&op))
          if (symbols.lookup(name))
            return fail("internal error: " + name.str() +
                        " is defined twice after merging the variants");
        op.moveBefore(module.getBody(), module.getBody()->end());
      }
    }
  }
  return true;
}

int compile(const Options &opts) {
  llvm::SourceMgr srcMgr;
  DiagnosticEngine diags(srcMgr);
  diags.setErrorLimit(opts.maxErrors);

  if (opts.bundle && !opts.emit.empty() && opts.emit != "stub") {
    llvm::errs() << "tlc: error: --bundle includes the launch stubs; use it "
                    "without -emit or with -emit=stub\n";
    return 1;
  }

  // Defines: NAME=VALUE.
  std::map<std::string, std::string> defines;
  if (std::optional<std::string> bad = parseDefines(opts.defines, defines)) {
    llvm::errs() << "tlc: error: -D expects NAME=VALUE, got '" << *bad << "'\n";
    return 1;
  }

  std::string known;
  std::unique_ptr<Target> target = createTarget(opts.target, known);
  if (!target) {
    llvm::errs() << "tlc: error: unknown target '" << opts.target
                 << "'; available: " << known << "\n";
    return 1;
  }
  // The emit kind, in the target's spelling or the common one, checked
  // before any work.
  bool gpuTarget = target->stubsEmbedBinary();
  std::string emit = opts.emit;
  std::optional<EmitKind> stageKind;
  std::string stageExtension;
  for (const EmitStage &stage : target->emitStages())
    if (emit == stage.name) {
      stageKind = stage.kind;
      stageExtension = stage.extension;
    }
  static const char *common[] = {"",    "ast", "tile", "llvm",
                                 "asm", "obj", "stub", "python"};
  if (!stageKind && !llvm::is_contained(common, emit) &&
      !(emit == "gpu" && gpuTarget)) {
    // A kind of other targets, or of none.
    std::string owners, gpuTargets,
        allKinds = "ast,tile,llvm,asm,obj,stub,python,gpu";
    for (const std::string &name : targetNames()) {
      std::string known;
      std::unique_ptr<Target> other = createTarget(name, known);
      if (other->stubsEmbedBinary())
        gpuTargets += (gpuTargets.empty() ? "" : " or ") + name;
      for (const EmitStage &stage : other->emitStages()) {
        if (!llvm::is_contained(llvm::split(allKinds, ','), stage.name))
          allKinds += "," + std::string(stage.name);
        if (emit == stage.name)
          owners += (owners.empty() ? "" : " or ") + name;
      }
    }
    if (emit == "gpu")
      owners = gpuTargets;
    if (owners.empty())
      llvm::errs() << "tlc: error: --emit: " << emit << " not in {" << allKinds
                   << "}\n";
    else
      llvm::errs() << "tlc: error: -emit=" << emit
                   << " needs a GPU target (-target=" << owners << ")\n";
    return 1;
  }
  // A target's names for the common kinds.
  if (stageKind == EmitKind::Asm)
    emit = "asm";
  else if (stageKind == EmitKind::Obj)
    emit = "obj";
  else if (stageKind == EmitKind::LLVM)
    emit = "llvm";
  bool stubTesting = !opts.stubBinary.empty() || opts.stubSharedBytes;
  if (stubTesting && !gpuTarget) {
    llvm::errs() << "tlc: error: --stub-binary and --stub-shared-bytes need "
                    "a GPU target\n";
    return 1;
  }
  // What stubs embed when --stub-binary gives the binary; the shared memory
  // of every kernel is then --stub-shared-bytes.
  CompiledModule stubCompiled;
  if (!opts.stubBinary.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(opts.stubBinary);
    if (!buf) {
      llvm::errs() << "tlc: error: cannot open '" << opts.stubBinary
                   << "': " << buf.getError().message() << "\n";
      return 1;
    }
    stubCompiled.bytes = (*buf)->getBuffer().str();
  }
  if (llvm::Error err =
          target->setArch(opts.arch.empty() ? target->defaultArch()
                                            : llvm::StringRef(opts.arch))) {
    llvm::errs() << "tlc: error: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }

  // Kernels with tuning entries for this target get one variant per
  // distinct parameter set; the first check leaves them out.
  std::map<std::string, tune::KernelVariants> tuned;
  tune::TuningDatabase allTuning;
  if (!loadTuning(opts.tuning, allTuning))
    return 1;

  Program program;
  ProgramLoader loader(diags, srcMgr, opts.includeDirs);
  if (!loader.load(opts.input, program))
    return 1;
  if (diags.hasErrors())
    return 1;
  // Only the kernels of this file that the databases tune for this compile.
  if (!selectTuning(allTuning, program, *target,
                    tuningArch(target->defaultArch(), opts.arch), defines,
                    tuned))
    return 1;
  std::map<std::string, int64_t> constants =
      builtinConstants(target->languageConstants());
  Sema sema(diags, defines, constants);
  KernelSelection untuned;
  for (const auto &entry : tuned)
    untuned.skip.insert(entry.first);
  untuned.warnUnusedDefines = tuned.empty();
  if (!opts.onlyKernel.empty())
    untuned.only.insert(opts.onlyKernel);
  untuned.suffix = opts.kernelSuffix;
  sema.select(untuned);
  bool ok = sema.check(program);
  OutputPaths out = resolveOutput(opts);
  std::string stem = llvm::sys::path::stem(opts.input).str();
  if (opts.emit == "ast") {
    if (!ok)
      return 1;
    return emitText(out, stem + ".ast",
                    [&](llvm::raw_ostream &os) {
                      printAST(*program.modules[0], srcMgr, os);
                    })
               ? 0
               : 1;
  }
  if (!ok)
    return 1;
  // --dump-dir: the AST now, the IR after MLIRGen and after each pass that
  // changes it, the LLVM IR and assembly; index.html once tlc is done.
  StageDump dump;
  if (!opts.dumpDir.empty()) {
    if (!dump.open(opts.dumpDir, llvm::sys::path::filename(opts.input).str()))
      return 1;
    std::string ast;
    llvm::raw_string_ostream os(ast);
    printAST(*program.modules[0], srcMgr, os);
    dump.add("ast", ".txt", ast);
  }
  auto writeDumpPage = llvm::scope_exit([&] { dump.writePage(); });
  // --report / --report-json: what the compiler decided, once it is done.
  std::optional<CompileReport> report;
  if (opts.report || !opts.reportJson.empty())
    report.emplace(llvm::sys::path::filename(opts.input).str(),
                   target->name().str(),
                   opts.arch.empty() ? target->defaultArch().str() : opts.arch);
  auto writeReport = llvm::scope_exit([&] {
    if (!report || !report->hasKernels())
      return;
    if (opts.report)
      report->printText(llvm::errs());
    if (!opts.reportJson.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(opts.reportJson, ec);
      if (ec)
        llvm::errs() << "tlc: error: --report-json: cannot write "
                     << opts.reportJson << ": " << ec.message() << "\n";
      else
        os << llvm::formatv("{0:2}", report->toJSON()) << "\n";
    }
  });
  // Kernels with launch-shape parameters and no entries get the fill
  // heuristic's variants; the first check's copy (the defaults) is dropped
  // from the tile IR below, variant 0 replaces it.
  std::vector<std::string> heuristicKernels;
  if (opts.fillHeuristic && opts.onlyKernel.empty() &&
      opts.kernelSuffix.empty())
    for (const KernelInfo &info : sema.kernels())
      if (std::optional<tune::KernelVariants> variants =
              tune::fillVariants(info)) {
        tuned[info.name] = std::move(*variants);
        heuristicKernels.push_back(info.name);
      }

  // Tile IR and the target-neutral passes.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry); // e.g. func's inliner interface
  registry.insert<tile::TileDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors from passes print like the frontend's: file:line:col + caret.
  mlir::SourceMgrDiagnosticHandler mlirDiagnostics(diags.displaySourceMgr(),
                                                   &context);
  context.printOpOnDiagnostic(false); // the source line says where
  // Passes report the slower paths they take as remarks; shown on request,
  // each once (the variants of a kernel often repeat one word for word).
  // (Registered last, so it sees each diagnostic first.)
  std::set<std::string> remarksShown;
  unsigned passErrors = 0; // located errors of the passes: the input's fault
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      ++passErrors;
    if (d.getSeverity() != mlir::DiagnosticSeverity::Remark)
      return mlir::failure();
    if (report)
      report->addRemark(d.getLocation(), d.str());
    std::string key;
    llvm::raw_string_ostream os(key);
    os << d.getLocation() << ": " << d.str();
    return mlir::success(!opts.remarks || !remarksShown.insert(key).second);
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      generateTileIR(context, sema, srcMgr);
  if (mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "tlc: internal error: generated tile IR does not verify\n";
    return 2;
  }
  if (dump.enabled()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    dump.add("mlirgen", ".mlir", text);
  }
  if (!tuned.empty()) {
    std::vector<std::string> used = sema.usedDefines();
    if (!prepareForMerge(*module))
      return 1;
    for (const std::string &name : heuristicKernels)
      if (mlir::Operation *op =
              mlir::SymbolTable::lookupSymbolIn(module->getOperation(), name))
        op->erase();
    if (!addTunedVariants(tuned, opts, defines, constants, srcMgr, diags,
                          context, *module, used))
      return 1;
    for (const auto &[name, value] : defines)
      if (!llvm::is_contained(used, name))
        diags.warning(llvm::SMLoc(), "-D " + name +
                                         " names no parameter or dimension "
                                         "of any kernel");
  }
  // The stubs are built from the kernel signatures in the IR.
  std::optional<std::vector<KernelSignature>> collected =
      collectSignatures(*module);
  if (!collected) {
    llvm::errs() << "tlc: internal error: malformed kernel signature\n";
    return 2;
  }
  std::vector<KernelSignature> signatures = std::move(*collected);
  std::optional<std::vector<OperationSignature>> operations =
      collectOperations(*module);
  if (!operations) {
    llvm::errs() << "tlc: internal error: malformed operation signature\n";
    return 2;
  }
  // Tuned kernels are compiled as variants NAME__vI behind one entry NAME.
  std::set<std::string> variantNames;
  for (const auto &[name, table] : tuned)
    for (size_t v = 0; v < table.variants.size(); ++v)
      variantNames.insert(variantName(name, v));
  if (opts.stubSharedBytes)
    for (const KernelSignature &k : signatures)
      stubCompiled.sharedBytes[tile::kernelEntryName(k.name)] =
          *opts.stubSharedBytes;
  // What the target offers, for every pass that follows.
  if (mlir::Attribute description = target->describe(context))
    (*module)->setAttr(tile::attr::kTarget, description);

  auto configure = [&](mlir::PassManager &pm) {
    if (opts.printIRAfterAll) {
      context.disableMultithreading();
      pm.enableIRPrinting([](mlir::Pass *, mlir::Operation *) { return false; },
                          [](mlir::Pass *, mlir::Operation *) { return true; },
                          /*printModuleScope=*/true,
                          /*printAfterOnlyOnChange=*/false);
    }
    if (opts.timing)
      pm.enableTiming();
    dump.instrument(pm);
    if (report)
      report->instrument(pm);
  };
  mlir::PassManager tilePM(&context);
  configure(tilePM);
  tilePM.addPass(mlir::createInlinerPass());
  tilePM.addPass(mlir::createSymbolDCEPass());
  // Dimensions fixed with -D (recorded on the kernels by MLIRGen).
  tilePM.addPass(tile::createTileSpecializeDims());
  // u4/i4 as bytes (two elements each) before anything addresses them.
  tilePM.addPass(tile::createTilePackSubByte());
  // Tensor elements are bounds-checked the same way on every target.
  tilePM.addPass(tile::createTileExpandElementAccess());
  // Loop-invariant reads of vars leave their loops (pipelining needs it).
  tilePM.addPass(tile::createTileHoistVarLoads());
  tilePM.addPass(mlir::createCanonicalizerPass());
  tilePM.addPass(mlir::createCSEPass());
  if (mlir::failed(tilePM.run(*module)))
    return passErrors ? 1 : 2;
  // The bindings once the target-neutral passes accept the program (a
  // u4 copy they reject would fail the library's build anyway).
  if (emit == "python")
    return writePythonModule(out, stem, opts, *target, signatures, variantNames,
                             tuned, *operations);
  if (report) {
    report->noteParams(*module);
    report->noteOperations(*module);
  }
  if (opts.emit == "tile") {
    // With the target's tile-level passes (layouts on GPUs) as well.
    mlir::PassManager targetTilePM(&context);
    configure(targetTilePM);
    target->buildTilePipeline(targetTilePM);
    if (mlir::failed(targetTilePM.run(*module)))
      return 1;
    return emitText(out, stem + ".mlir",
                    [&](llvm::raw_ostream &os) {
                      mlir::OpPrintingFlags flags;
                      if (opts.printDebugInfo)
                        flags.enableDebugInfo(/*enable=*/true,
                                              /*prettyForm=*/true);
                      module->print(os, flags);
                    })
               ? 0
               : 1;
  }

  CompileOptions compileOptions;
  compileOptions.optLevel = opts.optLevel;
  compileOptions.debugInfo = opts.debugInfo;
  compileOptions.preciseMath = opts.preciseMath;
  compileOptions.configurePasses = configure;
  if (dump.enabled() || report)
    compileOptions.dumpStage = [&](llvm::StringRef name, llvm::StringRef ext,
                                   llvm::StringRef text) {
      dump.add(name, ext, text);
      if (report && name == "asm")
        report->addAssembly(text, *target);
      if (report && !target->resourceStage().empty() &&
          name == target->resourceStage())
        report->addResourceLog(text, *target);
    };
  // Compiles the module to `kind`; 0 on success, else the exit status.
  auto compileTo = [&](EmitKind kind, CompiledModule &compiled) -> int {
    CompileError error;
    std::optional<CompiledModule> result =
        target->compile(*module, kind, compileOptions, error);
    if (result) {
      compiled = std::move(*result);
      return 0;
    }
    if (error.diagnosed)
      return 1;
    llvm::errs() << "tlc: error: " << error.message << "\n";
    return error.status;
  };

  if (emit == "gpu" || emit == "llvm") {
    CompiledModule compiled;
    if (int rc =
            compileTo(emit == "gpu" ? EmitKind::GPU : EmitKind::LLVM, compiled))
      return rc;
    return emitText(out, stem + (emit == "gpu" ? ".gpu.mlir" : ".ll"),
                    [&](llvm::raw_ostream &os) { os << compiled.bytes; })
               ? 0
               : 1;
  }

  bool wantStub = emit.empty() || emit == "stub";
  bool wantObj = emit.empty() || emit == "obj";
  if (wantStub) {
    if (!out.file.empty() && emit == "stub") {
      llvm::errs() << "tlc: error: -emit=stub writes one header and source per "
                      "kernel; give -o a directory (ending in '/')\n";
      return 1;
    }
    if (!out.file.empty() && opts.bundle) {
      llvm::errs() << "tlc: error: --bundle writes several files; give -o a "
                      "directory (ending in '/')\n";
      return 1;
    }
  }
  if (emit.empty() && !out.file.empty()) {
    llvm::errs() << "tlc: error: -o " << out.file
                 << " names one file, but the default output is several (the "
                    "compiled kernels and a stub per kernel); give -o a "
                    "directory (ending in '/') or pick one form with -emit=\n";
    return 1;
  }
  auto signatureOf = [&](llvm::StringRef name) -> const KernelSignature * {
    for (const KernelSignature &k : signatures)
      if (k.name == name)
        return &k;
    return nullptr;
  };
  std::string stubExt = target->stubSourceExtension().str();
  auto writeStubs = [&](const CompiledModule &compiled) -> bool {
    llvm::sys::fs::create_directories(out.dir);
    std::vector<std::string> stubNames;
    for (const KernelSignature &k : signatures) {
      if (variantNames.count(k.name))
        continue;
      std::string header, source;
      target->emitStub(k, compiled, StubPlacement(k.name + ".h"), header,
                       source);
      if (!writeFile(joinPath(out.dir, k.name + ".h"), header) ||
          !writeFile(joinPath(out.dir, k.name + stubExt), source))
        return false;
      stubNames.push_back(k.name);
    }
    // A tuned kernel: every variant's stub in NAME.cpp (one binary), then
    // NAME, which picks one per call.
    for (const auto &[name, table] : tuned) {
      DispatchTable dispatch;
      dispatch.origin = table.origin;
      dispatch.fillHeuristic = table.fillHeuristic;
      for (const auto &bucket : table.buckets)
        dispatch.buckets.push_back({bucket.shape, bucket.variant});
      StubPlacement part;
      part.variant = true;
      part.binaryName = "tlc_binary_" + name;
      std::string variantSources;
      for (size_t v = 0; v < table.variants.size(); ++v) {
        const KernelSignature *k = signatureOf(variantName(name, v));
        if (!k) {
          llvm::errs() << "tlc: internal error: no signature for variant "
                       << variantName(name, v) << "\n";
          return false;
        }
        dispatch.variants.push_back(k);
        dispatch.labels.push_back(paramsText(table.variants[v]));
        part.binaryEmbedded = v > 0;
        std::string header, source;
        target->emitStub(*k, compiled, part, header, source);
        variantSources += header + "\n" + source + "\n";
      }
      KernelSignature dispatcher = *dispatch.variants.front();
      dispatcher.name = name;
      StubPlacement top(name + ".h");
      top.dispatch = &dispatch;
      top.variantSources = std::move(variantSources);
      std::string header, source;
      target->emitStub(dispatcher, compiled, top, header, source);
      if (!writeFile(joinPath(out.dir, name + ".h"), header) ||
          !writeFile(joinPath(out.dir, name + stubExt), source))
        return false;
      stubNames.push_back(name);
    }
    // Operations launch the kernels above through their stubs.
    for (const OperationSignature &op : *operations) {
      const std::string &name = op.signature.name;
      StubFiles files =
          emitOperationStub(op, target->name(), target->scratchRuntime());
      if (!writeFile(joinPath(out.dir, name + ".h"), files.header) ||
          !writeFile(joinPath(out.dir, name + stubExt), files.source))
        return false;
      stubNames.push_back(name);
    }
    return !opts.bundle ||
           writeBundle(out.dir, stem, opts.input, *target, stubNames);
  };
  // GPU stubs embed the binary (or, for testing, the file of
  // --stub-binary); CPU stubs call the entries the object has; others need
  // only the signatures.
  bool stubsFirst = !target->stubsNeedCompile() || stubTesting;
  if (wantStub && stubsFirst) {
    if (!writeStubs(stubCompiled))
      return 1;
    if (emit == "stub")
      return 0;
  }

  bool embed = wantStub && !stubsFirst;
  bool image = stageKind == EmitKind::DeviceImage;
  if (emit == "asm" || image || wantObj || embed) {
    EmitKind kind = emit == "asm" ? EmitKind::Asm
                    : image       ? EmitKind::DeviceImage
                                  : EmitKind::Obj;
    CompiledModule compiled;
    if (int rc = compileTo(kind, compiled))
      return rc;
    if (emit != "stub") {
      std::string ext = image ? stageExtension
                        : kind == EmitKind::Asm
                            ? target->asmExtension().str()
                            : target->binaryExtension().str();
      std::string path;
      if (kind != EmitKind::Obj)
        path = !out.file.empty() ? out.file
               : out.isDir       ? joinPath(out.dir, stem + ext)
                                 : (kind == EmitKind::Asm ? "-" : stem + ext);
      else
        path = !out.file.empty() && emit == "obj"
                   ? out.file
                   : joinPath(out.dir, stem + ext);
      if (path != "-")
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
      if (!writeFile(path, compiled.bytes))
        return 1;
    }
    if (embed && !writeStubs(compiled))
      return 1;
  }
  if (!opts.depfile.empty()) {
    // A changed tuning database changes the variants.
    std::vector<std::string> inputs = loader.files();
    inputs.insert(inputs.end(), opts.tuning.begin(), opts.tuning.end());
    return writeDepfile(opts.depfile, depTargets(opts, out, stem, *target),
                        inputs)
               ? 0
               : 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // `tlc tune ...` is its own command.
  if (argc > 1 && llvm::StringRef(argv[1]) == "tune") {
    registerGPUTargets();
    std::string self = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&main));
    return driver::tuneMain(argc - 1, argv + 1, self.c_str());
  }
  Options opts;
  CLI::App app{"tlc: ahead-of-time compiler for the tile language.\n"
               "Compiles FILE.tl to device code plus C++ launch stubs.",
               "tlc"};
  app.add_option("input", opts.input, "The .tl source file")->required();
  std::string targetList;
  for (const std::string &name : targetNames())
    targetList += (targetList.empty() ? "" : ", ") + name;
  app.add_option("--target", opts.target,
                 "Code generation target: " + targetList)
      ->capture_default_str();
  std::string archHelp = "Target architecture.";
  for (const std::string &name : targetNames()) {
    std::string known;
    archHelp += " " + name + ": " + createTarget(name, known)->archHelp() + ".";
  }
  app.add_option("--arch", opts.arch, archHelp);
  app.add_option("-D", opts.defines,
                 "Set a kernel parameter or symbolic dimension: -D NAME=VALUE");
  app.add_option("-I", opts.includeDirs, "Add a directory to the import path");
  app.add_option("-o", opts.output,
                 "Output file, or a directory (ending in '/') for the object "
                 "and stubs; default: the current directory");
  app.add_option("--emit", opts.emit, emitHelp());
  app.add_option("-O", opts.optLevel, "LLVM optimization level (0-3)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  app.add_option("--max-errors", opts.maxErrors,
                 "Stop after this many errors (0: no limit)")
      ->capture_default_str();
  app.add_flag("--mlir-print-ir-after-all", opts.printIRAfterAll,
               "Print the IR after every MLIR pass (to stderr)");
  app.add_option("--depfile", opts.depfile,
                 "Write a Makefile-style dependency file (the .tl file and "
                 "every file it imports) to this path");
  app.add_flag("-g", opts.debugInfo,
               "Line tables mapping the generated code (GPU assembly line "
               "directives, object DWARF lines) back to .tl lines");
  app.add_flag("--precise-math", opts.preciseMath,
               "GPU targets: no FMA contraction of a multiply and an add, and "
               "CUDA's f32 exp2 keeps subnormal results instead of flushing "
               "them to zero");
  app.add_option("--tuning", opts.tuning,
                 "A tuning database (tlc tune writes them; repeatable): "
                 "kernels it tunes for this target and arch get one variant "
                 "per distinct parameter set, and their stub picks one per "
                 "call by shape (docs/tuning.md)");
  app.add_flag("--bundle", opts.bundle,
               "Also write STEM.tlc.h and STEM.tlc.cpp, which include the "
               "header and the stub of every kernel in the file (fixed names "
               "for build systems; needs the stubs: no -emit or -emit=stub)");
  app.add_option("--python-library", opts.pythonLibrary,
                 "With -emit=python: the file name of the shared library the "
                 "module loads from its own directory (default: libSTEM.so)");
  app.add_option("--dump-dir", opts.dumpDir,
                 "Write every stage to DIR as numbered files (the AST, the IR "
                 "after MLIRGen and after each pass that changes it, LLVM IR, "
                 "assembly) and DIR/index.html, a page showing them with the "
                 "diff of each against the one before");
  app.add_flag("--report", opts.report,
               "Print, per kernel, what the compiler decided: threads, shared "
               "memory, tiles (bytes, buffers, swizzle, fragment layouts), "
               "pipelined loops (stages kept, asynchronous copies), gemms, "
               "the generated instruction mix, and every performance remark "
               "(text, on stderr; docs/report.md)");
  app.add_option("--report-json", opts.reportJson,
                 "Write the --report facts as JSON to this file ('-': "
                 "standard output)");
  app.add_flag("--mlir-print-debuginfo", opts.printDebugInfo,
               "With -emit=tile, print the .tl source location of every op");
  app.add_flag("--mlir-timing", opts.timing,
               "Report the time spent in each MLIR pass (to stderr)");
  // Hidden developer options: test GPU stubs with a hand-made binary.
  app.add_option("--stub-binary", opts.stubBinary,
                 "With a GPU target and -emit=stub: embed this file (a "
                 "device binary with entries tlc_NAME) in every stub")
      ->group("");
  app.add_option("--stub-shared-bytes", opts.stubSharedBytes,
                 "With a GPU target and -emit=stub: dynamic shared memory "
                 "bytes of every kernel")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 30))
      ->group("");
  app.add_flag("--remarks", opts.remarks,
               "Report, with source locations, where the compiler took a "
               "slower path than the source asks for: a fragment moved to "
               "shared memory, pipeline stages dropped, a gemm without "
               "tensor cores (remarks on stderr; the compile still "
               "succeeds)");
  app.add_flag("!--no-fill-heuristic", opts.fillHeuristic,
               "Compile a kernel whose tune space has launch-shape "
               "parameters and no tuning entry as its defaults only, without "
               "the smaller-tile variants its stub picks from by grid size "
               "(docs/tuning.md)");
  app.add_option("--only-kernel", opts.onlyKernel,
                 "Compile only this kernel of the file (no fill heuristic)")
      ->group("");
  app.add_option("--kernel-suffix", opts.kernelSuffix,
                 "Append this to the kernel names (entries, stubs; no fill "
                 "heuristic)")
      ->group("");
  app.set_version_flag("--version", "tlc 0.1.0 (LLVM/MLIR 22)");
  app.footer("Single-dash spellings work too: -target=cpu -emit=tile ...\n"
             "Example: tlc examples/gemm.tl -target=cpu -o out/");
  std::vector<std::string> args = normalizeArgs(argc, argv);
  std::reverse(args.begin(), args.end()); // CLI11 consumes from the back
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    // Command-line errors look and exit like the driver's own (status 1).
    llvm::errs() << "tlc: error: " << e.what()
                 << "\nRun 'tlc --help' for the options.\n";
    return 1;
  }
  mlir::registerAllPasses();
  tile::registerTilePasses();
  registerConversionPasses();
  registerGPUTargets();
  int status = compile(opts);
  if (status == 0)
    keepOutputs();
  pendingOutputs().clear(); // removes what a failed compile wrote
  return status;
}
