//===- EliminateBarriers.cpp - tile-gpu-eliminate-barriers ----------------===//
//
// convert-tile-to-gpu puts a barrier after every op that touches shared
// memory; this pass keeps only the ones that order a write before an access
// or a read before a write.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc {
#define GEN_PASS_DEF_TILEGPUELIMINATEBARRIERS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

bool isWorkgroup(Type t) {
  auto type = llvm::dyn_cast<MemRefType>(t);
  if (!type)
    return false;
  auto space =
      llvm::dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// What an op (with everything nested in it) does to shared memory.
struct SharedAccess {
  bool read = false, write = false, barrier = false;
  SharedAccess &operator|=(const SharedAccess &o) {
    read |= o.read;
    write |= o.write;
    barrier |= o.barrier;
    return *this;
  }
};

SharedAccess sharedAccessOf(Operation *op) {
  SharedAccess a;
  op->walk([&](Operation *inner) {
    if (inner != op && llvm::isa<gpu::BarrierOp>(inner))
      a.barrier = true;
    if (llvm::none_of(inner->getOperands(),
                      [](Value v) { return isWorkgroup(v.getType()); }))
      return;
    // A shared address taken (matrix descriptors): any access through it.
    if (llvm::isa<memref::ExtractAlignedPointerAsIndexOp>(inner)) {
      a.read = a.write = true;
      return;
    }
    auto iface = llvm::dyn_cast<MemoryEffectOpInterface>(inner);
    if (!iface) { // unknown: assume the worst
      a.read = a.write = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects) {
      if (Value v = effect.getValue(); v && !isWorkgroup(v.getType()))
        continue;
      if (llvm::isa<MemoryEffects::Read>(effect.getEffect()))
        a.read = true;
      else if (llvm::isa<MemoryEffects::Write>(effect.getEffect()))
        a.write = true;
    }
  });
  return a;
}

/// Drops barriers that order nothing. A barrier between the shared-memory
/// accesses since the last kept barrier and those up to the next barrier is
/// needed only for a write before any access or a read before a write; the
/// block's start and end count as any access, except that a pipelined
/// loop's body ends where the next iteration's leading barrier follows.
void removeRedundantBarriers(Operation *root) {
  SmallVector<Block *> blocks;
  root->walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    auto loop = llvm::dyn_cast_or_null<scf::ForOp>(block->getParentOp());
    bool pipelined = loop && loop->hasAttr(tile::attr::kPipelined);
    SmallVector<Operation *> ops;
    SmallVector<SharedAccess> access;
    for (Operation &op : *block) {
      ops.push_back(&op);
      access.push_back(llvm::isa<gpu::BarrierOp>(op) ? SharedAccess()
                                                     : sharedAccessOf(&op));
    }
    SharedAccess before{true, true, false}; // since the last kept barrier
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!llvm::isa<gpu::BarrierOp>(ops[i])) {
        before |= access[i];
        if (access[i].barrier) // synchronizes inside: a fresh start after it
          before = access[i];
        continue;
      }
      SharedAccess after;
      bool reachedEnd = true;
      for (size_t j = i + 1; j < ops.size(); ++j) {
        if (llvm::isa<gpu::BarrierOp>(ops[j])) {
          reachedEnd = false;
          break;
        }
        after |= access[j];
        if (access[j].barrier) {
          reachedEnd = false;
          break;
        }
      }
      if (reachedEnd && !pipelined)
        after = SharedAccess{true, true, false};
      bool needed = (before.write && (after.read || after.write)) ||
                    (before.read && after.write);
      if (needed) {
        before = SharedAccess();
        continue;
      }
      ops[i]->erase();
    }
  }
}

struct TileGPUEliminateBarriers
    : public tlc::impl::TileGPUEliminateBarriersBase<TileGPUEliminateBarriers> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk(
        [](gpu::GPUFuncOp func) { removeRedundantBarriers(func); });
  }
};

} // namespace
