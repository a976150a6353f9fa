//===- Wgmma.cpp - Hopper's warpgroup MMAs in the tile lowering -----------===//
//
// wgmma.mma_async m64nNk16 (sm_90a; f16/bf16 -> f32): a warpgroup of 128
// threads multiplies a 64 x 16 slice of A by a 16 x N slice of B, both read
// from shared memory through matrix descriptors, into registers. The kind
// gives layout inference the accumulator layout and asks for its operand
// tiles swizzled (tile.swizzle), the layout a descriptor can describe; the
// lowering issues a gemm's instructions as one wgmma group and waits for it
// (or, in a pipelined loop, for the group before it: tile.mma_in_flight; or
// where its results are needed: tile.mma_wait_deferred).
//
// A swizzled tile [R, C] keeps its last dimension in rows of S = 32, 64 or
// 128 bytes ("atoms" of W = S / 2 elements, stacked along the rows: column
// c of row r is in row r + (c / W) * R), with the 16-byte chunks of each row
// XORed by bits 7.. of its address. Descriptors give the start address, the
// byte distance between 8-row groups (SBO = 8 * S) and, when the rows run
// along M or N (an MN-major operand), the distance between atoms along M or
// N (LBO = R * S).
//
//===----------------------------------------------------------------------===//
#include "Wgmma.h"

#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/Layout.h"
#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

/// Bytes of one element of a wgmma operand type (f16/bf16 2, f8 1).
int64_t elementBytes(Type elem) { return elem.getIntOrFloatBitWidth() / 8; }

/// The swizzle `operand` of `op` is read in: a 16-bit or 8-bit float shared
/// tile of whole 8-row groups whose rows are a multiple of 32 bytes, that
/// only whole-tile copies write and only gemms read (the ops that know
/// swizzled tiles); 0 when it cannot be.
int64_t swizzleFor(Value operand) {
  auto alloc = operand.getDefiningOp<tile::AllocOp>();
  if (!alloc || tile::getScope(alloc.getType()) != tile::MemScope::shared)
    return 0;
  MemRefType type = alloc.getType();
  Type elem = type.getElementType();
  if (type.getRank() != 2 || type.getShape()[0] % 8 ||
      !(elem.isF16() || elem.isBF16() || tile::isF8Type(elem)))
    return 0;
  int64_t rowBytes = type.getShape()[1] * elementBytes(elem);
  int64_t swizzle = rowBytes % 128 == 0  ? 128
                    : rowBytes % 64 == 0 ? 64
                    : rowBytes % 32 == 0 ? 32
                                         : 0;
  for (Operation *user : operand.getUsers()) {
    auto copy = llvm::dyn_cast<tile::CopyOp>(user);
    if (copy && copy.getDest() == operand && copy.getDestIndices().empty())
      continue;
    auto gemm = llvm::dyn_cast<tile::GemmOp>(user);
    if (gemm && gemm.getC() != operand)
      continue;
    return 0;
  }
  return swizzle;
}

/// An instruction's K for 8-bit operands (16 for 16-bit ones): 32 bytes.
constexpr int64_t kF8StepK = 32;

/// The N of each wgmma instruction of a warpgroup tile gn wide: the fewest
/// equal instructions of at most 256 columns, each a multiple of 8.
int64_t instructionN(int64_t gn) {
  int64_t split = (gn + 255) / 256;
  while (gn % (split * 8))
    ++split;
  return gn / split;
}

class WgmmaKind : public tile::MmaKind {
public:
  llvm::StringRef name() const override { return nvidia::kWgmmaKind; }
  int64_t warpSize() const override { return 128; } // a warpgroup
  int64_t tileM() const override { return 64; }
  int64_t tileN() const override { return 8; }
  int64_t tileK() const override { return 16; }
  bool supports(Type ab, Type acc) const override {
    return (ab.isF16() || ab.isBF16() || tile::isF8Type(ab)) && acc.isF32();
  }
  int64_t operandRowBytes() const override { return 32; }
  /// A in registers (FlashAttention's P): per warp, the 16 x 16 slice of a
  /// k step in the pairs of an accumulator tile 16 rows high, as mma.sync
  /// reads it; warpgroups lie along M.
  std::optional<tile::FragmentLayout>
  registerA(int64_t m, int64_t k, int64_t threads, int64_t wm) const override {
    return accumulator(m, k, threads, wm, 1);
  }
  /// Elements an instruction row reads from shared memory per k step: one
  /// 64 x 16 A slice and one 16 x N B slice per instruction (N at most 256),
  /// so a warpgroup prefers 64 x 256 to 128 x 128.
  int64_t warpTileCost(int64_t gm, int64_t gn) const override {
    int64_t instN = std::min<int64_t>(gn, 256);
    return (gm / 64) * ((gn + instN - 1) / instN) * (64 * 16 + 16 * instN);
  }
  bool operandsSuit(tile::GemmOp op) const override {
    // 8-bit operands: both K-major (wgmma transposes only 16-bit ones) and
    // from shared memory, K in steps of 32.
    if (tile::isF8Type(memrefType(op.getA()).getElementType()))
      return !op.getTransposeA() && op.getTransposeB() &&
             !tile::isFragment(op.getA()) && swizzleFor(op.getA()) &&
             swizzleFor(op.getB()) &&
             memrefType(op.getA()).getShape()[1] % kF8StepK == 0;
    return (tile::isFragment(op.getA()) || swizzleFor(op.getA())) &&
           swizzleFor(op.getB());
  }
  /// An N-major B (not transposed) is read in whole swizzle atoms: each
  /// instruction's N must be a multiple of the atom's width (64 columns of
  /// 16-bit elements at 128-byte swizzle), as lowerWgmma requires.
  bool warpTileSuits(tile::GemmOp op, int64_t gm, int64_t gn) const override {
    if (op.getTransposeB())
      return true;
    int64_t width = swizzleFor(op.getB()) /
                    elementBytes(memrefType(op.getB()).getElementType());
    return width > 0 && instructionN(gn) % width == 0;
  }
  int64_t operandSwizzle(tile::GemmOp op, Value operand) const override {
    return operandsSuit(op) ? swizzleFor(operand) : 0;
  }

  /// Warpgroup wg = wmi * wn + wni owns rows [wmi, wmi + 1) * m / wm; warp w
  /// of it rows 16w .. 16w + 15 of each 64-row instruction tile, where lane
  /// l = 4g + q holds rows g and g + 8, columns 2q and 2q + 1 of every
  /// 8-column block (the registers of one instruction, in that order).
  tile::FragmentLayout accumulator(int64_t m, int64_t n, int64_t threads,
                                   int64_t wm, int64_t wn) const override {
    tile::FragmentLayout l;
    l.threads = threads;
    l.rank = 2;
    l.addFactor(0, wm, 128 * wn);
    l.addFactor(0, m / wm / 64, 0);
    l.addFactor(0, 4, 32); // warp of the warpgroup
    l.addFactor(0, 2, 0);  // rows g and g + 8
    l.addFactor(0, 8, 4);  // g = lane / 4
    l.addFactor(1, wn, 128);
    l.addFactor(1, n / wn / 8, 0);
    l.addFactor(1, 4, 1); // q = lane % 4
    l.addFactor(1, 2, 0); // columns 2q and 2q + 1
    l.canonicalize();
    return l;
  }
};

/// Fields of a matrix descriptor that do not depend on the start address.
int64_t descriptorBits(int64_t swizzle, int64_t leadingBytes,
                       int64_t strideBytes) {
  int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  return ((leadingBytes >> 4) & 0x3FFF) << 16 |
         ((strideBytes >> 4) & 0x3FFF) << 32 | mode << 62;
}

/// The four registers of register-A operand `af` that warpgroup tile `mt`
/// reads at k step `k0`: pairs of 16-bit elements (rows g and g + 8, then
/// the same rows 8 columns on, as the accumulator layout keeps them) packed
/// into 32-bit words.
SmallVector<Value, 4>
registerSlice(OpBuilder &b, Location loc, const RegisterFragment &af,
              const llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t> &slots,
              int64_t mt, int64_t k0) {
  Type elem = memrefType(af.slots).getElementType();
  auto pairType = VectorType::get({2}, elem);
  auto wordType = VectorType::get({1}, b.getI32Type());
  SmallVector<Value, 4> words;
  for (int64_t r = 0; r < 4; ++r) {
    int64_t row = mt * 64 + (r % 2) * 8, col = k0 + (r / 2) * 8;
    SmallVector<Value, 2> pair;
    for (int64_t e = 0; e < 2; ++e)
      pair.push_back(memref::LoadOp::create(
          b, loc, af.slots, indexConst(b, loc, slots.lookup({row, col + e}))));
    Value packed = vector::FromElementsOp::create(b, loc, pairType, pair);
    Value word = vector::BitCastOp::create(b, loc, wordType, packed);
    words.push_back(
        vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
  }
  return words;
}

/// wgmma.mma_async with A from registers, as inline PTX (the NVVM op takes
/// only a descriptor for A): accumulators tied to the results, scale-d 1.
Value wgmmaRegisterA(OpBuilder &b, Location loc, Type structType, Value acc,
                     ArrayRef<Value> aRegisters, Value descB, int64_t instN,
                     bool bf16, bool transB) {
  int64_t count = instN / 2;
  std::string text;
  llvm::raw_string_ostream ptx(text);
  ptx << "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      << "wgmma.mma_async.sync.aligned.m64n" << instN << "k16.f32."
      << (bf16 ? "bf16.bf16" : "f16.f16") << " {";
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t r = 0; r < count; ++r) {
    ptx << (r ? ", $" : "$") << r;
    constraints += "=f,";
  }
  for (int64_t r = 0; r < count; ++r) {
    constraints += std::to_string(r) + ",";
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  }
  ptx << "}, {";
  for (int64_t r = 0; r < 4; ++r) {
    ptx << (r ? ", $" : "$") << 2 * count + r;
    constraints += "r,";
    operands.push_back(aRegisters[r]);
  }
  // K-major B is imm-trans-b 0, N-major 1.
  ptx << "}, $" << 2 * count + 4 << ", p, 1, 1, " << (transB ? 0 : 1) << ";\n}";
  constraints += "l";
  operands.push_back(descB);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, structType, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

} // namespace

std::unique_ptr<tile::MmaKind> nvidia::createWgmmaKind() {
  return std::make_unique<WgmmaKind>();
}

LogicalResult nvidia::lowerWgmma(KernelLowering &k, tile::GemmOp op,
                                 const tile::MmaKind &kind) {
  Value A = op.getA(), B = op.getB();
  const RegisterFragment *cf = k.fragment(op.getC());
  // A from shared memory, or registers (the `af` fragment).
  const RegisterFragment *af = k.fragment(A);
  if (!cf || !(isWorkgroup(A) || af) || !isWorkgroup(B))
    return failure();
  Type elem = memrefType(A).getElementType();
  bool f8 = tile::isF8Type(elem);
  if (!(elem.isF16() || elem.isBF16() || f8) ||
      memrefType(B).getElementType() != elem || (f8 && af))
    return failure();
  // One instruction covers 32 bytes of K.
  const int64_t elemBytes = elementBytes(elem);
  const int64_t stepK = 32 / elemBytes;
  auto cShape = memrefType(op.getC()).getShape();
  int64_t M = cShape[0], N = cShape[1];
  bool transA = op.getTransposeA(), transB = op.getTransposeB();
  auto aShape = memrefType(A).getShape();
  int64_t K = transA ? aShape[0] : aShape[1];
  auto grid = tile::matchMmaAccumulator(kind, cf->layout, M, N);
  int64_t swizzleA = af ? 0 : k.swizzleOf(A), swizzleB = k.swizzleOf(B);
  if (!grid || !(af || swizzleA) || !swizzleB || K % stepK ||
      (f8 && (transA || !transB)))
    return failure();
  auto [wm, wn] = *grid;
  if (af && (wn != 1 || transA ||
             af->layout != kind.accumulator(M, K, k.threads, wm, 1)))
    return failure();
  int64_t groupM = M / wm, groupN = N / wn, mTiles = groupM / 64;
  int64_t instN = instructionN(groupN);
  int64_t nSplit = groupN / instN;
  int64_t widthA = swizzleA / elemBytes, widthB = swizzleB / elemBytes;
  // An MN-major operand's instructions start at an atom.
  if ((!af && transA && 64 % widthA) || (!transB && instN % widthB))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value group = arith::DivUIOp::create(b, loc, k.tid, c(128));
  Value groupRow = arith::DivUIOp::create(b, loc, group, c(wn));
  Value groupCol = arith::RemUIOp::create(b, loc, group, c(wn));

  // The descriptor of the tile's storage start plus the warpgroup's bytes.
  auto baseDescriptor = [&](Value tile, Value groupBytes, int64_t bits) {
    Value address = viewByteAddress(b, loc, tile, elemBytes, /*readOnly=*/true);
    address = arith::AddIOp::create(b, loc, address, groupBytes);
    Value start = arith::ShRUIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc, arith::IndexCastUIOp::create(b, loc, i64, address),
            c64(0x3FFFF)),
        c64(4));
    return arith::OrIOp::create(b, loc, start, c64(bits)).getResult();
  };
  auto multiply = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  // A: K-major [M, K] (rows of the warpgroup at groupRow * groupM), or
  // M-major [K, M] (its atoms along M from (groupRow * groupM) / widthA).
  Value descA =
      af ? Value()
      : transA
          ? baseDescriptor(A,
                           multiply(groupRow, groupM / widthA * K * swizzleA),
                           descriptorBits(swizzleA, K * swizzleA, 8 * swizzleA))
          : baseDescriptor(A, multiply(groupRow, groupM * swizzleA),
                           descriptorBits(swizzleA, 16, 8 * swizzleA));
  Value descB = transB
                    ? baseDescriptor(B, multiply(groupCol, groupN * swizzleB),
                                     descriptorBits(swizzleB, 16, 8 * swizzleB))
                    : baseDescriptor(
                          B, multiply(groupCol, groupN / widthB * K * swizzleB),
                          descriptorBits(swizzleB, K * swizzleB, 8 * swizzleB));
  // Bytes from the warpgroup's start to the slice an instruction reads.
  auto aOffset = [&](int64_t mt, int64_t k0) {
    return transA ? ((mt * 64 / widthA) * K + k0) * swizzleA
                  : ((k0 / widthA) * M + mt * 64) * swizzleA +
                        (k0 % widthA) * elemBytes;
  };
  auto bOffset = [&](int64_t ni, int64_t k0) {
    return transB ? ((k0 / widthB) * N + ni * instN) * swizzleB +
                        (k0 % widthB) * elemBytes
                  : ((ni * instN / widthB) * K + k0) * swizzleB;
  };
  // A tile made outside the loop around the gemm has loop-invariant
  // descriptors: their offsets are added next to each instruction, in PTX
  // that LLVM cannot move. As plain adds, LLVM's LICM hoisted every
  // (operand, k step) descriptor out of the loop of a kernel with several
  // gemms, and the 64-bit values it kept live (64 registers in
  // flash_attention_bwd.tl) were spilled and reloaded before each wgmma.
  // A pipeline stage's tile changes every iteration: plain adds, which
  // LLVM folds into the descriptor's constant bits.
  auto loop = op->getParentOfType<scf::ForOp>();
  auto invariant = [&](Value tile) {
    return loop && loop.isDefinedOutsideOfLoop(tile);
  };
  bool pinA = !af && invariant(A), pinB = invariant(B);
  auto at = [&](Value desc, int64_t bytes) -> Value {
    if (!bytes)
      return desc;
    if (!(desc == descA ? pinA : pinB))
      return arith::AddIOp::create(b, loc, desc, c64(bytes >> 4));
    return LLVM::InlineAsmOp::create(
               b, loc, i64, ValueRange{desc},
               "add.s64 $0, $1, " + std::to_string(bytes >> 4) + ";", "=l,l",
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::TailCallKind::None,
               LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  };

  // Accumulators: one struct of instN / 2 floats per instruction tile;
  // register r holds offset (64 mt + 8 ((r / 2) % 2), instN ni + 8 (r / 4) +
  // r % 2) from the thread's base position.
  auto slots = cf->layout.slotsByOffset();
  auto slotOf = [&](int64_t mt, int64_t ni, int64_t r) {
    return slots.lookup(
        {mt * 64 + ((r / 2) % 2) * 8, ni * instN + (r / 4) * 8 + r % 2});
  };
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(instN / 2, f32));
  SmallVector<Value> accs;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t ni = 0; ni < nSplit; ++ni) {
      Value acc = LLVM::UndefOp::create(b, loc, structType);
      for (int64_t r = 0; r < instN / 2; ++r) {
        Value v = op.getClear() ? zero
                                : memref::LoadOp::create(b, loc, cf->slots,
                                                         c(slotOf(mt, ni, r)))
                                      .getResult();
        acc = LLVM::InsertValueOp::create(b, loc, acc, v, r);
      }
      accs.push_back(acc);
    }

  auto ptxType = elem.isBF16()                       ? NVVM::WGMMATypes::bf16
                 : llvm::isa<Float8E4M3FNType>(elem) ? NVVM::WGMMATypes::e4m3
                 : llvm::isa<Float8E5M2Type>(elem)   ? NVVM::WGMMATypes::e5m2
                                                     : NVVM::WGMMATypes::f16;
  // K-major A is "row" and K-major B "col" (imm-trans 0).
  auto layoutA = transA ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto layoutB = transB ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  // Register A operands are all packed before the fence: a register written
  // between the wgmmas of a group makes ptxas fence each one (C7519).
  SmallVector<SmallVector<Value, 4>> aRegisters;
  if (af) {
    auto aSlots = af->layout.slotsByOffset();
    for (int64_t k0 = 0; k0 < K; k0 += 16)
      for (int64_t mt = 0; mt < mTiles; ++mt)
        aRegisters.push_back(registerSlice(b, loc, *af, aSlots, mt, k0));
  }
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t k0 = 0; k0 < K; k0 += stepK)
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      for (int64_t ni = 0; ni < nSplit; ++ni) {
        Value &acc = accs[mt * nSplit + ni];
        if (af) {
          acc = wgmmaRegisterA(
              b, loc, structType, acc, aRegisters[(k0 / 16) * mTiles + mt],
              at(descB, bOffset(ni, k0)), instN, elem.isBF16(), transB);
          continue;
        }
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, structType, acc, at(descA, aOffset(mt, k0)),
            at(descB, bOffset(ni, k0)),
            NVVM::MMAShapeAttr::get(ctx, 64, instN, stepK), ptxType, ptxType,
            NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA, layoutB,
            /*satfinite=*/nullptr);
      }
    }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The pipeliner may let this group run on (and waits for it later), or
  // the wait is placed where the results are needed (MmaWaits.cpp).
  auto inFlight = op->getAttrOfType<IntegerAttr>(tile::attr::kMmaInFlight);
  if (!op->hasAttr(tile::attr::kMmaWaitDeferred))
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc,
                                       inFlight ? inFlight.getInt() : 0);
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t ni = 0; ni < nSplit; ++ni)
      for (int64_t r = 0; r < instN / 2; ++r) {
        Value value =
            LLVM::ExtractValueOp::create(b, loc, accs[mt * nSplit + ni], r);
        memref::StoreOp::create(b, loc, value, cf->slots, c(slotOf(mt, ni, r)));
      }
  return success();
}
