//===- Ops.cpp - Tile ops on a block of GPU threads -----------------------===//
//
// The first, SIMT lowering of every tile op: fragments stay in registers
// with their inferred layouts (each thread touches only what it holds),
// shared and global memory are shared among threads element by element, and
// reductions combine registers, then lanes (warp shuffles), then warps
// (through shared scratch).
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;
using tile::FragmentLayout;

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static bool isLocal(Value v) {
  auto type = llvm::dyn_cast<MemRefType>(v.getType());
  return type && v.getDefiningOp<memref::AllocaOp>() && !type.getMemorySpace();
}

/// Builds `then` under `scf.if cond` (or directly when cond is null).
static void buildIf(OpBuilder &b, Location loc, Value cond,
                    llvm::function_ref<void(OpBuilder &)> then) {
  if (!cond)
    return then(b);
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then(b);
}

//===----------------------------------------------------------------------===//
// Elements and distributions
//===----------------------------------------------------------------------===//

void KernelLowering::forEachElement(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    const Distribution &dist,
    llvm::function_ref<void(OpBuilder &, ValueRange, int64_t)> body) {
  OpBuilder::InsertionGuard guard(b);
  switch (dist.kind) {
  case Distribution::Owned: {
    Value cond = dist.firstReplicaOnly
                     ? dist.layout->isFirstReplica(b, loc, tid)
                     : Value();
    buildIf(b, loc, cond, [&](OpBuilder &b) {
      for (int64_t s = 0, e = dist.layout->numSlots(); s < e; ++s)
        body(b, dist.layout->elementIndex(b, loc, tid, s), s);
    });
    return;
  }
  case Distribution::Strided: {
    // Element e = round * threads + tid: a static number of rounds (unrolled
    // here when few, so that addresses fold), the last one guarded when the
    // threads do not divide the elements.
    int64_t total = product(shape);
    int64_t rounds = (total + threads - 1) / threads;
    auto visit = [&](OpBuilder &b, Value round) {
      Value e = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, round, indexConst(b, loc, threads)),
          tid);
      Value inRange =
          total % threads == 0
              ? Value()
              : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e,
                                      indexConst(b, loc, total))
                    .getResult();
      buildIf(b, loc, inRange, [&](OpBuilder &b) {
        SmallVector<Value> index(shape.size());
        Value rest = e;
        for (int64_t d = shape.size() - 1; d >= 0; --d) {
          Value extent = indexConst(b, loc, shape[d]);
          index[d] =
              d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, extent);
          if (d > 0)
            rest = arith::DivUIOp::create(b, loc, rest, extent);
        }
        body(b, index, -1);
      });
    };
    if (rounds <= 8) {
      for (int64_t r = 0; r < rounds; ++r)
        visit(b, indexConst(b, loc, r));
      return;
    }
    auto loop = countedLoop(b, loc, rounds);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    visit(b, loop.getInductionVar());
    return;
  }
  case Distribution::Redundant: {
    Value cond;
    if (dist.threadZeroOnly)
      cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                   indexConst(b, loc, 0));
    buildIf(b, loc, cond, [&](OpBuilder &b) {
      SmallVector<Value> index;
      OpBuilder::InsertionGuard inner(b);
      for (int64_t extent : shape) {
        auto loop = countedLoop(b, loc, extent);
        index.push_back(loop.getInductionVar());
        b.setInsertionPoint(loop.getBody()->getTerminator());
      }
      body(b, index, -1);
    });
    return;
  }
  }
}

Distribution KernelLowering::writerOf(Value dest) const {
  Distribution d;
  if (const RegisterFragment *f = fragment(dest)) {
    d.kind = Distribution::Owned;
    d.layout = &f->layout;
  } else if (isLocal(dest)) {
    d.kind = Distribution::Redundant;
  }
  return d;
}

Value KernelLowering::scratch(OpBuilder &b, Location loc, Type elementType,
                              int64_t count) {
  int64_t offset = llvm::alignTo(sharedTileBytes, 128);
  int64_t bytes = count * ((elementType.getIntOrFloatBitWidth() + 7) / 8);
  scratchBytes = std::max(scratchBytes, bytes);
  auto type = MemRefType::get(
      {count}, elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  return memref::ViewOp::create(b, loc, type, sharedBase,
                                indexConst(b, loc, offset), ValueRange{});
}

/// The view of the block's shared bytes that shared tile `memref` is, or
/// is a subview of (padded rows, a pipeline's buffer).
static Value sharedStorageView(Value memref) {
  while (auto subview = memref.getDefiningOp<memref::SubViewOp>())
    memref = subview.getSource();
  return memref;
}

int64_t KernelLowering::swizzleOf(Value memref) const {
  return swizzles.lookup(sharedStorageView(memref));
}

SmallVector<Value> KernelLowering::sharedPosition(OpBuilder &b, Location loc,
                                                  Value memref,
                                                  ValueRange index) const {
  int64_t swizzle = swizzleOf(memref);
  if (!swizzle)
    return SmallVector<Value>(index.begin(), index.end());
  // Rows of `swizzle` bytes: column c of row r is in atom c / W (the atoms
  // stacked along the rows), its 16-byte chunk XORed with bits 7.. of the
  // row's byte address (the hardware's pattern; see tile.swizzle).
  auto shape = memrefType(memref).getShape();
  int64_t rows = shape[0], cols = shape[1];
  int64_t elemBytes = memrefType(memref).getElementTypeBitWidth() / 8;
  int64_t width = swizzle / elemBytes, chunk = 16 / elemBytes;
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  Value row = index[0], col = index[1];
  if (cols != width) {
    Value atom = arith::DivUIOp::create(b, loc, col, c(width));
    Value atomRow = arith::MulIOp::create(b, loc, atom, c(rows));
    row = arith::AddIOp::create(b, loc, row, atomRow);
  }
  Value inAtom =
      cols != width ? arith::RemUIOp::create(b, loc, col, c(width)) : col;
  Value rowGroup = arith::DivUIOp::create(b, loc, row, c(128 / swizzle));
  Value pattern = arith::RemUIOp::create(b, loc, rowGroup, c(swizzle / 16));
  Value chunkShift = arith::MulIOp::create(b, loc, pattern, c(chunk));
  Value physCol = arith::XOrIOp::create(b, loc, inAtom, chunkShift);
  if (cols == width)
    return {row, physCol};
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, c(width)), physCol);
  return {arith::DivUIOp::create(b, loc, linear, c(cols)),
          arith::RemUIOp::create(b, loc, linear, c(cols))};
}

Value gpu_lowering::loadElement(OpBuilder &b, Location loc,
                                const KernelLowering &k, Value v,
                                ValueRange index, int64_t slot) {
  if (const RegisterFragment *f = k.fragment(v)) {
    assert(slot >= 0 && "register fragment read outside its layout");
    return memref::LoadOp::create(b, loc, f->slots, indexConst(b, loc, slot));
  }
  return memref::LoadOp::create(b, loc, v, k.sharedPosition(b, loc, v, index));
}

void gpu_lowering::storeElement(OpBuilder &b, Location loc,
                                const KernelLowering &k, Value value, Value v,
                                ValueRange index, int64_t slot) {
  if (const RegisterFragment *f = k.fragment(v)) {
    assert(slot >= 0 && "register fragment written outside its layout");
    memref::StoreOp::create(b, loc, value, f->slots, indexConst(b, loc, slot));
    return;
  }
  memref::StoreOp::create(b, loc, value, v, k.sharedPosition(b, loc, v, index));
}

namespace {
/// How a copy's (or atomic_add's) window places the tile's elements in its
/// memref: per dimension, the tile dimension covering it (-1: a point at
/// the origin) and, for gathers, the index tile read along it.
struct WindowMap {
  Value memref;
  ValueRange origin;
  SmallVector<int64_t> tileDims;
  SmallVector<Value> gathers;

  /// A window at `origin` covering the trailing dimensions of `memref`.
  static WindowMap trailing(Value memref, ValueRange origin, int64_t tileRank) {
    return {memref, origin, tile::trailingWindowDims(origin.size(), tileRank),
            SmallVector<Value>(origin.size())};
  }
  static WindowMap of(tile::CopyOp op) {
    return {op.getWindow(), op.getWindowOrigin(), op.getWindowTileDims(),
            op.getGatherPerDim()};
  }
  bool gathered() const {
    return llvm::any_of(gathers, [](Value g) { return bool(g); });
  }
};
} // namespace

/// The position in the window's memref of tile element `index` and whether
/// it is in bounds. A gather reads the position from its index tile (in
/// shared memory or this thread's local memory; signed, so a negative
/// index is out of bounds).
static std::pair<SmallVector<Value>, Value> windowElement(OpBuilder &b,
                                                          Location loc,
                                                          const WindowMap &w,
                                                          ValueRange index) {
  SmallVector<Value> full(w.origin.begin(), w.origin.end());
  for (size_t d = 0; d < full.size(); ++d) {
    int64_t t = w.tileDims[d];
    if (t < 0)
      continue;
    Value step = index[t];
    if (w.gathers[d])
      step = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          memref::LoadOp::create(b, loc, w.gathers[d], ValueRange{index[t]}));
    full[d] = arith::AddIOp::create(b, loc, full[d], step);
  }
  Value valid;
  for (size_t d = 0; d < full.size(); ++d) {
    // Unsigned: a negative position is out of bounds too.
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, full[d],
                              memref::DimOp::create(b, loc, w.memref, d));
    valid = valid ? arith::AndIOp::create(b, loc, valid, ok) : ok;
  }
  return {full, valid};
}

/// The run of `width` elements from fragment index `index` in `window`: its
/// first position, and whether all of it lies inside the tensor (whose
/// innermost extent is `innerSize`) and vector accesses there are aligned
/// (`aligned`, windowAligned's answer).
static std::pair<SmallVector<Value>, Value>
runInside(OpBuilder &b, Location loc, const WindowMap &window, ValueRange index,
          int64_t width, Value aligned, Value innerSize) {
  auto [pos, valid] = windowElement(b, loc, window, index);
  Value end =
      arith::AddIOp::create(b, loc, pos.back(), indexConst(b, loc, width));
  Value validAligned = arith::AndIOp::create(b, loc, valid, aligned);
  Value endInside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, innerSize);
  return {pos, arith::AndIOp::create(b, loc, validAligned, endInside)};
}

/// Visits the runs of `width` consecutive elements that this thread's
/// fragment slots hold along the innermost dimension (`runFactor` of
/// `layout`, slots `slotStep` apart): `whole(b, s, pos)` for a run starting
/// at slot s that lies inside the tensor and is aligned, else
/// `element(b, slot, pos, ok)` for each of its elements (ok: inside).
static void forEachFragmentRun(
    OpBuilder &b, Location loc, const tile::FragmentLayout &layout, Value tid,
    int64_t runFactor, int64_t width, const WindowMap &window, Value aligned,
    Value innerSize, function_ref<void(OpBuilder &, int64_t, ValueRange)> whole,
    function_ref<void(OpBuilder &, int64_t, ValueRange, Value)> element) {
  int64_t slotStep = layout.factors[runFactor].slotStride;
  for (int64_t s = 0, e = layout.numSlots(); s < e; ++s) {
    if (layout.slotDigit(runFactor, s) % width != 0)
      continue;
    SmallVector<Value> index = layout.elementIndex(b, loc, tid, s);
    auto [pos, inside] =
        runInside(b, loc, window, index, width, aligned, innerSize);
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    whole(b, s, pos);
    // Element by element at ragged edges and for unaligned tensors.
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    for (int64_t l = 0; l < width; ++l) {
      SmallVector<Value> at(index);
      at.back() =
          arith::AddIOp::create(b, loc, at.back(), indexConst(b, loc, l));
      auto [p, ok] = windowElement(b, loc, window, at);
      element(b, s + l * slotStep, p, ok);
    }
  }
}

/// memref[pos] where `valid`, else zero; the load itself is guarded, so an
/// out-of-bounds position is never read.
static Value loadOrZero(OpBuilder &b, Location loc, Value memref,
                        ValueRange pos, Value valid) {
  Type elem = memrefType(memref).getElementType();
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{elem}, valid,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc,
                       ValueRange{memref::LoadOp::create(b, loc, memref, pos)});
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::ConstantOp::create(b, loc, b.getZeroAttr(elem))});
  return ifOp.getResult(0);
}

//===----------------------------------------------------------------------===//
// fill, copy
//===----------------------------------------------------------------------===//

void KernelLowering::lowerFill(tile::FillOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value dest = op.getDest();
  Value value = tile::castElements(b, loc, op.getValue(),
                                   memrefType(dest).getElementType());
  forEachElement(b, loc, memrefType(dest).getShape(), writerOf(dest),
                 [&](OpBuilder &b, ValueRange index, int64_t slot) {
                   storeElement(b, loc, *this, value, dest, index, slot);
                 });
}

/// Whether shared tiles `a` and `b` (memref.view of the block's shared
/// bytes at constant offsets, or subviews of those: padded rows) cover no
/// common byte; false when unknown.
static bool disjointSharedViews(Value a, Value b) {
  auto range = [](Value v) -> std::optional<std::pair<int64_t, int64_t>> {
    v = sharedStorageView(v); // the whole view: padding included
    auto view = v.getDefiningOp<memref::ViewOp>();
    auto type = llvm::dyn_cast<MemRefType>(v.getType());
    if (!view || !type || !type.hasStaticShape())
      return std::nullopt;
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    if (!shift)
      return std::nullopt;
    int64_t bytes = type.getNumElements() *
                    std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
    return std::make_pair(*shift, *shift + bytes);
  };
  auto ra = range(a), rb = range(b);
  return ra && rb && (ra->second <= rb->first || rb->second <= ra->first);
}

void KernelLowering::lowerCopy(tile::CopyOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  // A staged accumulator store: the write into the staging tile lowers
  // the tensor store that reads it as well.
  if (auto staged = storeStaging.find(dst); staged != storeStaging.end())
    return lowerStagedStore(op, staged->second);
  if (storeStaging.contains(src))
    return;
  if (op->hasAttr(tile::attr::kAsyncOnce)) {
    lowerAsyncCopy(op);
    target.asyncCommit(b, loc);
    // A run of such copies waits once, after the last (the barriers
    // between them are the ones the pattern puts after each op), where the
    // next one reads no shared memory (a gather's index tile could be this
    // one's destination) and writes other bytes than this one: nothing
    // orders two asynchronous copies before the wait.
    Operation *after = op->getNextNode();
    while (llvm::isa_and_nonnull<gpu::BarrierOp>(after))
      after = after->getNextNode();
    auto next = llvm::dyn_cast_or_null<tile::CopyOp>(after);
    bool joins = next && next->hasAttr(tile::attr::kAsyncOnce) &&
                 op.getGathers().empty() && next.getGathers().empty() &&
                 disjointSharedViews(dst, next.getDest());
    if (!joins)
      target.asyncWait(b, loc, 0);
    return;
  }
  if (swizzleOf(dst) && !op->hasAttr(tile::attr::kAsync)) {
    // After everything the copy becomes (it is emitted before `op`).
    OpBuilder after(op->getContext());
    after.setInsertionPointAfter(op);
    target.fenceSharedForMma(after, loc);
  }
  const RegisterFragment *srcFrag = fragment(src), *dstFrag = fragment(dst);
  Distribution dist;
  if (srcFrag) {
    dist.kind = Distribution::Owned;
    dist.layout = &srcFrag->layout;
    // Replicas hold the same values: one of them writes memory.
    dist.firstReplicaOnly = !dstFrag;
  } else if (dstFrag) {
    dist = writerOf(dst);
  } else {
    dist = writerOf(dst);
  }
  Type dstElem = llvm::cast<MemRefType>(dst.getType()).getElementType();
  if (dist.kind == Distribution::Owned &&
      succeeded(
          lowerFragmentVectorCopy(op, *dist.layout, dist.firstReplicaOnly)))
    return;
  if (srcFrag && !dstFrag && succeeded(lowerFragmentToSharedVector(op)))
    return;
  if (op->hasAttr(tile::attr::kAsync))
    return lowerAsyncCopy(op);
  if (dist.kind == Distribution::Strided && !op.getSourceIndices().empty() &&
      succeeded(lowerVectorCopy(op)))
    return;
  forEachElement(
      b, loc, op.getTileShape(), dist,
      [&](OpBuilder &b, ValueRange index, int64_t slot) {
        Value value;
        if (!op.getSourceIndices().empty()) {
          auto [pos, valid] = windowElement(b, loc, WindowMap::of(op), index);
          value = loadOrZero(b, loc, src, pos, valid);
        } else {
          value = loadElement(b, loc, *this, src, index, slot);
        }
        value =
            tile::castElements(b, loc, value, dstElem, op.getSourceUnsigned(),
                               op.getDestUnsigned());
        if (!op.getDestIndices().empty()) {
          auto [pos, valid] = windowElement(b, loc, WindowMap::of(op), index);
          buildIf(b, loc, valid, [&, pos = pos](OpBuilder &b) {
            memref::StoreOp::create(b, loc, value, dst, pos);
          });
        } else {
          storeElement(b, loc, *this, value, dst, index, slot);
        }
      });
}

/// Whether the 16-byte chunks of a copy from global window `op` can be
/// vector (or asynchronous) accesses: element types of at least a byte and a
/// tile row made of whole chunks. Returns the chunk width in elements.
static int64_t vectorWidth(tile::CopyOp op) {
  Type srcElem = memrefType(op.getSource()).getElementType();
  Type dstElem = memrefType(op.getDest()).getElementType();
  if (!srcElem.isIntOrFloat() || !dstElem.isIntOrFloat() ||
      srcElem.getIntOrFloatBitWidth() < 8 ||
      dstElem.getIntOrFloatBitWidth() < 8 || op.getSourceIndices().empty())
    return 0;
  int64_t width = 16 / (srcElem.getIntOrFloatBitWidth() / 8);
  return op.getTileShape().back() % width == 0 ? width : 0;
}

/// Uniform over the block: the tensor base, the offset of the view (a
/// window with slices starts its view at the first sliced column), its row
/// strides and the window column keep every chunk of `width` elements of
/// `memref` aligned to its size in bytes.
static Value windowAligned(OpBuilder &b, Location loc, Value memref,
                           ValueRange origin, int64_t width) {
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  int64_t bytes = memrefType(memref).getElementTypeBitWidth() / 8 * width;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto isMultiple = [&](Value v, int64_t of) -> Value {
    Value rest = arith::RemUIOp::create(b, loc, v, c(of));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest, c(0));
  };
  Value aligned = isMultiple(base, bytes);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  // (The aligned pointer is the buffer's; the view starts `offset` after.)
  aligned = arith::AndIOp::create(b, loc, aligned,
                                  isMultiple(meta.getOffset(), width));
  for (int64_t d = 0; d + 1 < memrefType(memref).getRank(); ++d) {
    Value strideOk = isMultiple(meta.getStrides()[d], width);
    aligned = arith::AndIOp::create(b, loc, aligned, strideOk);
  }
  Value columnOk = isMultiple(origin.back(), width);
  return arith::AndIOp::create(b, loc, aligned, columnOk);
}

static Value chunksAligned(OpBuilder &b, Location loc, tile::CopyOp op,
                           int64_t width) {
  return windowAligned(b, loc, op.getSource(), op.getSourceIndices(), width);
}

/// Calls `body(b, index)` with the first element index of each chunk of
/// `width` elements of the copy's tile this thread handles.
void KernelLowering::forEachChunk(
    OpBuilder &b, Location loc, tile::CopyOp op, int64_t width,
    llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  SmallVector<int64_t> chunkShape(op.getTileShape());
  chunkShape.back() /= width;
  Distribution dist;
  dist.kind = Distribution::Strided;
  forEachElement(b, loc, chunkShape, dist,
                 [&](OpBuilder &b, ValueRange chunk, int64_t) {
                   SmallVector<Value> index(chunk.begin(), chunk.end());
                   index.back() = arith::MulIOp::create(
                       b, loc, index.back(), indexConst(b, loc, width));
                   body(b, index);
                 });
}

/// Global window -> tile in memory, 16 bytes per thread and step: a vector
/// load for a chunk in bounds when `aligned`, element by element otherwise.
void KernelLowering::emitVectorCopy(OpBuilder &b, tile::CopyOp op,
                                    int64_t width, Value aligned) {
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  Type srcElem = memrefType(src).getElementType();
  Type dstElem = memrefType(dst).getElementType();
  int64_t dstBytes = dstElem.getIntOrFloatBitWidth() / 8;
  WindowMap window = WindowMap::of(op);
  int64_t srcRank = memrefType(src).getRank();
  Value innerSize = memref::DimOp::create(b, loc, src, srcRank - 1);
  forEachChunk(b, loc, op, width, [&](OpBuilder &b, ValueRange index) {
    auto [pos, valid] = windowElement(b, loc, window, index);
    Value end =
        arith::AddIOp::create(b, loc, pos.back(), indexConst(b, loc, width));
    Value whole = arith::AndIOp::create(
        b, loc, valid,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                              innerSize));
    whole = arith::AndIOp::create(b, loc, whole, aligned);
    auto ifOp = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value v = vector::LoadOp::create(b, loc, VectorType::get({width}, srcElem),
                                     src, pos, /*nontemporal=*/false,
                                     llvm::MaybeAlign(16));
    v = tile::castElements(b, loc, v, dstElem, op.getSourceUnsigned(),
                           op.getDestUnsigned());
    vector::StoreOp::create(
        b, loc, v, dst, sharedPosition(b, loc, dst, index),
        /*nontemporal=*/false,
        llvm::MaybeAlign(std::min<int64_t>(16, width * dstBytes)));
    // Ragged or unaligned chunks: element by element.
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    for (int64_t l = 0; l < width; ++l) {
      SmallVector<Value> at(index.begin(), index.end());
      at.back() =
          arith::AddIOp::create(b, loc, at.back(), indexConst(b, loc, l));
      auto [p, ok] = windowElement(b, loc, window, at);
      Value x =
          tile::castElements(b, loc, loadOrZero(b, loc, src, p, ok), dstElem,
                             op.getSourceUnsigned(), op.getDestUnsigned());
      memref::StoreOp::create(b, loc, x, dst, sharedPosition(b, loc, dst, at));
    }
  });
}

LogicalResult KernelLowering::lowerVectorCopy(tile::CopyOp op) {
  int64_t width = vectorWidth(op);
  if (!width)
    return failure();
  OpBuilder b(op);
  emitVectorCopy(b, op, width, chunksAligned(b, op.getLoc(), op, width));
  return success();
}

/// Whether the whole window of copy `op` lies inside its source (uniform
/// over the block).
static Value windowInside(OpBuilder &b, Location loc, tile::CopyOp op) {
  Value src = op.getSource();
  ValueRange origin = op.getSourceIndices();
  ArrayRef<int64_t> tileShape = op.getTileShape();
  size_t lead = origin.size() - tileShape.size();
  Value inside;
  for (size_t d = 0; d < origin.size(); ++d) {
    Value end =
        d < lead
            ? arith::AddIOp::create(b, loc, origin[d], indexConst(b, loc, 1))
            : arith::AddIOp::create(b, loc, origin[d],
                                    indexConst(b, loc, tileShape[d - lead]));
    // Unsigned: a negative origin is outside too.
    Value extent = memref::DimOp::create(b, loc, src, d);
    Value endInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, extent);
    Value nonEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           origin[d], end);
    Value ok = arith::AndIOp::create(b, loc, endInside, nonEmpty);
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  }
  return inside;
}

/// A copy the pipeliner made asynchronous: the target's asynchronous copy of
/// 16 bytes per chunk (fewer source bytes at a ragged edge, the rest
/// zero-filled), else of 8 bytes or of single elements, else the
/// synchronous element copy.
void KernelLowering::lowerAsyncCopy(tile::CopyOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  int64_t fullWidth = vectorWidth(op);
  WindowMap window = WindowMap::of(op);
  int64_t srcRank = memrefType(src).getRank();
  // Each chunk of `width` elements as one asynchronous copy; `edges`: some
  // may be partly or wholly outside the tensor.
  auto issue = [&](OpBuilder &b, int64_t width, bool edges) {
    Value innerSize = memref::DimOp::create(b, loc, src, srcRank - 1);
    Value zero = indexConst(b, loc, 0);
    forEachChunk(b, loc, op, width, [&](OpBuilder &b, ValueRange index) {
      auto [pos, valid] = windowElement(b, loc, window, index);
      Value count = indexConst(b, loc, width);
      if (edges) {
        // Elements of the chunk inside the row; none outside the tensor,
        // and then a safe address (element 0).
        Value left = arith::SubIOp::create(b, loc, innerSize, pos.back());
        count = arith::MinUIOp::create(b, loc, left, count);
        count = arith::SelectOp::create(b, loc, valid, count, zero);
        for (Value &p : pos)
          p = arith::SelectOp::create(b, loc, valid, p, zero);
      }
      target.asyncCopy(b, loc, dst, sharedPosition(b, loc, dst, index), src,
                       pos, width, count);
    });
  };
  OpBuilder::InsertionGuard guard(b);
  // Every chunk checks its bounds where rows come from index tiles, and in
  // a copy that runs once (a pipeline's prologue: each path is code that
  // LLVM and ptxas compile, and the fast path below is one more).
  bool everyChunkChecked =
      window.gathered() || op->hasAttr(tile::attr::kColdCopy);
  // Chunks of `width` elements when the tensor's rows allow them, else
  // `otherwise`.
  auto ifAligned = [&](int64_t width,
                       llvm::function_ref<void(OpBuilder &)> otherwise) {
    auto ifOp = scf::IfOp::create(b, loc, chunksAligned(b, loc, op, width),
                                  /*withElseRegion=*/true);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    if (everyChunkChecked) {
      issue(b, width, /*edges=*/true);
    } else {
      // Tiles inside the tensor (most of them) skip the per-chunk bounds.
      auto inside = scf::IfOp::create(b, loc, windowInside(b, loc, op),
                                      /*withElseRegion=*/true);
      b.setInsertionPoint(inside.thenBlock()->getTerminator());
      issue(b, width, /*edges=*/false);
      b.setInsertionPoint(inside.elseBlock()->getTerminator());
      issue(b, width, /*edges=*/true);
    }
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    otherwise(b);
  };
  // Not aligned at all: every chunk element by element; asynchronously
  // where the target copies a single element (4 or 8 bytes), a bounds
  // check per element as a byte count rather than a branch.
  int64_t elemBytes = memrefType(src).getElementTypeBitWidth() / 8;
  bool asyncElements = elemBytes >= 4 && target.asyncCopyBytes(elemBytes);
  auto elementwise = [&](OpBuilder &b) {
    if (asyncElements) {
      issue(b, 1, /*edges=*/true);
      return;
    }
    emitVectorCopy(b, op, fullWidth,
                   arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
  };
  // 16-byte chunks; rows of 8-byte multiples (a K of 4 mod 8 in 16-bit
  // elements) in 8-byte chunks, which the target copies asynchronously too
  // (elements of 4 bytes and more go one by one, asynchronously, instead).
  int64_t halfWidth = fullWidth / 2;
  if (halfWidth * elemBytes >= 8 && target.asyncCopyBytes(8) && !asyncElements)
    ifAligned(fullWidth,
              [&](OpBuilder &) { ifAligned(halfWidth, elementwise); });
  else
    ifAligned(fullWidth, elementwise);
}

/// The slot factor of consecutive innermost elements of `layout` (element
/// stride 1): its extent (0 when there is none) and index.
static std::pair<int64_t, unsigned>
innerRun(const tile::FragmentLayout &layout) {
  int64_t innerDim = layout.rank - 1, run = 0;
  unsigned runFactor = 0;
  for (unsigned i = 0; i < layout.factors.size(); ++i) {
    const tile::LayoutFactor &fac = layout.factors[i];
    if (fac.dim == innerDim && !fac.isThread() && layout.elementStride(i) == 1)
      run = fac.extent, runFactor = i;
  }
  return {run, runFactor};
}

/// A vector of `width` slots of a fragment's `slots`, from `first` in steps
/// of `step`.
static Value slotVector(OpBuilder &b, Location loc, Value slots, int64_t first,
                        int64_t step, int64_t width) {
  Type elem = memrefType(slots).getElementType();
  Value v = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(VectorType::get({width}, elem)));
  for (int64_t l = 0; l < width; ++l)
    v = vector::InsertOp::create(
        b, loc,
        memref::LoadOp::create(b, loc, slots,
                               indexConst(b, loc, first + l * step)),
        v, ArrayRef<int64_t>{l});
  return v;
}

/// Fragment <-> global window, when the layout gives each thread runs of
/// consecutive elements along the innermost dimension: one vector access
/// per run (up to 16 bytes) where the run is in bounds and aligned,
/// element by element elsewhere.
LogicalResult
KernelLowering::lowerFragmentVectorCopy(tile::CopyOp op,
                                        const tile::FragmentLayout &layout,
                                        bool firstReplicaOnly) {
  Value src = op.getSource(), dst = op.getDest();
  bool load = !op.getSourceIndices().empty();
  if (!load && op.getDestIndices().empty())
    return failure();
  Value global = load ? src : dst;
  ValueRange origin = op.getWindowOrigin();
  WindowMap window = WindowMap::of(op);
  Value frag = load ? dst : src;
  const RegisterFragment *f = fragment(frag);
  Type globalElem = memrefType(global).getElementType();
  Type fragElem = memrefType(frag).getElementType();
  if (!f || !globalElem.isIntOrFloat() ||
      globalElem.getIntOrFloatBitWidth() < 8)
    return failure();
  auto [run, runFactor] = innerRun(layout);
  if (run < 2)
    return failure();
  int64_t width =
      std::gcd(run, 16 / (int64_t)(globalElem.getIntOrFloatBitWidth() / 8));
  if (width < 2)
    return failure();
  int64_t slotStep = layout.factors[runFactor].slotStride;

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value aligned = windowAligned(b, loc, global, origin, width);
  int64_t globalRank = memrefType(global).getRank();
  Value innerSize = memref::DimOp::create(b, loc, global, globalRank - 1);
  Value guard = firstReplicaOnly ? layout.isFirstReplica(b, loc, tid) : Value();
  auto vecType = VectorType::get({width}, globalElem);
  int64_t alignBytes = width * globalElem.getIntOrFloatBitWidth() / 8;
  auto whole = [&](OpBuilder &b, int64_t s, ValueRange pos) {
    if (load) {
      Value v = vector::LoadOp::create(b, loc, vecType, global, pos, false,
                                       llvm::MaybeAlign(alignBytes));
      v = tile::castElements(b, loc, v, fragElem, op.getSourceUnsigned(),
                             op.getDestUnsigned());
      for (int64_t l = 0; l < width; ++l)
        memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l}),
            f->slots, indexConst(b, loc, s + l * slotStep));
      return;
    }
    Value v = slotVector(b, loc, f->slots, s, slotStep, width);
    v = tile::castElements(b, loc, v, globalElem, op.getSourceUnsigned(),
                           op.getDestUnsigned());
    vector::StoreOp::create(b, loc, v, global, pos, false,
                            llvm::MaybeAlign(alignBytes));
  };
  auto element = [&](OpBuilder &b, int64_t slot, ValueRange p, Value ok) {
    Value slotIndex = indexConst(b, loc, slot);
    if (load) {
      memref::StoreOp::create(
          b, loc,
          tile::castElements(b, loc, loadOrZero(b, loc, global, p, ok),
                             fragElem, op.getSourceUnsigned(),
                             op.getDestUnsigned()),
          f->slots, slotIndex);
      return;
    }
    buildIf(b, loc, ok, [&](OpBuilder &b) {
      Value v = memref::LoadOp::create(b, loc, f->slots, slotIndex);
      memref::StoreOp::create(b, loc,
                              tile::castElements(b, loc, v, globalElem,
                                                 op.getSourceUnsigned(),
                                                 op.getDestUnsigned()),
                              global, p);
    });
  };
  buildIf(b, loc, guard, [&](OpBuilder &b) {
    forEachFragmentRun(b, loc, layout, tid, runFactor, width, window, aligned,
                       innerSize, whole, element);
  });
  return success();
}

std::optional<SmallVector<int64_t>>
gpu_lowering::slotColumnBlocks(const tile::FragmentLayout &layout,
                               int64_t blockCols) {
  // A slot's column: its slot digits' part plus, per thread, at most the
  // thread factors' span.
  int64_t innerDim = layout.rank - 1, threadSpan = 0;
  for (unsigned f = 0; f < layout.factors.size(); ++f)
    if (layout.factors[f].dim == innerDim && layout.factors[f].isThread())
      threadSpan += (layout.factors[f].extent - 1) * layout.elementStride(f);
  SmallVector<int64_t> blocks;
  for (int64_t s = 0, e = layout.numSlots(); s < e; ++s) {
    int64_t col = 0;
    for (unsigned f = 0; f < layout.factors.size(); ++f)
      if (layout.factors[f].dim == innerDim && !layout.factors[f].isThread())
        col += layout.slotDigit(f, s) * layout.elementStride(f);
    if (col / blockCols != (col + threadSpan) / blockCols)
      return std::nullopt;
    blocks.push_back(col / blockCols);
  }
  return blocks;
}

/// The runs of consecutive innermost elements in a thread's slots of
/// `layout` that start at columns aligned to a vector of `elemBytes`-byte
/// elements (every other factor along the innermost dimension steps by
/// whole vectors), at most 16 bytes: the vector width (1 when there are no
/// such runs) and the run's factor.
static std::pair<int64_t, unsigned>
alignedRuns(const tile::FragmentLayout &layout, int64_t elemBytes) {
  int64_t innerDim = layout.rank - 1;
  auto [run, runFactor] = innerRun(layout);
  if (run < 2)
    return {1, 0};
  int64_t width = std::gcd(run, 16 / elemBytes);
  for (unsigned i = 0; i < layout.factors.size(); ++i)
    if (i != runFactor && layout.factors[i].dim == innerDim &&
        layout.elementStride(i) % width != 0)
      return {1, 0};
  return {width, runFactor};
}

void KernelLowering::writeFragmentRuns(
    OpBuilder &b, Location loc, tile::CopyOp op, Value dst, int64_t colShift,
    llvm::function_ref<bool(int64_t)> takeSlot) {
  const RegisterFragment *f = fragment(op.getSource());
  const tile::FragmentLayout &layout = f->layout;
  Type elem = memrefType(dst).getElementType();
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  auto [width, runFactor] = alignedRuns(layout, elemBytes);
  int64_t slotStep = width > 1 ? layout.factors[runFactor].slotStride : 0;
  // Replicas hold the same values: one of them writes.
  buildIf(b, loc, layout.isFirstReplica(b, loc, tid), [&](OpBuilder &b) {
    for (int64_t s = 0, e = layout.numSlots(); s < e; ++s) {
      if (!takeSlot(s) ||
          (width > 1 && layout.slotDigit(runFactor, s) % width != 0))
        continue;
      SmallVector<Value> index = layout.elementIndex(b, loc, tid, s);
      if (colShift)
        index.back() = arith::SubIOp::create(b, loc, index.back(),
                                             indexConst(b, loc, colShift));
      SmallVector<Value> at = sharedPosition(b, loc, dst, index);
      if (width == 1) {
        Value v =
            memref::LoadOp::create(b, loc, f->slots, indexConst(b, loc, s));
        memref::StoreOp::create(b, loc,
                                tile::castElements(b, loc, v, elem,
                                                   op.getSourceUnsigned(),
                                                   op.getDestUnsigned()),
                                dst, at);
        continue;
      }
      Value v = slotVector(b, loc, f->slots, s, slotStep, width);
      v = tile::castElements(b, loc, v, elem, op.getSourceUnsigned(),
                             op.getDestUnsigned());
      vector::StoreOp::create(b, loc, v, dst, at, false,
                              llvm::MaybeAlign(width * elemBytes));
    }
  });
}

LogicalResult KernelLowering::lowerFragmentToSharedVector(tile::CopyOp op) {
  Value dst = op.getDest();
  auto dstType = memrefType(dst);
  Type elem = dstType.getElementType();
  if (!op.getSourceIndices().empty() || !op.getDestIndices().empty() ||
      !fragment(op.getSource()) || dstType.getRank() != 2 ||
      !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8 ||
      elem.getIntOrFloatBitWidth() % 8)
    return failure();
  int64_t width = alignedRuns(fragment(op.getSource())->layout,
                              elem.getIntOrFloatBitWidth() / 8)
                      .first;
  if (width < 2 || dstType.getShape()[1] % width != 0)
    return failure();
  OpBuilder b(op);
  writeFragmentRuns(b, op.getLoc(), op, dst, 0, [](int64_t) { return true; });
  return success();
}

void KernelLowering::lowerStagedStore(tile::CopyOp write,
                                      const StoreStaging &staging) {
  Value tile = write.getDest();
  tile::CopyOp store;
  for (Operation *user : tile.getUsers())
    if (auto copy = llvm::dyn_cast<tile::CopyOp>(user);
        copy && copy.getSource() == tile)
      store = copy;
  assert(store && "a staging tile without its tensor store");
  OpBuilder b(write);
  Location loc = write.getLoc();
  // When the stub clears the store flag (the tensor does not suit the
  // tensor-copy unit), the accumulators go from registers, as in the
  // kernel's twin without tensor copies.
  auto byTensorCopy = scf::IfOp::create(b, loc, storeByTensorCopy,
                                        /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(byTensorCopy.elseBlock()->getTerminator());
    auto direct = llvm::cast<tile::CopyOp>(b.clone(*store));
    direct.getSourceMutable().assign(write.getSource());
    direct.setSourceUnsigned(write.getSourceUnsigned());
    direct->removeAttr(tile::attr::kTensorCopy);
    lowerCopy(direct);
    direct.erase();
  }
  b.setInsertionPoint(byTensorCopy.thenBlock()->getTerminator());
  auto asyncProxyBarrier = [&]() {
    gpu::BarrierOp::create(b, loc)->setAttr(tile::attr::kAsyncProxyOrder,
                                            b.getUnitAttr());
  };
  const tile::FragmentLayout &layout = fragment(write.getSource())->layout;
  SmallVector<int64_t> blocks = *slotColumnBlocks(layout, staging.chunkCols);
  int64_t chunks = memrefType(tile).getShape()[1] / staging.chunkCols;
  SmallVector<Value> origin(store.getDestIndices());
  Value firstCol = origin.back();
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    // Chunk j goes to buffer j % count once the store that last read it
    // (count stores back; the tile's chunks are a multiple of count) has.
    inThread(b, loc, tid, 0, [&](OpBuilder &b) {
      target.tensorStoreWait(b, loc, /*readsOnly=*/true, staging.count - 1);
    });
    asyncProxyBarrier();
    Value buffer = stageView(b, loc, staging.buffers,
                             indexConst(b, loc, chunk % staging.count));
    writeFragmentRuns(b, loc, write, buffer, chunk * staging.chunkCols,
                      [&](int64_t slot) { return blocks[slot] == chunk; });
    target.fenceSharedForMma(b, loc);
    asyncProxyBarrier();
    origin.back() = arith::AddIOp::create(
        b, loc, firstCol, indexConst(b, loc, chunk * staging.chunkCols));
    inThread(b, loc, tid, 0, [&](OpBuilder &b) {
      target.tensorStore(*this, b, loc, buffer, store.getDest(), origin);
    });
  }
  // The tiles must outlive the stores' reads: thread 0 waits for them
  // before the kernel ends.
  if (!tensorStoresDrained) {
    tensorStoresDrained = true;
    func.walk([&](gpu::ReturnOp ret) {
      OpBuilder end(ret);
      inThread(end, loc, tid, 0, [&](OpBuilder &b) {
        target.tensorStoreWait(b, loc, /*readsOnly=*/false, 0);
      });
    });
  }
}

//===----------------------------------------------------------------------===//
// parallel
//===----------------------------------------------------------------------===//

/// Loads in `body` that read back what one of `stores` (memref.stores
/// directly in `body`) wrote earlier in the same iteration, at the same
/// indices, with no other write to that memref in between: each mapped to
/// the stored value.
static llvm::DenseMap<Operation *, Value>
storedValuesReadBack(Block &body, ArrayRef<Operation *> stores) {
  llvm::DenseMap<Operation *, Value> result;
  llvm::DenseMap<Value, memref::StoreOp> lastStore; // per memref
  for (Operation &op : body.without_terminator()) {
    op.walk([&](Operation *inner) {
      if (auto load = llvm::dyn_cast<memref::LoadOp>(inner)) {
        memref::StoreOp store = lastStore.lookup(load.getMemRef());
        if (store && store.getIndices() == load.getIndices())
          result[load] = store.getValue();
        return;
      }
      if (auto store = llvm::dyn_cast<memref::StoreOp>(inner)) {
        bool tracked = store->getBlock() == &body &&
                       llvm::is_contained(stores, store.getOperation());
        lastStore[store.getMemRef()] = tracked ? store : memref::StoreOp();
      } else if (inner->getNumRegions() == 0 &&
                 !llvm::isa<memref::LoadOp>(inner) &&
                 !isMemoryEffectFree(inner)) {
        lastStore.clear(); // an atomic or a call: anything may change
      }
    });
  }
  return result;
}

/// Puts `write` (a store or atomic of one iteration that several threads
/// run) under `once`, with the values only it uses: the other threads then
/// neither compute nor read them. When the iteration still reads the
/// written shared tile before (a read-modify-write whose old value the
/// other threads keep), a barrier orders those reads before the write; it
/// goes where every thread passes, in the iteration's own block.
static void guardWrite(Operation *write, Value once, Block *iteration) {
  scf::IfOp guard = guardOp(write, once);
  Block *then = guard.thenBlock();
  SmallVector<Operation *> worklist{write};
  while (!worklist.empty()) {
    Operation *user = worklist.pop_back_val();
    for (Value operand : user->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != guard->getBlock() ||
          def->getNumRegions() != 0 ||
          !(isMemoryEffectFree(def) || llvm::isa<memref::LoadOp>(def)) ||
          !llvm::all_of(def->getUsers(), [&](Operation *u) {
            return guard->isProperAncestor(u);
          }))
        continue;
      def->moveBefore(&then->front());
      worklist.push_back(def);
    }
  }
  auto store = llvm::dyn_cast<memref::StoreOp>(write);
  if (!store || !isWorkgroup(store.getMemRef()) ||
      guard->getBlock() != iteration)
    return;
  bool readBefore = false;
  for (Operation *op = guard->getPrevNode(); op && !readBefore;
       op = op->getPrevNode())
    op->walk([&](memref::LoadOp load) {
      readBefore |= load.getMemRef() == store.getMemRef();
    });
  if (readBefore) {
    OpBuilder b(guard);
    gpu::BarrierOp::create(b, guard.getLoc());
  }
}

void KernelLowering::lowerParallel(tile::ParallelOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  tile::ParallelPlan plan = tile::planParallel(op);
  Distribution dist;
  const RegisterFragment *anchor =
      plan.kind == tile::ParallelPlan::Owned ? fragment(plan.anchor) : nullptr;
  if (anchor) {
    dist.kind = Distribution::Owned;
    dist.layout = &anchor->layout;
  } else {
    dist.kind = plan.kind == tile::ParallelPlan::Redundant
                    ? Distribution::Redundant
                    : Distribution::Strided;
  }
  // Register-fragment accesses and the loop dimensions they use.
  SmallVector<std::pair<Operation *, SmallVector<int64_t>>> accesses;
  op.walk([&](Operation *inner) {
    std::optional<tile::ElementAccess> access = tile::getElementAccess(inner);
    if (access && fragment(access->memref))
      accesses.push_back({inner, *tile::loopIndexDims(access->indices, body)});
  });
  // Stores and atomics that other threads see (global tensors, shared
  // tiles) happen once per iteration: when several threads run it (replicas
  // of the anchor, or all of them for a body that writes a local tile), the
  // first one performs them; otherwise `t[i] += x` on a shared tile would
  // add once per replica. The others use a stored value directly where the
  // iteration reads it back.
  SmallVector<Operation *> sharedWrites;
  op.walk([&](Operation *inner) {
    auto store = llvm::dyn_cast<memref::StoreOp>(inner);
    if (writesGlobalTensor(inner) || (store && isWorkgroup(store.getMemRef())))
      sharedWrites.push_back(inner);
  });
  Value once;
  if (!sharedWrites.empty() && dist.kind == Distribution::Owned)
    once = dist.layout->isFirstReplica(b, loc, tid);
  else if (!sharedWrites.empty() && dist.kind == Distribution::Redundant)
    once = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                 indexConst(b, loc, 0));
  llvm::DenseMap<Operation *, Value> readBack;
  if (once)
    readBack = storedValuesReadBack(body, sharedWrites);
  forEachElement(b, loc, op.getShape(), dist,
                 [&](OpBuilder &b, ValueRange index, int64_t slot) {
                   IRMapping map;
                   map.map(body.getArguments(), index);
                   for (Operation &inner : body.without_terminator())
                     b.clone(inner, map);
                   if (once) {
                     for (auto &[load, value] : readBack)
                       map.lookup(load)->getResult(0).replaceAllUsesWith(
                           map.lookupOrDefault(value));
                     Block *iteration = b.getInsertionBlock();
                     for (Operation *write : sharedWrites)
                       guardWrite(map.lookup(write), once, iteration);
                   }
                   for (auto &[orig, dims] : accesses) {
                     Operation *copy = map.lookup(orig);
                     const RegisterFragment *f =
                         fragment(tile::getElementAccess(orig)->memref);
                     int64_t s = dims.size() == body.getNumArguments()
                                     ? slot
                                     : dist.layout->projectedSlot(dims, slot);
                     OpBuilder rb(copy);
                     Value slotIndex = indexConst(rb, loc, s);
                     if (auto load = llvm::dyn_cast<memref::LoadOp>(copy)) {
                       Value v =
                           memref::LoadOp::create(rb, loc, f->slots, slotIndex);
                       load.getResult().replaceAllUsesWith(v);
                     } else {
                       memref::StoreOp::create(rb, loc, copy->getOperand(0),
                                               f->slots, slotIndex);
                     }
                     copy->erase();
                   }
                 });
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

void KernelLowering::lowerReduce(tile::ReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  int64_t dim = op.getDim();
  Type acc = memrefType(dst).getElementType();
  tile::ReduceCombiner c{op.getKind(), llvm::isa<FloatType>(acc)};
  auto srcShape = memrefType(src).getShape();
  auto dstShape = memrefType(dst).getShape();
  auto prepared = [&](OpBuilder &b, Value v) {
    return c.prepare(b, loc, tile::castElements(b, loc, v, acc));
  };
  auto finish = [&](OpBuilder &b, Value result, ValueRange index,
                    int64_t slot) {
    if (!op.getClear())
      result = c.combine(b, loc, loadElement(b, loc, *this, dst, index, slot),
                         result);
    storeElement(b, loc, *this, result, dst, index, slot);
  };

  const RegisterFragment *srcFrag = fragment(src);
  if (!srcFrag) {
    // The source is in memory: each writer of a result element reads the
    // whole reduced line.
    forEachElement(
        b, loc, dstShape, writerOf(dst),
        [&](OpBuilder &b, ValueRange index, int64_t slot) {
          Value identity = c.identity(b, loc, acc);
          auto loop = countedLoop(b, loc, srcShape[dim], ValueRange{identity});
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(loop.getBody());
            // (A rank-1 source reduces into a [1] tile: its index is not
            // part of the source's.)
            SmallVector<Value> full;
            if (srcShape.size() > 1)
              full.assign(index.begin(), index.end());
            full.insert(full.begin() + dim, loop.getInductionVar());
            Value v = prepared(b, memref::LoadOp::create(b, loc, src, full));
            scf::YieldOp::create(
                b, loc, c.combine(b, loc, loop.getRegionIterArgs()[0], v));
          }
          finish(b, loop.getResult(0), index, slot);
        });
    return;
  }

  // 1. Registers: combine the slots that hold the same result element.
  const FragmentLayout &layout = srcFrag->layout;
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < layout.rank; ++d)
    if (d != dim)
      kept.push_back(d);
  FragmentLayout result = layout.project(kept);
  SmallVector<Value> partial(result.numSlots());
  for (int64_t s = 0, e = layout.numSlots(); s < e; ++s) {
    int64_t r = layout.projectedSlot(kept, s);
    Value v = prepared(b, memref::LoadOp::create(b, loc, srcFrag->slots,
                                                 indexConst(b, loc, s)));
    partial[r] = partial[r] ? c.combine(b, loc, partial[r], v) : v;
  }
  // 2. Lanes: butterfly over the lane bits of the reduced dimension. A
  // thread factor wider than a warp is reduced within each warp first; its
  // warp-level digit (the thread digit divided by `perWarp`) is left to 3.
  struct AcrossWarps {
    unsigned factor;
    int64_t perWarp; // consecutive digits of the factor already combined
  };
  SmallVector<AcrossWarps> acrossWarps;
  int64_t warp = target.warpSize();
  for (unsigned f = 0; f < layout.factors.size(); ++f) {
    const tile::LayoutFactor &fac = layout.factors[f];
    if (fac.dim != dim || !fac.isThread())
      continue;
    // Shuffles need whole warps and power-of-two lane strides.
    bool lanes = threads % warp == 0 && fac.threadStride < warp &&
                 llvm::isPowerOf2_64(fac.extent) &&
                 llvm::isPowerOf2_64(fac.threadStride);
    if (!lanes) {
      acrossWarps.push_back({f, 1});
      continue;
    }
    int64_t perWarp = std::min(fac.extent, warp / fac.threadStride);
    for (int64_t off = fac.threadStride; off < fac.threadStride * perWarp;
         off *= 2)
      for (Value &p : partial)
        p = c.combine(b, loc, p, target.shuffleXor(b, loc, p, off));
    if (perWarp < fac.extent)
      acrossWarps.push_back({f, perWarp});
  }
  // 3. Other threads (warps): through shared scratch, one row of result
  // elements per digit combination of the remaining factors.
  if (!acrossWarps.empty()) {
    int64_t groups = 1;
    Value group = indexConst(b, loc, 0);
    for (auto [f, perWarp] : acrossWarps) {
      int64_t extent = layout.factors[f].extent / perWarp;
      Value digit = layout.threadDigit(b, loc, tid, f);
      if (perWarp != 1)
        digit =
            arith::DivUIOp::create(b, loc, digit, indexConst(b, loc, perWarp));
      group = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, group, indexConst(b, loc, extent)),
          digit);
      groups *= extent;
    }
    int64_t elems = product(dstShape);
    Value buf = scratch(b, loc, acc, groups * elems);
    SmallVector<Value> linear(partial.size());
    for (size_t r = 0; r < partial.size(); ++r) {
      SmallVector<Value> index = result.elementIndex(b, loc, tid, r);
      Value lin = indexConst(b, loc, 0);
      for (size_t d = 0; d < index.size(); ++d)
        lin = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, lin, indexConst(b, loc, dstShape[d])),
            index[d]);
      linear[r] = lin;
      Value at = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, group, indexConst(b, loc, elems)), lin);
      memref::StoreOp::create(b, loc, partial[r], buf, at);
    }
    gpu::BarrierOp::create(b, loc);
    for (size_t r = 0; r < partial.size(); ++r) {
      Value total;
      for (int64_t g = 0; g < groups; ++g) {
        Value at = arith::AddIOp::create(b, loc, indexConst(b, loc, g * elems),
                                         linear[r]);
        Value v = memref::LoadOp::create(b, loc, buf, at);
        total = total ? c.combine(b, loc, total, v) : v;
      }
      partial[r] = total;
    }
    gpu::BarrierOp::create(b, loc);
  }
  // 4. Results: into the destination's registers (every replica keeps its
  // copy) or memory (one replica reads, combines and writes each element).
  Value guard = fragment(dst) ? Value() : result.isFirstReplica(b, loc, tid);
  buildIf(b, loc, guard, [&](OpBuilder &b) {
    for (size_t r = 0; r < partial.size(); ++r) {
      SmallVector<Value> index = fragment(dst)
                                     ? SmallVector<Value>()
                                     : result.elementIndex(b, loc, tid, r);
      // A rank-1 source reduces to the one element of a [1] tile.
      if (!fragment(dst) && index.empty())
        index.push_back(indexConst(b, loc, 0));
      finish(b, partial[r], index, r);
    }
  });
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

void KernelLowering::lowerGemm(tile::GemmOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value A = op.getA(), B = op.getB(), C = op.getC();
  Type acc = memrefType(C).getElementType();
  bool isFloat = llvm::isa<FloatType>(acc);
  int64_t K = op.getTransposeA() ? memrefType(A).getShape()[0]
                                 : memrefType(A).getShape()[1];
  auto load = [&](OpBuilder &b, Value tile, Value i, Value j) -> Value {
    return memref::LoadOp::create(b, loc, tile,
                                  sharedPosition(b, loc, tile, {i, j}));
  };
  auto loadA = [&](OpBuilder &b, Value i, Value k) {
    Value v = op.getTransposeA() ? load(b, A, k, i) : load(b, A, i, k);
    return tile::castElements(b, loc, v, acc);
  };
  auto loadB = [&](OpBuilder &b, Value k, Value j) {
    Value v = op.getTransposeB() ? load(b, B, j, k) : load(b, B, k, j);
    return tile::castElements(b, loc, v, acc);
  };
  auto fma = [&](OpBuilder &b, Value a, Value x, Value sum) -> Value {
    if (isFloat)
      return math::FmaOp::create(b, loc, a, x, sum);
    return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, a, x),
                                 sum);
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(acc));

  if (const RegisterFragment *cf = fragment(C)) {
    if (succeeded(target.lowerMmaGemm(*this, op)))
      return;
    // A gemm MmaWaits counted as an asynchronous group but run on FMAs
    // completes the older groups, so that the waits placed for them cannot
    // count one group too many.
    if (op->hasAttr(tile::attr::kMmaWaitDeferred))
      target.mmaWait(b, loc, 0);
    // Each thread keeps its accumulators in registers across the K loop and
    // reads the rows of A and columns of B it needs from memory.
    const FragmentLayout &layout = cf->layout;
    int64_t slots = layout.numSlots();
    SmallVector<SmallVector<Value>> index;
    SmallVector<int64_t> rowKey, colKey;
    for (int64_t s = 0; s < slots; ++s) {
      index.push_back(layout.elementIndex(b, loc, tid, s));
      int64_t key[2] = {0, 0};
      for (unsigned f = 0; f < layout.factors.size(); ++f)
        if (!layout.factors[f].isThread() && layout.factors[f].dim >= 0)
          key[layout.factors[f].dim] +=
              layout.slotDigit(f, s) * layout.elementStride(f);
      rowKey.push_back(key[0]);
      colKey.push_back(key[1]);
    }
    SmallVector<Value> init;
    for (int64_t s = 0; s < slots; ++s)
      init.push_back(op.getClear()
                         ? zero
                         : memref::LoadOp::create(b, loc, cf->slots,
                                                  indexConst(b, loc, s)));
    auto loop = countedLoop(b, loc, K, init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k = loop.getInductionVar();
      llvm::DenseMap<int64_t, Value> rows, cols;
      SmallVector<Value> next;
      for (int64_t s = 0; s < slots; ++s) {
        Value &a = rows[rowKey[s]];
        if (!a)
          a = loadA(b, index[s][0], k);
        Value &x = cols[colKey[s]];
        if (!x)
          x = loadB(b, k, index[s][1]);
        next.push_back(fma(b, a, x, loop.getRegionIterArgs()[s]));
      }
      scf::YieldOp::create(b, loc, next);
    }
    for (int64_t s = 0; s < slots; ++s)
      memref::StoreOp::create(b, loc, loop.getResult(s), cf->slots,
                              indexConst(b, loc, s));
    return;
  }

  // C in memory: each writer of an element computes its dot product.
  forEachElement(
      b, loc, memrefType(C).getShape(), writerOf(C),
      [&](OpBuilder &b, ValueRange index, int64_t slot) {
        Value start =
            op.getClear() ? zero : loadElement(b, loc, *this, C, index, slot);
        auto loop = countedLoop(b, loc, K, ValueRange{start});
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(loop.getBody());
          Value k = loop.getInductionVar();
          scf::YieldOp::create(b, loc,
                               fma(b, loadA(b, index[0], k),
                                   loadB(b, k, index[1]),
                                   loop.getRegionIterArgs()[0]));
        }
        storeElement(b, loc, *this, loop.getResult(0), C, index, slot);
      });
}

//===----------------------------------------------------------------------===//
// atomic_add
//===----------------------------------------------------------------------===//

/// dst[pos] += v, atomically.
static void addAtomically(OpBuilder &b, Location loc, Value v, Value dst,
                          ValueRange pos) {
  memref::AtomicRMWOp::create(b, loc,
                              llvm::isa<FloatType>(v.getType())
                                  ? arith::AtomicRMWKind::addf
                                  : arith::AtomicRMWKind::addi,
                              v, dst, pos);
}

LogicalResult
KernelLowering::lowerFragmentVectorAtomicAdd(tile::AtomicAddOp op,
                                             const RegisterFragment &f) {
  Value src = op.getSource(), dst = op.getDest();
  Type elem = memrefType(dst).getElementType();
  int64_t maxWidth = target.vectorAtomicAddWidth(elem);
  auto [run, runFactor] = innerRun(f.layout);
  if (maxWidth < 2 || run < 2)
    return failure();
  int64_t width = std::gcd(run, maxWidth);
  if (width < 2)
    return failure();
  const tile::FragmentLayout &layout = f.layout;
  int64_t slotStep = layout.factors[runFactor].slotStride;
  int64_t rank = memrefType(dst).getRank();
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;

  OpBuilder b(op);
  Location loc = op.getLoc();
  WindowMap window =
      WindowMap::trailing(dst, op.getDestIndices(), memrefType(src).getRank());
  Value aligned = windowAligned(b, loc, dst, op.getDestIndices(), width);
  Value innerSize = memref::DimOp::create(b, loc, dst, rank - 1);
  Value view = viewByteAddress(b, loc, dst, elemBytes, /*readOnly=*/false);
  auto strides =
      memref::ExtractStridedMetadataOp::create(b, loc, dst).getStrides();
  auto byteAddress = [&](OpBuilder &b, ValueRange pos) -> Value {
    Value linear = indexConst(b, loc, 0);
    for (int64_t d = 0; d < rank; ++d)
      linear = arith::AddIOp::create(
          b, loc, linear, arith::MulIOp::create(b, loc, pos[d], strides[d]));
    Value bytes = arith::AddIOp::create(
        b, loc, view,
        arith::MulIOp::create(b, loc, linear, indexConst(b, loc, elemBytes)));
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), bytes);
  };
  // Each element is added once: by the first replica of its thread.
  Value guard = layout.isFirstReplica(b, loc, tid);
  auto slotValue = [&](OpBuilder &b, int64_t slot) {
    return tile::castElements(
        b, loc,
        memref::LoadOp::create(b, loc, f.slots, indexConst(b, loc, slot)),
        elem);
  };
  auto whole = [&](OpBuilder &b, int64_t s, ValueRange pos) {
    SmallVector<Value> values;
    for (int64_t l = 0; l < width; ++l)
      values.push_back(slotValue(b, s + l * slotStep));
    target.vectorAtomicAdd(b, loc, byteAddress(b, pos), values);
  };
  auto element = [&](OpBuilder &b, int64_t slot, ValueRange p, Value ok) {
    buildIf(b, loc, ok, [&](OpBuilder &b) {
      addAtomically(b, loc, slotValue(b, slot), dst, p);
    });
  };
  buildIf(b, loc, guard, [&](OpBuilder &b) {
    forEachFragmentRun(b, loc, layout, tid, runFactor, width, window, aligned,
                       innerSize, whole, element);
  });
  return success();
}

void KernelLowering::lowerAtomicAdd(tile::AtomicAddOp op) {
  if (const RegisterFragment *f = fragment(op.getSource()))
    if (succeeded(lowerFragmentVectorAtomicAdd(op, *f)))
      return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getSource(), dst = op.getDest();
  Type elem = llvm::cast<MemRefType>(dst.getType()).getElementType();
  WindowMap window =
      WindowMap::trailing(dst, op.getDestIndices(), memrefType(src).getRank());
  Distribution dist;
  if (const RegisterFragment *f = fragment(src)) {
    dist.kind = Distribution::Owned;
    dist.layout = &f->layout;
    dist.firstReplicaOnly = true; // each element is added once
  } else if (isLocal(src)) {
    dist.kind = Distribution::Redundant;
    dist.threadZeroOnly = true;
  }
  forEachElement(b, loc, memrefType(src).getShape(), dist,
                 [&](OpBuilder &b, ValueRange index, int64_t slot) {
                   Value v = tile::castElements(
                       b, loc, loadElement(b, loc, *this, src, index, slot),
                       elem);
                   auto [pos, valid] = windowElement(b, loc, window, index);
                   buildIf(b, loc, valid, [&, pos = pos](OpBuilder &b) {
                     addAtomically(b, loc, v, dst, pos);
                   });
                 });
}
