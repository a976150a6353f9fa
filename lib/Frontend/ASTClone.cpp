//===- ASTClone.cpp - Deep copies of tile fns for generic instantiation
//----===//
#include "tlc/Frontend/Sema.h"

using namespace tlc;

static ExprPtr cloneExpr(const Expr *e);

static std::vector<ExprPtr> cloneExprs(const std::vector<ExprPtr> &v) {
  std::vector<ExprPtr> out;
  for (const ExprPtr &e : v)
    out.push_back(cloneExpr(e.get()));
  return out;
}

static std::vector<KeywordArg> cloneKwargs(const std::vector<KeywordArg> &v) {
  std::vector<KeywordArg> out;
  for (const KeywordArg &k : v)
    out.push_back({k.name, k.nameRange, cloneExpr(k.value.get())});
  return out;
}

static ExprPtr cloneExpr(const Expr *e) {
  if (!e)
    return nullptr;
  switch (e->kind) {
  case ExprKind::IntLit:
    return std::make_unique<IntLitExpr>(
        e->range, static_cast<const IntLitExpr *>(e)->value);
  case ExprKind::FloatLit:
    return std::make_unique<FloatLitExpr>(
        e->range, static_cast<const FloatLitExpr *>(e)->value);
  case ExprKind::BoolLit:
    return std::make_unique<BoolLitExpr>(
        e->range, static_cast<const BoolLitExpr *>(e)->value);
  case ExprKind::Name:
    return std::make_unique<NameExpr>(e->range,
                                      static_cast<const NameExpr *>(e)->name);
  case ExprKind::Unary: {
    auto *u = static_cast<const UnaryExpr *>(e);
    return std::make_unique<UnaryExpr>(e->range, u->op,
                                       cloneExpr(u->operand.get()));
  }
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    return std::make_unique<BinaryExpr>(
        e->range, b->op, cloneExpr(b->lhs.get()), cloneExpr(b->rhs.get()));
  }
  case ExprKind::Ternary: {
    auto *t = static_cast<const TernaryExpr *>(e);
    return std::make_unique<TernaryExpr>(e->range, cloneExpr(t->cond.get()),
                                         cloneExpr(t->trueValue.get()),
                                         cloneExpr(t->falseValue.get()));
  }
  case ExprKind::Call: {
    auto *c = static_cast<const CallExpr *>(e);
    auto out = std::make_unique<CallExpr>(e->range, c->callee, c->calleeRange);
    out->args = cloneExprs(c->args);
    out->kwargs = cloneKwargs(c->kwargs);
    return out;
  }
  case ExprKind::Index: {
    auto *i = static_cast<const IndexExpr *>(e);
    auto out = std::make_unique<IndexExpr>(e->range, cloneExpr(i->base.get()));
    out->indices = cloneExprs(i->indices);
    return out;
  }
  case ExprKind::Slice: {
    auto *s = static_cast<const SliceExpr *>(e);
    return std::make_unique<SliceExpr>(
        e->range, s->lo ? cloneExpr(s->lo.get()) : nullptr,
        s->hi ? cloneExpr(s->hi.get()) : nullptr,
        s->step ? cloneExpr(s->step.get()) : nullptr);
  }
  }
  return nullptr;
}

static TypeExpr cloneType(const TypeExpr &t) {
  TypeExpr out;
  out.range = t.range;
  out.elemName = t.elemName;
  out.elemRange = t.elemRange;
  out.hasShape = t.hasShape;
  out.dims = cloneExprs(t.dims);
  return out;
}

static std::unique_ptr<BlockStmt> cloneBlock(const BlockStmt *b);

static StmtPtr cloneStmt(const Stmt *s) {
  if (!s)
    return nullptr;
  switch (s->kind) {
  case StmtKind::Block:
    return cloneBlock(static_cast<const BlockStmt *>(s));
  case StmtKind::Alloc: {
    auto *a = static_cast<const AllocStmt *>(s);
    auto out = std::make_unique<AllocStmt>(s->range, a->scope);
    out->name = a->name;
    out->nameRange = a->nameRange;
    out->type = cloneType(a->type);
    return out;
  }
  case StmtKind::Let: {
    auto *l = static_cast<const LetStmt *>(s);
    auto out = std::make_unique<LetStmt>(s->range, l->isMutable);
    out->name = l->name;
    out->nameRange = l->nameRange;
    if (l->type)
      out->type = cloneType(*l->type);
    out->init = cloneExpr(l->init.get());
    return out;
  }
  case StmtKind::Assign: {
    auto *a = static_cast<const AssignStmt *>(s);
    return std::make_unique<AssignStmt>(s->range, cloneExpr(a->target.get()),
                                        a->op, cloneExpr(a->value.get()));
  }
  case StmtKind::Expr:
    return std::make_unique<ExprStmt>(
        s->range, cloneExpr(static_cast<const ExprStmt *>(s)->expr.get()));
  case StmtKind::For: {
    auto *f = static_cast<const ForStmt *>(s);
    auto out = std::make_unique<ForStmt>(s->range, f->loopKind);
    out->var = f->var;
    out->varRange = f->varRange;
    out->iterRange = f->iterRange;
    out->args = cloneExprs(f->args);
    out->kwargs = cloneKwargs(f->kwargs);
    out->body = cloneBlock(f->body.get());
    return out;
  }
  case StmtKind::Parallel: {
    auto *p = static_cast<const ParallelStmt *>(s);
    auto out = std::make_unique<ParallelStmt>(s->range);
    out->vars = p->vars;
    out->varRanges = p->varRanges;
    out->domainTile = cloneExpr(p->domainTile.get());
    out->domainShape = cloneExprs(p->domainShape);
    out->body = cloneBlock(p->body.get());
    return out;
  }
  case StmtKind::If: {
    auto *i = static_cast<const IfStmt *>(s);
    auto out = std::make_unique<IfStmt>(s->range);
    out->cond = cloneExpr(i->cond.get());
    out->thenBody = cloneBlock(i->thenBody.get());
    out->elseBody = cloneStmt(i->elseBody.get());
    return out;
  }
  case StmtKind::Return: {
    auto out = std::make_unique<ReturnStmt>(s->range);
    out->value = cloneExpr(static_cast<const ReturnStmt *>(s)->value.get());
    return out;
  }
  }
  return nullptr;
}

static std::unique_ptr<BlockStmt> cloneBlock(const BlockStmt *b) {
  if (!b)
    return nullptr;
  auto out = std::make_unique<BlockStmt>(b->range);
  for (const StmtPtr &s : b->stmts)
    out->stmts.push_back(cloneStmt(s.get()));
  return out;
}

std::unique_ptr<FnDecl> tlc::cloneFn(const FnDecl &fn) {
  auto out = std::make_unique<FnDecl>(fn.range);
  out->name = fn.name;
  out->nameRange = fn.nameRange;
  for (const ParamDecl &p : fn.params) {
    ParamDecl q;
    q.name = p.name;
    q.range = p.range;
    q.isDType = p.isDType;
    q.defaultValue = cloneExpr(p.defaultValue.get());
    q.defaultDType = p.defaultDType;
    q.defaultRange = p.defaultRange;
    out->params.push_back(std::move(q));
  }
  for (const ArgDecl &a : fn.args) {
    ArgDecl b;
    b.name = a.name;
    b.range = a.range;
    b.qualifier = a.qualifier;
    b.scope = a.scope;
    b.type = cloneType(a.type);
    out->args.push_back(std::move(b));
  }
  if (fn.returnType)
    out->returnType = cloneType(*fn.returnType);
  out->body = cloneBlock(fn.body.get());
  return out;
}
