//===- SemaExpr.cpp - Expressions and builtin calls -----------------------===//
#include "SemaImpl.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace tlc;
using namespace tlc::sema;

Type Sema::Impl::setType(Expr *e, Type t, std::optional<ConstValue> c) {
  e->type = t;
  e->constValue = c;
  return t;
}

Type Sema::Impl::checkExpr(Expr *e) {
  switch (e->kind) {
  case ExprKind::IntLit:
    return setType(e, Type::intTy(),
                   ConstValue::ofInt(static_cast<IntLitExpr *>(e)->value));
  case ExprKind::FloatLit:
    return setType(e, Type::floatLit(),
                   ConstValue::ofFloat(static_cast<FloatLitExpr *>(e)->value));
  case ExprKind::BoolLit:
    return setType(e, Type::scalar(DType::Bool),
                   ConstValue::ofBool(static_cast<BoolLitExpr *>(e)->value));
  case ExprKind::Name:
    return checkName(static_cast<NameExpr *>(e));
  case ExprKind::Unary:
    return checkUnary(static_cast<UnaryExpr *>(e));
  case ExprKind::Binary:
    return checkBinary(static_cast<BinaryExpr *>(e));
  case ExprKind::Ternary:
    return checkTernary(static_cast<TernaryExpr *>(e));
  case ExprKind::Call:
    return checkCall(static_cast<CallExpr *>(e), /*asStatement=*/false);
  case ExprKind::Index:
    return checkElement(static_cast<IndexExpr *>(e));
  case ExprKind::Slice: {
    auto *s = static_cast<SliceExpr *>(e);
    for (Expr *bound : {s->lo.get(), s->hi.get(), s->step.get()})
      if (bound)
        checkExpr(bound);
    diags.error(e->range, "a slice 'lo : hi' is only allowed in a window of "
                          "a tensor (copy, atomic_add)");
    return setType(e, Type::invalid());
  }
  }
  return Type::invalid();
}

Type Sema::Impl::checkName(NameExpr *e) {
  auto [sym, depth] = lookup(e->name);
  (void)depth;
  if (!sym) {
    if (auto d = parseDType(e->name))
      return setType(e, typeOfConst(ConstValue::ofDType(*d)),
                     ConstValue::ofDType(*d));
    diags.error(e->range, "use of undeclared name '" + e->name + "'");
    return setType(e, Type::invalid());
  }
  e->symbol = sym;
  return setType(e, sym->type, sym->constValue);
}

Type Sema::Impl::checkUnary(UnaryExpr *e) {
  Type t = checkExpr(e->operand.get());
  if (t.isInvalid())
    return setType(e, t);
  const auto &c = e->operand->constValue;
  if (e->op == UnaryOp::Not) {
    if (!t.isBool()) {
      diags.error(e->range, "'!' expects a bool, got " + t.str());
      return setType(e, Type::invalid());
    }
    return setType(e, t,
                   c ? std::optional(ConstValue::ofBool(!c->b)) : std::nullopt);
  }
  if (e->op == UnaryOp::BitNot) {
    t = promoteStorage(t);
    if (!isIntegerLike(t)) {
      diags.error(e->range, "'~' expects an integer, got " + t.str());
      return setType(e, Type::invalid());
    }
    std::optional<ConstValue> folded;
    if (c)
      folded = ConstValue::ofInt(
          t.kind == TypeKind::Scalar ? truncateInt(~c->i, t.dtype) : ~c->i);
    return setType(e, t, folded);
  }
  if (!t.isArith() || t.isBool()) {
    diags.error(e->range, "'-' expects a number, got " + t.str());
    return setType(e, Type::invalid());
  }
  t = promoteStorage(t);
  std::optional<ConstValue> folded;
  if (c) // integers wrap like the generated code: -INT64_MIN is INT64_MIN
    folded = c->kind == ConstValue::Int
                 ? ConstValue::ofInt(int64_t(0 - uint64_t(c->i)))
                 : ConstValue::ofFloat(-c->f);
  return setType(e, t, folded);
}

/// A float converted to the integer dtype `to`, toward zero. Out of range
/// the language leaves the result undefined; the compiler itself must not
/// be: it saturates (NaN gives 0).
static int64_t saturateToInt(double v, DType to) {
  if (std::isnan(v))
    return 0;
  double lo, hi;
  switch (to) {
  case DType::I32:
    lo = -2147483648.0, hi = 2147483647.0;
    break;
  case DType::I16:
    lo = -32768.0, hi = 32767.0;
    break;
  case DType::I8:
    lo = -128.0, hi = 127.0;
    break;
  case DType::U8:
    lo = 0.0, hi = 255.0;
    break;
  case DType::I4:
    lo = -8.0, hi = 7.0;
    break;
  case DType::U4:
    lo = 0.0, hi = 15.0;
    break;
  default:
    // 2^63 is not an int64; the largest double below it is.
    if (v >= 9223372036854775808.0)
      return std::numeric_limits<int64_t>::max();
    if (v <= -9223372036854775808.0)
      return std::numeric_limits<int64_t>::min();
    return int64_t(v);
  }
  return int64_t(std::min(std::max(v, lo), hi));
}

std::optional<ConstValue> Sema::Impl::foldBinary(BinaryOp op,
                                                 const ConstValue &a,
                                                 const ConstValue &b,
                                                 const Type &t, SMRange range) {
  bool isInt = a.kind == ConstValue::Int && b.kind == ConstValue::Int &&
               isIntegerLike(t);
  switch (op) {
  case BinaryOp::And:
    return ConstValue::ofBool(a.b && b.b);
  case BinaryOp::Or:
    return ConstValue::ofBool(a.b || b.b);
  case BinaryOp::Eq:
    return ConstValue::ofBool(a.kind == ConstValue::Bool ? a.b == b.b
                              : isInt ? a.i == b.i
                                      : a.asDouble() == b.asDouble());
  case BinaryOp::Ne:
    return ConstValue::ofBool(a.kind == ConstValue::Bool ? a.b != b.b
                              : isInt ? a.i != b.i
                                      : a.asDouble() != b.asDouble());
  case BinaryOp::Lt:
    return ConstValue::ofBool(isInt ? a.i < b.i : a.asDouble() < b.asDouble());
  case BinaryOp::Le:
    return ConstValue::ofBool(isInt ? a.i <= b.i
                                    : a.asDouble() <= b.asDouble());
  case BinaryOp::Gt:
    return ConstValue::ofBool(isInt ? a.i > b.i : a.asDouble() > b.asDouble());
  case BinaryOp::Ge:
    return ConstValue::ofBool(isInt ? a.i >= b.i
                                    : a.asDouble() >= b.asDouble());
  default:
    break;
  }
  if (isInt) {
    if ((op == BinaryOp::Div || op == BinaryOp::Rem) && b.i == 0) {
      diags.error(range, "division by zero in a constant expression");
      return std::nullopt;
    }
    // Wrapping two's-complement arithmetic, as the generated code does
    // (INT64_MIN / -1 would trap in the compiler itself).
    auto wrap = [](uint64_t v) { return ConstValue::ofInt((int64_t)v); };
    uint64_t ua = (uint64_t)a.i, ub = (uint64_t)b.i;
    switch (op) {
    case BinaryOp::Add:
      return wrap(ua + ub);
    case BinaryOp::Sub:
      return wrap(ua - ub);
    case BinaryOp::Mul:
      return wrap(ua * ub);
    case BinaryOp::Div:
      return b.i == -1 ? wrap(0 - ua) : ConstValue::ofInt(a.i / b.i);
    case BinaryOp::Rem:
      return b.i == -1 ? ConstValue::ofInt(0) : ConstValue::ofInt(a.i % b.i);
    default:
      break;
    }
    // Bitwise results keep the typed operand's bits, as the generated
    // code's (i32(1) << 31 is INT32_MIN; the amount is checked to be
    // within the width). A typed value is sign- or zero-extended, so >> on
    // it is arithmetic or logical as its type says.
    auto typed = [&](int64_t v) {
      return ConstValue::ofInt(
          t.kind == TypeKind::Scalar ? truncateInt(v, t.dtype) : v);
    };
    switch (op) {
    case BinaryOp::BitAnd:
      return typed(a.i & b.i);
    case BinaryOp::BitOr:
      return typed(a.i | b.i);
    case BinaryOp::BitXor:
      return typed(a.i ^ b.i);
    case BinaryOp::Shl:
      return typed(int64_t(ua << b.i));
    case BinaryOp::Shr:
      return typed(typed(a.i).i >> b.i);
    default:
      return std::nullopt;
    }
  }
  double x = a.asDouble(), y = b.asDouble();
  switch (op) {
  case BinaryOp::Add:
    return ConstValue::ofFloat(x + y);
  case BinaryOp::Sub:
    return ConstValue::ofFloat(x - y);
  case BinaryOp::Mul:
    return ConstValue::ofFloat(x * y);
  case BinaryOp::Div:
    return ConstValue::ofFloat(x / y);
  case BinaryOp::Rem:
    return ConstValue::ofFloat(std::fmod(x, y));
  default:
    return std::nullopt;
  }
}

/// Whether `op` is one of the bitwise operators (integers only).
static bool isBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
         op == BinaryOp::BitXor || op == BinaryOp::Shl || op == BinaryOp::Shr;
}

Type Sema::Impl::checkBinary(BinaryExpr *e) {
  Type l = checkExpr(e->lhs.get()), r = checkExpr(e->rhs.get());
  if (l.isInvalid() || r.isInvalid())
    return setType(e, Type::invalid());
  Type result, operand;
  if (isBitwise(e->op)) {
    if (!isIntegerLike(l) || !isIntegerLike(r)) {
      diags.error(e->range, "bitwise operators expect integers, got " +
                                l.str() + " and " + r.str());
      return setType(e, Type::invalid());
    }
    operand = result = commonType(l, r, e->range);
    if (operand.isInvalid())
      return setType(e, operand);
    // A constant shift amount must be below the operand's width (a run-time
    // one is taken modulo the width).
    int64_t bits =
        operand.kind == TypeKind::Scalar ? bitWidth(operand.dtype) : 64;
    const auto &amount = e->rhs->constValue;
    if ((e->op == BinaryOp::Shl || e->op == BinaryOp::Shr) && amount &&
        (amount->i < 0 || amount->i >= bits)) {
      diags.error(e->rhs->range, "shift amount " + std::to_string(amount->i) +
                                     " is not in [0, " + std::to_string(bits) +
                                     ") for " + operand.str());
      return setType(e, Type::invalid());
    }
  } else if (e->op == BinaryOp::And || e->op == BinaryOp::Or) {
    if (!l.isBool() || !r.isBool()) {
      diags.error(e->range, "'&&' and '||' expect bool operands, got " +
                                l.str() + " and " + r.str());
      return setType(e, Type::invalid());
    }
    operand = result = l;
  } else if ((e->op == BinaryOp::Eq || e->op == BinaryOp::Ne) && l.isBool() &&
             r.isBool()) {
    operand = l;
    result = l;
  } else {
    operand = commonType(l, r, e->range);
    if (operand.isInvalid())
      return setType(e, operand);
    bool isCompare = e->op >= BinaryOp::Lt && e->op <= BinaryOp::Ne;
    result = isCompare ? Type::scalar(DType::Bool) : operand;
  }
  e->operandType = operand;
  if ((e->op == BinaryOp::Div || e->op == BinaryOp::Rem) &&
      isIntegerLike(operand) && e->rhs->constValue &&
      e->rhs->constValue->kind == ConstValue::Int &&
      e->rhs->constValue->i == 0) {
    diags.error(e->rhs->range, "integer division by zero");
    return setType(e, Type::invalid());
  }
  std::optional<ConstValue> folded;
  if (e->lhs->constValue && e->rhs->constValue)
    folded = foldBinary(e->op, *e->lhs->constValue, *e->rhs->constValue,
                        operand, e->range);
  return setType(e, result, folded);
}

Type Sema::Impl::checkTernary(TernaryExpr *e) {
  Type c = checkExpr(e->cond.get());
  Type a = checkExpr(e->trueValue.get()), b = checkExpr(e->falseValue.get());
  if (c.isInvalid() || a.isInvalid() || b.isInvalid())
    return setType(e, Type::invalid());
  if (!c.isBool()) {
    diags.error(e->cond->range, "condition must be a bool, got " + c.str());
    return setType(e, Type::invalid());
  }
  Type t = (a.isBool() && b.isBool()) ? a : commonType(a, b, e->range);
  if (t.isInvalid())
    return setType(e, t);
  std::optional<ConstValue> folded;
  if (e->cond->constValue) {
    Expr *taken =
        e->cond->constValue->b ? e->trueValue.get() : e->falseValue.get();
    folded = taken->constValue;
  }
  return setType(e, t, folded);
}

Type Sema::Impl::checkElement(IndexExpr *e) {
  Type base = checkExpr(e->base.get());
  if (base.isInvalid())
    return setType(e, base);
  if (base.kind != TypeKind::Tile && base.kind != TypeKind::Tensor) {
    diags.error(e->base->range, "cannot index a value of type " + base.str());
    return setType(e, Type::invalid());
  }
  bool tensor = base.kind == TypeKind::Tensor;
  if (e->indices.size() != base.rank()) {
    diags.error(e->range, std::string(tensor ? "tensor" : "tile") +
                              " of rank " + std::to_string(base.rank()) +
                              " indexed with " +
                              std::to_string(e->indices.size()) + " indices");
    return setType(e, Type::invalid());
  }
  bool ok = true;
  for (size_t i = 0; i < e->indices.size(); ++i) {
    Expr *idx = e->indices[i].get();
    Type t = checkExpr(idx);
    if (t.isInvalid()) {
      ok = false;
      continue;
    }
    if (!isIntegerLike(t)) {
      diags.error(idx->range, "index must be an integer, got " + t.str());
      ok = false;
    } else if (!tensor && idx->constValue &&
               (idx->constValue->i < 0 ||
                idx->constValue->i >= base.shape[i].size)) {
      diags.error(idx->range, "index " + std::to_string(idx->constValue->i) +
                                  " is out of bounds for dimension of size " +
                                  std::to_string(base.shape[i].size));
      ok = false;
    }
  }
  if (!ok)
    return setType(e, Type::invalid());
  return setType(e, Type::scalar(base.dtype));
}

bool Sema::Impl::checkArity(CallExpr *e, size_t minArgs, size_t maxArgs) {
  if (e->args.size() >= minArgs && e->args.size() <= maxArgs)
    return true;
  std::string expected = minArgs == maxArgs ? std::to_string(minArgs)
                                            : std::to_string(minArgs) + " to " +
                                                  std::to_string(maxArgs);
  diags.error(e->range, "'" + e->callee + "' expects " + expected +
                            " argument" + (maxArgs == 1 ? "" : "s") + ", got " +
                            std::to_string(e->args.size()));
  return false;
}

bool Sema::Impl::checkNoKwargs(CallExpr *e) {
  if (e->kwargs.empty())
    return true;
  diags.error(e->kwargs[0].nameRange,
              "'" + e->callee + "' takes no keyword arguments");
  return false;
}

Type Sema::Impl::checkCall(CallExpr *e, bool asStatement) {
  TileOpKind op = tileOpKind(e->callee);
  if (op != TileOpKind::None) {
    if (!asStatement) {
      diags.error(e->calleeRange,
                  "'" + e->callee + "' is a statement, not a value");
      return setType(e, Type::invalid());
    }
    if (op == TileOpKind::Atomic && isElementAtomic(e))
      return setType(e,
                     checkElementAtomic(e) ? Type::voidTy() : Type::invalid());
    if (parallel) {
      diags.error(e->calleeRange, "tile op '" + e->callee +
                                      "' is not allowed inside 'parallel'");
      return setType(e, Type::invalid());
    }
    if (fnInstance)
      fnInstance->usesTileOps = true;
    bool ok = false;
    switch (op) {
    case TileOpKind::Copy:
      ok = checkCopy(e);
      break;
    case TileOpKind::Fill:
      ok = checkFill(e);
      break;
    case TileOpKind::Gemm:
      ok = checkGemm(e);
      break;
    case TileOpKind::Reduce:
      ok = checkReduce(e);
      break;
    case TileOpKind::Atomic:
      ok = checkAtomicAdd(e);
      break;
    case TileOpKind::ClusterReduce:
      ok = checkClusterReduce(e);
      break;
    case TileOpKind::None:
      break;
    }
    return setType(e, ok ? Type::voidTy() : Type::invalid());
  }
  if (fns.count(e->callee))
    return checkFnCall(e, asStatement);
  if (e->callee == "view") {
    diags.error(e->calleeRange, "'view' makes a tensor: bind it with let, "
                                "e.g. let Xf = view(X, N * H, D);");
    for (ExprPtr &a : e->args)
      checkExpr(a.get());
    return setType(e, Type::invalid());
  }
  if (auto d = parseDType(e->callee))
    return checkCast(e, *d);
  {
    auto [sym, depth] = lookup(e->callee);
    (void)depth;
    if (sym && sym->constValue && sym->constValue->kind == ConstValue::DTypeVal)
      return checkCast(e, sym->constValue->dtype);
    if (sym) {
      diags.error(e->calleeRange, "'" + e->callee + "' is not a function");
      return setType(e, Type::invalid());
    }
  }
  if (e->callee == "cdiv")
    return checkCdiv(e);
  if (e->callee == "sizeof")
    return checkSizeof(e);
  if (e->callee == "min" || e->callee == "max" || e->callee == "pow")
    return checkBinaryMath(e);
  if (isUnaryMath(e->callee))
    return checkUnaryMath(e);
  diags.error(e->calleeRange, "unknown function '" + e->callee + "'");
  for (ExprPtr &a : e->args)
    checkExpr(a.get());
  return setType(e, Type::invalid());
}

Type Sema::Impl::checkCast(CallExpr *e, DType to) {
  if (!checkNoKwargs(e) || !checkArity(e, 1, 1))
    return setType(e, Type::invalid());
  e->castTo = to;
  Type t = checkExpr(e->args[0].get());
  if (t.isInvalid())
    return setType(e, t);
  if (!t.isArith()) {
    diags.error(e->args[0]->range,
                "cannot cast " + t.str() + " to " + dtypeName(to).str());
    return setType(e, Type::invalid());
  }
  std::optional<ConstValue> folded;
  if (auto &c = e->args[0]->constValue) {
    if (to == DType::Bool)
      folded = ConstValue::ofBool(c->asDouble() != 0);
    else if (isFloat(to))
      folded = ConstValue::ofFloat(roundToFloatDType(c->asDouble(), to));
    else
      folded = ConstValue::ofInt(c->kind == ConstValue::Int
                                     ? truncateInt(c->i, to)
                                     : saturateToInt(c->asDouble(), to));
  }
  return setType(e, Type::scalar(to), folded);
}

Type Sema::Impl::checkCdiv(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
    return setType(e, Type::invalid());
  Type a = checkExpr(e->args[0].get()), b = checkExpr(e->args[1].get());
  if (a.isInvalid() || b.isInvalid())
    return setType(e, Type::invalid());
  if (!isIntegerLike(a) || !isIntegerLike(b)) {
    diags.error(e->range,
                "'cdiv' expects integers, got " + a.str() + " and " + b.str());
    return setType(e, Type::invalid());
  }
  Type t = commonType(a, b, e->range);
  std::optional<ConstValue> folded;
  auto &ca = e->args[0]->constValue, &cb = e->args[1]->constValue;
  if (cb && cb->i <= 0) {
    diags.error(e->args[1]->range, "'cdiv' by a non-positive constant");
    return setType(e, Type::invalid());
  }
  if (ca && cb) // exact ceiling (b > 0), without overflow
    folded = ConstValue::ofInt(ca->i / cb->i + (ca->i % cb->i > 0 ? 1 : 0));
  return setType(e, t, folded);
}

Type Sema::Impl::checkSizeof(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 1, 1))
    return setType(e, Type::invalid());
  Type t = checkExpr(e->args[0].get());
  if (t.isInvalid())
    return setType(e, t);
  const std::optional<ConstValue> &c = e->args[0]->constValue;
  if (!c || c->kind != ConstValue::DTypeVal) {
    diags.error(e->args[0]->range,
                "'sizeof' expects a dtype (a dtype name or a dtype "
                "parameter), got " +
                    t.str());
    return setType(e, Type::invalid());
  }
  if (isPacked(c->dtype)) {
    diags.error(e->args[0]->range, "'sizeof' of " + dtypeName(c->dtype).str() +
                                       " is half a byte; count bytes of "
                                       "packed pairs as n / 2");
    return setType(e, Type::invalid());
  }
  ConstValue bytes = ConstValue::ofInt(byteSize(c->dtype));
  return setType(e, typeOfConst(bytes), bytes);
}

Type Sema::Impl::checkBinaryMath(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
    return setType(e, Type::invalid());
  Type a = checkExpr(e->args[0].get()), b = checkExpr(e->args[1].get());
  if (a.isInvalid() || b.isInvalid())
    return setType(e, Type::invalid());
  Type t = commonType(a, b, e->range);
  if (t.isInvalid())
    return setType(e, t);
  if (e->callee == "pow" && isIntegerLike(t))
    t = Type::floatLit();
  std::optional<ConstValue> folded;
  auto &ca = e->args[0]->constValue, &cb = e->args[1]->constValue;
  if (ca && cb) {
    if (e->callee == "pow")
      folded = ConstValue::ofFloat(std::pow(ca->asDouble(), cb->asDouble()));
    else if (isIntegerLike(t))
      folded = ConstValue::ofInt(e->callee == "min" ? std::min(ca->i, cb->i)
                                                    : std::max(ca->i, cb->i));
    else
      folded = ConstValue::ofFloat(
          e->callee == "min" ? std::min(ca->asDouble(), cb->asDouble())
                             : std::max(ca->asDouble(), cb->asDouble()));
  }
  return setType(e, t, folded);
}

Type Sema::Impl::checkUnaryMath(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 1, 1))
    return setType(e, Type::invalid());
  Type t = checkExpr(e->args[0].get());
  if (t.isInvalid())
    return setType(e, t);
  if (!t.isArith() || t.isBool()) {
    diags.error(e->args[0]->range,
                "'" + e->callee + "' expects a number, got " + t.str());
    return setType(e, Type::invalid());
  }
  t = promoteStorage(t);
  bool intOk = e->callee == "abs";
  if (isIntegerLike(t) && !intOk) {
    if (t.kind == TypeKind::Scalar) {
      diags.error(e->args[0]->range, "'" + e->callee +
                                         "' expects a float, got " + t.str() +
                                         "; use a cast");
      return setType(e, Type::invalid());
    }
    t = Type::floatLit();
  }
  std::optional<ConstValue> folded;
  if (auto &c = e->args[0]->constValue) {
    if (isIntegerLike(t)) // wraps: abs(INT64_MIN) is INT64_MIN, as math.absi
      folded = ConstValue::ofInt(c->i < 0 ? int64_t(0 - uint64_t(c->i)) : c->i);
    else
      folded = ConstValue::ofFloat(foldUnaryMath(e->callee, c->asDouble()));
  }
  return setType(e, t, folded);
}
