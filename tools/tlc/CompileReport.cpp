//===- CompileReport.cpp - --report: what the compiler decided ------------===//
#include "CompileReport.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Stub/KernelSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tlc;
using namespace mlir;

namespace {

/// Calls CompileReport::collect right before the tile ops are lowered.
class CollectBeforeLowering : public PassInstrumentation {
public:
  explicit CollectBeforeLowering(CompileReport &report) : report(report) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    llvm::StringRef arg = pass->getArgument();
    if (arg == "convert-tile-to-gpu" || arg == "convert-tile-to-cpu")
      if (auto module = llvm::dyn_cast<ModuleOp>(op))
        report.collect(module);
  }

private:
  CompileReport &report;
};

std::string locationText(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            llvm::Twine(file.getLine()) + ":" + llvm::Twine(file.getColumn()))
        .str();
  return "";
}

/// (line, column) of a "file:line:col" location text, for ordering.
std::pair<unsigned, unsigned> lineColumn(llvm::StringRef location) {
  auto [rest, column] = location.rsplit(':');
  auto [file, line] = rest.rsplit(':');
  (void)file;
  unsigned l = 0, c = 0;
  line.getAsInteger(10, l);
  column.getAsInteger(10, c);
  return {l, c};
}

/// The name a tile was declared with: the identifier after its scope
/// keyword at the declaration's location (`shared As: f16[...]`).
std::string tileName(Location loc) {
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> files;
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (!fileLoc)
    return "?";
  std::string path = fileLoc.getFilename().str();
  auto &buffer = files[path];
  if (!buffer) {
    auto read = llvm::MemoryBuffer::getFile(path);
    if (!read)
      return "?";
    buffer = std::move(*read);
  }
  llvm::SmallVector<llvm::StringRef> lines;
  buffer->getBuffer().split(lines, '\n');
  if (fileLoc.getLine() == 0 || fileLoc.getLine() > lines.size())
    return "?";
  llvm::StringRef text = lines[fileLoc.getLine() - 1];
  text =
      text.drop_front(std::min<size_t>(fileLoc.getColumn() - 1, text.size()));
  for (llvm::StringRef scope : {"shared", "fragment", "local"})
    if (text.consume_front(scope))
      break;
  text = text.ltrim();
  size_t n = 0;
  while (n < text.size() && (llvm::isAlnum(text[n]) || text[n] == '_'))
    ++n;
  return n ? text.take_front(n).str() : "?";
}

std::string elementName(mlir::Type t) {
  if (t.isF64())
    return "f64";
  if (t.isF32())
    return "f32";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (llvm::isa<Float8E4M3FNType>(t))
    return "f8e4m3";
  if (llvm::isa<Float8E5M2Type>(t))
    return "f8e5m2";
  if (t.isInteger(1))
    return "bool";
  if (auto i = llvm::dyn_cast<IntegerType>(t))
    return "i" + std::to_string(i.getWidth());
  return "?";
}

std::string typeText(MemRefType t) {
  std::string s = elementName(t.getElementType()) + "[";
  for (size_t d = 0; d < t.getShape().size(); ++d)
    s += (d ? ", " : "") + std::to_string(t.getShape()[d]);
  return s + "]";
}

int64_t intAttr(Operation *op, llvm::StringRef name, int64_t otherwise = 0) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return otherwise;
}

} // namespace

void CompileReport::instrument(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<CollectBeforeLowering>(*this));
}

void CompileReport::noteParams(ModuleOp module) {
  module.walk([&](func::FuncOp fn) {
    auto sig = fn->getAttrOfType<DictionaryAttr>(tile::attr::kSignature);
    auto params = sig ? sig.getAs<ArrayAttr>("params") : ArrayAttr();
    if (!params)
      return;
    auto &list = paramsByKernel[fn.getName().str()];
    for (Attribute p : params)
      if (auto pair = llvm::dyn_cast<ArrayAttr>(p); pair && pair.size() == 2)
        if (auto n = llvm::dyn_cast<StringAttr>(pair[0]))
          if (auto v = llvm::dyn_cast<StringAttr>(pair[1]))
            list.push_back({n.str(), v.str()});
  });
}

/// "  [A=1, B=2]" (nothing when there are no parameters).
static void
printParams(llvm::raw_ostream &os,
            const std::vector<std::pair<std::string, std::string>> &params) {
  if (params.empty())
    return;
  os << "  [";
  for (size_t i = 0; i < params.size(); ++i)
    os << (i ? ", " : "") << params[i].first << "=" << params[i].second;
  os << "]";
}

static llvm::json::Object
paramsJSON(const std::vector<std::pair<std::string, std::string>> &params) {
  llvm::json::Object object;
  for (const auto &[name, value] : params)
    object[name] = value;
  return object;
}

/// A host expression of an operation as the reader wrote it (roughly):
/// names of dimensions and scalar arguments, operators, calls.
static std::string hostText(const GridExpr &e, const OperationSignature &op) {
  auto operand = [&](size_t i) {
    return i < e.operands.size() ? hostText(e.operands[i], op)
                                 : std::string("?");
  };
  switch (e.kind) {
  case GridExpr::Const:
    return e.value.str();
  case GridExpr::SymDim:
    return e.name;
  case GridExpr::ScalarArg:
    return e.arg < op.signature.args.size() ? op.signature.args[e.arg].name
                                            : "?";
  case GridExpr::Unary:
    return e.op + "(" + operand(0) + ")";
  case GridExpr::Binary:
    return "(" + operand(0) + " " + e.op + " " + operand(1) + ")";
  case GridExpr::Select:
    return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
  case GridExpr::Call: {
    std::string text = e.name + "(";
    for (size_t i = 0; i < e.operands.size(); ++i)
      text += (i ? ", " : "") + operand(i);
    return text + ")";
  }
  case GridExpr::Cast:
    return dtypeName(e.castTo).str() + "(" + operand(0) + ")";
  case GridExpr::Unsupported:
    return "?";
  }
  return "?";
}

void CompileReport::noteOperations(ModuleOp module) {
  std::optional<std::vector<OperationSignature>> ops =
      collectOperations(module);
  if (!ops)
    return;
  for (const OperationSignature &op : *ops) {
    OperationSummary o;
    o.name = op.signature.name;
    o.params = op.signature.params;
    for (const ScratchTensor &t : op.scratch) {
      std::string text = t.name + ": " + dtypeName(t.dtype).str() + "[";
      for (size_t d = 0; d < t.shape.size(); ++d)
        text += (d ? ", " : "") + hostText(t.shape[d], op);
      o.scratch.push_back(text + "]");
    }
    for (const KernelLaunch &l : op.launches)
      o.launches.push_back(
          {l.kernel, l.when ? hostText(*l.when, op) : std::string()});
    operations.push_back(std::move(o));
  }
}

void CompileReport::collect(ModuleOp module) {
  if (collected)
    return;
  collected = true;
  // Kernels: func.func on the CPU, gpu.func (tlc_NAME) once the GPU
  // kernel ABI has outlined them.
  module.walk([&](FunctionOpInterface fn) {
    if (!fn->hasAttr(tile::attr::kThreads))
      return;
    Kernel k;
    k.name = tile::kernelSourceName(fn.getName()).str();
    k.location = locationText(fn.getLoc());
    k.threads = intAttr(fn, tile::attr::kThreads);
    k.clusterBlocks = intAttr(fn, tile::attr::kClusterBlocks, 1);
    k.blockThreads = intAttr(fn, tile::attr::kBlockThreads);
    k.sharedBytes = intAttr(fn, tile::attr::kSharedBytes, -1);
    llvm::StringRef base = llvm::StringRef(k.name).split('$').first;
    if (auto it = paramsByKernel.find(base.str()); it != paramsByKernel.end())
      k.params = it->second;
    fn.walk([&](Operation *op) {
      if (auto alloc = llvm::dyn_cast<tile::AllocOp>(op)) {
        auto type = llvm::cast<MemRefType>(alloc.getType());
        Tile t;
        t.name = tileName(alloc.getLoc());
        t.location = locationText(alloc.getLoc());
        std::optional<tile::MemScope> scope = tile::getScope(type);
        t.scope = scope ? tile::stringifyMemScope(*scope).str() : "?";
        t.type = typeText(type);
        // u4/i4 tiles are bytes by now: their declared shape, packed.
        if (auto packed = alloc->getAttrOfType<TypeAttr>(tile::attr::kPacked))
          t.type =
              typeText(llvm::cast<MemRefType>(packed.getValue())) + " (packed)";
        int64_t bits = type.getElementType().getIntOrFloatBitWidth();
        t.bytes = type.getNumElements() * std::max<int64_t>(bits / 8, 1);
        t.buffers = intAttr(alloc, tile::attr::kBuffers, 1);
        t.swizzle = intAttr(alloc, tile::attr::kSwizzle);
        if (auto staging = alloc->getAttrOfType<DenseI64ArrayAttr>(
                tile::attr::kStoreStaging);
            staging && staging.size() == 2) {
          t.stagingColumns = staging[0];
          t.stagingBuffers = staging[1];
        }
        if (auto layout = alloc->getAttr(tile::attr::kLayout)) {
          llvm::raw_string_ostream os(t.layout);
          layout.print(os);
        }
        if (auto why = alloc->getAttrOfType<StringAttr>(tile::attr::kDemoted))
          t.demoted = why.str();
        k.tiles.push_back(std::move(t));
      } else if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
        if (!loop->hasAttr(tile::attr::kStages))
          return;
        Loop l;
        l.location = locationText(loop.getLoc());
        l.stagesAsked = intAttr(loop, tile::attr::kStages);
        l.stagesKept = intAttr(loop, tile::attr::kPipelineStages);
        l.producerThreads = intAttr(loop, tile::attr::kProducerThreads);
        loop.getBody()->walk([&](tile::CopyOp copy) {
          ++l.copies;
          l.asyncCopies += copy->hasAttr(tile::attr::kAsync);
          l.tensorCopies += copy->hasAttr(tile::attr::kTensorCopy);
        });
        k.loops.push_back(l);
      } else if (auto copy = llvm::dyn_cast<tile::CopyOp>(op)) {
        if (copy->hasAttr(tile::attr::kAsyncOnce))
          k.asyncOnceCopies.push_back(locationText(copy.getLoc()));
      } else if (auto gemm = llvm::dyn_cast<tile::GemmOp>(op)) {
        auto text = [](Value v) {
          return typeText(llvm::cast<MemRefType>(v.getType()));
        };
        k.gemms.push_back({locationText(gemm.getLoc()),
                           text(gemm.getA()) + " x " + text(gemm.getB()) +
                               " -> " + text(gemm.getC())});
      }
    });
    for (const Loop &l : k.loops)
      k.blockThreads = std::max(k.blockThreads, k.threads + l.producerThreads);
    // Declaration order (the IR keeps allocations in another).
    llvm::stable_sort(k.tiles, [](const Tile &a, const Tile &b) {
      return lineColumn(a.location) < lineColumn(b.location);
    });
    kernels.push_back(std::move(k));
  });
}

void CompileReport::addRemark(Location loc, std::string message) {
  std::string location = locationText(loc);
  for (const Remark &r : remarks)
    if (r.location == location && r.message == message)
      return;
  remarks.push_back({std::move(location), std::move(message)});
}

void CompileReport::addAssembly(llvm::StringRef assembly,
                                const Target &target) {
  std::vector<std::string> families = target.reportedInstructions();
  Kernel *current = nullptr;
  auto kernelNamed = [&](llvm::StringRef entry) -> Kernel * {
    entry.consume_front("tlc_block_") || entry.consume_front("tlc_");
    for (Kernel &k : kernels)
      if (k.name == entry)
        return &k;
    return nullptr;
  };
  llvm::SmallVector<llvm::StringRef> lines;
  assembly.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    // A function starts: an entry directive `.entry NAME(`, else a label
    // `NAME:`.
    llvm::StringRef trimmed = line.trim();
    if (size_t at = trimmed.find(".entry "); at != llvm::StringRef::npos) {
      llvm::StringRef name = trimmed.drop_front(at + 7).trim();
      current = kernelNamed(name.take_until([](char c) { return c == '('; }));
      continue;
    }
    if (!line.empty() && !llvm::isSpace(line[0]) && line.ends_with(":") &&
        line.starts_with("tlc_")) {
      current = kernelNamed(line.drop_back());
      continue;
    }
    if (!current)
      continue;
    if (trimmed.starts_with("@")) // a predicated instruction
      trimmed = trimmed.drop_until([](char c) { return c == ' '; }).trim();
    for (const std::string &family : families)
      if (trimmed.starts_with(family)) {
        ++current->instructions[family];
        break;
      }
  }
}

void CompileReport::addResourceLog(llvm::StringRef log, const Target &target) {
  resourceSource = target.resourceStage().str();
  std::map<std::string, KernelResources> usage = target.parseResourceLog(log);
  for (Kernel &k : kernels) {
    auto it = usage.find(tile::kernelEntryName(k.name));
    if (it == usage.end())
      continue;
    k.registers = it->second.registers;
    k.spillStores = it->second.spillStores;
    k.spillLoads = it->second.spillLoads;
    std::tie(k.blocksPerSM, k.occupancyLimit) = target.estimateOccupancy(
        std::max(k.blockThreads, k.threads), k.registers, k.sharedBytes);
  }
}

void CompileReport::printText(llvm::raw_ostream &os) const {
  os << "tlc report: " << file << " (target " << target;
  if (!arch.empty())
    os << ", arch " << arch;
  os << ")\n";
  for (const Kernel &k : kernels) {
    os << "\nkernel " << k.name << "  " << k.location;
    printParams(os, k.params);
    os << "\n  threads " << k.threads;
    if (k.blockThreads > k.threads)
      os << " (" << k.blockThreads << " per block with producer warps)";
    if (k.clusterBlocks > 1)
      os << ", clusters of " << k.clusterBlocks << " blocks";
    if (k.sharedBytes >= 0)
      os << ", shared memory " << k.sharedBytes << " bytes";
    os << "\n";
    if (!k.tiles.empty())
      os << "  tiles:\n";
    for (const Tile &t : k.tiles) {
      os << "    " << llvm::left_justify(t.name, 8) << " "
         << llvm::left_justify(t.scope, 8) << " "
         << llvm::left_justify(t.type, 16) << " " << t.bytes << " bytes";
      if (t.buffers > 1)
        os << " x " << t.buffers << " buffers";
      if (t.swizzle)
        os << ", swizzle " << t.swizzle;
      if (t.stagingColumns)
        os << ", TMA-store staging: " << t.stagingColumns
           << "-column chunks in " << t.stagingBuffers << " buffer"
           << (t.stagingBuffers > 1 ? "s" : "");
      if (!t.demoted.empty())
        os << ", moved to shared memory: " << t.demoted;
      os << "  (" << t.location << ")\n";
      if (!t.layout.empty())
        os << "             " << t.layout << "\n";
    }
    if (!k.loops.empty())
      os << "  pipelined loops:\n";
    for (const Loop &l : k.loops) {
      os << "    " << l.location << ": stages " << l.stagesAsked << " asked, "
         << l.stagesKept << " kept; " << l.copies << " copies ("
         << l.asyncCopies << " asynchronous, " << l.tensorCopies
         << " by the tensor-copy unit)";
      if (l.producerThreads)
        os << "; " << l.producerThreads << " producer threads";
      os << "\n";
    }
    if (!k.asyncOnceCopies.empty()) {
      os << "  copies into shared memory, asynchronous and waited for at "
            "once:";
      for (const std::string &where : k.asyncOnceCopies)
        os << " " << where;
      os << "\n";
    }
    if (!k.gemms.empty())
      os << "  gemms:\n";
    for (const Gemm &g : k.gemms)
      os << "    " << g.location << ": " << g.shape << "\n";
    if (k.registers >= 0) {
      int64_t threads = std::max(k.blockThreads, k.threads);
      os << "  registers " << k.registers << " per thread, spills "
         << k.spillStores << " bytes stored / " << k.spillLoads << " loaded ("
         << resourceSource
         << "); estimated blocks per multiprocessor: " << k.blocksPerSM << " ("
         << k.blocksPerSM * threads << " threads), limited by "
         << k.occupancyLimit << "\n";
    }
    if (!k.instructions.empty()) {
      os << "  instructions (static counts in the assembly):";
      bool first = true;
      for (const auto &[family, count] : k.instructions) {
        os << (first ? " " : ", ") << family << " " << count;
        first = false;
      }
      os << "\n";
    }
  }
  for (const OperationSummary &o : operations) {
    os << "\noperation " << o.name;
    printParams(os, o.params);
    os << "\n";
    for (const std::string &t : o.scratch)
      os << "  scratch " << t << "\n";
    for (const auto &[kernel, when] : o.launches)
      os << "  launch " << kernel << (when.empty() ? "" : " if " + when)
         << "\n";
  }
  os << (remarks.empty() ? "\nremarks: none\n" : "\nremarks:\n");
  for (const Remark &r : remarks)
    os << "  " << r.location << ": " << r.message << "\n";
}

llvm::json::Value CompileReport::toJSON() const {
  llvm::json::Array list;
  for (const Kernel &k : kernels) {
    llvm::json::Array tiles, loops, gemms;
    for (const Tile &t : k.tiles)
      tiles.push_back(llvm::json::Object{{"name", t.name},
                                         {"scope", t.scope},
                                         {"type", t.type},
                                         {"bytes", t.bytes},
                                         {"buffers", t.buffers},
                                         {"swizzle", t.swizzle},
                                         {"staging_columns", t.stagingColumns},
                                         {"staging_buffers", t.stagingBuffers},
                                         {"layout", t.layout},
                                         {"demoted", t.demoted},
                                         {"location", t.location}});
    for (const Loop &l : k.loops)
      loops.push_back(
          llvm::json::Object{{"location", l.location},
                             {"stages_asked", l.stagesAsked},
                             {"stages_kept", l.stagesKept},
                             {"copies", l.copies},
                             {"async_copies", l.asyncCopies},
                             {"tensor_copies", l.tensorCopies},
                             {"producer_threads", l.producerThreads}});
    for (const Gemm &g : k.gemms)
      gemms.push_back(
          llvm::json::Object{{"location", g.location}, {"shape", g.shape}});
    llvm::json::Object instructions;
    for (const auto &[family, count] : k.instructions)
      instructions[family] = count;
    list.push_back(llvm::json::Object{
        {"name", k.name},
        {"location", k.location},
        {"params", paramsJSON(k.params)},
        {"threads", k.threads},
        {"block_threads", std::max(k.blockThreads, k.threads)},
        {"cluster_blocks", k.clusterBlocks},
        {"shared_bytes", k.sharedBytes},
        {"tiles", std::move(tiles)},
        {"pipelined_loops", std::move(loops)},
        {"async_once_copies", llvm::json::Array(k.asyncOnceCopies)},
        {"gemms", std::move(gemms)},
        {"instructions", std::move(instructions)},
        {"registers", k.registers},
        {"spill_store_bytes", k.spillStores},
        {"spill_load_bytes", k.spillLoads},
        {"blocks_per_multiprocessor", k.blocksPerSM},
        {"occupancy_limit", k.occupancyLimit}});
  }
  llvm::json::Array operationList;
  for (const OperationSummary &o : operations) {
    llvm::json::Array scratch, launches;
    for (const std::string &t : o.scratch)
      scratch.push_back(t);
    for (const auto &[kernel, when] : o.launches)
      launches.push_back(
          llvm::json::Object{{"kernel", kernel}, {"when", when}});
    operationList.push_back(
        llvm::json::Object{{"name", o.name},
                           {"params", paramsJSON(o.params)},
                           {"scratch", std::move(scratch)},
                           {"launches", std::move(launches)}});
  }
  llvm::json::Array remarkList;
  for (const Remark &r : remarks)
    remarkList.push_back(
        llvm::json::Object{{"location", r.location}, {"message", r.message}});
  return llvm::json::Object{{"file", file},
                            {"target", target},
                            {"arch", arch},
                            {"kernels", std::move(list)},
                            {"operations", std::move(operationList)},
                            {"remarks", std::move(remarkList)}};
}
