//===- TensorCopyFallback.cpp - tile-gpu-tensor-copy-fallback -------------===//
//
// A kernel whose pipelines use the tensor-copy unit gets a twin that does
// not: the stub launches the twin for tensors the unit cannot read.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace tlc {
#define GEN_PASS_DEF_TILEGPUTENSORCOPYFALLBACK
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

struct TileGPUTensorCopyFallback
    : public tlc::impl::TileGPUTensorCopyFallbackBase<
          TileGPUTensorCopyFallback> {
  using Base::Base;

  static bool hasTensorCopies(Operation *func) {
    bool found = false;
    func->walk([&](tile::CopyOp copy) {
      found |= copy->hasAttr(tile::attr::kTensorCopy);
    });
    return found;
  }

  /// Staged accumulator stores (tile.store_staging) become the copies
  /// they were: the twin stores without the tensor-copy unit, and without
  /// the staging tile's shared memory.
  static void unstageStores(gpu::GPUFuncOp twin) {
    SmallVector<tile::AllocOp> staged;
    twin.walk([&](tile::AllocOp alloc) {
      if (alloc->hasAttr(tile::attr::kStoreStaging))
        staged.push_back(alloc);
    });
    for (tile::AllocOp alloc : staged) {
      tile::CopyOp write, store;
      for (Operation *user : alloc.getResult().getUsers())
        if (auto copy = llvm::dyn_cast<tile::CopyOp>(user))
          (copy.getDest() == alloc.getResult() ? write : store) = copy;
      store.getSourceMutable().assign(write.getSource());
      store.setSourceUnsigned(write.getSourceUnsigned());
      write.erase();
      alloc.erase();
    }
  }

  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (func->hasAttr(tile::attr::kThreads) && hasTensorCopies(func))
        kernels.push_back(func);
    });
    for (gpu::GPUFuncOp func : kernels) {
      // '$' is valid in PTX names but not in a .tl identifier: no kernel
      // can clash with the twin.
      std::string name = (func.getName() + "$fallback").str();
      OpBuilder b(func);
      b.setInsertionPointAfter(func);
      auto twin = llvm::cast<gpu::GPUFuncOp>(b.clone(*func));
      twin.setName(name);
      twin->walk([](Operation *op) {
        op->removeAttr(tile::attr::kTensorCopy);
        op->removeAttr(tile::attr::kProducerThreads);
      });
      unstageStores(twin);
      func->setAttr(tile::attr::kFallback, b.getStringAttr(name));
    }
  }
};

} // namespace
