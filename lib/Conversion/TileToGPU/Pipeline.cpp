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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

/// The ops of `loop`'s body that compute `values` from the induction
/// variable, in order; false if one of them is not a pure op of the body.
static bool collectSlice(scf::ForOp loop, ValueRange values,
                         llvm::SetVector<Operation *> &slice) {
  for (Value v : values) {
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isProperAncestor(def))
      continue; // the induction variable or defined outside the loop
    if (def->getBlock() != loop.getBody() || !isMemoryEffectFree(def) ||
        def->getNumRegions() != 0)
      return false;
    if (!collectSlice(loop, def->getOperands(), slice))
      return false;
    slice.insert(def);
  }
  return true;
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
      auto dstType = llvm::cast<MemRefType>(dst.getType());
      auto srcType = llvm::cast<MemRefType>(copy.getSource().getType());
      if (!alloc || copy.getSourceIndices().empty() ||
          tile::getScope(dstType) != tile::MemScope::shared ||
          tile::getScope(srcType) || loop->isProperAncestor(alloc) ||
          taken.count(dst) ||
          srcType.getElementType() != dstType.getElementType() ||
          !dstType.getElementType().isIntOrFloat() ||
          dstType.getElementTypeBitWidth() < 8 ||
          dstType.getShape().back() %
                  (128 / dstType.getElementTypeBitWidth()) !=
              0)
        continue;
      if (llvm::any_of(dst.getUsers(), [&](Operation *user) {
            return !loop->isProperAncestor(user);
          }))
        continue;
      llvm::SetVector<Operation *> slice;
      if (!collectSlice(loop, copy.getSourceIndices(), slice))
        continue;
      taken.insert(dst);
      p.producers.push_back(copy);
    }
    if (!p.producers.empty())
      loops.push_back(p);
  });
  return loops;
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

/// Buffer `stage` of a multi-buffered tile: [S, ...] -> [...].
static Value stageView(OpBuilder &b, Location loc, Value buffers, Value stage) {
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
/// asynchronous MMAs and whose accumulator nothing else in the loop touches
/// (so their last group may still run when the next iteration starts).
static SmallVector<tile::GemmOp> asyncMmaGemms(scf::ForOp loop,
                                               const GPUTargetInfo &target) {
  SmallVector<tile::GemmOp> gemms;
  for (auto gemm : loop.getBody()->getOps<tile::GemmOp>()) {
    if (!target.mmaIsAsync(gemm))
      continue;
    if (llvm::any_of(gemm.getC().getUsers(), [&](Operation *user) {
          return user != gemm.getOperation() && loop->isAncestor(user);
        }))
      continue;
    gemms.push_back(gemm);
  }
  return gemms;
}

/// Code that thread `which` alone runs.
static void inThread(OpBuilder &b, Location loc, Value tid, int64_t which,
                     llvm::function_ref<void(OpBuilder &)> body) {
  Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                   indexConst(b, loc, which));
  auto ifOp = scf::IfOp::create(b, loc, is, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
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
  collectSlice(loop, copy.getSourceIndices(), slice);
  for (Operation *op : slice)
    b.clone(*op, map);
  SmallVector<Value> index;
  for (Value v : copy.getSourceIndices())
    index.push_back(map.lookupOrDefault(v));
  return index;
}

/// Thread-level: arrives on `barrier` expecting the bytes of `copies` and
/// starts them for iteration `at` into buffer `stage`.
static void issueTensorCopies(OpBuilder &b, Location loc, KernelLowering &k,
                              scf::ForOp loop, ArrayRef<tile::CopyOp> copies,
                              const llvm::DenseMap<Value, Value> &buffers,
                              Value at, Value stage, Value barrier,
                              const IRMapping &outside) {
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
    k.target.tensorCopy(k, b, loc, copy, index, dst, barrier);
  }
}

/// At the start of `p`'s body: the iteration number and its stage, with
/// the body's uses of each producer tile rewired to that stage's buffer.
static std::pair<Value, Value>
enterStage(OpBuilder &b, const PipelinedLoop &p,
           const llvm::DenseMap<Value, Value> &buffers) {
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  b.setInsertionPointToStart(loop.getBody());
  Value it = arith::DivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
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
    target.initCopyBarriers(b, loc, empties, /*arrivals=*/consumers);
  });
  gpu::BarrierOp::create(b, loc);
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

  // The producer: the values its copies need from the consumers' code
  // (pure, checked by tile-plan-pipelines), recomputed first.
  b.setInsertionPointToStart(roles.elseBlock());
  target.setRoleRegisters(b, loc, /*producer=*/true, consumers);
  inThread(b, loc, k.tid, consumers, [&](OpBuilder &b) {
    IRMapping outside;
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
    auto produce = scf::ForOp::create(b, loc, outside.lookupOrDefault(lb),
                                      outside.lookupOrDefault(ub),
                                      outside.lookupOrDefault(step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(produce.getBody());
    Value at = produce.getInductionVar();
    Value it = arith::DivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, at, produce.getLowerBound()),
        produce.getStep());
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
                      full(b, stage), outside);
  });

  // The consumers' loop: wait for the stage, compute, release the stage
  // the previous iteration's MMAs read.
  b.setInsertionPoint(loop);
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0); // (see pipelineLoop: ptxas C7515)
  auto [it, stage] = enterStage(b, p, buffers);
  Value parity = phaseParity(b, loc, it, stages);
  target.waitCopyBarrier(b, loc, full(b, stage), parity);
  for (tile::GemmOp gemm : asyncGemms)
    gemm->setAttr(tile::attr::kMmaInFlight, b.getI64IntegerAttr(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  if (asyncGemms.empty()) {
    target.arriveCopyBarrier(b, loc, empty(b, stage));
  } else {
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, it, c(b, 0));
    auto release =
        scf::IfOp::create(b, loc, notFirst, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(release.thenBlock()->getTerminator());
    Value previous = stageAhead(b, loc, it, stages - 1, stages);
    target.arriveCopyBarrier(b, loc, empty(b, previous));
  }
  for (tile::CopyOp copy : p.producers)
    copy.erase();
  loop->setAttr(tile::attr::kPipelined, b.getUnitAttr());
  b.setInsertionPointAfter(loop);
  if (!asyncGemms.empty())
    target.mmaWait(b, loc, 0);
  gpu::BarrierOp::create(b, loc);

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

  // Issues the producer copies of the iteration at `at` into buffer `stage`.
  auto issue = [&](OpBuilder &b, Value at, Value stage) {
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
    }
  };
  auto issueIfInRange = [&](OpBuilder &b, Value at, Value stage) {
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, ub);
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    issue(b, at, stage);
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
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value at = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, step, c(b, s)));
    issueIfInRange(b, at, c(b, s));
    if (!asyncCopies.empty())
      target.asyncCommit(b, loc);
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
  issueIfInRange(b, ahead, aheadStage);
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
