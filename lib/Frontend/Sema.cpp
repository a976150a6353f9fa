//===- Sema.cpp - Name resolution, types, shapes, constants ---------------===//
#include "tlc/Frontend/Sema.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>
#include <set>

using namespace tlc;
using llvm::SMRange;
using llvm::StringRef;

namespace {
enum class TileOpKind { None, Copy, Fill, Gemm, Reduce, AtomicAdd };

TileOpKind tileOpKind(StringRef name) {
  return llvm::StringSwitch<TileOpKind>(name)
      .Case("copy", TileOpKind::Copy)
      .Case("fill", TileOpKind::Fill)
      .Case("gemm", TileOpKind::Gemm)
      .Cases({"reduce_sum", "reduce_max", "reduce_min", "reduce_absmax"},
             TileOpKind::Reduce)
      .Case("atomic_add", TileOpKind::AtomicAdd)
      .Default(TileOpKind::None);
}

/// Unary float math builtins; abs also takes integers.
bool isUnaryMath(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf"},
             true)
      .Cases({"sin", "cos", "floor", "ceil", "abs", "sigmoid"}, true)
      .Default(false);
}

double foldUnaryMath(StringRef name, double x) {
  return llvm::StringSwitch<double>(name)
      .Case("exp", std::exp(x))
      .Case("exp2", std::exp2(x))
      .Case("log", std::log(x))
      .Case("log2", std::log2(x))
      .Case("sqrt", std::sqrt(x))
      .Case("rsqrt", 1.0 / std::sqrt(x))
      .Case("tanh", std::tanh(x))
      .Case("erf", std::erf(x))
      .Case("sin", std::sin(x))
      .Case("cos", std::cos(x))
      .Case("floor", std::floor(x))
      .Case("ceil", std::ceil(x))
      .Case("abs", std::fabs(x))
      .Case("sigmoid", 1.0 / (1.0 + std::exp(-x)))
      .Default(x);
}

bool isIntegerLike(const Type &t) {
  return t.kind == TypeKind::Int ||
         (t.kind == TypeKind::Scalar && !isFloat(t.dtype) &&
          t.dtype != DType::Bool);
}

std::string shapeStr(const std::vector<Dim> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + shape[i].str();
  return s + "]";
}

/// Parses the text of a `-D NAME=TEXT` define.
std::optional<ConstValue> parseDefineValue(StringRef text) {
  text = text.trim();
  if (text == "true")
    return ConstValue::ofBool(true);
  if (text == "false")
    return ConstValue::ofBool(false);
  if (auto d = parseDType(text))
    return ConstValue::ofDType(*d);
  int64_t i;
  // Decimal (a leading 0 is still decimal), or 0x / 0b / 0o prefixed.
  unsigned radix = 10;
  llvm::StringRef digits = text, sign;
  if (digits.consume_front("-"))
    sign = "-";
  if (digits.consume_front("0x") || digits.consume_front("0X"))
    radix = 16;
  else if (digits.consume_front("0b") || digits.consume_front("0B"))
    radix = 2;
  else if (digits.consume_front("0o") || digits.consume_front("0O"))
    radix = 8;
  if (!digits.empty() && !digits.getAsInteger(radix, i))
    return ConstValue::ofInt(sign.empty() ? i : -i);
  double f;
  if (!text.getAsDouble(f))
    return ConstValue::ofFloat(f);
  return std::nullopt;
}

Type typeOfConst(const ConstValue &c) {
  switch (c.kind) {
  case ConstValue::Int:
    return Type::intTy();
  case ConstValue::Float:
    return Type::floatLit();
  case ConstValue::Bool:
    return Type::scalar(DType::Bool);
  case ConstValue::DTypeVal: {
    Type t;
    t.kind = TypeKind::DTypeValue;
    t.dtype = c.dtype;
    return t;
  }
  }
  return Type::invalid();
}
} // namespace

//===----------------------------------------------------------------------===//
// Sema::Impl
//===----------------------------------------------------------------------===//

struct Sema::Impl {
  Sema &self;
  DiagnosticEngine &diags;
  std::map<std::string, std::string> defines;
  llvm::StringSet<> usedDefines;
  std::deque<Symbol> symbols;
  std::vector<llvm::StringMap<Symbol *>> scopes;
  llvm::StringMap<FnDecl *> fns;
  std::vector<const FnDecl *> instantiating;

  // Context of the body being checked.
  KernelInfo *kernel = nullptr;
  FnInstance *fnInstance = nullptr;
  const ParallelStmt *parallel = nullptr;
  const Stmt *lastFnStmt = nullptr; // the only place a return may be
  size_t parallelScopeDepth = 0;

  Impl(Sema &self, DiagnosticEngine &diags,
       std::map<std::string, std::string> defines)
      : self(self), diags(diags), defines(std::move(defines)) {}

  //===--- Scopes -------------------------------------------------------===//

  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  Symbol *declare(SymbolKind kind, const std::string &name, SMRange range,
                  Type type) {
    auto &scope = scopes.back();
    auto it = scope.find(name);
    if (it != scope.end()) {
      diags.error(range, "redefinition of '" + name + "'");
      diags.note(it->second->range.Start, "previous definition is here");
      return it->second;
    }
    symbols.push_back(Symbol{kind, name, range, std::move(type), {}, -1});
    scope[name] = &symbols.back();
    return &symbols.back();
  }

  /// Returns the symbol and the index of the scope that holds it.
  std::pair<Symbol *, size_t> lookup(StringRef name) {
    for (size_t i = scopes.size(); i-- > 0;) {
      auto it = scopes[i].find(name);
      if (it != scopes[i].end())
        return {it->second, i};
    }
    return {nullptr, 0};
  }

  /// A fresh scope stack holding only the builtin constants.
  void resetScopes() {
    scopes.clear();
    pushScope();
    Symbol *inf = declare(SymbolKind::Constant, "inf", {}, Type::floatLit());
    inf->constValue =
        ConstValue::ofFloat(std::numeric_limits<double>::infinity());
    Symbol *pi = declare(SymbolKind::Constant, "pi", {}, Type::floatLit());
    pi->constValue = ConstValue::ofFloat(M_PI);
  }

  //===--- Types --------------------------------------------------------===//

  /// The common type of two arithmetic operands, or Invalid after an error.
  Type commonType(const Type &a, const Type &b, SMRange range) {
    if (a.isInvalid() || b.isInvalid())
      return Type::invalid();
    if (!a.isArith() || !b.isArith() || a.isBool() || b.isBool()) {
      diags.error(range, "invalid operands to arithmetic (" + a.str() +
                             " and " + b.str() + ")");
      return Type::invalid();
    }
    if (a.kind == TypeKind::Int && b.kind == TypeKind::Int)
      return Type::intTy();
    if (a.kind != TypeKind::Scalar && b.kind != TypeKind::Scalar)
      return Type::floatLit(); // Int/Float mix of literals
    if (a.kind != TypeKind::Scalar || b.kind != TypeKind::Scalar) {
      const Type &typed = a.kind == TypeKind::Scalar ? a : b;
      const Type &untyped = a.kind == TypeKind::Scalar ? b : a;
      if (untyped.kind == TypeKind::Float && !isFloat(typed.dtype)) {
        diags.error(range, "cannot mix a float value with integer type " +
                               typed.str() + "; use an explicit cast");
        return Type::invalid();
      }
      return typed;
    }
    if (a.dtype == b.dtype)
      return a;
    if (isFloat(a.dtype) != isFloat(b.dtype)) {
      diags.error(range, "mixed dtypes " + a.str() + " and " + b.str() +
                             "; use an explicit cast");
      return Type::invalid();
    }
    unsigned wa = bitWidth(a.dtype), wb = bitWidth(b.dtype);
    if (wa == wb && isFloat(a.dtype)) // f16 with bf16
      return Type::scalar(DType::F32);
    if (wa == wb) { // i8 with u8
      diags.error(range, "mixed dtypes " + a.str() + " and " + b.str() +
                             "; use an explicit cast");
      return Type::invalid();
    }
    return wa > wb ? a : b;
  }

  /// Reports an error unless a value of type `from` converts implicitly to
  /// a scalar of dtype `to`.
  bool checkConvertible(const Type &from, DType to, SMRange range,
                        const std::string &what) {
    if (from.isInvalid())
      return false;
    if (!from.isArith()) {
      diags.error(range, what + " expects a scalar value, got " + from.str());
      return false;
    }
    if (from.kind == TypeKind::Float && !isFloat(to)) {
      diags.error(range, "cannot convert a float value to " +
                             dtypeName(to).str() + " implicitly; use a cast");
      return false;
    }
    if (from.kind == TypeKind::Scalar && from.dtype != to &&
        isFloat(from.dtype) && !isFloat(to)) {
      diags.error(range, "cannot convert " + from.str() + " to " +
                             dtypeName(to).str() +
                             " implicitly; use an explicit cast");
      return false;
    }
    return true;
  }

  std::optional<DType> resolveDType(const std::string &name, SMRange range) {
    if (auto d = parseDType(name))
      return d;
    auto [sym, depth] = lookup(name);
    (void)depth;
    if (sym && sym->constValue && sym->constValue->kind == ConstValue::DTypeVal)
      return sym->constValue->dtype;
    if (sym && sym->kind == SymbolKind::Param && !sym->constValue)
      return std::nullopt; // its missing value was reported already
    diags.error(range, "unknown dtype '" + name + "'");
    return std::nullopt;
  }

  std::optional<int64_t> constInt(Expr *e, const std::string &what) {
    Type t = checkExpr(e);
    if (t.isInvalid())
      return std::nullopt;
    if (!e->constValue || e->constValue->kind != ConstValue::Int) {
      diags.error(e->range, what + " must be a compile-time integer");
      return std::nullopt;
    }
    return e->constValue->i;
  }

  bool constBool(Expr *e, const std::string &what, bool &out) {
    Type t = checkExpr(e);
    if (t.isInvalid())
      return false;
    if (!e->constValue || e->constValue->kind != ConstValue::Bool) {
      diags.error(e->range, what + " must be a compile-time bool");
      return false;
    }
    out = e->constValue->b;
    return true;
  }

  /// Resolves a tile type expression: dtype and a static shape.
  std::optional<Type> resolveTileType(TypeExpr &te, MemScope scope) {
    auto dtype = resolveDType(te.elemName, te.elemRange);
    if (!te.hasShape) {
      diags.error(te.range, "a tile needs a shape, e.g. f32[64, 64]");
      return std::nullopt;
    }
    std::vector<Dim> shape;
    bool ok = dtype.has_value();
    for (ExprPtr &d : te.dims) {
      auto v = constInt(d.get(), "a tile dimension");
      if (!v) {
        ok = false;
        continue;
      }
      if (*v <= 0) {
        diags.error(d->range, "tile dimension must be positive, got " +
                                  std::to_string(*v));
        ok = false;
      }
      shape.push_back(Dim{*v, ""});
    }
    if (te.dims.empty() || te.dims.size() > 4) {
      diags.error(te.range, "tiles have rank 1 to 4");
      ok = false;
    }
    if (!ok)
      return std::nullopt;
    // Tiles are on-chip memory: anything near 2^31 bytes is a mistake (and
    // would overflow size computations downstream).
    constexpr uint64_t kMaxTileBytes = uint64_t(1) << 31;
    uint64_t bytes = byteSize(*dtype);
    for (const Dim &d : shape) {
      if (bytes > kMaxTileBytes / uint64_t(d.size)) {
        diags.error(te.range, "tile " + Type::tile(*dtype, scope, shape).str() +
                                  " is too large (over 2 GiB)");
        return std::nullopt;
      }
      bytes *= uint64_t(d.size);
    }
    return Type::tile(*dtype, scope, shape);
  }

  //===--- Expressions --------------------------------------------------===//

  Type setType(Expr *e, Type t, std::optional<ConstValue> c = std::nullopt) {
    e->type = t;
    e->constValue = c;
    return t;
  }

  Type checkExpr(Expr *e) {
    switch (e->kind) {
    case ExprKind::IntLit:
      return setType(e, Type::intTy(),
                     ConstValue::ofInt(static_cast<IntLitExpr *>(e)->value));
    case ExprKind::FloatLit:
      return setType(
          e, Type::floatLit(),
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
    }
    return Type::invalid();
  }

  Type checkName(NameExpr *e) {
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

  Type checkUnary(UnaryExpr *e) {
    Type t = checkExpr(e->operand.get());
    if (t.isInvalid())
      return setType(e, t);
    const auto &c = e->operand->constValue;
    if (e->op == UnaryOp::Not) {
      if (!t.isBool()) {
        diags.error(e->range, "'!' expects a bool, got " + t.str());
        return setType(e, Type::invalid());
      }
      return setType(
          e, t, c ? std::optional(ConstValue::ofBool(!c->b)) : std::nullopt);
    }
    if (!t.isArith() || t.isBool()) {
      diags.error(e->range, "'-' expects a number, got " + t.str());
      return setType(e, Type::invalid());
    }
    std::optional<ConstValue> folded;
    if (c)
      folded = c->kind == ConstValue::Int ? ConstValue::ofInt(-c->i)
                                          : ConstValue::ofFloat(-c->f);
    return setType(e, t, folded);
  }

  std::optional<ConstValue> foldBinary(BinaryOp op, const ConstValue &a,
                                       const ConstValue &b, const Type &t,
                                       SMRange range) {
    bool isInt = a.kind == ConstValue::Int && b.kind == ConstValue::Int &&
                 isIntegerLike(t);
    switch (op) {
    case BinaryOp::And:
      return ConstValue::ofBool(a.b && b.b);
    case BinaryOp::Or:
      return ConstValue::ofBool(a.b || b.b);
    case BinaryOp::Eq:
      return ConstValue::ofBool(a.kind == ConstValue::Bool ? a.b == b.b
                                : isInt                    ? a.i == b.i
                                        : a.asDouble() == b.asDouble());
    case BinaryOp::Ne:
      return ConstValue::ofBool(a.kind == ConstValue::Bool ? a.b != b.b
                                : isInt                    ? a.i != b.i
                                        : a.asDouble() != b.asDouble());
    case BinaryOp::Lt:
      return ConstValue::ofBool(isInt ? a.i < b.i
                                      : a.asDouble() < b.asDouble());
    case BinaryOp::Le:
      return ConstValue::ofBool(isInt ? a.i <= b.i
                                      : a.asDouble() <= b.asDouble());
    case BinaryOp::Gt:
      return ConstValue::ofBool(isInt ? a.i > b.i
                                      : a.asDouble() > b.asDouble());
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

  Type checkBinary(BinaryExpr *e) {
    Type l = checkExpr(e->lhs.get()), r = checkExpr(e->rhs.get());
    if (l.isInvalid() || r.isInvalid())
      return setType(e, Type::invalid());
    Type result, operand;
    if (e->op == BinaryOp::And || e->op == BinaryOp::Or) {
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

  Type checkTernary(TernaryExpr *e) {
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

  /// `t[i, j]` in scalar context: an element of a tile.
  Type checkElement(IndexExpr *e) {
    Type base = checkExpr(e->base.get());
    if (base.isInvalid())
      return setType(e, base);
    if (base.kind == TypeKind::Tensor) {
      diags.error(e->range, "element access to global tensor is not "
                            "supported; copy a tile of it first");
      return setType(e, Type::invalid());
    }
    if (base.kind != TypeKind::Tile) {
      diags.error(e->base->range, "cannot index a value of type " + base.str());
      return setType(e, Type::invalid());
    }
    if (e->indices.size() != base.rank()) {
      diags.error(e->range, "tile of rank " + std::to_string(base.rank()) +
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
      } else if (idx->constValue &&
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

  //===--- Calls --------------------------------------------------------===//

  bool checkArity(CallExpr *e, size_t minArgs, size_t maxArgs) {
    if (e->args.size() >= minArgs && e->args.size() <= maxArgs)
      return true;
    std::string expected =
        minArgs == maxArgs
            ? std::to_string(minArgs)
            : std::to_string(minArgs) + " to " + std::to_string(maxArgs);
    diags.error(e->range, "'" + e->callee + "' expects " + expected +
                              " argument" + (maxArgs == 1 ? "" : "s") +
                              ", got " + std::to_string(e->args.size()));
    return false;
  }

  bool checkNoKwargs(CallExpr *e) {
    if (e->kwargs.empty())
      return true;
    diags.error(e->kwargs[0].nameRange,
                "'" + e->callee + "' takes no keyword arguments");
    return false;
  }

  Type checkCall(CallExpr *e, bool asStatement) {
    TileOpKind op = tileOpKind(e->callee);
    if (op != TileOpKind::None) {
      if (!asStatement) {
        diags.error(e->calleeRange,
                    "'" + e->callee + "' is a statement, not a value");
        return setType(e, Type::invalid());
      }
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
      case TileOpKind::AtomicAdd:
        ok = checkAtomicAdd(e);
        break;
      case TileOpKind::None:
        break;
      }
      return setType(e, ok ? Type::voidTy() : Type::invalid());
    }
    if (fns.count(e->callee))
      return checkFnCall(e, asStatement);
    if (auto d = parseDType(e->callee))
      return checkCast(e, *d);
    {
      auto [sym, depth] = lookup(e->callee);
      (void)depth;
      if (sym && sym->constValue &&
          sym->constValue->kind == ConstValue::DTypeVal)
        return checkCast(e, sym->constValue->dtype);
      if (sym) {
        diags.error(e->calleeRange, "'" + e->callee + "' is not a function");
        return setType(e, Type::invalid());
      }
    }
    if (e->callee == "cdiv")
      return checkCdiv(e);
    if (e->callee == "min" || e->callee == "max" || e->callee == "pow")
      return checkBinaryMath(e);
    if (isUnaryMath(e->callee))
      return checkUnaryMath(e);
    diags.error(e->calleeRange, "unknown function '" + e->callee + "'");
    for (ExprPtr &a : e->args)
      checkExpr(a.get());
    return setType(e, Type::invalid());
  }

  Type checkCast(CallExpr *e, DType to) {
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
        folded = ConstValue::ofFloat(c->asDouble());
      else
        folded = ConstValue::ofInt(
            c->kind == ConstValue::Int ? c->i : (int64_t)c->asDouble());
    }
    return setType(e, Type::scalar(to), folded);
  }

  Type checkCdiv(CallExpr *e) {
    if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
      return setType(e, Type::invalid());
    Type a = checkExpr(e->args[0].get()), b = checkExpr(e->args[1].get());
    if (a.isInvalid() || b.isInvalid())
      return setType(e, Type::invalid());
    if (!isIntegerLike(a) || !isIntegerLike(b)) {
      diags.error(e->range, "'cdiv' expects integers, got " + a.str() +
                                " and " + b.str());
      return setType(e, Type::invalid());
    }
    Type t = commonType(a, b, e->range);
    std::optional<ConstValue> folded;
    auto &ca = e->args[0]->constValue, &cb = e->args[1]->constValue;
    if (cb && cb->i <= 0) {
      diags.error(e->args[1]->range, "'cdiv' by a non-positive constant");
      return setType(e, Type::invalid());
    }
    if (ca && cb)
      folded = ConstValue::ofInt((ca->i + cb->i - 1) / cb->i);
    return setType(e, t, folded);
  }

  Type checkBinaryMath(CallExpr *e) {
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

  Type checkUnaryMath(CallExpr *e) {
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
      if (isIntegerLike(t))
        folded = ConstValue::ofInt(c->i < 0 ? -c->i : c->i);
      else
        folded = ConstValue::ofFloat(foldUnaryMath(e->callee, c->asDouble()));
    }
    return setType(e, t, folded);
  }

  //===--- Tile op operands ---------------------------------------------===//

  /// A tile-op operand: a tile or tensor name, or a window `X[i, ...]`.
  struct Operand {
    Symbol *symbol = nullptr;
    Type type; // the tile or tensor type
    bool window = false;
  };

  std::optional<Operand> checkOperand(Expr *e, bool allowWindow,
                                      const std::string &what) {
    Expr *baseExpr = e;
    IndexExpr *index = nullptr;
    if (e->kind == ExprKind::Index) {
      index = static_cast<IndexExpr *>(e);
      baseExpr = index->base.get();
    }
    if (baseExpr->kind != ExprKind::Name) {
      diags.error(e->range, what + " must be a tile or tensor name");
      checkExpr(e);
      return std::nullopt;
    }
    Type t = checkExpr(baseExpr);
    if (t.isInvalid())
      return std::nullopt;
    if (!t.isShaped()) {
      diags.error(e->range, what + " must be a tile or tensor, got " + t.str());
      return std::nullopt;
    }
    Operand op{static_cast<NameExpr *>(baseExpr)->symbol, t, false};
    e->type = t;
    if (!index)
      return op;
    if (!allowWindow) {
      diags.error(e->range, what + " must be a whole tile, not a window");
      return std::nullopt;
    }
    if (index->indices.size() != t.rank()) {
      diags.error(e->range, "'" + op.symbol->name + "' has rank " +
                                std::to_string(t.rank()) + " but " +
                                std::to_string(index->indices.size()) +
                                " indices were given");
      return std::nullopt;
    }
    bool ok = true;
    for (ExprPtr &idx : index->indices) {
      Type it = checkExpr(idx.get());
      if (!it.isInvalid() && !isIntegerLike(it)) {
        diags.error(idx->range, "index must be an integer, got " + it.str());
        ok = false;
      }
      ok &= !it.isInvalid();
    }
    op.window = true;
    return ok ? std::optional(op) : std::nullopt;
  }

  bool checkWritable(const Operand &op, SMRange range) {
    if (op.symbol->kind == SymbolKind::Arg &&
        op.type.kind == TypeKind::Tensor && kernel &&
        kernel->decl->args[op.symbol->index].qualifier == ArgQualifier::In) {
      diags.error(range, "cannot write to input tensor '" + op.symbol->name +
                             "'; declare it 'out' or 'inout'");
      return false;
    }
    return true;
  }

  /// Checks that a window of `tile` fits in `window`'s trailing dimensions.
  bool checkWindowFits(const Operand &window, const Type &tile,
                       Expr *windowExpr, const std::string &op) {
    if (tile.rank() > window.type.rank()) {
      diags.error(windowExpr->range,
                  op + ": a rank-" + std::to_string(tile.rank()) +
                      " tile does not fit in '" + window.symbol->name +
                      "' of rank " + std::to_string(window.type.rank()));
      return false;
    }
    // Windows into tiles must lie inside the tile (tensors are masked).
    if (window.type.kind == TypeKind::Tile) {
      auto *index = static_cast<IndexExpr *>(windowExpr);
      size_t lead = window.type.rank() - tile.rank();
      for (size_t i = 0; i < window.type.rank(); ++i) {
        int64_t extent = i < lead ? 1 : tile.shape[i - lead].size;
        auto &c = index->indices[i]->constValue;
        if (c && (c->i < 0 || c->i + extent > window.type.shape[i].size)) {
          diags.error(index->indices[i]->range,
                      op + ": window exceeds the bounds of tile '" +
                          window.symbol->name + "'");
          return false;
        }
      }
    }
    return true;
  }

  bool checkCopy(CallExpr *e) {
    if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
      return false;
    auto src = checkOperand(e->args[0].get(), true, "copy source");
    auto dst = checkOperand(e->args[1].get(), true, "copy destination");
    if (!src || !dst)
      return false;
    if (!checkWritable(*dst, e->args[1]->range))
      return false;
    bool srcGlobal = src->type.kind == TypeKind::Tensor;
    bool dstGlobal = dst->type.kind == TypeKind::Tensor;
    if (srcGlobal && dstGlobal) {
      diags.error(e->range, "copy between two global tensors is not "
                            "supported; stage through a tile");
      return false;
    }
    if (src->window && dst->window) {
      diags.error(e->range, "copy: only one side can be a window");
      return false;
    }
    if ((src->type.dtype == DType::U8) != (dst->type.dtype == DType::U8)) {
      diags.error(e->range, "copy: converting u8 to or from another dtype is "
                            "not supported yet");
      return false;
    }
    if ((srcGlobal && !src->window) || (dstGlobal && !dst->window)) {
      Expr *g = srcGlobal ? e->args[0].get() : e->args[1].get();
      diags.error(g->range, "copy: a global tensor needs a window origin, "
                            "e.g. A[i, j]");
      return false;
    }
    if (src->window)
      return checkWindowFits(*src, dst->type, e->args[0].get(), "copy");
    if (dst->window)
      return checkWindowFits(*dst, src->type, e->args[1].get(), "copy");
    if (src->type.shape != dst->type.shape) {
      diags.error(e->range, "copy between incompatible tiles: " +
                                src->type.str() + " and " + dst->type.str());
      return false;
    }
    return true;
  }

  bool checkFill(CallExpr *e) {
    if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
      return false;
    auto dst = checkOperand(e->args[0].get(), false, "fill destination");
    Type v = checkExpr(e->args[1].get());
    if (!dst || v.isInvalid())
      return false;
    if (dst->type.kind != TypeKind::Tile) {
      diags.error(e->args[0]->range,
                  "fill expects a tile, got a global tensor");
      return false;
    }
    return checkConvertible(v, dst->type.dtype, e->args[1]->range, "fill");
  }

  /// Reads `name = <const bool>` keyword arguments; rejects unknown ones.
  bool checkBoolKwargs(CallExpr *e, llvm::ArrayRef<StringRef> allowed,
                       llvm::StringMap<bool> &out) {
    bool ok = true;
    for (KeywordArg &kw : e->kwargs) {
      if (!llvm::is_contained(allowed, kw.name)) {
        diags.error(kw.nameRange, "unknown keyword argument '" + kw.name +
                                      "' for '" + e->callee + "'");
        ok = false;
        continue;
      }
      bool v;
      if (!constBool(kw.value.get(), "'" + kw.name + "'", v)) {
        ok = false;
        continue;
      }
      out[kw.name] = v;
    }
    return ok;
  }

  bool checkGemm(CallExpr *e) {
    if (!checkArity(e, 3, 3))
      return false;
    llvm::StringMap<bool> flags;
    bool ok = checkBoolKwargs(e, {"trans_a", "trans_b", "clear"}, flags);
    auto a = checkOperand(e->args[0].get(), false, "gemm operand A");
    auto b = checkOperand(e->args[1].get(), false, "gemm operand B");
    auto c = checkOperand(e->args[2].get(), false, "gemm accumulator");
    if (!ok || !a || !b || !c)
      return false;
    const char *names[] = {"A", "B", "C"};
    const Operand *ops[] = {&*a, &*b, &*c};
    for (int i = 0; i < 3; ++i) {
      if (ops[i]->type.kind != TypeKind::Tile) {
        diags.error(e->args[i]->range,
                    std::string("gemm: ") + names[i] +
                        " must be a shared, fragment or local tile");
        return false;
      }
      if (ops[i]->type.rank() != 2) {
        diags.error(e->args[i]->range, std::string("gemm: ") + names[i] +
                                           " must have rank 2, got " +
                                           ops[i]->type.str());
        return false;
      }
    }
    auto &as = a->type.shape, &bs = b->type.shape, &cs = c->type.shape;
    bool ta = flags.lookup("trans_a"), tb = flags.lookup("trans_b");
    int64_t m = as[ta ? 1 : 0].size, ka = as[ta ? 0 : 1].size;
    int64_t kb = bs[tb ? 1 : 0].size, n = bs[tb ? 0 : 1].size;
    if (ka != kb) {
      diags.error(e->range, "gemm shape mismatch: A " + shapeStr(as) +
                                (ta ? " (transposed)" : "") + " and B " +
                                shapeStr(bs) + (tb ? " (transposed)" : "") +
                                " disagree on K (" + std::to_string(ka) +
                                " vs " + std::to_string(kb) + ")");
      return false;
    }
    if (cs[0].size != m || cs[1].size != n) {
      diags.error(e->args[2]->range, "gemm shape mismatch: C is " +
                                         shapeStr(cs) + " but A*B is [" +
                                         std::to_string(m) + ", " +
                                         std::to_string(n) + "]");
      return false;
    }
    if (a->type.dtype == DType::U8 || c->type.dtype == DType::U8) {
      diags.error(e->range, "gemm on u8 tiles is not supported yet");
      return false;
    }
    if (a->type.dtype != b->type.dtype) {
      diags.error(e->range, "gemm: A and B must have the same dtype, got " +
                                dtypeName(a->type.dtype).str() + " and " +
                                dtypeName(b->type.dtype).str());
      return false;
    }
    if (isFloat(a->type.dtype) != isFloat(c->type.dtype) ||
        c->type.dtype == DType::Bool) {
      diags.error(e->args[2]->range, "gemm: accumulator dtype " +
                                         dtypeName(c->type.dtype).str() +
                                         " does not suit operands of dtype " +
                                         dtypeName(a->type.dtype).str());
      return false;
    }
    return true;
  }

  bool checkReduce(CallExpr *e) {
    if (!checkArity(e, 2, 2))
      return false;
    bool ok = true;
    std::optional<int64_t> dim;
    bool clear = true;
    for (KeywordArg &kw : e->kwargs) {
      if (kw.name == "dim") {
        dim = constInt(kw.value.get(), "'dim'");
        ok &= dim.has_value();
      } else if (kw.name == "clear") {
        ok &= constBool(kw.value.get(), "'clear'", clear);
      } else {
        diags.error(kw.nameRange, "unknown keyword argument '" + kw.name +
                                      "' for '" + e->callee + "'");
        ok = false;
      }
    }
    auto src = checkOperand(e->args[0].get(), false, "reduce source");
    auto dst = checkOperand(e->args[1].get(), false, "reduce destination");
    if (!ok || !src || !dst)
      return false;
    if (src->type.kind != TypeKind::Tile || dst->type.kind != TypeKind::Tile) {
      diags.error(e->range, "'" + e->callee + "' works on tiles, not tensors");
      return false;
    }
    int64_t d = dim.value_or((int64_t)src->type.rank() - 1);
    if (d < 0 || d >= (int64_t)src->type.rank()) {
      diags.error(e->range, "reduction dim " + std::to_string(d) +
                                " is out of range for " + src->type.str());
      return false;
    }
    std::vector<Dim> expected = src->type.shape;
    expected.erase(expected.begin() + d);
    if (expected.empty())
      expected.push_back(Dim{1, ""});
    if (dst->type.shape != expected) {
      diags.error(e->args[1]->range,
                  "'" + e->callee + "' over dim " + std::to_string(d) + " of " +
                      src->type.str() + " needs a destination of shape " +
                      shapeStr(expected) + ", got " +
                      shapeStr(dst->type.shape));
      return false;
    }
    if (src->type.dtype == DType::Bool || dst->type.dtype == DType::Bool) {
      diags.error(e->range, "cannot reduce bool tiles");
      return false;
    }
    if (src->type.dtype == DType::U8 || dst->type.dtype == DType::U8) {
      diags.error(e->range, "reductions of u8 tiles are not supported yet");
      return false;
    }
    return true;
  }

  bool checkAtomicAdd(CallExpr *e) {
    if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
      return false;
    auto dst = checkOperand(e->args[0].get(), true, "atomic_add destination");
    auto src = checkOperand(e->args[1].get(), false, "atomic_add source");
    if (!dst || !src)
      return false;
    if (dst->type.kind != TypeKind::Tensor || !dst->window) {
      diags.error(e->args[0]->range, "atomic_add destination must be a window "
                                     "of a global tensor, e.g. Out[i, j]");
      return false;
    }
    if (src->type.kind != TypeKind::Tile) {
      diags.error(e->args[1]->range, "atomic_add source must be a tile");
      return false;
    }
    if (!checkWritable(*dst, e->args[0]->range))
      return false;
    if (dst->type.dtype != DType::F32 && dst->type.dtype != DType::F64 &&
        dst->type.dtype != DType::I32 && dst->type.dtype != DType::I64) {
      diags.error(e->args[0]->range, "atomic_add supports f32, f64, i32 and "
                                     "i64 tensors, got " +
                                         dtypeName(dst->type.dtype).str());
      return false;
    }
    return checkWindowFits(*dst, src->type, e->args[0].get(), "atomic_add");
  }

  //===--- Tile fns -----------------------------------------------------===//

  Type checkFnCall(CallExpr *e, bool asStatement) {
    FnDecl *fn = fns.lookup(e->callee);
    if (!checkNoKwargs(e) || !checkArity(e, fn->args.size(), fn->args.size()))
      return setType(e, Type::invalid());
    // Bind generic parameters from the actual arguments.
    std::map<std::string, ConstValue> bindings;
    std::set<std::string> paramNames;
    for (ParamDecl &p : fn->params)
      paramNames.insert(p.name);
    auto bind = [&](const std::string &name, ConstValue v, SMRange range) {
      auto [it, inserted] = bindings.emplace(name, v);
      if (!inserted && it->second.str() != v.str()) {
        diags.error(range, "conflicting values for parameter '" + name +
                               "' of '" + fn->name + "': " + it->second.str() +
                               " and " + v.str());
        return false;
      }
      return true;
    };
    bool ok = true;
    std::vector<std::optional<MemScope>> argScopes(fn->args.size());
    for (size_t i = 0; i < fn->args.size(); ++i) {
      ArgDecl &formal = fn->args[i];
      Expr *actual = e->args[i].get();
      if (formal.type.hasShape) {
        auto op = checkOperand(actual, false, "argument '" + formal.name + "'");
        if (!op) {
          ok = false;
          continue;
        }
        if (parallel) {
          diags.error(actual->range, "tile arguments cannot be passed to a "
                                     "tile fn inside 'parallel'");
          ok = false;
          continue;
        }
        if (op->type.kind != TypeKind::Tile) {
          diags.error(actual->range, "tile fn arguments must be tiles, not "
                                     "global tensors");
          ok = false;
          continue;
        }
        argScopes[i] = op->type.scope;
        if (formal.scope && *formal.scope != op->type.scope) {
          diags.error(actual->range, "argument '" + formal.name +
                                         "' must be a " +
                                         scopeName(*formal.scope).str() +
                                         " tile, got " + op->type.str());
          ok = false;
          continue;
        }
        if (formal.type.dims.size() != op->type.rank()) {
          diags.error(actual->range,
                      "argument '" + formal.name + "' must have rank " +
                          std::to_string(formal.type.dims.size()) + ", got " +
                          op->type.str());
          ok = false;
          continue;
        }
        if (paramNames.count(formal.type.elemName))
          ok &= bind(formal.type.elemName, ConstValue::ofDType(op->type.dtype),
                     actual->range);
        for (size_t d = 0; d < formal.type.dims.size(); ++d) {
          Expr *dim = formal.type.dims[d].get();
          if (dim->kind == ExprKind::Name &&
              paramNames.count(static_cast<NameExpr *>(dim)->name))
            ok &=
                bind(static_cast<NameExpr *>(dim)->name,
                     ConstValue::ofInt(op->type.shape[d].size), actual->range);
        }
      } else {
        Type t = checkExpr(actual);
        if (t.isInvalid()) {
          ok = false;
          continue;
        }
        if (paramNames.count(formal.type.elemName) &&
            t.kind == TypeKind::Scalar)
          ok &= bind(formal.type.elemName, ConstValue::ofDType(t.dtype),
                     actual->range);
      }
    }
    if (!ok)
      return setType(e, Type::invalid());
    FnInstance *inst = instantiate(fn, bindings, argScopes, e);
    if (!inst)
      return setType(e, Type::invalid());
    if (fnInstance && inst->usesTileOps)
      fnInstance->usesTileOps = true;
    if (parallel && inst->usesTileOps) {
      diags.error(e->calleeRange, "tile fn '" + fn->name +
                                      "' declares tiles or runs tile ops, so "
                                      "it cannot be called inside 'parallel'");
      return setType(e, Type::invalid());
    }
    // Check the actual arguments against the instance's formal types.
    for (size_t i = 0; i < fn->args.size(); ++i) {
      const Type &formal = inst->args[i]->type;
      Expr *actual = e->args[i].get();
      if (formal.kind == TypeKind::Tile) {
        if (actual->type.dtype != formal.dtype ||
            actual->type.shape != formal.shape) {
          diags.error(actual->range, "argument '" + inst->args[i]->name +
                                         "' must be " + formal.str() +
                                         ", got " + actual->type.str());
          ok = false;
        }
      } else {
        ok &= checkConvertible(actual->type, formal.dtype, actual->range,
                               "argument '" + inst->args[i]->name + "'");
      }
    }
    if (!ok)
      return setType(e, Type::invalid());
    if (!asStatement && inst->returnType.kind == TypeKind::Void) {
      diags.error(e->range, "'" + fn->name + "' does not return a value");
      return setType(e, Type::invalid());
    }
    e->resolvedFn = inst->decl.get();
    return setType(e, inst->returnType);
  }

  FnInstance *instantiate(FnDecl *fn,
                          std::map<std::string, ConstValue> bindings,
                          const std::vector<std::optional<MemScope>> &argScopes,
                          CallExpr *call) {
    if (llvm::is_contained(instantiating, fn)) {
      diags.error(call->range, "recursive call of tile fn '" + fn->name + "'");
      return nullptr;
    }
    if (instantiating.size() > 32) {
      diags.error(call->range, "tile fns nested too deeply");
      return nullptr;
    }
    // Save the caller's context; the instance is checked in a fresh one.
    auto savedScopes = std::move(scopes);
    KernelInfo *savedKernel = kernel;
    FnInstance *savedFn = fnInstance;
    const ParallelStmt *savedParallel = parallel;
    const Stmt *savedLast = lastFnStmt;
    kernel = nullptr;
    parallel = nullptr;
    resetScopes();
    pushScope();

    FnInstance *result = nullptr;
    bool ok = true;
    std::vector<ConstValue> values;
    std::string mangled = fn->name;
    for (ParamDecl &p : fn->params) {
      auto it = bindings.find(p.name);
      std::optional<ConstValue> v;
      if (it != bindings.end())
        v = it->second;
      else if (p.isDType && !p.defaultDType.empty()) {
        if (auto d = resolveDType(p.defaultDType, p.defaultRange))
          v = ConstValue::ofDType(*d);
      } else if (!p.isDType && p.defaultValue) {
        checkExpr(p.defaultValue.get());
        v = p.defaultValue->constValue;
        if (!v)
          diags.error(p.defaultValue->range,
                      "parameter default must be a compile-time constant");
      }
      if (!v) {
        diags.error(call->range, "cannot infer parameter '" + p.name +
                                     "' of tile fn '" + fn->name + "'");
        ok = false;
        break;
      }
      Symbol *s = declare(SymbolKind::Param, p.name, p.range, typeOfConst(*v));
      s->constValue = v;
      values.push_back(*v);
      mangled += "_" + v->str();
    }
    for (size_t i = 0; i < argScopes.size(); ++i)
      if (argScopes[i] && !fn->args[i].scope)
        mangled += "_" + scopeName(*argScopes[i]).str();
    if (ok) {
      for (FnInstance &inst : self.instances)
        if (inst.generic == fn && inst.mangledName == mangled) {
          result = &inst;
          break;
        }
    }
    if (ok && !result) {
      self.instances.push_back(FnInstance{});
      FnInstance &inst = self.instances.back();
      inst.generic = fn;
      inst.decl = cloneFn(*fn);
      inst.bindings = values;
      inst.mangledName = mangled;
      inst.argScopes = argScopes;
      instantiating.push_back(fn);
      fnInstance = &inst;
      unsigned errorsBefore = diags.errorCount();
      checkFnBody(inst);
      instantiating.pop_back();
      if (diags.errorCount() != errorsBefore &&
          call->calleeRange.Start != fn->nameRange.Start) {
        diags.note(call->range.Start, "in instance '" + mangled +
                                          "' of tile fn '" + fn->name +
                                          "' called here");
      }
      result = &inst;
    }
    scopes = std::move(savedScopes);
    kernel = savedKernel;
    fnInstance = savedFn;
    parallel = savedParallel;
    lastFnStmt = savedLast;
    return result;
  }

  void checkFnBody(FnInstance &inst) {
    FnDecl &fn = *inst.decl;
    for (size_t i = 0; i < fn.args.size(); ++i) {
      ArgDecl &a = fn.args[i];
      Type t = Type::invalid();
      if (a.type.hasShape) {
        std::optional<MemScope> actual =
            i < inst.argScopes.size() ? inst.argScopes[i] : std::nullopt;
        if (auto tt = resolveTileType(
                a.type, a.scope.value_or(actual.value_or(MemScope::Fragment))))
          t = *tt;
      } else if (auto d = resolveDType(a.type.elemName, a.type.elemRange)) {
        t = Type::scalar(*d);
        if (a.qualifier != ArgQualifier::In)
          diags.error(a.range, "scalar arguments cannot be 'out' or 'inout'");
      }
      a.symbol = declare(SymbolKind::Arg, a.name, a.range, t);
      a.symbol->index = i;
      inst.args.push_back(a.symbol);
    }
    inst.returnType = Type::voidTy();
    if (fn.returnType) {
      if (fn.returnType->hasShape)
        diags.error(fn.returnType->range, "tile fns return scalars only");
      else if (auto d = resolveDType(fn.returnType->elemName,
                                     fn.returnType->elemRange))
        inst.returnType = Type::scalar(*d);
      if (inst.returnType.kind == TypeKind::Void)
        inst.returnType = Type::invalid(); // declared but unresolvable
    }
    auto &stmts = fn.body->stmts;
    // Code generation ends the function at its last statement; an early
    // return would need control flow that tile fns do not have yet.
    lastFnStmt = stmts.empty() ? nullptr : stmts.back().get();
    checkBlock(fn.body.get());
    bool endsWithReturn =
        !stmts.empty() && stmts.back()->kind == StmtKind::Return;
    if (inst.returnType.kind == TypeKind::Scalar && !endsWithReturn)
      diags.error(
          llvm::SMLoc::getFromPointer(fn.body->range.End.getPointer() - 1),
          "tile fn '" + fn.name + "' must end with 'return'");
  }

  //===--- Statements ---------------------------------------------------===//

  void checkBlock(BlockStmt *block) {
    pushScope();
    for (StmtPtr &s : block->stmts) {
      if (diags.tooManyErrors())
        break;
      checkStmt(s.get());
    }
    popScope();
  }

  void checkStmt(Stmt *s) {
    switch (s->kind) {
    case StmtKind::Block:
      checkBlock(static_cast<BlockStmt *>(s));
      return;
    case StmtKind::Alloc:
      checkAlloc(static_cast<AllocStmt *>(s));
      return;
    case StmtKind::Let:
      checkLet(static_cast<LetStmt *>(s));
      return;
    case StmtKind::Assign:
      checkAssign(static_cast<AssignStmt *>(s));
      return;
    case StmtKind::Expr: {
      auto *es = static_cast<ExprStmt *>(s);
      if (es->expr->kind != ExprKind::Call) {
        diags.error(es->range, "expression statement has no effect");
        checkExpr(es->expr.get());
        return;
      }
      auto *call = static_cast<CallExpr *>(es->expr.get());
      Type t = checkCall(call, /*asStatement=*/true);
      if (!t.isInvalid() && tileOpKind(call->callee) == TileOpKind::None &&
          !call->resolvedFn)
        diags.error(es->range, "result of '" + call->callee + "' is unused");
      return;
    }
    case StmtKind::For:
      checkFor(static_cast<ForStmt *>(s));
      return;
    case StmtKind::Parallel:
      checkParallel(static_cast<ParallelStmt *>(s));
      return;
    case StmtKind::If:
      checkIf(static_cast<IfStmt *>(s));
      return;
    case StmtKind::Return:
      checkReturn(static_cast<ReturnStmt *>(s));
      return;
    }
  }

  void checkAlloc(AllocStmt *s) {
    if (fnInstance)
      fnInstance->usesTileOps = true;
    if (parallel) {
      diags.error(s->range, "tiles cannot be declared inside 'parallel'");
      return;
    }
    Type t = Type::invalid();
    if (auto tt = resolveTileType(s->type, s->scope))
      t = *tt;
    s->symbol = declare(SymbolKind::Tile, s->name, s->nameRange, t);
  }

  void checkLet(LetStmt *s) {
    Type declared = Type::invalid();
    if (s->type) {
      if (s->type->hasShape)
        diags.error(s->type->range, "'let'/'var' hold scalars; declare tiles "
                                    "with shared, fragment or local");
      else if (auto d = resolveDType(s->type->elemName, s->type->elemRange))
        declared = Type::scalar(*d);
    }
    Type t = declared;
    if (s->init) {
      Type it = checkExpr(s->init.get());
      if (!it.isInvalid() && !it.isArith()) {
        diags.error(s->init->range,
                    "cannot bind " + it.str() + " to '" + s->name + "'");
        it = Type::invalid();
      }
      if (!declared.isInvalid())
        checkConvertible(it, declared.dtype, s->init->range,
                         "'" + s->name + "'");
      else if (!s->type)
        t = it.kind == TypeKind::Float ? Type::scalar(DType::F32) : it;
    } else if (!s->isMutable) {
      diags.error(s->range, "'let' needs an initial value");
    } else if (!s->type) {
      diags.error(s->range, "'var' needs a type or an initial value");
    }
    s->symbol = declare(s->isMutable ? SymbolKind::Var : SymbolKind::Let,
                        s->name, s->nameRange, t);
    if (!s->isMutable && s->init && s->init->constValue && !t.isInvalid())
      s->symbol->constValue = s->init->constValue;
  }

  void checkAssign(AssignStmt *s) {
    Type v = checkExpr(s->value.get());
    Expr *target = s->target.get();
    if (target->kind == ExprKind::Name) {
      auto *n = static_cast<NameExpr *>(target);
      auto [sym, depth] = lookup(n->name);
      if (!sym) {
        diags.error(n->range, "use of undeclared name '" + n->name + "'");
        return;
      }
      n->symbol = sym;
      n->type = sym->type;
      if (sym->kind != SymbolKind::Var) {
        diags.error(n->range,
                    "cannot assign to '" + n->name + "': it is not a 'var'");
        return;
      }
      if (parallel && depth < parallelScopeDepth) {
        diags.error(n->range, "cannot assign to '" + n->name +
                                  "' inside 'parallel': it is declared "
                                  "outside, so iterations would race");
        return;
      }
      if (!sym->type.isInvalid())
        checkConvertible(v, sym->type.dtype, s->value->range, "assignment");
      return;
    }
    Type t = checkExpr(target);
    if (t.isInvalid())
      return;
    checkConvertible(v, t.dtype, s->value->range, "assignment");
  }

  void checkFor(ForStmt *s) {
    bool ok = true;
    if (s->args.empty() || s->args.size() > 3) {
      diags.error(s->iterRange, "expected 1 to 3 bounds (end, start and end, "
                                "or start, end and step)");
      ok = false;
    }
    for (ExprPtr &a : s->args) {
      Type t = checkExpr(a.get());
      if (!t.isInvalid() && !isIntegerLike(t)) {
        diags.error(a->range, "loop bound must be an integer, got " + t.str());
        ok = false;
      }
    }
    if (s->args.size() == 3 && s->args[2]->constValue &&
        s->args[2]->constValue->i <= 0) {
      diags.error(s->args[2]->range, "loop step must be positive");
      ok = false;
    }
    for (KeywordArg &kw : s->kwargs) {
      StringRef expected =
          s->loopKind == LoopKind::Pipelined ? "stages" : "unroll";
      if (kw.name != expected) {
        diags.error(kw.nameRange, "unknown keyword argument '" + kw.name +
                                      "'; expected '" + expected.str() + "'");
        ok = false;
        continue;
      }
      auto v = constInt(kw.value.get(), "'" + kw.name + "'");
      if (v && *v < 1) {
        diags.error(kw.value->range, "'" + kw.name + "' must be at least 1");
        ok = false;
      }
    }
    if (s->loopKind == LoopKind::Pipelined && parallel) {
      diags.error(s->iterRange,
                  "'pipelined' loops cannot be inside 'parallel'");
      ok = false;
    }
    (void)ok;
    pushScope();
    s->symbol =
        declare(SymbolKind::LoopVar, s->var, s->varRange, Type::intTy());
    checkBlock(s->body.get());
    popScope();
  }

  void checkParallel(ParallelStmt *s) {
    if (fnInstance)
      fnInstance->usesTileOps = true;
    if (parallel) {
      diags.error(s->range, "'parallel' cannot be nested");
      return;
    }
    std::vector<Dim> shape;
    if (s->domainTile) {
      Type t = checkExpr(s->domainTile.get());
      if (t.isInvalid())
        return;
      if (t.kind != TypeKind::Tile) {
        diags.error(s->domainTile->range,
                    "'parallel' ranges over a tile, got " + t.str());
        return;
      }
      shape = t.shape;
    } else {
      for (ExprPtr &d : s->domainShape) {
        auto v = constInt(d.get(), "a 'parallel' extent");
        if (!v)
          return;
        if (*v <= 0) {
          diags.error(d->range, "'parallel' extent must be positive");
          return;
        }
        shape.push_back(Dim{*v, ""});
      }
    }
    if (s->vars.size() != shape.size()) {
      diags.error(s->range,
                  "'parallel' over a rank-" + std::to_string(shape.size()) +
                      " domain needs " + std::to_string(shape.size()) +
                      " indices, got " + std::to_string(s->vars.size()));
      return;
    }
    pushScope();
    parallelScopeDepth = scopes.size() - 1;
    for (size_t i = 0; i < s->vars.size(); ++i) {
      Symbol *sym = declare(SymbolKind::ParallelIndex, s->vars[i],
                            s->varRanges[i], Type::intTy());
      sym->index = i;
      s->symbols.push_back(sym);
    }
    parallel = s;
    checkBlock(s->body.get());
    parallel = nullptr;
    popScope();
  }

  void checkIf(IfStmt *s) {
    Type c = checkExpr(s->cond.get());
    if (!c.isInvalid() && !c.isBool())
      diags.error(s->cond->range, "condition must be a bool, got " + c.str());
    checkBlock(s->thenBody.get());
    if (s->elseBody)
      checkStmt(s->elseBody.get());
  }

  void checkReturn(ReturnStmt *s) {
    if (!fnInstance) {
      diags.error(s->range, "'return' is only allowed in a tile fn");
      return;
    }
    if (parallel) {
      diags.error(s->range, "'return' is not allowed inside 'parallel'");
      return;
    }
    if (s != lastFnStmt) {
      diags.error(s->range, "'return' must be the last statement of a tile fn");
      return;
    }
    const Type &rt = fnInstance->returnType;
    if (!s->value) {
      if (rt.kind == TypeKind::Scalar)
        diags.error(s->range, "missing return value");
      return;
    }
    Type t = checkExpr(s->value.get());
    if (rt.isInvalid())
      return;
    if (rt.kind == TypeKind::Void) {
      diags.error(s->value->range,
                  "tile fn without '->' cannot return a value");
      return;
    }
    checkConvertible(t, rt.dtype, s->value->range, "return");
  }

  /// The first tile fn call in an expression tree, or null.
  static Expr *findFnCall(Expr *e) {
    if (!e)
      return nullptr;
    switch (e->kind) {
    case ExprKind::Call: {
      auto *c = static_cast<CallExpr *>(e);
      if (c->resolvedFn)
        return c;
      for (ExprPtr &a : c->args)
        if (Expr *f = findFnCall(a.get()))
          return f;
      return nullptr;
    }
    case ExprKind::Unary:
      return findFnCall(static_cast<UnaryExpr *>(e)->operand.get());
    case ExprKind::Binary: {
      auto *b = static_cast<BinaryExpr *>(e);
      if (Expr *f = findFnCall(b->lhs.get()))
        return f;
      return findFnCall(b->rhs.get());
    }
    case ExprKind::Ternary: {
      auto *t = static_cast<TernaryExpr *>(e);
      for (Expr *x : {t->cond.get(), t->trueValue.get(), t->falseValue.get()})
        if (Expr *f = findFnCall(x))
          return f;
      return nullptr;
    }
    default:
      return nullptr;
    }
  }

  //===--- Kernels ------------------------------------------------------===//

  /// Binds a kernel parameter from its default and -D. Returns its value.
  std::optional<ConstValue> kernelParamValue(ParamDecl &p) {
    std::optional<ConstValue> def;
    if (p.isDType) {
      if (!p.defaultDType.empty())
        if (auto d = resolveDType(p.defaultDType, p.defaultRange))
          def = ConstValue::ofDType(*d);
    } else if (p.defaultValue) {
      checkExpr(p.defaultValue.get());
      def = p.defaultValue->constValue;
      if (!def && !p.defaultValue->type.isInvalid())
        diags.error(p.defaultValue->range,
                    "parameter default must be a compile-time constant");
    }
    auto it = defines.find(p.name);
    if (it == defines.end()) {
      if (!def && !(p.defaultValue && p.defaultValue->type.isInvalid()))
        diags.error(p.range, "parameter '" + p.name +
                                 "' has no default; pass -D " + p.name +
                                 "=...");
      return def;
    }
    usedDefines.insert(p.name);
    auto v = parseDefineValue(it->second);
    if (!v) {
      diags.error(p.range, "-D " + p.name + "=" + it->second +
                               ": not a number, bool or dtype");
      return std::nullopt;
    }
    if (p.isDType != (v->kind == ConstValue::DTypeVal) ||
        (def && def->kind != v->kind &&
         !(def->kind == ConstValue::Float && v->kind == ConstValue::Int))) {
      diags.error(p.range, "-D " + p.name + "=" + it->second +
                               " does not match the kind of parameter '" +
                               p.name + "'");
      return std::nullopt;
    }
    if (def && def->kind == ConstValue::Float && v->kind == ConstValue::Int)
      v = ConstValue::ofFloat(double(v->i));
    return v;
  }

  void checkKernel(KernelDecl *k) {
    self.kernelInfos.push_back(KernelInfo{});
    KernelInfo &info = self.kernelInfos.back();
    info.decl = k;
    info.name = k->name;
    kernel = &info;
    fnInstance = nullptr;
    resetScopes();
    pushScope();
    for (ParamDecl &p : k->params) {
      auto v = kernelParamValue(p);
      Type t = v ? typeOfConst(*v) : Type::invalid();
      p.symbol = declare(SymbolKind::Param, p.name, p.range, t);
      p.symbol->constValue = v;
      if (v)
        info.params.push_back({p.name, *v});
    }
    for (size_t i = 0; i < k->args.size(); ++i)
      checkKernelArg(info, k->args[i], i);
    if (k->grid.empty() || k->grid.size() > 3)
      diags.error(k->range, "a kernel grid has 1 to 3 dimensions");
    for (ExprPtr &g : k->grid) {
      Type t = checkExpr(g.get());
      if (!t.isInvalid() && !isIntegerLike(t))
        diags.error(g->range, "grid extent must be an integer, got " + t.str());
      else if (Expr *call = findFnCall(g.get()))
        diags.error(call->range, "tile fn calls are not allowed in grid(...): "
                                 "the launch stub computes the grid on the "
                                 "host");
    }
    if (k->blockVars.size() > k->grid.size())
      diags.error(k->blockVarRanges[k->grid.size() < k->blockVarRanges.size()
                                        ? k->grid.size()
                                        : 0],
                  "more block indices than grid dimensions");
    for (size_t i = 0; i < k->blockVars.size(); ++i) {
      Symbol *s = declare(SymbolKind::BlockIndex, k->blockVars[i],
                          k->blockVarRanges[i], Type::intTy());
      s->index = i;
      k->blockSymbols.push_back(s);
    }
    if (k->threads) {
      auto v = constInt(k->threads.get(), "threads");
      if (v && (*v < 1 || *v > 1024))
        diags.error(k->threads->range, "threads must be between 1 and 1024");
      else if (v)
        info.threads = *v;
    }
    checkBlock(k->body.get());
    kernel = nullptr;
  }

  void checkKernelArg(KernelInfo &info, ArgDecl &a, unsigned index) {
    Type t = Type::invalid();
    auto dtype = resolveDType(a.type.elemName, a.type.elemRange);
    if (a.scope)
      diags.error(a.range, "kernel arguments are global tensors or scalars; "
                           "tiles are declared in the body");
    if (!a.type.hasShape) {
      if (a.qualifier != ArgQualifier::In)
        diags.error(a.range, "scalar arguments cannot be 'out' or 'inout'");
      if (dtype && (*dtype == DType::F16 || *dtype == DType::BF16))
        diags.error(a.type.range, "scalar kernel arguments of type " +
                                      dtypeName(*dtype).str() +
                                      " are not supported; pass an f32");
      else if (dtype)
        t = Type::scalar(*dtype);
    } else {
      std::vector<Dim> shape;
      bool ok = dtype.has_value();
      for (size_t d = 0; d < a.type.dims.size(); ++d) {
        Expr *de = a.type.dims[d].get();
        if (de->kind == ExprKind::Name) {
          auto *n = static_cast<NameExpr *>(de);
          auto [sym, depth] = lookup(n->name);
          (void)depth;
          if (!sym || sym->kind == SymbolKind::SymDim) {
            shape.push_back(Dim{-1, n->name});
            bindSymDim(info, n, index, d);
            continue;
          }
        }
        auto v = constInt(de, "a tensor dimension");
        if (!v) {
          ok = false;
          continue;
        }
        if (*v <= 0) {
          diags.error(de->range, "tensor dimension must be positive");
          ok = false;
        }
        shape.push_back(Dim{*v, ""});
      }
      if (a.type.dims.empty() || a.type.dims.size() > 8) {
        diags.error(a.type.range, "tensors have rank 1 to 8");
        ok = false;
      }
      if (ok)
        t = Type::tile(*dtype, MemScope::Global, shape);
    }
    a.symbol = declare(SymbolKind::Arg, a.name, a.range, t);
    a.symbol->index = index;
    info.args.push_back(a.symbol);
  }

  void bindSymDim(KernelInfo &info, NameExpr *n, unsigned arg, unsigned dim) {
    for (SymDimInfo &s : info.symDims)
      if (s.name == n->name) {
        s.uses.push_back({arg, dim});
        checkName(n);
        return;
      }
    SymDimInfo s;
    s.name = n->name;
    s.uses.push_back({arg, dim});
    auto it = defines.find(n->name);
    if (it != defines.end()) {
      usedDefines.insert(n->name);
      auto v = parseDefineValue(it->second);
      if (!v || v->kind != ConstValue::Int || v->i <= 0)
        diags.error(n->range, "-D " + n->name + "=" + it->second +
                                  ": a dimension needs a positive integer");
      else
        s.staticValue = v->i;
    }
    info.symDims.push_back(s);
    Symbol *sym = declare(SymbolKind::SymDim, n->name, n->range, Type::intTy());
    if (s.staticValue)
      sym->constValue = ConstValue::ofInt(*s.staticValue);
    checkName(n);
  }

  //===--- Program ------------------------------------------------------===//

  bool check(Program &program) {
    // Tile fns are visible across all modules of the program.
    for (auto &m : program.modules)
      for (DeclPtr &d : m->decls)
        if (d->kind == DeclKind::Fn) {
          auto *fn = static_cast<FnDecl *>(d.get());
          auto [it, inserted] = fns.try_emplace(fn->name, fn);
          if (!inserted) {
            diags.error(fn->nameRange,
                        "redefinition of tile fn '" + fn->name + "'");
            diags.note(it->second->nameRange.Start,
                       "previous definition is here");
          }
          if (tileOpKind(fn->name) != TileOpKind::None ||
              isUnaryMath(fn->name) || parseDType(fn->name) ||
              fn->name == "cdiv" || fn->name == "min" || fn->name == "max" ||
              fn->name == "pow")
            diags.error(fn->nameRange,
                        "tile fn '" + fn->name + "' shadows a builtin");
        }
    std::set<std::string> kernelNames;
    for (DeclPtr &d : program.modules[0]->decls) {
      if (d->kind != DeclKind::Kernel)
        continue;
      auto *k = static_cast<KernelDecl *>(d.get());
      if (!kernelNames.insert(k->name).second) {
        diags.error(k->nameRange, "redefinition of kernel '" + k->name + "'");
        continue;
      }
      checkKernel(k);
      if (diags.tooManyErrors())
        break;
    }
    // Check tile fns that no kernel instantiated, when they are not generic.
    for (auto &m : program.modules)
      for (DeclPtr &d : m->decls)
        if (d->kind == DeclKind::Fn) {
          auto *fn = static_cast<FnDecl *>(d.get());
          bool used = llvm::any_of(self.instances, [&](const FnInstance &i) {
            return i.generic == fn;
          });
          if (!used && fn->params.empty()) {
            CallExpr fake(fn->nameRange, fn->name, fn->nameRange);
            instantiate(fn, {}, {}, &fake);
          }
        }
    for (auto &[name, value] : defines)
      if (!usedDefines.count(name))
        diags.warning(llvm::SMLoc(), "-D " + name +
                                         " names no parameter or dimension of "
                                         "any kernel");
    if (kernelNames.empty() && !diags.hasErrors())
      diags.warning(llvm::SMLoc(), "no kernel in this file");
    return !diags.hasErrors();
  }
};

Sema::Sema(DiagnosticEngine &diags, std::map<std::string, std::string> defines)
    : impl(std::make_unique<Impl>(*this, diags, std::move(defines))) {}

Sema::~Sema() = default;

bool Sema::check(Program &program) { return impl->check(program); }
