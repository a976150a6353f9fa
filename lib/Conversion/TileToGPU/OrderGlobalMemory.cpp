//===- OrderGlobalMemory.cpp - tile-gpu-order-global-memory ---------------===//
//
// The threads of a block run a kernel's tile ops in program order, but
// their global-memory accesses are not ordered across threads: a copy that
// writes a tensor and a later op that reads those elements from other
// threads race. This pass puts a block barrier (which orders global memory
// among the block's threads too) between a tile op that writes or
// atomically updates a tensor and a later one that reads it, and between a
// read and a later write or atomic of it, where no barrier separates them
// already, following loops around their back edge. Plain writes after
// writes and atomics after atomics are left unordered (see
// docs/language.md, "Known issues"). Tensors are told apart by the kernel
// argument they come from: the stub rejects outputs that overlap other
// arguments. globalAccessOf (here) is what the pipeliner asks too.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tlc {
#define GEN_PASS_DEF_TILEGPUORDERGLOBALMEMORY
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

Value gpu_lowering::globalRoot(Value memref) {
  auto type = llvm::dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getMemorySpace())
    return Value();
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = llvm::dyn_cast<ViewLikeOpInterface>(def)) {
      memref = view.getViewSource();
      continue;
    }
    if (llvm::isa<memref::AllocaOp, memref::AllocOp>(def))
      return Value();
    break;
  }
  return memref;
}

void gpu_lowering::GlobalAccess::merge(const GlobalAccess &o) {
  reads.insert(o.reads.begin(), o.reads.end());
  writes.insert(o.writes.begin(), o.writes.end());
  atomics.insert(o.atomics.begin(), o.atomics.end());
}

bool gpu_lowering::GlobalAccess::conflictsWith(
    const GlobalAccess &later) const {
  auto meets = [](const llvm::SmallSetVector<Value, 4> &a,
                  const llvm::SmallSetVector<Value, 4> &b) {
    return llvm::any_of(a, [&](Value v) { return b.contains(v); });
  };
  return meets(writes, later.reads) || meets(atomics, later.reads) ||
         meets(reads, later.writes) || meets(reads, later.atomics);
}

GlobalAccess gpu_lowering::globalAccessOf(Operation *op) {
  GlobalAccess a;
  op->walk([&](Operation *inner) {
    auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return;
    bool atomic =
        llvm::isa<tile::AtomicOp, tile::AtomicAddOp, memref::AtomicRMWOp,
                  memref::GenericAtomicRMWOp>(inner);
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &effect : list) {
      Value root = effect.getValue() ? globalRoot(effect.getValue()) : Value();
      if (!root)
        continue;
      if (atomic)
        a.atomics.insert(root);
      else if (llvm::isa<MemoryEffects::Read>(effect.getEffect()))
        a.reads.insert(root);
      else if (llvm::isa<MemoryEffects::Write>(effect.getEffect()))
        a.writes.insert(root);
    }
  });
  return a;
}

namespace {

bool containsTileOps(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return llvm::isa<tile::TileDialect>(inner->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

class Orderer {
public:
  /// Places barriers in `block`, entered with `pending` accesses not yet
  /// ordered by a barrier; returns those pending at its end.
  GlobalAccess order(Block &block, GlobalAccess pending) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (llvm::isa<gpu::BarrierOp>(op)) {
        pending = GlobalAccess();
        continue;
      }
      // Loops and ifs of the source (around tile ops) are uniform over the
      // block: barriers may go inside them.
      if (auto loop = llvm::dyn_cast<scf::ForOp>(op);
          loop && containsTileOps(loop)) {
        GlobalAccess first = order(*loop.getBody(), pending);
        // The next iteration follows the body's end.
        GlobalAccess entry = pending;
        entry.merge(first);
        GlobalAccess end = order(*loop.getBody(), entry);
        pending.merge(end); // (or the loop ran no iteration)
        continue;
      }
      if (auto ifOp = llvm::dyn_cast<scf::IfOp>(op);
          ifOp && containsTileOps(ifOp)) {
        GlobalAccess out = order(ifOp.getThenRegion().front(), pending);
        if (!ifOp.getElseRegion().empty())
          out.merge(order(ifOp.getElseRegion().front(), pending));
        pending.merge(out);
        continue;
      }
      GlobalAccess here = globalAccessOf(&op);
      if (here.empty())
        continue;
      if (pending.conflictsWith(here)) {
        OpBuilder b(&op);
        auto barrier = gpu::BarrierOp::create(b, op.getLoc());
        barrier->setAttr(tile::attr::kGlobalOrder, b.getUnitAttr());
        pending = GlobalAccess();
      }
      pending.merge(here);
    }
    return pending;
  }
};

struct TileGPUOrderGlobalMemory
    : public tlc::impl::TileGPUOrderGlobalMemoryBase<TileGPUOrderGlobalMemory> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp func) {
      if (func->hasAttr(tile::attr::kThreads))
        Orderer().order(func.getBody().front(), GlobalAccess());
    });
  }
};

} // namespace
