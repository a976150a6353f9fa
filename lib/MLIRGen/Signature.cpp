//===- Signature.cpp - The kernel signature from the checked AST ----------===//
//
// The grid expressions become GridExpr trees: constants (Sema folded what
// it could), symbolic dimensions, scalar arguments, operators, casts and
// the builtin calls the stub can compute on the host; anything else is an
// Unsupported node whose message the stub reports with #error.
//
//===----------------------------------------------------------------------===//
#include "tlc/MLIRGen/Signature.h"

#include <iterator>

using namespace tlc;

namespace {

GridExpr unsupported(std::string why) {
  GridExpr g;
  g.kind = GridExpr::Unsupported;
  g.name = std::move(why);
  return g;
}

/// Bits of an integer type as the device computes it (`int` is 64-bit).
int64_t bitWidthOf(const Type &t) {
  return t.kind == TypeKind::Scalar ? bitWidth(t.dtype) : 64;
}

/// `g` converted to the integer dtype of `t` when it is narrower than the
/// host's int64_t (the bits the device keeps), `g` itself otherwise.
GridExpr truncateTo(GridExpr g, const Type &t) {
  if (t.kind != TypeKind::Scalar || isFloat(t.dtype) ||
      t.dtype == DType::Bool || bitWidth(t.dtype) >= 64)
    return g;
  // An `int` literal next to a u8 operand is not folded to u8 by Sema.
  if (g.kind == GridExpr::Const) {
    if (g.value.kind == ConstValue::Int)
      g.value.i = truncateInt(g.value.i, t.dtype);
    return g;
  }
  if (g.kind == GridExpr::Cast && g.castTo == t.dtype)
    return g;
  GridExpr cast;
  cast.kind = GridExpr::Cast;
  cast.castTo = t.dtype;
  cast.operands.push_back(std::move(g));
  return cast;
}

GridExpr convertGrid(const Expr *e, const KernelInfo &k) {
  GridExpr g;
  g.type = hostKindOf(e->type);
  if (e->constValue) {
    g.kind = GridExpr::Const;
    g.value = *e->constValue;
    return g;
  }
  switch (e->kind) {
  case ExprKind::Name: {
    const auto *n = static_cast<const NameExpr *>(e);
    const Symbol *sym = n->symbol;
    if (sym && sym->kind == SymbolKind::SymDim &&
        llvm::any_of(k.symDims, [&](const SymDimInfo &d) {
          return d.name == sym->name;
        })) {
      g.kind = GridExpr::SymDim;
      g.name = sym->name;
      return g;
    }
    if (sym && sym->kind == SymbolKind::Arg && sym->index >= 0 &&
        unsigned(sym->index) < k.args.size() &&
        k.args[sym->index]->type.kind != TypeKind::Tensor) {
      g.kind = GridExpr::ScalarArg;
      g.arg = sym->index;
      return g;
    }
    return unsupported("'" + n->name + "' is not known before the launch");
  }
  case ExprKind::Unary: {
    const auto *u = static_cast<const UnaryExpr *>(e);
    g.kind = GridExpr::Unary;
    static_assert(std::size(kGridUnaryOps) ==
                  static_cast<size_t>(UnaryOp::BitNot) + 1);
    g.op = kGridUnaryOps[static_cast<size_t>(u->op)];
    g.operands.push_back(convertGrid(u->operand.get(), k));
    // -x and ~x of a u8 leave the range of the host's int64_t values of u8.
    return truncateTo(std::move(g), e->type);
  }
  case ExprKind::Binary: {
    const auto *b = static_cast<const BinaryExpr *>(e);
    static_assert(std::size(kGridBinaryOps) ==
                  static_cast<size_t>(BinaryOp::Shr) + 1);
    g.kind = GridExpr::Binary;
    g.op = kGridBinaryOps[static_cast<size_t>(b->op)];
    g.operandKind =
        b->operandType.isInvalid() ? HostKind::Int : hostKindOf(b->operandType);
    g.operands.push_back(convertGrid(b->lhs.get(), k));
    g.operands.push_back(convertGrid(b->rhs.get(), k));
    // The host computes in int64_t, the kernel in the operands' type:
    // operands and result are truncated to a narrower integer type (u8(0) -
    // 1 is 255, i32 products wrap), a shift's amount is taken modulo the
    // type's width (docs/language.md 4.4).
    for (GridExpr &operand : g.operands)
      operand = truncateTo(std::move(operand), b->operandType);
    if (b->op == BinaryOp::Shl || b->op == BinaryOp::Shr) {
      GridExpr mask;
      mask.kind = GridExpr::Const;
      mask.value = ConstValue::ofInt(bitWidthOf(b->operandType) - 1);
      GridExpr amount;
      amount.kind = GridExpr::Binary;
      amount.op = "&";
      amount.operands.push_back(std::move(g.operands[1]));
      amount.operands.push_back(std::move(mask));
      g.operands[1] = std::move(amount);
    }
    return truncateTo(std::move(g), e->type);
  }
  case ExprKind::Ternary: {
    const auto *t = static_cast<const TernaryExpr *>(e);
    g.kind = GridExpr::Select;
    g.operands.push_back(convertGrid(t->cond.get(), k));
    g.operands.push_back(convertGrid(t->trueValue.get(), k));
    g.operands.push_back(convertGrid(t->falseValue.get(), k));
    return g;
  }
  case ExprKind::Call: {
    const auto *c = static_cast<const CallExpr *>(e);
    std::optional<DType> castTo = c->castTo;
    if (!castTo && !c->resolvedFn)
      castTo = parseDType(c->callee);
    if (castTo) {
      if (c->args.size() != 1)
        return unsupported("malformed cast in the grid");
      g.kind = GridExpr::Cast;
      g.castTo = *castTo;
      g.operands.push_back(convertGrid(c->args[0].get(), k));
      return g;
    }
    if (c->resolvedFn || !c->kwargs.empty())
      return unsupported("the grid calls '" + c->callee +
                         "', which cannot run before the launch");
    g.kind = GridExpr::Call;
    g.name = c->callee;
    for (const ExprPtr &a : c->args)
      g.operands.push_back(convertGrid(a.get(), k));
    return g;
  }
  default:
    return unsupported("the grid uses an expression that cannot be computed "
                       "before the launch");
  }
}

} // namespace

KernelSignature tlc::buildSignature(const KernelInfo &k) {
  KernelSignature s;
  s.name = k.name;
  s.threads = k.threads;
  s.cluster = k.cluster;
  for (const auto &[name, value] : k.params)
    s.params.push_back({name, value.str()});
  for (unsigned i = 0; i < k.args.size(); ++i) {
    SignatureArg arg;
    arg.name = k.args[i]->name;
    arg.type = k.args[i]->type;
    if (k.decl && i < k.decl->args.size()) {
      const auto &decl = k.decl->args[i];
      arg.access = decl.qualifier == ArgQualifier::Out     ? ArgAccess::Out
                   : decl.qualifier == ArgQualifier::InOut ? ArgAccess::InOut
                                                           : ArgAccess::In;
      for (const ExprPtr &d : decl.type.dims)
        arg.dimNames.push_back(
            d && d->kind == ExprKind::Name
                ? static_cast<const NameExpr *>(d.get())->name
                : "");
    }
    s.args.push_back(std::move(arg));
  }
  for (const SymDimInfo &d : k.symDims) {
    SignatureDim dim;
    dim.name = d.name;
    for (const DimUse &u : d.uses)
      dim.uses.push_back(DimPosition{u.arg, u.dim});
    dim.staticValue = d.staticValue;
    s.symDims.push_back(std::move(dim));
  }
  for (const DerivedDimInfo &d : k.derivedDims)
    s.derivedDims.push_back(
        DerivedDim{d.arg, d.dim, convertGrid(d.expr, k),
                   k.args[d.arg]->type.shape[d.dim].symbol});
  for (const TensorViewInfo &v : k.views) {
    ViewedTensor view{v.arg, {}, v.text};
    for (const Expr *d : v.dims)
      view.shape.push_back(convertGrid(d, k));
    s.views.push_back(std::move(view));
  }
  if (k.decl)
    for (size_t g = 0; g < k.decl->grid.size() && g < 3; ++g)
      s.grid.push_back(convertGrid(k.decl->grid[g].get(), k));
  return s;
}

OperationSignature tlc::buildOperationSignature(const OperationInfo &op) {
  OperationSignature o;
  o.signature = buildSignature(op.signature);
  for (unsigned i = 0; i < o.signature.args.size(); ++i) {
    const ArgDecl &decl = op.decl->args[i];
    SignatureArg &arg = o.signature.args[i];
    arg.access = decl.qualifier == ArgQualifier::Out     ? ArgAccess::Out
                 : decl.qualifier == ArgQualifier::InOut ? ArgAccess::InOut
                                                         : ArgAccess::In;
    for (const ExprPtr &d : decl.type.dims)
      arg.dimNames.push_back(d && d->kind == ExprKind::Name
                                 ? static_cast<const NameExpr *>(d.get())->name
                                 : "");
  }
  for (const ScratchDecl *decl : op.scratch) {
    ScratchTensor t;
    t.name = decl->name;
    t.dtype = decl->symbol->type.dtype;
    for (const ExprPtr &d : decl->type.dims)
      t.shape.push_back(convertGrid(d.get(), op.signature));
    o.scratch.push_back(std::move(t));
  }
  for (const OperationLaunch &l : op.launches) {
    KernelLaunch launch;
    launch.kernel = l.kernel->name;
    // The conjunction of its `if` conditions (negated in else branches).
    for (const auto &[cond, branch] : l.guards) {
      GridExpr term = convertGrid(cond, op.signature);
      if (!branch) {
        GridExpr negated;
        negated.kind = GridExpr::Unary;
        negated.type = HostKind::Bool;
        negated.op = "!";
        negated.operands.push_back(std::move(term));
        term = std::move(negated);
      }
      if (!launch.when) {
        launch.when = std::move(term);
        continue;
      }
      GridExpr both;
      both.kind = GridExpr::Binary;
      both.type = HostKind::Bool;
      both.operandKind = HostKind::Bool;
      both.op = "&&";
      both.operands.push_back(std::move(*launch.when));
      both.operands.push_back(std::move(term));
      launch.when = std::move(both);
    }
    for (size_t i = 0; i < l.args.size(); ++i) {
      const LaunchArg &a = l.args[i];
      LaunchArgument arg;
      arg.kind = static_cast<LaunchArgument::Kind>(a.kind);
      arg.index = a.index;
      if (a.kind == LaunchArg::Scalar) {
        arg.value = convertGrid(a.value, op.signature);
        arg.scalarType = l.kernel->args[i]->type.dtype;
      }
      launch.args.push_back(std::move(arg));
    }
    o.launches.push_back(std::move(launch));
  }
  return o;
}
