//===- SharedMemory.cpp - Placing shared tiles in shared memory -----------===//
#include "SharedMemory.h"
#include "KernelLowering.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

static int64_t elementBytes(Type t) {
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

SmallVector<int64_t>
gpu_lowering::sharedTileShape(MemRefType type, int64_t stages, bool padded) {
  SmallVector<int64_t> shape(type.getShape());
  int64_t bytes = elementBytes(type.getElementType());
  if (padded && type.getRank() >= 2 && (shape.back() * bytes) % 32 == 0)
    shape.back() += 16 / bytes;
  if (stages)
    shape.insert(shape.begin(), stages);
  return shape;
}

int64_t gpu_lowering::sharedTileBytes(MemRefType type, int64_t stages,
                                      int64_t swizzle) {
  return ShapedType::getNumElements(sharedTileShape(type, stages, !swizzle)) *
         elementBytes(type.getElementType());
}

std::pair<MemRefType, int64_t> gpu_lowering::sharedStorage(tile::AllocOp alloc,
                                                           int64_t stages) {
  MemRefType type = alloc.getType();
  auto staging =
      alloc->getAttrOfType<DenseI64ArrayAttr>(tile::attr::kStoreStaging);
  if (!staging)
    return {type, stages};
  return {MemRefType::get({type.getShape()[0], staging[0]},
                          type.getElementType(), type.getLayout(),
                          type.getMemorySpace()),
          staging[1]};
}

void gpu_lowering::swizzleMmaOperands(Operation *func,
                                      tile::TargetAttr target) {
  if (!target)
    return;
  auto kinds = tile::lookupMmaKinds(target.getMma());
  if (!kinds)
    return;
  func->walk([&](tile::GemmOp gemm) {
    const tile::MmaKind *kind = tile::accumulatorKind(gemm, *kinds);
    if (!kind)
      return;
    for (Value operand : {gemm.getA(), gemm.getB()})
      if (int64_t swizzle = kind->operandSwizzle(gemm, operand))
        operand.getDefiningOp()->setAttr(
            tile::attr::kSwizzle,
            IntegerAttr::get(IntegerType::get(func->getContext(), 64),
                             swizzle));
  });
}

SharedPlan
gpu_lowering::planSharedMemory(Block &entry,
                               const llvm::DenseMap<Value, int64_t> &stagesOf) {
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : entry)
    position[&op] = index++;
  struct Tile {
    Value value;
    int64_t bytes, alignment, first, last, offset = 0;
  };
  // A persistent kernel's body (walksTiles) runs again for the next tile
  // while the producer already fills the loop's buffers, so every tile is
  // live throughout.
  bool repeats = llvm::any_of(entry, [](Operation &op) {
    auto loop = llvm::dyn_cast<scf::ForOp>(op);
    return loop && walksTiles(loop);
  });
  SmallVector<Tile> tiles;
  SharedPlan plan;
  entry.getParentOp()->walk([&](tile::AllocOp alloc) {
    if (tile::getScope(alloc.getType()) != tile::MemScope::shared)
      return;
    auto swizzle = alloc->getAttrOfType<IntegerAttr>(tile::attr::kSwizzle);
    int64_t swizzleBytes = swizzle ? swizzle.getInt() : 0;
    plan.hasSwizzled |= swizzleBytes != 0;
    auto [type, buffers] =
        sharedStorage(alloc, stagesOf.lookup(alloc.getResult()));
    int64_t bytes = sharedTileBytes(type, buffers, swizzleBytes);
    Tile t{alloc.getResult(), bytes, swizzleBytes ? kSwizzleAlignment : 128,
           index, -1};
    for (Operation *user : alloc.getResult().getUsers()) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      int64_t at = top ? position.lookup(top) : 0;
      t.first = std::min(t.first, at);
      t.last = std::max(t.last, at);
    }
    if (repeats)
      t.first = 0, t.last = index;
    tiles.push_back(t);
  });
  llvm::stable_sort(
      tiles, [](const Tile &a, const Tile &b) { return a.bytes > b.bytes; });
  for (size_t i = 0; i < tiles.size(); ++i) {
    Tile &t = tiles[i];
    // Placed tiles that are live at the same time, by offset.
    SmallVector<const Tile *> live;
    for (size_t j = 0; j < i; ++j)
      if (tiles[j].first <= t.last && t.first <= tiles[j].last)
        live.push_back(&tiles[j]);
    llvm::sort(live, [](const Tile *a, const Tile *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (const Tile *other : live)
      if (offset + t.bytes > other->offset &&
          offset < other->offset + other->bytes)
        offset = llvm::alignTo(other->offset + other->bytes, t.alignment);
    t.offset = offset;
    plan.offsets[t.value] = offset;
    plan.bytes = std::max(plan.bytes, offset + t.bytes);
  }
  if (plan.hasSwizzled)
    plan.bytes += kSwizzleAlignment;
  return plan;
}
