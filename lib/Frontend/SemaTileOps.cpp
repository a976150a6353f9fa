//===- SemaTileOps.cpp - Tile ops and tile fn instances -------------------===//
#include "SemaImpl.h"

using namespace tlc;
using namespace tlc::sema;

std::optional<Sema::Impl::Operand>
Sema::Impl::checkOperand(Expr *e, bool allowWindow, const std::string &what) {
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
  auto checkIndex = [&](Expr *idx) {
    Type it = checkExpr(idx);
    if (!it.isInvalid() && !isIntegerLike(it)) {
      diags.error(idx->range, "index must be an integer, got " + it.str());
      ok = false;
    }
    ok &= !it.isInvalid();
  };
  for (ExprPtr &idx : index->indices) {
    if (auto gather = matchGatherIndex(idx.get())) {
      op.sliced = op.gathers = true;
      ok &= checkGatherIndex(*gather);
      if (gather->offset)
        checkIndex(gather->offset);
      continue;
    }
    if (idx->kind != ExprKind::Slice) {
      checkIndex(idx.get());
      continue;
    }
    op.sliced = true;
    auto *slice = static_cast<SliceExpr *>(idx.get());
    for (Expr *bound : {slice->lo.get(), slice->hi.get(), slice->step.get()})
      if (bound)
        checkIndex(bound);
  }
  if (op.gathers && t.kind != TypeKind::Tensor) {
    diags.error(e->range, "gathers read rows of tensors; a window of tile '" +
                              op.symbol->name +
                              "' takes an origin per dimension");
    return std::nullopt;
  }
  if (op.sliced && t.kind != TypeKind::Tensor) {
    diags.error(e->range, "slices select parts of tensors; a window of tile '" +
                              op.symbol->name +
                              "' takes an origin per "
                              "dimension");
    return std::nullopt;
  }
  op.window = true;
  return ok ? std::optional(op) : std::nullopt;
}

bool Sema::Impl::checkGatherIndex(const GatherIndex &g) {
  Expr *base = g.tile->base.get();
  if (base->kind != ExprKind::Name) {
    diags.error(g.tile->range, "a gather index must be a tile name, e.g. "
                               "idx[:]");
    return false;
  }
  Type t = checkExpr(base);
  if (t.isInvalid())
    return false;
  if (t.kind != TypeKind::Tile || t.rank() != 1 ||
      (t.dtype != DType::I32 && t.dtype != DType::I64)) {
    diags.error(g.tile->range,
                "a gather index must be a rank-1 i32 or i64 tile, got '" +
                    static_cast<NameExpr *>(base)->name + "' of type " +
                    t.str());
    return false;
  }
  g.tile->type = t;
  return true;
}

bool Sema::Impl::checkWritable(const Operand &op, SMRange range) {
  const Symbol *arg = op.symbol->viewOf ? op.symbol->viewOf : op.symbol;
  if (arg->kind == SymbolKind::Arg && op.type.kind == TypeKind::Tensor &&
      kernel && kernel->decl->args[arg->index].qualifier == ArgQualifier::In) {
    diags.error(range, "cannot write to input tensor '" + arg->name +
                           "'; declare it 'out' or 'inout'");
    return false;
  }
  return true;
}

bool Sema::Impl::checkSlicedWindow(const Operand &window, const Type &tile,
                                   Expr *windowExpr, const std::string &op) {
  auto *index = static_cast<IndexExpr *>(windowExpr);
  // Every slice keeps a dimension; the index tiles of a gather together
  // keep one, at the place of the first.
  size_t kept = window.gathers ? 1 : 0;
  for (ExprPtr &idx : index->indices)
    kept += idx->kind == ExprKind::Slice;
  if (kept != tile.rank()) {
    diags.error(windowExpr->range,
                op + ": the window of '" + window.symbol->name + "' keeps " +
                    std::to_string(kept) + " dimension" +
                    (kept == 1 ? "" : "s") +
                    (window.gathers ? " (one per slice, one for the gather)"
                                    : " (one per slice)") +
                    " but the tile has rank " + std::to_string(tile.rank()));
    return false;
  }
  if (window.gathers) {
    // Gathered rows are copied as contiguous runs of the last dimension.
    Expr *last = index->indices.back().get();
    auto *slice = last->kind == ExprKind::Slice ? static_cast<SliceExpr *>(last)
                                                : nullptr;
    if (!slice || (slice->step && !(slice->step->constValue &&
                                    slice->step->constValue->i == 1))) {
      diags.error(last->range,
                  op + ": a gather copies runs of the last dimension of '" +
                      window.symbol->name +
                      "'; its last index must be a slice with step 1");
      return false;
    }
  }
  size_t t = 0;
  std::optional<size_t> gatherDim;
  for (size_t d = 0; d < index->indices.size(); ++d) {
    Expr *idx = index->indices[d].get();
    auto constant = [](Expr *e) -> std::optional<int64_t> {
      if (e && e->constValue && e->constValue->kind == ConstValue::Int)
        return e->constValue->i;
      return std::nullopt;
    };
    if (auto gather = matchGatherIndex(idx)) {
      if (!gatherDim)
        gatherDim = t++;
      int64_t rows = gather->tile->type.shape[0].size;
      int64_t extent = tile.shape[*gatherDim].size;
      if (rows != extent) {
        diags.error(
            gather->tile->range,
            op + ": index tile '" +
                static_cast<NameExpr *>(gather->tile->base.get())->name +
                "' has " + std::to_string(rows) +
                " elements but the tile has " + std::to_string(extent) +
                " along the gathered dimension " + std::to_string(*gatherDim));
        return false;
      }
      continue;
    }
    if (idx->kind != ExprKind::Slice) {
      if (auto c = constant(idx); c && *c < 0) {
        diags.error(idx->range, op + ": index " + std::to_string(*c) +
                                    " is before the start of '" +
                                    window.symbol->name + "'");
        return false;
      }
      continue;
    }
    auto *slice = static_cast<SliceExpr *>(idx);
    const Dim &dim = window.type.shape[d];
    int64_t extent = tile.shape[t++].size;
    std::optional<int64_t> lo = slice->lo ? constant(slice->lo.get()) : 0;
    std::optional<int64_t> hi = slice->hi        ? constant(slice->hi.get())
                                : dim.isStatic() ? std::optional(dim.size)
                                                 : std::nullopt;
    std::optional<int64_t> step = slice->step ? constant(slice->step.get()) : 1;
    if (step && *step <= 0) {
      diags.error(slice->step->range, op +
                                          ": a slice's step must be "
                                          "positive, got " +
                                          std::to_string(*step));
      return false;
    }
    // Elements the slice takes: from lo by step while < hi.
    if (lo && hi && step && *hi > *lo && (*hi - *lo - 1) / *step + 1 > extent) {
      int64_t count = (*hi - *lo - 1) / *step + 1;
      diags.error(idx->range,
                  op + ": the slice spans " + std::to_string(count) +
                      " elements of dimension " + std::to_string(d) + " of '" +
                      window.symbol->name + "' but the tile has " +
                      std::to_string(extent) + " along it");
      return false;
    }
  }
  return true;
}

bool Sema::Impl::checkWindowFits(const Operand &window, const Type &tile,
                                 Expr *windowExpr, const std::string &op) {
  if (window.sliced)
    return checkSlicedWindow(window, tile, windowExpr, op);
  if (tile.rank() > window.type.rank()) {
    diags.error(windowExpr->range,
                op + ": a rank-" + std::to_string(tile.rank()) +
                    " tile does not fit in '" + window.symbol->name +
                    "' of rank " + std::to_string(window.type.rank()));
    return false;
  }
  // A window covers the trailing dimensions of a tensor. A tile wider than
  // a constant dimension it covers is legal (the rest is masked) but almost
  // always meant another dimension: `copy(KV[b, s, h, 0], t)` with t:
  // [BN, D] covers h, not s.
  if (window.type.kind == TypeKind::Tensor) {
    auto *index = static_cast<IndexExpr *>(windowExpr);
    size_t lead = window.type.rank() - tile.rank();
    for (size_t i = lead; i < window.type.rank(); ++i) {
      const Dim &dim = window.type.shape[i];
      const Dim &extent = tile.shape[i - lead];
      if (!dim.isStatic() || !extent.isStatic() || extent.size <= dim.size)
        continue;
      std::string covered = tile.rank() == 1
                                ? std::to_string(lead)
                                : std::to_string(lead) + ".." +
                                      std::to_string(window.type.rank() - 1);
      diags.warning(index->indices[i]->range.Start,
                    op + ": the window of '" + window.symbol->name +
                        "' spans " + std::to_string(extent.size) +
                        " along dimension " + std::to_string(i) +
                        ", which has only " + std::to_string(dim.size) +
                        " (a window covers a tensor's trailing dimensions, "
                        "here " +
                        covered +
                        "); the rest is always masked; slices pick other "
                        "dimensions: X[i, a : a + n, j, :]");
      break; // one warning per copy
    }
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

bool Sema::Impl::checkNotPacked(const Operand &op, Expr *e,
                                const std::string &what) {
  if (!isPacked(op.type.dtype))
    return true;
  diags.error(e->range,
              what + " cannot be a " + dtypeName(op.type.dtype).str() + " " +
                  (op.type.kind == TypeKind::Tile ? "tile" : "tensor") +
                  ": 4-bit integers are storage types; unpack them "
                  "into a wider tile in a parallel first");
  return false;
}

bool Sema::Impl::checkPackedCopy(const Operand &src, const Operand &dst,
                                 CallExpr *e) {
  DType s = src.type.dtype, d = dst.type.dtype;
  if (!isPacked(s) && !isPacked(d))
    return true;
  if (s != d) {
    diags.error(e->range, "copy: a " + dtypeName(isPacked(s) ? s : d).str() +
                              " tile or tensor copies only to and from " +
                              dtypeName(isPacked(s) ? s : d).str() + ", got " +
                              dtypeName(s).str() + " to " + dtypeName(d).str() +
                              "; convert its elements in a parallel");
    return false;
  }
  // Two elements share a byte: the copy moves whole bytes (tile-pack-sub-byte).
  for (const Operand *op : {&src, &dst}) {
    Expr *w = op == &src ? e->args[0].get() : e->args[1].get();
    if (!op->window || w->kind != ExprKind::Index)
      continue;
    for (ExprPtr &idx : static_cast<IndexExpr *>(w)->indices)
      if (idx->kind == ExprKind::Slice &&
          static_cast<SliceExpr *>(idx.get())->step) {
        diags.error(idx->range, "copy: a window of packed " +
                                    dtypeName(s).str() +
                                    " elements cannot take a step");
        return false;
      }
  }
  return true;
}

bool Sema::Impl::checkCopy(CallExpr *e) {
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
  if (!checkPackedCopy(*src, *dst, e))
    return false;
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

bool Sema::Impl::checkFill(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
    return false;
  auto dst = checkOperand(e->args[0].get(), false, "fill destination");
  Type v = checkExpr(e->args[1].get());
  if (!dst || v.isInvalid())
    return false;
  if (dst->type.kind != TypeKind::Tile) {
    diags.error(e->args[0]->range, "fill expects a tile, got a global tensor");
    return false;
  }
  return checkConvertible(v, dst->type.dtype, e->args[1]->range, "fill");
}

bool Sema::Impl::checkBoolKwargs(CallExpr *e, llvm::ArrayRef<StringRef> allowed,
                                 llvm::StringMap<bool> &out,
                                 llvm::ArrayRef<StringRef> others) {
  bool ok = true;
  for (KeywordArg &kw : e->kwargs) {
    if (llvm::is_contained(others, kw.name))
      continue;
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

bool Sema::Impl::checkGemm(CallExpr *e) {
  if (!checkArity(e, 3, 3))
    return false;
  llvm::StringMap<bool> flags;
  bool ok =
      checkBoolKwargs(e, {"trans_a", "trans_b", "clear"}, flags, {"warps_m"});
  // A hint for the matrix instructions' warp grid (7.3).
  for (KeywordArg &kw : e->kwargs)
    if (kw.name == "warps_m") {
      std::optional<int64_t> w = constInt(kw.value.get(), "'warps_m'");
      if (w && *w <= 0) {
        diags.error(kw.value->range,
                    "'warps_m' must be positive, got " + std::to_string(*w));
        w.reset();
      }
      ok &= w.has_value();
    }
  auto a = checkOperand(e->args[0].get(), false, "gemm operand A");
  auto b = checkOperand(e->args[1].get(), false, "gemm operand B");
  auto c = checkOperand(e->args[2].get(), false, "gemm accumulator");
  if (!ok || !a || !b || !c)
    return false;
  if (!checkNotPacked(*a, e->args[0].get(), "gemm operand A") ||
      !checkNotPacked(*b, e->args[1].get(), "gemm operand B") ||
      !checkNotPacked(*c, e->args[2].get(), "gemm accumulator"))
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
                              " disagree on K (" + std::to_string(ka) + " vs " +
                              std::to_string(kb) + ")");
    return false;
  }
  if (cs[0].size != m || cs[1].size != n) {
    diags.error(e->args[2]->range, "gemm shape mismatch: C is " + shapeStr(cs) +
                                       " but A*B is [" + std::to_string(m) +
                                       ", " + std::to_string(n) + "]");
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
      c->type.dtype == DType::Bool || isF8(c->type.dtype)) {
    diags.error(e->args[2]->range, "gemm: accumulator dtype " +
                                       dtypeName(c->type.dtype).str() +
                                       " does not suit operands of dtype " +
                                       dtypeName(a->type.dtype).str());
    return false;
  }
  return true;
}

bool Sema::Impl::checkReduce(CallExpr *e) {
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
  if (!checkNotPacked(*src, e->args[0].get(), "'" + e->callee + "' source") ||
      !checkNotPacked(*dst, e->args[1].get(),
                      "'" + e->callee + "' destination"))
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
                    shapeStr(expected) + ", got " + shapeStr(dst->type.shape));
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
  if (isF8(src->type.dtype) || isF8(dst->type.dtype)) {
    diags.error(e->range, "cannot reduce " +
                              dtypeName(isF8(src->type.dtype) ? src->type.dtype
                                                              : dst->type.dtype)
                                  .str() +
                              " tiles: 8-bit floats are storage types; copy "
                              "the tile to an f32 one first");
    return false;
  }
  return true;
}

bool Sema::Impl::checkClusterReduce(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 1, 1))
    return false;
  auto t = checkOperand(e->args[0].get(), false, "'" + e->callee + "' tile");
  if (!t)
    return false;
  if (t->type.kind != TypeKind::Tile || t->type.scope != MemScope::Fragment) {
    diags.error(e->args[0]->range, "'" + e->callee +
                                       "' combines a fragment tile, got " +
                                       t->type.str());
    return false;
  }
  DType d = t->type.dtype;
  if (d == DType::Bool || d == DType::U8 || isF8(d) || isPacked(d)) {
    diags.error(e->args[0]->range, "cannot combine " + dtypeName(d).str() +
                                       " tiles over a cluster");
    return false;
  }
  if (!clusterVaryingControl.empty()) {
    const Expr *why = clusterVaryingControl.back();
    diags.error(e->calleeRange,
                "'" + e->callee +
                    "' under a condition or loop bound that may differ "
                    "between the blocks of a cluster: every block of a "
                    "cluster must reach each cluster reduction");
    diags.note(why->range.Start,
               "this differs between the blocks of a cluster (the x block "
               "index, a value computed from it, or a tile's data)");
    return false;
  }
  if (kernel && !kernel->decl->cluster) {
    diags.error(e->calleeRange, "'" + e->callee +
                                    "' needs a kernel with cluster(...) after "
                                    "its threads(...): kernel '" +
                                    kernel->decl->name + "' runs no clusters");
    return false;
  }
  return checkWritable(*t, e->args[0]->range);
}

bool Sema::Impl::checkAtomicDType(DType d, SMRange range,
                                  const std::string &op) {
  if (d == DType::F32 || d == DType::F64 || d == DType::I32 || d == DType::I64)
    return true;
  diags.error(range, op + " supports f32, f64, i32 and i64 tensors, got " +
                         dtypeName(d).str());
  return false;
}

bool Sema::Impl::isElementAtomic(CallExpr *e) {
  if (e->callee != "atomic_add")
    return true; // atomic_max/min have no tile form
  if (e->args.size() < 2 || e->args[1]->kind != ExprKind::Name)
    return true;
  auto [sym, depth] = lookup(static_cast<NameExpr *>(e->args[1].get())->name);
  (void)depth;
  return !sym || !sym->type.isShaped();
}

bool Sema::Impl::checkElementAtomic(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
    return false;
  Expr *target = e->args[0].get();
  bool isTensorElement =
      target->kind == ExprKind::Index &&
      static_cast<IndexExpr *>(target)->base->kind == ExprKind::Name;
  std::optional<Operand> dst;
  if (isTensorElement)
    dst = checkOperand(target, true, e->callee + " destination");
  Type v = checkExpr(e->args[1].get());
  if (isTensorElement && !dst)
    return false;
  if (!isTensorElement || dst->type.kind != TypeKind::Tensor) {
    diags.error(target->range, e->callee +
                                   " needs an element of a global "
                                   "tensor, e.g. Counts[e]" +
                                   (e->callee == "atomic_add"
                                        ? ", or a tensor window and a tile"
                                        : ""));
    return false;
  }
  if (dst->sliced) {
    diags.error(target->range, e->callee + " needs an element of a tensor, "
                                           "not a slice or gather of it");
    return false;
  }
  target->type = Type::scalar(dst->type.dtype);
  if (!checkWritable(*dst, target->range) || v.isInvalid())
    return false;
  if (!checkAtomicDType(dst->type.dtype, target->range, e->callee))
    return false;
  return checkConvertible(v, dst->type.dtype, e->args[1]->range, e->callee);
}

bool Sema::Impl::checkAtomicAdd(CallExpr *e) {
  if (!checkNoKwargs(e) || !checkArity(e, 2, 2))
    return false;
  auto dst = checkOperand(e->args[0].get(), true, "atomic_add destination");
  auto src = checkOperand(e->args[1].get(), false, "atomic_add source");
  if (!dst || !src)
    return false;
  if (!checkNotPacked(*dst, e->args[0].get(), "atomic_add destination") ||
      !checkNotPacked(*src, e->args[1].get(), "atomic_add source"))
    return false;
  if (dst->type.kind != TypeKind::Tensor || !dst->window) {
    diags.error(e->args[0]->range, "atomic_add destination must be a window "
                                   "of a global tensor, e.g. Out[i, j]");
    return false;
  }
  if (dst->gathers) {
    diags.error(e->args[0]->range, "atomic_add cannot scatter through an "
                                   "index tile (copy can)");
    return false;
  }
  if (src->type.kind != TypeKind::Tile) {
    diags.error(e->args[1]->range, "atomic_add source must be a tile");
    return false;
  }
  if (!checkWritable(*dst, e->args[0]->range))
    return false;
  if (!checkAtomicDType(dst->type.dtype, e->args[0]->range, "atomic_add"))
    return false;
  return checkWindowFits(*dst, src->type, e->args[0].get(), "atomic_add");
}

Type Sema::Impl::checkFnCall(CallExpr *e, bool asStatement) {
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
        diags.error(actual->range, "argument '" + formal.name + "' must be a " +
                                       scopeName(*formal.scope).str() +
                                       " tile, got " + op->type.str());
        ok = false;
        continue;
      }
      if (formal.type.dims.size() != op->type.rank()) {
        diags.error(actual->range, "argument '" + formal.name +
                                       "' must have rank " +
                                       std::to_string(formal.type.dims.size()) +
                                       ", got " + op->type.str());
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
          ok &= bind(static_cast<NameExpr *>(dim)->name,
                     ConstValue::ofInt(op->type.shape[d].size), actual->range);
      }
    } else {
      Type t = checkExpr(actual);
      if (t.isInvalid()) {
        ok = false;
        continue;
      }
      if (paramNames.count(formal.type.elemName) && t.kind == TypeKind::Scalar)
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
                                       "' must be " + formal.str() + ", got " +
                                       actual->type.str());
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

FnInstance *
Sema::Impl::instantiate(FnDecl *fn, std::map<std::string, ConstValue> bindings,
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

void Sema::Impl::checkFnBody(FnInstance &inst) {
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
