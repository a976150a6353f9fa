//===- ClusterReduce.cpp - tile.cluster_reduce on the CPU -----------------===//
//
// The CPU stub runs the blocks of a cluster on a thread each
// (tlc::runtime::runCluster); the runtime's two calls publish a block's
// tile and wait for the cluster. The combination is generated here, in
// block order, like the GPU lowering's, so every block gets the same bits.
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace tlc;

/// The declaration of runtime function `name` in the module of `op`.
static func::FuncOp runtimeFunction(Operation *op, StringRef name,
                                    FunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

void cpu::lowerClusterReduce(tile::ClusterReduceOp op, int64_t blocks) {
  if (blocks <= 1) {
    op.erase(); // a cluster of one block: every element is combined
    return;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Value tile = op.getTile();
  auto type = llvm::cast<MemRefType>(tile.getType());
  Type elem = type.getElementType();
  int64_t count = type.getNumElements();
  int64_t elemBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();

  // void *tlc_cpu_cluster_exchange(void *tile, int64_t bytes): the blocks'
  // copies of the tile, block 0's first.
  func::FuncOp exchange =
      runtimeFunction(op, "tlc_cpu_cluster_exchange",
                      b.getFunctionType(TypeRange{ptr, i64}, TypeRange{ptr}));
  func::FuncOp sync = runtimeFunction(op, "tlc_cpu_cluster_sync",
                                      b.getFunctionType(TypeRange{}, {}));
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tile);
  Value address64 = arith::IndexCastUIOp::create(b, loc, i64, address);
  Value tilePtr = LLVM::IntToPtrOp::create(b, loc, ptr, address64);
  Value bytes = arith::ConstantIntOp::create(b, loc, i64, count * elemBytes);
  Value copies =
      func::CallOp::create(b, loc, exchange, ValueRange{tilePtr, bytes})
          .getResult(0);

  tile::ReduceCombiner combiner{op.getKind(), llvm::isa<FloatType>(elem)};
  ArrayRef<int64_t> shape = type.getShape();
  buildLoopNest(b, loc, shape, [&](ValueRange ivs) {
    // The element's position in the (row-major, contiguous) tile.
    Value linear = arith::ConstantIntOp::create(b, loc, i64, 0);
    for (size_t d = 0; d < ivs.size(); ++d) {
      Value extent = arith::ConstantIntOp::create(b, loc, i64, shape[d]);
      Value scaled = arith::MulIOp::create(b, loc, linear, extent);
      Value iv = arith::IndexCastUIOp::create(b, loc, i64, ivs[d]);
      linear = arith::AddIOp::create(b, loc, scaled, iv);
    }
    Value combined;
    for (int64_t rank = 0; rank < blocks; ++rank) {
      Value first = arith::ConstantIntOp::create(b, loc, i64, rank * count);
      Value position = arith::AddIOp::create(b, loc, first, linear);
      Value at = LLVM::GEPOp::create(b, loc, ptr, elem, copies,
                                     ArrayRef<LLVM::GEPArg>{position});
      Value v = LLVM::LoadOp::create(b, loc, elem, at);
      combined = combined ? combiner.combine(b, loc, combined, v) : v;
    }
    memref::StoreOp::create(b, loc, combined, tile, ivs);
  });
  // Nobody publishes the next tile before every block has read this one.
  func::CallOp::create(b, loc, sync, ValueRange{});
  op.erase();
}
