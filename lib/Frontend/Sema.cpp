//===- Sema.cpp - Scopes, types, kernels and the program ------------------===//
#include "SemaImpl.h"

#include <functional>

using namespace tlc;
using namespace tlc::sema;

Symbol *Sema::Impl::declare(SymbolKind kind, const std::string &name,
                            SMRange range, Type type) {
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

std::pair<Symbol *, size_t> Sema::Impl::lookup(StringRef name) {
  for (size_t i = scopes.size(); i-- > 0;) {
    auto it = scopes[i].find(name);
    if (it != scopes[i].end())
      return {it->second, i};
  }
  return {nullptr, 0};
}

void Sema::Impl::resetScopes() {
  scopes.clear();
  pushScope();
  Symbol *inf = declare(SymbolKind::Constant, "inf", {}, Type::floatLit());
  inf->constValue =
      ConstValue::ofFloat(std::numeric_limits<double>::infinity());
  Symbol *pi = declare(SymbolKind::Constant, "pi", {}, Type::floatLit());
  pi->constValue = ConstValue::ofFloat(M_PI);
  for (const auto &[name, value] : constants) {
    Symbol *c = declare(SymbolKind::Constant, name, {}, Type::intTy());
    c->constValue = ConstValue::ofInt(value);
  }
}

Type Sema::Impl::commonType(const Type &a0, const Type &b0, SMRange range) {
  if (a0.isInvalid() || b0.isInvalid())
    return Type::invalid();
  if (!a0.isArith() || !b0.isArith() || a0.isBool() || b0.isBool()) {
    diags.error(range, "invalid operands to arithmetic (" + a0.str() + " and " +
                           b0.str() + ")");
    return Type::invalid();
  }
  // The 8-bit floats are storage types: arithmetic on them is done in f32.
  Type a = promoteStorage(a0), b = promoteStorage(b0);
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

bool Sema::Impl::checkConvertible(const Type &from, DType to, SMRange range,
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

std::optional<DType> Sema::Impl::resolveDType(const std::string &name,
                                              SMRange range) {
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

std::optional<int64_t> Sema::Impl::constInt(Expr *e, const std::string &what) {
  Type t = checkExpr(e);
  if (t.isInvalid())
    return std::nullopt;
  if (!e->constValue || e->constValue->kind != ConstValue::Int) {
    diags.error(e->range, what + " must be a compile-time integer");
    return std::nullopt;
  }
  return e->constValue->i;
}

bool Sema::Impl::constBool(Expr *e, const std::string &what, bool &out) {
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

std::optional<Type> Sema::Impl::resolveTileType(TypeExpr &te, MemScope scope) {
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
      diags.error(d->range,
                  "tile dimension must be positive, got " + std::to_string(*v));
      ok = false;
    }
    shape.push_back(Dim{*v, ""});
  }
  if (te.dims.empty() || te.dims.size() > 4) {
    diags.error(te.range, "tiles have rank 1 to 4");
    ok = false;
  }
  if (ok && dtype && isPacked(*dtype)) {
    // Two elements per byte, never split between threads' registers.
    if (scope == MemScope::Fragment) {
      diags.error(te.range, dtypeName(*dtype).str() +
                                " tiles live in shared or local memory, not "
                                "in fragments");
      ok = false;
    } else if (shape.back().size % 2) {
      diags.error(te.dims.back()->range,
                  "the innermost dimension of " + withArticle(*dtype) +
                      " tile must be even (two elements per byte), got " +
                      std::to_string(shape.back().size));
      ok = false;
    }
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

std::optional<ConstValue> Sema::Impl::kernelParamValue(ParamDecl &p) {
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
  if (paramOverrides)
    for (const auto &[name, value] : *paramOverrides)
      if (name == p.name)
        return value;
  auto it = defines.find(p.name);
  if (it == defines.end()) {
    if (!def && !(p.defaultValue && p.defaultValue->type.isInvalid()))
      diags.error(p.range, "parameter '" + p.name +
                               "' has no default; pass -D " + p.name + "=...");
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

void Sema::Impl::enterSignature(KernelInfo &info,
                                std::vector<ParamDecl> &params) {
  kernel = &info;
  fnInstance = nullptr;
  resetScopes();
  pushScope();
  for (ParamDecl &p : params) {
    auto v = kernelParamValue(p);
    Type t = v ? typeOfConst(*v) : Type::invalid();
    p.symbol = declare(SymbolKind::Param, p.name, p.range, t);
    p.symbol->constValue = v;
    if (v)
      info.params.push_back({p.name, *v});
  }
}

void Sema::Impl::checkKernel(KernelDecl *k) {
  self.kernelInfos.push_back(KernelInfo{});
  KernelInfo &info = self.kernelInfos.back();
  info.decl = k;
  info.name = k->name + selection.suffix;
  enterSignature(info, k->params);
  checkTune(k, info);
  for (size_t i = 0; i < k->args.size(); ++i)
    checkKernelArg(info, k->args[i], i);
  checkDimExpressions(info, k->args);
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
  clusterVarying.clear();
  clusterVaryingControl.clear();
  for (size_t i = 0; i < k->blockVars.size(); ++i) {
    Symbol *s = declare(SymbolKind::BlockIndex, k->blockVars[i],
                        k->blockVarRanges[i], Type::intTy());
    s->index = i;
    k->blockSymbols.push_back(s);
    // The blocks of a cluster differ in x only.
    if (k->cluster && i == 0)
      clusterVarying.insert(s);
  }
  if (k->threads) {
    auto v = constInt(k->threads.get(), "threads");
    if (v && (*v < 1 || *v > 1024))
      diags.error(k->threads->range, "threads must be between 1 and 1024");
    else if (v)
      info.threads = *v;
  }
  if (k->cluster)
    checkCluster(k, info);
  checkBlock(k->body.get());
  kernel = nullptr;
}

void Sema::Impl::checkCluster(KernelDecl *k, KernelInfo &info) {
  auto c = constInt(k->cluster.get(), "cluster");
  if (!c)
    return;
  // Clusters of up to 8 blocks are portable on the GPUs that have them.
  constexpr int64_t kMaxClusterBlocks = 8;
  // The largest cluster the target runs (or emulates); absent when no
  // target is known: the largest any target accepts.
  auto limit = constants.find("target_max_cluster");
  int64_t most = limit == constants.end() ? kMaxClusterBlocks : limit->second;
  if (*c < 1 || *c > kMaxClusterBlocks) {
    diags.error(k->cluster->range, "cluster must be between 1 and " +
                                       std::to_string(kMaxClusterBlocks) +
                                       " blocks, got " + std::to_string(*c));
    return;
  }
  if (*c > most) {
    diags.error(k->cluster->range,
                "cluster(" + std::to_string(*c) +
                    "): this target runs no thread block clusters (docs/"
                    "language.md 5.5.1 lists the targets that do); "
                    "target_max_cluster is " +
                    std::to_string(most));
    return;
  }
  // Clusters group consecutive blocks along x: the grid's x extent must be
  // a multiple (checked here when it is a constant, else at launch).
  if (!k->grid.empty() && k->grid[0]->constValue &&
      k->grid[0]->constValue->kind == ConstValue::Int &&
      k->grid[0]->constValue->i % *c != 0) {
    diags.error(
        k->grid[0]->range,
        "the grid's x extent (" + std::to_string(k->grid[0]->constValue->i) +
            ") must be a multiple of the cluster (" + std::to_string(*c) + ")");
    return;
  }
  info.cluster = *c;
}

void Sema::Impl::checkTune(KernelDecl *k, KernelInfo &info) {
  if (k->tune.empty())
    return;
  unsigned errorsBefore = diags.errorCount();
  std::vector<std::vector<ConstValue>> axisValues;
  llvm::StringMap<const TuneAxis *> seen;
  for (TuneAxis &axis : k->tune) {
    auto param = llvm::find_if(
        k->params, [&](const ParamDecl &p) { return p.name == axis.name; });
    if (param == k->params.end()) {
      diags.error(axis.nameRange, "'" + axis.name +
                                      "' is not a parameter of kernel '" +
                                      k->name + "'");
      continue;
    }
    if (param->isDType) {
      diags.error(axis.nameRange,
                  "'" + axis.name +
                      "' is a dtype parameter; tune varies how a kernel "
                      "runs, not what it computes (pick the dtype with -D " +
                      axis.name + "=...)");
      continue;
    }
    auto [previous, inserted] = seen.try_emplace(axis.name, &axis);
    if (!inserted) {
      diags.error(axis.nameRange,
                  "parameter '" + axis.name + "' is tuned twice");
      diags.note(previous->second->nameRange.Start, "first tuned here");
      continue;
    }
    std::optional<ConstValue> current = param->symbol->constValue;
    std::vector<ConstValue> values;
    for (ExprPtr &e : axis.values) {
      Type t = checkExpr(e.get());
      if (t.isInvalid())
        continue;
      std::optional<ConstValue> v = e->constValue;
      if (!v || v->kind == ConstValue::DTypeVal) {
        diags.error(e->range,
                    "a value to try must be a compile-time number or bool");
        continue;
      }
      if (current && current->kind == ConstValue::Float &&
          v->kind == ConstValue::Int)
        v = ConstValue::ofFloat(double(v->i));
      if (current && current->kind != v->kind) {
        diags.error(e->range, "'" + v->str() +
                                  "' does not match the kind of "
                                  "parameter '" +
                                  axis.name + "' (default " + current->str() +
                                  ")");
        continue;
      }
      if (llvm::any_of(values, [&](const ConstValue &other) {
            return other.str() == v->str();
          })) {
        diags.error(e->range, "'" + v->str() + "' is listed twice for '" +
                                  axis.name + "'");
        continue;
      }
      values.push_back(*v);
    }
    // -D fixes a parameter: its axis drops out of the space.
    if (defines.count(axis.name))
      continue;
    info.tuneAxes.push_back(axis.name);
    axisValues.push_back(std::move(values));
  }
  if (k->tuneWhere) {
    bool admitted;
    constBool(k->tuneWhere.get(), "the tune constraint", admitted);
  }
  if (diags.errorCount() != errorsBefore)
    return;
  constexpr uint64_t kMaxTunePoints = 100000;
  uint64_t total = 1;
  for (const std::vector<ConstValue> &values : axisValues) {
    total *= values.size();
    if (total > kMaxTunePoints) {
      diags.error(k->tuneRange,
                  "the tune space has more than " +
                      std::to_string(kMaxTunePoints) +
                      " points; narrow it or constrain it with 'where'");
      return;
    }
  }
  // Every combination, first axis slowest.
  std::vector<size_t> odometer(axisValues.size(), 0);
  for (uint64_t n = 0; n < total; ++n) {
    TunePoint point;
    for (size_t a = 0; a < axisValues.size(); ++a)
      point.push_back({info.tuneAxes[a], axisValues[a][odometer[a]]});
    if (tunePointAdmitted(k, point))
      info.tunePoints.push_back(std::move(point));
    else
      ++info.tuneExcluded;
    if (diags.errorCount() != errorsBefore)
      return;
    for (size_t a = axisValues.size(); a-- > 0;) {
      if (++odometer[a] < axisValues[a].size())
        break;
      odometer[a] = 0;
    }
  }
  // A constraint that admits nothing on this target is not an error of the
  // kernel (its defaults still compile); tlc tune reports it.
}

bool Sema::Impl::tunePointAdmitted(KernelDecl *k, const TunePoint &point) {
  if (!k->tuneWhere)
    return true;
  paramOverrides = &point;
  pushScope();
  for (ParamDecl &p : k->params) {
    std::optional<ConstValue> v = kernelParamValue(p);
    Symbol *s = declare(SymbolKind::Param, p.name, p.range,
                        v ? typeOfConst(*v) : Type::invalid());
    s->constValue = v;
  }
  bool admitted = false;
  bool ok = constBool(k->tuneWhere.get(), "the tune constraint", admitted);
  popScope();
  paramOverrides = nullptr;
  // Leave the annotations of the kernel's own values on the constraint and
  // the defaults.
  for (ParamDecl &p : k->params)
    if (p.defaultValue)
      checkExpr(p.defaultValue.get());
  bool unused;
  constBool(k->tuneWhere.get(), "the tune constraint", unused);
  return ok && admitted;
}

void Sema::Impl::checkKernelArg(KernelInfo &info, ArgDecl &a, unsigned index) {
  Type t = Type::invalid();
  auto dtype = resolveDType(a.type.elemName, a.type.elemRange);
  if (a.scope)
    diags.error(a.range, "kernel arguments are global tensors or scalars; "
                         "tiles are declared in the body");
  if (!a.type.hasShape) {
    if (a.qualifier != ArgQualifier::In)
      diags.error(a.range, "scalar arguments cannot be 'out' or 'inout'");
    if (dtype && (*dtype == DType::F16 || *dtype == DType::BF16 ||
                  isF8(*dtype) || isPacked(*dtype)))
      diags.error(a.type.range, "scalar kernel arguments of type " +
                                    dtypeName(*dtype).str() +
                                    " are not supported; pass " +
                                    (isPacked(*dtype) ? "an i32" : "an f32"));
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
      // Other expressions may use symbolic dimensions bound by later
      // arguments: checked once all are (checkDimExpressions).
      shape.push_back(Dim{-1, ""});
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

static const Expr *deviceOnlyPart(const Expr *e);

/// The source text of `range` on one line (runs of white space and
/// comments as one space), for types in messages.
static std::string sourceText(SMRange range) {
  StringRef text(range.Start.getPointer(),
                 range.End.getPointer() - range.Start.getPointer());
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i).starts_with("//")) {
      while (i < text.size() && text[i] != '\n')
        ++i;
    }
    char c = i < text.size() ? text[i] : ' ';
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ')
        out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

/// Calls `fn` on each direct operand of `e` (in source order).
static void forEachOperand(Expr *e, llvm::function_ref<void(Expr *)> fn) {
  switch (e->kind) {
  case ExprKind::Unary:
    return fn(static_cast<UnaryExpr *>(e)->operand.get());
  case ExprKind::Binary:
    fn(static_cast<BinaryExpr *>(e)->lhs.get());
    return fn(static_cast<BinaryExpr *>(e)->rhs.get());
  case ExprKind::Ternary: {
    auto *t = static_cast<TernaryExpr *>(e);
    for (Expr *x : {t->cond.get(), t->trueValue.get(), t->falseValue.get()})
      fn(x);
    return;
  }
  case ExprKind::Call:
    for (ExprPtr &a : static_cast<CallExpr *>(e)->args)
      fn(a.get());
    return;
  case ExprKind::Index: {
    auto *ix = static_cast<IndexExpr *>(e);
    fn(ix->base.get());
    for (ExprPtr &i : ix->indices)
      fn(i.get());
    return;
  }
  case ExprKind::Slice: {
    auto *sl = static_cast<SliceExpr *>(e);
    for (Expr *x : {sl->lo.get(), sl->hi.get(), sl->step.get()})
      if (x)
        fn(x);
    return;
  }
  default:
    return;
  }
}

/// Every name in `e`, in order.
static void collectNames(Expr *e, std::vector<NameExpr *> &names) {
  if (e->kind == ExprKind::Name)
    return names.push_back(static_cast<NameExpr *>(e));
  forEachOperand(e, [&](Expr *x) { collectNames(x, names); });
}

std::optional<Dim> Sema::Impl::checkDimExpression(Expr *de) {
  // A name in the expression must be a parameter or a symbolic dimension
  // some argument uses alone (the stub reads it from there).
  std::vector<NameExpr *> names;
  collectNames(de, names);
  bool known = true;
  for (NameExpr *n : names) {
    Symbol *sym = lookup(n->name).first;
    if (!sym && !parseDType(n->name)) {
      diags.error(n->range,
                  "'" + n->name +
                      "' in a dimension expression is not a parameter "
                      "or a symbolic dimension; use it alone as a "
                      "dimension of some argument (the stub reads it "
                      "from there) or fix it with -D " +
                      n->name + "=...");
      known = false;
    } else if (sym && sym->kind != SymbolKind::Param &&
               sym->kind != SymbolKind::SymDim &&
               sym->kind != SymbolKind::Constant &&
               sym->kind != SymbolKind::Arg) {
      // (Arguments: scalars are known to the stub; tensor data is reported
      // below, as such.)
      diags.error(n->range, "'" + n->name +
                                "' is computed in the kernel; a tensor "
                                "dimension may use parameters, symbolic "
                                "dimensions and scalar arguments");
      known = false;
    }
  }
  if (!known)
    return std::nullopt;
  Type t = checkExpr(de);
  if (t.isInvalid())
    return std::nullopt;
  if (!isIntegerLike(t)) {
    diags.error(de->range, "a tensor dimension is an integer, got " + t.str());
    return std::nullopt;
  }
  if (const Expr *part = deviceOnlyPart(de)) {
    diags.error(part->range, "a tensor dimension may use parameters and "
                             "symbolic dimensions, not tensor data or tile "
                             "fns");
    return std::nullopt;
  }
  if (de->constValue) {
    if (de->constValue->i <= 0) {
      diags.error(de->range, "tensor dimension must be positive");
      return std::nullopt;
    }
    return Dim{de->constValue->i, ""};
  }
  // Shown (and compared) as its source text: `f32[N * H, D]`.
  return Dim{-1, sourceText(de->range)};
}

Type Sema::Impl::checkView(CallExpr *call) {
  if (!call->kwargs.empty()) {
    diags.error(call->kwargs[0].nameRange, "unknown keyword argument '" +
                                               call->kwargs[0].name +
                                               "' for 'view'");
    return Type::invalid();
  }
  if (call->args.size() < 2) {
    diags.error(call->range, "view takes a tensor and its new dimensions, "
                             "e.g. view(X, N * H, D)");
    return Type::invalid();
  }
  Expr *base = call->args[0].get();
  Type bt = checkExpr(base);
  Symbol *arg = base->kind == ExprKind::Name
                    ? static_cast<NameExpr *>(base)->symbol
                    : nullptr;
  if (bt.isInvalid())
    return Type::invalid();
  if (!kernel || fnInstance || !arg || arg->kind != SymbolKind::Arg ||
      bt.kind != TypeKind::Tensor) {
    diags.error(base->range, "view takes a tensor argument of the kernel, "
                             "got " +
                                 bt.str());
    return Type::invalid();
  }
  if (isPacked(bt.dtype)) {
    diags.error(base->range, "views of " + dtypeName(bt.dtype).str() +
                                 " tensors are not supported (packed "
                                 "elements); declare the parameter with the "
                                 "shape the kernel needs");
    return Type::invalid();
  }
  if (call->args.size() - 1 > 4) {
    diags.error(call->range, "a view has rank 1 to 4, got " +
                                 std::to_string(call->args.size() - 1));
    return Type::invalid();
  }
  Type t = bt;
  t.shape.clear();
  TensorViewInfo info{static_cast<unsigned>(arg->index), {}, "["};
  for (size_t i = 1; i < call->args.size(); ++i) {
    std::optional<Dim> dim = checkDimExpression(call->args[i].get());
    if (!dim)
      return Type::invalid();
    t.shape.push_back(*dim);
    info.dims.push_back(call->args[i].get());
    info.text += (i > 1 ? ", " : "") + sourceText(call->args[i]->range);
  }
  info.text += "]";
  // Sizes known here must hold as many elements as the tensor.
  auto count = [](const std::vector<Dim> &shape) -> std::optional<int64_t> {
    int64_t n = 1;
    for (const Dim &d : shape) {
      if (!d.isStatic() || __builtin_mul_overflow(n, d.size, &n))
        return std::nullopt;
    }
    return n;
  };
  auto from = count(bt.shape), to = count(t.shape);
  if (from && to && *from != *to) {
    diags.error(call->range, "view of '" + arg->name + "' (" +
                                 std::to_string(*from) + " elements) as " +
                                 info.text + " (" + std::to_string(*to) +
                                 " elements)");
    return Type::invalid();
  }
  kernel->views.push_back(std::move(info));
  return t;
}

void Sema::Impl::checkDimExpressions(KernelInfo &info,
                                     std::vector<ArgDecl> &args) {
  for (unsigned i = 0; i < args.size(); ++i) {
    ArgDecl &a = args[i];
    if (!a.type.hasShape)
      continue;
    for (unsigned d = 0; d < a.type.dims.size(); ++d) {
      Expr *de = a.type.dims[d].get();
      if (de->kind == ExprKind::Name && static_cast<NameExpr *>(de)->symbol &&
          static_cast<NameExpr *>(de)->symbol->kind == SymbolKind::SymDim)
        continue; // a symbolic dimension itself
      std::optional<Dim> dim = checkDimExpression(de);
      if (!dim)
        continue;
      if (!dim->isStatic())
        info.derivedDims.push_back({i, d, de});
      if (a.symbol && !a.symbol->type.isInvalid() &&
          d < a.symbol->type.shape.size())
        a.symbol->type.shape[d] = *dim;
    }
  }
}

void Sema::Impl::bindSymDim(KernelInfo &info, NameExpr *n, unsigned arg,
                            unsigned dim) {
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

//===--- Operations -------------------------------------------------------===//

/// Calls fn on every launch of `steps`, in `if` branches too.
static void forEachLaunch(std::vector<OperationStep> &steps,
                          const std::function<void(CallExpr *)> &fn) {
  for (OperationStep &step : steps) {
    if (step.launch)
      fn(step.launch.get());
    if (step.branch) {
      forEachLaunch(step.branch->thenSteps, fn);
      forEachLaunch(step.branch->elseSteps, fn);
    }
  }
}

static bool anyLaunch(std::vector<OperationStep> &steps) {
  bool found = false;
  forEachLaunch(steps, [&](CallExpr *) { found = true; });
  return found;
}

/// The first part of `e` that only exists on the device (an element of a
/// tensor, a tensor, a tile fn call), or null.
static const Expr *deviceOnlyPart(const Expr *e) {
  if (e->kind == ExprKind::Index || e->kind == ExprKind::Slice ||
      (e->kind == ExprKind::Name && e->type.kind == TypeKind::Tensor) ||
      (e->kind == ExprKind::Call &&
       static_cast<const CallExpr *>(e)->resolvedFn))
    return e;
  const Expr *found = nullptr;
  forEachOperand(const_cast<Expr *>(e), [&](Expr *x) {
    if (!found)
      found = deviceOnlyPart(x);
  });
  return found;
}

bool Sema::Impl::checkHostExpr(Expr *e, const char *what) {
  Type t = checkExpr(e);
  if (t.isInvalid())
    return false;
  if (const Expr *part = deviceOnlyPart(e)) {
    diags.error(part->range, std::string(what) +
                                 " is computed by the launch stub before any "
                                 "kernel runs: it may use parameters, "
                                 "symbolic dimensions and scalar arguments, "
                                 "not tensor data or tile fns");
    return false;
  }
  return true;
}

void Sema::Impl::checkScratch(OperationInfo &info, ScratchDecl &scratch) {
  auto dtype = resolveDType(scratch.type.elemName, scratch.type.elemRange);
  std::vector<Dim> shape;
  bool ok = dtype.has_value();
  for (ExprPtr &d : scratch.type.dims) {
    if (!checkHostExpr(d.get(), "a scratch dimension")) {
      ok = false;
      continue;
    }
    if (!isIntegerLike(d->type)) {
      diags.error(d->range,
                  "a scratch dimension is an integer, got " + d->type.str());
      ok = false;
      continue;
    }
    if (d->constValue && d->constValue->i <= 0) {
      diags.error(d->range, "tensor dimension must be positive");
      ok = false;
    }
    // A computed size shows as its source text in messages.
    shape.push_back(d->constValue ? Dim{d->constValue->i, ""}
                                  : Dim{-1, sourceText(d->range)});
  }
  if (scratch.type.dims.empty() || scratch.type.dims.size() > 8) {
    diags.error(scratch.type.range, "tensors have rank 1 to 8");
    ok = false;
  }
  Type t = ok ? Type::tile(*dtype, MemScope::Global, shape) : Type::invalid();
  Symbol *sym = declare(SymbolKind::Arg, scratch.name, scratch.range, t);
  if (sym->range.Start != scratch.range.Start)
    return; // a redefinition (reported): the name keeps its first meaning
  scratch.symbol = sym;
  scratch.symbol->index = -1 - int(info.scratch.size());
  info.scratch.push_back(&scratch);
}

const KernelInfo *Sema::Impl::launchedKernel(const std::string &name) {
  for (const KernelInfo &k : self.kernelInfos)
    if (k.decl && k.decl->name == name)
      return &k;
  for (const KernelInfo &k : skippedKernels)
    if (k.decl->name == name)
      return &k;
  if (!selection.skip.count(name))
    return nullptr;
  for (DeclPtr &d : program->modules[0]->decls) {
    if (d->kind != DeclKind::Kernel ||
        static_cast<KernelDecl *>(d.get())->name != name)
      continue;
    // checkKernel appends to the kernels to compile: move it aside.
    KernelInfo *saved = kernel;
    checkKernel(static_cast<KernelDecl *>(d.get()));
    kernel = saved;
    skippedKernels.push_back(std::move(self.kernelInfos.back()));
    self.kernelInfos.pop_back();
    return &skippedKernels.back();
  }
  return nullptr;
}

void Sema::Impl::checkLaunch(
    OperationInfo &info, CallExpr *call,
    const std::vector<std::pair<const Expr *, bool>> &guards) {
  const std::string &opName = info.decl->name;
  const KernelInfo *callee = launchedKernel(call->callee);
  if (!callee) {
    bool isOperation = llvm::any_of(self.operationInfos, [&](auto &o) {
      return o.decl->name == call->callee;
    });
    diags.error(call->calleeRange,
                isOperation ? "an operation launches kernels, not other "
                              "operations ('" +
                                  call->callee + "')"
                            : "'" + call->callee +
                                  "' is not a kernel of this file; an "
                                  "operation launches the file's kernels");
    return;
  }
  if (!call->kwargs.empty())
    diags.error(call->kwargs.front().nameRange,
                "a kernel launch takes no keyword arguments");
  if (call->args.size() != callee->args.size()) {
    diags.error(call->range, "kernel '" + call->callee + "' takes " +
                                 std::to_string(callee->args.size()) +
                                 " arguments, got " +
                                 std::to_string(call->args.size()));
    return;
  }
  OperationLaunch launch;
  launch.kernel = callee;
  launch.call = call;
  launch.guards = guards;
  for (size_t i = 0; i < call->args.size(); ++i) {
    Expr *a = call->args[i].get();
    const Symbol *param = callee->args[i];
    const ArgDecl &paramDecl = callee->decl->args[i];
    LaunchArg arg;
    if (param->type.kind != TypeKind::Tensor) {
      arg.kind = LaunchArg::Scalar;
      arg.value = a;
      if (checkHostExpr(a, "a scalar argument of a launch") &&
          !param->type.isInvalid())
        checkConvertible(a->type, param->type.dtype, a->range,
                         "argument '" + param->name + "' of '" + call->callee +
                             "'");
      launch.args.push_back(arg);
      continue;
    }
    // Tensors are passed by name: an argument of the operation or one of
    // its scratch tensors.
    const Symbol *sym = nullptr;
    if (a->kind == ExprKind::Name) {
      checkName(static_cast<NameExpr *>(a));
      sym = static_cast<NameExpr *>(a)->symbol;
    }
    if (sym && sym->kind == SymbolKind::Arg && sym->index < 0)
      usedScratch.insert(sym);
    if (!sym || sym->kind != SymbolKind::Arg ||
        sym->type.kind != TypeKind::Tensor) {
      if (!a->type.isInvalid() || a->kind != ExprKind::Name)
        diags.error(a->range, "argument '" + param->name + "' of '" +
                                  call->callee +
                                  "' is a tensor: pass a tensor argument of "
                                  "the operation or a scratch tensor by name");
      continue;
    }
    const Type &have = sym->type, &want = param->type;
    if (want.isInvalid())
      continue;
    auto describe = [&] {
      return "'" + sym->name + "' is " + have.str() + " but '" + call->callee +
             "' takes " + param->name + ": " + want.str();
    };
    if (have.dtype != want.dtype || have.rank() != want.rank()) {
      diags.error(a->range, describe());
      continue;
    }
    for (unsigned d = 0; d < have.rank(); ++d)
      if (have.shape[d].isStatic() && want.shape[d].isStatic() &&
          have.shape[d].size != want.shape[d].size) {
        diags.error(a->range, describe() + " (dimension " + std::to_string(d) +
                                  " differs)");
        break;
      }
    bool scratch = sym->index < 0;
    arg.kind = scratch ? LaunchArg::Scratch : LaunchArg::Tensor;
    arg.index = scratch ? unsigned(-1 - sym->index) : unsigned(sym->index);
    if (!scratch && paramDecl.qualifier != ArgQualifier::In &&
        info.decl->args[arg.index].qualifier == ArgQualifier::In)
      diags.error(a->range, "'" + call->callee + "' writes its argument '" +
                                param->name + "', but '" + sym->name +
                                "' is an input of operation '" + opName +
                                "'; declare it 'out' or 'inout'");
    launch.args.push_back(arg);
  }
  if (launch.args.size() == call->args.size())
    info.launches.push_back(std::move(launch));
}

void Sema::Impl::checkOperation(OperationDecl *o) {
  self.operationInfos.push_back(OperationInfo{});
  OperationInfo &info = self.operationInfos.back();
  info.decl = o;
  KernelInfo &signature = info.signature;
  signature.name = o->name;
  enterSignature(signature, o->params);
  for (size_t i = 0; i < o->args.size(); ++i)
    checkKernelArg(signature, o->args[i], i);
  checkDimExpressions(signature, o->args);
  std::vector<std::pair<const Expr *, bool>> guards;
  checkOperationSteps(info, o->steps, guards);
  for (size_t j = 0; j < info.scratch.size(); ++j)
    if (!usedScratch.count(info.scratch[j]->symbol))
      diags.warning(info.scratch[j]->range.Start,
                    "scratch tensor '" + info.scratch[j]->name +
                        "' is not passed to any kernel");
  dropUnlaunchedScratch(info);
  if (!anyLaunch(o->steps))
    diags.error(o->nameRange, "operation '" + o->name + "' launches no kernel");
  else if (info.launches.empty() && diags.errorCount() == 0)
    diags.error(o->nameRange,
                "operation '" + o->name +
                    "' launches no kernel here: every launch is under a "
                    "compile-time condition that is false");
  kernel = nullptr;
}

void Sema::Impl::dropUnlaunchedScratch(OperationInfo &info) {
  std::vector<bool> launched(info.scratch.size(), false);
  for (const OperationLaunch &l : info.launches)
    for (const LaunchArg &a : l.args)
      if (a.kind == LaunchArg::Scratch)
        launched[a.index] = true;
  std::vector<unsigned> renumbered(info.scratch.size(), 0);
  std::vector<const ScratchDecl *> kept;
  for (size_t j = 0; j < info.scratch.size(); ++j)
    if (launched[j]) {
      renumbered[j] = kept.size();
      kept.push_back(info.scratch[j]);
    }
  for (OperationLaunch &l : info.launches)
    for (LaunchArg &a : l.args)
      if (a.kind == LaunchArg::Scratch)
        a.index = renumbered[a.index];
  info.scratch = std::move(kept);
}

void Sema::Impl::checkOperationSteps(
    OperationInfo &info, std::vector<OperationStep> &steps,
    std::vector<std::pair<const Expr *, bool>> &guards) {
  for (OperationStep &step : steps) {
    if (step.scratch) {
      checkScratch(info, *step.scratch);
    } else if (step.launch) {
      checkLaunch(info, step.launch.get(), guards);
    } else if (OperationIf *branch = step.branch.get()) {
      Expr *cond = branch->cond.get();
      if (checkHostExpr(cond, "the condition of an operation's 'if'") &&
          !cond->type.isBool())
        diags.error(cond->range, "the condition of an operation's 'if' is a "
                                 "bool, got " +
                                     cond->type.str());
      if (cond->constValue && cond->constValue->kind == ConstValue::Bool) {
        // A compile-time condition (target_cluster_blocks > 1): both
        // branches are checked, only the taken one launches.
        bool taken = cond->constValue->b;
        size_t before = info.launches.size();
        checkOperationSteps(info, branch->thenSteps, guards);
        if (!taken)
          info.launches.resize(before);
        before = info.launches.size();
        checkOperationSteps(info, branch->elseSteps, guards);
        if (taken)
          info.launches.resize(before);
        continue;
      }
      guards.push_back({cond, true});
      checkOperationSteps(info, branch->thenSteps, guards);
      guards.back().second = false;
      checkOperationSteps(info, branch->elseSteps, guards);
      guards.pop_back();
    }
  }
}

bool Sema::Impl::check(Program &program) {
  this->program = &program;
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
        if (tileOpKind(fn->name) != TileOpKind::None || isUnaryMath(fn->name) ||
            parseDType(fn->name) || fn->name == "cdiv" || fn->name == "min" ||
            fn->name == "max" || fn->name == "pow" || fn->name == "sizeof")
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
    if ((!selection.only.empty() && !selection.only.count(k->name)) ||
        selection.skip.count(k->name))
      continue;
    // The launch stub is NAME.h / NAME.cpp: the name must fit a file name
    // (255 bytes on Linux) with its suffix and the tlc_ prefix of entries.
    constexpr size_t kMaxKernelName = 200;
    if (k->name.size() + selection.suffix.size() > kMaxKernelName) {
      diags.error(k->nameRange,
                  "kernel name is " +
                      std::to_string(k->name.size() + selection.suffix.size()) +
                      " characters long; at most " +
                      std::to_string(kMaxKernelName) +
                      " (its launch stub is NAME.h and NAME.cpp)");
      continue;
    }
    checkKernel(k);
    if (diags.tooManyErrors())
      break;
  }
  // Operations, once their kernels are checked; not when only some
  // kernels (tuned variants) are.
  if (selection.only.empty() && selection.suffix.empty()) {
    // Kernels skipped here first: checking one resets the scopes and may
    // move the checked kernels.
    for (DeclPtr &d : program.modules[0]->decls)
      if (d->kind == DeclKind::Operation)
        forEachLaunch(static_cast<OperationDecl *>(d.get())->steps,
                      [&](CallExpr *call) { launchedKernel(call->callee); });
    for (DeclPtr &d : program.modules[0]->decls) {
      if (d->kind != DeclKind::Operation)
        continue;
      auto *o = static_cast<OperationDecl *>(d.get());
      if (!kernelNames.insert(o->name).second) {
        diags.error(o->nameRange, "'" + o->name +
                                      "' is already the name of a kernel or "
                                      "an operation of this file");
        continue;
      }
      checkOperation(o);
      if (diags.tooManyErrors())
        break;
    }
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
    if (selection.warnUnusedDefines && !usedDefines.count(name))
      diags.warning(llvm::SMLoc(), "-D " + name +
                                       " names no parameter or dimension of "
                                       "any kernel");
  if (kernelNames.empty() && !diags.hasErrors() && selection.warnUnusedDefines)
    diags.warning(llvm::SMLoc(), "no kernel in this file");
  return !diags.hasErrors();
}

Sema::Sema(DiagnosticEngine &diags, std::map<std::string, std::string> defines,
           std::map<std::string, int64_t> constants)
    : impl(std::make_unique<Impl>(*this, diags, std::move(defines),
                                  std::move(constants))) {}

Sema::~Sema() = default;

bool Sema::check(Program &program) { return impl->check(program); }

void Sema::select(KernelSelection selection) {
  impl->selection = std::move(selection);
}

std::vector<std::string> Sema::usedDefines() const {
  std::vector<std::string> names;
  for (const auto &entry : impl->usedDefines)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}
