//===- SplitKernels.cpp - tile-gpu-split-kernels, tile-gpu-merge-kernels --===//
//
// MLIR runs a pass pipeline nested on gpu.module on one thread per module:
// with every kernel in one module, lowering a file of several kernels (a
// tuned kernel's variants, a kernel and its fallback) to the LLVM dialect
// is serial. Splitting the module per kernel before that pipeline and
// merging it after lets it run on every core; the merged module is what
// one module would have become, so translation and code generation see
// no difference.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace tlc {
#define GEN_PASS_DEF_TILEGPUSPLITKERNELS
#define GEN_PASS_DEF_TILEGPUMERGEKERNELS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

struct TileGPUSplitKernels
    : public tlc::impl::TileGPUSplitKernelsBase<TileGPUSplitKernels> {
  void runOnOperation() override {
    SmallVector<gpu::GPUModuleOp> modules(
        getOperation().getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp module : modules)
      split(module);
  }

  static void split(gpu::GPUModuleOp module) {
    SmallVector<gpu::GPUFuncOp> kernels;
    for (Operation &op : module.getBody()->getOperations()) {
      auto func = llvm::dyn_cast<gpu::GPUFuncOp>(op);
      if (!func || !func.isKernel())
        return; // shared symbols: the kernels stay together
      kernels.push_back(func);
    }
    if (kernels.size() < 2)
      return;
    SymbolTable symbols(module->getParentOp());
    Operation *last = module;
    for (auto [i, kernel] : llvm::enumerate(llvm::drop_begin(kernels))) {
      auto part = llvm::cast<gpu::GPUModuleOp>(module->cloneWithoutRegions());
      part->setAttr(tile::attr::kSplitFrom,
                    StringAttr::get(module.getContext(), module.getName()));
      part.getBodyRegion().emplaceBlock();
      kernel->moveBefore(part.getBody(), part.getBody()->end());
      last->getBlock()->getOperations().insertAfter(Block::iterator(last),
                                                    part);
      last = part;
      // Unique in the parent: NAME_1, NAME_2, ... unless taken.
      part.setName((module.getName() + "_" + llvm::Twine(i + 1)).str());
      symbols.insert(part);
    }
  }
};

struct TileGPUMergeKernels
    : public tlc::impl::TileGPUMergeKernelsBase<TileGPUMergeKernels> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SymbolTable topSymbols(top);
    SmallVector<gpu::GPUModuleOp> parts;
    for (auto module : top.getOps<gpu::GPUModuleOp>())
      if (module->hasAttr(tile::attr::kSplitFrom))
        parts.push_back(module);
    for (gpu::GPUModuleOp part : parts) {
      auto from = part->getAttrOfType<StringAttr>(tile::attr::kSplitFrom);
      auto into = topSymbols.lookup<gpu::GPUModuleOp>(from);
      if (!into) {
        part.emitOpError("is split from ")
            << from << ", which is not a gpu.module here";
        return signalPassFailure();
      }
      merge(part, into);
      topSymbols.erase(part);
    }
  }

  /// Moves `part`'s symbols into `into`: a symbol `into` has as the same
  /// operation is dropped, a different one renamed.
  static void merge(gpu::GPUModuleOp part, gpu::GPUModuleOp into) {
    SymbolTable intoSymbols(into);
    SymbolTable partSymbols(part);
    SmallVector<Operation *> ops;
    for (Operation &op : part.getBody()->getOperations())
      ops.push_back(&op);
    for (Operation *op : ops) {
      auto name =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      Operation *existing = name ? intoSymbols.lookup(name) : nullptr;
      if (existing &&
          OperationEquivalence::isEquivalentTo(
              existing, op, OperationEquivalence::IgnoreLocations)) {
        // Uses refer to it by name, which now names the one in `into`.
        op->erase();
        continue;
      }
      if (existing) {
        // Unique in both modules, so no use in `part` is captured.
        FailureOr<StringAttr> renamed =
            partSymbols.renameToUnique(op, {&intoSymbols});
        if (failed(renamed))
          continue; // left in place: translation reports the clash
      }
      op->moveBefore(into.getBody(), into.getBody()->end());
      if (name)
        intoSymbols.insert(op);
    }
  }
};

} // namespace
