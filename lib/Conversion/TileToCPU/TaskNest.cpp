//===- TaskNest.cpp - Whole-range task entries for gemm-shaped kernels ----===//
//
// On the CPU a block is one call that copies its own A and B tiles at every
// K step, so each B tile is copied once per row block and each A tile once
// per column block, and the accumulator goes through memory at every step.
// For a kernel of the gemm shape
//
//   fill(acc, v)
//   for k in range(...):                      // bounds the same in every block
//     copy(A[f(by, bz, k), ...], As)          // no bx
//     copy(B[g(bx, bz, k), ...], Bs)          // no by
//     gemm(As, Bs, acc)
//   <epilogue: any ops, reading acc>
//
// this pass adds a second entry, `tlc_tasks_NAME`, that runs a rectangle of
// the grid's blocks on one thread in the order of a Goto/BLIS loop nest: per
// K step it copies the B tiles of the rectangle's columns once into a panel,
// then per row block the A tile once, and multiplies it into every column
// block's accumulator (a heap panel of f32 tiles); after the K loop the
// epilogue runs per block as written. The block entry stays; the CPU stub
// calls the task entry once per worker thread instead (docs/passes.md,
// docs/abi.md).
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc {
#define GEN_PASS_DEF_TILECPUTASKNEST
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {
/// The parts of a gemm-shaped kernel.
struct GemmKernel {
  func::FuncOp fn;
  scf::ForOp loop;
  tile::FillOp fill;
  tile::CopyOp copyA, copyB;
  tile::GemmOp gemm;
  tile::AllocOp acc, tileA, tileB;
  /// The ops after the loop, in order (terminator excluded).
  SmallVector<Operation *> epilogue;
};

/// An op that can be cloned anywhere its operands are available: no memory
/// effects, no regions (block ids included: they are remapped).
bool isRecomputable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// The grid dimensions (bit d: block_id d) that `v` depends on, or nullopt
/// when it depends on something that cannot be recomputed elsewhere.
/// `inside` values (the loop's induction variable) are allowed.
std::optional<unsigned> blockDims(Value v, Value inside,
                                  llvm::DenseMap<Value, unsigned> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  unsigned dims = 0;
  if (v == inside) {
    dims = 0;
  } else if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    // Only the kernel's own arguments.
    if (!llvm::isa<func::FuncOp>(arg.getOwner()->getParentOp()))
      return std::nullopt;
  } else {
    Operation *def = v.getDefiningOp();
    if (auto id = llvm::dyn_cast<tile::BlockIdOp>(def)) {
      dims = 1u << id.getDim();
    } else {
      if (!isRecomputable(def))
        return std::nullopt;
      for (Value operand : def->getOperands()) {
        std::optional<unsigned> d = blockDims(operand, inside, memo);
        if (!d)
          return std::nullopt;
        dims |= *d;
      }
    }
  }
  memo[v] = dims;
  return dims;
}

/// A copy from a window of a global tensor (no gathers) into `tile`.
bool isTileLoad(tile::CopyOp copy, Value tile) {
  return copy && copy.getDest() == tile && !copy.getSourceIndices().empty() &&
         copy.getGathers().empty() &&
         !tile::getScope(llvm::cast<MemRefType>(copy.getSource().getType()));
}

/// True when every use of `v` is inside `region`.
bool usedOnlyInside(Value v, Region &region) {
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    return region.isAncestor(user->getParentRegion());
  });
}

/// The kernel's gemm shape, or nullopt when it does not have one.
std::optional<GemmKernel> matchGemmKernel(func::FuncOp fn) {
  // A cluster's blocks run together, a thread each: not as rectangles.
  if (!fn->hasAttr(tile::attr::kKernel) || !fn.getBody().hasOneBlock() ||
      fn->hasAttr(tile::attr::kClusterBlocks))
    return std::nullopt;
  GemmKernel g;
  g.fn = fn;
  Block &entry = fn.getBody().front();
  // Before the loop: tiles, one fill and recomputable values only.
  for (Operation &op : entry.without_terminator()) {
    if (g.loop) {
      g.epilogue.push_back(&op);
      continue;
    }
    if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
      g.loop = loop;
      continue;
    }
    if (auto fill = llvm::dyn_cast<tile::FillOp>(op)) {
      if (g.fill)
        return std::nullopt;
      g.fill = fill;
      continue;
    }
    if (!llvm::isa<tile::AllocOp>(op) && !isRecomputable(&op))
      return std::nullopt;
  }
  if (!g.loop || !g.fill || g.loop.getNumResults() != 0)
    return std::nullopt;

  // The loop: two tile loads, one gemm and index arithmetic.
  for (Operation &op : g.loop.getBody()->without_terminator()) {
    if (auto copy = llvm::dyn_cast<tile::CopyOp>(op)) {
      if (g.copyA && g.copyB)
        return std::nullopt;
      (g.copyA ? g.copyB : g.copyA) = copy;
    } else if (auto gemm = llvm::dyn_cast<tile::GemmOp>(op)) {
      if (g.gemm)
        return std::nullopt;
      g.gemm = gemm;
    } else if (!isRecomputable(&op)) {
      return std::nullopt;
    }
  }
  if (!g.gemm || !g.copyA || !g.copyB || g.gemm.getTransposeA() ||
      g.gemm.getTransposeB() || g.gemm.getClear())
    return std::nullopt;
  if (g.copyA.getDest() != g.gemm.getA())
    std::swap(g.copyA, g.copyB);
  if (!isTileLoad(g.copyA, g.gemm.getA()) ||
      !isTileLoad(g.copyB, g.gemm.getB()))
    return std::nullopt;
  g.tileA = g.gemm.getA().getDefiningOp<tile::AllocOp>();
  g.tileB = g.gemm.getB().getDefiningOp<tile::AllocOp>();
  g.acc = g.gemm.getC().getDefiningOp<tile::AllocOp>();
  if (!g.tileA || !g.tileB || !g.acc || g.tileA == g.tileB ||
      g.fill.getDest() != g.acc.getResult() || g.acc->getBlock() != &entry ||
      g.tileA->getBlock() != &entry || g.tileB->getBlock() != &entry)
    return std::nullopt;
  // The operand tiles live in the loop only. (Before the loop the fill is
  // the only op with memory effects, so nothing else touches the
  // accumulator there.)
  if (!usedOnlyInside(g.tileA, g.loop.getRegion()) ||
      !usedOnlyInside(g.tileB, g.loop.getRegion()))
    return std::nullopt;

  // Which blocks share what: A's window must not move with bx, B's not with
  // by, and the loop's bounds and the fill value not at all.
  llvm::DenseMap<Value, unsigned> memo;
  Value iv = g.loop.getInductionVar();
  auto dimsOf = [&](ValueRange values) -> std::optional<unsigned> {
    unsigned dims = 0;
    for (Value v : values) {
      std::optional<unsigned> d = blockDims(v, iv, memo);
      if (!d)
        return std::nullopt;
      dims |= *d;
    }
    return dims;
  };
  auto bounds = dimsOf({g.loop.getLowerBound(), g.loop.getUpperBound(),
                        g.loop.getStep(), g.fill.getValue()});
  // A window's tensor counts too: a slice or view of a kernel argument is
  // built in the kernel, and may itself move with the block.
  auto windowDims = [&](tile::CopyOp copy) -> std::optional<unsigned> {
    auto dims = dimsOf(copy.getSourceIndices());
    auto source = dimsOf(copy.getSource());
    if (!dims || !source)
      return std::nullopt;
    return *dims | *source;
  };
  auto aDims = windowDims(g.copyA);
  auto bDims = windowDims(g.copyB);
  if (!bounds || *bounds != 0 || !aDims || (*aDims & 1u) || !bDims ||
      (*bDims & 2u))
    return std::nullopt;
  return g;
}

/// Builds the task entry of one gemm-shaped kernel.
class TaskEntryBuilder {
public:
  TaskEntryBuilder(GemmKernel &g, unsigned vectorBits, int64_t panelBytes)
      : g(g), b(g.fn->getContext()), loc(g.fn.getLoc()),
        panelBytes(panelBytes) {
    MemRefType tileB = g.tileB.getType();
    stripWidth = std::min(
        tileB.getDimSize(1),
        cpu::gemmBlockColumns(g.acc.getType().getElementType(), vectorBits));
  }

  void build() {
    b.setInsertionPointAfter(g.fn);
    SmallVector<Type> argTypes(g.fn.getArgumentTypes());
    // The rectangle [bx0, bx1) x [by0, by1) of blocks and the grid's depth.
    argTypes.append(5, b.getIndexType());
    auto fn =
        func::FuncOp::create(b, loc, "tlc_tasks_" + g.fn.getSymName().str(),
                             b.getFunctionType(argTypes, {b.getI32Type()}));
    fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    fn->setAttr(tile::attr::kCPUTaskEntry, g.fn.getSymNameAttr());
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    unsigned numArgs = g.fn.getNumArguments();
    for (unsigned i = 0; i < numArgs; ++i)
      base.map(g.fn.getArgument(i), entry->getArgument(i));
    Value bx0 = entry->getArgument(numArgs),
          bx1 = entry->getArgument(numArgs + 1);
    Value by0 = entry->getArgument(numArgs + 2),
          by1 = entry->getArgument(numArgs + 3);
    Value gz = entry->getArgument(numArgs + 4);
    // The kernel's tiles from before the loop, once (the operand tile B
    // becomes the panel); the epilogue brings its own.
    for (Operation &op : g.fn.getBody().front()) {
      if (&op == g.loop.getOperation())
        break;
      if (auto alloc = llvm::dyn_cast<tile::AllocOp>(op))
        if (alloc != g.tileB)
          b.clone(op, base);
    }

    Value columns = arith::SubIOp::create(b, loc, bx1, bx0);
    Value rows = arith::SubIOp::create(b, loc, by1, by0);
    MemRefType tileB = g.tileB.getType(), acc = g.acc.getType();
    auto elementBytes = [](MemRefType tile) {
      return std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
    };
    IntegerAttr align = b.getI64IntegerAttr(64);
    // B tiles as strips of stripWidth columns, each contiguous; one slot of
    // strips per column block. Accumulator tiles, one per block.
    int64_t bk = tileB.getDimSize(0);
    int64_t strips = llvm::divideCeil(tileB.getDimSize(1), stripWidth);
    auto stripPanel = MemRefType::get(
        {ShapedType::kDynamic, strips, bk, stripWidth}, tileB.getElementType(),
        nullptr, tileB.getMemorySpace());
    auto accPanel =
        MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic,
                         acc.getDimSize(0), acc.getDimSize(1)},
                        acc.getElementType(), nullptr, acc.getMemorySpace());
    // At most panel-bytes of B tiles and of accumulators at a time: wider
    // rectangles go in chunks of columns, taller ones in chunks of rows
    // (each copying its B tiles again).
    auto fitting = [&](Value available, Value each) -> Value {
      return arith::MaxSIOp::create(
          b, loc, idx(1),
          arith::MinSIOp::create(
              b, loc, available,
              arith::DivSIOp::create(b, loc, idx(panelBytes), each)));
    };
    Value columnChunk =
        fitting(columns, idx(strips * bk * stripWidth * elementBytes(tileB)));
    Value rowChunk = fitting(
        rows,
        arith::MulIOp::create(b, loc, columnChunk,
                              idx(acc.getNumElements() * elementBytes(acc))));
    Value panelB = memref::AllocOp::create(b, loc, stripPanel,
                                           ValueRange{columnChunk}, align);
    Value panelAcc = memref::AllocOp::create(
        b, loc, accPanel, ValueRange{rowChunk, columnChunk}, align);

    // A panel malloc could not give is reported (status 1: out of memory),
    // not written through; free(NULL) is a no-op.
    Value allocatedB = isAllocated(panelB);
    Value allocated =
        arith::AndIOp::create(b, loc, allocatedB, isAllocated(panelAcc));
    auto ifAllocated = scf::IfOp::create(b, loc, allocated);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifAllocated.thenBlock()->getTerminator());
      forRange(idx(0), gz, [&](Value bz) {
        forChunks(bx0, columns, columnChunk, [&](Value bxFirst, Value m) {
          forChunks(by0, rows, rowChunk, [&](Value byFirst, Value n) {
            emitRectangle(bxFirst, byFirst, m, n, bz, panelB, panelAcc);
          });
        });
      });
    }
    memref::DeallocOp::create(b, loc, panelB);
    memref::DeallocOp::create(b, loc, panelAcc);
    Value status = arith::SelectOp::create(
        b, loc, allocated,
        arith::ConstantIntOp::create(b, loc, tile::attr::kCPUTaskOk, 32),
        arith::ConstantIntOp::create(b, loc, tile::attr::kCPUTaskOutOfMemory,
                                     32));
    func::ReturnOp::create(b, loc, status);
  }

private:
  GemmKernel &g;
  OpBuilder b;
  Location loc;
  int64_t panelBytes; // the most bytes of each panel
  int64_t stripWidth; // columns of a B strip: the micro-kernel's block
  IRMapping base;     // kernel arguments and tiles
  Value ids[3];       // the block being emitted (null: not available here)

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }

  /// Whether the heap allocation `memref` got memory.
  Value isAllocated(Value memref) {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, address,
                                 idx(0));
  }

  /// The blocks [bx0, bx0 + columns) x [by0, by0 + rows): fill, K loop,
  /// then every block's epilogue as written, from its accumulator.
  void emitRectangle(Value bx0, Value by0, Value columns, Value rows, Value bz,
                     Value panelB, Value panelAcc) {
    MemRefType acc = g.acc.getType();
    forRange(idx(0), rows, [&](Value r) {
      forRange(idx(0), columns, [&](Value c) {
        Value bx = add(bx0, c), by = add(by0, r); // x, then y
        IRMapping map = blockMapping(bx, by, bz);
        tile::FillOp::create(b, loc, view(panelAcc, {r, c}, acc.getShape()),
                             materialize(g.fill.getValue(), map));
      });
    });
    emitKLoop(bx0, by0, columns, rows, bz, panelB, panelAcc);
    forRange(idx(0), rows, [&](Value r) {
      forRange(idx(0), columns, [&](Value c) {
        Value bx = add(bx0, c), by = add(by0, r); // x, then y
        IRMapping map = blockMapping(bx, by, bz);
        tile::CopyOp::create(b, loc, view(panelAcc, {r, c}, acc.getShape()),
                             ValueRange(), base.lookup(g.acc.getResult()),
                             ValueRange());
        for (Operation *op : g.epilogue)
          cloneEpilogueOp(op, map);
      });
    });
  }

  /// The kernel's K loop over the rectangle: per step the B tiles of its
  /// columns once, then per row block the A tile once and its products
  /// with every column's B tile.
  void emitKLoop(Value bx0, Value by0, Value columns, Value rows, Value bz,
                 Value panelB, Value panelAcc) {
    MemRefType tileB = g.tileB.getType(), acc = g.acc.getType();
    IRMapping zMap = blockMapping(Value(), Value(), bz);
    auto kLoop =
        scf::ForOp::create(b, loc, materialize(g.loop.getLowerBound(), zMap),
                           materialize(g.loop.getUpperBound(), zMap),
                           materialize(g.loop.getStep(), zMap));
    kLoop->setDiscardableAttrs(g.loop->getDiscardableAttrDictionary());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(kLoop.getBody()->getTerminator());
    Value k = kLoop.getInductionVar();
    int64_t bk = tileB.getDimSize(0);
    forRange(idx(0), columns, [&](Value c) {
      IRMapping map = blockMapping(add(bx0, c), Value(), bz);
      map.map(g.loop.getInductionVar(), k);
      SmallVector<Value> origin = windowOrigin(g.copyB, map);
      forEachStrip([&](Value s, Value column, int64_t width) {
        SmallVector<Value> at(origin);
        at.back() = add(at.back(), column);
        cloneCopy(g.copyB, map, at, view(panelB, {c, s}, {bk, width}));
      });
    });
    Value tileA = base.lookup(g.tileA.getResult());
    int64_t bm = acc.getDimSize(0);
    forRange(idx(0), rows, [&](Value r) {
      IRMapping map = blockMapping(Value(), add(by0, r), bz);
      map.map(g.loop.getInductionVar(), k);
      cloneCopy(g.copyA, map, windowOrigin(g.copyA, map), tileA);
      forRange(idx(0), columns, [&](Value c) {
        forEachStrip([&](Value s, Value column, int64_t width) {
          Value strip = view(panelB, {c, s}, {bk, width});
          Value out =
              view(panelAcc, {r, c, b.getIndexAttr(0), column}, {bm, width});
          auto gemm = tile::GemmOp::create(b, loc, tileA, strip, out);
          gemm.setWarpsMAttr(g.gemm.getWarpsMAttr());
        });
      });
    });
  }

  /// Calls `body(strip, first column, width)` for every strip of a B tile:
  /// a loop over the full strips, then the narrower last one.
  void forEachStrip(const std::function<void(Value, Value, int64_t)> &body) {
    int64_t bn = g.tileB.getType().getDimSize(1);
    int64_t full = bn / stripWidth;
    forRange(idx(0), idx(full), [&](Value s) {
      body(s, arith::MulIOp::create(b, loc, s, idx(stripWidth)), stripWidth);
    });
    if (bn % stripWidth)
      body(idx(full), idx(full * stripWidth), bn % stripWidth);
  }

  void forRange(Value lower, Value upper,
                const std::function<void(Value)> &body) {
    forRange(lower, upper, idx(1), body);
  }

  void forRange(Value lower, Value upper, Value step,
                const std::function<void(Value)> &body) {
    auto loop = scf::ForOp::create(b, loc, lower, upper, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  }

  /// [origin, origin + total) in chunks of `chunk`: `body(start, count)`.
  void forChunks(Value origin, Value total, Value chunk,
                 const std::function<void(Value, Value)> &body) {
    forRange(idx(0), total, chunk, [&](Value first) {
      Value start = add(origin, first);
      body(start,
           arith::MinSIOp::create(b, loc, chunk,
                                  arith::SubIOp::create(b, loc, total, first)));
    });
  }

  /// Sets the block being emitted (null: its index is not available) and
  /// returns a mapping for it.
  IRMapping blockMapping(Value bx, Value by, Value bz) {
    ids[0] = bx;
    ids[1] = by;
    ids[2] = bz;
    return base;
  }

  /// `v` recomputed at the insertion point for the current block.
  Value materialize(Value v, IRMapping &map) {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    assert(def && "a value the matcher did not allow");
    if (auto id = llvm::dyn_cast<tile::BlockIdOp>(def)) {
      assert(ids[id.getDim()] && "a block id the matcher did not allow");
      map.map(v, ids[id.getDim()]);
      return ids[id.getDim()];
    }
    for (Value operand : def->getOperands())
      materialize(operand, map);
    Operation *clone = b.clone(*def, map);
    return clone->getResult(llvm::cast<OpResult>(v).getResultNumber());
  }

  /// The tile of `shape` in `panel` at `at` (leading indices; the rest 0),
  /// as a memref of that shape.
  Value view(Value panel, ArrayRef<OpFoldResult> at, ArrayRef<int64_t> shape) {
    auto panelType = llvm::cast<MemRefType>(panel.getType());
    int64_t rank = panelType.getRank();
    SmallVector<OpFoldResult> offsets(at.begin(), at.end()), sizes, strides;
    offsets.resize(rank, b.getIndexAttr(0));
    sizes.assign(rank - shape.size(), b.getIndexAttr(1));
    for (int64_t d : shape)
      sizes.push_back(b.getIndexAttr(d));
    strides.assign(rank, b.getIndexAttr(1));
    auto viewType =
        llvm::cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
            shape, panelType, offsets, sizes, strides));
    return memref::SubViewOp::create(b, loc, viewType, panel, offsets, sizes,
                                     strides);
  }

  /// The origin of a tile load's window for the current block.
  SmallVector<Value> windowOrigin(tile::CopyOp copy, IRMapping &map) {
    SmallVector<Value> origin;
    for (Value v : copy.getSourceIndices())
      origin.push_back(materialize(v, map));
    return origin;
  }

  /// Clones a tile load with its window at `origin`, into `dest`.
  void cloneCopy(tile::CopyOp copy, IRMapping &map, ArrayRef<Value> origin,
                 Value dest) {
    Value source = materialize(copy.getSource(), map);
    auto clone = llvm::cast<tile::CopyOp>(b.clone(*copy, map));
    clone.getSourceMutable().assign(source);
    clone.getSourceIndicesMutable().assign(origin);
    clone.getDestMutable().assign(dest);
  }

  /// Clones an epilogue op; values it takes from before the loop are
  /// recomputed, block ids (also inside its regions) become the block's.
  void cloneEpilogueOp(Operation *op, IRMapping &map) {
    if (auto id = llvm::dyn_cast<tile::BlockIdOp>(op)) {
      map.map(id.getResult(), ids[id.getDim()]);
      return;
    }
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *def = operand.getDefiningOp();
        Operation *owner =
            def ? def
                : llvm::cast<BlockArgument>(operand).getOwner()->getParentOp();
        if (!op->isAncestor(owner))
          materialize(operand, map);
      }
    });
    Operation *clone = b.clone(*op, map);
    SmallVector<tile::BlockIdOp> nested;
    clone->walk([&](tile::BlockIdOp id) { nested.push_back(id); });
    for (tile::BlockIdOp id : nested) {
      id.getResult().replaceAllUsesWith(ids[id.getDim()]);
      id.erase();
    }
  }
};

struct TileCPUTaskNest
    : public tlc::impl::TileCPUTaskNestBase<TileCPUTaskNest> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmKernel> kernels;
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>())
      if (std::optional<GemmKernel> g = matchGemmKernel(fn))
        kernels.push_back(*g);
    for (GemmKernel &g : kernels)
      TaskEntryBuilder(g, vectorBits, panelBytes).build();
  }
};
} // namespace
