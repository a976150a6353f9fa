//===- NVIDIATargetInfo.cpp - NVIDIA's instructions in the tile lowering ===//
//
// What convert-tile-to-gpu uses on NVIDIA GPUs (sm_75 and newer): the
// m16n8k16 mma.sync MMA kind (f16/bf16 -> f32; its accumulator layout for
// layout inference, ldmatrix + mma.sync for the gemm), the wgmma kind of
// sm_90a (Wgmma.cpp), cp.async for pipelined copies (sm_80 and newer), and
// integer abs as a select (NVVM lowers math.absi for only some widths).
//
//===----------------------------------------------------------------------===//
#include "../KernelLowering.h"
#include "TensorCopy.h"
#include "Wgmma.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

constexpr llvm::StringLiteral kMmaSync = "mma_sync_m16n8k16";

/// Warp-level m16n8k16 MMAs (mma.sync, sm_80+ for bf16): 32 lanes; lane l
/// holds rows l/4 and l/4 + 8, columns 2(l%4) and 2(l%4) + 1 of each 16x8
/// accumulator tile. ldmatrix reads operand rows of 16 bytes.
class MmaSyncKind : public tile::MmaKind {
public:
  llvm::StringRef name() const override { return kMmaSync; }
  int64_t warpSize() const override { return 32; }
  int64_t tileM() const override { return 16; }
  int64_t tileN() const override { return 8; }
  int64_t tileK() const override { return 16; }
  bool supports(Type ab, Type acc) const override {
    return (ab.isF16() || ab.isBF16()) && acc.isF32();
  }
  int64_t operandRowBytes() const override { return 16; }

  tile::FragmentLayout accumulator(int64_t m, int64_t n, int64_t threads,
                                   int64_t wm, int64_t wn) const override {
    tile::FragmentLayout l;
    l.threads = threads;
    l.rank = 2;
    int64_t mt = m / wm / 16, nt = n / wn / 8;
    // Thread id = warp * 32 + lane, warp = wmi * wn + wni, lane = g * 4 + q.
    auto add = [&](int64_t dim, int64_t extent, int64_t threadStride) {
      l.addFactor(dim, extent, threadStride);
    };
    add(0, wm, 32 * wn);
    add(0, mt, 0);
    add(0, 2, 0); // h: rows g and g + 8
    add(0, 8, 4); // g = lane / 4
    add(1, wn, 32);
    add(1, nt, 0);
    add(1, 4, 1); // q = lane % 4
    add(1, 2, 0); // e: columns 2q and 2q + 1
    l.canonicalize();
    return l;
  }

  /// A register A operand is an accumulator-layout M x K tile: its pairs
  /// are exactly the a0..a7 registers mma.sync takes.
  std::optional<tile::FragmentLayout>
  registerA(int64_t m, int64_t k, int64_t threads, int64_t wm) const override {
    return accumulator(m, k, threads, wm, 1);
  }
};

/// Loads `tiles` 8x8 matrices of 16-bit elements with ldmatrix, as i32
/// registers (two elements each: vector<2xf16> or bf16 pairs in an i32). Lane l
/// gives the address of row l % 8 of matrix l / 8, at `rows`/`cols` plus the
/// lane's offsets.
static SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value tile,
                                       Value row, Value col, int64_t tiles,
                                       bool transpose) {
  Type elem = memrefType(tile).getElementType();
  auto vecType = VectorType::get({tiles, 2}, elem);
  Value v = nvgpu::LdMatrixOp::create(b, loc, vecType, tile,
                                      ValueRange{row, col}, transpose, tiles);
  SmallVector<Value> regs;
  if (elem.isF16()) { // mma.sync takes f16 pairs as vector<2xf16>
    for (int64_t i = 0; i < tiles; ++i)
      regs.push_back(
          vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}));
    return regs;
  }
  // and bf16 pairs as i32
  Value words = vector::BitCastOp::create(
      b, loc, VectorType::get({tiles, 1}, b.getI32Type()), v);
  for (int64_t i = 0; i < tiles; ++i)
    regs.push_back(
        vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{i, 0}));
  return regs;
}

/// ldmatrix + mma.sync when C has the mma.sync accumulator layout and the
/// operands suit it (f16/bf16 B, and A, in shared memory; or A registers in
/// the accumulator layout of an M x K tile with every warp along M).
LogicalResult lowerMmaSync(KernelLowering &k, tile::GemmOp op,
                           const tile::MmaKind &kind) {
  int64_t threads = k.threads;
  Value tid = k.tid;
  auto fragment = [&](Value v) { return k.fragment(v); };
  Value A = op.getA(), B = op.getB();
  const RegisterFragment *cf = fragment(op.getC());
  const RegisterFragment *af = fragment(A);
  auto cShape = memrefType(op.getC()).getShape();
  int64_t M = cShape[0], N = cShape[1];
  int64_t K = op.getTransposeA() ? memrefType(A).getShape()[0]
                                 : memrefType(A).getShape()[1];
  Type elem = memrefType(A).getElementType();
  // The accumulator layout says the warp grid; operands must suit it.
  auto grid = tile::matchMmaAccumulator(kind, cf->layout, M, N);
  // (ldmatrix reads row-major tiles, not swizzled ones.)
  if (!grid || !(elem.isF16() || elem.isBF16()) ||
      memrefType(B).getElementType() != elem || K % 16 || !isWorkgroup(B) ||
      !(isWorkgroup(A) || af) || k.swizzleOf(A) || k.swizzleOf(B))
    return failure();
  auto [wm, wn] = *grid;
  if (af && (wn != 1 || op.getTransposeA() ||
             af->layout != kind.accumulator(M, K, threads, wm, 1)))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t mTiles = M / wm / 16, nTiles = N / wn / 8;
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  Value lane = arith::RemUIOp::create(b, loc, tid, c(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, c(32));
  Value row0 = mul(arith::DivUIOp::create(b, loc, warp, c(wn)), M / wm);
  Value col0 = mul(arith::RemUIOp::create(b, loc, warp, c(wn)), N / wn);
  // ldmatrix lane offsets: lr = row within an 8x8 matrix, lg = matrix.
  Value lr = arith::RemUIOp::create(b, loc, lane, c(8));
  Value lg = arith::DivUIOp::create(b, loc, lane, c(8));
  Value lgLow = mul(arith::RemUIOp::create(b, loc, lg, c(2)), 8);  // 8*(lg%2)
  Value lgHigh = mul(arith::DivUIOp::create(b, loc, lg, c(2)), 8); // 8*(lg/2)
  Value lrLow = add(lr, lgLow), lrHigh = add(lr, lgHigh);

  // Accumulators: slot of (mt, nt, register r) in the fragment.
  auto slots = cf->layout.slotsByOffset();
  auto slotOf = [&](int64_t mt, int64_t nt, int64_t r) {
    return slots.lookup({mt * 16 + (r / 2) * 8, nt * 8 + r % 2});
  };
  SmallVector<Value> accs;
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt)
      for (int64_t r = 0; r < 4; ++r)
        accs.push_back(
            op.getClear()
                ? arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0))
                      .getResult()
                : memref::LoadOp::create(b, loc, cf->slots,
                                         c(slotOf(mt, nt, r)))
                      .getResult());

  NVVM::MMATypes ptxType =
      elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Type f32 = b.getF32Type();
  Type resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  // A register-A operand pair: elements (row, col) and (row, col + 1) of
  // the A fragment, packed like ldmatrix packs them.
  auto aSlots = af ? af->layout.slotsByOffset()
                   : llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t>();
  auto packA = [&](OpBuilder &b, int64_t row, int64_t col) -> Value {
    Value lo = memref::LoadOp::create(
        b, loc, af->slots, indexConst(b, loc, aSlots.lookup({row, col})));
    Value hi = memref::LoadOp::create(
        b, loc, af->slots, indexConst(b, loc, aSlots.lookup({row, col + 1})));
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, elem), ValueRange{lo, hi});
    if (elem.isF16())
      return pair;
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  };

  // One k-step of 16: operands for every tile, then the MMAs.
  auto step = [&](OpBuilder &b, Value k0, int64_t kStatic,
                  ValueRange in) -> SmallVector<Value> {
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      Value r =
          arith::AddIOp::create(b, loc, row0, indexConst(b, loc, mt * 16));
      if (af) { // a0a1 (g, 2q), a2a3 (g+8, 2q), a4a5 (g, 2q+8), a6a7
        int64_t row = mt * 16, col = kStatic;
        aFrags.push_back({packA(b, row, col), packA(b, row + 8, col),
                          packA(b, row, col + 8), packA(b, row + 8, col + 8)});
      } else if (!op.getTransposeA()) {
        Value row = arith::AddIOp::create(b, loc, r, lrLow);
        Value col = arith::AddIOp::create(b, loc, k0, lgHigh);
        aFrags.push_back(loadMatrices(b, loc, A, row, col, 4, false));
      } else { // A stored K x M: transposed loads of the same four blocks
        Value row = arith::AddIOp::create(b, loc, k0, lrHigh);
        Value col = arith::AddIOp::create(b, loc, r, lgLow);
        aFrags.push_back(loadMatrices(b, loc, A, row, col, 4, true));
      }
    }
    // B fragments, two n-tiles per ldmatrix.x4: b0b1 k 0-7, b2b3 k 8-15.
    SmallVector<SmallVector<Value>> bFrags;
    for (int64_t nt = 0; nt < nTiles; nt += 2) {
      Value n = arith::AddIOp::create(b, loc, col0, indexConst(b, loc, nt * 8));
      int64_t count = nt + 1 < nTiles ? 4 : 2;
      SmallVector<Value> regs;
      if (!op.getTransposeB()) { // B stored K x N
        Value row = arith::AddIOp::create(b, loc, k0, lrLow);
        Value col = count == 4 ? arith::AddIOp::create(b, loc, n, lgHigh) : n;
        regs = loadMatrices(b, loc, B, row, col, count, true);
      } else { // B stored N x K
        Value row = arith::AddIOp::create(b, loc, n, count == 4 ? lrHigh : lr);
        Value col = arith::AddIOp::create(b, loc, k0, lgLow);
        regs = loadMatrices(b, loc, B, row, col, count, false);
      }
      bFrags.push_back({regs[0], regs[1]});
      if (count == 4)
        bFrags.push_back({regs[2], regs[3]});
    }
    SmallVector<Value> next;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t nt = 0; nt < nTiles; ++nt) {
        ValueRange acc = in.slice((mt * nTiles + nt) * 4, 4);
        auto mma = NVVM::MmaOp::create(
            b, loc, resultType, aFrags[mt], bFrags[nt], acc,
            ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          next.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getRes(),
                                                      ArrayRef<int64_t>{r}));
      }
    return next;
  };

  if (af) {
    // Register A: k steps are unrolled so that A slots are constants.
    for (int64_t k = 0; k < K; k += 16)
      accs = step(b, c(k), k, accs);
  } else {
    Value lower = c(0), upper = c(K), step16 = c(16);
    auto loop = scf::ForOp::create(b, loc, lower, upper, step16, accs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(
        b, loc, step(b, loop.getInductionVar(), -1, loop.getRegionIterArgs()));
    accs = loop.getResults();
  }
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt)
      for (int64_t r = 0; r < 4; ++r)
        memref::StoreOp::create(b, loc, accs[(mt * nTiles + nt) * 4 + r],
                                cf->slots, c(slotOf(mt, nt, r)));
  return success();
}

class NVIDIATargetInfo : public GPUTargetInfo {
public:
  explicit NVIDIATargetInfo(tile::TargetAttr target) : GPUTargetInfo(target) {
    if (auto listed = tile::lookupMmaKinds(target.getMma()))
      kinds = std::move(*listed);
  }

  llvm::SmallVector<const tile::MmaKind *> kinds;
  bool hasWgmma() const {
    return llvm::any_of(kinds, [](const tile::MmaKind *kind) {
      return kind->name() == nvidia::kWgmmaKind;
    });
  }

  void asyncCopy(OpBuilder &b, Location loc, Value dst, ValueRange dstIndex,
                 Value src, ValueRange srcIndex, int64_t elements,
                 Value srcElements) const override {
    // cp.async.cg (L2 only) takes 16 bytes; .ca 4 and 8 as well.
    int64_t bytes = elements * memrefType(dst).getElementTypeBitWidth() / 8;
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, dst, dstIndex, src, srcIndex, b.getIndexAttr(elements),
        srcElements, /*bypassL1=*/bytes == 16 ? b.getUnitAttr() : UnitAttr());
  }
  bool asyncCopyBytes(int64_t bytes) const override {
    return bytes == 4 || bytes == 8 || bytes == 16;
  }
  void asyncCommit(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void asyncWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
    // cp.async writes through the generic proxy; wgmma reads through the
    // async one.
    if (hasWgmma())
      fenceSharedForMma(b, loc);
  }

  /// The XY of sm_XY[a] (0 if the arch is not of that form).
  int64_t computeCapability() const {
    int64_t version = 0;
    llvm::StringRef arch = target.getArch();
    if (arch.consume_front("sm_"))
      arch.take_while(llvm::isDigit).getAsInteger(10, version);
    return version;
  }

  // red.global.add.v2/v4.f32 (sm_90 and newer, PTX 8.1): one L2 atomic
  // for up to 16 bytes where scalar reds take one per element.
  int64_t vectorAtomicAddWidth(Type elem) const override {
    return computeCapability() >= 90 && elem.isF32() ? 4 : 1;
  }
  void vectorAtomicAdd(OpBuilder &b, Location loc, Value address,
                       ArrayRef<Value> values) const override {
    std::string text = "{\n.reg .b64 g;\ncvta.to.global.u64 g, $0;\n"
                       "red.relaxed.gpu.global.add.v" +
                       std::to_string(values.size()) + ".f32 [g], {";
    std::string constraints = "l";
    for (size_t i = 0; i < values.size(); ++i) {
      text += (i ? ", $" : "$") + std::to_string(i + 1);
      constraints += ",f";
    }
    text += "};\n}";
    SmallVector<Value> operands{address};
    operands.append(values.begin(), values.end());
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, operands, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
  }

  Value opaqueCopy(OpBuilder &b, Location loc, Value value) const override {
    return LLVM::InlineAsmOp::create(
               b, loc, b.getI32Type(), ValueRange{value}, "mov.u32 $0, $1;",
               "=r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::TailCallKind::None,
               LLVM::AsmDialectAttr::get(b.getContext(),
                                         LLVM::AsmDialect::AD_ATT),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  }

  // TMA (sm_90 and newer).
  bool canTensorCopy(tile::CopyOp copy, int64_t swizzle) const override {
    return computeCapability() >= 90 && nvidia::tensorCopySuits(copy, swizzle);
  }
  void initCopyBarriers(OpBuilder &b, Location loc, ValueRange barriers,
                        int64_t arrivals) const override {
    nvidia::initBarriers(b, loc, barriers, arrivals);
  }
  void arriveCopyBarrier(OpBuilder &b, Location loc,
                         Value barrier) const override {
    nvidia::arriveBarrier(b, loc, barrier);
  }
  void arriveCopyBarrierPerWarp(OpBuilder &b, Location loc, Value barrier,
                                Value tid,
                                ValueRange clusterRanks) const override {
    nvidia::arriveBarrierPerWarp(b, loc, barrier, tid, warpSize(),
                                 clusterRanks);
  }
  // Thread-block clusters (sm_90 and newer) share tiles through TMA
  // multicast.
  bool hasClusters() const override { return computeCapability() >= 90; }
  ClusterPosition clusterPosition(OpBuilder &b, Location loc) const override {
    return nvidia::clusterPosition(b, loc);
  }
  void clusterSync(OpBuilder &b, Location loc) const override {
    nvidia::clusterSync(b, loc);
  }
  Value loadClusterShared(OpBuilder &b, Location loc, Type type, Value address,
                          Value rank) const override {
    return nvidia::loadClusterShared(b, loc, type, address, rank);
  }
  // .reqnctapercluster: a plain launch then runs the grid in clusters.
  void setClusterShape(gpu::GPUFuncOp func, int64_t blocks) const override {
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  DenseI32ArrayAttr::get(func.getContext(),
                                         {static_cast<int32_t>(blocks), 1, 1}));
  }
  // A producer warpgroup issuing TMA where wgmma computes (sm_90a).
  int64_t producerThreads() const override { return hasWgmma() ? 128 : 0; }
  int64_t consumerRegisters(int64_t consumerThreads) const override {
    return nvidia::consumerRegisters(consumerThreads, producerThreads());
  }
  // Turns of warpgroups: named barrier kTurnBarrier + g is group g's turn,
  // completed by g's 128 threads (bar.sync) and the previous group's
  // (bar.arrive, which does not wait). Barrier 0 is the block's, 1 the
  // consumers' (tile-nvvm-partial-barriers).
  static constexpr int64_t kTurnBarrier = 2, kWarpgroup = 128;
  int64_t turnTakingGroups(int64_t consumerThreads) const override {
    int64_t groups = consumerThreads / kWarpgroup;
    return hasWgmma() && consumerThreads % kWarpgroup == 0 &&
                   kTurnBarrier + groups <= 16
               ? groups
               : 0;
  }
  Operation *waitTurn(OpBuilder &b, Location loc, Value group,
                      int64_t groups) const override {
    return NVVM::BarrierOp::create(
        b, loc, /*res=*/Type(), turnBarrier(b, loc, group),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 2 * kWarpgroup),
        /*reductionOp=*/nullptr, /*reductionPredicate=*/Value());
  }
  Operation *passTurn(OpBuilder &b, Location loc, Value group,
                      int64_t groups) const override {
    Value next = arith::RemUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, group,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1)),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), groups));
    return NVVM::BarrierArriveOp::create(
        b, loc, turnBarrier(b, loc, next),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 2 * kWarpgroup));
  }
  static Value turnBarrier(OpBuilder &b, Location loc, Value group) {
    return arith::AddIOp::create(
        b, loc, group,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), kTurnBarrier));
  }
  void setRoleRegisters(OpBuilder &b, Location loc, bool producer,
                        int64_t consumerThreads) const override {
    nvidia::setRoleRegisters(b, loc, producer, consumerThreads,
                             producerThreads());
  }
  void expectCopyBytes(OpBuilder &b, Location loc, Value barrier,
                       int64_t bytes) const override {
    nvidia::expectBytes(b, loc, barrier, bytes);
  }
  void tensorCopy(KernelLowering &k, OpBuilder &b, Location loc,
                  tile::CopyOp copy, ValueRange srcIndex, Value dst,
                  Value barrier, const ClusterPosition *shared) const override {
    nvidia::emitTensorCopy(k, b, loc, copy, srcIndex, dst, barrier, shared);
  }
  bool canTensorStore(tile::CopyOp copy, int64_t swizzle) const override {
    return computeCapability() >= 90 && nvidia::tensorStoreSuits(copy, swizzle);
  }
  void tensorStore(KernelLowering &k, OpBuilder &b, Location loc, Value tile,
                   Value dest, ValueRange destIndex) const override {
    nvidia::emitTensorStore(k, b, loc, tile, dest, destIndex);
  }
  void tensorStoreWait(OpBuilder &b, Location loc, bool readsOnly,
                       int64_t pending) const override {
    nvidia::waitTensorStores(b, loc, readsOnly, pending);
  }
  void waitCopyBarrier(OpBuilder &b, Location loc, Value barrier,
                       Value parity) const override {
    nvidia::waitBarrier(b, loc, barrier, parity);
  }

  void fenceSharedForMma(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  /// A gemm whose accumulator has the wgmma layout, with swizzled operand
  /// tiles (what tile-plan-shared-memory gives such gemms) or A in
  /// registers.
  bool mmaIsAsync(tile::GemmOp op) const override {
    const tile::MmaKind *kind = tile::accumulatorKind(op, kinds);
    auto swizzled = [](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->hasAttr(tile::attr::kSwizzle);
    };
    return kind && kind->name() == nvidia::kWgmmaKind &&
           (swizzled(op.getA()) || tile::isFragment(op.getA())) &&
           swizzled(op.getB());
  }
  void mmaWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  }

  /// The target's kinds in order; the first whose accumulator layout C has
  /// and whose lowering takes the operands wins.
  LogicalResult lowerMmaGemm(KernelLowering &k,
                             tile::GemmOp op) const override {
    for (const tile::MmaKind *kind : kinds) {
      if (kind->name() == nvidia::kWgmmaKind &&
          succeeded(nvidia::lowerWgmma(k, op, *kind)))
        return success();
      if (kind->name() == kMmaSync && succeeded(lowerMmaSync(k, op, *kind))) {
        // Counted as a wgmma group by MmaWaits but committing none: the
        // older groups are completed, so no later wait counts one too many.
        if (op->hasAttr(tile::attr::kMmaWaitDeferred)) {
          OpBuilder b(op);
          mmaWait(b, op.getLoc(), 0);
        }
        return success();
      }
    }
    return failure();
  }

  void legalize(gpu::GPUFuncOp func) const override {
    // |x| for integers as a select: the NVVM lowering covers only some
    // widths.
    func.walk([](math::AbsIOp op) {
      OpBuilder ob(op);
      Location l = op.getLoc();
      Value x = op.getOperand();
      Value zero =
          arith::ConstantOp::create(ob, l, ob.getZeroAttr(x.getType()));
      Value negative =
          arith::CmpIOp::create(ob, l, arith::CmpIPredicate::slt, x, zero);
      Value negated = arith::SubIOp::create(ob, l, zero, x);
      op.replaceAllUsesWith(
          arith::SelectOp::create(ob, l, negative, negated, x).getResult());
      op.erase();
    });
  }
};

} // namespace

void gpu_lowering::nvidia::registerTargetInfo() {
  tile::registerMmaKind(std::make_unique<MmaSyncKind>());
  tile::registerMmaKind(nvidia::createWgmmaKind());
  registerGPUTargetInfo(
      "cuda",
      [](tile::TargetAttr target) -> std::unique_ptr<GPUTargetInfo> {
        return std::make_unique<NVIDIATargetInfo>(target);
      },
      [](DialectRegistry &registry) {
        registry.insert<nvgpu::NVGPUDialect, NVVM::NVVMDialect,
                        LLVM::LLVMDialect, vector::VectorDialect>();
      });
}
