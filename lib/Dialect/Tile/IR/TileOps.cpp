//===- TileOps.cpp - Verifiers and builders of tile ops
//--------------------===//
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tlc::tile;

#define GET_OP_CLASSES
#include "tlc/Dialect/Tile/IR/TileOps.cpp.inc"

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}

LogicalResult AllocOp::verify() {
  if (!getScope(getType()))
    return emitOpError("result must be in a #tile.scope memory space");
  if (!getType().getLayout().isIdentity())
    return emitOpError("result must have the identity layout");
  return success();
}

/// Checks that `window` (a memref indexed by `numIndices` values) can hold a
/// window of `tileShape` over its trailing dimensions.
static LogicalResult verifyWindow(Operation *op, MemRefType window,
                                  size_t numIndices,
                                  ArrayRef<int64_t> tileShape, StringRef what) {
  if (numIndices != (size_t)window.getRank())
    return op->emitOpError() << what << " takes " << window.getRank()
                             << " indices, got " << numIndices;
  if (tileShape.size() > (size_t)window.getRank())
    return op->emitOpError()
           << "tile of rank " << tileShape.size() << " does not fit in " << what
           << " of rank " << window.getRank();
  return success();
}

ArrayRef<int64_t> CopyOp::getTileShape() {
  if (!getSourceIndices().empty())
    return getDest().getType().getShape();
  return getSource().getType().getShape();
}

Value CopyOp::getWindow() {
  if (!getSourceIndices().empty())
    return getSource();
  if (!getDestIndices().empty())
    return getDest();
  return Value();
}

ValueRange CopyOp::getWindowOrigin() {
  return getSourceIndices().empty() ? getDestIndices() : getSourceIndices();
}

SmallVector<Value> CopyOp::getGatherPerDim() {
  Value window = getWindow();
  SmallVector<Value> perDim(
      window ? llvm::cast<MemRefType>(window.getType()).getRank() : 0);
  if (auto dims = getGatherDims())
    for (auto [d, g] : llvm::zip(*dims, getGathers()))
      perDim[d] = g;
  return perDim;
}

SmallVector<int64_t> tlc::tile::trailingWindowDims(int64_t rank,
                                                   int64_t tileRank) {
  SmallVector<int64_t> tileDims(rank, -1);
  for (int64_t d = rank - tileRank; d < rank; ++d)
    tileDims[d] = d - (rank - tileRank);
  return tileDims;
}

SmallVector<int64_t> CopyOp::getWindowTileDims() {
  Value window = getWindow();
  if (!window)
    return {};
  int64_t rank = llvm::cast<MemRefType>(window.getType()).getRank();
  int64_t tileRank = getTileShape().size();
  if (getGathers().empty())
    return trailingWindowDims(rank, tileRank);
  SmallVector<int64_t> tileDims(rank, -1);
  SmallVector<Value> gathers = getGatherPerDim();
  int64_t next = 0, gathered = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!gathers[d])
      tileDims[d] = next++;
    else if (gathered >= 0)
      tileDims[d] = gathered;
    else
      tileDims[d] = gathered = next++;
  }
  return tileDims;
}

LogicalResult CopyOp::verify() {
  MemRefType src = getSource().getType(), dst = getDest().getType();
  bool srcIdx = !getSourceIndices().empty(), dstIdx = !getDestIndices().empty();
  if (srcIdx && dstIdx)
    return emitOpError("at most one side of a copy can be indexed");
  if (!getGathers().empty()) {
    auto dims = getGatherDims();
    if (!srcIdx && !dstIdx)
      return emitOpError("a gather needs a window");
    MemRefType window = srcIdx ? src : dst;
    MemRefType tile = srcIdx ? dst : src;
    int64_t rank = window.getRank();
    if (!dims || dims->size() != getGathers().size())
      return emitOpError("needs one gather_dims entry per index tile");
    for (auto [i, d] : llvm::enumerate(*dims))
      if (d < 0 || d >= rank - 1 || (i && d <= (*dims)[i - 1]))
        return emitOpError("gather_dims must be increasing dimensions of the "
                           "window before its last");
    if (!tile.hasStaticShape() ||
        tile.getRank() != rank - (int64_t)dims->size() + 1)
      return emitOpError() << "a gather window of rank " << rank << " with "
                           << dims->size() << " index tiles needs a tile of "
                           << "rank " << rank - (int64_t)dims->size() + 1;
    SmallVector<int64_t> tileDims = getWindowTileDims();
    for (auto [d, g] : llvm::zip(*dims, getGathers())) {
      auto type = llvm::cast<MemRefType>(g.getType());
      if (type.getRank() != 1 || !type.getElementType().isInteger() ||
          type.getDimSize(0) != tile.getDimSize(tileDims[d]))
        return emitOpError() << "index tile of dimension " << d
                             << " must be a rank-1 integer tile of "
                             << tile.getDimSize(tileDims[d]) << " elements";
    }
    if ((int64_t)getWindowOrigin().size() != rank)
      return emitOpError() << "window takes " << rank << " indices";
    return success();
  }
  if (getGatherDims())
    return emitOpError("gather_dims without index tiles");
  if (srcIdx) {
    if (!dst.hasStaticShape())
      return emitOpError("destination tile must have a static shape");
    return verifyWindow(*this, src, getSourceIndices().size(), dst.getShape(),
                        "source");
  }
  if (dstIdx) {
    if (!src.hasStaticShape())
      return emitOpError("source tile must have a static shape");
    return verifyWindow(*this, dst, getDestIndices().size(), src.getShape(),
                        "destination");
  }
  if (!src.hasStaticShape() || !dst.hasStaticShape())
    return emitOpError("an un-indexed copy needs static shapes on both sides");
  if (src.getShape() != dst.getShape())
    return emitOpError() << "shape mismatch: " << shapeStr(src.getShape())
                         << " vs " << shapeStr(dst.getShape());
  return success();
}

LogicalResult FillOp::verify() {
  if (getValue().getType() != getDest().getType().getElementType())
    return emitOpError("value type must match the tile's element type");
  return success();
}

LogicalResult GemmOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be rank-2 tiles");
  int64_t m = a.getDimSize(getTransposeA() ? 1 : 0);
  int64_t ka = a.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kb = b.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = b.getDimSize(getTransposeB() ? 0 : 1);
  if (ka != kb)
    return emitOpError() << "reduction dimensions differ: " << ka << " vs "
                         << kb;
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "accumulator shape " << shapeStr(c.getShape())
                         << " does not match the product shape [" << m << ", "
                         << n << "]";
  if (a.getElementType() != b.getElementType())
    return emitOpError("A and B must have the same element type");
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSource().getType(), dst = getDest().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError() << "dim " << dim << " out of range for rank "
                         << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "destination shape " << shapeStr(dst.getShape())
                         << " must be " << shapeStr(expected);
  return success();
}

LogicalResult AtomicAddOp::verify() {
  return verifyWindow(*this, getDest().getType(), getDestIndices().size(),
                      getSource().getType().getShape(), "destination");
}

/// Checks an element access: `tensor` is a global tensor (no tile scope)
/// indexed with one value per dimension, and `value` (if any) has its
/// element type.
static LogicalResult verifyElementAccess(Operation *op, MemRefType tensor,
                                         size_t numIndices, Type value) {
  if (getScope(tensor))
    return op->emitOpError("needs a global tensor, not a tile");
  if (numIndices != (size_t)tensor.getRank())
    return op->emitOpError() << "tensor of rank " << tensor.getRank()
                             << " takes as many indices, got " << numIndices;
  if (value && value != tensor.getElementType())
    return op->emitOpError()
           << "value of type " << value << " does not match the element type "
           << tensor.getElementType();
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyElementAccess(*this, getTensor().getType(), getIndices().size(),
                             getResult().getType());
}

LogicalResult StoreOp::verify() {
  return verifyElementAccess(*this, getTensor().getType(), getIndices().size(),
                             getValue().getType());
}

LogicalResult AtomicOp::verify() {
  Type elem = getTensor().getType().getElementType();
  if (getKind() == ReduceKind::absmax)
    return emitOpError("absmax has no atomic form");
  if (!llvm::isa<FloatType>(elem) &&
      !(llvm::isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() >= 32))
    return emitOpError() << "atomics need a float or a 32/64-bit integer "
                            "element type, got "
                         << elem;
  return verifyElementAccess(*this, getTensor().getType(), getIndices().size(),
                             getValue().getType());
}

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> shape) {
  state.addAttribute(getShapeAttrName(state.name),
                     builder.getDenseI64ArrayAttr(shape));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < shape.size(); ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

LogicalResult ParallelOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getShape().size())
    return emitOpError("needs one index argument per dimension");
  for (BlockArgument arg : block.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError("index arguments must have index type");
  for (int64_t d : getShape())
    if (d <= 0)
      return emitOpError("extents must be positive");
  return success();
}
