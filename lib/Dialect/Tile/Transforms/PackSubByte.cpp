//===- PackSubByte.cpp - tile-pack-sub-byte -------------------------------===//
//
// u4/i4 tensors and tiles become byte memrefs holding two elements per byte
// (element 2c in the low nibble of byte c along the innermost dimension),
// so no target sees a 4-bit type:
// - kernel arguments and tiles: i4 memrefs -> i8 memrefs with half the
//   innermost size (the stub passes a packed tensor as its bytes);
// - copies move whole bytes: the innermost window origin is halved, which
//   needs it to be provably even (and fails with a located error if not);
// - element reads load the byte and shift the nibble down;
// - element writes happen in a `tile.parallel` over the packed tile at its
//   own indices: the parallel is halved along its innermost dimension and
//   each iteration computes both elements of a byte and stores the byte, so
//   no two iterations share a byte;
// - 4-bit scalar values become i8 values holding the nibble in their low
//   bits (upper bits zero); conversions from and to them are rewritten.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPACKSUBBYTE
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;

namespace {

bool isNibble(Type t) { return t.isInteger(4); }

bool isPackedMemRef(Type t) {
  auto m = llvm::dyn_cast<MemRefType>(t);
  return m && isNibble(m.getElementType());
}

/// `t` with bytes for elements: i8, the innermost size and the other
/// strides halved (static ones must be even).
FailureOr<MemRefType> packedType(MemRefType t) {
  Builder b(t.getContext());
  SmallVector<int64_t> shape(t.getShape());
  if (!shape.empty() && !ShapedType::isDynamic(shape.back())) {
    if (shape.back() % 2)
      return failure();
    shape.back() /= 2;
  }
  MemRefLayoutAttrInterface layout = t.getLayout();
  if (auto strided = llvm::dyn_cast<StridedLayoutAttr>(layout)) {
    SmallVector<int64_t> strides(strided.getStrides());
    for (size_t d = 0; d + 1 < strides.size(); ++d)
      if (!ShapedType::isDynamic(strides[d])) {
        if (strides[d] % 2)
          return failure();
        strides[d] /= 2;
      }
    int64_t offset = strided.getOffset();
    if (!ShapedType::isDynamic(offset)) {
      if (offset % 2)
        return failure();
      offset /= 2;
    }
    layout = StridedLayoutAttr::get(t.getContext(), offset, strides);
  } else if (!layout.isIdentity()) {
    return failure();
  }
  return MemRefType::get(shape, b.getI8Type(), layout, t.getMemorySpace());
}

/// Half of `v`, an index value, when it is provably even; null otherwise.
/// Products keep their form (`x * 64` becomes `x * 32`) so that the
/// alignment analyses of the lowerings still see the factor.
Value halve(OpBuilder &b, Location loc, Value v, int depth = 0) {
  if (depth > 16)
    return {};
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue() % 2
               ? Value()
               : arith::ConstantOp::create(
                     b, loc,
                     b.getIntegerAttr(v.getType(), c.getSExtValue() / 2))
                     .getResult();
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  if (auto mul = llvm::dyn_cast<arith::MulIOp>(def)) {
    if (Value h = halve(b, loc, mul.getRhs(), depth + 1))
      return arith::MulIOp::create(b, loc, mul.getLhs(), h);
    if (Value h = halve(b, loc, mul.getLhs(), depth + 1))
      return arith::MulIOp::create(b, loc, h, mul.getRhs());
    return {};
  }
  auto both = [&](Value x, Value y) -> std::pair<Value, Value> {
    Value hx = halve(b, loc, x, depth + 1);
    Value hy = hx ? halve(b, loc, y, depth + 1) : Value();
    return {hx, hy};
  };
  if (llvm::isa<arith::AddIOp, arith::SubIOp, arith::MaxSIOp, arith::MinSIOp>(
          def)) {
    auto [x, y] = both(def->getOperand(0), def->getOperand(1));
    if (!x || !y)
      return {};
    OperationState state(loc, def->getName(), ValueRange{x, y},
                         def->getResultTypes(), def->getAttrs());
    return b.create(state)->getResult(0);
  }
  // Integer arithmetic made an index (`c * 2` with `c: i32`).
  if (llvm::isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                arith::ExtUIOp>(def)) {
    Value h = halve(b, loc, def->getOperand(0), depth + 1);
    if (!h)
      return {};
    OperationState state(loc, def->getName(), ValueRange{h},
                         def->getResultTypes(), def->getAttrs());
    return b.create(state)->getResult(0);
  }
  if (auto sel = llvm::dyn_cast<arith::SelectOp>(def)) {
    auto [x, y] = both(sel.getTrueValue(), sel.getFalseValue());
    if (!x || !y)
      return {};
    return arith::SelectOp::create(b, loc, sel.getCondition(), x, y);
  }
  return {};
}

struct TilePackSubByte
    : public tlc::tile::impl::TilePackSubByteBase<TilePackSubByte> {
  using Base::Base;

  /// An error in the function being packed (its later steps stop); any
  /// function's error fails the pass, once every function was looked at.
  bool hadError = false;
  bool anyError = false;

  InFlightDiagnostic error(Operation *op, const Twine &message) {
    hadError = anyError = true;
    return op->emitError(message);
  }

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp fn) {
      hadError = false;
      if (!fn.isExternal())
        packFunction(fn);
    });
    if (anyError)
      signalPassFailure();
  }

  void packFunction(func::FuncOp fn) {
    if (!hasNibbles(fn))
      return;
    // 1. Memrefs: arguments, tiles, vars, subviews of them.
    Block &entry = fn.getBody().front();
    SmallVector<Type> argTypes(fn.getArgumentTypes());
    for (BlockArgument arg : entry.getArguments()) {
      if (!isPackedMemRef(arg.getType()))
        continue;
      auto t = llvm::cast<MemRefType>(arg.getType());
      FailureOr<MemRefType> bytes = packedType(t);
      if (failed(bytes)) {
        error(fn, "argument " + Twine(arg.getArgNumber()) +
                      " packs two 4-bit elements per byte: its innermost "
                      "size must be even, got " +
                      Twine(t.getShape().back()));
        return;
      }
      arg.setType(*bytes);
      argTypes[arg.getArgNumber()] = *bytes;
      packedValues.insert(arg);
    }
    fn.setType(
        FunctionType::get(fn.getContext(), argTypes, fn.getResultTypes()));
    forgetInnermostDims(fn);
    SmallVector<Operation *> memrefOps;
    fn.walk([&](Operation *op) {
      if (llvm::isa<tlc::tile::AllocOp, memref::AllocaOp, memref::SubViewOp,
                    memref::CastOp>(op) &&
          isPackedMemRef(op->getResult(0).getType()))
        memrefOps.push_back(op);
    });
    for (Operation *op : memrefOps)
      if (!llvm::isa<memref::SubViewOp, memref::CastOp>(op))
        packAlloc(op);
    // Innermost sizes count elements again before slices use them.
    SmallVector<memref::DimOp> dims;
    fn.walk([&](memref::DimOp dim) {
      if (packedValues.contains(dim.getSource()))
        dims.push_back(dim);
    });
    for (memref::DimOp dim : dims)
      rewriteUser(dim);
    // Slices (and the casts MLIRGen puts after a slice of constant extent),
    // in order: a cast follows its subview.
    for (Operation *op : memrefOps)
      if (auto sub = llvm::dyn_cast<memref::SubViewOp>(op))
        packSubView(sub);
      else if (auto cast = llvm::dyn_cast<memref::CastOp>(op))
        packCast(cast);
    if (hadError)
      return;

    // 2. What reads and writes them.
    SmallVector<Operation *> users;
    fn.walk([&](Operation *op) {
      if (llvm::is_contained(dims, llvm::dyn_cast<memref::DimOp>(op)))
        return; // done
      if (llvm::any_of(op->getOperands(), [&](Value v) {
            auto m = llvm::dyn_cast<MemRefType>(v.getType());
            return m && m.getElementType().isInteger(8) && isBytesOfNibbles(v);
          }))
        users.push_back(op);
    });
    SmallVector<tlc::tile::ParallelOp> writers;
    for (Operation *op : users) {
      if (auto par = op->getParentOfType<tlc::tile::ParallelOp>();
          par && llvm::isa<memref::StoreOp>(op) &&
          llvm::cast<memref::StoreOp>(op).getMemRefType().getRank() > 0) {
        if (!llvm::is_contained(writers, par))
          writers.push_back(par);
        continue;
      }
      rewriteUser(op);
    }
    for (tlc::tile::ParallelOp par : writers)
      pairParallel(par);
    if (hadError)
      return;

    // 3. 4-bit values as bytes.
    expandNibbleValues(fn);
  }

  /// A packed argument's innermost size counts bytes now: it is no longer
  /// a use of its symbolic dimension (tile.dims), which GPU kernels would
  /// otherwise read from it for every other use.
  void forgetInnermostDims(func::FuncOp fn) {
    auto dims = fn->getAttrOfType<DictionaryAttr>(tlc::tile::attr::kDims);
    if (!dims)
      return;
    Builder b(fn.getContext());
    SmallVector<NamedAttribute> kept;
    for (NamedAttribute dim : dims) {
      auto uses = llvm::dyn_cast<ArrayAttr>(dim.getValue());
      if (!uses) {
        kept.push_back(dim);
        continue;
      }
      SmallVector<Attribute> others;
      for (Attribute use : uses) {
        auto pair = llvm::dyn_cast<DenseI64ArrayAttr>(use);
        if (pair && pair.size() == 2 && pair[0] < fn.getNumArguments() &&
            packedValues.contains(fn.getArgument(pair[0])) &&
            pair[1] == llvm::cast<MemRefType>(fn.getArgument(pair[0]).getType())
                               .getRank() -
                           1)
          continue;
        others.push_back(use);
      }
      if (!others.empty())
        kept.push_back(b.getNamedAttr(dim.getName(), b.getArrayAttr(others)));
    }
    fn->setAttr(tlc::tile::attr::kDims, b.getDictionaryAttr(kept));
  }

  bool hasNibbles(func::FuncOp fn) {
    bool any = llvm::any_of(fn.getArgumentTypes(), isPackedMemRef);
    fn.walk([&](Operation *op) {
      any |= llvm::any_of(op->getResultTypes(), [](Type t) {
        return isNibble(t) || isPackedMemRef(t);
      });
    });
    return any;
  }

  /// Values converted in step 1 (their type no longer says it).
  llvm::DenseSet<Value> packedValues;
  bool isBytesOfNibbles(Value v) { return packedValues.contains(v); }

  void packAlloc(Operation *op) {
    Value result = op->getResult(0);
    auto t = llvm::cast<MemRefType>(result.getType());
    FailureOr<MemRefType> bytes =
        t.getRank() == 0 ? FailureOr<MemRefType>(MemRefType::get(
                               {}, IntegerType::get(t.getContext(), 8),
                               t.getLayout(), t.getMemorySpace()))
                         : packedType(t);
    if (failed(bytes)) {
      error(op, "a tile of 4-bit elements needs an even innermost size");
      return;
    }
    if (t.getRank() > 0)
      op->setAttr(tlc::tile::attr::kPacked, TypeAttr::get(t));
    result.setType(*bytes);
    packedValues.insert(result);
  }

  void packSubView(memref::SubViewOp sub) {
    // The source was converted before (walk order).
    if (!packedValues.contains(sub.getSource())) {
      error(sub, "a subview of 4-bit elements of an unexpected source");
      return;
    }
    OpBuilder b(sub);
    Location loc = sub.getLoc();
    auto halveFold = [&](OpFoldResult r) -> OpFoldResult {
      if (auto attr = llvm::dyn_cast<Attribute>(r)) {
        int64_t v = llvm::cast<IntegerAttr>(attr).getInt();
        return v % 2 ? OpFoldResult() : b.getIndexAttr(v / 2);
      }
      Value h = halve(b, loc, llvm::cast<Value>(r));
      return h ? OpFoldResult(h) : OpFoldResult();
    };
    SmallVector<OpFoldResult> offsets = sub.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = sub.getMixedSizes();
    SmallVector<OpFoldResult> strides = sub.getMixedStrides();
    OpFoldResult lastOffset = halveFold(offsets.back());
    OpFoldResult lastSize = halveFold(sizes.back());
    std::optional<int64_t> lastStride = getConstantIntValue(strides.back());
    FailureOr<MemRefType> type = packedType(sub.getType());
    if (!lastOffset || !lastSize || lastStride != 1 || failed(type)) {
      error(sub, "a slice of 4-bit elements must start at an even position "
                 "and have an even length (two elements per byte); tlc "
                 "cannot prove it here");
      return;
    }
    offsets.back() = lastOffset;
    sizes.back() = lastSize;
    auto bytes = memref::SubViewOp::create(b, loc, *type, sub.getSource(),
                                           offsets, sizes, strides);
    packedValues.insert(bytes);
    sub.replaceAllUsesWith(bytes.getResult());
    sub.erase();
  }

  void packCast(memref::CastOp cast) {
    FailureOr<MemRefType> type =
        packedType(llvm::cast<MemRefType>(cast.getType()));
    if (!packedValues.contains(cast.getSource()) || failed(type)) {
      error(cast, "a cast of 4-bit elements of an unexpected source");
      return;
    }
    cast.getResult().setType(*type);
    packedValues.insert(cast.getResult());
  }

  /// The byte holding element `index` (innermost), and the shift of its
  /// nibble (i8).
  std::pair<Value, Value> byteIndex(OpBuilder &b, Location loc, Value index) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    // Arithmetic shift: a negative index stays negative (outside).
    Value byte = arith::ShRSIOp::create(b, loc, index, one);
    Value odd = arith::AndIOp::create(b, loc, index, one);
    Value odd8 = arith::IndexCastOp::create(b, loc, b.getI8Type(), odd);
    Value shift = arith::ShLIOp::create(
        b, loc, odd8, arith::ConstantIntOp::create(b, loc, b.getI8Type(), 2));
    return {byte, shift};
  }

  /// The 4-bit value in `byte` at `shift` (0 or 4), as i4 (made a byte
  /// again by expandNibbleValues).
  Value nibbleOf(OpBuilder &b, Location loc, Value byte, Value shift) {
    Value down = arith::ShRUIOp::create(b, loc, byte, shift);
    return arith::TruncIOp::create(b, loc, b.getIntegerType(4), down);
  }

  void rewriteUser(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto dim = llvm::dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> d = dim.getConstantIndex();
      auto t = llvm::cast<MemRefType>(dim.getSource().getType());
      if (!d || *d != t.getRank() - 1)
        return;
      b.setInsertionPointAfter(dim);
      Value two = arith::ConstantIndexOp::create(b, loc, 2);
      auto elements = arith::MulIOp::create(b, loc, dim, two);
      dim.getResult().replaceAllUsesExcept(elements, elements.getOperation());
      return;
    }
    if (auto load = llvm::dyn_cast<memref::LoadOp>(op)) {
      if (load.getMemRefType().getRank() == 0) {
        auto byte = memref::LoadOp::create(b, loc, load.getMemRef());
        load.replaceAllUsesWith(
            arith::TruncIOp::create(b, loc, b.getIntegerType(4), byte)
                .getResult());
        load.erase();
        return;
      }
      SmallVector<Value> indices(load.getIndices());
      auto [byteAt, shift] = byteIndex(b, loc, indices.back());
      indices.back() = byteAt;
      auto byte = memref::LoadOp::create(b, loc, load.getMemRef(), indices);
      load.replaceAllUsesWith(nibbleOf(b, loc, byte, shift));
      load.erase();
      return;
    }
    if (auto load = llvm::dyn_cast<tlc::tile::LoadOp>(op)) {
      SmallVector<Value> indices(load.getIndices());
      auto [byteAt, shift] = byteIndex(b, loc, indices.back());
      indices.back() = byteAt;
      auto byte = tlc::tile::LoadOp::create(b, loc, load.getTensor(), indices);
      load.replaceAllUsesWith(nibbleOf(b, loc, byte, shift));
      load.erase();
      return;
    }
    if (auto store = llvm::dyn_cast<memref::StoreOp>(op)) {
      if (store.getMemRefType().getRank() == 0)
        return; // a var: expandNibbleValues stores its byte
      error(op, "an element of a 4-bit tile is written only in a parallel "
                "over that tile at its own indices (two elements share a "
                "byte)");
      return;
    }
    if (auto fill = llvm::dyn_cast<tlc::tile::FillOp>(op)) {
      // The nibble in both halves of every byte.
      Value v = arith::ExtUIOp::create(b, loc, b.getI8Type(), fill.getValue());
      Value high = arith::ShLIOp::create(
          b, loc, v, arith::ConstantIntOp::create(b, loc, b.getI8Type(), 4));
      Value byte = arith::OrIOp::create(b, loc, v, high);
      fill.getValueMutable().assign(byte);
      return;
    }
    if (auto copy = llvm::dyn_cast<tlc::tile::CopyOp>(op)) {
      MutableOperandRange origin = copy.getSourceIndices().empty()
                                       ? copy.getDestIndicesMutable()
                                       : copy.getSourceIndicesMutable();
      if (origin.empty())
        return; // whole tiles: bytes to bytes
      Value last = origin[origin.size() - 1].get();
      Value half = halve(b, loc, last);
      if (!half) {
        error(op, "a copy of 4-bit elements moves whole bytes: the "
                  "innermost window origin must be even, and tlc cannot "
                  "prove it is (write it as a multiple of 2, e.g. k * 64)");
        return;
      }
      origin[origin.size() - 1].set(half);
      return;
    }
    if (llvm::isa<memref::SubViewOp, memref::CastOp>(op))
      return; // converted in step 1
    error(op, "this operation does not take 4-bit elements");
  }

  /// `parallel (i, j) in T { T[i, j] = v(i, j) }` with T packed: one
  /// iteration per byte, computing the body for j = 2 jb and 2 jb + 1 and
  /// storing both nibbles at once.
  void pairParallel(tlc::tile::ParallelOp par) {
    Block &body = par.getBody().front();
    ArrayRef<int64_t> shape = par.getShape();
    auto ivs = body.getArguments();
    SmallVector<memref::StoreOp> stores;
    bool ok = !shape.empty() && shape.back() % 2 == 0;
    par.walk([&](memref::StoreOp s) {
      if (!isBytesOfNibbles(s.getMemRef()) || s.getMemRefType().getRank() == 0)
        return;
      bool own = s->getBlock() == &body &&
                 s.getIndices().size() == ivs.size() &&
                 llvm::all_of(
                     llvm::zip(s.getIndices(), ivs),
                     [](auto p) { return std::get<0>(p) == std::get<1>(p); }) &&
                 llvm::none_of(stores, [&](memref::StoreOp o) {
                   return o.getMemRef() == s.getMemRef();
                 });
      if (!own) {
        error(s, "an element of a 4-bit tile is written only in a parallel "
                 "over that tile at its own indices, once (two elements "
                 "share a byte)");
        ok = false;
        return;
      }
      stores.push_back(s);
    });
    if (!ok) {
      if (!hadError)
        error(par, "a parallel that writes 4-bit elements needs an even "
                   "innermost extent");
      return;
    }
    // Its writes land after both halves of a byte are computed: reading
    // the tile in the same parallel would see the old values.
    par.walk([&](memref::LoadOp load) {
      if (ok && llvm::any_of(stores, [&](memref::StoreOp st) {
            return st.getMemRef() == load.getMemRef();
          })) {
        error(load, "a parallel that writes a 4-bit tile cannot read it (two "
                    "elements share a byte); read it in another parallel");
        ok = false;
      }
    });
    if (!ok)
      return;
    OpBuilder b(par);
    Location loc = par.getLoc();
    SmallVector<int64_t> halfShape(shape);
    halfShape.back() /= 2;
    auto paired = tlc::tile::ParallelOp::create(b, loc, halfShape);
    Block &pairedBody = paired.getBody().front();
    b.setInsertionPointToStart(&pairedBody);
    Value jb = pairedBody.getArguments().back();
    Value two = arith::ConstantIndexOp::create(b, loc, 2);
    Value jEven = arith::MulIOp::create(b, loc, jb, two);
    Value jOdd = arith::AddIOp::create(
        b, loc, jEven, arith::ConstantIndexOp::create(b, loc, 1));
    SmallVector<SmallVector<Value>> nibbles(stores.size());
    for (Value j : {jEven, jOdd}) {
      IRMapping map;
      for (size_t d = 0; d + 1 < ivs.size(); ++d)
        map.map(ivs[d], pairedBody.getArgument(d));
      map.map(ivs.back(), j);
      for (Operation &op : body.without_terminator()) {
        auto it = llvm::find(stores, llvm::dyn_cast<memref::StoreOp>(&op));
        if (it != stores.end()) {
          nibbles[it - stores.begin()].push_back(
              map.lookupOrDefault(it->getValueToStore()));
          continue;
        }
        b.clone(op, map);
      }
    }
    Type i8 = b.getI8Type();
    for (size_t s = 0; s < stores.size(); ++s) {
      Value low = arith::ExtUIOp::create(b, loc, i8, nibbles[s][0]);
      Value high = arith::ShLIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, i8, nibbles[s][1]),
          arith::ConstantIntOp::create(b, loc, i8, 4));
      Value byte = arith::OrIOp::create(b, loc, low, high);
      SmallVector<Value> indices(pairedBody.getArguments());
      memref::StoreOp::create(b, loc, byte, stores[s].getMemRef(), indices);
    }
    par.erase();
  }

  //===--- 4-bit values ---------------------------------------------------===//

  /// Replaces every i4 value by an i8 holding it in its low 4 bits (upper
  /// bits zero).
  void expandNibbleValues(func::FuncOp fn) {
    IRMapping bytes;
    SmallVector<Operation *> dead;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      bool touches = llvm::any_of(op->getOperandTypes(), isNibble) ||
                     llvm::any_of(op->getResultTypes(), isNibble);
      if (!touches)
        return;
      OpBuilder b(op);
      if (auto s = llvm::dyn_cast<memref::StoreOp>(op)) { // vars
        s.getValueMutable().assign(bytes.lookupOrDefault(s.getValueToStore()));
        return;
      }
      if (Value r = expandNibbleOp(b, op, bytes)) {
        if (isNibble(op->getResult(0).getType()))
          bytes.map(op->getResult(0), r);
        else
          op->getResult(0).replaceAllUsesWith(r);
        dead.push_back(op);
      } else if (!hadError) {
        error(op, "this operation does not take 4-bit values (tlc computes "
                  "them in i32)");
      }
    });
    if (hadError)
      return;
    for (Operation *op : llvm::reverse(dead))
      op->erase();
  }

  /// The replacement of `op` (its result as a byte if it was i4), or null.
  Value expandNibbleOp(OpBuilder &b, Operation *op, IRMapping &bytes) {
    Location loc = op->getLoc();
    // 4-bit operands come from ops this pass rewrote (not, say, block
    // arguments, which nothing in tlc makes 4-bit).
    for (Value v : op->getOperands())
      if (isNibble(v.getType()) && !bytes.contains(v))
        return {};
    Type i8 = b.getI8Type();
    auto byteOf = [&](Value v) { return bytes.lookupOrDefault(v); };
    auto mask = [&](Value v) {
      return arith::AndIOp::create(b, loc, v,
                                   arith::ConstantIntOp::create(b, loc, i8, 15))
          .getResult();
    };
    // The nibble sign-extended within its byte.
    auto signedByte = [&](Value v) {
      Value four = arith::ConstantIntOp::create(b, loc, i8, 4);
      return arith::ShRSIOp::create(
                 b, loc, arith::ShLIOp::create(b, loc, byteOf(v), four), four)
          .getResult();
    };
    auto widen = [&](Value v, Type to, bool isSigned) -> Value {
      if (to == i8)
        return v;
      if (isSigned)
        return arith::ExtSIOp::create(b, loc, to, v);
      return arith::ExtUIOp::create(b, loc, to, v);
    };
    if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
      int64_t v = llvm::cast<IntegerAttr>(c.getValue()).getInt() & 15;
      return arith::ConstantIntOp::create(b, loc, i8, v);
    }
    if (auto t = llvm::dyn_cast<arith::TruncIOp>(op)) {
      if (isNibble(t.getIn().getType())) // a nibble's own bits
        return byteOf(t.getIn());
      Value in = t.getIn();
      if (in.getType() != i8)
        in = arith::TruncIOp::create(b, loc, i8, in);
      return mask(in);
    }
    // Extensions to a nibble (a bool's 0/1 or 0/-1), then from one.
    if (llvm::isa<arith::ExtUIOp, arith::ExtSIOp>(op) &&
        isNibble(op->getResult(0).getType())) {
      Value in = op->getOperand(0);
      Value wide = llvm::isa<arith::ExtSIOp>(op)
                       ? arith::ExtSIOp::create(b, loc, i8, in).getResult()
                       : arith::ExtUIOp::create(b, loc, i8, in).getResult();
      return mask(wide);
    }
    if (auto e = llvm::dyn_cast<arith::ExtUIOp>(op))
      return widen(byteOf(e.getIn()), e.getType(), false);
    if (auto e = llvm::dyn_cast<arith::ExtSIOp>(op))
      return widen(signedByte(e.getIn()), e.getType(), true);
    // Arithmetic and bit operations in 4 bits (compound assignments): the
    // low bits of the bytes' result.
    if (llvm::isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
                  arith::OrIOp, arith::XOrIOp>(op)) {
      OperationState state(
          loc, op->getName(),
          ValueRange{byteOf(op->getOperand(0)), byteOf(op->getOperand(1))},
          TypeRange{i8});
      return mask(b.create(state)->getResult(0));
    }
    if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op)) {
      bool isSigned = llvm::is_contained(
          {arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
           arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge},
          cmp.getPredicate());
      Value l = isSigned ? signedByte(cmp.getLhs()) : byteOf(cmp.getLhs());
      Value r = isSigned ? signedByte(cmp.getRhs()) : byteOf(cmp.getRhs());
      return arith::CmpIOp::create(b, loc, cmp.getPredicate(), l, r);
    }
    if (auto c = llvm::dyn_cast<arith::UIToFPOp>(op))
      return arith::UIToFPOp::create(b, loc, c.getType(), byteOf(c.getIn()));
    if (auto c = llvm::dyn_cast<arith::SIToFPOp>(op))
      return arith::SIToFPOp::create(b, loc, c.getType(),
                                     signedByte(c.getIn()));
    if (llvm::isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
      // Out of range the language leaves the value undefined; through i32
      // it is at least the low bits.
      Value wide =
          arith::FPToSIOp::create(b, loc, b.getI32Type(), op->getOperand(0));
      return mask(arith::TruncIOp::create(b, loc, i8, wide));
    }
    if (auto c = llvm::dyn_cast<arith::IndexCastUIOp>(op)) {
      if (isNibble(c.getIn().getType()))
        return arith::IndexCastUIOp::create(b, loc, c.getType(),
                                            byteOf(c.getIn()));
      return mask(arith::IndexCastUIOp::create(b, loc, i8, c.getIn()));
    }
    if (auto c = llvm::dyn_cast<arith::IndexCastOp>(op)) {
      if (isNibble(c.getIn().getType()))
        return arith::IndexCastOp::create(b, loc, c.getType(),
                                          signedByte(c.getIn()));
      return mask(arith::IndexCastOp::create(b, loc, i8, c.getIn()));
    }
    if (auto s = llvm::dyn_cast<arith::SelectOp>(op))
      return arith::SelectOp::create(b, loc, s.getCondition(),
                                     byteOf(s.getTrueValue()),
                                     byteOf(s.getFalseValue()));
    return {};
  }
};

} // namespace
