//===- TileToCPU.cpp - Lower tile ops and kernels for the CPU -------------===//
//
// The pass driver plus the data-movement lowerings (copy, fill, reduce,
// atomic_add) and the kernel ABI. Gemm and parallel live in their own files.
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/BuiltinTypes.h"

namespace tlc {
#define GEN_PASS_DEF_CONVERTTILETOCPU
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

int64_t cpu::vectorLanes(Type elementType, unsigned vectorBits) {
  unsigned bits = std::max(8u, elementType.getIntOrFloatBitWidth());
  return std::max<int64_t>(1, vectorBits / bits);
}

static Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// for (i = lower; i < upper; i += step): its constants created in order
/// (nested creates in one call's arguments would leave the order of the ops
/// to the host compiler).
static scf::ForOp constantLoop(OpBuilder &b, Location loc, int64_t lower,
                               int64_t upper, int64_t step,
                               ValueRange init = {}) {
  Value lowerValue = indexConst(b, loc, lower);
  Value upperValue = indexConst(b, loc, upper);
  Value stepValue = indexConst(b, loc, step);
  return scf::ForOp::create(b, loc, lowerValue, upperValue, stepValue, init);
}

void cpu::forEachChunk(OpBuilder &b, Location loc, int64_t total, int64_t lanes,
                       const std::function<void(Value, int64_t)> &body) {
  int64_t full = total / lanes, tail = total % lanes;
  if (full == 1) {
    body(indexConst(b, loc, 0), lanes);
  } else if (full > 1) {
    auto loop = constantLoop(b, loc, 0, full * lanes, lanes);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar(), lanes);
  }
  if (tail)
    body(indexConst(b, loc, full * lanes), tail);
}

void cpu::buildLoopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                        const std::function<void(ValueRange)> &body) {
  SmallVector<Value> ivs;
  OpBuilder::InsertionGuard guard(b);
  for (int64_t e : extents) {
    auto loop = constantLoop(b, loc, 0, e, 1);
    ivs.push_back(loop.getInductionVar());
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  body(ivs);
}

Value cpu::broadcastTo(OpBuilder &b, Location loc, Value v, int64_t width) {
  if (llvm::isa<VectorType>(v.getType()))
    return v;
  return vector::BroadcastOp::create(b, loc,
                                     VectorType::get({width}, v.getType()), v);
}

static VectorType vecType(Type elem, int64_t width) {
  return VectorType::get({width}, elem);
}

/// A rank-1 view of a contiguous static tile.
static Value flatten(OpBuilder &b, Location loc, Value tile) {
  auto type = llvm::cast<MemRefType>(tile.getType());
  if (type.getRank() == 1)
    return tile;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  return memref::CollapseShapeOp::create(b, loc, tile, all);
}

static void emitFill(OpBuilder &b, Location loc, Value tile, Value scalar,
                     unsigned vectorBits) {
  Value flat = flatten(b, loc, tile);
  int64_t n = llvm::cast<MemRefType>(flat.getType()).getNumElements();
  Type elem = scalar.getType();
  cpu::forEachChunk(
      b, loc, n, cpu::vectorLanes(elem, vectorBits), [&](Value off, int64_t w) {
        vector::StoreOp::create(b, loc, cpu::broadcastTo(b, loc, scalar, w),
                                flat, off);
      });
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

void cpu::lowerFill(tile::FillOp op, unsigned vectorBits) {
  OpBuilder b(op);
  emitFill(b, op.getLoc(), op.getDest(), op.getValue(), vectorBits);
  op.erase();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

namespace {
struct Combiner : tile::ReduceCombiner {
  Value reduceVector(OpBuilder &b, Location loc, Value v) const {
    vector::CombiningKind k = vector::CombiningKind::ADD;
    switch (kind) {
    case tile::ReduceKind::sum:
      k = vector::CombiningKind::ADD;
      break;
    case tile::ReduceKind::max:
    case tile::ReduceKind::absmax:
      k = isFloat ? vector::CombiningKind::MAXIMUMF
                  : vector::CombiningKind::MAXSI;
      break;
    case tile::ReduceKind::min:
      k = isFloat ? vector::CombiningKind::MINIMUMF
                  : vector::CombiningKind::MINSI;
      break;
    }
    // Reassociation lets LLVM reduce in a tree instead of lane by lane.
    return vector::ReductionOp::create(b, loc, k, v,
                                       arith::FastMathFlags::reassoc);
  }
};
} // namespace

void cpu::lowerReduce(tile::ReduceOp op, unsigned vectorBits) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  auto srcType = llvm::cast<MemRefType>(src.getType());
  Type acc = llvm::cast<MemRefType>(dst.getType()).getElementType();
  Combiner c{{op.getKind(), llvm::isa<FloatType>(acc)}};
  ArrayRef<int64_t> shape = srcType.getShape();
  int64_t rank = shape.size(), dim = op.getDim();
  int64_t lanes = vectorLanes(acc, vectorBits);
  auto loadChunk = [&](ValueRange idx, int64_t w) {
    Value v = vector::LoadOp::create(
        b, loc, vecType(srcType.getElementType(), w), src, idx);
    return c.prepare(b, loc, tile::castElements(b, loc, v, acc));
  };

  if (dim == rank - 1) {
    // Row reduction: vector partial results, then one horizontal reduction.
    int64_t n = shape.back(), full = n / lanes, tail = n % lanes;
    buildLoopNest(b, loc, shape.drop_back(), [&](ValueRange ivs) {
      Value result = c.identity(b, loc, acc);
      auto rowIdx = [&](Value col) {
        SmallVector<Value> idx(ivs);
        idx.push_back(col);
        return idx;
      };
      if (full > 0) {
        Value init = broadcastTo(b, loc, result, lanes);
        Value lower = indexConst(b, loc, 0);
        Value upper = indexConst(b, loc, full * lanes);
        Value step = indexConst(b, loc, lanes);
        auto loop = scf::ForOp::create(
            b, loc, lower, upper, step, ValueRange{init},
            [&](OpBuilder &nb, Location l, Value iv, ValueRange iter) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(nb.getInsertionBlock(),
                                  nb.getInsertionPoint());
              Value v = loadChunk(rowIdx(iv), lanes);
              scf::YieldOp::create(b, l, c.combine(b, l, iter[0], v));
            });
        result = c.reduceVector(b, loc, loop.getResult(0));
      }
      if (tail) {
        Value v = loadChunk(rowIdx(indexConst(b, loc, full * lanes)), tail);
        result = c.combine(b, loc, result, c.reduceVector(b, loc, v));
      }
      SmallVector<Value> dstIdx(ivs);
      if (dstIdx.empty())
        dstIdx.push_back(indexConst(b, loc, 0));
      if (!op.getClear())
        result = c.combine(b, loc, memref::LoadOp::create(b, loc, dst, dstIdx),
                           result);
      memref::StoreOp::create(b, loc, result, dst, dstIdx);
    });
  } else {
    // Reduction over an outer dimension: vectorized along the innermost one.
    if (op.getClear())
      emitFill(b, loc, dst, c.identity(b, loc, acc), vectorBits);
    buildLoopNest(b, loc, shape.drop_back(), [&](ValueRange ivs) {
      forEachChunk(b, loc, shape.back(), lanes, [&](Value off, int64_t w) {
        SmallVector<Value> srcIdx(ivs), dstIdx;
        srcIdx.push_back(off);
        for (int64_t d = 0; d < rank; ++d)
          if (d != dim)
            dstIdx.push_back(srcIdx[d]);
        Value v = loadChunk(srcIdx, w);
        Value old =
            vector::LoadOp::create(b, loc, vecType(acc, w), dst, dstIdx);
        vector::StoreOp::create(b, loc, c.combine(b, loc, old, v), dst, dstIdx);
      });
    });
  }
  op.erase();
}

//===----------------------------------------------------------------------===//
// atomic_add
//===----------------------------------------------------------------------===//

void cpu::lowerAtomicAdd(tile::AtomicAddOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  auto srcType = llvm::cast<MemRefType>(src.getType());
  Type elem = llvm::cast<MemRefType>(dst.getType()).getElementType();
  SmallVector<Value> origin(op.getDestIndices());
  int64_t rank = srcType.getRank();
  int64_t lead = (int64_t)origin.size() - rank;
  buildLoopNest(b, loc, srcType.getShape(), [&](ValueRange ivs) {
    SmallVector<Value> idx(origin.begin(), origin.begin() + lead);
    for (int64_t d = 0; d < rank; ++d)
      idx.push_back(arith::AddIOp::create(b, loc, origin[lead + d], ivs[d]));
    Value valid;
    for (size_t k = 0; k < idx.size(); ++k) {
      // Unsigned: before the tensor is outside too.
      Value ok =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx[k],
                                memref::DimOp::create(b, loc, dst, k));
      valid = valid ? arith::AndIOp::create(b, loc, valid, ok) : ok;
    }
    auto ifOp = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value v = tile::castElements(
        b, loc, memref::LoadOp::create(b, loc, src, ivs), elem);
    memref::AtomicRMWOp::create(b, loc,
                                llvm::isa<FloatType>(elem)
                                    ? arith::AtomicRMWKind::addf
                                    : arith::AtomicRMWKind::addi,
                                v, dst, idx);
  });
  op.erase();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static MemRefType stripScope(MemRefType t) {
  return MemRefType::get(t.getShape(), t.getElementType(), t.getLayout());
}

static Type stripScopeOf(Type t) {
  if (auto m = llvm::dyn_cast<MemRefType>(t))
    if (tile::getScope(m))
      return stripScope(m);
  return t;
}

namespace {
/// Stack memory the tiles of one block may use: worker threads have the
/// default 8 MiB stacks, and the caller's thread runs blocks too.
constexpr int64_t kMaxTileBytesPerBlock = kCPUTileBytesPerBlock;

struct ConvertTileToCPU
    : public tlc::impl::ConvertTileToCPUBase<ConvertTileToCPU> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (vectorBits < 64 || vectorBits > 2048 ||
        (vectorBits & (vectorBits - 1))) {
      module.emitError("vector-bits must be a power of two in [64, 2048]");
      return signalPassFailure();
    }
    if (vectorRegisters < 8 || vectorRegisters > 64) {
      module.emitError("vector-registers must be in [8, 64]");
      return signalPassFailure();
    }
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn->hasAttr(tile::attr::kFn) && !fn.symbolKnownUseEmpty(module)) {
        fn.emitError(
            "tile fn calls must be inlined before convert-tile-to-cpu");
        return signalPassFailure();
      }
    }
    // Tile fns are inlined by now; their bodies are not lowered separately.
    for (func::FuncOp fn :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (fn->hasAttr(tile::attr::kFn))
        fn.erase();

    SmallVector<Operation *> ops;
    SmallVector<tile::AllocOp> allocs;
    module.walk([&](Operation *op) {
      if (isa<tile::CopyOp, tile::FillOp, tile::GemmOp, tile::ReduceOp,
              tile::AtomicAddOp, tile::ParallelOp, tile::ClusterReduceOp>(op))
        ops.push_back(op);
      else if (auto alloc = dyn_cast<tile::AllocOp>(op))
        allocs.push_back(alloc);
    });
    for (Operation *op : ops) {
      if (auto o = dyn_cast<tile::CopyOp>(op))
        cpu::lowerCopy(o, vectorBits);
      else if (auto o = dyn_cast<tile::FillOp>(op))
        cpu::lowerFill(o, vectorBits);
      else if (auto o = dyn_cast<tile::GemmOp>(op))
        cpu::lowerGemm(o, vectorBits, vectorRegisters);
      else if (auto o = dyn_cast<tile::ReduceOp>(op))
        cpu::lowerReduce(o, vectorBits);
      else if (auto o = dyn_cast<tile::AtomicAddOp>(op))
        cpu::lowerAtomicAdd(o);
      else if (auto o = dyn_cast<tile::ParallelOp>(op))
        cpu::lowerParallel(o, vectorBits);
      else if (auto o = dyn_cast<tile::ClusterReduceOp>(op)) {
        auto blocks =
            o->getParentOfType<func::FuncOp>()->getAttrOfType<IntegerAttr>(
                tile::attr::kClusterBlocks);
        if (!blocks) {
          o.emitError("cluster_reduce in a kernel without cluster(...)");
          return signalPassFailure();
        }
        cpu::lowerClusterReduce(o, blocks.getInt());
      }
    }
    // Tiles live on the stack of the thread that runs the block.
    llvm::DenseMap<Operation *, int64_t> tileBytes;
    for (tile::AllocOp alloc : allocs) {
      MemRefType t = alloc.getType();
      tileBytes[alloc->getParentOfType<func::FuncOp>()] +=
          t.getNumElements() *
          std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
    }
    for (auto [fn, bytes] : tileBytes)
      if (bytes > kMaxTileBytesPerBlock) {
        fn->emitError() << "kernel '"
                        << llvm::cast<func::FuncOp>(fn).getSymName()
                        << "' needs " << (bytes + 1023) / 1024
                        << " KiB of tiles per block; the CPU target allows "
                        << kMaxTileBytesPerBlock / 1024
                        << " KiB (tiles live on the stack of the thread "
                           "running the block)";
        return signalPassFailure();
      }
    for (tile::AllocOp alloc : allocs)
      lowerAlloc(alloc);

    // Tiles are plain stack memory on the CPU: drop the scopes everywhere.
    module.walk([](Operation *op) {
      for (Value r : op->getResults())
        r.setType(stripScopeOf(r.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument a : block.getArguments())
            a.setType(stripScopeOf(a.getType()));
    });

    for (func::FuncOp fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(tile::attr::kKernel))
        lowerKernelABI(fn);

    // `for k in range(n, unroll = U)`: unroll by U here (a remainder loop
    // covers trip counts that are not multiples of U).
    SmallVector<scf::ForOp> unroll;
    module.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tile::attr::kUnroll))
        unroll.push_back(loop);
    });
    for (scf::ForOp loop : unroll) {
      int64_t factor =
          loop->getAttrOfType<IntegerAttr>(tile::attr::kUnroll).getInt();
      loop->removeAttr(tile::attr::kUnroll);
      if (factor > 1 && failed(loopUnrollByFactor(loop, factor))) {
        loop.emitError("cannot unroll this loop");
        return signalPassFailure();
      }
    }
  }

  /// Static tiles become aligned stack slots at the top of the function, so
  /// a tile declared in a loop body does not grow the stack per iteration.
  void lowerAlloc(tile::AllocOp op) {
    auto fn = op->getParentOfType<func::FuncOp>();
    OpBuilder b(&fn.getBody().front(), fn.getBody().front().begin());
    auto alloca = memref::AllocaOp::create(
        b, op.getLoc(), stripScope(op.getType()), b.getI64IntegerAttr(64));
    op.getResult().replaceAllUsesWith(alloca.getResult());
    op.erase();
  }

  /// Block indices become three trailing index arguments; the function gets
  /// a C interface (`_mlir_ciface_tlc_block_NAME`) that the launch stub calls.
  void lowerKernelABI(func::FuncOp fn) {
    Block &entry = fn.getBody().front();
    OpBuilder b(fn.getContext());
    SmallVector<Value> blockIds;
    for (int i = 0; i < 3; ++i)
      blockIds.push_back(entry.addArgument(b.getIndexType(), fn.getLoc()));
    fn.walk([&](tile::BlockIdOp op) {
      op.getResult().replaceAllUsesWith(blockIds[op.getDim()]);
      op.erase();
    });
    fn.setFunctionType(b.getFunctionType(entry.getArgumentTypes(), {}));
    fn.setSymName(("tlc_block_" + fn.getSymName()).str());
    fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  }
};
} // namespace
