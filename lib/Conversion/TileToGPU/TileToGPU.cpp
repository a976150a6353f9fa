//===- TileToGPU.cpp - Tile kernels to gpu.func kernels -------------------===//
//
// The kernel side of convert-tile-to-gpu: the launch ABI, where each tile
// lives, the order ops are lowered in and the barriers between them. The
// op lowerings are in Ops.cpp.
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "tlc/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

bool isWorkgroup(Type t) {
  auto type = llvm::dyn_cast<MemRefType>(t);
  if (!type)
    return false;
  auto space =
      llvm::dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Whether lowering `op` reads or writes shared memory.
bool touchesShared(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isWorkgroup(v.getType()))
        found = true;
  });
  return found;
}

int64_t elementBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

/// The shape of a shared tile's storage: `stages` buffers (if not 0) and,
/// when `padded`, rows that are a multiple of 32 bytes get 16 more bytes so
/// that the 8 rows an ldmatrix reads (or a column walk touches) fall in
/// different banks.
SmallVector<int64_t> sharedTileShape(MemRefType type, int64_t stages,
                                     bool padded) {
  SmallVector<int64_t> shape(type.getShape());
  int64_t bytes = elementBytes(type.getElementType());
  if (padded && type.getRank() >= 2 && (shape.back() * bytes) % 32 == 0)
    shape.back() += 16 / bytes;
  if (stages)
    shape.insert(shape.begin(), stages);
  return shape;
}

int64_t sharedTileBytes(MemRefType type, int64_t stages) {
  return ShapedType::getNumElements(sharedTileShape(type, stages, true)) *
         elementBytes(type.getElementType());
}

/// Where each shared tile lives in the block's shared memory.
struct SharedPlan {
  llvm::DenseMap<Value, int64_t> offsets;
  int64_t bytes = 0;
};

/// Tiles whose uses do not overlap share memory: each tile is live from the
/// first to the last top-level op of the kernel that uses it (a loop is one
/// op, so everything a loop touches is live through the whole loop). The
/// largest tiles are placed first, each at the lowest 128-byte aligned
/// offset that no live-overlapping tile occupies. The barrier after a
/// tile's last use (see lowerBody) orders it before the next tile's writes.
SharedPlan planSharedMemory(gpu::GPUFuncOp func,
                            const llvm::DenseMap<Value, int64_t> &stagesOf) {
  Block &entry = func.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : entry)
    position[&op] = index++;
  struct Tile {
    Value value;
    int64_t bytes, first, last, offset = 0;
  };
  SmallVector<Tile> tiles;
  func.walk([&](tile::AllocOp alloc) {
    if (tile::getScope(alloc.getType()) != tile::MemScope::shared)
      return;
    Tile t{alloc.getResult(),
           sharedTileBytes(alloc.getType(), stagesOf.lookup(alloc.getResult())),
           index, -1};
    for (Operation *user : alloc.getResult().getUsers()) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      int64_t at = top ? position.lookup(top) : 0;
      t.first = std::min(t.first, at);
      t.last = std::max(t.last, at);
    }
    tiles.push_back(t);
  });
  llvm::stable_sort(
      tiles, [](const Tile &a, const Tile &b) { return a.bytes > b.bytes; });
  SharedPlan plan;
  for (size_t i = 0; i < tiles.size(); ++i) {
    Tile &t = tiles[i];
    // Placed tiles that are live at the same time, by offset.
    SmallVector<const Tile *> live;
    for (size_t j = 0; j < i; ++j)
      if (tiles[j].first <= t.last && t.first <= tiles[j].last)
        live.push_back(&tiles[j]);
    llvm::sort(live, [](const Tile *a, const Tile *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (const Tile *other : live)
      if (offset + t.bytes > other->offset &&
          offset < other->offset + other->bytes)
        offset = llvm::alignTo(other->offset + other->bytes, 128);
    t.offset = offset;
    plan.offsets[t.value] = offset;
    plan.bytes = std::max(plan.bytes, offset + t.bytes);
  }
  return plan;
}

/// What an op (with everything nested in it) does to shared memory.
struct SharedAccess {
  bool read = false, write = false, barrier = false;
  SharedAccess &operator|=(const SharedAccess &o) {
    read |= o.read;
    write |= o.write;
    barrier |= o.barrier;
    return *this;
  }
};

SharedAccess sharedAccessOf(Operation *op) {
  SharedAccess a;
  op->walk([&](Operation *inner) {
    if (inner != op && llvm::isa<gpu::BarrierOp>(inner))
      a.barrier = true;
    if (llvm::none_of(inner->getOperands(),
                      [](Value v) { return isWorkgroup(v.getType()); }))
      return;
    auto iface = llvm::dyn_cast<MemoryEffectOpInterface>(inner);
    if (!iface) { // unknown: assume the worst
      a.read = a.write = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects) {
      if (Value v = effect.getValue(); v && !isWorkgroup(v.getType()))
        continue;
      if (llvm::isa<MemoryEffects::Read>(effect.getEffect()))
        a.read = true;
      else if (llvm::isa<MemoryEffects::Write>(effect.getEffect()))
        a.write = true;
    }
  });
  return a;
}

/// Drops barriers that order nothing. A barrier between the shared-memory
/// accesses since the last kept barrier and those up to the next barrier is
/// needed only for a write before any access or a read before a write; the
/// block's start and end count as any access, except that a pipelined
/// loop's body ends where the next iteration's leading barrier follows.
void removeRedundantBarriers(Operation *root) {
  SmallVector<Block *> blocks;
  root->walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    auto loop = llvm::dyn_cast_or_null<scf::ForOp>(block->getParentOp());
    bool pipelined = loop && loop->hasAttr(tile::attr::kPipelined);
    SmallVector<Operation *> ops;
    SmallVector<SharedAccess> access;
    for (Operation &op : *block) {
      ops.push_back(&op);
      access.push_back(llvm::isa<gpu::BarrierOp>(op) ? SharedAccess()
                                                     : sharedAccessOf(&op));
    }
    SharedAccess before{true, true, false}; // since the last kept barrier
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!llvm::isa<gpu::BarrierOp>(ops[i])) {
        before |= access[i];
        if (access[i].barrier) // synchronizes inside: a fresh start after it
          before = access[i];
        continue;
      }
      SharedAccess after;
      bool reachedEnd = true;
      for (size_t j = i + 1; j < ops.size(); ++j) {
        if (llvm::isa<gpu::BarrierOp>(ops[j])) {
          reachedEnd = false;
          break;
        }
        after |= access[j];
        if (access[j].barrier) {
          reachedEnd = false;
          break;
        }
      }
      if (reachedEnd && !pipelined)
        after = SharedAccess{true, true, false};
      bool needed = (before.write && (after.read || after.write)) ||
                    (before.read && after.write);
      if (needed) {
        before = SharedAccess();
        continue;
      }
      ops[i]->erase();
    }
  }
}

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
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(tile::attr::kKernel))
        kernels.push_back(func);
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
    for (func::FuncOp kernel : kernels) {
      auto threads = kernel->getAttrOfType<IntegerAttr>(tile::attr::kThreads);
      if (!threads || threads.getInt() < 1 ||
          threads.getInt() > description.getMaxThreads()) {
        kernel.emitError() << "kernel needs " << tile::attr::kThreads
                           << " between 1 and " << description.getMaxThreads();
        return signalPassFailure();
      }
    }
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), "tlc_kernels");
    for (func::FuncOp kernel : kernels) {
      gpu::GPUFuncOp func = outline(kernel, gpuModule);
      if (failed(lowerBody(func, kernel)))
        return signalPassFailure();
      kernel.erase();
    }
  }

  /// A gpu.func with the launch ABI, holding the kernel's body.
  gpu::GPUFuncOp outline(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    Type i64 = IntegerType::get(ctx, 64);
    SmallVector<Type> params;
    for (Type t : kernel.getArgumentTypes()) {
      if (auto m = llvm::dyn_cast<MemRefType>(t)) {
        // A static shape keeps the bare-pointer calling convention happy;
        // the real extent comes from the reinterpret_cast below.
        params.push_back(MemRefType::get({1}, m.getElementType()));
        params.append(2 * m.getRank(), i64);
      } else if (t.isInteger(1)) {
        params.push_back(IntegerType::get(ctx, 8));
      } else if (t.isIndex()) {
        params.push_back(i64);
      } else {
        params.push_back(t);
      }
    }
    OpBuilder b(gpuModule.getBodyRegion());
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto func =
        gpu::GPUFuncOp::create(b, loc, ("tlc_" + kernel.getName()).str(),
                               FunctionType::get(ctx, params, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    int64_t threads =
        kernel->getAttrOfType<IntegerAttr>(tile::attr::kThreads).getInt();
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    for (StringRef name : {tile::attr::kThreads, tile::attr::kGridRank})
      if (Attribute a = kernel->getAttr(name))
        func->setAttr(name, a);

    // Rebuild each argument from its ABI pieces.
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    SmallVector<Value> args;
    unsigned p = 0;
    for (Type t : kernel.getArgumentTypes()) {
      if (auto m = llvm::dyn_cast<MemRefType>(t)) {
        Value data = entry.getArgument(p++);
        SmallVector<OpFoldResult> sizes, strides;
        for (int64_t d = 0; d < m.getRank(); ++d)
          sizes.push_back(
              index(b, loc, entry.getArgument(p++), m.getShape()[d]));
        auto [staticStrides, offset] = m.getStridesAndOffset();
        for (int64_t d = 0; d < m.getRank(); ++d)
          strides.push_back(
              index(b, loc, entry.getArgument(p++), staticStrides[d]));
        OpFoldResult zero =
            ShapedType::isDynamic(offset)
                ? OpFoldResult(
                      arith::ConstantIndexOp::create(b, loc, 0).getResult())
                : OpFoldResult(b.getIndexAttr(offset));
        args.push_back(memref::ReinterpretCastOp::create(b, loc, m, data, zero,
                                                         sizes, strides));
      } else if (t.isInteger(1)) {
        Value byte = entry.getArgument(p++);
        args.push_back(arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne, byte,
            arith::ConstantIntOp::create(b, loc, byte.getType(), 0)));
      } else if (t.isIndex()) {
        args.push_back(
            arith::IndexCastOp::create(b, loc, t, entry.getArgument(p++)));
      } else {
        args.push_back(entry.getArgument(p++));
      }
    }
    Block &body = kernel.getBody().front();
    for (auto [old, now] : llvm::zip(body.getArguments(), args))
      old.replaceAllUsesWith(now);
    entry.getOperations().splice(entry.end(), body.getOperations());
    Operation *ret = entry.getTerminator();
    b.setInsertionPoint(ret);
    gpu::ReturnOp::create(b, ret->getLoc());
    ret->erase();
    func.walk([&](tile::BlockIdOp op) {
      OpBuilder ob(op);
      static const gpu::Dimension dims[] = {
          gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
      op.replaceAllUsesWith(
          gpu::BlockIdOp::create(ob, op.getLoc(), dims[op.getDim()])
              .getResult());
      op.erase();
    });
    return func;
  }

  /// A static size or stride, or the i64 ABI value as an index.
  static OpFoldResult index(OpBuilder &b, Location loc, Value v,
                            int64_t staticValue) {
    if (!ShapedType::isDynamic(staticValue))
      return b.getIndexAttr(staticValue);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
  }

  LogicalResult lowerBody(gpu::GPUFuncOp func, func::FuncOp kernel) {
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

    // Pipelined loops multi-buffer the shared tiles they copy into.
    SmallVector<PipelinedLoop> pipelined;
    if (target->target.getAsyncCopy())
      pipelined = findPipelinedLoops(func);
    llvm::DenseMap<Value, int64_t> stagesOf;
    SharedPlan plan;
    auto footprint = [&]() {
      stagesOf.clear();
      for (const PipelinedLoop &p : pipelined)
        for (tile::CopyOp copy : p.producers)
          stagesOf[copy.getDest()] = p.stages;
      plan = planSharedMemory(func, stagesOf);
      return plan.bytes;
    };
    // Fewer stages (at least 2), then no pipelining, while the buffers do
    // not fit.
    while (footprint() > maxSharedBytes && !pipelined.empty()) {
      auto deepest = llvm::max_element(
          pipelined, [](const PipelinedLoop &a, const PipelinedLoop &b) {
            return a.stages < b.stages;
          });
      if (deepest->stages > 2)
        --deepest->stages;
      else
        pipelined.erase(deepest);
    }
    llvm::DenseMap<Value, Value> buffers;

    // Storage for every tile, created at the top of the kernel.
    SmallVector<tile::AllocOp> allocs;
    func.walk([&](tile::AllocOp op) { allocs.push_back(op); });
    for (tile::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      Location aloc = alloc.getLoc();
      switch (*tile::getScope(type)) {
      case tile::MemScope::shared: {
        int64_t stages = stagesOf.lookup(alloc.getResult());
        SmallVector<int64_t> shape = sharedTileShape(type, stages, false);
        SmallVector<int64_t> padded = sharedTileShape(type, stages, true);
        int64_t offset = plan.offsets.lookup(alloc.getResult());
        k.sharedTileBytes = plan.bytes;
        auto viewType = MemRefType::get(padded, type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
        Value view = memref::ViewOp::create(
            b, aloc, viewType, k.sharedBase,
            arith::ConstantIndexOp::create(b, aloc, offset), ValueRange{});
        if (padded != shape) {
          SmallVector<int64_t> offsets(shape.size(), 0),
              strides(shape.size(), 1);
          view =
              memref::SubViewOp::create(b, aloc, view, offsets, shape, strides);
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

    for (const PipelinedLoop &p : pipelined)
      pipelineLoop(p, buffers, *target);
    for (auto &[value, view] : buffers)
      value.getDefiningOp()->erase();

    // Element accesses outside tile ops that touch shared memory are
    // separated from what follows by a barrier like tile ops are.
    SmallVector<Operation *> work;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (llvm::isa<tile::ParallelOp>(op)) {
        work.push_back(op);
        return WalkResult::skip();
      }
      if (llvm::isa<tile::FillOp, tile::CopyOp, tile::ReduceOp, tile::GemmOp,
                    tile::AtomicAddOp>(op))
        work.push_back(op);
      else if (llvm::isa<memref::LoadOp, memref::StoreOp>(op) &&
               touchesShared(op))
        work.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : work) {
      // Asynchronous copies are waited for and synchronized by the pipeline.
      if (touchesShared(op) && !op->hasAttr(tile::attr::kAsync)) {
        OpBuilder after(op->getContext());
        after.setInsertionPointAfter(op);
        gpu::BarrierOp::create(after, op->getLoc());
      }
      if (auto o = llvm::dyn_cast<tile::FillOp>(op))
        k.lowerFill(o);
      else if (auto o = llvm::dyn_cast<tile::CopyOp>(op))
        k.lowerCopy(o);
      else if (auto o = llvm::dyn_cast<tile::ParallelOp>(op))
        k.lowerParallel(o);
      else if (auto o = llvm::dyn_cast<tile::ReduceOp>(op))
        k.lowerReduce(o);
      else if (auto o = llvm::dyn_cast<tile::GemmOp>(op))
        k.lowerGemm(o);
      else if (auto o = llvm::dyn_cast<tile::AtomicAddOp>(op))
        k.lowerAtomicAdd(o);
    }
    removeRedundantBarriers(func);
    target->legalize(func);
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
      return kernel.emitError()
             << "kernel '" << kernel.getName() << "' needs " << bytes
             << " bytes of shared memory (tiles and reduction scratch); "
             << target->target.getArch() << " allows " << maxSharedBytes
             << " per block: use smaller shared tiles or fragments";
    return success();
  }
};

} // namespace
