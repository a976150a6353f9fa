//===- Layout.h - Thread layouts of fragments ------------------*- C++ -*-===//
//
// A fragment is a tile spread over the registers of a block's threads. Its
// layout (#tile.layout, see TileDialect.td) splits every dimension into
// factors whose digits come either from the thread id or from the register
// slot, so both directions are plain mixed-radix arithmetic: the element a
// (thread, slot) holds, and the slot that holds an element. Layout inference
// (tile-infer-layouts) picks them; GPU lowerings read them.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_DIALECT_TILE_IR_LAYOUT_H
#define TLC_DIALECT_TILE_IR_LAYOUT_H

#include "tlc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace tlc::tile {

struct LayoutFactor {
  int64_t dim = 0; ///< -1: replication
  int64_t extent = 1;
  int64_t threadStride = 0; ///< > 0 for a thread factor
  int64_t slotStride = 0;   ///< > 0 for a slot factor
  bool isThread() const { return threadStride > 0; }
  bool operator==(const LayoutFactor &o) const {
    return dim == o.dim && extent == o.extent &&
           threadStride == o.threadStride && slotStride == o.slotStride;
  }
};

class FragmentLayout {
public:
  int64_t threads = 0;
  int64_t rank = 0;
  /// Dimensions in order, each major to minor; replications last.
  llvm::SmallVector<LayoutFactor> factors;

  /// `rank` is the fragment's (a dimension of extent 1 has no factor);
  /// without it, one more than the largest factor dimension.
  static FragmentLayout fromAttr(LayoutAttr attr, int64_t rank = -1);
  LayoutAttr toAttr(mlir::MLIRContext *ctx) const;
  bool operator==(const FragmentLayout &o) const {
    return threads == o.threads && rank == o.rank && factors == o.factors;
  }
  bool operator!=(const FragmentLayout &o) const { return !(*this == o); }

  /// Registers per thread.
  int64_t numSlots() const;
  /// Whether the factors of each dimension multiply to `shape` and the
  /// thread factors to `threads`.
  bool fits(llvm::ArrayRef<int64_t> shape) const;

  /// Elements per step of factor `f`'s digit within its dimension.
  int64_t elementStride(unsigned f) const;
  /// Digit of factor `f` (a slot factor) in register slot `slot`.
  int64_t slotDigit(unsigned f, int64_t slot) const;
  /// Index of the element that thread `tid` holds in register `slot`.
  llvm::SmallVector<mlir::Value> elementIndex(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::Value tid,
                                              int64_t slot) const;
  /// Digit of thread factor `f` for thread `tid`.
  mlir::Value threadDigit(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value tid, unsigned f) const;
  /// True (i1) for the thread of each replication group that writes shared
  /// results (all replication digits zero); null when nothing is
  /// replicated.
  mlir::Value isFirstReplica(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value tid) const;

  /// The layout of the same threads seen through the dimensions `kept` (in
  /// increasing order): thread factors of other dimensions become
  /// replications, their slot factors disappear.
  FragmentLayout project(llvm::ArrayRef<int64_t> kept) const;
  /// The slot of project(kept) holding the element of this layout's `slot`.
  int64_t projectedSlot(llvm::ArrayRef<int64_t> kept, int64_t slot) const;

  /// Appends a factor of `extent` (nothing when it is 1) over dimension
  /// `dim`: a thread factor when `threadStride` > 0, else a slot factor
  /// (its slot stride is set by canonicalize()).
  void addFactor(int64_t dim, int64_t extent, int64_t threadStride) {
    if (extent > 1)
      factors.push_back({dim, extent, threadStride, threadStride ? 0 : 1});
  }

  /// Slot strides in canonical order (the last slot factor is the fastest),
  /// so equal layouts compare equal.
  void canonicalize();

  /// The innermost dimension over lanes with `vector` consecutive elements
  /// per thread (so a warp may cover several short rows), the threads left
  /// over on the next dimensions outward; threads left after that replicate.
  static FragmentLayout rowMajor(llvm::ArrayRef<int64_t> shape, int64_t threads,
                                 int64_t vector);
  /// The accumulator layout of the SIMT (FMA) gemm: each thread holds an
  /// (M/tm) x (N/tn) grid of elements strided by the thread grid tm x tn.
  static FragmentLayout simtAccumulator(int64_t m, int64_t n, int64_t threads);
  /// Register slot of each (row, column) offset that slots add to the
  /// thread's base position: inverse of the slot part of elementIndex.
  llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t> slotsByOffset() const;
};

class GemmOp;

/// A family of warp-level matrix instructions (a "MMA kind") as layout
/// inference and the gemm lowering see it: the tile of C one warp (or wave)
/// computes per instruction, the element types it takes and the register
/// layouts of its accumulator and of an A operand in registers. Each GPU
/// vendor's lowering implements its kinds and registers them under the name
/// a #tile.target's `mma` parameter gives.
class MmaKind {
public:
  virtual ~MmaKind() = default;
  virtual llvm::StringRef name() const = 0;
  /// Threads of one warp or wave.
  virtual int64_t warpSize() const = 0;
  /// The C tile (tileM x tileN) one instruction computes over tileK.
  virtual int64_t tileM() const = 0;
  virtual int64_t tileN() const = 0;
  virtual int64_t tileK() const = 0;
  /// Whether A and B of type `ab` accumulating in `acc` are supported.
  virtual bool supports(mlir::Type ab, mlir::Type acc) const = 0;
  /// Shared operand rows must be a multiple of this many bytes.
  virtual int64_t operandRowBytes() const { return 1; }
  /// The accumulator layout of an m x n C tile whose warps form a wm x wn
  /// grid over it, each warp owning (m/wm) x (n/wn).
  virtual FragmentLayout accumulator(int64_t m, int64_t n, int64_t threads,
                                     int64_t wm, int64_t wn) const = 0;
  /// The layout an m x k A operand in registers must have when wm warps
  /// (all along M) consume it; none when A must come from shared memory.
  virtual std::optional<FragmentLayout>
  registerA(int64_t m, int64_t k, int64_t threads, int64_t wm) const {
    return std::nullopt;
  }
  /// What a warp (group) tile of gm x gn costs in operand reads per k step,
  /// for choosing the warp grid (lower is better). Default: its perimeter.
  virtual int64_t warpTileCost(int64_t gm, int64_t gn) const { return gm + gn; }
  /// Whether the kind's instructions can compute `op` with warp (group)
  /// tiles of gm x gn (a grid that does not suit is not planned; when none
  /// does, the next kind is tried).
  virtual bool warpTileSuits(GemmOp op, int64_t gm, int64_t gn) const;
  /// Whether registerA() can ever give a layout (a kind without it is not
  /// planned for gemms whose accumulator feeds another gemm's A).
  virtual bool hasRegisterA() const { return true; }
  /// Whether the kind can read `op`'s operands where they are kept, beyond
  /// what planMma checks (types, sizes, shared memory).
  virtual bool operandsSuit(GemmOp op) const;
  /// The swizzle (bytes; 0 for none) in which the kind reads the shared
  /// tile `operand` of `op` (see tile.swizzle in AttrNames.h).
  virtual int64_t operandSwizzle(GemmOp op, mlir::Value operand) const;
};

/// Makes `kind` known under kind->name() (a second kind of the same name is
/// ignored). Vendors call this from their registration function.
void registerMmaKind(std::unique_ptr<MmaKind> kind);
/// The registered kind called `name`, or null.
const MmaKind *lookupMmaKind(llvm::StringRef name);
/// The kinds of a comma-separated list (a #tile.target's `mma`), in order;
/// none when a name is unknown (then `unknown` is set to it).
std::optional<llvm::SmallVector<const MmaKind *>>
lookupMmaKinds(llvm::StringRef list, std::string *unknown = nullptr);

/// How a gemm runs on an MMA kind: the warp grid over C.
struct MmaPlan {
  int64_t warpsM = 1, warpsN = 1;
  FragmentLayout accumulator;
  /// When A is a register fragment: the layout it must have.
  std::optional<FragmentLayout> registerA;
};
/// The MMA plan for `op` with `threads` threads on `kind`, when its operands
/// suit it: supported element types, B (and A) in shared memory with rows of
/// a multiple of kind.operandRowBytes(), or A a register fragment the kind
/// can read (then all warps lie along M), sizes multiples of the
/// instruction tile and whole warps. `rowWarps` also puts all warps along M
/// (for accumulators that become an A operand). Lowerings that have already
/// placed the operands in shared memory (and checked that) pass
/// `operandsInShared`. `warpsM`: only warp grids with that many warps
/// along M (the gemm's `warps_m` hint).
std::optional<MmaPlan> planMma(GemmOp op, int64_t threads, const MmaKind &kind,
                               bool operandsInShared = false,
                               bool rowWarps = false,
                               std::optional<int64_t> warpsM = std::nullopt);
/// The warp grid (wm, wn) for which `layout` is kind's accumulator layout of
/// an m x n tile, if there is one.
std::optional<std::pair<int64_t, int64_t>>
matchMmaAccumulator(const MmaKind &kind, const FragmentLayout &layout,
                    int64_t m, int64_t n);

/// The first of `kinds` whose accumulator layout `op`'s C (a fragment with
/// a layout) has, or null: the kind the gemm was planned on.
const MmaKind *accumulatorKind(GemmOp op,
                               llvm::ArrayRef<const MmaKind *> kinds);

class ParallelOp;

/// The dimensions of a `tile.parallel` iteration space that `indices` are,
/// when each index is a different loop index of `body` and they come in
/// increasing order (`m[i]` in a loop over `(i, j)` gives {0}).
std::optional<llvm::SmallVector<int64_t>>
loopIndexDims(mlir::ValueRange indices, mlir::Block &body);

/// A memref.load or memref.store: the memref, its indices and whether it
/// writes.
struct ElementAccess {
  mlir::Value memref;
  mlir::ValueRange indices;
  bool isStore = false;
};
std::optional<ElementAccess> getElementAccess(mlir::Operation *op);

/// A fragment tile: a `tile.alloc` result in the fragment scope.
bool isFragment(mlir::Value v);
/// The layout on a fragment's `tile.alloc`, if inference has set one.
std::optional<FragmentLayout> getLayout(mlir::Value fragment);

/// How a block's threads share the iterations of a `tile.parallel`.
struct ParallelPlan {
  enum Kind {
    /// Iterations follow the layout of `anchor`, a fragment accessed at
    /// exactly the loop indices: each thread runs the points it holds.
    Owned,
    /// Iterations are dealt round-robin over the threads.
    Strided,
    /// Every thread runs every iteration (the body writes a `local` tile).
    Redundant
  } kind = Strided;
  mlir::Value anchor;
};
ParallelPlan planParallel(ParallelOp op);

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_LAYOUT_H
