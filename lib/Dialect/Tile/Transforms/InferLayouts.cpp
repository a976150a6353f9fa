//===- InferLayouts.cpp - Thread layouts for fragments --------------------===//
//
// Propagates layouts between the ops that use fragments until nothing
// changes, gives the largest unconstrained fragment a row-major layout and
// propagates again. A fragment whose uses disagree, or that some thread
// reads without holding it, moves to shared memory and inference restarts
// without it. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc::tile;

namespace {

bool isLocalTile(Value v) {
  auto type = llvm::dyn_cast<MemRefType>(v.getType());
  return type && getScope(type) == MemScope::local;
}

/// "f32", for messages (a Type streamed into a diagnostic is quoted); the
/// 8-bit floats by their names in the language.
std::string typeName(Type type) {
  if (llvm::isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (llvm::isa<Float8E5M2Type>(type))
    return "f8e5m2";
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

class LayoutInference {
public:
  LayoutInference(func::FuncOp kernel, int64_t threads,
                  llvm::ArrayRef<const MmaKind *> mmas, int64_t maxRegisters)
      : kernel(kernel), threads(threads), mmas(mmas),
        maxRegisters(maxRegisters) {}

  void run() {
    while (true) {
      layouts.clear();
      demotions.clear();
      collectFragments();
      findRowWarpGemms();
      demoteUnservedUses();
      while (demotions.empty()) {
        while (sweep() && demotions.empty()) {
        }
        if (!demotions.empty() || !assignDefault())
          break;
      }
      if (demotions.empty())
        demoteOversized();
      if (demotions.empty())
        break;
      for (auto &[value, why] : demotions) {
        auto alloc = value.getDefiningOp<AllocOp>();
        auto type = llvm::cast<MemRefType>(value.getType());
        value.setType(getTileType(type.getShape(), type.getElementType(),
                                  MemScope::shared));
        alloc->setAttr(attr::kDemoted,
                       StringAttr::get(alloc.getContext(), why));
        // Registers were asked for; say why they are not used (tlc
        // --remarks), naming the kernel since variants repeat the source.
        alloc->emitRemark() << "fragment moved to shared memory in kernel '"
                            << kernel.getSymName() << "': " << why;
      }
    }
    for (Value f : fragments)
      f.getDefiningOp()->setAttr(attr::kLayout,
                                 layouts.at(f).toAttr(kernel.getContext()));
    // A target with matrix instructions that a gemm does not use (tlc
    // --remarks).
    if (!mmas.empty())
      kernel.walk([&](GemmOp gemm) {
        if (accumulatorKind(gemm, mmas) || rejectedHints.contains(gemm))
          return;
        auto c = gemm.getC().getType();
        InFlightDiagnostic remark = gemm.emitRemark();
        remark << "gemm runs on FMA loops, not the target's matrix "
                  "instructions, in kernel '"
               << kernel.getSymName() << "': ";
        if (!isFragment(gemm.getC()))
          remark << "its accumulator is not in registers (a shared tile)";
        else
          remark << "none computes a " << c.getShape()[0] << "x"
                 << c.getShape()[1] << " " << typeName(c.getElementType())
                 << " accumulator from "
                 << typeName(gemm.getA().getType().getElementType()) << " and "
                 << typeName(gemm.getB().getType().getElementType())
                 << " operands on " << threads << " threads";
      });
  }

private:
  func::FuncOp kernel;
  int64_t threads;
  /// In order of preference; none: gemms run on FMAs.
  llvm::ArrayRef<const MmaKind *> mmas;
  int64_t maxRegisters;
  SmallVector<Value> fragments;
  llvm::DenseMap<Value, FragmentLayout> layouts;
  llvm::MapVector<Value, std::string> demotions;
  bool changed = false;

public:
  /// Gemms whose warps_m hint no matrix instruction can honor (reported).
  llvm::DenseSet<Operation *> rejectedHints;
  /// Gemms whose hint was weighed against the preferred instruction.
  llvm::DenseSet<Operation *> remarkedHints;

private:
  /// "128x64 accumulator", for messages.
  static std::string accumulatorText(GemmOp gemm) {
    auto c = gemm.getC().getType().getShape();
    return std::to_string(c[0]) + "x" + std::to_string(c[1]) + " accumulator";
  }

  /// Gemms whose accumulator becomes (through fragment copies) the register
  /// A operand of another gemm: their warps all lie along M, like the A
  /// operand's.
  llvm::DenseSet<Operation *> rowWarpGemms;

  void findRowWarpGemms() {
    rowWarpGemms.clear();
    kernel.walk([&](GemmOp gemm) {
      Value x = gemm.getA();
      for (int hops = 0; hops < 8 && isFragment(x); ++hops) {
        Value from;
        for (Operation *user : x.getUsers()) {
          if (auto g = llvm::dyn_cast<GemmOp>(user); g && g.getC() == x)
            rowWarpGemms.insert(g);
          if (auto c = llvm::dyn_cast<CopyOp>(user);
              c && c.getDest() == x && c.getSourceIndices().empty())
            from = c.getSource();
        }
        if (!from)
          break;
        x = from;
      }
    });
  }

  void collectFragments() {
    fragments.clear();
    kernel.walk([&](AllocOp alloc) {
      alloc->removeAttr(attr::kLayout);
      if (isFragment(alloc.getResult()))
        fragments.push_back(alloc.getResult());
    });
  }

  void demote(Value v, const std::string &why) {
    if (isFragment(v))
      demotions.insert({v, why});
  }

  void require(Value v, const FragmentLayout &layout, const char *why) {
    if (!isFragment(v))
      return;
    auto it = layouts.find(v);
    if (it == layouts.end()) {
      layouts.insert({v, layout});
      changed = true;
    } else if (it->second != layout) {
      demote(v, why);
    }
  }

  const FragmentLayout *layoutOf(Value v) {
    auto it = layouts.find(v);
    return it == layouts.end() ? nullptr : &it->second;
  }

  /// Uses that no register layout can serve: element accesses outside
  /// `parallel`, and anything that is not a tile op or an element access.
  void demoteUnservedUses() {
    for (Value f : fragments)
      for (Operation *user : f.getUsers()) {
        if (llvm::isa<memref::LoadOp, memref::StoreOp>(user)) {
          if (!user->getParentOfType<ParallelOp>())
            demote(f, "its elements are accessed outside parallel, by every "
                      "thread");
        } else if (!llvm::isa<CopyOp, FillOp, GemmOp, ReduceOp, AtomicAddOp,
                              ClusterReduceOp>(user)) {
          demote(f, "it is used by an op that needs it in memory");
        }
      }
  }

  /// One pass over the tile ops; returns whether a layout was set.
  bool sweep() {
    changed = false;
    kernel.walk([&](Operation *op) {
      if (auto gemm = llvm::dyn_cast<GemmOp>(op)) {
        auto shape = gemm.getC().getType().getShape();
        std::optional<MmaPlan> plan;
        std::optional<int64_t> warpsM;
        if (auto hint = gemm.getWarpsM())
          warpsM = int64_t(*hint);
        const MmaKind *chosen = nullptr;
        if (isFragment(gemm.getC())) // MMA accumulates in registers
          for (const MmaKind *mma : mmas)
            if ((plan = planMma(gemm, threads, *mma, /*operandsInShared=*/false,
                                rowWarpGemms.contains(gemm), warpsM))) {
              chosen = mma;
              break;
            }
        // A hint that a less preferred instruction honors (tlc --remarks).
        if (chosen && warpsM && remarkedHints.insert(gemm).second)
          for (const MmaKind *mma : mmas) {
            if (mma == chosen)
              break;
            if (planMma(gemm, threads, *mma, false,
                        rowWarpGemms.contains(gemm)))
              gemm.emitRemark()
                  << "gemm uses " << chosen->name() << " rather than "
                  << mma->name() << " in kernel '" << kernel.getSymName()
                  << "': " << mma->name() << " cannot put warps_m = " << *warpsM
                  << " of its " << threads / mma->warpSize() << " groups of "
                  << mma->warpSize() << " threads along M";
          }
        if (!plan && warpsM && isFragment(gemm.getC()) &&
            !rejectedHints.contains(gemm))
          for (const MmaKind *mma : mmas)
            if (auto free = planMma(gemm, threads, *mma, false,
                                    rowWarpGemms.contains(gemm))) {
              // The author asked for a warp grid the instructions cannot
              // tile: say so rather than fall back to FMA loops.
              rejectedHints.insert(gemm);
              gemm.emitError()
                  << "gemm: warps_m = " << *warpsM << " does not fit its "
                  << accumulatorText(gemm) << " on "
                  << threads / mma->warpSize() << " "
                  << (mma->warpSize() > 32 ? "warpgroups" : "warps") << " of "
                  << mma->warpSize() << " threads; the compiler "
                  << "would put " << free->warpsM << " along M";
              break;
            }
        require(
            gemm.getC(),
            plan ? plan->accumulator
                 : FragmentLayout::simtAccumulator(shape[0], shape[1], threads),
            "the gemm accumulator layout differs from its other uses");
        if (plan && plan->registerA)
          require(gemm.getA(), *plan->registerA,
                  "a gemm reads it as registers in another layout");
        else
          demote(gemm.getA(), "gemm operands of the FMA path are read by "
                              "every thread");
        demote(gemm.getB(), "gemm B operands are read by every warp");
      } else if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
        if (isLocalTile(reduce.getDest()))
          demote(reduce.getSource(),
                 "every thread needs its reduction in a local tile");
        if (const FragmentLayout *src = layoutOf(reduce.getSource())) {
          SmallVector<int64_t> kept;
          for (int64_t d = 0; d < src->rank; ++d)
            if (d != static_cast<int64_t>(reduce.getDim()))
              kept.push_back(d);
          require(reduce.getDest(), src->project(kept),
                  "the reduction result layout differs from its other uses");
        }
      } else if (auto copy = llvm::dyn_cast<CopyOp>(op)) {
        Value src = copy.getSource(), dst = copy.getDest();
        if (isLocalTile(dst))
          demote(src, "every thread needs all of it in a local tile");
        if (!copy.getSourceIndices().empty())
          demote(src, "a window of it is copied");
        if (!copy.getDestIndices().empty())
          demote(dst, "a window of it is copied");
        for (Value index : copy.getGathers())
          demote(index, "every thread of a gather reads the index tile");
        if (isFragment(src) && isFragment(dst) &&
            copy.getSourceIndices().empty() && copy.getDestIndices().empty()) {
          if (const FragmentLayout *l = layoutOf(src))
            require(dst, *l, "copied between fragments of different layouts");
          else if (const FragmentLayout *l = layoutOf(dst))
            require(src, *l, "copied between fragments of different layouts");
        }
      } else if (auto parallel = llvm::dyn_cast<ParallelOp>(op)) {
        visitParallel(parallel);
      }
    });
    return changed;
  }

  void visitParallel(ParallelOp op) {
    ParallelPlan plan = planParallel(op);
    Block &body = op.getBody().front();
    // A copy: require() below inserts into `layouts`, which may move the
    // map's values.
    std::optional<FragmentLayout> anchor;
    if (plan.anchor)
      if (const FragmentLayout *known = layoutOf(plan.anchor))
        anchor = *known;
    op.walk([&](Operation *inner) {
      std::optional<ElementAccess> access = getElementAccess(inner);
      if (!access)
        return;
      Value m = access->memref;
      ValueRange indices = access->indices;
      bool isStore = access->isStore;
      if (!isFragment(m))
        return;
      if (plan.kind != ParallelPlan::Owned)
        return demote(m, plan.kind == ParallelPlan::Redundant
                             ? "a parallel loop that writes a local tile "
                               "reads it in every thread"
                             : "a parallel loop that writes no fragment at "
                               "its loop indices reads it");
      auto dims = loopIndexDims(indices, body);
      if (!dims)
        return demote(m, "it is accessed at indices other than the parallel "
                         "loop indices");
      bool all = dims->size() == body.getNumArguments();
      if (isStore && !all)
        return demote(m, "it is written at a subset of the loop indices");
      auto shape = llvm::cast<MemRefType>(m.getType()).getShape();
      for (auto [pos, d] : llvm::enumerate(*dims))
        if (shape[pos] != op.getShape()[d])
          return demote(m, "its shape differs from the parallel loop's");
      if (!anchor)
        return; // decided once the anchor has a layout
      require(m, all ? *anchor : anchor->project(*dims),
              "parallel loops need it in another layout");
    });
  }

  /// A thread has `maxRegisters` registers: a fragment that would need more
  /// (large tiles, or replication when the threads do not divide the tile)
  /// lives in shared memory instead.
  void demoteOversized() {
    for (Value f : fragments) {
      auto type = llvm::cast<MemRefType>(f.getType());
      int64_t words = (type.getElementTypeBitWidth() + 31) / 32;
      int64_t registers = layouts.at(f).numSlots() * words;
      if (registers > maxRegisters)
        demote(f, "it would need " + std::to_string(registers) +
                      " registers per thread (at most " +
                      std::to_string(maxRegisters) + ")");
    }
  }

  /// Gives the largest fragment without a layout a row-major one; false if
  /// every fragment has a layout.
  bool assignDefault() {
    Value best;
    int64_t bestSize = -1;
    for (Value f : fragments) {
      if (layouts.count(f))
        continue;
      int64_t size = llvm::cast<MemRefType>(f.getType()).getNumElements();
      if (size > bestSize) {
        best = f;
        bestSize = size;
      }
    }
    if (!best)
      return false;
    layouts.insert({best, FragmentLayout::rowMajor(
                              llvm::cast<MemRefType>(best.getType()).getShape(),
                              threads, /*vector=*/8)});
    return true;
  }
};

struct TileInferLayouts
    : public tlc::tile::impl::TileInferLayoutsBase<TileInferLayouts> {
  using Base::Base;
  void runOnOperation() override {
    // The target's matrix instructions, if it has any (#tile.target).
    llvm::SmallVector<const MmaKind *> mmas;
    // Without a target description: NVIDIA's register file.
    int64_t maxRegisters = 255;
    TargetAttr target = getTarget(getOperation());
    if (target)
      maxRegisters = target.getMaxRegisters();
    if (target && !target.getMma().empty()) {
      std::string unknown;
      auto kinds = lookupMmaKinds(target.getMma(), &unknown);
      if (!kinds) {
        getOperation().emitError()
            << "unknown MMA kind '" << unknown << "' in the target description";
        return signalPassFailure();
      }
      mmas = std::move(*kinds);
    }
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(attr::kKernel))
        return;
      int64_t threads = 128;
      if (auto a = func->getAttrOfType<IntegerAttr>(attr::kThreads))
        threads = a.getInt();
      LayoutInference inference(func, threads, mmas, maxRegisters);
      inference.run();
      if (!inference.rejectedHints.empty())
        signalPassFailure();
    });
  }
};

} // namespace
