//===- ExpandElementAccess.cpp - tile-expand-element-access ---------------===//
//
// Element accesses to global tensors become memref ops under a bounds check:
// out of bounds, a load reads zero and a store or an atomic does nothing.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEEXPANDELEMENTACCESS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc::tile;

namespace {

/// True when every index is inside its dimension. An unsigned compare
/// rejects negative indices as well.
Value inBounds(OpBuilder &b, Location loc, Value tensor, ValueRange indices) {
  Value all;
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value size = memref::DimOp::create(b, loc, tensor, d);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  }
  return all ? all : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
}

arith::AtomicRMWKind rmwKind(ReduceKind kind, Type elem) {
  bool isFloat = llvm::isa<FloatType>(elem);
  switch (kind) {
  case ReduceKind::max:
    return isFloat ? arith::AtomicRMWKind::maximumf
                   : arith::AtomicRMWKind::maxs;
  case ReduceKind::min:
    return isFloat ? arith::AtomicRMWKind::minimumf
                   : arith::AtomicRMWKind::mins;
  default:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  }
}

/// Builds `then` under `scf.if cond` at b's insertion point.
void buildGuarded(OpBuilder &b, Location loc, Value cond,
                  llvm::function_ref<void(OpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder inner = OpBuilder::atBlockTerminator(ifOp.thenBlock());
  then(inner);
}

struct TileExpandElementAccess
    : public tlc::tile::impl::TileExpandElementAccessBase<
          TileExpandElementAccess> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation()->walk([&](Operation *op) {
      if (llvm::isa<LoadOp, StoreOp, AtomicOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = llvm::dyn_cast<LoadOp>(op)) {
        Type elem = load.getType();
        Value ok = inBounds(b, loc, load.getTensor(), load.getIndices());
        auto ifOp = scf::IfOp::create(
            b, loc, ok,
            [&](OpBuilder &b, Location loc) {
              Value v = memref::LoadOp::create(b, loc, load.getTensor(),
                                               load.getIndices());
              scf::YieldOp::create(b, loc, v);
            },
            [&](OpBuilder &b, Location loc) {
              Value zero =
                  arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
              scf::YieldOp::create(b, loc, zero);
            });
        load.replaceAllUsesWith(ifOp.getResult(0));
      } else if (auto store = llvm::dyn_cast<StoreOp>(op)) {
        Value ok = inBounds(b, loc, store.getTensor(), store.getIndices());
        buildGuarded(b, loc, ok, [&](OpBuilder &b) {
          memref::StoreOp::create(b, loc, store.getValue(), store.getTensor(),
                                  store.getIndices());
        });
      } else {
        auto atomic = llvm::cast<AtomicOp>(op);
        Type elem = atomic.getValue().getType();
        Value ok = inBounds(b, loc, atomic.getTensor(), atomic.getIndices());
        buildGuarded(b, loc, ok, [&](OpBuilder &b) {
          memref::AtomicRMWOp::create(b, loc, rmwKind(atomic.getKind(), elem),
                                      atomic.getValue(), atomic.getTensor(),
                                      atomic.getIndices());
        });
      }
      op->erase();
    }
  }
};
} // namespace
