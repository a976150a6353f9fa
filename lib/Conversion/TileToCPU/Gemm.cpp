//===- Gemm.cpp - tile.gemm as a register-blocked CPU micro-kernel --------===//
//
// C[M, N] (+)= A[M, K] * B[K, N] is computed in MR x (NV vectors) blocks of C
// that stay in vector registers across the whole K loop: per k, NV vector
// loads of a row of B, MR broadcasts of A elements and MR*NV FMAs. MR is
// sized from the register file: with 16 registers (AVX2) MR = 6 and NV = 2
// use 12 accumulators + 2 B vectors + 1 broadcast; with 32 (AVX-512,
// AArch64) MR = 12. Ragged M and N get smaller
// blocks; a transposed B is first packed so its rows are contiguous. The K
// loop prefetches B a few rows ahead, and each block the C rows of the
// next one (accumulators that live in memory arrive before they are read).
//
//===----------------------------------------------------------------------===//
#include "CPULowering.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

namespace {
constexpr int64_t kVectorsPerRow = 2; // NV
/// How far ahead (in rows of B, one per k) the K loop prefetches B: about
/// 1 KiB for f32 blocks of 32 columns, a few L2 latencies of FMAs.
constexpr int64_t kPrefetchRowsAhead = 8;

/// MR: accumulator rows that fit next to NV B vectors and one broadcast.
int64_t rowsPerBlock(unsigned vectorRegisters) {
  int64_t rows =
      (int64_t(vectorRegisters) - kVectorsPerRow - 1) / kVectorsPerRow;
  return std::clamp<int64_t>(rows, 1, 12);
}

struct GemmEmitter {
  OpBuilder &b;
  Location loc;
  Value A, B, C;
  bool transA, clear;
  Type accType;
  int64_t M, K;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value multiplyAdd(Value a, Value x, Value acc) {
    if (llvm::isa<FloatType>(accType))
      return vector::FMAOp::create(b, loc, a, x, acc);
    return arith::AddIOp::create(b, loc, acc,
                                 arith::MulIOp::create(b, loc, a, x));
  }

  /// min(x + offset, last), one op per statement: the IR's order does not
  /// depend on the order the host compiler evaluates arguments in.
  Value clampedAdd(Value x, int64_t offset, Value last) {
    Value sum = arith::AddIOp::create(b, loc, x, idx(offset));
    return arith::MinSIOp::create(b, loc, sum, last);
  }

  /// Prefetches row `row` of `memref` at each of `cols` into L1.
  void prefetchRow(Value memref, Value row, ArrayRef<Value> cols,
                   bool forWrite) {
    for (Value col : cols)
      memref::PrefetchOp::create(b, loc, memref, ValueRange{row, col}, forWrite,
                                 /*localityHint=*/3,
                                 /*isDataCache=*/true);
  }

  /// Asks for the C rows of the next row block (the one below, clamped to
  /// the last row) while this block's K loop runs: an accumulator tile that
  /// lives in memory (the task nest's panel) would otherwise cost one
  /// memory latency per block before its first FMA.
  void prefetchNextBlock(Value i0, int64_t rows, ArrayRef<Value> colOffsets) {
    Value lastRow = idx(M - 1);
    for (int64_t r = 0; r < rows; ++r)
      prefetchRow(C, clampedAdd(i0, rows + r, lastRow), colOffsets,
                  /*forWrite=*/true);
  }

  /// Asks for B's row kPrefetchRowsAhead below k (the caller keeps it
  /// inside B). A K-deep column block of B (64 KiB for 512 x 32 f32)
  /// outgrows L1 and is read again for every row block; the hardware's
  /// stream prefetch alone left the FMAs waiting on L2 (measured on
  /// AVX-512: 0.93x -> 0.97x of OpenBLAS at 2048^3).
  void prefetchRowOfB(Value k, ArrayRef<Value> colOffsets) {
    Value ahead = arith::AddIOp::create(b, loc, k, idx(kPrefetchRowsAhead));
    prefetchRow(B, ahead, colOffsets, /*forWrite=*/false);
  }

  /// One step k of the K loop: NV vector loads of B's row, MR broadcasts of
  /// A and MR*NV FMAs into `accs` (with `prefetch`, also B's row
  /// kPrefetchRowsAhead below).
  SmallVector<Value> emitKStep(Value k, bool prefetch, ValueRange accs,
                               ArrayRef<Value> rowIdx,
                               ArrayRef<Value> colOffsets,
                               ArrayRef<int64_t> widths) {
    Type abType = llvm::cast<MemRefType>(B.getType()).getElementType();
    if (prefetch)
      prefetchRowOfB(k, colOffsets);
    SmallVector<Value> bvecs;
    for (size_t v = 0; v < widths.size(); ++v) {
      Value x =
          vector::LoadOp::create(b, loc, VectorType::get({widths[v]}, abType),
                                 B, ValueRange{k, colOffsets[v]});
      bvecs.push_back(tile::castElements(b, loc, x, accType));
    }
    SmallVector<Value> next;
    int64_t rows = rowIdx.size();
    for (int64_t r = 0; r < rows; ++r) {
      Value a = memref::LoadOp::create(b, loc, A,
                                       transA ? ValueRange{k, rowIdx[r]}
                                              : ValueRange{rowIdx[r], k});
      a = tile::castElements(b, loc, a, accType);
      llvm::SmallDenseMap<int64_t, Value> broadcasts;
      for (size_t v = 0; v < widths.size(); ++v) {
        Value &bc = broadcasts[widths[v]];
        if (!bc)
          bc = cpu::broadcastTo(b, loc, a, widths[v]);
        next.push_back(multiplyAdd(bc, bvecs[v], accs[r * widths.size() + v]));
      }
    }
    return next;
  }

  /// The K loop over [lo, hi) carrying the accumulators. (Two steps an
  /// iteration measured no faster than one on AVX-512.)
  SmallVector<Value> emitKLoop(int64_t lo, int64_t hi, bool prefetch,
                               ValueRange accs, ArrayRef<Value> rowIdx,
                               ArrayRef<Value> colOffsets,
                               ArrayRef<int64_t> widths) {
    if (lo >= hi)
      return SmallVector<Value>(accs.begin(), accs.end());
    auto loop = scf::ForOp::create(b, loc, idx(lo), idx(hi), idx(1), accs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(b, loc,
                         emitKStep(loop.getInductionVar(), prefetch,
                                   loop.getRegionIterArgs(), rowIdx, colOffsets,
                                   widths));
    return SmallVector<Value>(loop.getResults().begin(),
                              loop.getResults().end());
  }

  /// One MR x (sum of widths) block of C at (i0, j0).
  void emitBlock(Value i0, Value j0, int64_t rows, ArrayRef<int64_t> widths) {
    SmallVector<Value> colOffsets;
    int64_t off = 0;
    for (int64_t w : widths) {
      colOffsets.push_back(arith::AddIOp::create(b, loc, j0, idx(off)));
      off += w;
    }
    SmallVector<Value> rowIdx;
    for (int64_t r = 0; r < rows; ++r)
      rowIdx.push_back(arith::AddIOp::create(b, loc, i0, idx(r)));

    SmallVector<Value> accs;
    for (int64_t r = 0; r < rows; ++r)
      for (size_t v = 0; v < widths.size(); ++v) {
        auto vt = VectorType::get({widths[v]}, accType);
        if (clear)
          accs.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(vt)));
        else
          accs.push_back(vector::LoadOp::create(
              b, loc, vt, C, ValueRange{rowIdx[r], colOffsets[v]}));
      }

    if (!clear)
      prefetchNextBlock(i0, rows, colOffsets);

    // The prefetching loop stops kPrefetchRowsAhead rows short of K, so its
    // prefetch needs no clamp (a min per k cost 4 of the ~47 instructions
    // of a 12 x 32 step on AVX-512); the last rows run without it.
    int64_t prefetchEnd = std::max<int64_t>(K - kPrefetchRowsAhead, 0);
    SmallVector<Value> sums = emitKLoop(0, prefetchEnd, /*prefetch=*/true, accs,
                                        rowIdx, colOffsets, widths);
    sums = emitKLoop(prefetchEnd, K, /*prefetch=*/false, sums, rowIdx,
                     colOffsets, widths);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t v = 0; v < widths.size(); ++v)
        vector::StoreOp::create(b, loc, sums[r * widths.size() + v], C,
                                ValueRange{rowIdx[r], colOffsets[v]});
  }

  /// All row blocks of the column block at j0 (of the given vector widths).
  /// Rows are the inner loop so the KxNR panel of B stays in L1 across them.
  void emitColumnBlock(Value j0, ArrayRef<int64_t> widths, int64_t M,
                       int64_t rowsPerBlk) {
    int64_t fullRows = M / rowsPerBlk * rowsPerBlk;
    if (fullRows > 0) {
      auto loop =
          scf::ForOp::create(b, loc, idx(0), idx(fullRows), idx(rowsPerBlk));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      emitBlock(loop.getInductionVar(), j0, rowsPerBlk, widths);
    }
    if (M > fullRows)
      emitBlock(idx(fullRows), j0, M - fullRows, widths);
  }
};
} // namespace

int64_t cpu::gemmBlockColumns(Type accType, unsigned vectorBits) {
  return kVectorsPerRow * vectorLanes(accType, vectorBits);
}

/// Packs B^T (B is N x K) into a K x N scratch tile so its rows are contiguous.
static Value packTransposed(OpBuilder &b, Location loc, Value B,
                            func::FuncOp fn) {
  auto type = llvm::cast<MemRefType>(B.getType());
  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  Value packed;
  {
    OpBuilder::InsertionGuard guard(b);
    if (fn)
      b.setInsertionPointToStart(&fn.getBody().front());
    packed = memref::AllocaOp::create(
        b, loc, MemRefType::get({k, n}, type.getElementType()),
        b.getI64IntegerAttr(64));
  }
  cpu::buildLoopNest(b, loc, {n, k}, [&](ValueRange ivs) {
    Value v = memref::LoadOp::create(b, loc, B, ivs);
    memref::StoreOp::create(b, loc, v, packed, ValueRange{ivs[1], ivs[0]});
  });
  return packed;
}

void cpu::lowerGemm(tile::GemmOp op, unsigned vectorBits,
                    unsigned vectorRegisters) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cType = llvm::cast<MemRefType>(op.getC().getType());
  auto aType = llvm::cast<MemRefType>(op.getA().getType());
  Value B = op.getB();
  if (op.getTransposeB())
    B = packTransposed(b, loc, B, op->getParentOfType<func::FuncOp>());
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1);
  int64_t K = aType.getDimSize(op.getTransposeA() ? 0 : 1);
  GemmEmitter e{b,
                loc,
                op.getA(),
                B,
                op.getC(),
                op.getTransposeA(),
                op.getClear(),
                cType.getElementType(),
                M,
                K};
  int64_t lanes = vectorLanes(cType.getElementType(), vectorBits);

  int64_t rowsPerBlk = rowsPerBlock(vectorRegisters);
  int64_t blockCols = gemmBlockColumns(cType.getElementType(), vectorBits);
  int64_t fullCols = N / blockCols * blockCols;
  if (fullCols > 0) {
    auto loop =
        scf::ForOp::create(b, loc, e.idx(0), e.idx(fullCols), e.idx(blockCols));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<int64_t> widths(kVectorsPerRow, lanes);
    e.emitColumnBlock(loop.getInductionVar(), widths, M, rowsPerBlk);
  }
  SmallVector<int64_t> tailWidths;
  for (int64_t rest = N - fullCols; rest > 0; rest -= std::min(rest, lanes))
    tailWidths.push_back(std::min(rest, lanes));
  if (!tailWidths.empty())
    e.emitColumnBlock(e.idx(fullCols), tailWidths, M, rowsPerBlk);
  op.erase();
}
