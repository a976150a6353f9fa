//===- VulkanTargetInfo.cpp - Vulkan's part of the tile lowering ----------===//
//
// What convert-tile-to-gpu uses on Vulkan: subgroup shuffles of the
// subgroup size the -arch promises (the stub requires it from the device
// through VK_EXT_subgroup_size_control) through the default gpu.shuffle,
// which convert-gpu-to-spirv turns into OpGroupNonUniformShuffleXor. There
// are no asynchronous copies. Gemms of f16 into f32 run on cooperative
// matrices (VK_KHR_cooperative_matrix) where the -arch's profile names a
// cooperative-matrix kind, and on FMAs otherwise. Everything SPIR-V's
// logical addressing cannot express (pointer arguments, reinterpreted and
// strided views, one shared buffer of bytes) is rewritten afterwards by
// tile-vulkan-prepare-spirv.
//
//===----------------------------------------------------------------------===//
#include "../KernelLowering.h"

#include "tlc/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

namespace {

/// Square T x T x T cooperative matrices of f16 accumulating in f32, one
/// per subgroup of `subgroup` invocations (T = 16 on NVIDIA's drivers, 8 on
/// lavapipe). Which invocation holds which element of a cooperative matrix
/// is the driver's secret, so the accumulator's register layout is tlc's
/// own: lane l holds E = T * T / subgroup consecutive elements of row
/// l / (T / E) of each T x T tile of its subgroup's part of C. A gemm moves
/// each tile through a per-subgroup T x T scratch in workgroup memory into a
/// cooperative matrix and back (OpCooperativeMatrixLoadKHR / StoreKHR).
class CoopMatrixKind : public tile::MmaKind {
public:
  CoopMatrixKind(int64_t size, int64_t subgroup)
      : size(size), subgroup(subgroup),
        kindName("coopmat_" + std::to_string(size) + "x" +
                 std::to_string(size) + "x" + std::to_string(size) + "_sg" +
                 std::to_string(subgroup)) {}

  llvm::StringRef name() const override { return kindName; }
  int64_t warpSize() const override { return subgroup; }
  int64_t tileM() const override { return size; }
  int64_t tileN() const override { return size; }
  int64_t tileK() const override { return size; }
  bool supports(Type ab, Type acc) const override {
    return ab.isF16() && acc.isF32();
  }
  /// Cooperative matrix loads want 16-byte aligned rows.
  int64_t operandRowBytes() const override { return 16; }
  bool hasRegisterA() const override { return false; }

  /// Elements of a tile each lane holds, and lanes per tile row.
  int64_t perLane() const { return size * size / subgroup; }
  int64_t lanesPerRow() const { return size / perLane(); }

  tile::FragmentLayout accumulator(int64_t m, int64_t n, int64_t threads,
                                   int64_t wm, int64_t wn) const override {
    tile::FragmentLayout l;
    l.threads = threads;
    l.rank = 2;
    int64_t mt = m / wm / size, nt = n / wn / size;
    // Thread id = subgroup * S + lane, subgroup = wmi * wn + wni.
    l.addFactor(0, wm, subgroup * wn);
    l.addFactor(0, mt, 0);
    l.addFactor(0, size, lanesPerRow()); // the lane's row in the tile
    l.addFactor(1, wn, subgroup);
    l.addFactor(1, nt, 0);
    l.addFactor(1, lanesPerRow(), 1); // the lane's group of E columns
    l.addFactor(1, perLane(), 0);
    l.canonicalize();
    return l;
  }

  int64_t size, subgroup;

private:
  std::string kindName;
};

/// A control barrier of the subgroup that makes its workgroup-memory writes
/// visible to its other invocations (the scratch between the registers and
/// a cooperative matrix is the subgroup's own).
void subgroupBarrier(OpBuilder &b, Location loc) {
  spirv::ControlBarrierOp::create(b, loc, spirv::Scope::Subgroup,
                                  spirv::Scope::Workgroup,
                                  spirv::MemorySemantics::AcquireRelease |
                                      spirv::MemorySemantics::WorkgroupMemory);
}

/// The row stride (elements) of a shared tile with unit column stride.
std::optional<int64_t> rowStride(Value tile) {
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(memrefType(tile).getStridesAndOffset(strides, offset)) ||
      strides.size() != 2 || strides[1] != 1 ||
      ShapedType::isDynamic(strides[0]))
    return std::nullopt;
  return strides[0];
}

/// The gemm on cooperative matrices when C has the kind's accumulator
/// layout and A and B are f16 tiles in workgroup memory.
LogicalResult lowerCoopMatrix(KernelLowering &k, tile::GemmOp op,
                              const CoopMatrixKind &kind) {
  Value A = op.getA(), B = op.getB();
  const RegisterFragment *cf = k.fragment(op.getC());
  auto cShape = memrefType(op.getC()).getShape();
  int64_t M = cShape[0], N = cShape[1], T = kind.size;
  int64_t K = op.getTransposeA() ? memrefType(A).getShape()[0]
                                 : memrefType(A).getShape()[1];
  Type elem = memrefType(A).getElementType();
  auto grid = tile::matchMmaAccumulator(kind, cf->layout, M, N);
  std::optional<int64_t> aStride = rowStride(A), bStride = rowStride(B);
  if (!grid || !kind.supports(elem, memrefType(op.getC()).getElementType()) ||
      memrefType(B).getElementType() != elem || K % T || !isWorkgroup(A) ||
      !isWorkgroup(B) || !aStride || !bStride || k.swizzleOf(A) ||
      k.swizzleOf(B))
    return failure();
  auto [wm, wn] = *grid;

  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t S = kind.subgroup, E = kind.perLane(), mTiles = M / wm / T,
          nTiles = N / wn / T;
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  Value lane = arith::RemUIOp::create(b, loc, k.tid, c(S));
  Value group = arith::DivUIOp::create(b, loc, k.tid, c(S));
  Value row0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, group, c(wn)), c(M / wm));
  Value col0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, group, c(wn)), c(N / wn));
  // This subgroup's T x T scratch, and where the lane's E elements are in it.
  Value scratch = k.scratch(b, loc, b.getF32Type(), (k.threads / S) * T * T);
  Value tileStart = arith::MulIOp::create(b, loc, group, c(T * T));
  Value laneStart = arith::AddIOp::create(
      b, loc, tileStart,
      arith::MulIOp::create(b, loc, lane, c(E))); // row * T + columns * E

  auto slots = cf->layout.slotsByOffset();
  auto slotOf = [&](int64_t mt, int64_t nt, int64_t e) {
    auto it = slots.find({mt * T, nt * T + e});
    assert(it != slots.end() && "the accumulator layout has every element");
    return it->second;
  };
  auto accType = gpu::MMAMatrixType::get({T, T}, b.getF32Type(), "COp");
  auto aType = gpu::MMAMatrixType::get({T, T}, elem, "AOp");
  auto bType = gpu::MMAMatrixType::get({T, T}, elem, "BOp");
  auto lead = [&](int64_t v) { return b.getIndexAttr(v); };
  UnitAttr transposed = b.getUnitAttr();

  SmallVector<Value> accs;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      if (op.getClear()) {
        accs.push_back(
            gpu::SubgroupMmaConstantMatrixOp::create(b, loc, accType, zero));
        continue;
      }
      for (int64_t e = 0; e < E; ++e) {
        Value v =
            memref::LoadOp::create(b, loc, cf->slots, c(slotOf(mt, nt, e)));
        memref::StoreOp::create(
            b, loc, v, scratch,
            ValueRange{arith::AddIOp::create(b, loc, laneStart, c(e))});
      }
      subgroupBarrier(b, loc);
      accs.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, accType, scratch, ValueRange{tileStart}, lead(T),
          UnitAttr()));
      subgroupBarrier(b, loc); // before the next tile's writes
    }

  auto loop = scf::ForOp::create(b, loc, c(0), c(K), c(T), accs);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kk = loop.getInductionVar();
    SmallVector<Value> aOps, bOps;
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      Value row = arith::AddIOp::create(b, loc, row0, c(mt * T));
      // A^T is stored K x M: the same T x T block read column-major.
      aOps.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, aType, A,
          op.getTransposeA() ? ValueRange{kk, row} : ValueRange{row, kk},
          lead(*aStride), op.getTransposeA() ? transposed : UnitAttr()));
    }
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      Value col = arith::AddIOp::create(b, loc, col0, c(nt * T));
      bOps.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, bType, B,
          op.getTransposeB() ? ValueRange{col, kk} : ValueRange{kk, col},
          lead(*bStride), op.getTransposeB() ? transposed : UnitAttr()));
    }
    SmallVector<Value> next;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t nt = 0; nt < nTiles; ++nt)
        next.push_back(gpu::SubgroupMmaComputeOp::create(
            b, loc, aOps[mt], bOps[nt],
            loop.getRegionIterArgs()[mt * nTiles + nt], UnitAttr(),
            UnitAttr()));
    scf::YieldOp::create(b, loc, next);
  }

  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      gpu::SubgroupMmaStoreMatrixOp::create(
          b, loc, loop.getResult(mt * nTiles + nt), scratch,
          ValueRange{tileStart}, lead(T), UnitAttr());
      subgroupBarrier(b, loc);
      for (int64_t e = 0; e < E; ++e) {
        Value v = memref::LoadOp::create(
            b, loc, scratch,
            ValueRange{arith::AddIOp::create(b, loc, laneStart, c(e))});
        memref::StoreOp::create(b, loc, v, cf->slots, c(slotOf(mt, nt, e)));
      }
      subgroupBarrier(b, loc);
    }
  // The scratch is shared with the block's reductions: the block barrier
  // after every op that reads shared tiles (TileOpLowering) orders this
  // subgroup's last reads before their writes.
  return success();
}

class VulkanTargetInfo : public GPUTargetInfo {
public:
  using GPUTargetInfo::GPUTargetInfo;

  LogicalResult lowerMmaGemm(KernelLowering &k,
                             tile::GemmOp op) const override {
    auto *kind = dynamic_cast<const CoopMatrixKind *>(
        tile::lookupMmaKind(target.getMma()));
    if (!kind)
      return failure();
    return lowerCoopMatrix(k, op, *kind);
  }
};

} // namespace

void gpu_lowering::vulkan::registerTargetInfo() {
  // The cooperative-matrix shapes of the Vulkan profiles (VulkanTarget.cpp).
  tile::registerMmaKind(std::make_unique<CoopMatrixKind>(16, 32));
  tile::registerMmaKind(std::make_unique<CoopMatrixKind>(8, 8));
  // Metal's kernels are this SPIR-V, translated to MSL: the same lowering
  // (its profiles name no cooperative-matrix kind).
  for (llvm::StringRef vendor : {"vulkan", "metal"})
    registerGPUTargetInfo(
        vendor,
        [](tile::TargetAttr target) -> std::unique_ptr<GPUTargetInfo> {
          return std::make_unique<VulkanTargetInfo>(target);
        },
        [](DialectRegistry &registry) {
          registry.insert<spirv::SPIRVDialect>();
        });
}
