//===- PrepareSPIRV.cpp - tile-vulkan-prepare-spirv -----------------------===//
//
// SPIR-V for Vulkan has logical addressing: no pointers to pass, no casts
// between pointer types, no memory reinterpreted with another element type.
// The GPU lowering's kernels take bare pointers, view them through
// reinterpret_cast/subview with dynamic strides, and carve every shared
// tile out of one buffer of bytes. This pass rewrites each kernel into the
// Vulkan ABI (docs/vulkan.md) and flat memory that convert-gpu-to-spirv
// can lower:
//  - tensor argument i becomes a runtime array (memref<?xT>) bound at
//    descriptor set 0, binding i (a storage buffer);
//  - the scalar arguments become 32-bit words of one push-constant block:
//    first the element offset of each tensor inside its binding (bindings
//    start at aligned offsets), then one word per scalar argument (sizes
//    and strides included);
//  - every memref access goes to a 1-D memref with an explicit linear index
//    (offset + sum of index * stride), through views followed back to
//    their root; vector loads and stores become scalar ones;
//  - the shared tiles become one workgroup array per element type, and
//    register arrays (memref.alloca) Function-storage arrays;
//  - bf16 data is stored as i16 (SPIR-V has no bf16), f8 as i8, and elementwise
//  ops
//    on vectors wider than SPIR-V's 4 lanes work lane by lane.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"

#include <limits>
#include <map>

namespace tlc {
#define GEN_PASS_DEF_TILEVULKANPREPARESPIRV
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

/// The API in messages: Metal's kernels are this SPIR-V too.
llvm::StringRef apiName(tile::TargetAttr target) {
  return target.getVendor() == "metal" ? "Metal" : "Vulkan";
}

/// A memref value seen as a window of a 1-D root: element (i0, i1, ...)
/// is root[offset + i0 * strides[0] + i1 * strides[1] + ...].
struct FlatView {
  Value root;
  Value offset;
  SmallVector<Value> sizes, strides;
  /// Where the memref's base pointer is in `root` (a binding's first
  /// element): reinterpret_cast offsets and strided-metadata offsets count
  /// from it.
  Value base;
};

class KernelRewriter {
public:
  KernelRewriter(gpu::GPUFuncOp func, tile::TargetAttr target)
      : func(func), target(target), b(func.getContext()) {}

  LogicalResult run() {
    if (failed(rewriteSignature()))
      return failure();
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      if (failed(visit(op)))
        return failure();
    // Views and the old roots, users first.
    for (Operation *op : llvm::reverse(dead)) {
      if (!op->use_empty())
        return op->emitError("tile-vulkan-prepare-spirv: a view is still "
                             "used after flattening");
      op->erase();
    }
    llvm::BitVector original(func.getNumArguments());
    original.set(0, originalArgs);
    for (unsigned i = 0; i < originalArgs; ++i)
      if (!func.getArgument(i).use_empty())
        return func.emitError("tile-vulkan-prepare-spirv: argument ")
               << i << " is still used";
    (void)func.eraseArguments(original);
    return checkWorkgroupBytes();
  }

private:
  gpu::GPUFuncOp func;
  tile::TargetAttr target;
  OpBuilder b;
  llvm::DenseMap<Value, FlatView> views;
  SmallVector<Operation *> dead;
  /// One workgroup array per element type: the elements [first, end) of
  /// the shared bytes seen as that type that the kernel's views cover, and
  /// the views' start constants (element indices, made relative to `first`
  /// once every view is known).
  struct WorkgroupArray {
    memref::AllocOp alloc;
    int64_t first = std::numeric_limits<int64_t>::max(), end = 0;
    SmallVector<arith::ConstantIndexOp> starts;
  };
  llvm::MapVector<Type, WorkgroupArray> workgroup;
  /// The kernel's arguments before the rewrite (the first ones).
  unsigned originalArgs = 0;

  Value index(Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value value(Location loc, OpFoldResult r) {
    if (auto v = llvm::dyn_cast<Value>(r))
      return v;
    return index(loc, llvm::cast<IntegerAttr>(llvm::cast<Attribute>(r))
                          .getValue()
                          .getSExtValue());
  }
  /// What an element of `type` is stored as: bf16 as its 16 bits (SPIR-V
  /// has no bf16 without SPV_KHR_bfloat16; arith's bf16 expansion turns
  /// the conversions into integer ops on those bits).
  /// bf16 is stored as i16; an `index` (an untyped `var`) as i32, the
  /// width of indices in the SPIR-V lowering.
  static Type storageType(Type type) {
    if (type.isBF16())
      return IntegerType::get(type.getContext(), 16);
    if (tile::isF8Type(type)) // bytes; tile-expand-f8 converts them
      return IntegerType::get(type.getContext(), 8);
    if (type.isIndex())
      return IntegerType::get(type.getContext(), 32);
    return type;
  }
  /// Loads element `at` of `root` as a value of `type`.
  Value loadElement(Location loc, Value root, Value at, Type type) {
    Value v = memref::LoadOp::create(b, loc, root, ValueRange{at});
    if (v.getType() == type)
      return v;
    if (type.isIndex())
      return arith::IndexCastOp::create(b, loc, type, v);
    return arith::BitcastOp::create(b, loc, type, v);
  }
  void storeElement(Location loc, Value v, Value root, Value at) {
    Type stored = llvm::cast<MemRefType>(root.getType()).getElementType();
    if (v.getType().isIndex())
      v = arith::IndexCastOp::create(b, loc, stored, v);
    else if (v.getType() != stored)
      v = arith::BitcastOp::create(b, loc, stored, v);
    memref::StoreOp::create(b, loc, v, root, ValueRange{at});
  }

  Value add(Location loc, Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value mul(Location loc, Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y);
  }

  /// Row-major strides and sizes of a static shape.
  void staticLayout(Location loc, MemRefType type, FlatView &view) {
    int64_t stride = 1;
    SmallVector<Value> strides(type.getRank());
    for (int64_t d = type.getRank(); d-- > 0;) {
      strides[d] = index(loc, stride);
      stride *= type.getDimSize(d);
    }
    view.strides = strides;
    for (int64_t d = 0; d < type.getRank(); ++d)
      view.sizes.push_back(index(loc, type.getDimSize(d)));
  }

  Value appendArgument(Type type) {
    unsigned at = func.getNumArguments();
    (void)func.insertArgument(at, type, DictionaryAttr(), func.getLoc());
    return func.getArgument(at);
  }

  /// Tensors -> storage buffers, scalars -> words of the push constants.
  LogicalResult rewriteSignature() {
    MLIRContext *ctx = func.getContext();
    Location loc = func.getLoc();
    Block &entry = func.getBody().front();
    unsigned numArgs = func.getNumArguments();
    SmallVector<unsigned> tensors, scalars;
    for (unsigned i = 0; i < numArgs; ++i) {
      Type type = func.getArgument(i).getType();
      if (llvm::isa<MemRefType>(type)) {
        tensors.push_back(i);
        continue;
      }
      // (tlc rejects f16 and bf16 scalars before any target.)
      if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() > 64 ||
          (llvm::isa<FloatType>(type) && !type.isF32()))
        return func.emitError("kernel argument ")
               << i << " of type " << type << " is not supported on "
               << apiName(target)
               << " (push-constant words hold "
                  "32-bit integers and f32)";
      scalars.push_back(i);
    }
    int64_t words = tensors.size() + scalars.size();
    auto pushType = MemRefType::get(
        {std::max<int64_t>(words, 1)}, b.getI32Type(),
        MemRefLayoutAttrInterface(),
        spirv::StorageClassAttr::get(ctx, spirv::StorageClass::PushConstant));
    b.setInsertionPointToStart(&entry);
    Value push = appendArgument(pushType);
    auto word = [&](int64_t w) -> Value {
      return memref::LoadOp::create(b, loc, push, ValueRange{index(loc, w)});
    };

    // Tensors: new runtime-array arguments, views of their bindings.
    for (auto [binding, i] : llvm::enumerate(tensors)) {
      BlockArgument old = func.getArgument(i);
      auto oldType = llvm::cast<MemRefType>(old.getType());
      auto newType = MemRefType::get({ShapedType::kDynamic},
                                     storageType(oldType.getElementType()));
      Value root = appendArgument(newType);
      Value offset =
          arith::IndexCastOp::create(b, loc, b.getIndexType(), word(binding));
      views[old] = FlatView{root, offset, {}, {}, offset};
    }
    // Scalars: loaded from their word, converted back to their type.
    for (auto [n, i] : llvm::enumerate(scalars)) {
      BlockArgument old = func.getArgument(i);
      Type type = old.getType();
      Value v = word(tensors.size() + n);
      unsigned bits = type.getIntOrFloatBitWidth();
      if (type.isF32()) {
        v = arith::BitcastOp::create(b, loc, type, v);
      } else if (bits > 32) {
        // Sizes and strides (i64 in tile) mostly become indices: cast the
        // word itself, so that the shader needs no Int64 (an optional
        // Vulkan feature, and MSL before 2.2 has no 64-bit integers).
        Value asIndex;
        for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
          auto cast = llvm::dyn_cast<arith::IndexCastOp>(use.getOwner());
          if (!cast)
            continue;
          if (!asIndex)
            asIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
          cast.replaceAllUsesWith(asIndex);
          cast.erase();
        }
        if (old.use_empty())
          continue;
        v = arith::ExtSIOp::create(b, loc, type, v);
      } else if (bits < 32)
        v = arith::TruncIOp::create(b, loc, type, v);
      old.replaceAllUsesWith(v);
    }
    // The original arguments go once the views of the tensors are gone.
    originalArgs = numArgs;

    // The ABI: binding t for tensor t. The push constants' argument gets an
    // ABI attribute too (spirv-lower-abi-attrs needs one); the vulkan target
    // strips the binding it implies.
    unsigned pushArg = numArgs;
    func.setArgAttr(
        pushArg, spirv::getInterfaceVarABIAttrName(),
        spirv::getInterfaceVarABIAttr(0, tensors.size(), std::nullopt, ctx));
    for (unsigned t = 0; t < tensors.size(); ++t)
      func.setArgAttr(pushArg + 1 + t, spirv::getInterfaceVarABIAttrName(),
                      spirv::getInterfaceVarABIAttr(0, t, std::nullopt, ctx));
    return success();
  }

private:
  const FlatView *lookup(Value memref) {
    auto it = views.find(memref);
    return it == views.end() ? nullptr : &it->second;
  }

  Value linear(Location loc, const FlatView &view, ValueRange indices) {
    Value at = view.offset;
    for (auto [i, stride] : llvm::zip(indices, view.strides))
      at = add(loc, at, mul(loc, i, stride));
    return at;
  }

  /// The value of an index computed from constants by add() and mul().
  static std::optional<int64_t> constantIndex(Value v) {
    if (auto c = getConstantIntValue(v))
      return c;
    Operation *op = v.getDefiningOp();
    if (!op || !llvm::isa<arith::AddIOp, arith::MulIOp>(op))
      return std::nullopt;
    auto x = constantIndex(op->getOperand(0)),
         y = constantIndex(op->getOperand(1));
    if (!x || !y)
      return std::nullopt;
    return llvm::isa<arith::AddIOp>(op) ? *x + *y : *x * *y;
  }

  /// A cooperative matrix's rows are `lead` elements apart in the flat
  /// array: the view's rows must be (a static stride) and its columns
  /// adjacent (rank 1: the op's own stride).
  LogicalResult checkLeadDimension(Operation *op, const FlatView &view,
                                   const llvm::APInt &lead) {
    auto stride = [&](size_t d) { return constantIndex(view.strides[d]); };
    size_t rank = view.strides.size();
    if (rank == 1 ||
        (rank == 2 && stride(1) == 1 && stride(0) == lead.getSExtValue()))
      return success();
    return op->emitError("tile-vulkan-prepare-spirv: a cooperative matrix "
                         "access whose rows are not leadDimension elements "
                         "apart in its view");
  }

  /// The workgroup array for `type` (created at the kernel's start), made
  /// to hold the elements [start, end) of the shared bytes; `startIndex`
  /// (the constant `start`) is rebased with the array.
  Value workgroupArray(Type elementType, int64_t start, int64_t end,
                       arith::ConstantIndexOp startIndex) {
    Type type = storageType(elementType);
    WorkgroupArray &array = workgroup[type];
    array.first = std::min(array.first, start);
    array.end = std::max(array.end, end);
    array.starts.push_back(startIndex);
    auto &alloc = array.alloc;
    if (!alloc) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&func.getBody().front());
      auto space = spirv::StorageClassAttr::get(func.getContext(),
                                                spirv::StorageClass::Workgroup);
      alloc = memref::AllocOp::create(
          b, func.getLoc(),
          MemRefType::get({1}, type, MemRefLayoutAttrInterface(), space));
    }
    return alloc;
  }

  LogicalResult checkWorkgroupBytes() {
    int64_t bytes = 0;
    for (auto &[type, array] : workgroup) {
      // Each type's array holds its own tiles only: the shared bytes before
      // its first tile (other types' tiles) are not repeated in it.
      for (arith::ConstantIndexOp start : array.starts)
        start.setValueAttr(b.getIndexAttr(start.value() - array.first));
      auto &alloc = array.alloc;
      int64_t length = array.end - array.first;
      auto memrefType = alloc.getType();
      alloc.getResult().setType(MemRefType::get({length}, type,
                                                MemRefLayoutAttrInterface(),
                                                memrefType.getMemorySpace()));
      bytes += length * ((type.getIntOrFloatBitWidth() + 7) / 8);
    }
    if (bytes > target.getMaxSharedBytes())
      return func.emitError("kernel needs ")
             << bytes << " bytes of workgroup memory on " << apiName(target)
             << " (shared "
             << "tiles of different element types cannot share memory "
                "there); "
             << target.getArch() << " allows " << target.getMaxSharedBytes()
             << ": use smaller shared tiles";
    return success();
  }

  LogicalResult visit(Operation *op) {
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    if (auto alloca = llvm::dyn_cast<memref::AllocaOp>(op)) {
      MemRefType type = alloca.getType();
      if (!type.hasStaticShape())
        return op->emitError("tile-vulkan-prepare-spirv: dynamic alloca");
      auto space = spirv::StorageClassAttr::get(op->getContext(),
                                                spirv::StorageClass::Function);
      Value root = memref::AllocaOp::create(
          b, loc,
          MemRefType::get({type.getNumElements()},
                          storageType(type.getElementType()),
                          MemRefLayoutAttrInterface(), space));
      FlatView view{root, index(loc, 0), {}, {}, index(loc, 0)};
      staticLayout(loc, type, view);
      views[alloca] = view;
      dead.push_back(op);
      return success();
    }
    if (llvm::isa<gpu::DynamicSharedMemoryOp>(op)) {
      dead.push_back(op);
      return success();
    }
    if (auto viewOp = llvm::dyn_cast<memref::ViewOp>(op)) {
      MemRefType type = viewOp.getType();
      auto shift = getConstantIntValue(viewOp.getByteShift());
      int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
      if (!viewOp.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>() ||
          !type.hasStaticShape() || !shift || *shift % elementBytes)
        return op->emitError("tile-vulkan-prepare-spirv: unsupported view");
      int64_t start = *shift / elementBytes;
      auto startIndex = arith::ConstantIndexOp::create(b, loc, start);
      Value root = workgroupArray(type.getElementType(), start,
                                  start + type.getNumElements(), startIndex);
      FlatView view{root, startIndex, {}, {}, startIndex};
      staticLayout(loc, type, view);
      views[viewOp] = view;
      dead.push_back(op);
      return success();
    }
    if (auto cast = llvm::dyn_cast<memref::ReinterpretCastOp>(op)) {
      const FlatView *src = lookup(cast.getSource());
      if (!src)
        return op->emitError("tile-vulkan-prepare-spirv: unknown view root");
      // The cast's offset counts from the source's base pointer.
      FlatView view{src->root, src->base, {}, {}, src->base};
      for (OpFoldResult o : cast.getMixedOffsets())
        view.offset = add(loc, view.offset, value(loc, o));
      for (OpFoldResult s : cast.getMixedSizes())
        view.sizes.push_back(value(loc, s));
      for (OpFoldResult s : cast.getMixedStrides())
        view.strides.push_back(value(loc, s));
      views[cast] = view;
      dead.push_back(op);
      return success();
    }
    if (auto cast = llvm::dyn_cast<memref::CastOp>(op)) {
      const FlatView *src = lookup(cast.getSource());
      if (!src)
        return success();
      // A copy first: inserting into `views` may move what `src` points to.
      FlatView view = *src;
      views[cast] = std::move(view);
      dead.push_back(op);
      return success();
    }
    if (auto sub = llvm::dyn_cast<memref::SubViewOp>(op)) {
      const FlatView *srcPtr = lookup(sub.getSource());
      if (!srcPtr)
        return op->emitError("tile-vulkan-prepare-spirv: unknown view root");
      FlatView src = *srcPtr;
      FlatView view{src.root, src.offset, {}, {}, src.base};
      llvm::SmallBitVector dropped = sub.getDroppedDims();
      auto offsets = sub.getMixedOffsets();
      auto sizes = sub.getMixedSizes();
      auto steps = sub.getMixedStrides();
      for (unsigned d = 0; d < offsets.size(); ++d) {
        view.offset = add(loc, view.offset,
                          mul(loc, value(loc, offsets[d]), src.strides[d]));
        if (dropped.test(d))
          continue;
        view.sizes.push_back(value(loc, sizes[d]));
        view.strides.push_back(mul(loc, value(loc, steps[d]), src.strides[d]));
      }
      views[sub] = view;
      dead.push_back(op);
      return success();
    }
    if (auto meta = llvm::dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      const FlatView *view = lookup(meta.getSource());
      if (!view)
        return success();
      if (!meta.getBaseBuffer().use_empty())
        return op->emitError(
            "tile-vulkan-prepare-spirv: the base buffer of a view is used");
      meta.getOffset().replaceAllUsesWith(
          arith::SubIOp::create(b, loc, view->offset, view->base));
      for (auto [r, v] : llvm::zip(meta.getSizes(), view->sizes))
        r.replaceAllUsesWith(v);
      for (auto [r, v] : llvm::zip(meta.getStrides(), view->strides))
        r.replaceAllUsesWith(v);
      dead.push_back(op);
      return success();
    }
    if (auto dim = llvm::dyn_cast<memref::DimOp>(op)) {
      const FlatView *view = lookup(dim.getSource());
      auto d = dim.getConstantIndex();
      if (!view)
        return success();
      if (!d || *d >= static_cast<int64_t>(view->sizes.size()))
        return op->emitError("tile-vulkan-prepare-spirv: dynamic dim index");
      dim.replaceAllUsesWith(view->sizes[*d]);
      dead.push_back(op);
      return success();
    }
    if (auto ptr = llvm::dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      // Used to test vector alignment; the accesses here are scalar, so
      // the element offset (in bytes) is as good as an address.
      const FlatView *view = lookup(ptr.getSource());
      if (!view)
        return success();
      auto type = llvm::cast<MemRefType>(ptr.getSource().getType());
      int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
      ptr.replaceAllUsesWith(mul(loc, view->offset, index(loc, bytes)));
      dead.push_back(op);
      return success();
    }
    if (auto load = llvm::dyn_cast<memref::LoadOp>(op)) {
      const FlatView *view = lookup(load.getMemRef());
      if (!view)
        return success();
      Value at = linear(loc, *view, load.getIndices());
      load.replaceAllUsesWith(loadElement(loc, view->root, at, load.getType()));
      dead.push_back(op);
      return success();
    }
    if (auto store = llvm::dyn_cast<memref::StoreOp>(op)) {
      const FlatView *view = lookup(store.getMemRef());
      if (!view)
        return success();
      Value at = linear(loc, *view, store.getIndices());
      storeElement(loc, store.getValue(), view->root, at);
      dead.push_back(op);
      return success();
    }
    if (auto rmw = llvm::dyn_cast<memref::AtomicRMWOp>(op)) {
      // SPIR-V has integer atomic max/min only (float ones need
      // SPV_EXT_shader_atomic_float_min_max, which few devices have).
      if (rmw.getKind() == arith::AtomicRMWKind::maximumf ||
          rmw.getKind() == arith::AtomicRMWKind::minimumf)
        return op->emitError("atomic_max and atomic_min of floats are not "
                             "supported on Vulkan yet; use an i32 tensor");
      const FlatView *view = lookup(rmw.getMemref());
      if (!view)
        return success();
      Value at = linear(loc, *view, rmw.getIndices());
      rmw.replaceAllUsesWith(
          memref::AtomicRMWOp::create(b, loc, rmw.getKind(), rmw.getValue(),
                                      view->root, ValueRange{at})
              .getResult());
      dead.push_back(op);
      return success();
    }
    if (auto load = llvm::dyn_cast<vector::LoadOp>(op)) {
      const FlatView *view = lookup(load.getBase());
      if (!view)
        return success();
      VectorType type = load.getVectorType();
      if (type.getRank() != 1)
        return op->emitError("tile-vulkan-prepare-spirv: vector load of rank ")
               << type.getRank();
      Value at = linear(loc, *view, load.getIndices());
      SmallVector<Value> elements;
      for (int64_t e = 0; e < type.getNumElements(); ++e)
        elements.push_back(loadElement(loc, view->root,
                                       add(loc, at, index(loc, e)),
                                       type.getElementType()));
      load.replaceAllUsesWith(
          vector::FromElementsOp::create(b, loc, type, elements).getResult());
      dead.push_back(op);
      return success();
    }
    if (auto store = llvm::dyn_cast<vector::StoreOp>(op)) {
      const FlatView *view = lookup(store.getBase());
      if (!view)
        return success();
      VectorType type = store.getVectorType();
      if (type.getRank() != 1)
        return op->emitError("tile-vulkan-prepare-spirv: vector store of rank ")
               << type.getRank();
      Value at = linear(loc, *view, store.getIndices());
      for (int64_t e = 0; e < type.getNumElements(); ++e) {
        Value element =
            vector::ExtractOp::create(b, loc, store.getValueToStore(), e);
        storeElement(loc, element, view->root, add(loc, at, index(loc, e)));
      }
      dead.push_back(op);
      return success();
    }
    // Cooperative matrices load from and store to rows of a view whose
    // column stride is 1: the row stride is the op's leadDimension.
    if (auto load = llvm::dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(op)) {
      const FlatView *view = lookup(load.getSrcMemref());
      if (!view)
        return success();
      if (failed(checkLeadDimension(op, *view, load.getLeadDimension())))
        return failure();
      Value at = linear(loc, *view, load.getIndices());
      load.replaceAllUsesWith(gpu::SubgroupMmaLoadMatrixOp::create(
                                  b, loc, load.getType(), view->root,
                                  ValueRange{at}, load.getLeadDimensionAttr(),
                                  load.getTransposeAttr())
                                  .getResult());
      dead.push_back(op);
      return success();
    }
    if (auto store = llvm::dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op)) {
      const FlatView *view = lookup(store.getDstMemref());
      if (!view)
        return success();
      if (failed(checkLeadDimension(op, *view, store.getLeadDimension())))
        return failure();
      Value at = linear(loc, *view, store.getIndices());
      gpu::SubgroupMmaStoreMatrixOp::create(
          b, loc, store.getSrc(), view->root, ValueRange{at},
          store.getLeadDimensionAttr(), store.getTransposeAttr());
      dead.push_back(op);
      return success();
    }
    // Anything else that reads a view would see the old memref.
    for (Value operand : op->getOperands())
      if (lookup(operand))
        return op->emitError("tile-vulkan-prepare-spirv: cannot flatten the "
                             "memory accesses of this op");
    return success();
  }
};

/// The SPIR-V environment the kernels are written for: Vulkan 1.2's
/// SPIR-V 1.5 with the capabilities tlc's kernels may use (spirv-update-vce
/// later keeps only what the module needs) and the -arch's subgroup size.
spirv::TargetEnvAttr targetEnvironment(MLIRContext *ctx,
                                       tile::TargetAttr target) {
  using spirv::Capability;
  using spirv::Extension;
  Capability caps[] = {Capability::Shader,
                       Capability::Int64,
                       Capability::Int16,
                       Capability::Int8,
                       Capability::Float16,
                       Capability::StorageBuffer16BitAccess,
                       Capability::StorageBuffer8BitAccess,
                       Capability::GroupNonUniform,
                       Capability::GroupNonUniformShuffle,
                       Capability::GroupNonUniformArithmetic,
                       Capability::GroupNonUniformBallot,
                       Capability::AtomicFloat32AddEXT};
  Extension exts[] = {Extension::SPV_KHR_storage_buffer_storage_class,
                      Extension::SPV_KHR_16bit_storage,
                      Extension::SPV_KHR_8bit_storage,
                      Extension::SPV_EXT_shader_atomic_float_add};
  SmallVector<Capability> capabilities(std::begin(caps), std::end(caps));
  SmallVector<Extension> extensions(std::begin(exts), std::end(exts));
  // Profiles with cooperative matrices (#tile.target's mma) are Vulkan 1.3
  // devices: MLIR's KHR cooperative-matrix ops need SPIR-V 1.6.
  spirv::Version version = spirv::Version::V_1_5;
  if (!target.getMma().empty()) {
    capabilities.push_back(Capability::CooperativeMatrixKHR);
    extensions.push_back(Extension::SPV_KHR_cooperative_matrix);
    version = spirv::Version::V_1_6;
  }
  auto triple =
      spirv::VerCapExtAttr::get(version, capabilities, extensions, ctx);
  auto limits = spirv::ResourceLimitsAttr::get(
      ctx, /*max_compute_shared_memory_size=*/target.getMaxSharedBytes(),
      /*max_compute_workgroup_invocations=*/target.getMaxThreads(),
      /*max_compute_workgroup_size=*/
      Builder(ctx).getI32ArrayAttr(
          {static_cast<int32_t>(target.getMaxThreads()), 1024, 64}),
      /*subgroup_size=*/target.getWarpSize(),
      /*min_subgroup_size=*/std::nullopt,
      /*max_subgroup_size=*/std::nullopt,
      /*cooperative_matrix_properties_khr=*/ArrayAttr(),
      /*cooperative_matrix_properties_nv=*/ArrayAttr());
  return spirv::TargetEnvAttr::get(
      triple, limits, spirv::ClientAPI::Vulkan, spirv::Vendor::Unknown,
      spirv::DeviceType::Unknown, spirv::TargetEnvAttr::kUnknownDeviceID);
}

/// SPIR-V vectors have 2, 3 or 4 lanes. The GPU lowering converts element
/// types of copies in vectors of up to 16 bytes (8 f16): elementwise ops
/// on wider vectors become one op per lane (a splat constant operand a
/// scalar one), an extract of a lane of a from_elements its element, and
/// unused wide vectors go.
LogicalResult scalarizeWideVectors(gpu::GPUFuncOp func) {
  constexpr int64_t kMaxLanes = 4;
  auto isWide = [](Type t) {
    auto v = llvm::dyn_cast<VectorType>(t);
    return v && v.getNumElements() > kMaxLanes;
  };
  SmallVector<Operation *> elementwise;
  func.walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
        isWide(op->getResult(0).getType()))
      elementwise.push_back(op);
  });
  OpBuilder b(func.getContext());
  for (Operation *op : elementwise) {
    b.setInsertionPoint(op);
    auto type = llvm::cast<VectorType>(op->getResult(0).getType());
    SmallVector<Value> lanes;
    for (int64_t lane = 0; lane < type.getNumElements(); ++lane) {
      SmallVector<Value> operands;
      for (Value v : op->getOperands()) {
        // A splat constant (f8 conversions have many) becomes a scalar one.
        DenseElementsAttr splat;
        if (auto c = v.getDefiningOp<arith::ConstantOp>())
          splat = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
        if (splat && splat.isSplat())
          operands.push_back(arith::ConstantOp::create(
              b, op->getLoc(), splat.getSplatValue<TypedAttr>()));
        else
          operands.push_back(
              llvm::isa<VectorType>(v.getType())
                  ? Value(vector::ExtractOp::create(b, op->getLoc(), v, lane))
                  : v);
      }
      OperationState state(op->getLoc(), op->getName());
      state.addOperands(operands);
      state.addTypes(type.getElementType());
      state.addAttributes(op->getAttrs());
      lanes.push_back(b.create(state)->getResult(0));
    }
    op->getResult(0).replaceAllUsesWith(
        vector::FromElementsOp::create(b, op->getLoc(), type, lanes));
    op->erase();
  }
  func.walk([&](vector::ExtractOp extract) {
    auto from = extract.getSource().getDefiningOp<vector::FromElementsOp>();
    auto position = extract.getStaticPosition();
    if (!from || position.size() != 1 || position[0] == ShapedType::kDynamic ||
        from.getType().getRank() != 1)
      return;
    extract.replaceAllUsesWith(from.getElements()[position[0]]);
    extract.erase();
  });
  SmallVector<Operation *> unused;
  func.walk([&](Operation *op) {
    if (llvm::isa<vector::FromElementsOp, arith::ConstantOp>(op) &&
        op->use_empty() && isWide(op->getResult(0).getType()))
      unused.push_back(op);
  });
  for (Operation *op : unused)
    op->erase();
  WalkResult left = func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (isWide(t))
        return op->emitError("tile-vulkan-prepare-spirv: a vector of ")
                   << llvm::cast<VectorType>(t).getNumElements()
                   << " lanes remains (SPIR-V has at most 4)",
               WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

/// Indices are 32-bit in the shader: an index widened to i64 only to become
/// a float (a row length as the divisor of a mean) is cast to i32 instead,
/// so that the shader needs no Int64.
void narrowIndexToFloatCasts(gpu::GPUFuncOp func) {
  OpBuilder b(func.getContext());
  SmallVector<arith::IndexCastOp> casts;
  func.walk([&](arith::IndexCastOp cast) {
    if (!cast.getType().isInteger(64) ||
        !llvm::isa<IndexType>(cast.getIn().getType()))
      return;
    if (llvm::all_of(cast->getUsers(), [](Operation *user) {
          return llvm::isa<arith::SIToFPOp>(user);
        }))
      casts.push_back(cast);
  });
  for (arith::IndexCastOp cast : casts) {
    b.setInsertionPoint(cast);
    Value narrow = arith::IndexCastOp::create(b, cast.getLoc(), b.getI32Type(),
                                              cast.getIn());
    for (Operation *user : llvm::make_early_inc_range(cast->getUsers())) {
      b.setInsertionPoint(user);
      auto convert = llvm::cast<arith::SIToFPOp>(user);
      Value converted = arith::SIToFPOp::create(b, convert.getLoc(),
                                                convert.getType(), narrow);
      convert.replaceAllUsesWith(converted);
      convert.erase();
    }
    cast.erase();
  }
}

/// Push constants are few (128 bytes on many devices): the block keeps only
/// the words the kernel reads, and tile.vulkan_push_words lists their
/// places in the ABI's list for the stub. On Vulkan, a block larger than
/// the 128 bytes every device has becomes a storage buffer at the binding
/// after the tensors (tile.vulkan_params_buffer).
void compactPushConstants(gpu::GPUFuncOp func, bool vulkan) {
  MLIRContext *ctx = func.getContext();
  // Dead code first: a size whose only use went with a folded view.
  (void)applyPatternsGreedily(func, RewritePatternSet(ctx));
  auto isPush = [](BlockArgument arg) {
    auto type = llvm::dyn_cast<MemRefType>(arg.getType());
    auto space = type ? llvm::dyn_cast_or_null<spirv::StorageClassAttr>(
                            type.getMemorySpace())
                      : nullptr;
    return space && space.getValue() == spirv::StorageClass::PushConstant;
  };
  auto found = llvm::find_if(func.getArguments(), isPush);
  assert(found != func.getArguments().end() && "no push-constant argument");
  BlockArgument push = *found;
  std::map<int64_t, SmallVector<memref::LoadOp>> loads;
  for (Operation *user : push.getUsers()) {
    auto load = llvm::cast<memref::LoadOp>(user);
    std::optional<int64_t> word = getConstantIntValue(load.getIndices()[0]);
    assert(word && "push-constant words are loaded at constant indices");
    loads[*word].push_back(load);
  }
  SmallVector<int32_t> used;
  OpBuilder b(ctx);
  for (auto &[word, users] : loads) {
    for (memref::LoadOp load : users) {
      b.setInsertionPoint(load);
      load.getIndicesMutable().assign(
          arith::ConstantIndexOp::create(b, load.getLoc(), used.size()));
    }
    used.push_back(static_cast<int32_t>(word));
  }
  auto oldType = llvm::cast<MemRefType>(push.getType());
  constexpr size_t kGuaranteedPushWords = 128 / 4;
  bool inBuffer = vulkan && used.size() > kGuaranteedPushWords;
  Attribute space = inBuffer ? spirv::StorageClassAttr::get(
                                   ctx, spirv::StorageClass::StorageBuffer)
                             : oldType.getMemorySpace();
  push.setType(MemRefType::get({std::max<int64_t>(used.size(), 1)},
                               oldType.getElementType(), oldType.getLayout(),
                               space));
  if (inBuffer)
    func->setAttr(tile::attr::kVulkanParamsBuffer, UnitAttr::get(ctx));
  SmallVector<Type> inputs(func.getBody().getArgumentTypes());
  func.setFunctionTypeAttr(
      TypeAttr::get(FunctionType::get(ctx, inputs, func.getResultTypes())));
  func->setAttr(tile::attr::kVulkanPushWords,
                DenseI32ArrayAttr::get(ctx, used));
}

struct TileVulkanPrepareSPIRV
    : public tlc::impl::TileVulkanPrepareSPIRVBase<TileVulkanPrepareSPIRV> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    tile::TargetAttr target = tile::getTarget(module);
    if (!target ||
        (target.getVendor() != "vulkan" && target.getVendor() != "metal")) {
      module.emitError() << "tile-vulkan-prepare-spirv needs a Vulkan target "
                            "description (#tile.target) on the module";
      return signalPassFailure();
    }
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      gpuModule->setAttr(spirv::getTargetEnvAttrName(),
                         targetEnvironment(module.getContext(), target));
      for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel())
          continue;
        // The SPIR-V environment declares no Float64 (not every Vulkan
        // device has it, lavapipe and Apple's do not).
        bool f64 = false;
        func.walk([&](Operation *op) {
          for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                                 op->getResultTypes()))
            f64 |= getElementTypeOrSelf(t).isF64();
        });
        if (f64) {
          func.emitError("f64 is not supported on ")
              << apiName(target) << "; use f32";
          return signalPassFailure();
        }
        KernelRewriter rewriter(func, target);
        if (failed(rewriter.run()) || failed(scalarizeWideVectors(func)))
          return signalPassFailure();
        narrowIndexToFloatCasts(func);
        compactPushConstants(func, target.getVendor() == "vulkan");
        auto threads = func->getAttrOfType<IntegerAttr>(tile::attr::kThreads);
        int32_t size = threads ? threads.getInt() : 1;
        func->setAttr(
            spirv::getEntryPointABIAttrName(),
            spirv::getEntryPointABIAttr(func.getContext(), {size, 1, 1}));
      }
    }
  }
};

} // namespace
