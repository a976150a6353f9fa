//===- Pipeline.cpp - Multi-stage async-copy pipelines for `pipelined` loops
//===//
//
// `for k in pipelined(n, stages = S)` loads the shared tiles of iteration
// k + S - 1 while iteration k computes. The copies from global memory into
// shared tiles at the top level of the loop body ("producers") are taken out
// of the body; each of their shared tiles gets S buffers; the copies of the
// first S - 1 iterations are issued before the loop, and iteration k waits
// for its own group (at most S-2 groups pending), synchronizes the block (which
// also frees the buffer iteration k - 1 read), issues iteration k + S - 1's
// group and computes on buffer k % S (gemms on asynchronous MMAs: computes,
// then synchronizes again and issues). Copies become asynchronous during
// lowering (tile.async on the tile.copy clones), with the target's
// asynchronous copies (GPUTargetInfo::asyncCopy, asyncCommit, asyncWait).
// Producers marked tile.tensor_copy are issued here, by one thread, on the
// target's tensor-copy unit: each stage has a copy barrier that completes
// when the stage's bytes have landed, and iteration k waits for phase
// k / S of its stage's barrier.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

/// A reshaped view of a tensor argument (`view(X, ...)`).
static memref::ReinterpretCastOp asTensorView(Value memref) {
  auto view = memref.getDefiningOp<memref::ReinterpretCastOp>();
  return view && view->hasAttr(tile::attr::kView) ? view : nullptr;
}

/// Whether every use of `memref` (and of the views of it) only reads.
static bool onlyRead(Value memref) {
  return llvm::all_of(memref.getUsers(), [&](Operation *user) {
    if (auto copy = llvm::dyn_cast<tile::CopyOp>(user))
      return copy.getDest() != memref;
    if (auto view = llvm::dyn_cast<memref::ReinterpretCastOp>(user))
      return view->hasAttr(tile::attr::kView) && onlyRead(view);
    return llvm::isa<memref::LoadOp, memref::DimOp,
                     memref::ExtractStridedMetadataOp,
                     memref::ExtractAlignedPointerAsIndexOp>(user);
  });
}

/// A global tensor the kernel never writes (no store, atomic, copy or
/// subview of it, nor through a view of the same argument): reading it
/// early gives what a read in place would.
static bool isReadOnlyTensor(Value memref) {
  auto type = llvm::dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getMemorySpace() ||
      memref.getDefiningOp<memref::AllocaOp>())
    return false;
  while (auto view = asTensorView(memref))
    memref = view.getSource();
  return onlyRead(memref);
}

/// An op an origin may be computed with ahead of its iteration: a pure op,
/// a read of a read-only tensor, or an scf.if of such ops (a bounds-checked
/// element read: a block list, a page table).
static bool computableAhead(Operation *op) {
  if (auto load = llvm::dyn_cast<memref::LoadOp>(op))
    return isReadOnlyTensor(load.getMemRef());
  if (llvm::isa<scf::IfOp>(op)) {
    WalkResult inner = op->walk([&](Operation *nested) {
      if (nested == op || llvm::isa<scf::YieldOp>(nested))
        return WalkResult::advance();
      return computableAhead(nested) ? WalkResult::advance()
                                     : WalkResult::interrupt();
    });
    return !inner.wasInterrupted();
  }
  return isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

/// The ops of `loop`'s body that compute `values` from the induction
/// variable, in order; false if one of them cannot be computed ahead of its
/// iteration (computableAhead) or is not at the top level of the body.
static bool collectSlice(scf::ForOp loop, ValueRange values,
                         llvm::SetVector<Operation *> &slice) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isProperAncestor(def))
      continue; // the induction variable or defined outside the loop
    if (slice.contains(def))
      continue;
    if (def->getBlock() != loop.getBody() || !computableAhead(def))
      return false;
    if (!collectSlice(loop, def->getOperands(), slice))
      return false;
    // What the op's regions use from the body is part of the slice too.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(def->getRegions(), captured);
    if (!collectSlice(loop, captured.getArrayRef(), slice))
      return false;
    slice.insert(def);
  }
  return true;
}

/// What a producer's window is computed from: its source (a view defined
/// in the loop, for a window with slices) and its origin.
static SmallVector<Value> windowValues(tile::CopyOp copy) {
  SmallVector<Value> values{copy.getSource()};
  llvm::append_range(values, copy.getSourceIndices());
  return values;
}

bool gpu_lowering::originIssuableAhead(scf::ForOp loop, tile::CopyOp copy) {
  llvm::SetVector<Operation *> slice;
  return collectSlice(loop, windowValues(copy), slice);
}

bool gpu_lowering::gatherIndexWrittenIn(scf::ForOp loop, tile::CopyOp copy) {
  return llvm::any_of(copy.getGathers(), [&](Value index) {
    return llvm::any_of(index.getUsers(), [&](Operation *user) {
      auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(user);
      bool writes =
          !effects ||
          effects.getEffectOnValue<MemoryEffects::Write>(index).has_value();
      return writes && loop->isAncestor(user);
    });
  });
}

bool gpu_lowering::sourceWrittenIn(scf::ForOp loop, tile::CopyOp copy) {
  Value root = globalRoot(copy.getSource());
  GlobalAccess inLoop = globalAccessOf(loop);
  return root &&
         (inLoop.writes.contains(root) || inLoop.atomics.contains(root));
}

bool gpu_lowering::asyncCopyable(tile::CopyOp copy) {
  Value dst = copy.getDest();
  auto dstType = llvm::cast<MemRefType>(dst.getType());
  auto srcType = llvm::cast<MemRefType>(copy.getSource().getType());
  // Asynchronous copies move bytes: same dtype on both sides, whole bytes,
  // rows of the tile in 16-byte chunks.
  return dst.getDefiningOp<tile::AllocOp>() &&
         !copy.getSourceIndices().empty() &&
         tile::getScope(dstType) == tile::MemScope::shared &&
         !tile::getScope(srcType) &&
         srcType.getElementType() == dstType.getElementType() &&
         dstType.getElementType().isIntOrFloat() &&
         dstType.getElementTypeBitWidth() >= 8 &&
         dstType.getShape().back() % (128 / dstType.getElementTypeBitWidth()) ==
             0;
}

SmallVector<PipelinedLoop> gpu_lowering::findPipelinedLoops(Operation *func) {
  SmallVector<PipelinedLoop> loops;
  llvm::DenseSet<Value> taken;
  func->walk([&](scf::ForOp loop) {
    auto stages = loop->getAttrOfType<IntegerAttr>(tile::attr::kStages);
    if (!stages || stages.getInt() < 2)
      return;
    // More stages than 8 hide no more latency but grow the code.
    PipelinedLoop p{loop, std::min<int64_t>(stages.getInt(), 8), {}};
    for (auto copy : loop.getBody()->getOps<tile::CopyOp>()) {
      Value dst = copy.getDest();
      auto alloc = dst.getDefiningOp<tile::AllocOp>();
      if (!asyncCopyable(copy) || loop->isProperAncestor(alloc) ||
          taken.count(dst))
        continue;
      if (llvm::any_of(dst.getUsers(), [&](Operation *user) {
            return !loop->isProperAncestor(user);
          }))
        continue;
      if (!originIssuableAhead(loop, copy) ||
          gatherIndexWrittenIn(loop, copy) || sourceWrittenIn(loop, copy))
        continue;
      taken.insert(dst);
      p.producers.push_back(copy);
    }
    if (!p.producers.empty())
      loops.push_back(p);
  });
  return loops;
}

bool gpu_lowering::walksTiles(scf::ForOp loop) {
  return loop->hasAttr(tile::attr::kProducerThreads) &&
         loop->hasAttr(tile::attr::kWalksTiles);
}

SmallVector<PipelinedLoop> gpu_lowering::plannedPipelines(Operation *func) {
  SmallVector<PipelinedLoop> loops;
  func->walk([&](scf::ForOp loop) {
    auto stages = loop->getAttrOfType<IntegerAttr>(tile::attr::kPipelineStages);
    if (!stages)
      return;
    PipelinedLoop p{loop, stages.getInt(), {}};
    for (auto copy : loop.getBody()->getOps<tile::CopyOp>())
      if (copy->hasAttr(tile::attr::kAsync))
        p.producers.push_back(copy);
    if (!p.producers.empty())
      loops.push_back(p);
  });
  return loops;
}

Value gpu_lowering::stageView(OpBuilder &b, Location loc, Value buffers,
                              Value stage) {
  auto type = llvm::cast<MemRefType>(buffers.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  offsets[0] = stage;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(type.getShape()[d]));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, resultType, buffers, offsets, sizes,
                                   strides);
}

/// The gemms at the top level of `loop`'s body that the target runs as
/// asynchronous MMAs from shared tiles and whose accumulator nothing else in
/// the loop touches (so their last group may still run when the next
/// iteration starts).
static SmallVector<tile::GemmOp> asyncMmaGemms(scf::ForOp loop,
                                               const GPUTargetInfo &target) {
  SmallVector<tile::GemmOp> gemms;
  for (auto gemm : loop.getBody()->getOps<tile::GemmOp>()) {
    if (!target.mmaIsAsync(gemm) || tile::isFragment(gemm.getA()))
      continue;
    if (llvm::any_of(gemm.getC().getUsers(), [&](Operation *user) {
          return user != gemm.getOperation() && loop->isAncestor(user);
        }))
      continue;
    gemms.push_back(gemm);
  }
  return gemms;
}

/// The byte address in shared memory of `loop`'s first copy barrier,
/// computed at the top of the kernel (where taking the shared base's
/// address orders nothing that barrier elimination would have to keep).
static Value copyBarriers(const KernelLowering &k, scf::ForOp loop) {
  auto offset = loop->getAttrOfType<IntegerAttr>(tile::attr::kCopyBarriers);
  assert(offset && "tensor copies without barriers (tile-plan-shared-memory)");
  OpBuilder b(loop.getContext());
  b.setInsertionPointAfter(k.tid.getDefiningOp());
  Location loc = loop.getLoc();
  Value shared =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, k.sharedBase);
  Value bytes = indexConst(b, loc, offset.getInt());
  return arith::AddIOp::create(b, loc, shared, bytes);
}

/// Copy barrier `index` of those starting at `base`.
static Value copyBarrier(OpBuilder &b, Location loc, Value base, Value index) {
  Value bytes = indexConst(b, loc, GPUTargetInfo::kCopyBarrierBytes);
  Value offset = arith::MulIOp::create(b, loc, index, bytes);
  return arith::AddIOp::create(b, loc, base, offset);
}

/// The phase parity of a stage's barrier in iteration `it`: (it / S) % 2.
static Value phaseParity(OpBuilder &b, Location loc, Value it, int64_t stages) {
  Value round = arith::DivSIOp::create(b, loc, it, indexConst(b, loc, stages));
  return arith::RemSIOp::create(b, loc, round, indexConst(b, loc, 2));
}

/// The stage of iteration it + ahead: (it + ahead) % S.
static Value stageAhead(OpBuilder &b, Location loc, Value it, int64_t ahead,
                        int64_t stages) {
  Value later = arith::AddIOp::create(b, loc, it, indexConst(b, loc, ahead));
  return arith::RemSIOp::create(b, loc, later, indexConst(b, loc, stages));
}

/// The window origin of producer `copy` of `loop` at iteration `at`: its
/// slice of the body cloned at `b`, with `map` giving the values it uses
/// from outside the loop that must be replaced.
static SmallVector<Value> windowOrigin(OpBuilder &b, scf::ForOp loop,
                                       tile::CopyOp copy, Value at,
                                       IRMapping &map) {
  map.map(loop.getInductionVar(), at);
  llvm::SetVector<Operation *> slice;
  collectSlice(loop, windowValues(copy), slice);
  for (Operation *op : slice)
    b.clone(*op, map);
  SmallVector<Value> index;
  for (Value v : copy.getSourceIndices())
    index.push_back(map.lookupOrDefault(v));
  return index;
}

/// Thread-level: arrives on `barrier` expecting the bytes of `copies` and
/// starts them for iteration `at` into buffer `stage`; those in `shared`
/// are the same in every block of the cluster at `cluster`.
static void
issueTensorCopies(OpBuilder &b, Location loc, KernelLowering &k,
                  scf::ForOp loop, ArrayRef<tile::CopyOp> copies,
                  const llvm::DenseMap<Value, Value> &buffers, Value at,
                  Value stage, Value barrier, const IRMapping &outside,
                  const GPUTargetInfo::ClusterPosition *cluster = nullptr,
                  const llvm::DenseSet<Operation *> &shared = {}) {
  int64_t bytes = 0;
  for (tile::CopyOp copy : copies) {
    MemRefType type = memrefType(copy.getDest());
    bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  k.target.expectCopyBytes(b, loc, barrier, bytes);
  for (tile::CopyOp copy : copies) {
    IRMapping map = outside;
    SmallVector<Value> index = windowOrigin(b, loop, copy, at, map);
    Value dst = stageView(b, loc, buffers.lookup(copy.getDest()), stage);
    bool same = cluster && shared.contains(copy.getOperation());
    k.target.tensorCopy(k, b, loc, copy, index, dst, barrier,
                        same ? cluster : nullptr);
  }
}

/// The iteration number of `loop`'s current iteration, (iv - lb) / step,
/// plus `base` (the iterations of earlier tiles of a persistent kernel).
static Value iterationNumber(OpBuilder &b, Location loc, scf::ForOp loop,
                             Value base) {
  Value offset = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                       loop.getLowerBound());
  Value it = arith::DivSIOp::create(b, loc, offset, loop.getStep());
  return base ? arith::AddIOp::create(b, loc, base, it).getResult() : it;
}

/// The iterations of a loop from `lb` to `ub` in steps of `step` (> 0).
static Value tripCount(OpBuilder &b, Location loc, Value lb, Value ub,
                       Value step) {
  Value one = indexConst(b, loc, 1), zero = indexConst(b, loc, 0);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value stepLess = arith::SubIOp::create(b, loc, step, one);
  Value rounded = arith::AddIOp::create(b, loc, span, stepLess);
  Value count = arith::DivSIOp::create(b, loc, rounded, step);
  return arith::MaxSIOp::create(b, loc, count, zero);
}

/// A persistent kernel's loop over the grid's blocks (x fastest): tile t =
/// this block's index, then every grid size further on, with the pipeline
/// iterations of the earlier tiles carried (`base`). In clusters of n
/// blocks (the grid's block count a multiple of n), cluster c takes tiles
/// n * c .. n * c + n - 1, its block r the r-th, then every cluster count
/// further on.
struct TileLoop {
  scf::ForOp loop;
  Value base;
  Value tile;
};

static TileLoop
beginTileLoop(OpBuilder &b, Location loc, ArrayRef<Value> grid,
              const GPUTargetInfo::ClusterPosition *cluster = nullptr) {
  Value total = grid.front();
  for (Value extent : grid.drop_front())
    total = arith::MulIOp::create(b, loc, total, extent);
  Value none = indexConst(b, loc, 0);
  if (!cluster) {
    Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value stride = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    auto loop =
        scf::ForOp::create(b, loc, first, total, stride, ValueRange{none});
    b.setInsertionPointToStart(loop.getBody());
    return {loop, loop.getRegionIterArgs()[0], loop.getInductionVar()};
  }
  Value groups = arith::DivUIOp::create(b, loc, total, cluster->size);
  auto loop = scf::ForOp::create(b, loc, cluster->id, groups, cluster->count,
                                 ValueRange{none});
  b.setInsertionPointToStart(loop.getBody());
  Value group =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), cluster->size);
  Value tile = arith::AddIOp::create(b, loc, group, cluster->rank);
  return {loop, loop.getRegionIterArgs()[0], tile};
}

/// Whether `v` is the same in the blocks of a cluster of a clustered
/// persistent kernel: computed without the tile's row (tile.raster_axis 1)
/// or other block indices; the column under the grouped raster is shared
/// (see tile-gpu-kernel-abi's groupedBlockIds), and so are loop induction
/// variables, parameters and grid extents.
static bool sameInCluster(Value v, scf::ForOp loop) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(v))
    return v == loop.getInductionVar() ||
           llvm::isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (auto axis = def->getAttrOfType<IntegerAttr>(tile::attr::kRasterAxis))
    return axis.getInt() == 0;
  if (llvm::isa<gpu::GridDimOp>(def))
    return true;
  if (llvm::isa<gpu::BlockIdOp>(def) || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return sameInCluster(operand, loop);
  });
}

/// Ends a tile loop's body: the next tile starts `iterations` later.
static scf::YieldOp endTileLoop(OpBuilder &b, Location loc,
                                const TileLoop &tiles, Value iterations) {
  Value next = arith::AddIOp::create(b, loc, tiles.base, iterations);
  return scf::YieldOp::create(b, loc, next);
}

/// The block and grid indices inside `tiles`' body become those of its
/// tile (x fastest, then y, then z: the hardware's order of a grid's
/// blocks; `grid` holds its 2 or 3 extents).
static void useTileIndices(OpBuilder &b, Location loc, TileLoop tiles,
                           ArrayRef<Value> grid) {
  Block *body = tiles.loop.getBody();
  b.setInsertionPointAfterValue(tiles.tile);
  Value t = tiles.tile;
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  Value gridX = grid[0], gridY = grid[1];
  Value gridZ = grid.size() > 2 ? grid[2] : one;
  Value blockX = arith::RemUIOp::create(b, loc, t, gridX);
  Value blockY = arith::DivUIOp::create(b, loc, t, gridX);
  Value blockZ = zero;
  if (grid.size() > 2) {
    blockZ = arith::DivUIOp::create(b, loc, blockY, gridY);
    blockY = arith::RemUIOp::create(b, loc, blockY, gridY);
  }
  SmallVector<Operation *> indices;
  body->walk([&](Operation *op) {
    if (llvm::isa<gpu::BlockIdOp, gpu::GridDimOp>(op))
      indices.push_back(op);
  });
  auto byDimension = [](gpu::Dimension d, Value x, Value y, Value z) {
    return d == gpu::Dimension::x ? x : d == gpu::Dimension::y ? y : z;
  };
  for (Operation *op : indices) {
    Value now = llvm::isa<gpu::BlockIdOp>(op)
                    ? byDimension(llvm::cast<gpu::BlockIdOp>(op).getDimension(),
                                  blockX, blockY, blockZ)
                    : byDimension(llvm::cast<gpu::GridDimOp>(op).getDimension(),
                                  gridX, gridY, gridZ);
    op->getResult(0).replaceAllUsesWith(now);
    op->erase();
  }
}

/// At the start of `p`'s body: the iteration number and its stage, with
/// the body's uses of each producer tile rewired to that stage's buffer.
static std::pair<Value, Value>
enterStage(OpBuilder &b, const PipelinedLoop &p,
           const llvm::DenseMap<Value, Value> &buffers, Value base = {}) {
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  b.setInsertionPointToStart(loop.getBody());
  Value it = iterationNumber(b, loc, loop, base);
  Value stage =
      arith::RemSIOp::create(b, loc, it, indexConst(b, loc, p.stages));
  for (tile::CopyOp copy : p.producers) {
    Value view = stageView(b, loc, buffers.lookup(copy.getDest()), stage);
    copy.getDest().replaceUsesWithIf(view, [&](OpOperand &use) {
      return use.getOwner() != copy.getOperation() &&
             loop->isProperAncestor(use.getOwner());
    });
  }
  return {it, stage};
}

/// Whether the consumers of the warp-specialized loop `loop` take turns
/// issuing its gemms (FlashAttention-3's ping-pong): where the target's
/// consumer groups can, the gemms all run asynchronously and by deferred
/// waits (none in the pipeliner's protocol), and the body issues them in
/// one run with other work (a softmax) outside it. One group's other work
/// then overlaps the next group's gemms on the tensor cores, where
/// otherwise every group would issue at once and leave the tensor cores
/// idle through everyone's softmax. Returns the run's first and last gemm.
static std::optional<std::pair<tile::GemmOp, tile::GemmOp>>
turnTakingRun(scf::ForOp loop, const GPUTargetInfo &target, int64_t threads,
              ArrayRef<tile::GemmOp> asyncGemms) {
  if (target.turnTakingGroups(threads) < 2 || !asyncGemms.empty())
    return std::nullopt;
  tile::GemmOp first, last;
  bool ended = false, otherWork = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto gemm = llvm::dyn_cast<tile::GemmOp>(op);
    if (gemm) {
      // (Marked by markAsyncMmaGemms: the operands are views by now.)
      if (ended || !gemm->hasAttr(tile::attr::kMmaWaitDeferred))
        return std::nullopt;
      first = first ? first : gemm;
      last = gemm;
      continue;
    }
    if (first && !isMemoryEffectFree(&op))
      ended = true;
    otherWork |= op.walk([](Operation *inner) {
                     return llvm::isa<tile::ParallelOp, tile::ReduceOp>(inner)
                                ? WalkResult::interrupt()
                                : WalkResult::advance();
                   }).wasInterrupted();
  }
  if (!first || !otherWork)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// Around `run` (turnTakingRun) of the loop in `scope` (the loop, or the
/// persistent kernel's tile loop around it), the consumer groups take
/// turns: group g waits for its turn before the run and passes it on
/// after; the last group passes one turn before `scope` so that group 0
/// starts, and group 0 takes it back after `scope`, so each barrier
/// completes as often as it is waited for. In a persistent kernel the
/// turns go on from tile to tile (set up around the tile loop): nothing
/// else would keep the last group's first turn of the next tile from
/// arriving before group 0 has taken back the last one.
static void takeTurns(OpBuilder &b, Location loc, KernelLowering &k,
                      std::pair<tile::GemmOp, tile::GemmOp> run,
                      Operation *scope) {
  const GPUTargetInfo &target = k.target;
  int64_t groups = target.turnTakingGroups(k.threads);
  auto turn = [](Operation *op) {
    op->setAttr(tile::attr::kWarpgroupTurn, UnitAttr::get(op->getContext()));
  };
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(scope);
  Value group = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      arith::DivUIOp::create(b, loc, k.tid,
                             indexConst(b, loc, k.threads / groups)));
  // The turn op `make` builds, by group `g` only, at the builder.
  auto byGroup = [&](int64_t g, auto make) {
    Value isGroup = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, group,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), g));
    auto ifOp = scf::IfOp::create(b, loc, isGroup);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    turn((target.*make)(b, loc, group, groups));
  };
  byGroup(groups - 1, &GPUTargetInfo::passTurn);
  b.setInsertionPoint(run.first);
  turn(target.waitTurn(b, loc, group, groups));
  b.setInsertionPointAfter(run.second);
  turn(target.passTurn(b, loc, group, groups));
  b.setInsertionPointAfter(scope);
  byGroup(0, &GPUTargetInfo::waitTurn);
}

/// Warp specialization (tile.producer_threads): the block gets that many
/// more threads. After thread 0 has set up the barriers, the kernel's
/// threads (the consumers) run the kernel's code, where each iteration waits
/// for its stage's full barrier and, once its asynchronous MMAs no longer
/// read the previous stage, arrives on that stage's empty barrier; the first
/// producer thread runs the loop alone, waiting for a stage's empty barrier
/// before refilling it. Consumer barriers wait for the consumers only
/// (tile.consumer_threads on their region).
static void specializePipeline(const PipelinedLoop &p,
                               const llvm::DenseMap<Value, Value> &buffers,
                               KernelLowering &k,
                               ArrayRef<tile::GemmOp> asyncGemms) {
  const GPUTargetInfo &target = k.target;
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  int64_t stages = p.stages, consumers = k.threads;
  int64_t producers =
      loop->getAttrOfType<IntegerAttr>(tile::attr::kProducerThreads).getInt();
  gpu::GPUFuncOp func = k.func;
  Block &entry = func.getBody().front();
  auto c = [&](OpBuilder &b, int64_t v) { return indexConst(b, loc, v); };
  // Barriers full[0, S) and empty[S, 2S).
  Value barriers = copyBarriers(k, loop);
  auto full = [&](OpBuilder &b, Value stage) {
    return copyBarrier(b, loc, barriers, stage);
  };
  auto empty = [&](OpBuilder &b, Value stage) {
    return copyBarrier(b, loc, barriers,
                       arith::AddIOp::create(b, loc, stage, c(b, stages)));
  };

  // The kernel may become persistent (walksTiles): each block walks
  // tiles, so that the producer fills the next tile's stages while the
  // consumers finish one. All of the kernel's block and grid indices must
  // be the consumers': after the barriers, where the consumers' code
  // starts.
  auto rankAttr = func->getAttrOfType<IntegerAttr>(tile::attr::kGridRank);
  int64_t gridRank = rankAttr ? rankAttr.getInt() : 0;
  bool persistent = walksTiles(loop);
  Operation *setUpEnd = barriers.getDefiningOp();
  func.walk([&](Operation *op) {
    if (!llvm::isa<gpu::BlockIdOp, gpu::GridDimOp>(op))
      return;
    Operation *top = entry.findAncestorOpInBlock(*op);
    if (!top || top == setUpEnd || top->isBeforeInBlock(setUpEnd))
      persistent = false;
  });
  // Persistent kernels of a 2-D grid whose blocks load some operand tile
  // independent of the tile's row run in clusters of two consecutive tiles
  // (rows of one column) where the grid allows, each block copying half of
  // such tiles into both (multicast), so L2 serves them once. Their
  // consumers release a stage in both blocks: the empty barriers count the
  // warps of two.
  llvm::DenseSet<Operation *> sharedCopies;
  if (persistent && gridRank == 2 && target.hasClusters())
    for (tile::CopyOp copy : p.producers)
      if (llvm::all_of(copy.getSourceIndices(),
                       [&](Value v) { return sameInCluster(v, loop); }))
        sharedCopies.insert(copy);
  bool clustered = !sharedCopies.empty();
  int64_t releasingBlocks = clustered ? 2 : 1;

  // Set-up, by every thread of the block.
  OpBuilder b(func.getContext());
  b.setInsertionPointAfter(barriers.getDefiningOp());
  inThread(b, loc, k.tid, 0, [&](OpBuilder &b) {
    SmallVector<Value> fulls, empties;
    for (int64_t s = 0; s < stages; ++s) {
      fulls.push_back(full(b, c(b, s)));
      empties.push_back(empty(b, c(b, s)));
    }
    target.initCopyBarriers(b, loc, fulls, /*arrivals=*/1);
    // One arrival per consumer warp (of each releasing block).
    target.initCopyBarriers(b, loc, empties,
                            /*arrivals=*/consumers / target.warpSize() *
                                releasingBlocks);
  });
  gpu::BarrierOp::create(b, loc);
  GPUTargetInfo::ClusterPosition position;
  const GPUTargetInfo::ClusterPosition *cluster = nullptr;
  if (clustered) {
    // The other block's barriers are set up before its copies land here.
    target.clusterSync(b, loc);
    position = target.clusterPosition(b, loc);
    cluster = &position;
    func->setAttr(tile::attr::kClusterRows, b.getI64IntegerAttr(2));
  }
  // This block and the other one of its cluster (this one again when the
  // cluster has one block): the blocks whose empty barriers consumers
  // arrive on.
  SmallVector<Value> releaseRanks;
  if (cluster) {
    Value last = arith::SubIOp::create(b, loc, cluster->size, c(b, 1));
    Value other = arith::SubIOp::create(b, loc, last, cluster->rank);
    releaseRanks = {cluster->rank, other};
  }
  Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           k.tid, c(b, consumers));
  auto roles = scf::IfOp::create(b, loc, isConsumer, /*withElseRegion=*/true);
  roles->setAttr(tile::attr::kConsumerThreads, b.getI64IntegerAttr(consumers));
  // The kernel's code is the consumers'.
  Block *consumer = roles.thenBlock();
  consumer->getOperations().splice(
      consumer->getTerminator()->getIterator(), entry.getOperations(),
      std::next(roles->getIterator()), entry.getTerminator()->getIterator());
  b.setInsertionPointToStart(consumer);
  target.setRoleRegisters(b, loc, /*producer=*/false, consumers);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  SmallVector<Value, 3> grid;
  TileLoop consumerTiles;
  if (persistent) {
    // The grid's extents: parameters before the tensor maps.
    auto maps = func->getAttrOfType<ArrayAttr>(tile::attr::kTensorMaps);
    unsigned at = func.getNumArguments() - (maps ? maps.size() : 0);
    Type i64 = b.getI64Type();
    func->setAttr(tile::attr::kPersistent, b.getI64IntegerAttr(gridRank));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(roles);
      for (int64_t d = 0; d < gridRank; ++d) {
        // Inserting arguments into a gpu.func with a body cannot fail.
        (void)func.insertArgument(at + d, i64, b.getDictionaryAttr({}), loc);
        grid.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                  func.getArgument(at + d)));
      }
    }
    // The consumers' code moves into their tile loop.
    Operation *firstOp = consumer->getTerminator();
    if (b.getInsertionPoint() != consumer->end())
      firstOp = &*b.getInsertionPoint();
    consumerTiles = beginTileLoop(b, loc, grid, cluster);
    Block *tileBody = consumerTiles.loop.getBody();
    tileBody->getOperations().splice(tileBody->end(), consumer->getOperations(),
                                     firstOp->getIterator(),
                                     consumer->getTerminator()->getIterator());
    useTileIndices(b, loc, consumerTiles, grid);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(consumerTiles.loop);
      Value tid32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), k.tid);
      b.setInsertionPointToStart(tileBody);
      k.tileTid = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(), target.opaqueCopy(b, loc, tid32));
      k.tileLoop = consumerTiles.loop;
    }
    lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
    b.setInsertionPointToEnd(tileBody);
    endTileLoop(b, loc, consumerTiles, tripCount(b, loc, lb, ub, step));
  }

  // The producer: the values its copies need from the consumers' code
  // (pure, checked by tile-plan-pipelines), recomputed first.
  b.setInsertionPointToStart(roles.elseBlock());
  target.setRoleRegisters(b, loc, /*producer=*/true, consumers);
  inThread(b, loc, k.tid, consumers, [&](OpBuilder &b) {
    IRMapping outside;
    OpBuilder::InsertionGuard tilesGuard(b);
    TileLoop producerTiles;
    if (persistent) {
      // The same tiles in the same order: the consumers' tile index and
      // iteration count are the producer's.
      producerTiles = beginTileLoop(b, loc, grid, cluster);
      outside.map(consumerTiles.loop.getInductionVar(),
                  producerTiles.loop.getInductionVar());
      outside.map(consumerTiles.tile, producerTiles.tile);
      outside.map(consumerTiles.base, producerTiles.base);
    }
    Region &consumerRegion = roles.getThenRegion();
    std::function<void(Value)> recompute = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (outside.contains(v) || !def || loop->isAncestor(def) ||
          !consumerRegion.isAncestor(def->getParentRegion()))
        return;
      for (Value operand : def->getOperands())
        recompute(operand);
      b.clone(*def, outside);
    };
    for (tile::CopyOp copy : p.producers) {
      llvm::SetVector<Operation *> slice;
      collectSlice(loop, copy.getSourceIndices(), slice);
      for (Operation *op : slice)
        for (Value operand : op->getOperands())
          recompute(operand);
      for (Value v : copy.getSourceIndices())
        recompute(v);
    }
    for (Value v : {lb, ub, step})
      recompute(v);
    Value produceLb = outside.lookupOrDefault(lb);
    Value produceUb = outside.lookupOrDefault(ub);
    Value produceStep = outside.lookupOrDefault(step);
    if (persistent) {
      // The tile's iteration count, then its copies before the yield.
      Value trips = tripCount(b, loc, produceLb, produceUb, produceStep);
      b.setInsertionPoint(endTileLoop(b, loc, producerTiles, trips));
    }
    auto produce =
        scf::ForOp::create(b, loc, produceLb, produceUb, produceStep);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(produce.getBody());
    Value at = produce.getInductionVar();
    Value it = iterationNumber(b, loc, produce,
                               persistent ? producerTiles.base : Value());
    Value stage = arith::RemSIOp::create(b, loc, it, c(b, stages));
    Value round = arith::DivSIOp::create(b, loc, it, c(b, stages));
    // From the second round on, the consumers must have released the stage:
    // phase round - 1 of its empty barrier.
    Value refill = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, it,
                                         c(b, stages));
    auto wait = scf::IfOp::create(b, loc, refill, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(wait.thenBlock()->getTerminator());
      Value previousRound = arith::SubIOp::create(b, loc, round, c(b, 1));
      Value parity = arith::RemSIOp::create(b, loc, previousRound, c(b, 2));
      target.waitCopyBarrier(b, loc, empty(b, stage), parity);
    }
    issueTensorCopies(b, loc, k, loop, p.producers, buffers, at, stage,
                      full(b, stage), outside, cluster, sharedCopies);
  });

  // The consumers' loop: wait for the stage, compute, release the stage
  // the previous iteration's MMAs read.
  b.setInsertionPoint(loop);
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0); // (see pipelineLoop: ptxas C7515)
  auto [it, stage] =
      enterStage(b, p, buffers, persistent ? consumerTiles.base : Value());
  Value parity = phaseParity(b, loc, it, stages);
  target.waitCopyBarrier(b, loc, full(b, stage), parity);
  for (tile::GemmOp gemm : asyncGemms)
    gemm->setAttr(tile::attr::kMmaInFlight, b.getI64IntegerAttr(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  if (asyncGemms.empty()) {
    target.arriveCopyBarrierPerWarp(b, loc, empty(b, stage), k.tid,
                                    releaseRanks);
  } else {
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, it, c(b, 0));
    auto release =
        scf::IfOp::create(b, loc, notFirst, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(release.thenBlock()->getTerminator());
    Value previous = stageAhead(b, loc, it, stages - 1, stages);
    target.arriveCopyBarrierPerWarp(b, loc, empty(b, previous), k.tid,
                                    releaseRanks);
  }
  for (tile::CopyOp copy : p.producers)
    copy.erase();
  loop->setAttr(tile::attr::kPipelined, b.getUnitAttr());
  if (auto run = turnTakingRun(loop, target, consumers, asyncGemms))
    takeTurns(b, loc, k, *run, persistent ? consumerTiles.loop : loop);
  b.setInsertionPointAfter(loop);
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0);
  gpu::BarrierOp::create(b, loc);
  if (cluster) {
    // No block leaves while the other may still arrive on its barriers or
    // copy into its tiles.
    b.setInsertionPointAfter(roles);
    target.clusterSync(b, loc);
  }

  // Launched with the producers.
  int64_t blockThreads = consumers + producers;
  func->setAttr(tile::attr::kBlockThreads, b.getI64IntegerAttr(blockThreads));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(blockThreads), 1, 1}));
}

void gpu_lowering::pipelineLoop(const PipelinedLoop &p,
                                const llvm::DenseMap<Value, Value> &buffers,
                                KernelLowering &k) {
  const GPUTargetInfo &target = k.target;
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  int64_t stages = p.stages;
  OpBuilder b(loop);
  auto c = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value iv = loop.getInductionVar();
  // (Before the uses of the tiles become buffer views.)
  SmallVector<tile::GemmOp> asyncGemms = asyncMmaGemms(loop, target);

  SmallVector<tile::CopyOp> tensorCopies, asyncCopies;
  for (tile::CopyOp copy : p.producers)
    (copy->hasAttr(tile::attr::kTensorCopy) ? tensorCopies : asyncCopies)
        .push_back(copy);
  if (loop->hasAttr(tile::attr::kProducerThreads)) {
    specializePipeline(p, buffers, k, asyncGemms);
    return;
  }
  Value barriers = tensorCopies.empty() ? Value() : copyBarriers(k, loop);
  auto barrierOf = [&](OpBuilder &b, Value stage) {
    return copyBarrier(b, loc, barriers, stage);
  };

  // Issues the producer copies of the iteration at `at` into buffer `stage`
  // (`cold`: the prologue's, which run once).
  auto issue = [&](OpBuilder &b, Value at, Value stage, bool cold) {
    if (!tensorCopies.empty())
      inThread(b, loc, k.tid, 0, [&](OpBuilder &b) {
        issueTensorCopies(b, loc, k, loop, tensorCopies, buffers, at, stage,
                          barrierOf(b, stage), IRMapping());
      });
    for (tile::CopyOp copy : asyncCopies) {
      IRMapping map;
      windowOrigin(b, loop, copy, at, map);
      map.map(copy.getDest(),
              stageView(b, loc, buffers.lookup(copy.getDest()), stage));
      auto clone = llvm::cast<tile::CopyOp>(b.clone(*copy, map));
      clone->setAttr(tile::attr::kAsync, b.getUnitAttr());
      if (cold)
        clone->setAttr(tile::attr::kColdCopy, b.getUnitAttr());
    }
  };
  auto issueIfInRange = [&](OpBuilder &b, Value at, Value stage, bool cold) {
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, ub);
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    issue(b, at, stage, cold);
  };

  if (!tensorCopies.empty()) {
    inThread(b, loc, k.tid, 0, [&](OpBuilder &b) {
      SmallVector<Value> all;
      for (int64_t s = 0; s < stages; ++s)
        all.push_back(barrierOf(b, c(b, s)));
      target.initCopyBarriers(b, loc, all, /*arrivals=*/1);
    });
    gpu::BarrierOp::create(b, loc);
  }

  // Prologue: iterations 0 .. S-2, one commit group each (maybe empty).
  // More than one go through a loop: each unrolled copy of the copies (a
  // vector path and the ragged edge's for every producer) made the compile
  // of a cp.async gemm about 0.2 s longer.
  auto issuePrologue = [&](OpBuilder &b, Value s) {
    Value at = arith::AddIOp::create(b, loc, lb,
                                     arith::MulIOp::create(b, loc, step, s));
    issueIfInRange(b, at, s, /*cold=*/true);
    if (!asyncCopies.empty())
      target.asyncCommit(b, loc);
  };
  if (stages > 2) {
    auto prologue =
        scf::ForOp::create(b, loc, c(b, 0), c(b, stages - 1), c(b, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(prologue.getBody());
    issuePrologue(b, prologue.getInductionVar());
  } else if (stages == 2) {
    issuePrologue(b, c(b, 0));
  }

  // (Nothing runs yet; but ptxas serializes all wgmma when the moves that
  // give the accumulators their values on the path that skips the loop are
  // not behind a wait.)
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0);

  // Body: wait for this iteration's group, synchronize, issue k + S - 1.
  auto [it, stage] = enterStage(b, p, buffers);
  if (!tensorCopies.empty()) {
    Value parity = phaseParity(b, loc, it, stages);
    target.waitCopyBarrier(b, loc, barrierOf(b, stage), parity);
  }
  if (!asyncCopies.empty())
    target.asyncWait(b, loc, stages - 2);
  gpu::BarrierOp::create(b, loc);
  Value aheadSteps = arith::MulIOp::create(b, loc, step, c(b, stages - 1));
  Value ahead = arith::AddIOp::create(b, loc, iv, aheadSteps);
  Value aheadStage = stageAhead(b, loc, it, stages - 1, stages);
  // Gemms on asynchronous MMAs keep the group of iteration k running into
  // iteration k + 1 (waiting only for k - 1's): then the copies, which
  // overwrite the buffer k - 1 read, come after them and a barrier.
  if (!asyncGemms.empty()) {
    for (tile::GemmOp gemm : asyncGemms)
      gemm->setAttr(tile::attr::kMmaInFlight, b.getI64IntegerAttr(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    gpu::BarrierOp::create(b, loc);
  }
  issueIfInRange(b, ahead, aheadStage, /*cold=*/false);
  if (!asyncCopies.empty())
    target.asyncCommit(b, loc);
  for (tile::CopyOp copy : p.producers)
    copy.erase();

  loop->setAttr(tile::attr::kPipelined, b.getUnitAttr());
  // Nothing is in flight after the loop.
  b.setInsertionPointAfter(loop);
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0);
  if (!asyncCopies.empty())
    target.asyncWait(b, loc, 0);
  gpu::BarrierOp::create(b, loc);
}
