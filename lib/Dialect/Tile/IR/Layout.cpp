//===- Layout.cpp - Thread layouts of fragments ---------------------------===//
#include "tlc/Dialect/Tile/IR/Layout.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <numeric>

#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace mlir;
using namespace tlc::tile;

FragmentLayout FragmentLayout::fromAttr(LayoutAttr attr, int64_t rank) {
  FragmentLayout l;
  l.threads = attr.getThreads();
  for (size_t f = 0; f < attr.getDims().size(); ++f) {
    l.factors.push_back({attr.getDims()[f], attr.getExtents()[f],
                         attr.getThreadStrides()[f], attr.getSlotStrides()[f]});
    l.rank = std::max(l.rank, attr.getDims()[f] + 1);
  }
  if (rank >= 0)
    l.rank = rank;
  return l;
}

LayoutAttr FragmentLayout::toAttr(MLIRContext *ctx) const {
  SmallVector<int64_t> dims, extents, ts, ss;
  for (const LayoutFactor &f : factors) {
    dims.push_back(f.dim);
    extents.push_back(f.extent);
    ts.push_back(f.threadStride);
    ss.push_back(f.slotStride);
  }
  return LayoutAttr::get(ctx, threads, dims, extents, ts, ss);
}

int64_t FragmentLayout::numSlots() const {
  int64_t n = 1;
  for (const LayoutFactor &f : factors)
    if (!f.isThread())
      n *= f.extent;
  return n;
}

bool FragmentLayout::fits(ArrayRef<int64_t> shape) const {
  if (rank != static_cast<int64_t>(shape.size()))
    return false;
  SmallVector<int64_t> product(shape.size(), 1);
  int64_t threadProduct = 1;
  for (const LayoutFactor &f : factors) {
    if (f.dim >= 0)
      product[f.dim] *= f.extent;
    if (f.isThread())
      threadProduct *= f.extent;
  }
  return ArrayRef<int64_t>(product) == shape && threadProduct == threads;
}

int64_t FragmentLayout::elementStride(unsigned f) const {
  int64_t stride = 1;
  for (unsigned g = f + 1; g < factors.size(); ++g)
    if (factors[g].dim == factors[f].dim)
      stride *= factors[g].extent;
  return stride;
}

int64_t FragmentLayout::slotDigit(unsigned f, int64_t slot) const {
  return (slot / factors[f].slotStride) % factors[f].extent;
}

Value FragmentLayout::threadDigit(OpBuilder &b, Location loc, Value tid,
                                  unsigned f) const {
  Value digit = tid;
  if (factors[f].threadStride != 1)
    digit = arith::DivUIOp::create(
        b, loc, digit,
        arith::ConstantIndexOp::create(b, loc, factors[f].threadStride));
  // The most significant thread factor needs no modulo.
  if (factors[f].threadStride * factors[f].extent < threads)
    digit = arith::RemUIOp::create(
        b, loc, digit,
        arith::ConstantIndexOp::create(b, loc, factors[f].extent));
  return digit;
}

SmallVector<Value> FragmentLayout::elementIndex(OpBuilder &b, Location loc,
                                                Value tid, int64_t slot) const {
  SmallVector<int64_t> constant(rank, 0);
  SmallVector<Value> index(rank);
  for (unsigned f = 0; f < factors.size(); ++f) {
    const LayoutFactor &fac = factors[f];
    if (fac.dim < 0)
      continue;
    if (!fac.isThread()) {
      constant[fac.dim] += slotDigit(f, slot) * elementStride(f);
      continue;
    }
    Value term = threadDigit(b, loc, tid, f);
    if (int64_t s = elementStride(f); s != 1)
      term = arith::MulIOp::create(b, loc, term,
                                   arith::ConstantIndexOp::create(b, loc, s));
    index[fac.dim] = index[fac.dim]
                         ? arith::AddIOp::create(b, loc, index[fac.dim], term)
                         : term;
  }
  for (int64_t d = 0; d < rank; ++d) {
    Value c = arith::ConstantIndexOp::create(b, loc, constant[d]);
    if (!index[d])
      index[d] = c;
    else if (constant[d] != 0)
      index[d] = arith::AddIOp::create(b, loc, index[d], c);
  }
  return index;
}

Value FragmentLayout::isFirstReplica(OpBuilder &b, Location loc,
                                     Value tid) const {
  Value all;
  for (unsigned f = 0; f < factors.size(); ++f) {
    if (factors[f].dim >= 0)
      continue;
    Value digit = threadDigit(b, loc, tid, f);
    Value first = arith::ConstantIndexOp::create(b, loc, 0);
    Value zero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, digit, first);
    all = all ? arith::AndIOp::create(b, loc, all, zero) : zero;
  }
  return all;
}

FragmentLayout FragmentLayout::project(ArrayRef<int64_t> kept) const {
  FragmentLayout p;
  p.threads = threads;
  p.rank = kept.size();
  SmallVector<LayoutFactor> replications;
  for (const LayoutFactor &f : factors) {
    auto it = llvm::find(kept, f.dim);
    if (f.dim >= 0 && it != kept.end()) {
      LayoutFactor g = f;
      g.dim = it - kept.begin();
      p.factors.push_back(g);
    } else if (f.isThread()) {
      replications.push_back({-1, f.extent, f.threadStride, 0});
    }
  }
  // Dimensions in their new order, replications by thread stride.
  llvm::stable_sort(p.factors,
                    [](const LayoutFactor &a, const LayoutFactor &b) {
                      return a.dim < b.dim;
                    });
  llvm::sort(replications, [](const LayoutFactor &a, const LayoutFactor &b) {
    return a.threadStride < b.threadStride;
  });
  // Adjacent replications merge (fewer factors, same meaning).
  for (const LayoutFactor &r : replications) {
    if (!p.factors.empty() && p.factors.back().dim < 0 &&
        p.factors.back().threadStride * p.factors.back().extent ==
            r.threadStride)
      p.factors.back().extent *= r.extent;
    else
      p.factors.push_back(r);
  }
  p.canonicalize();
  return p;
}

int64_t FragmentLayout::projectedSlot(ArrayRef<int64_t> kept,
                                      int64_t slot) const {
  FragmentLayout p = project(kept);
  // The slot factors of p are this layout's slot factors of kept dims, in
  // the same relative order per dimension.
  int64_t result = 0;
  for (unsigned f = 0; f < factors.size(); ++f) {
    const LayoutFactor &fac = factors[f];
    if (fac.isThread() || fac.dim < 0)
      continue;
    auto it = llvm::find(kept, fac.dim);
    if (it == kept.end())
      continue;
    int64_t newDim = it - kept.begin();
    // The matching factor of p: same dim, same position among that dim's
    // slot factors.
    unsigned position = 0;
    for (unsigned g = 0; g < f; ++g)
      if (factors[g].dim == fac.dim && !factors[g].isThread())
        ++position;
    for (const LayoutFactor &pf : p.factors) {
      if (pf.dim != newDim || pf.isThread())
        continue;
      if (position-- == 0) {
        result += slotDigit(f, slot) * pf.slotStride;
        break;
      }
    }
  }
  return result;
}

void FragmentLayout::canonicalize() {
  int64_t stride = 1;
  for (LayoutFactor &f : llvm::reverse(factors))
    if (!f.isThread()) {
      f.slotStride = stride;
      stride *= f.extent;
    }
}

FragmentLayout FragmentLayout::rowMajor(ArrayRef<int64_t> shape,
                                        int64_t threads, int64_t vector) {
  FragmentLayout l;
  l.threads = threads;
  l.rank = shape.size();
  int64_t left = threads, threadStride = 1;
  SmallVector<SmallVector<LayoutFactor>> perDim(shape.size());
  for (int64_t d = l.rank - 1; d >= 0; --d) {
    int64_t extent = shape[d];
    int64_t inner = d == l.rank - 1 ? std::gcd(extent, vector) : 1;
    int64_t rest = extent / inner;
    int64_t t = std::gcd(rest, left);
    auto &fs = perDim[d];
    if (rest / t > 1)
      fs.push_back({d, rest / t, 0, 1});
    if (t > 1)
      fs.push_back({d, t, threadStride, 0});
    if (inner > 1)
      fs.push_back({d, inner, 0, 1});
    threadStride *= t;
    left /= t;
  }
  for (auto &fs : perDim)
    l.factors.append(fs.begin(), fs.end());
  if (left > 1)
    l.factors.push_back({-1, left, threadStride, 0});
  l.canonicalize();
  return l;
}

FragmentLayout FragmentLayout::simtAccumulator(int64_t m, int64_t n,
                                               int64_t threads) {
  FragmentLayout l;
  l.threads = threads;
  l.rank = 2;
  int64_t tn = std::gcd(n, std::gcd(threads, int64_t(16)));
  int64_t tm = std::gcd(m, threads / tn);
  if (m / tm > 1)
    l.factors.push_back({0, m / tm, 0, 1});
  if (tm > 1)
    l.factors.push_back({0, tm, tn, 0});
  if (n / tn > 1)
    l.factors.push_back({1, n / tn, 0, 1});
  if (tn > 1)
    l.factors.push_back({1, tn, 1, 0});
  if (int64_t rep = threads / (tn * tm); rep > 1)
    l.factors.push_back({-1, rep, tn * tm, 0});
  l.canonicalize();
  return l;
}

std::optional<SmallVector<int64_t>> tlc::tile::loopIndexDims(ValueRange indices,
                                                             Block &body) {
  SmallVector<int64_t> dims;
  for (Value index : indices) {
    auto arg = llvm::dyn_cast<BlockArgument>(index);
    if (!arg || arg.getOwner() != &body)
      return std::nullopt;
    if (!dims.empty() && arg.getArgNumber() <= dims.back())
      return std::nullopt;
    dims.push_back(arg.getArgNumber());
  }
  return dims;
}

std::optional<ElementAccess> tlc::tile::getElementAccess(Operation *op) {
  if (auto load = llvm::dyn_cast<memref::LoadOp>(op))
    return ElementAccess{load.getMemRef(), load.getIndices(), false};
  if (auto store = llvm::dyn_cast<memref::StoreOp>(op))
    return ElementAccess{store.getMemRef(), store.getIndices(), true};
  return std::nullopt;
}

bool tlc::tile::isFragment(Value v) {
  auto type = llvm::dyn_cast<MemRefType>(v.getType());
  return type && v.getDefiningOp<AllocOp>() &&
         getScope(type) == MemScope::fragment;
}

std::optional<FragmentLayout> tlc::tile::getLayout(Value fragment) {
  auto alloc = fragment.getDefiningOp<AllocOp>();
  if (!alloc)
    return std::nullopt;
  if (auto attr = alloc->getAttrOfType<LayoutAttr>(attr::kLayout))
    return FragmentLayout::fromAttr(
        attr, llvm::cast<MemRefType>(fragment.getType()).getRank());
  return std::nullopt;
}

ParallelPlan tlc::tile::planParallel(ParallelOp op) {
  Block &body = op.getBody().front();
  ParallelPlan plan;
  Value loadAnchor;
  bool writesLocal = false;
  auto isIdentity = [&](Value memref, ValueRange indices) {
    auto dims = loopIndexDims(indices, body);
    return dims && dims->size() == body.getNumArguments() &&
           llvm::cast<MemRefType>(memref.getType()).getShape() == op.getShape();
  };
  op.walk([&](Operation *inner) {
    std::optional<ElementAccess> access = getElementAccess(inner);
    if (!access)
      return;
    Value m = access->memref;
    if (access->isStore &&
        getScope(llvm::cast<MemRefType>(m.getType())) == MemScope::local)
      writesLocal = true;
    Value &anchor = access->isStore ? plan.anchor : loadAnchor;
    if (!anchor && isFragment(m) && isIdentity(m, access->indices))
      anchor = m;
  });
  if (writesLocal) {
    plan.kind = ParallelPlan::Redundant;
    plan.anchor = nullptr;
    return plan;
  }
  if (!plan.anchor)
    plan.anchor = loadAnchor;
  plan.kind = plan.anchor ? ParallelPlan::Owned : ParallelPlan::Strided;
  return plan;
}

llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t>
FragmentLayout::slotsByOffset() const {
  llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t> result;
  for (int64_t s = 0, e = numSlots(); s < e; ++s) {
    int64_t offset[2] = {0, 0};
    for (unsigned f = 0; f < factors.size(); ++f)
      if (!factors[f].isThread() && factors[f].dim >= 0 && factors[f].dim < 2)
        offset[factors[f].dim] += slotDigit(f, s) * elementStride(f);
    result[{offset[0], offset[1]}] = s;
  }
  return result;
}

namespace {
llvm::StringMap<std::unique_ptr<MmaKind>> &mmaKinds() {
  static llvm::StringMap<std::unique_ptr<MmaKind>> kinds;
  return kinds;
}
std::mutex mmaKindsMutex;
} // namespace

void tlc::tile::registerMmaKind(std::unique_ptr<MmaKind> kind) {
  std::lock_guard<std::mutex> lock(mmaKindsMutex);
  std::string name = kind->name().str();
  mmaKinds().try_emplace(name, std::move(kind));
}

const MmaKind *tlc::tile::lookupMmaKind(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(mmaKindsMutex);
  auto it = mmaKinds().find(name);
  return it == mmaKinds().end() ? nullptr : it->second.get();
}

bool MmaKind::operandsSuit(GemmOp) const { return true; }
bool MmaKind::warpTileSuits(GemmOp, int64_t, int64_t) const { return true; }
int64_t MmaKind::operandSwizzle(GemmOp, Value) const { return 0; }

std::optional<llvm::SmallVector<const MmaKind *>>
tlc::tile::lookupMmaKinds(llvm::StringRef list, std::string *unknown) {
  llvm::SmallVector<const MmaKind *> kinds;
  llvm::SmallVector<llvm::StringRef> names;
  list.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : names) {
    const MmaKind *kind = lookupMmaKind(name.trim());
    if (!kind) {
      if (unknown)
        *unknown = name.trim().str();
      return std::nullopt;
    }
    kinds.push_back(kind);
  }
  return kinds;
}

std::optional<MmaPlan> tlc::tile::planMma(GemmOp op, int64_t threads,
                                          const MmaKind &kind,
                                          bool operandsInShared, bool rowWarps,
                                          std::optional<int64_t> warpsM) {
  auto a = llvm::cast<MemRefType>(op.getA().getType()),
       b = llvm::cast<MemRefType>(op.getB().getType()),
       c = llvm::cast<MemRefType>(op.getC().getType());
  Type elem = a.getElementType();
  if (elem != b.getElementType() || !elem.isIntOrFloat() ||
      !kind.supports(elem, c.getElementType()))
    return std::nullopt;
  int64_t elemBytes = (elem.getIntOrFloatBitWidth() + 7) / 8;
  // A may also be registers: a fragment in the layout the kind reads A
  // from (with all warps along M; the FlashAttention P operand).
  bool registerA = isFragment(op.getA());
  if ((registerA && op.getTransposeA()) ||
      ((registerA || rowWarps) && !kind.hasRegisterA()) ||
      !kind.operandsSuit(op))
    return std::nullopt;
  for (MemRefType operand : {a, b}) {
    if (registerA && operand == a)
      continue;
    if ((!operandsInShared && getScope(operand) != MemScope::shared) ||
        (operand.getShape()[1] * elemBytes) % kind.operandRowBytes() != 0)
      return std::nullopt;
  }
  int64_t m = c.getShape()[0], n = c.getShape()[1];
  int64_t k = op.getTransposeA() ? a.getShape()[0] : a.getShape()[1];
  int64_t tm = kind.tileM(), tn = kind.tileN(), warp = kind.warpSize();
  if (m % tm || n % tn || k % kind.tileK() || threads % warp)
    return std::nullopt;
  // The warp grid with the cheapest warp tiles (operand reuse); ties go to
  // more warps along M.
  int64_t warps = threads / warp;
  std::optional<MmaPlan> best;
  int64_t bestCost = 0;
  for (int64_t wm = warps; wm >= 1; --wm) {
    if (warps % wm)
      continue;
    int64_t wn = warps / wm;
    if ((m / tm) % wm || (n / tn) % wn ||
        ((rowWarps || registerA) && wn != 1) || (warpsM && wm != *warpsM) ||
        !kind.warpTileSuits(op, m / wm, n / wn))
      continue;
    std::optional<FragmentLayout> aLayout;
    if (registerA) {
      aLayout = kind.registerA(m, k, threads, wm);
      if (!aLayout)
        continue;
    }
    int64_t cost = kind.warpTileCost(m / wm, n / wn);
    if (!best || cost < bestCost) {
      best = MmaPlan{wm, wn, kind.accumulator(m, n, threads, wm, wn), aLayout};
      bestCost = cost;
    }
  }
  return best;
}

const MmaKind *
tlc::tile::accumulatorKind(GemmOp op, llvm::ArrayRef<const MmaKind *> kinds) {
  std::optional<FragmentLayout> layout = getLayout(op.getC());
  if (!layout)
    return nullptr;
  auto shape = op.getC().getType().getShape();
  for (const MmaKind *kind : kinds)
    if (matchMmaAccumulator(*kind, *layout, shape[0], shape[1]))
      return kind;
  return nullptr;
}

std::optional<std::pair<int64_t, int64_t>> tlc::tile::matchMmaAccumulator(
    const MmaKind &kind, const FragmentLayout &layout, int64_t m, int64_t n) {
  int64_t warp = kind.warpSize(), tm = kind.tileM(), tn = kind.tileN();
  int64_t warps = layout.threads / warp;
  if (layout.threads % warp || m % tm || n % tn)
    return std::nullopt;
  for (int64_t wm = 1; wm <= warps; ++wm)
    if (warps % wm == 0 && (m / tm) % wm == 0 && (n / tn) % (warps / wm) == 0 &&
        kind.accumulator(m, n, layout.threads, wm, warps / wm) == layout)
      return std::make_pair(wm, warps / wm);
  return std::nullopt;
}
