//===- TileToGPU.cpp - Tile ops in gpu.func kernels to SIMT code ----------===//
//
// The kernel side of convert-tile-to-gpu: where each tile lives (at the
// offsets tile-plan-shared-memory chose), the pipelines tile-plan-pipelines
// chose, the order ops are lowered in and the barriers after them. The op
// lowerings are in Ops.cpp, the vendor's parts behind GPUTargetInfo.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "SharedMemory.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "tlc/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tlc {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

Value gpu_lowering::viewByteAddress(OpBuilder &b, Location loc, Value view,
                                    int64_t elemBytes, bool readOnly) {
  auto base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view);
  if (readOnly)
    base->setAttr(tile::attr::kReadOnlyAddress, b.getUnitAttr());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value scale = indexConst(b, loc, elemBytes);
  Value offset = arith::MulIOp::create(b, loc, meta.getOffset(), scale);
  return arith::AddIOp::create(b, loc, base, offset);
}

namespace {

struct ConvertTileToGPU
    : public tlc::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using Base::Base;

  /// The vendor's part of the lowering, for the module's #tile.target.
  std::shared_ptr<GPUTargetInfo> target;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    insertVendorDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUFuncOp> kernels;
    module.walk([&](gpu::GPUFuncOp func) {
      if (func->hasAttr(tile::attr::kThreads))
        kernels.push_back(func);
    });
    if (kernels.empty())
      return;
    tile::TargetAttr description = tile::getTarget(module);
    if (!description) {
      module.emitError() << "convert-tile-to-gpu needs the target "
                            "description (#tile.target) on the module";
      return signalPassFailure();
    }
    target = createGPUTargetInfo(description);
    if (!target) {
      module.emitError() << "no GPU lowering for target '"
                         << description.getVendor() << "'";
      return signalPassFailure();
    }
    for (gpu::GPUFuncOp func : kernels)
      if (failed(lowerBody(func)))
        return signalPassFailure();
  }

  /// A kernel with `cluster(c)`, c > 1, runs in clusters where the target
  /// has them; its cluster reductions combine register fragments.
  LogicalResult checkClusters(gpu::GPUFuncOp func, KernelLowering &k) {
    auto blocks = func->getAttrOfType<IntegerAttr>(tile::attr::kClusterBlocks);
    k.clusterBlocks = blocks ? blocks.getInt() : 1;
    if (k.clusterBlocks > 1) {
      if (!target->hasClusters())
        return func.emitError()
               << "kernel '" << func.getName().drop_front(4)
               << "' asks for clusters of " << k.clusterBlocks << " blocks; "
               << target->target.getArch() << " runs no thread block clusters";
      target->setClusterShape(func, k.clusterBlocks);
    }
    int64_t exchangeBytes = 0;
    WalkResult bad = func.walk([&](tile::ClusterReduceOp op) {
      if (!blocks) {
        op.emitError("cluster_reduce in a kernel without cluster(...)");
        return WalkResult::interrupt();
      }
      if (k.clusterBlocks <= 1)
        return WalkResult::advance();
      const RegisterFragment *f = k.fragment(op.getTile());
      if (!f) {
        op.emitError("cluster_reduce needs a fragment held in registers");
        return WalkResult::interrupt();
      }
      MemRefType slots = memrefType(f->slots);
      exchangeBytes = std::max(exchangeBytes,
                               k.threads * slots.getNumElements() *
                                   ((slots.getElementTypeBitWidth() + 7) / 8));
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return failure();
    if (exchangeBytes == 0)
      return success();
    // Two exchange buffers behind the tiles (the reduction scratch goes
    // behind them), a parity per thread, and the cluster barrier before
    // every return.
    k.clusterExchangeBytes = llvm::alignTo(exchangeBytes, 16);
    k.clusterExchangeOffset = llvm::alignTo(k.sharedTileBytes, 128);
    k.sharedTileBytes = k.clusterExchangeOffset + 2 * k.clusterExchangeBytes;
    Block &entry = func.getBody().front();
    OpBuilder b(&entry, entry.begin());
    Location loc = func.getLoc();
    k.clusterParity = memref::AllocaOp::create(
        b, loc, MemRefType::get({1}, b.getIndexType()));
    Value zero = indexConst(b, loc, 0);
    memref::StoreOp::create(b, loc, zero, k.clusterParity, ValueRange{zero});
    func.walk([&](gpu::ReturnOp ret) {
      OpBuilder before(ret);
      target->clusterSync(before, ret.getLoc());
    });
    return success();
  }

  LogicalResult lowerBody(gpu::GPUFuncOp func) {
    int64_t threads =
        func->getAttrOfType<IntegerAttr>(tile::attr::kThreads).getInt();
    KernelLowering k(func, threads, *target);
    int64_t maxSharedBytes = target->target.getMaxSharedBytes();
    Block &entry = func.getBody().front();
    OpBuilder b(&entry, entry.begin());
    Location loc = func.getLoc();
    MLIRContext *ctx = func.getContext();
    auto workgroup = gpu::AddressSpaceAttr::get(
        ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
    k.sharedBase = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), workgroup));
    k.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    // Storage goes between the two (the op after them may be an alloc that
    // is erased below, which would leave the builder dangling).
    b.setInsertionPoint(k.tid.getDefiningOp());

    // The pipelines and shared-memory offsets the planning passes chose.
    SmallVector<PipelinedLoop> pipelined = plannedPipelines(func);
    markAsyncMmaGemms(func, *target);
    auto tileBytes = func->getAttrOfType<IntegerAttr>(tile::attr::kSharedBytes);
    k.sharedTileBytes = tileBytes ? tileBytes.getInt() : 0;
    llvm::DenseMap<Value, Value> buffers;
    // Swizzled tiles need their pattern aligned to the shared window's
    // addresses: bytes from the dynamic shared base to the next multiple of
    // kSwizzleAlignment (the plan left that much slack).
    Value shift;
    auto alignedShift = [&]() {
      if (shift)
        return shift;
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, k.sharedBase);
      Value mask =
          arith::ConstantIndexOp::create(b, loc, kSwizzleAlignment - 1);
      Value rest = arith::AndIOp::create(b, loc, base, mask);
      Value up = arith::SubIOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, kSwizzleAlignment),
          rest);
      return shift = arith::AndIOp::create(b, loc, up, mask);
    };

    // Storage for every tile, created at the top of the kernel.
    SmallVector<tile::AllocOp> allocs;
    func.walk([&](tile::AllocOp op) { allocs.push_back(op); });
    for (tile::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      Location aloc = alloc.getLoc();
      switch (*tile::getScope(type)) {
      case tile::MemScope::shared: {
        auto offsetAttr =
            alloc->getAttrOfType<IntegerAttr>(tile::attr::kSharedOffset);
        if (!offsetAttr || !tileBytes)
          return alloc.emitError("shared tile has no offset (run "
                                 "tile-plan-shared-memory first)");
        auto buffersAttr =
            alloc->getAttrOfType<IntegerAttr>(tile::attr::kBuffers);
        auto swizzleAttr =
            alloc->getAttrOfType<IntegerAttr>(tile::attr::kSwizzle);
        int64_t swizzle = swizzleAttr ? swizzleAttr.getInt() : 0;
        auto staging =
            alloc->getAttrOfType<DenseI64ArrayAttr>(tile::attr::kStoreStaging);
        int64_t stages = 0;
        std::tie(type, stages) =
            sharedStorage(alloc, buffersAttr ? buffersAttr.getInt() : 0);
        SmallVector<int64_t> shape = sharedTileShape(type, stages, false);
        SmallVector<int64_t> padded = sharedTileShape(type, stages, !swizzle);
        int64_t offset = offsetAttr.getInt();
        auto viewType = MemRefType::get(padded, type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
        Value byteShift = arith::ConstantIndexOp::create(b, aloc, offset);
        if (swizzle) // from the run-time aligned base
          byteShift = arith::AddIOp::create(b, aloc, alignedShift(), byteShift);
        Value view = memref::ViewOp::create(b, aloc, viewType, k.sharedBase,
                                            byteShift, ValueRange{});
        if (swizzle)
          k.swizzles[view] = swizzle;
        if (padded != shape) {
          SmallVector<int64_t> offsets(shape.size(), 0),
              strides(shape.size(), 1);
          view =
              memref::SubViewOp::create(b, aloc, view, offsets, shape, strides);
        }
        if (staging) { // lowered with the copies that use it
          k.storeStaging[alloc.getResult()] = {view, staging[0], staging[1]};
          break;
        }
        if (stages) {
          buffers[alloc.getResult()] = view; // rewired by pipelineLoop
          break;
        }
        alloc.getResult().replaceAllUsesWith(view);
        alloc.erase();
        break;
      }
      case tile::MemScope::local: {
        Value local = memref::AllocaOp::create(
            b, aloc, MemRefType::get(type.getShape(), type.getElementType()));
        alloc.getResult().replaceAllUsesWith(local);
        alloc.erase();
        break;
      }
      case tile::MemScope::fragment: {
        auto attr = alloc->getAttrOfType<tile::LayoutAttr>(tile::attr::kLayout);
        if (!attr)
          return alloc.emitError(
              "fragment has no thread layout (run tile-infer-layouts first)");
        tile::FragmentLayout layout =
            tile::FragmentLayout::fromAttr(attr, type.getRank());
        if (!layout.fits(type.getShape()) || layout.threads != threads)
          return alloc.emitError("fragment layout does not fit its shape");
        Value slots = memref::AllocaOp::create(
            b, aloc,
            MemRefType::get({layout.numSlots()}, type.getElementType()));
        k.fragments[alloc.getResult()] = {slots, layout};
        break;
      }
      }
    }

    if (!k.storeStaging.empty()) {
      // An i32 before the tensor maps (and before the grid's extents, which
      // pipelineLoop inserts there too); inserting into a gpu.func with a
      // body cannot fail.
      auto maps = func->getAttrOfType<ArrayAttr>(tile::attr::kTensorMaps);
      unsigned at = func.getNumArguments() - (maps ? maps.size() : 0);
      (void)func.insertArgument(at, b.getI32Type(), b.getDictionaryAttr({}),
                                loc);
      k.storeByTensorCopy = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, func.getArgument(at),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    }
    for (const PipelinedLoop &p : pipelined)
      pipelineLoop(p, buffers, k);
    placeMmaWaits(func, *target);
    for (auto &[value, view] : buffers)
      value.getDefiningOp()->erase();

    // Element accesses outside tile ops that touch shared memory are
    // separated from what follows by a barrier like tile ops are.
    SmallVector<Operation *> accesses;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (llvm::isa<tile::ParallelOp>(op))
        return WalkResult::skip();
      if (llvm::isa<memref::LoadOp, memref::StoreOp>(op) && touchesShared(op))
        accesses.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : accesses) {
      OpBuilder after(op->getContext());
      after.setInsertionPointAfter(op);
      gpu::BarrierOp::create(after, op->getLoc());
    }
    // Scalar code runs on every thread; an element atomic there (the only
    // memref.atomic_rmw before tile ops are lowered) combines once.
    SmallVector<Operation *> scalarAtomics;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (llvm::isa<tile::ParallelOp>(op))
        return WalkResult::skip();
      if (llvm::isa<memref::AtomicRMWOp>(op))
        scalarAtomics.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : scalarAtomics) {
      OpBuilder at(op);
      guardOp(op,
              arith::CmpIOp::create(at, op->getLoc(), arith::CmpIPredicate::eq,
                                    k.tid, indexConst(at, op->getLoc(), 0)));
    }
    if (failed(checkClusters(func, k)))
      return failure();
    RewritePatternSet patterns(func.getContext());
    populateTileToGPUPatterns(patterns, k);
    walkAndApplyPatterns(func, std::move(patterns));
    if (k.tileLoop)
      k.tid.replaceUsesWithIf(k.tileTid, [&](OpOperand &use) {
        return k.tileLoop->isProperAncestor(use.getOwner());
      });
    WalkResult left = func.walk([](Operation *op) {
      if (op->getDialect() == op->getContext()->getLoadedDialect("tile") &&
          !llvm::isa<tile::AllocOp>(op)) {
        op->emitError("no GPU lowering for this op");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return failure();
    target->legalize(func);
    for (auto &[value, staging] : k.storeStaging)
      value.getDefiningOp()->erase();
    for (auto &[value, frag] : k.fragments) {
      Operation *alloc = value.getDefiningOp();
      if (!value.use_empty())
        return alloc->emitError("fragment used by an op the GPU lowering "
                                "does not handle");
      alloc->erase();
    }

    int64_t bytes = k.scratchBytes
                        ? llvm::alignTo(k.sharedTileBytes, 128) + k.scratchBytes
                        : k.sharedTileBytes;
    func->setAttr(tile::attr::kSharedBytes, b.getI64IntegerAttr(bytes));
    if (bytes > maxSharedBytes)
      return func.emitError()
             << "kernel '" << func.getName().drop_front(4) << "' needs "
             << bytes
             << " bytes of shared memory (tiles and reduction scratch); "
             << target->target.getArch() << " allows " << maxSharedBytes
             << " per block: use smaller shared tiles or fragments";
    return success();
  }
};

} // namespace
