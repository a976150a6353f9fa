//===- SemaStmt.cpp - Statements ------------------------------------------===//
#include "SemaImpl.h"

using namespace tlc;
using namespace tlc::sema;

void Sema::Impl::checkBlock(BlockStmt *block) {
  pushScope();
  for (StmtPtr &s : block->stmts) {
    if (diags.tooManyErrors())
      break;
    checkStmt(s.get());
  }
  popScope();
}

void Sema::Impl::checkStmt(Stmt *s) {
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

void Sema::Impl::checkAlloc(AllocStmt *s) {
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

/// `view(...)` as itself (not a tile fn of that name).
static CallExpr *asView(Expr *e, const llvm::StringMap<FnDecl *> &fns) {
  if (!e || e->kind != ExprKind::Call)
    return nullptr;
  auto *call = static_cast<CallExpr *>(e);
  return call->callee == "view" && !fns.count("view") ? call : nullptr;
}

void Sema::Impl::checkLet(LetStmt *s) {
  if (CallExpr *view = asView(s->init.get(), fns)) {
    if (s->isMutable || s->type)
      diags.error(s->range, "a view is bound with 'let' and no type: let " +
                                s->name + " = view(...)");
    Type t = checkView(view);
    setType(view, t);
    s->symbol = declare(SymbolKind::Let, s->name, s->nameRange, t);
    if (!t.isInvalid())
      s->symbol->viewOf = static_cast<NameExpr *>(view->args[0].get())->symbol;
    return;
  }
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
      checkConvertible(it, declared.dtype, s->init->range, "'" + s->name + "'");
    else if (!s->type)
      t = it.kind == TypeKind::Float ? Type::scalar(DType::F32) : it;
  } else if (!s->isMutable) {
    diags.error(s->range, "'let' needs an initial value");
  } else if (!s->type) {
    diags.error(s->range, "'var' needs a type or an initial value");
  }
  s->symbol = declare(s->isMutable ? SymbolKind::Var : SymbolKind::Let, s->name,
                      s->nameRange, t);
  noteClusterVarying(s->symbol, s->init.get());
  if (!s->isMutable && s->init && s->init->constValue && !t.isInvalid())
    s->symbol->constValue = s->init->constValue;
}

void Sema::Impl::checkAssign(AssignStmt *s) {
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
    noteClusterVarying(sym, s->value.get());
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
  if (target->kind == ExprKind::Index) {
    Expr *base = static_cast<IndexExpr *>(target)->base.get();
    if (base->kind == ExprKind::Name && base->type.kind == TypeKind::Tensor &&
        !checkWritable(
            {static_cast<NameExpr *>(base)->symbol, base->type, false},
            target->range))
      return;
    if (base->kind == ExprKind::Name && base->type.kind == TypeKind::Tensor &&
        isPacked(t.dtype)) {
      // Neighbours share a byte: blocks would race on it.
      diags.error(target->range,
                  "cannot store an element of " + t.str() + " tensor '" +
                      static_cast<NameExpr *>(base)->name + "': write a " +
                      dtypeName(t.dtype).str() +
                      " tile in a parallel over it and copy the tile");
      return;
    }
  }
  checkConvertible(v, t.dtype, s->value->range, "assignment");
}

void Sema::Impl::checkFor(ForStmt *s) {
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
  int64_t unroll = 1; // copies of the body this loop makes
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
    // Unrolling copies the body: a bound keeps the compile time and the
    // code size finite (pipelines are capped at 8 stages by the GPU
    // lowering; their buffers already bound them).
    constexpr int64_t kMaxUnroll = 256;
    // Nested unrolls multiply: the innermost body's copies are bounded too.
    constexpr int64_t kMaxUnrolledCopies = 4096;
    // stages = 0 (or 1) is a plain loop, so a tune axis can switch
    // pipelining off.
    int64_t least = kw.name == "stages" ? 0 : 1;
    if (v && *v < least) {
      diags.error(kw.value->range, "'" + kw.name + "' must be at least " +
                                       std::to_string(least));
      ok = false;
    } else if (v && kw.name == "unroll" && *v > kMaxUnroll) {
      diags.error(kw.value->range, "'unroll' is " + std::to_string(*v) +
                                       "; at most " +
                                       std::to_string(kMaxUnroll) +
                                       " (the body is copied that many times)");
      ok = false;
    } else if (v && kw.name == "unroll" &&
               unrolledCopies * *v > kMaxUnrolledCopies) {
      diags.error(kw.value->range, "'unroll' is " + std::to_string(*v) +
                                       " inside loops unrolled " +
                                       std::to_string(unrolledCopies) +
                                       " times: the body would be copied " +
                                       std::to_string(unrolledCopies * *v) +
                                       " times; at most " +
                                       std::to_string(kMaxUnrolledCopies));
      ok = false;
    } else if (v && kw.name == "unroll") {
      unroll = *v;
    }
  }
  if (s->loopKind == LoopKind::Pipelined && parallel) {
    diags.error(s->iterRange, "'pipelined' loops cannot be inside 'parallel'");
    ok = false;
  }
  (void)ok;
  pushScope();
  s->symbol = declare(SymbolKind::LoopVar, s->var, s->varRange, Type::intTy());
  const Expr *varying = nullptr;
  for (const ExprPtr &a : s->args)
    if (!varying)
      varying = clusterVaryingPart(a.get());
  if (varying)
    clusterVaryingControl.push_back(varying);
  noteClusterVarying(s->symbol, nullptr);
  int64_t outerCopies = unrolledCopies;
  unrolledCopies *= unroll;
  checkBlock(s->body.get());
  unrolledCopies = outerCopies;
  if (varying)
    clusterVaryingControl.pop_back();
  popScope();
}

void Sema::Impl::checkParallel(ParallelStmt *s) {
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
    diags.error(s->range, "'parallel' over a rank-" +
                              std::to_string(shape.size()) + " domain needs " +
                              std::to_string(shape.size()) + " indices, got " +
                              std::to_string(s->vars.size()));
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

void Sema::Impl::checkIf(IfStmt *s) {
  Type c = checkExpr(s->cond.get());
  if (!c.isInvalid() && !c.isBool())
    diags.error(s->cond->range, "condition must be a bool, got " + c.str());
  const Expr *varying = clusterVaryingPart(s->cond.get());
  if (varying)
    clusterVaryingControl.push_back(varying);
  checkBlock(s->thenBody.get());
  if (s->elseBody)
    checkStmt(s->elseBody.get());
  if (varying)
    clusterVaryingControl.pop_back();
}

const Expr *Sema::Impl::clusterVaryingPart(const Expr *e) const {
  if (!e || clusterVarying.empty())
    return nullptr;
  auto first = [&](std::initializer_list<const Expr *> parts) -> const Expr * {
    for (const Expr *p : parts)
      if (const Expr *v = clusterVaryingPart(p))
        return v;
    return nullptr;
  };
  switch (e->kind) {
  case ExprKind::IntLit:
  case ExprKind::FloatLit:
  case ExprKind::BoolLit:
    return nullptr;
  case ExprKind::Name: {
    const Symbol *sym = static_cast<const NameExpr *>(e)->symbol;
    return sym && clusterVarying.count(sym) ? e : nullptr;
  }
  case ExprKind::Unary:
    return first({static_cast<const UnaryExpr *>(e)->operand.get()});
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    return first({b->lhs.get(), b->rhs.get()});
  }
  case ExprKind::Ternary: {
    auto *t = static_cast<const TernaryExpr *>(e);
    return first({t->cond.get(), t->trueValue.get(), t->falseValue.get()});
  }
  case ExprKind::Call:
    for (const ExprPtr &a : static_cast<const CallExpr *>(e)->args)
      if (const Expr *v = clusterVaryingPart(a.get()))
        return v;
    return nullptr;
  case ExprKind::Index: {
    auto *index = static_cast<const IndexExpr *>(e);
    // A tile's elements are the block's own data.
    if (index->base->type.kind == TypeKind::Tile)
      return e;
    for (const ExprPtr &i : index->indices)
      if (const Expr *v = clusterVaryingPart(i.get()))
        return v;
    return nullptr;
  }
  case ExprKind::Slice: {
    auto *slice = static_cast<const SliceExpr *>(e);
    return first({slice->lo.get(), slice->hi.get()});
  }
  }
  return nullptr;
}

void Sema::Impl::noteClusterVarying(const Symbol *sym, const Expr *value) {
  if (sym && !clusterVarying.empty() &&
      (!clusterVaryingControl.empty() || clusterVaryingPart(value)))
    clusterVarying.insert(sym);
}

void Sema::Impl::checkReturn(ReturnStmt *s) {
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
    diags.error(s->value->range, "tile fn without '->' cannot return a value");
    return;
  }
  checkConvertible(t, rt.dtype, s->value->range, "return");
}

Expr *Sema::Impl::findFnCall(Expr *e) {
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
