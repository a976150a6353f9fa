//===- AMDTargetInfo.cpp - AMD's instructions in the tile lowering --------===//
//
// What convert-tile-to-gpu uses on AMD GPUs: wave-wide shuffles (64 lanes
// on CDNA, 32 on RDNA) through the default gpu.shuffle, and the
// v_mfma_f32_16x16x16 MMA kind (f16/bf16 -> f32, wave64; gfx90a and
// gfx94x) through amdgpu.mfma. There are no asynchronous global-to-LDS
// copies here: pipelined loops stay synchronous.
//
//===----------------------------------------------------------------------===//
#include "../KernelLowering.h"

#include "tlc/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

constexpr llvm::StringLiteral kMfma16 = "mfma_f32_16x16x16";

/// v_mfma_f32_16x16x16{f16,bf16_1k} over a wave of 64 lanes: lane l holds
/// A[l % 16][4 (l / 16) + i], B[4 (l / 16) + i][l % 16] and the accumulator
/// D[4 (l / 16) + i][l % 16], i = 0..3 (AMD's matrix instruction
/// calculator). A register A operand would need the transpose of the
/// accumulator layout, so A always comes from LDS.
class Mfma16Kind : public tile::MmaKind {
public:
  llvm::StringRef name() const override { return kMfma16; }
  int64_t warpSize() const override { return 64; }
  int64_t tileM() const override { return 16; }
  int64_t tileN() const override { return 16; }
  int64_t tileK() const override { return 16; }
  bool supports(Type ab, Type acc) const override {
    return (ab.isF16() || ab.isBF16()) && acc.isF32();
  }
  /// Four consecutive K elements of a row are one 8-byte LDS read.
  int64_t operandRowBytes() const override { return 8; }

  tile::FragmentLayout accumulator(int64_t m, int64_t n, int64_t threads,
                                   int64_t wm, int64_t wn) const override {
    tile::FragmentLayout l;
    l.threads = threads;
    l.rank = 2;
    int64_t mt = m / wm / 16, nt = n / wn / 16;
    // Thread id = wave * 64 + lane, wave = wmi * wn + wni.
    auto add = [&](int64_t dim, int64_t extent, int64_t threadStride) {
      l.addFactor(dim, extent, threadStride);
    };
    add(0, wm, 64 * wn);
    add(0, mt, 0);
    add(0, 4, 16); // lane / 16: a group of four rows
    add(0, 4, 0);  // i: the row within the group
    add(1, wn, 64);
    add(1, nt, 0);
    add(1, 16, 1); // lane % 16: the column
    l.canonicalize();
    return l;
  }
};

/// The gemm on v_mfma_f32_16x16x16 when C has its accumulator layout and A
/// and B are f16/bf16 in LDS.
LogicalResult lowerMfma16(KernelLowering &k, tile::GemmOp op,
                          const tile::MmaKind &kind) {
  Value A = op.getA(), B = op.getB();
  const RegisterFragment *cf = k.fragment(op.getC());
  auto cShape = memrefType(op.getC()).getShape();
  int64_t M = cShape[0], N = cShape[1];
  int64_t K = op.getTransposeA() ? memrefType(A).getShape()[0]
                                 : memrefType(A).getShape()[1];
  Type elem = memrefType(A).getElementType();
  auto grid = tile::matchMmaAccumulator(kind, cf->layout, M, N);
  if (!grid || !kind.supports(elem, memrefType(op.getC()).getElementType()) ||
      memrefType(B).getElementType() != elem || K % 16 || !isWorkgroup(A) ||
      !isWorkgroup(B))
    return failure();
  auto [wm, wn] = *grid;

  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t mTiles = M / wm / 16, nTiles = N / wn / 16;
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  Value lane = arith::RemUIOp::create(b, loc, k.tid, c(64));
  Value wave = arith::DivUIOp::create(b, loc, k.tid, c(64));
  Value waveRow = arith::DivUIOp::create(b, loc, wave, c(wn));
  Value row0 = arith::MulIOp::create(b, loc, waveRow, c(M / wm));
  Value waveCol = arith::RemUIOp::create(b, loc, wave, c(wn));
  Value col0 = arith::MulIOp::create(b, loc, waveCol, c(N / wn));
  Value lane16 = arith::RemUIOp::create(b, loc, lane, c(16));
  Value laneGroup = arith::DivUIOp::create(b, loc, lane, c(16));
  Value group4 = arith::MulIOp::create(b, loc, laneGroup, c(4));

  auto slots = cf->layout.slotsByOffset();
  auto slotOf = [&](int64_t mt, int64_t nt, int64_t i) {
    return slots.lookup({mt * 16 + i, nt * 16});
  };
  auto accType = VectorType::get({4}, b.getF32Type());
  auto operandType = VectorType::get({4}, elem);
  SmallVector<Value> accs;
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      Value acc = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
      if (!op.getClear())
        for (int64_t i = 0; i < 4; ++i)
          acc = vector::InsertOp::create(
              b, loc,
              memref::LoadOp::create(b, loc, cf->slots, c(slotOf(mt, nt, i))),
              acc, ArrayRef<int64_t>{i});
      accs.push_back(acc);
    }

  // Four elements along K: a vector load when they are consecutive in
  // memory, four loads otherwise.
  auto loadFour = [&](OpBuilder &b, Value tile, Value outer, Value kStart,
                      bool kIsInner) -> Value {
    if (kIsInner)
      return vector::LoadOp::create(b, loc, operandType, tile,
                                    ValueRange{outer, kStart});
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i) {
      Value kk = arith::AddIOp::create(b, loc, kStart, indexConst(b, loc, i));
      elems.push_back(
          memref::LoadOp::create(b, loc, tile, ValueRange{kk, outer}));
    }
    return vector::FromElementsOp::create(b, loc, operandType, elems);
  };

  Value lower = c(0), upper = c(K), step16 = c(16);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step16, accs);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kStart =
        arith::AddIOp::create(b, loc, loop.getInductionVar(), group4);
    SmallVector<Value> aOps, bOps;
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      Value row = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, row0, c(mt * 16)), lane16);
      aOps.push_back(loadFour(b, A, row, kStart, !op.getTransposeA()));
    }
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      Value col = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, col0, c(nt * 16)), lane16);
      bOps.push_back(loadFour(b, B, col, kStart, op.getTransposeB()));
    }
    SmallVector<Value> next;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t nt = 0; nt < nTiles; ++nt)
        next.push_back(amdgpu::MFMAOp::create(
            b, loc, accType, 16, 16, 16, 1, aOps[mt], bOps[nt],
            loop.getRegionIterArgs()[mt * nTiles + nt]));
    scf::YieldOp::create(b, loc, next);
  }
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      Value acc = loop.getResult(mt * nTiles + nt);
      for (int64_t i = 0; i < 4; ++i)
        memref::StoreOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{i}),
            cf->slots, c(slotOf(mt, nt, i)));
    }
  return success();
}

class AMDTargetInfo : public GPUTargetInfo {
public:
  using GPUTargetInfo::GPUTargetInfo;

  LogicalResult lowerMmaGemm(KernelLowering &k,
                             tile::GemmOp op) const override {
    const tile::MmaKind *kind = tile::lookupMmaKind(target.getMma());
    if (!kind || kind->name() != kMfma16)
      return failure();
    return lowerMfma16(k, op, *kind);
  }
};

} // namespace

void gpu_lowering::amd::registerTargetInfo() {
  tile::registerMmaKind(std::make_unique<Mfma16Kind>());
  registerGPUTargetInfo(
      "rocm",
      [](tile::TargetAttr target) -> std::unique_ptr<GPUTargetInfo> {
        return std::make_unique<AMDTargetInfo>(target);
      },
      [](DialectRegistry &registry) {
        registry.insert<amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect,
                        LLVM::LLVMDialect, vector::VectorDialect>();
      });
}
