//===- ClusterReduce.cpp - tile.cluster_reduce on GPUs --------------------===//
//
// Every block of a thread block cluster runs the same kernel with the same
// fragment layouts, so slot s of thread t holds the same element in every
// block: thread t combines its slot s with slot s of thread t of the other
// blocks, read from their shared memory, and needs no index arithmetic.
//
// One cluster barrier per reduction: reductions alternate between two
// exchange buffers, so a block writes a buffer again only after the next
// reduction's barrier, which every block reaches after reading it. The
// kernel synchronizes the cluster once more before it returns (a block's
// shared memory must outlive the others' reads).
//
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

void KernelLowering::lowerClusterReduce(tile::ClusterReduceOp op) {
  if (clusterBlocks <= 1)
    return; // a cluster of one block: every element is already combined
  // Checked before the patterns run (TileToGPU.cpp).
  const RegisterFragment *f = fragment(op.getTile());
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type elem = memrefType(f->slots).getElementType();
  int64_t slots = memrefType(f->slots).getShape()[0];
  int64_t elemBytes = (elem.getIntOrFloatBitWidth() + 7) / 8;

  // This reduction's buffer: parity p at offset + p * bytes; flip p.
  Value zero = indexConst(b, loc, 0);
  Value parity = memref::LoadOp::create(b, loc, clusterParity, zero);
  Value one = indexConst(b, loc, 1);
  Value next = arith::SubIOp::create(b, loc, one, parity);
  memref::StoreOp::create(b, loc, next, clusterParity, zero);
  Value bufferBytes = indexConst(b, loc, clusterExchangeBytes);
  Value shift = arith::MulIOp::create(b, loc, parity, bufferBytes);
  Value first = indexConst(b, loc, clusterExchangeOffset);
  Value offset = arith::AddIOp::create(b, loc, first, shift);
  auto type = MemRefType::get(
      {threads * slots}, elem, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  Value buffer =
      memref::ViewOp::create(b, loc, type, sharedBase, offset, ValueRange{});

  // Slot s of thread t at s * threads + t: a warp's reads of one slot are
  // consecutive words.
  SmallVector<Value> positions;
  for (int64_t s = 0; s < slots; ++s) {
    Value slot = indexConst(b, loc, s);
    Value value = memref::LoadOp::create(b, loc, f->slots, slot);
    Value slotStart = indexConst(b, loc, s * threads);
    Value position = arith::AddIOp::create(b, loc, slotStart, tid);
    memref::StoreOp::create(b, loc, value, buffer, position);
    positions.push_back(position);
  }
  target.clusterSync(b, loc);
  Value base = viewByteAddress(b, loc, buffer, elemBytes);
  Value bytes = indexConst(b, loc, elemBytes);
  tile::ReduceCombiner combiner{op.getKind(), llvm::isa<FloatType>(elem)};
  for (int64_t s = 0; s < slots; ++s) {
    Value byteOffset = arith::MulIOp::create(b, loc, positions[s], bytes);
    Value address = arith::AddIOp::create(b, loc, base, byteOffset);
    Value combined;
    for (int64_t rank = 0; rank < clusterBlocks; ++rank) {
      Value rankValue = indexConst(b, loc, rank);
      Value v = target.loadClusterShared(b, loc, elem, address, rankValue);
      combined = combined ? combiner.combine(b, loc, combined, v) : v;
    }
    Value slot = indexConst(b, loc, s);
    memref::StoreOp::create(b, loc, combined, f->slots, slot);
  }
}
