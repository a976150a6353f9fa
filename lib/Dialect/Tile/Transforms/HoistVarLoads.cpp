//===- HoistVarLoads.cpp - tile-hoist-var-loads ---------------------------===//
//
// A `var` is a rank-0 alloca read with memref.load wherever it is used. A
// loop that reads a var it never writes gets the read before the loop, so
// values derived from it (a copy's origin) are loop-invariant: pipelining
// can issue the copies of later iterations ahead.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEHOISTVARLOADS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;

namespace {

/// A var: a rank-0 alloca.
bool isVar(Value v) {
  auto alloca = v.getDefiningOp<memref::AllocaOp>();
  return alloca && alloca.getType().getRank() == 0;
}

void hoistFrom(scf::ForOp loop) {
  llvm::SmallDenseMap<Value, bool> writtenInLoop;
  SmallVector<memref::LoadOp> loads;
  loop.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (!isVar(operand) || loop->isAncestor(operand.getDefiningOp()))
        continue;
      auto load = llvm::dyn_cast<memref::LoadOp>(op);
      // Anything but a load (a store, a call taking it) may write it.
      writtenInLoop[operand] |= !load;
      if (load)
        loads.push_back(load);
    }
  });
  for (memref::LoadOp load : loads)
    if (!writtenInLoop.lookup(load.getMemRef()))
      load->moveBefore(loop);
}

struct TileHoistVarLoads
    : public tlc::tile::impl::TileHoistVarLoadsBase<TileHoistVarLoads> {
  using Base::Base;
  void runOnOperation() override {
    // Inner loops first: a read hoisted out of one may leave its parent too.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      hoistFrom(loop);
  }
};
} // namespace
