//===- LaunchHeuristic.cpp - Variants for kernels without a database ------===//

#include "tlc/Tune/LaunchHeuristic.h"

#include "tlc/Frontend/AST.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

namespace tlc::tune {

namespace {

/// Adds the names `e` mentions to `names`.
void collectNames(const Expr *e, std::set<std::string> &names) {
  if (!e)
    return;
  switch (e->kind) {
  case ExprKind::IntLit:
  case ExprKind::FloatLit:
  case ExprKind::BoolLit:
    return;
  case ExprKind::Name:
    names.insert(static_cast<const NameExpr *>(e)->name);
    return;
  case ExprKind::Unary:
    collectNames(static_cast<const UnaryExpr *>(e)->operand.get(), names);
    return;
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    collectNames(b->lhs.get(), names);
    collectNames(b->rhs.get(), names);
    return;
  }
  case ExprKind::Ternary: {
    auto *t = static_cast<const TernaryExpr *>(e);
    collectNames(t->cond.get(), names);
    collectNames(t->trueValue.get(), names);
    collectNames(t->falseValue.get(), names);
    return;
  }
  case ExprKind::Call: {
    auto *c = static_cast<const CallExpr *>(e);
    for (const ExprPtr &a : c->args)
      collectNames(a.get(), names);
    for (const KeywordArg &a : c->kwargs)
      collectNames(a.value.get(), names);
    return;
  }
  case ExprKind::Index: {
    auto *x = static_cast<const IndexExpr *>(e);
    collectNames(x->base.get(), names);
    for (const ExprPtr &i : x->indices)
      collectNames(i.get(), names);
    return;
  }
  case ExprKind::Slice: {
    auto *s = static_cast<const SliceExpr *>(e);
    collectNames(s->lo.get(), names);
    collectNames(s->hi.get(), names);
    collectNames(s->step.get(), names);
    return;
  }
  }
}

const ConstValue *paramValue(const KernelInfo &info, const std::string &name) {
  for (const auto &[param, value] : info.params)
    if (param == name)
      return &value;
  return nullptr;
}

} // namespace

std::vector<std::string> launchShapeParams(const KernelInfo &info) {
  // The grid's names, then the parameters their defaults name, to a fixed
  // point: `Rows = BM * 2` with grid(cdiv(M, Rows)) makes BM launch-shaping.
  std::set<std::string> names;
  for (const ExprPtr &extent : info.decl->grid)
    collectNames(extent.get(), names);
  for (bool grew = true; grew;) {
    grew = false;
    for (const ParamDecl &p : info.decl->params)
      if (names.count(p.name) && p.defaultValue) {
        size_t before = names.size();
        collectNames(p.defaultValue.get(), names);
        grew |= names.size() != before;
      }
  }
  std::vector<std::string> result;
  for (const std::string &axis : info.tuneAxes) {
    const ConstValue *value = paramValue(info, axis);
    // Only positive integers make a tile area.
    if (names.count(axis) && value && value->kind == ConstValue::Int &&
        value->i > 0)
      result.push_back(axis);
  }
  return result;
}

std::optional<KernelVariants> fillVariants(const KernelInfo &info) {
  std::vector<std::string> launch = launchShapeParams(info);
  if (launch.empty())
    return std::nullopt;
  auto areaOf = [&](auto valueOf) {
    int64_t area = 1;
    for (const std::string &name : launch)
      area *= valueOf(name);
    return area;
  };
  int64_t defaultArea = areaOf(
      [&](const std::string &name) { return paramValue(info, name)->i; });

  struct Candidate {
    int64_t area;
    double maxShrink; // the largest default / value over the parameters
    KernelVariants::Params params;
  };
  std::vector<Candidate> smaller;
  for (const TunePoint &point : info.tunePoints) {
    bool fits = true;
    KernelVariants::Params params;
    double maxShrink = 1;
    for (const auto &[name, value] : point) {
      const ConstValue *fallback = paramValue(info, name);
      if (!llvm::is_contained(launch, name)) {
        // Other parameters stay at their defaults.
        fits &= fallback && value.kind == fallback->kind &&
                value.str() == fallback->str();
        continue;
      }
      fits &= value.kind == ConstValue::Int && value.i > 0 &&
              value.i <= fallback->i;
      if (fits)
        maxShrink = std::max(maxShrink, double(fallback->i) / double(value.i));
      params.push_back({name, value.str()});
    }
    if (!fits)
      continue;
    int64_t area = areaOf([&](const std::string &name) {
      for (const auto &[param, value] : point)
        if (param == name)
          return value.i;
      return int64_t(1);
    });
    if (area < defaultArea)
      smaller.push_back({area, maxShrink, std::move(params)});
  }
  // Largest first; among equal areas the most even shrink (32x32 before
  // 16x64 from 64x64: the call's shape is not known here), then the tune
  // clause's order.
  std::stable_sort(smaller.begin(), smaller.end(),
                   [](const Candidate &a, const Candidate &b) {
                     if (a.area != b.area)
                       return a.area > b.area;
                     return a.maxShrink < b.maxShrink;
                   });

  KernelVariants variants;
  variants.fillHeuristic = true;
  variants.origin = "the fill heuristic";
  KernelVariants::Params defaults;
  for (const std::string &name : launch)
    defaults.push_back({name, paramValue(info, name)->str()});
  variants.variants.push_back(std::move(defaults));
  int64_t lastArea = defaultArea;
  for (Candidate &c : smaller) {
    if (variants.variants.size() == kMaxFillVariants)
      break;
    if (c.area * kFillAreaStep > lastArea)
      continue;
    lastArea = c.area;
    variants.variants.push_back(std::move(c.params));
  }
  if (variants.variants.size() < 2)
    return std::nullopt;
  return variants;
}

} // namespace tlc::tune
