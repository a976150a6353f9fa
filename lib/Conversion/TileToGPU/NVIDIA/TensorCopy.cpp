//===- TensorCopy.cpp - TMA copies and mbarriers on sm_90+ ----------------===//
#include "TensorCopy.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

/// The kernel argument (a tensor's data pointer) `memref` was rebuilt from
/// by tile-gpu-kernel-abi, or null.
static BlockArgument tensorArgument(Value memref) {
  auto cast = memref.getDefiningOp<memref::ReinterpretCastOp>();
  if (!cast || cast->hasAttr(tile::attr::kView))
    return nullptr;
  auto arg = llvm::dyn_cast<BlockArgument>(cast.getSource());
  if (!arg || !llvm::isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
    return nullptr;
  return arg;
}

bool nvidia::tensorCopySuits(tile::CopyOp copy, int64_t swizzle) {
  auto srcType = memrefType(copy.getSource());
  auto dstType = memrefType(copy.getDest());
  if (!swizzle || !tensorArgument(copy.getSource()) ||
      !copy.getDestIndices().empty() ||
      copy.getSourceIndices().size() != size_t(srcType.getRank()) ||
      srcType.getRank() < 2 || srcType.getRank() > 5 ||
      dstType.getRank() != 2 ||
      srcType.getElementType() != dstType.getElementType())
    return false;
  int64_t elemBytes = dstType.getElementTypeBitWidth() / 8;
  int64_t rows = dstType.getShape()[0], cols = dstType.getShape()[1];
  // Boxes have at most 256 elements a side; a box row is one atom.
  return rows <= 256 && (cols * elemBytes) % swizzle == 0 &&
         swizzle / elemBytes <= 256;
}

static Value sharedPointer(OpBuilder &b, Location loc, Value address) {
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), i64);
}

/// The address in the shared::cluster window of `local` (a shared pointer)
/// in cluster block `rank` (an index).
static Value clusterAddress(OpBuilder &b, Location loc, Value local,
                            Value rank) {
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value rank32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), rank);
  return NVVM::MapaOp::create(b, loc, clusterPtr, local, rank32);
}

static Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

void nvidia::initBarriers(OpBuilder &b, Location loc, ValueRange barriers,
                          int64_t arrivals) {
  for (Value barrier : barriers)
    NVVM::MBarrierInitOp::create(b, loc, sharedPointer(b, loc, barrier),
                                 i32Const(b, loc, arrivals),
                                 /*predicate=*/Value());
  // Makes the initialization visible to the tensor-copy unit.
  NVVM::FenceMbarrierInitOp::create(b, loc);
}

void nvidia::expectBytes(OpBuilder &b, Location loc, Value barrier,
                         int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, /*res=*/Type(), sharedPointer(b, loc, barrier),
      i32Const(b, loc, bytes), NVVM::MemScopeKind::CTA, /*relaxed=*/false,
      /*predicate=*/Value());
}

void nvidia::arriveBarrier(OpBuilder &b, Location loc, Value barrier) {
  NVVM::MBarrierArriveOp::create(b, loc, /*res=*/Type(),
                                 sharedPointer(b, loc, barrier),
                                 /*count=*/Value());
}

void nvidia::arriveBarrierPerWarp(OpBuilder &b, Location loc, Value barrier,
                                  Value tid, int64_t warpSize,
                                  ValueRange clusterRanks) {
  Value allLanes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
  NVVM::SyncWarpOp::create(b, loc, allLanes);
  Value lanes = gpu_lowering::indexConst(b, loc, warpSize);
  Value lane = arith::RemUIOp::create(b, loc, tid, lanes);
  gpu_lowering::inThread(b, loc, lane, 0, [&](OpBuilder &b) {
    if (clusterRanks.empty())
      return arriveBarrier(b, loc, barrier);
    Value local = sharedPointer(b, loc, barrier);
    for (Value rank : clusterRanks) {
      Value remote = clusterAddress(b, loc, local, rank);
      // The warp's reads of the stage were by its MMAs, which it has
      // waited for: the arrive needs no cluster-scope release, whose
      // MEMBAR.ALL.GPU per arrive cost 35% of the GEMM's speed on the H200.
      NVVM::MBarrierArriveOp::create(b, loc, /*res=*/Type(), remote,
                                     /*count=*/Value(), NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
    }
  });
}

GPUTargetInfo::ClusterPosition nvidia::clusterPosition(OpBuilder &b,
                                                       Location loc) {
  auto asIndex = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  };
  Type i32 = b.getI32Type();
  Value id = NVVM::ClusterIdXOp::create(b, loc, i32);
  Value count = NVVM::ClusterDimXOp::create(b, loc, i32);
  Value rank = NVVM::ClusterId::create(b, loc, i32);
  Value size = NVVM::ClusterDim::create(b, loc, i32);
  return {asIndex(id), asIndex(count), asIndex(rank), asIndex(size)};
}

void nvidia::clusterSync(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/nullptr);
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/nullptr);
}

Value nvidia::loadClusterShared(OpBuilder &b, Location loc, Type type,
                                Value address, Value rank) {
  Value remote = clusterAddress(b, loc, sharedPointer(b, loc, address), rank);
  return LLVM::LoadOp::create(b, loc, type, remote);
}

// 64K 32-bit registers per SM; counts are multiples of 8 in [24, 256).
// setmaxnreg.inc waits for registers the block's other warps gave back
// (dec): the counts must fit what the block was launched with (168 per
// thread for 384 threads). 32 for the producer and 240 for two consumer
// warpgroups do not (65536 > 168 * 384) and hung on an H100; 24 / 240
// would, but the persistent GEMM's producer spills at 24.
static constexpr int64_t kRegisterFile = 65536, kProducerRegisters = 40;

int64_t nvidia::consumerRegisters(int64_t consumerThreads,
                                  int64_t producerThreads) {
  return std::min<int64_t>(
      240, (kRegisterFile - kProducerRegisters * producerThreads) /
               consumerThreads / 8 * 8);
}

void nvidia::setRoleRegisters(OpBuilder &b, Location loc, bool producer,
                              int64_t consumerThreads,
                              int64_t producerThreads) {
  NVVM::SetMaxRegisterOp::create(
      b, loc,
      b.getI32IntegerAttr(
          producer ? kProducerRegisters
                   : consumerRegisters(consumerThreads, producerThreads)),
      NVVM::SetMaxRegisterActionAttr::get(
          b.getContext(), producer ? NVVM::SetMaxRegisterAction::decrease
                                   : NVVM::SetMaxRegisterAction::increase));
}

void nvidia::waitBarrier(OpBuilder &b, Location loc, Value barrier,
                         Value parity) {
  Value phase = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), parity);
  // The suspend-time hint (ns) of each try; the op loops until done.
  NVVM::MBarrierTryWaitParityOp::create(b, loc, sharedPointer(b, loc, barrier),
                                        phase, i32Const(b, loc, 10000000));
}

/// The kernel parameter holding the tensor map of `arg`'s tensor copied in
/// boxes of `box` (outermost first) into tiles swizzled by `swizzle` bytes
/// (`store`: out of such tiles); added (with its tile.tensor_maps entry)
/// when the kernel has none yet.
static Value tensorMap(gpu::GPUFuncOp func, BlockArgument arg,
                       ArrayRef<int64_t> box, int64_t swizzle, bool store) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  SmallVector<Attribute> maps;
  if (auto existing = func->getAttrOfType<ArrayAttr>(tile::attr::kTensorMaps))
    maps.assign(existing.begin(), existing.end());
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("param", b.getI64IntegerAttr(arg.getArgNumber())),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle))};
  // A store map never equals a load map of the same tensor (staging
  // requires that the kernel touch the stored tensor nowhere else).
  if (store)
    fields.push_back(b.getNamedAttr("store", b.getUnitAttr()));
  auto entry = b.getDictionaryAttr(fields);
  unsigned first = func.getNumArguments() - maps.size();
  for (auto [i, map] : llvm::enumerate(maps))
    if (map == entry)
      return func.getArgument(first + i);
  // Appending an argument to a gpu.func that has a body cannot fail.
  (void)func.insertArgument(func.getNumArguments(),
                            LLVM::LLVMPointerType::get(ctx),
                            b.getDictionaryAttr({}), func.getLoc());
  maps.push_back(entry);
  func->setAttr(tile::attr::kTensorMaps, b.getArrayAttr(maps));
  return func.getArgument(func.getNumArguments() - 1);
}

/// The boxes of rows [firstRow, firstRow + rows) of the swizzled shared
/// `tile` (its atoms stacked along its rows) at `origin` in the tensor of
/// kernel argument `tensor` (the tile over its two innermost dimensions):
/// `visit` gets the tensor map for such boxes and, per swizzle atom, the
/// atom's shared address and the box's coordinates, innermost first.
/// `readOnly`: the boxes are read from the tile (stores).
static void
forEachAtomBox(KernelLowering &k, OpBuilder &b, Location loc,
               BlockArgument tensor, ValueRange origin, Value tile,
               Value firstRow, int64_t rows, bool readOnly,
               llvm::function_ref<void(Value, Value, ArrayRef<Value>)> visit) {
  auto tileType = memrefType(tile);
  int64_t rank = origin.size();
  int64_t elemBytes = tileType.getElementTypeBitWidth() / 8;
  int64_t tileRows = tileType.getShape()[0], cols = tileType.getShape()[1];
  int64_t swizzle = k.swizzleOf(tile);
  int64_t atomCols = swizzle / elemBytes;
  SmallVector<int64_t> box(rank, 1);
  box[rank - 2] = rows;
  box[rank - 1] = atomCols;
  Value map = tensorMap(k.func, tensor, box, swizzle, /*store=*/readOnly);

  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  Value tileStart = viewByteAddress(b, loc, tile, elemBytes, readOnly);
  Value rowBytes = arith::MulIOp::create(b, loc, firstRow, c(swizzle));
  Value start = arith::AddIOp::create(b, loc, tileStart, rowBytes);
  auto toI32 = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  };
  SmallVector<Value> outer;
  Value rowIndex = arith::AddIOp::create(b, loc, origin[rank - 2], firstRow);
  outer.push_back(toI32(rowIndex));
  for (int64_t d = rank - 3; d >= 0; --d)
    outer.push_back(toI32(origin[d]));
  for (int64_t atom = 0; atom < cols / atomCols; ++atom) {
    Value address =
        arith::AddIOp::create(b, loc, start, c(atom * tileRows * swizzle));
    SmallVector<Value> coords = {toI32(
        arith::AddIOp::create(b, loc, origin[rank - 1], c(atom * atomCols)))};
    coords.append(outer);
    visit(map, address, coords);
  }
}

/// The TMA copies of rows [firstRow, firstRow + rows) of `copy`'s window
/// at `srcIndex` into `dst`; to the blocks of `multicastMask` when given.
static void copyRows(KernelLowering &k, OpBuilder &b, Location loc,
                     tile::CopyOp copy, ValueRange srcIndex, Value dst,
                     Value barrier, Value firstRow, int64_t rows,
                     Value multicastMask) {
  Value mbar = sharedPointer(b, loc, barrier);
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  forEachAtomBox(
      k, b, loc, tensorArgument(copy.getSource()), srcIndex, dst, firstRow,
      rows, /*readOnly=*/false,
      [&](Value map, Value address, ArrayRef<Value> coords) {
        Value to = LLVM::AddrSpaceCastOp::create(
            b, loc, clusterPtr, sharedPointer(b, loc, address));
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, to, map, coords, mbar, /*im2colOffsets=*/ValueRange(),
            multicastMask, /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
      });
}

bool nvidia::tensorStoreSuits(tile::CopyOp copy, int64_t swizzle) {
  auto dstType = memrefType(copy.getDest());
  auto srcType = memrefType(copy.getSource());
  int64_t rank = dstType.getRank();
  if (!swizzle || !tensorArgument(copy.getDest()) ||
      !copy.getSourceIndices().empty() || !copy.getGathers().empty() ||
      copy.getDestIndices().size() != size_t(rank) || rank < 2 || rank > 5 ||
      srcType.getRank() != 2 || !dstType.getElementType().isIntOrFloat() ||
      dstType.getElementTypeBitWidth() % 8 != 0)
    return false;
  // The tile covers the two innermost dimensions.
  SmallVector<int64_t> dims = copy.getWindowTileDims();
  for (int64_t d = 0; d < rank; ++d)
    if (dims[d] != (d < rank - 2 ? -1 : d - (rank - 2)))
      return false;
  int64_t elemBytes = dstType.getElementTypeBitWidth() / 8;
  int64_t rows = srcType.getShape()[0], cols = srcType.getShape()[1];
  return rows <= 256 && (cols * elemBytes) % swizzle == 0 &&
         swizzle / elemBytes <= 256;
}

void nvidia::emitTensorStore(KernelLowering &k, OpBuilder &b, Location loc,
                             Value tile, Value dest, ValueRange destIndex) {
  int64_t rows = memrefType(tile).getShape()[0];
  forEachAtomBox(k, b, loc, tensorArgument(dest), destIndex, tile,
                 indexConst(b, loc, 0), rows, /*readOnly=*/true,
                 [&](Value map, Value address, ArrayRef<Value> coords) {
                   NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                       b, loc, map, sharedPointer(b, loc, address), coords,
                       /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
                       /*predicate=*/Value());
                 });
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
}

void nvidia::waitTensorStores(OpBuilder &b, Location loc, bool readsOnly,
                              int64_t pending) {
  NVVM::CpAsyncBulkWaitGroupOp::create(
      b, loc, pending, readsOnly ? b.getUnitAttr() : UnitAttr());
}

void nvidia::emitTensorCopy(KernelLowering &k, OpBuilder &b, Location loc,
                            tile::CopyOp copy, ValueRange srcIndex, Value dst,
                            Value barrier,
                            const GPUTargetInfo::ClusterPosition *shared) {
  int64_t rows = memrefType(dst).getShape()[0];
  Value zero = indexConst(b, loc, 0);
  // A swizzle pattern repeats every 8 rows: halves of whole periods land
  // where the whole tile's rows would.
  if (!shared || rows % 16 != 0)
    return copyRows(k, b, loc, copy, srcIndex, dst, barrier, zero, rows,
                    /*multicastMask=*/Value());
  Value pair = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     shared->size, indexConst(b, loc, 2));
  auto ifPair = scf::IfOp::create(b, loc, pair, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifPair.thenBlock()->getTerminator());
  Value half = indexConst(b, loc, rows / 2);
  Value firstRow = arith::MulIOp::create(b, loc, shared->rank, half);
  Value bothBlocks = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3);
  copyRows(k, b, loc, copy, srcIndex, dst, barrier, firstRow, rows / 2,
           bothBlocks);
  b.setInsertionPoint(ifPair.elseBlock()->getTerminator());
  copyRows(k, b, loc, copy, srcIndex, dst, barrier, zero, rows,
           /*multicastMask=*/Value());
}
