//===- MmaWaits.cpp - Waiting for asynchronous MMAs where their results are
// needed ----------------------------------------------------------------===//
//
// A gemm the target runs as asynchronous MMAs (Hopper's wgmma groups) need
// not be waited for where it is issued: only before the first op that reads
// or writes its accumulator, rewrites a register operand it reads, may
// change shared memory, or does anything this analysis does not know. Until
// then the ops in between (another gemm, the softmax of a block of scores)
// run while the tensor cores work. Waits stay inside the block: whatever is
// still in flight at its end is waited for there.
//
// Waits count groups: waiting for a gemm leaves in flight the groups issued
// after it (they complete in order), and completes every earlier one. A
// wait covers the thread's own warpgroup; before shared memory may change
// a barrier makes every warpgroup's wait count.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

/// An issued gemm and the values its MMAs may still read or write; the
/// pipeliner's gemms (`deferred` false) wait by its protocol and are here
/// only to count groups.
struct InFlight {
  tile::GemmOp gemm;
  llvm::SmallPtrSet<Value, 4> busy;
  bool deferred = true;
};

/// `root` and the memrefs made from it (views of a fragment).
void addWithViews(Value root, llvm::SmallPtrSetImpl<Value> &values) {
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!values.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      for (Value result : user->getResults())
        if (llvm::isa<MemRefType>(result.getType()))
          work.push_back(result);
  }
}

/// Whether `op` (with what it nests) leaves shared memory and every value
/// outside `busy` alone, as far as an in-flight MMA can tell: pure ops,
/// tile ops and memref accesses away from shared memory, structured control
/// flow, barriers, and gemms into fragments (which only read shared tiles).
bool harmlessBeside(Operation *op) {
  WalkResult result = op->walk([&](Operation *inner) {
    if (llvm::isa<gpu::BarrierOp>(inner) ||
        inner->hasAttr(tile::attr::kWarpgroupTurn))
      return WalkResult::advance();
    // (A gemm accumulating into a shared tile writes shared memory.)
    if (auto gemm = llvm::dyn_cast<tile::GemmOp>(inner))
      return isWorkgroup(gemm.getC()) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    bool known =
        isMemoryEffectFree(inner) ||
        inner->getDialect() == op->getContext()->getLoadedDialect("tile") ||
        llvm::isa<memref::LoadOp, memref::StoreOp>(inner) ||
        inner->hasTrait<OpTrait::IsTerminator>() ||
        llvm::isa<scf::IfOp, scf::ForOp>(inner);
    if (!known || touchesShared(inner))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether `op` (with what it nests) uses any of `values`.
bool usesAny(Operation *op, const llvm::SmallPtrSetImpl<Value> &values) {
  WalkResult result = op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (values.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

void placeWaitsInBlock(Block &block, const GPUTargetInfo &target) {
  SmallVector<InFlight> inFlight; // oldest first
  // Waits before `op` until the gemms up to inFlight[through] are done.
  // Where `op` may write shared memory (or its effects are unknown), the
  // other warpgroups' MMAs must be done as well: a barrier follows the wait
  // (tile-gpu-eliminate-barriers drops the gemm's own barrier, which now
  // orders nothing, and keeps this one where a write follows).
  auto waitBefore = [&](Operation *op, size_t through, bool allThreads) {
    OpBuilder b(op);
    target.mmaWait(b, op->getLoc(), inFlight.size() - 1 - through);
    if (allThreads)
      gpu::BarrierOp::create(b, op->getLoc())
          ->setAttr(tile::attr::kMmaReadsDone, b.getUnitAttr());
    inFlight.erase(inFlight.begin(), inFlight.begin() + through + 1);
  };
  // The newest gemm this pass waits for, if any is in flight.
  auto newestDeferred = [&]() -> std::optional<size_t> {
    for (size_t i = inFlight.size(); i-- > 0;)
      if (inFlight[i].deferred)
        return i;
    return std::nullopt;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    // The newest in-flight gemm `op` must wait for, if any. Where shared
    // memory may change, and at the block's end (the next iteration, or
    // whatever follows), every deferred gemm is waited for; the pipeliner's
    // may run on.
    std::optional<size_t> last = newestDeferred();
    if (last &&
        (op.hasTrait<OpTrait::IsTerminator>() || !harmlessBeside(&op))) {
      waitBefore(&op, *last, /*allThreads=*/true);
    } else if (last) {
      for (size_t i = inFlight.size(); i-- > 0;)
        if (usesAny(&op, inFlight[i].busy)) {
          waitBefore(&op, i, /*allThreads=*/false);
          break;
        }
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        placeWaitsInBlock(nested, target);

    auto gemm = llvm::dyn_cast<tile::GemmOp>(&op);
    if (!gemm || !gemm->hasAttr(tile::attr::kMmaWaitDeferred))
      continue;
    InFlight issued{gemm, {}};
    addWithViews(gemm.getC(), issued.busy);
    if (tile::isFragment(gemm.getA()))
      addWithViews(gemm.getA(), issued.busy);
    // The pipeliner's gemm waits right after its commit until at most
    // tile.mma_in_flight groups run: the older ones are done then. (Deferred
    // groups are waited for before it: left to its wait, ptxas serializes
    // every wgmma of the kernel, C7514.)
    if (auto keep =
            gemm->getAttrOfType<IntegerAttr>(tile::attr::kMmaInFlight)) {
      if (std::optional<size_t> pending = newestDeferred())
        waitBefore(&op, *pending, /*allThreads=*/false);
      gemm->removeAttr(tile::attr::kMmaWaitDeferred);
      issued.deferred = false;
      inFlight.push_back(std::move(issued));
      size_t running = std::min<size_t>(keep.getInt(), inFlight.size());
      inFlight.erase(inFlight.begin(), inFlight.end() - running);
      continue;
    }
    inFlight.push_back(std::move(issued));
  }
}

} // namespace

void gpu_lowering::markAsyncMmaGemms(gpu::GPUFuncOp func,
                                     const GPUTargetInfo &target) {
  func.walk([&](tile::GemmOp gemm) {
    if (target.mmaIsAsync(gemm))
      gemm->setAttr(tile::attr::kMmaWaitDeferred,
                    UnitAttr::get(gemm.getContext()));
  });
}

void gpu_lowering::placeMmaWaits(gpu::GPUFuncOp func,
                                 const GPUTargetInfo &target) {
  for (Block &block : func.getBody())
    placeWaitsInBlock(block, target);
}
