//===- KernelABI.cpp - tile-gpu-kernel-abi: kernels as gpu.func -----------===//
//
// The launch ABI of every GPU target (docs/abi.md): tensors as a bare data
// pointer plus i64 sizes and strides, scalars by value, in a gpu.func named
// tlc_NAME inside gpu.module @tlc_kernels. The tile ops stay; the other
// GPU passes lower them.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tlc {
#define GEN_PASS_DEF_TILEGPUKERNELABI
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

#include <map>

using namespace mlir;
using namespace tlc;

namespace {

struct TileGPUKernelABI
    : public tlc::impl::TileGPUKernelABIBase<TileGPUKernelABI> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(tile::attr::kKernel))
        kernels.push_back(func);
    if (kernels.empty())
      return;
    tile::TargetAttr target = tile::getTarget(module);
    if (!target) {
      module.emitError() << "tile-gpu-kernel-abi needs the target "
                            "description (#tile.target) on the module";
      return signalPassFailure();
    }
    for (func::FuncOp kernel : kernels) {
      auto threads = kernel->getAttrOfType<IntegerAttr>(tile::attr::kThreads);
      if (!threads || threads.getInt() < 1 ||
          threads.getInt() > target.getMaxThreads()) {
        kernel.emitError() << "kernel needs " << tile::attr::kThreads
                           << " between 1 and " << target.getMaxThreads();
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
      outline(kernel, gpuModule);
      kernel.erase();
    }
  }

  /// For each (argument, axis) that uses a symbolic dimension (tile.dims),
  /// the dimension's first use.
  static std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
  firstUsesOfDims(func::FuncOp kernel) {
    std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> first;
    auto dims = kernel->getAttrOfType<DictionaryAttr>(tile::attr::kDims);
    if (!dims)
      return first;
    for (NamedAttribute dim : dims) {
      auto uses = llvm::dyn_cast<ArrayAttr>(dim.getValue());
      if (!uses)
        continue;
      SmallVector<std::pair<int64_t, int64_t>> all;
      for (Attribute use : uses)
        if (auto pair = llvm::dyn_cast<DenseI64ArrayAttr>(use);
            pair && pair.size() == 2)
          all.push_back({pair[0], pair[1]});
      if (all.empty())
        continue;
      std::pair<int64_t, int64_t> earliest = *llvm::min_element(all);
      for (const auto &use : all)
        first[use] = earliest;
    }
    return first;
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
        gpu::GPUFuncOp::create(b, loc, tile::kernelEntryName(kernel.getName()),
                               FunctionType::get(ctx, params, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    int64_t threads =
        kernel->getAttrOfType<IntegerAttr>(tile::attr::kThreads).getInt();
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    for (StringRef name : {tile::attr::kThreads, tile::attr::kGridRank,
                           tile::attr::kClusterBlocks})
      if (Attribute a = kernel->getAttr(name))
        func->setAttr(name, a);

    // Rebuild each argument from its ABI pieces.
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    SmallVector<Value> args;
    unsigned p = 0;
    // The stub checks that every use of a symbolic dimension has the same
    // extent: all of them read the first one's parameter (the kernel keeps
    // one value per dimension; shader targets pass fewer words).
    std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
        firstUse = firstUsesOfDims(kernel);
    std::map<std::pair<int64_t, int64_t>, Value> sizeParams;
    for (auto [argIndex, t] : llvm::enumerate(kernel.getArgumentTypes())) {
      if (auto m = llvm::dyn_cast<MemRefType>(t)) {
        Value data = entry.getArgument(p++);
        SmallVector<OpFoldResult> sizes, strides;
        for (int64_t d = 0; d < m.getRank(); ++d) {
          std::pair<int64_t, int64_t> use{static_cast<int64_t>(argIndex), d};
          Value param = entry.getArgument(p++);
          sizeParams[use] = param;
          auto first = firstUse.find(use);
          if (first != firstUse.end() && sizeParams.count(first->second))
            param = sizeParams[first->second];
          sizes.push_back(index(b, loc, param, m.getShape()[d]));
        }
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
    // Blocks of a 2-D grid that multiply tiles run in groups of rows
    // (rasterization for L2 reuse; any order of independent blocks is
    // valid). Not the blocks of clusters: consecutive blocks along x are a
    // cluster's members.
    SmallVector<Value> grouped;
    auto rank = func->getAttrOfType<IntegerAttr>(tile::attr::kGridRank);
    auto cluster = func->getAttrOfType<IntegerAttr>(tile::attr::kClusterBlocks);
    bool hasGemm = false;
    func.walk([&](tile::GemmOp) { hasGemm = true; });
    if (rank && rank.getInt() == 2 && hasGemm &&
        !(cluster && cluster.getInt() > 1)) {
      b.setInsertionPointToStart(&entry);
      grouped = groupedBlockIds(b, loc);
    }
    func.walk([&](tile::BlockIdOp op) {
      OpBuilder ob(op);
      static const gpu::Dimension dims[] = {
          gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
      op.replaceAllUsesWith(
          op.getDim() < grouped.size()
              ? grouped[op.getDim()]
              : gpu::BlockIdOp::create(ob, op.getLoc(), dims[op.getDim()])
                    .getResult());
      op.erase();
    });
    return func;
  }

  /// Rows of blocks (y) taken kGroupRows at a time: the hardware's linear
  /// block order walks down a group's rows, then across its columns, so a
  /// wave of blocks shares operand tiles in L2. A bijection of the grid.
  /// When the grid's y extent is even, linear blocks 2i and 2i + 1 are rows
  /// by, by + 1 of one column (clustered persistent kernels rely on it:
  /// tile.cluster_rows); the two results carry tile.raster_axis.
  static constexpr int64_t kGroupRows = 8;
  static SmallVector<Value> groupedBlockIds(OpBuilder &b, Location loc) {
    // One op per statement: C++ leaves the order of argument evaluation
    // open, and the IR must not depend on the host compiler.
    Value groupRows = arith::ConstantIndexOp::create(b, loc, kGroupRows);
    Value gx = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value gy = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
    Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value rowStart = arith::MulIOp::create(b, loc, blockY, gx);
    Value linear = arith::AddIOp::create(b, loc, rowStart, blockX);
    Value perGroup = arith::MulIOp::create(b, loc, gx, groupRows);
    Value group = arith::DivUIOp::create(b, loc, linear, perGroup);
    Value firstRow = arith::MulIOp::create(b, loc, group, groupRows);
    Value rowsLeft = arith::SubIOp::create(b, loc, gy, firstRow);
    Value rows = arith::MinUIOp::create(b, loc, rowsLeft, groupRows);
    Value inGroup = arith::RemUIOp::create(b, loc, linear, perGroup);
    Value rowInGroup = arith::RemUIOp::create(b, loc, inGroup, rows);
    Value by = arith::AddIOp::create(b, loc, firstRow, rowInGroup);
    Value bx = arith::DivUIOp::create(b, loc, inGroup, rows);
    by.getDefiningOp()->setAttr(tile::attr::kRasterAxis,
                                b.getI64IntegerAttr(1));
    bx.getDefiningOp()->setAttr(tile::attr::kRasterAxis,
                                b.getI64IntegerAttr(0));
    return {bx, by};
  }

  /// A static size or stride, or the i64 ABI value as an index.
  static OpFoldResult index(OpBuilder &b, Location loc, Value v,
                            int64_t staticValue) {
    if (!ShapedType::isDynamic(staticValue))
      return b.getIndexAttr(staticValue);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
  }
};

} // namespace
