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
    // A shared address taken: any access through it, or reads only (a
    // matrix descriptor's).
    if (llvm::isa<memref::ExtractAlignedPointerAsIndexOp>(inner)) {
      a.read = true;
      a.write |= !inner->hasAttr(tile::attr::kReadOnlyAddress);
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

/// The shared-memory accesses that may run right before `op` since the last
/// barrier: walking back in its block to a barrier; from a block's start,
/// on before its parent op (and, in a loop, all of the loop: the previous
/// iteration's tail); nothing before the kernel's start.
SharedAccess accessesBefore(Operation *op) {
  SharedAccess a;
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode()) {
    if (llvm::isa<gpu::BarrierOp>(p))
      return a;
    SharedAccess x = sharedAccessOf(p);
    a |= x;
    if (x.barrier)
      return a;
  }
  Operation *parent = op->getParentOp();
  if (llvm::isa<gpu::GPUFuncOp>(parent))
    return a;
  if (auto loop = llvm::dyn_cast<scf::ForOp>(parent)) {
    // The previous iteration's tail after its last barrier, taken as the
    // whole body: barriers there may still go.
    a |= sharedAccessOf(loop);
    a |= accessesBefore(loop);
    a.barrier = false;
    return a;
  }
  if (llvm::isa<scf::IfOp>(parent)) {
    a |= accessesBefore(parent);
    a.barrier = false;
    return a;
  }
  return SharedAccess{true, true, false};
}

/// Drops barriers that order nothing. A barrier between the shared-memory
/// accesses since the last kept barrier and those up to the next barrier is
/// needed only for a write before any access or a read before a write; the
/// block's start and end count as any access, except that a pipelined
/// loop's body ends where the next iteration's leading barrier follows (or
/// its first barrier, in a warp-specialized loop without a leading one) and
/// starts after the previous iteration's last barrier.
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
    // Since the last kept barrier: at the block's start, anything; at a
    // pipelined loop body's start, what the previous iteration or the code
    // before the loop may have done since a barrier (accessesBefore).
    std::vector<bool> erased(ops.size(), false);
    SharedAccess before{true, true, false};
    if (pipelined && !ops.empty())
      before = accessesBefore(ops.front());
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!llvm::isa<gpu::BarrierOp>(ops[i])) {
        before |= access[i];
        if (access[i].barrier) // synchronizes inside: a fresh start after it
          before = access[i];
        continue;
      }
      // The MMAs a wait right before this barrier completed read shared
      // memory up to here, wherever their gemms were issued.
      if (ops[i]->hasAttr(tile::attr::kMmaReadsDone))
        before.read = true;
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
      // A pipelined body goes on with the next iteration's start, up to its
      // first (kept) barrier.
      for (size_t j = 0; reachedEnd && pipelined && j < i; ++j) {
        if (erased[j])
          continue;
        if (llvm::isa<gpu::BarrierOp>(ops[j]))
          break;
        after |= access[j];
        if (access[j].barrier)
          break;
      }
      bool needed = (before.write && (after.read || after.write)) ||
                    (before.read && after.write) ||
                    ops[i]->hasAttr(tile::attr::kGlobalOrder) ||
                    ops[i]->hasAttr(tile::attr::kAsyncProxyOrder);
      if (needed) {
        before = SharedAccess();
        continue;
      }
      ops[i]->erase();
      erased[i] = true;
    }
  }
}

/// Canonicalization folds adjacent barriers into one, whichever: each of a
/// run of barriers that holds a tile.global_order one carries the mark.
void markAdjacentGlobalOrder(Operation *root) {
  root->walk([](gpu::BarrierOp barrier) {
    if (!barrier->hasAttr(tile::attr::kGlobalOrder))
      return;
    for (Operation *p = barrier->getPrevNode();
         p && llvm::isa<gpu::BarrierOp>(p); p = p->getPrevNode())
      p->setAttr(tile::attr::kGlobalOrder,
                 barrier->getAttr(tile::attr::kGlobalOrder));
    for (Operation *n = barrier->getNextNode();
         n && llvm::isa<gpu::BarrierOp>(n); n = n->getNextNode())
      n->setAttr(tile::attr::kGlobalOrder,
                 barrier->getAttr(tile::attr::kGlobalOrder));
  });
}

struct TileGPUEliminateBarriers
    : public tlc::impl::TileGPUEliminateBarriersBase<TileGPUEliminateBarriers> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp func) {
      removeRedundantBarriers(func);
      markAdjacentGlobalOrder(func);
    });
  }
};

} // namespace
