//===- KernelSignature.h - What a launch stub needs of a kernel -*- C++ -*-===//
//
// The kernel as its callers see it: name, parameter values, arguments
// (dtype, shape with symbolic dimensions, in/out), symbolic dimensions and
// their uses, threads per block and the grid as host expressions. MLIRGen
// puts it on each kernel as the `tile.signature` attribute, so a target
// builds stubs from the IR alone: no AST and no Sema state.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_STUB_KERNELSIGNATURE_H
#define TLC_STUB_KERNELSIGNATURE_H

#include "tlc/Frontend/Types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc {

/// How a grid (sub)expression is computed on the host.
enum class HostKind { Int, Float, Bool };

/// How values of type `t` are computed on the host.
inline HostKind hostKindOf(const Type &t) {
  if (t.kind == TypeKind::Float ||
      (t.kind == TypeKind::Scalar && isFloat(t.dtype)))
    return HostKind::Float;
  if (t.isBool())
    return HostKind::Bool;
  return HostKind::Int;
}

/// One node of a grid expression, computed by the stub before the launch.
/// The spellings of GridExpr's operators, in the order of the frontend's
/// UnaryOp and BinaryOp (Signature.cpp maps those to them; reading a
/// signature accepts only these, as they are printed into the stub's C++).
extern const char *const kGridUnaryOps[3];
extern const char *const kGridBinaryOps[18];

struct GridExpr {
  enum Kind {
    Const,      ///< `value`
    SymDim,     ///< the symbolic dimension `name`
    ScalarArg,  ///< scalar argument number `arg`
    Unary,      ///< `op` ("-", "!" or "~") of operands[0]
    Binary,     ///< operands[0] `op` operands[1], computed as `operandKind`
    Select,     ///< operands[0] ? operands[1] : operands[2]
    Call,       ///< `name`(operands...): cdiv, min, max, pow, exp, ...
    Cast,       ///< operands[0] converted to `castTo`
    Unsupported ///< cannot be computed before the launch; `name` says why
  } kind = Const;
  HostKind type = HostKind::Int;
  ConstValue value;
  std::string name;
  unsigned arg = 0;
  std::string op;
  HostKind operandKind = HostKind::Int;
  DType castTo = DType::I64;
  std::vector<GridExpr> operands;
};

enum class ArgAccess { In, Out, InOut };

struct SignatureArg {
  std::string name;
  /// A tensor (TypeKind::Tensor, with dtype and shape) or a scalar.
  Type type;
  ArgAccess access = ArgAccess::In;
  /// The name a dimension was declared with (`K` in `f32[M, K]` when K is
  /// a parameter), "" otherwise; for the stub's messages.
  std::vector<std::string> dimNames;
  bool isTensor() const { return type.kind == TypeKind::Tensor; }
};

/// A dimension of an argument.
struct DimPosition {
  unsigned arg = 0;
  unsigned dim = 0;
};

struct SignatureDim {
  std::string name;
  /// The positions bound to it; the first binds it.
  std::vector<DimPosition> uses;
  /// Fixed by -D NAME=V.
  std::optional<int64_t> staticValue;
};

/// A dimension given by an expression of the symbolic dimensions and
/// parameters (`X: f32[N * H, D]`): the stub checks the argument's size.
struct DerivedDim {
  unsigned arg = 0;
  unsigned dim = 0;
  GridExpr value;
  std::string text; // as written, for messages
};

/// A reshaped view of a tensor argument (`let Xf = view(X, N * H, D)`):
/// the stub checks that the argument is contiguous and has as many
/// elements as `shape`.
struct ViewedTensor {
  unsigned arg = 0;
  std::vector<GridExpr> shape;
  std::string text; // "[N * H, D]", for messages
};

struct KernelSignature {
  std::string name;
  /// Final parameter values, printed ("BM=128", "T=f16").
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<SignatureArg> args;
  std::vector<SignatureDim> symDims;
  std::vector<DerivedDim> derivedDims;
  std::vector<ViewedTensor> views;
  int64_t threads = 128;
  /// Blocks per thread block cluster along x (1: no clusters).
  int64_t cluster = 1;
  /// One expression per grid dimension (1 to 3).
  std::vector<GridExpr> grid;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *ctx) const;
  /// Null when `attr` is not a well-formed signature.
  static std::optional<KernelSignature> fromAttr(mlir::DictionaryAttr attr);
};

/// A tensor the stub of an operation allocates for its kernels, contiguous,
/// with dimensions computed on the host.
struct ScratchTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<GridExpr> shape;
};

/// An argument of one of an operation's launches.
struct LaunchArgument {
  enum Kind { Tensor, Scratch, Scalar } kind = Tensor;
  unsigned index = 0; ///< Tensor: the operation's argument; Scratch: its
                      ///< scratch tensor
  GridExpr value;     ///< Scalar
  DType scalarType = DType::I64; ///< Scalar: the kernel's argument dtype
};

struct KernelLaunch {
  std::string kernel;
  std::vector<LaunchArgument> args;
  /// Launched only when this host bool holds (the operation's `if`s it is
  /// under); none: always.
  std::optional<GridExpr> when;
};

/// An operation as its callers see it (`signature`: name, parameters,
/// arguments, symbolic dimensions; no grid) and what its stub does: allocate
/// the scratch tensors, launch the kernels in order, free the scratch.
struct OperationSignature {
  KernelSignature signature;
  std::vector<ScratchTensor> scratch;
  std::vector<KernelLaunch> launches;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *ctx) const;
  static std::optional<OperationSignature> fromAttr(mlir::DictionaryAttr attr);
};

/// A tensor map (a descriptor of a tensor for a GPU's tensor-copy unit) that
/// a compiled GPU kernel takes as a trailing parameter: of the tensor whose
/// data pointer is kernel parameter `param`, for boxes of `box` elements
/// (outermost dimension first) landing in tiles swizzled by `swizzle` bytes.
struct TensorMapParam {
  unsigned param = 0;
  std::vector<int64_t> box;
  int64_t swizzle = 0;
  /// The kernel only stores through this map (tile.store_staging): when the
  /// tensor does not suit the tensor-copy unit, the entry still runs, with
  /// its store flag 0 (it then stores from registers; docs/abi.md).
  bool store = false;
};

/// The signatures on the kernels of `module` (attribute tile.signature), in
/// order; nullopt (and an error on the op) when one is malformed.
std::optional<std::vector<KernelSignature>>
collectSignatures(mlir::ModuleOp module);

/// The operations of `module` (attribute tile.operations); nullopt (and an
/// error) when one is malformed.
std::optional<std::vector<OperationSignature>>
collectOperations(mlir::ModuleOp module);

} // namespace tlc

#endif // TLC_STUB_KERNELSIGNATURE_H
