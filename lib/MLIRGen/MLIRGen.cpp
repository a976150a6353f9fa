//===- MLIRGen.cpp - Checked AST to the tile dialect ----------------------===//
#include "tlc/MLIRGen/MLIRGen.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"
#include "tlc/MLIRGen/Signature.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using tlc::ConstValue;
using tlc::DType;
using tlc::TypeKind;

mlir::Type tlc::getElementType(MLIRContext &ctx, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return Float64Type::get(&ctx);
  case DType::F32:
    return Float32Type::get(&ctx);
  case DType::F16:
    return Float16Type::get(&ctx);
  case DType::BF16:
    return BFloat16Type::get(&ctx);
  case DType::I64:
    return IntegerType::get(&ctx, 64);
  case DType::I32:
    return IntegerType::get(&ctx, 32);
  case DType::I16:
    return IntegerType::get(&ctx, 16);
  case DType::I8:
  case DType::U8:
    return IntegerType::get(&ctx, 8);
  case DType::Bool:
    return IntegerType::get(&ctx, 1);
  case DType::F8E4M3:
    return Float8E4M3FNType::get(&ctx);
  case DType::F8E5M2:
    return Float8E5M2Type::get(&ctx);
  case DType::U4:
  case DType::I4: // packed into bytes by tile-pack-sub-byte
    return IntegerType::get(&ctx, 4);
  }
  return {};
}

namespace {

class TileIRGen {
public:
  TileIRGen(MLIRContext &ctx, llvm::SourceMgr &srcMgr)
      : ctx(ctx), srcMgr(srcMgr), b(&ctx) {}

  OwningOpRef<ModuleOp> generate(const tlc::Sema &sema) {
    module = ModuleOp::create(UnknownLoc::get(&ctx));
    // Every tile fn is named before any body is generated: a fn may call
    // one whose instance Sema created after its own.
    for (const tlc::FnInstance &inst : sema.fnInstances())
      fnNames[inst.decl.get()] = "tilefn_" + inst.mangledName;
    for (const tlc::FnInstance &inst : sema.fnInstances())
      genFn(inst);
    for (const tlc::KernelInfo &k : sema.kernels())
      genKernel(k);
    SmallVector<Attribute> operations;
    for (const tlc::OperationInfo &o : sema.operations())
      operations.push_back(tlc::buildOperationSignature(o).toAttr(&ctx));
    if (!operations.empty())
      (*module)->setAttr(tlc::tile::attr::kOperations,
                         ArrayAttr::get(&ctx, operations));
    return std::move(module);
  }

private:
  MLIRContext &ctx;
  llvm::SourceMgr &srcMgr;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  llvm::DenseMap<const tlc::Symbol *, Value> values;
  llvm::DenseMap<const tlc::FnDecl *, std::string> fnNames;
  Block *entryBlock = nullptr; // allocations go to the top of it

  //===--- Helpers ------------------------------------------------------===//

  Location loc(llvm::SMLoc l) {
    if (!l.isValid())
      return UnknownLoc::get(&ctx);
    unsigned buf = srcMgr.FindBufferContainingLoc(l);
    auto [line, col] = srcMgr.getLineAndColumn(l, buf);
    return FileLineColLoc::get(
        &ctx, srcMgr.getMemoryBuffer(buf)->getBufferIdentifier(), line, col);
  }

  /// The MLIR type a value of Sema type `t` is materialized with.
  mlir::Type scalarType(const tlc::Type &t) {
    switch (t.kind) {
    case TypeKind::Int:
      return b.getIndexType();
    case TypeKind::Float:
      return b.getF32Type();
    case TypeKind::Scalar:
      return tlc::getElementType(ctx, t.dtype);
    default:
      return {};
    }
  }

  MemRefType memrefType(const tlc::Type &t) {
    mlir::Type elem = tlc::getElementType(ctx, t.dtype);
    SmallVector<int64_t> shape;
    for (const tlc::Dim &d : t.shape)
      shape.push_back(d.isStatic() ? d.size : ShapedType::kDynamic);
    if (t.kind == TypeKind::Tile)
      return tlc::tile::getTileType(
          shape, elem,
          static_cast<tlc::tile::MemScope>(
              static_cast<int>(t.scope))); // same numbering
    // Global tensors: any outer strides, contiguous innermost dimension.
    SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
    strides.back() = 1;
    auto layout = StridedLayoutAttr::get(&ctx, ShapedType::kDynamic, strides);
    return MemRefType::get(shape, elem, layout);
  }

  /// The unsigned integer dtypes, whose copies zero-extend.
  static bool isUnsignedInt(DType d) {
    return d == DType::U8 || d == DType::U4;
  }

  bool isSignedType(const tlc::Type &t) {
    return t.kind != TypeKind::Scalar || tlc::isSigned(t.dtype);
  }

  Value constant(const ConstValue &c, const tlc::Type &t, Location l) {
    mlir::Type type = scalarType(t);
    if (t.kind == TypeKind::Scalar && t.dtype == DType::Bool)
      return arith::ConstantOp::create(
          b, l,
          b.getBoolAttr(c.kind == ConstValue::Bool ? c.b : c.asDouble() != 0));
    if (type.isIndex())
      return arith::ConstantIndexOp::create(b, l, c.i);
    if (auto ft = llvm::dyn_cast<FloatType>(type)) {
      double v = t.kind == TypeKind::Scalar
                     ? tlc::roundToFloatDType(c.asDouble(), t.dtype)
                     : c.asDouble();
      return arith::ConstantOp::create(b, l, b.getFloatAttr(ft, v));
    }
    int64_t v = c.kind == ConstValue::Int ? c.i : (int64_t)c.asDouble();
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(type, v));
  }

  /// Converts `v` of Sema type `from` to Sema type `to`.
  Value convert(Value v, const tlc::Type &from, const tlc::Type &to,
                Location l) {
    return tlc::tile::castElements(b, l, v, scalarType(to), !isSignedType(from),
                                   !isSignedType(to));
  }

  Value toIndex(tlc::Expr *e) {
    return convert(genExpr(e), e->type, tlc::Type::intTy(), loc(e->loc()));
  }

  Value genAs(tlc::Expr *e, const tlc::Type &to) {
    Location l = loc(e->loc());
    if (e->constValue)
      return constant(*e->constValue, to, l);
    return convert(genExpr(e), e->type, to, l);
  }

  Value genAsDType(tlc::Expr *e, DType d) {
    return genAs(e, tlc::Type::scalar(d));
  }

  //===--- Expressions --------------------------------------------------===//

  Value genExpr(tlc::Expr *e) {
    Location l = loc(e->loc());
    if (e->constValue && e->type.isArith())
      return constant(*e->constValue, e->type, l);
    switch (e->kind) {
    case tlc::ExprKind::IntLit:
    case tlc::ExprKind::FloatLit:
    case tlc::ExprKind::BoolLit:
      return constant(*e->constValue, e->type, l);
    case tlc::ExprKind::Name: {
      auto *n = static_cast<tlc::NameExpr *>(e);
      Value v = values.lookup(n->symbol);
      if (n->symbol->kind == tlc::SymbolKind::Var)
        return memref::LoadOp::create(b, l, v, ValueRange{});
      return v;
    }
    case tlc::ExprKind::Unary: {
      auto *u = static_cast<tlc::UnaryExpr *>(e);
      Value v = genAs(u->operand.get(), e->type);
      if (u->op == tlc::UnaryOp::Not) {
        Value t = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
        return arith::XOrIOp::create(b, l, v, t);
      }
      if (u->op == tlc::UnaryOp::BitNot) {
        Value ones =
            arith::ConstantOp::create(b, l, b.getIntegerAttr(v.getType(), -1));
        return arith::XOrIOp::create(b, l, v, ones);
      }
      if (llvm::isa<FloatType>(v.getType()))
        return arith::NegFOp::create(b, l, v);
      Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(v.getType()));
      return arith::SubIOp::create(b, l, zero, v);
    }
    case tlc::ExprKind::Binary:
      return genBinary(static_cast<tlc::BinaryExpr *>(e));
    case tlc::ExprKind::Ternary: {
      auto *t = static_cast<tlc::TernaryExpr *>(e);
      Value c = genExpr(t->cond.get());
      Value x = genAs(t->trueValue.get(), e->type);
      Value y = genAs(t->falseValue.get(), e->type);
      return arith::SelectOp::create(b, l, c, x, y);
    }
    case tlc::ExprKind::Call:
      return genCall(static_cast<tlc::CallExpr *>(e));
    case tlc::ExprKind::Index: {
      auto *ix = static_cast<tlc::IndexExpr *>(e);
      Value base = genExpr(ix->base.get());
      SmallVector<Value> idx;
      for (auto &i : ix->indices)
        idx.push_back(toIndex(i.get()));
      if (ix->base->type.kind == TypeKind::Tensor)
        return tlc::tile::LoadOp::create(b, l, base, idx);
      return memref::LoadOp::create(b, l, base, idx);
    }
    case tlc::ExprKind::Slice:
      // Only a window's indices hold slices (Sema), and windows are read
      // where they are used, not as values.
      break;
    }
    return {};
  }

  Value genBinary(tlc::BinaryExpr *e) {
    Value x = genAs(e->lhs.get(), e->operandType);
    Value y = genAs(e->rhs.get(), e->operandType);
    return genArith(e->op, x, y, isSignedType(e->operandType), loc(e->loc()));
  }

  /// `x op y` on two values of one type (index, integer, float or i1).
  Value genArith(tlc::BinaryOp op, Value x, Value y, bool sgn, Location l) {
    bool isF = llvm::isa<FloatType>(x.getType());
    using BO = tlc::BinaryOp;
    switch (op) {
    case BO::Add:
      return isF ? arith::AddFOp::create(b, l, x, y).getResult()
                 : arith::AddIOp::create(b, l, x, y).getResult();
    case BO::Sub:
      return isF ? arith::SubFOp::create(b, l, x, y).getResult()
                 : arith::SubIOp::create(b, l, x, y).getResult();
    case BO::Mul:
      return isF ? arith::MulFOp::create(b, l, x, y).getResult()
                 : arith::MulIOp::create(b, l, x, y).getResult();
    case BO::Div:
      if (isF)
        return arith::DivFOp::create(b, l, x, y);
      return sgn ? arith::DivSIOp::create(b, l, x, y).getResult()
                 : arith::DivUIOp::create(b, l, x, y).getResult();
    case BO::Rem:
      if (isF)
        return arith::RemFOp::create(b, l, x, y);
      return sgn ? arith::RemSIOp::create(b, l, x, y).getResult()
                 : arith::RemUIOp::create(b, l, x, y).getResult();
    case BO::And:
      return arith::AndIOp::create(b, l, x, y);
    case BO::Or:
    case BO::BitOr:
      return arith::OrIOp::create(b, l, x, y);
    case BO::BitAnd:
      return arith::AndIOp::create(b, l, x, y);
    case BO::BitXor:
      return arith::XOrIOp::create(b, l, x, y);
    case BO::Shl:
    case BO::Shr: {
      // The amount modulo the width (docs/language.md): no poison from
      // LLVM's out-of-range shifts.
      mlir::Type t = x.getType();
      int64_t bits = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
      Value mask =
          arith::ConstantOp::create(b, l, b.getIntegerAttr(t, bits - 1));
      Value amount = arith::AndIOp::create(b, l, y, mask);
      if (op == BO::Shl)
        return arith::ShLIOp::create(b, l, x, amount);
      return sgn ? arith::ShRSIOp::create(b, l, x, amount).getResult()
                 : arith::ShRUIOp::create(b, l, x, amount).getResult();
    }
    default:
      break;
    }
    if (isF) {
      arith::CmpFPredicate p;
      switch (op) {
      case BO::Lt:
        p = arith::CmpFPredicate::OLT;
        break;
      case BO::Le:
        p = arith::CmpFPredicate::OLE;
        break;
      case BO::Gt:
        p = arith::CmpFPredicate::OGT;
        break;
      case BO::Ge:
        p = arith::CmpFPredicate::OGE;
        break;
      case BO::Eq:
        p = arith::CmpFPredicate::OEQ;
        break;
      default:
        p = arith::CmpFPredicate::UNE;
        break;
      }
      return arith::CmpFOp::create(b, l, p, x, y);
    }
    arith::CmpIPredicate p;
    switch (op) {
    case BO::Lt:
      p = sgn ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult;
      break;
    case BO::Le:
      p = sgn ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule;
      break;
    case BO::Gt:
      p = sgn ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt;
      break;
    case BO::Ge:
      p = sgn ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge;
      break;
    case BO::Eq:
      p = arith::CmpIPredicate::eq;
      break;
    default:
      p = arith::CmpIPredicate::ne;
      break;
    }
    return arith::CmpIOp::create(b, l, p, x, y);
  }

  /// Math on 16-bit floats is computed in f32.
  Value genUnaryMath(StringRef name, Value x, Location l) {
    mlir::Type t = x.getType();
    auto ft = llvm::dyn_cast<FloatType>(t);
    if (!ft) { // abs on integers
      return math::AbsIOp::create(b, l, x);
    }
    if (ft.getWidth() < 32) {
      Value wide = arith::ExtFOp::create(b, l, b.getF32Type(), x);
      return arith::TruncFOp::create(b, l, t, genUnaryMath(name, wide, l));
    }
    if (name == "sigmoid") {
      Value one = arith::ConstantOp::create(b, l, b.getFloatAttr(t, 1.0));
      Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
      return arith::DivFOp::create(b, l, one,
                                   arith::AddFOp::create(b, l, one, e));
    }
    if (name == "exp")
      return math::ExpOp::create(b, l, x);
    if (name == "exp2")
      return math::Exp2Op::create(b, l, x);
    if (name == "log")
      return math::LogOp::create(b, l, x);
    if (name == "log2")
      return math::Log2Op::create(b, l, x);
    if (name == "sqrt")
      return math::SqrtOp::create(b, l, x);
    if (name == "rsqrt")
      return math::RsqrtOp::create(b, l, x);
    if (name == "tanh")
      return math::TanhOp::create(b, l, x);
    if (name == "erf")
      return math::ErfOp::create(b, l, x);
    if (name == "sin")
      return math::SinOp::create(b, l, x);
    if (name == "cos")
      return math::CosOp::create(b, l, x);
    if (name == "floor")
      return math::FloorOp::create(b, l, x);
    if (name == "ceil")
      return math::CeilOp::create(b, l, x);
    return math::AbsFOp::create(b, l, x);
  }

  Value genCall(tlc::CallExpr *e) {
    Location l = loc(e->loc());
    if (e->resolvedFn) {
      SmallVector<Value> args;
      auto &formals = e->resolvedFn->args;
      for (size_t i = 0; i < e->args.size(); ++i) {
        tlc::Symbol *f = formals[i].symbol;
        args.push_back(f->type.kind == TypeKind::Tile
                           ? genExpr(e->args[i].get())
                           : genAs(e->args[i].get(), f->type));
      }
      SmallVector<mlir::Type> results;
      if (e->type.kind == TypeKind::Scalar)
        results.push_back(scalarType(e->type));
      auto call = func::CallOp::create(b, l, fnNames.lookup(e->resolvedFn),
                                       results, args);
      return results.empty() ? Value() : call.getResult(0);
    }
    if (e->castTo)
      return genAs(e->args[0].get(), e->type);
    if (e->args.size() == 1 && e->callee == "abs" && !isSignedType(e->type))
      return genAs(e->args[0].get(), e->type); // |x| = x for unsigned x
    if (e->args.size() == 1)
      return genUnaryMath(e->callee, genAs(e->args[0].get(), e->type), l);
    Value x = genAs(e->args[0].get(), e->type);
    Value y = genAs(e->args[1].get(), e->type);
    bool isF = llvm::isa<FloatType>(x.getType());
    bool sgn = isSignedType(e->type);
    if (e->callee == "cdiv")
      return sgn ? arith::CeilDivSIOp::create(b, l, x, y).getResult()
                 : arith::CeilDivUIOp::create(b, l, x, y).getResult();
    if (e->callee == "pow") {
      // Computed in f32 for 16-bit floats, like the unary math builtins.
      mlir::Type t = x.getType();
      if (t.getIntOrFloatBitWidth() < 32) {
        Value wx = arith::ExtFOp::create(b, l, b.getF32Type(), x);
        Value wy = arith::ExtFOp::create(b, l, b.getF32Type(), y);
        return arith::TruncFOp::create(b, l, t,
                                       math::PowFOp::create(b, l, wx, wy));
      }
      return math::PowFOp::create(b, l, x, y);
    }
    if (e->callee == "min")
      return isF   ? arith::MinimumFOp::create(b, l, x, y).getResult()
             : sgn ? arith::MinSIOp::create(b, l, x, y).getResult()
                   : arith::MinUIOp::create(b, l, x, y).getResult();
    return isF   ? arith::MaximumFOp::create(b, l, x, y).getResult()
           : sgn ? arith::MaxSIOp::create(b, l, x, y).getResult()
                 : arith::MaxUIOp::create(b, l, x, y).getResult();
  }

  //===--- Tile ops -----------------------------------------------------===//

  /// The index tiles of a gather window and the dimensions of its view
  /// they index.
  struct Gathers {
    SmallVector<Value> tiles;
    SmallVector<int64_t> dims;
  };

  /// A tile-op operand: the memref and, for a window, its origin (and its
  /// index tiles in `gathers`, for a copy).
  std::pair<Value, SmallVector<Value>> genOperand(tlc::Expr *e,
                                                  Gathers *gathers = nullptr) {
    if (e->kind == tlc::ExprKind::Index &&
        llvm::any_of(static_cast<tlc::IndexExpr *>(e)->indices, [](auto &i) {
          return i->kind == tlc::ExprKind::Slice ||
                 tlc::matchGatherIndex(i.get());
        }))
      return genSlicedWindow(static_cast<tlc::IndexExpr *>(e), gathers);
    if (e->kind == tlc::ExprKind::Index) {
      auto *ix = static_cast<tlc::IndexExpr *>(e);
      SmallVector<Value> idx;
      for (auto &i : ix->indices)
        idx.push_back(toIndex(i.get()));
      return {genExpr(ix->base.get()), idx};
    }
    return {genExpr(e), {}};
  }

  /// A window with slices: a view of the tensor that keeps one dimension
  /// per slice, starting at the slice's start and as long as its valid part
  /// (up to its end and the tensor's size; empty when a point index is
  /// outside the tensor), with the window origin at 0. A copy then masks
  /// everything past the view like past a tensor. A slice that may start
  /// before the tensor makes the view start at 0 and the window's origin in
  /// it negative, so those elements are masked too. A gathered dimension
  /// stays whole in the view; the origin along it is the gather's offset.
  std::pair<Value, SmallVector<Value>> genSlicedWindow(tlc::IndexExpr *ix,
                                                       Gathers *gathers) {
    Location l = loc(ix->loc());
    Value tensor = genExpr(ix->base.get());
    auto type = llvm::cast<MemRefType>(tensor.getType());
    Value zero = arith::ConstantIndexOp::create(b, l, 0);
    SmallVector<OpFoldResult> offsets, sizes;
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    SmallVector<Value> origin;
    Value pointsInside;
    int64_t firstKept = -1;
    for (auto [d, idx] : llvm::enumerate(ix->indices)) {
      Value size = memref::DimOp::create(b, l, tensor, d);
      if (auto gather = tlc::matchGatherIndex(idx.get())) {
        assert(gathers && "Sema allows gathers in copies only");
        gathers->tiles.push_back(genExpr(gather->tile->base.get()));
        gathers->dims.push_back(origin.size());
        Value shift = zero;
        if (gather->offset) {
          shift = toIndex(gather->offset);
          if (gather->subtract)
            shift = arith::SubIOp::create(b, l, zero, shift);
        }
        if (firstKept < 0)
          firstKept = d;
        offsets.push_back(zero);
        sizes.push_back(size);
        origin.push_back(shift);
        continue;
      }
      if (idx->kind != tlc::ExprKind::Slice) {
        Value p = toIndex(idx.get());
        offsets.push_back(p);
        sizes.push_back(b.getIndexAttr(1));
        Value inside =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, p, size);
        pointsInside = pointsInside
                           ? arith::AndIOp::create(b, l, pointsInside, inside)
                           : inside;
        continue;
      }
      auto *slice = static_cast<tlc::SliceExpr *>(idx.get());
      Value lo = slice->lo ? toIndex(slice->lo.get()) : zero;
      Value step = slice->step ? toIndex(slice->step.get()) : Value();
      Value start = lo, from = zero;
      bool knownNonNegative = !slice->lo || (slice->lo->constValue &&
                                             slice->lo->constValue->i >= 0);
      if (!knownNonNegative && !step) {
        start = arith::MaxSIOp::create(b, l, lo, zero);
        from = arith::MinSIOp::create(b, l, lo, zero);
      } else if (!knownNonNegative) {
        // The first element of the slice inside the tensor is number k0 =
        // cdiv(-lo, step) (0 for lo >= 0); the window starts k0 before it.
        Value before = arith::MaxSIOp::create(
            b, l, arith::SubIOp::create(b, l, zero, lo), zero);
        Value k0 = arith::CeilDivSIOp::create(b, l, before, step);
        start = arith::AddIOp::create(b, l, lo,
                                      arith::MulIOp::create(b, l, k0, step));
        from = arith::SubIOp::create(b, l, zero, k0);
      }
      Value hi =
          slice->hi
              ? arith::MinSIOp::create(b, l, toIndex(slice->hi.get()), size)
                    .getResult()
              : size;
      Value extent = arith::MaxSIOp::create(
          b, l, arith::SubIOp::create(b, l, hi, start), zero);
      if (step) // elements start, start + step, ... below hi
        extent = arith::CeilDivSIOp::create(b, l, extent, step);
      if (firstKept < 0)
        firstKept = d;
      offsets.push_back(start);
      sizes.push_back(extent);
      if (step) // a constant step gives the view a static stride
        strides[d] = getAsOpFoldResult(step);
      origin.push_back(from);
    }
    // A point outside the tensor empties the window (and keeps its offset
    // inside the tensor, so the view's address is one the tensor has).
    if (pointsInside) {
      sizes[firstKept] =
          arith::SelectOp::create(b, l, pointsInside,
                                  llvm::cast<Value>(sizes[firstKept]), zero)
              .getResult();
      for (auto [d, idx] : llvm::enumerate(ix->indices))
        if (idx->kind != tlc::ExprKind::Slice &&
            !tlc::matchGatherIndex(idx.get()))
          offsets[d] =
              arith::SelectOp::create(b, l, pointsInside,
                                      llvm::cast<Value>(offsets[d]), zero)
                  .getResult();
    }
    size_t kept = origin.size();
    SmallVector<int64_t> shape(kept, ShapedType::kDynamic);
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, strides);
    Value view = memref::SubViewOp::create(b, l, viewType, tensor, offsets,
                                           sizes, strides);
    return {view, origin};
  }

  /// A view from an explicit window whose elements along its last dimension
  /// are not adjacent (a column): tile copies vectorize along that
  /// dimension, so such windows are copied element by element.
  static bool isStridedView(Value v) {
    auto view = v.getDefiningOp<memref::SubViewOp>();
    if (!view)
      return false;
    int64_t offset;
    SmallVector<int64_t> strides;
    return failed(view.getType().getStridesAndOffset(strides, offset)) ||
           strides.back() != 1;
  }

  /// `copy(src, dst)` (or `atomic_add` into dst) where one side is such a
  /// view: a parallel loop over the tile of element loads and stores (or
  /// atomics), which tile-expand-element-access bounds-checks against the
  /// view.
  void genElementwiseCopy(Value src, ValueRange srcOrigin, Value dst,
                          ValueRange dstOrigin, bool srcUnsigned,
                          bool dstUnsigned, Location l, bool atomic = false) {
    bool load = isStridedView(src);
    Value tile = load ? dst : src;
    ValueRange viewOrigin = load ? srcOrigin : dstOrigin;
    auto tileType = llvm::cast<MemRefType>(tile.getType());
    Type dstElem = llvm::cast<MemRefType>(dst.getType()).getElementType();
    auto par = tlc::tile::ParallelOp::create(b, l, tileType.getShape());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(par.getBody().front().getTerminator());
    ValueRange idx = par.getBody().front().getArguments();
    // The element of the view: the window's origin in it (0, or negative
    // for a slice that starts before the tensor) plus the tile's index.
    SmallVector<Value> at(idx.begin(), idx.end());
    for (auto [i, o] : llvm::enumerate(viewOrigin))
      if (i < at.size() && !isConstantIntValue(o, 0))
        at[i] = arith::AddIOp::create(b, l, o, at[i]);
    Value v = load ? tlc::tile::LoadOp::create(b, l, src, at).getResult()
                   : memref::LoadOp::create(b, l, src, idx).getResult();
    v = tlc::tile::castElements(b, l, v, dstElem, srcUnsigned, dstUnsigned);
    if (atomic)
      tlc::tile::AtomicOp::create(b, l, tlc::tile::ReduceKind::sum, v, dst, at);
    else if (load)
      memref::StoreOp::create(b, l, v, dst, idx);
    else
      tlc::tile::StoreOp::create(b, l, v, dst, at);
  }

  /// `view(X, d0, d1, ...)`: X's elements (contiguous, checked by the
  /// stub) as a row-major tensor of the given sizes.
  Value genView(tlc::CallExpr *call, const tlc::Type &t) {
    Location l = loc(call->loc());
    Value tensor = genExpr(call->args[0].get());
    auto meta = memref::ExtractStridedMetadataOp::create(b, l, tensor);
    size_t rank = call->args.size() - 1;
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    Value stride = arith::ConstantIndexOp::create(b, l, 1);
    for (size_t d = rank; d-- > 0;) {
      const tlc::Dim &dim = t.shape[d];
      Value size = dim.isStatic()
                       ? arith::ConstantIndexOp::create(b, l, dim.size)
                       : toIndex(call->args[d + 1].get());
      sizes[d] = dim.isStatic() ? OpFoldResult(b.getIndexAttr(dim.size))
                                : OpFoldResult(size);
      strides[d] = d + 1 == rank ? OpFoldResult(b.getIndexAttr(1))
                                 : OpFoldResult(stride);
      stride = arith::MulIOp::create(b, l, stride, size);
    }
    auto view = memref::ReinterpretCastOp::create(
        b, l, memrefType(t), tensor, OpFoldResult(meta.getOffset()), sizes,
        strides);
    // Not the argument the stub describes: no tensor copies through it.
    view->setAttr(tlc::tile::attr::kView, b.getUnitAttr());
    return view;
  }

  bool kwBool(tlc::CallExpr *e, StringRef name, bool def) {
    for (auto &kw : e->kwargs)
      if (kw.name == name)
        return kw.value->constValue->b;
    return def;
  }

  void genTileOp(tlc::CallExpr *e) {
    Location l = loc(e->loc());
    StringRef op = e->callee;
    if (op == "copy") {
      Gathers gathers;
      auto [src, srcIdx] = genOperand(e->args[0].get(), &gathers);
      auto [dst, dstIdx] = genOperand(e->args[1].get(), &gathers);
      if (!gathers.tiles.empty()) {
        auto copy = tlc::tile::CopyOp::create(
            b, l, src, srcIdx, gathers.tiles, dst, dstIdx,
            b.getDenseI64ArrayAttr(gathers.dims), false, false);
        copy.setSourceUnsigned(isUnsignedInt(e->args[0]->type.dtype));
        copy.setDestUnsigned(isUnsignedInt(e->args[1]->type.dtype));
        return;
      }
      if (isStridedView(src) || isStridedView(dst)) {
        genElementwiseCopy(src, srcIdx, dst, dstIdx,
                           isUnsignedInt(e->args[0]->type.dtype),
                           isUnsignedInt(e->args[1]->type.dtype), l);
        return;
      }
      auto copy = tlc::tile::CopyOp::create(b, l, src, srcIdx, dst, dstIdx);
      copy.setSourceUnsigned(isUnsignedInt(e->args[0]->type.dtype));
      copy.setDestUnsigned(isUnsignedInt(e->args[1]->type.dtype));
    } else if (op == "fill") {
      auto [dst, idx] = genOperand(e->args[0].get());
      Value v = genAsDType(e->args[1].get(), e->args[0]->type.dtype);
      tlc::tile::FillOp::create(b, l, dst, v);
    } else if (op == "gemm") {
      Value a = genExpr(e->args[0].get()), bb = genExpr(e->args[1].get()),
            c = genExpr(e->args[2].get());
      auto g = tlc::tile::GemmOp::create(b, l, a, bb, c);
      if (kwBool(e, "trans_a", false))
        g.setTransposeA(true);
      if (kwBool(e, "trans_b", false))
        g.setTransposeB(true);
      if (kwBool(e, "clear", false))
        g.setClear(true);
      for (auto &kw : e->kwargs)
        if (kw.name == "warps_m")
          g.setWarpsM(kw.value->constValue->i);
    } else if (op.starts_with("atomic_") &&
               e->args[1]->type.kind != TypeKind::Tile) {
      auto [dst, dstIdx] = genOperand(e->args[0].get());
      Value v = genAsDType(e->args[1].get(), e->args[0]->type.dtype);
      auto kind = op == "atomic_add"   ? tlc::tile::ReduceKind::sum
                  : op == "atomic_max" ? tlc::tile::ReduceKind::max
                                       : tlc::tile::ReduceKind::min;
      tlc::tile::AtomicOp::create(b, l, kind, v, dst, dstIdx);
    } else if (op.starts_with("cluster_reduce_")) {
      Value t = genExpr(e->args[0].get());
      auto kind = op == "cluster_reduce_sum"   ? tlc::tile::ReduceKind::sum
                  : op == "cluster_reduce_max" ? tlc::tile::ReduceKind::max
                                               : tlc::tile::ReduceKind::min;
      tlc::tile::ClusterReduceOp::create(
          b, l, t, tlc::tile::ReduceKindAttr::get(&ctx, kind));
    } else if (op == "atomic_add") {
      auto [dst, dstIdx] = genOperand(e->args[0].get());
      Value src = genExpr(e->args[1].get());
      if (isStridedView(dst)) {
        genElementwiseCopy(src, {}, dst, dstIdx, false, false, l,
                           /*atomic=*/true);
        return;
      }
      tlc::tile::AtomicAddOp::create(b, l, src, dst, dstIdx);
    } else { // reductions
      Value src = genExpr(e->args[0].get()), dst = genExpr(e->args[1].get());
      int64_t dim = (int64_t)e->args[0]->type.rank() - 1;
      for (auto &kw : e->kwargs)
        if (kw.name == "dim")
          dim = kw.value->constValue->i;
      auto kind = llvm::StringSwitch<tlc::tile::ReduceKind>(op)
                      .Case("reduce_sum", tlc::tile::ReduceKind::sum)
                      .Case("reduce_max", tlc::tile::ReduceKind::max)
                      .Case("reduce_min", tlc::tile::ReduceKind::min)
                      .Default(tlc::tile::ReduceKind::absmax);
      auto r = tlc::tile::ReduceOp::create(
          b, l, src, dst, tlc::tile::ReduceKindAttr::get(&ctx, kind),
          b.getI64IntegerAttr(dim), /*clear=*/nullptr);
      if (kwBool(e, "clear", true))
        r.setClear(true);
    }
  }

  //===--- Statements ---------------------------------------------------===//

  void genBlock(tlc::BlockStmt *block) {
    for (auto &s : block->stmts)
      genStmt(s.get());
  }

  /// Inserts an allocation at the top of the function.
  template <typename Fn> Value atEntry(Fn &&build) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entryBlock);
    return build();
  }

  void genStmt(tlc::Stmt *s) {
    Location l = loc(s->loc());
    switch (s->kind) {
    case tlc::StmtKind::Block:
      genBlock(static_cast<tlc::BlockStmt *>(s));
      return;
    case tlc::StmtKind::Alloc: {
      auto *a = static_cast<tlc::AllocStmt *>(s);
      MemRefType t = memrefType(a->symbol->type);
      values[a->symbol] =
          atEntry([&] { return tlc::tile::AllocOp::create(b, l, t); });
      return;
    }
    case tlc::StmtKind::Let: {
      auto *let = static_cast<tlc::LetStmt *>(s);
      const tlc::Type &t = let->symbol->type;
      if (let->symbol->viewOf) {
        values[let->symbol] =
            genView(static_cast<tlc::CallExpr *>(let->init.get()), t);
        return;
      }
      if (!let->isMutable) {
        if (!let->symbol->constValue)
          values[let->symbol] = genAs(let->init.get(), t);
        return;
      }
      MemRefType mt = MemRefType::get({}, scalarType(t));
      Value slot = atEntry([&] { return memref::AllocaOp::create(b, l, mt); });
      values[let->symbol] = slot;
      Value init = let->init ? genAs(let->init.get(), t)
                             : constant(ConstValue::ofInt(0), t, l);
      memref::StoreOp::create(b, l, init, slot, ValueRange{});
      return;
    }
    case tlc::StmtKind::Assign:
      genAssign(static_cast<tlc::AssignStmt *>(s));
      return;
    case tlc::StmtKind::Expr: {
      auto *call = static_cast<tlc::CallExpr *>(
          static_cast<tlc::ExprStmt *>(s)->expr.get());
      if (call->resolvedFn)
        genCall(call);
      else
        genTileOp(call);
      return;
    }
    case tlc::StmtKind::For:
      genFor(static_cast<tlc::ForStmt *>(s));
      return;
    case tlc::StmtKind::Parallel: {
      auto *p = static_cast<tlc::ParallelStmt *>(s);
      SmallVector<int64_t> shape;
      if (p->domainTile)
        for (auto &d : p->domainTile->type.shape)
          shape.push_back(d.size);
      else
        for (auto &d : p->domainShape)
          shape.push_back(d->constValue->i);
      auto par = tlc::tile::ParallelOp::create(b, l, shape);
      Block &body = par.getBody().front();
      for (size_t i = 0; i < p->symbols.size(); ++i)
        values[p->symbols[i]] = body.getArgument(i);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(body.getTerminator());
      genBlock(p->body.get());
      return;
    }
    case tlc::StmtKind::If:
      genIf(static_cast<tlc::IfStmt *>(s));
      return;
    case tlc::StmtKind::Return: {
      auto *r = static_cast<tlc::ReturnStmt *>(s);
      if (r->value)
        func::ReturnOp::create(b, l, genAs(r->value.get(), currentReturnType));
      else
        func::ReturnOp::create(b, l);
      return;
    }
    }
  }

  void genAssign(tlc::AssignStmt *s) {
    Location l = loc(s->loc());
    Value slot;
    SmallVector<Value> idx;
    tlc::Type elem;
    bool tensor = false;
    if (s->target->kind == tlc::ExprKind::Name) {
      auto *n = static_cast<tlc::NameExpr *>(s->target.get());
      slot = values.lookup(n->symbol);
      elem = n->symbol->type;
    } else {
      auto *ix = static_cast<tlc::IndexExpr *>(s->target.get());
      slot = genExpr(ix->base.get());
      for (auto &i : ix->indices)
        idx.push_back(toIndex(i.get()));
      elem = s->target->type;
      tensor = ix->base->type.kind == TypeKind::Tensor;
    }
    Value v = genAs(s->value.get(), elem);
    if (s->op != tlc::AssignOp::Set) {
      Value old = tensor
                      ? tlc::tile::LoadOp::create(b, l, slot, idx).getResult()
                      : memref::LoadOp::create(b, l, slot, idx).getResult();
      tlc::BinaryOp op = s->op == tlc::AssignOp::Add   ? tlc::BinaryOp::Add
                         : s->op == tlc::AssignOp::Sub ? tlc::BinaryOp::Sub
                         : s->op == tlc::AssignOp::Mul ? tlc::BinaryOp::Mul
                                                       : tlc::BinaryOp::Div;
      v = genArith(op, old, v, isSignedType(elem), l);
    }
    if (tensor)
      tlc::tile::StoreOp::create(b, l, v, slot, idx);
    else
      memref::StoreOp::create(b, l, v, slot, idx);
  }

  void genFor(tlc::ForStmt *s) {
    Location l = loc(s->loc());
    Value lb, ub, step;
    if (s->args.size() == 1) {
      lb = arith::ConstantIndexOp::create(b, l, 0);
      ub = toIndex(s->args[0].get());
    } else {
      lb = toIndex(s->args[0].get());
      ub = toIndex(s->args[1].get());
    }
    step = s->args.size() == 3 ? toIndex(s->args[2].get())
                               : arith::ConstantIndexOp::create(b, l, 1);
    auto loop = scf::ForOp::create(b, l, lb, ub, step);
    for (auto &kw : s->kwargs)
      loop->setAttr(s->loopKind == tlc::LoopKind::Pipelined
                        ? tlc::tile::attr::kStages
                        : tlc::tile::attr::kUnroll,
                    b.getI64IntegerAttr(kw.value->constValue->i));
    if (s->loopKind == tlc::LoopKind::Pipelined &&
        !loop->hasAttr(tlc::tile::attr::kStages))
      loop->setAttr(tlc::tile::attr::kStages, b.getI64IntegerAttr(2));
    values[s->symbol] = loop.getInductionVar();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    genBlock(s->body.get());
  }

  void genIf(tlc::IfStmt *s) {
    if (s->cond->constValue) { // compile-time condition: one branch only
      if (s->cond->constValue->b)
        genBlock(s->thenBody.get());
      else if (s->elseBody)
        genStmt(s->elseBody.get());
      return;
    }
    Location l = loc(s->loc());
    Value c = genExpr(s->cond.get());
    auto op =
        scf::IfOp::create(b, l, c, /*withElseRegion=*/s->elseBody != nullptr);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(op.thenBlock()->getTerminator());
      genBlock(s->thenBody.get());
    }
    if (s->elseBody) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(op.elseBlock()->getTerminator());
      genStmt(s->elseBody.get());
    }
  }

  //===--- Functions ----------------------------------------------------===//

  tlc::Type currentReturnType;

  void genFn(const tlc::FnInstance &inst) {
    std::string name = fnNames.lookup(inst.decl.get());
    SmallVector<mlir::Type> argTypes, results;
    for (tlc::Symbol *a : inst.args)
      argTypes.push_back(a->type.kind == TypeKind::Tile ? memrefType(a->type)
                                                        : scalarType(a->type));
    if (inst.returnType.kind == TypeKind::Scalar)
      results.push_back(scalarType(inst.returnType));
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc(inst.decl->nameRange.Start), name,
                                   b.getFunctionType(argTypes, results));
    fn.setPrivate();
    fn->setAttr(tlc::tile::attr::kFn, b.getUnitAttr());
    entryBlock = fn.addEntryBlock();
    for (size_t i = 0; i < inst.args.size(); ++i)
      values[inst.args[i]] = entryBlock->getArgument(i);
    currentReturnType = inst.returnType;
    b.setInsertionPointToEnd(entryBlock);
    genBlock(inst.decl->body.get());
    // A tile fn without a result may end in its own `return;` (Sema allows
    // it only as the last statement): then the body has its terminator.
    if (results.empty() && !b.getInsertionBlock()->mightHaveTerminator())
      func::ReturnOp::create(b, loc(inst.decl->body->range.End));
  }

  void genKernel(const tlc::KernelInfo &k) {
    SmallVector<mlir::Type> argTypes;
    for (tlc::Symbol *a : k.args)
      argTypes.push_back(a->type.kind == TypeKind::Tensor
                             ? (mlir::Type)memrefType(a->type)
                             : scalarType(a->type));
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc(k.decl->nameRange.Start), k.name,
                                   b.getFunctionType(argTypes, {}));
    fn->setAttr(tlc::tile::attr::kKernel, b.getUnitAttr());
    fn->setAttr(tlc::tile::attr::kThreads, b.getI64IntegerAttr(k.threads));
    if (k.decl->cluster)
      fn->setAttr(tlc::tile::attr::kClusterBlocks,
                  b.getI64IntegerAttr(k.cluster));
    fn->setAttr(tlc::tile::attr::kGridRank,
                b.getI64IntegerAttr(k.decl->grid.size()));
    SmallVector<NamedAttribute> dims;
    for (const tlc::SymDimInfo &d : k.symDims) {
      SmallVector<Attribute> uses;
      for (const tlc::DimUse &u : d.uses)
        uses.push_back(
            b.getDenseI64ArrayAttr({(int64_t)u.arg, (int64_t)u.dim}));
      dims.push_back(b.getNamedAttr(d.name, b.getArrayAttr(uses)));
    }
    fn->setAttr(tlc::tile::attr::kDims, b.getDictionaryAttr(dims));
    // Dimensions fixed with -D, for tile-specialize-dims.
    SmallVector<NamedAttribute> fixed;
    for (const tlc::SymDimInfo &d : k.symDims)
      if (d.staticValue)
        fixed.push_back(
            b.getNamedAttr(d.name, b.getI64IntegerAttr(*d.staticValue)));
    if (!fixed.empty())
      fn->setAttr(tlc::tile::attr::kStaticDims, b.getDictionaryAttr(fixed));
    fn->setAttr(tlc::tile::attr::kSignature,
                tlc::buildSignature(k).toAttr(b.getContext()));
    entryBlock = fn.addEntryBlock();
    b.setInsertionPointToEnd(entryBlock);
    Location l = loc(k.decl->range.Start);
    for (size_t i = 0; i < k.args.size(); ++i)
      values[k.args[i]] = entryBlock->getArgument(i);
    // Symbolic dimensions are read from their first use.
    for (const tlc::SymDimInfo &d : k.symDims) {
      tlc::Symbol *sym = nullptr;
      for (auto &p : k.decl->args)
        for (auto &de : p.type.dims)
          if (de->kind == tlc::ExprKind::Name &&
              static_cast<tlc::NameExpr *>(de.get())->name == d.name)
            sym = static_cast<tlc::NameExpr *>(de.get())->symbol;
      if (!sym)
        continue;
      values[sym] = memref::DimOp::create(
          b, l, entryBlock->getArgument(d.uses[0].arg), d.uses[0].dim);
    }
    for (tlc::Symbol *s : k.decl->blockSymbols)
      values[s] = tlc::tile::BlockIdOp::create(b, l, b.getIndexType(),
                                               (uint64_t)s->index);
    genBlock(k.decl->body.get());
    func::ReturnOp::create(b, loc(k.decl->body->range.End));
  }
};

} // namespace

OwningOpRef<ModuleOp> tlc::generateTileIR(MLIRContext &context,
                                          const Sema &sema,
                                          llvm::SourceMgr &srcMgr) {
  context.getOrLoadDialect<tlc::tile::TileDialect>();
  return TileIRGen(context, srcMgr).generate(sema);
}
