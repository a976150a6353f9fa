//===- Sema.h - Name resolution, types, shapes, constants -------*- C++ -*-===//
//
// Sema checks a parsed program and annotates its AST in place: every name is
// bound to a Symbol, every expression gets a Type (and a ConstValue when it is
// known at compile time), parameters are evaluated (defaults, then -D), and
// every tile op is checked for shapes and dtypes. Generic tile fns are
// instantiated per distinct set of bindings (each instance is a checked clone).
// After a successful check, MLIRGen and the stub emitter need no further
// checking.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_SEMA_H
#define TLC_FRONTEND_SEMA_H

#include "tlc/Frontend/AST.h"
#include "tlc/Frontend/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <deque>
#include <map>
#include <set>

namespace tlc {

enum class SymbolKind {
  Param,      // compile-time value or dtype parameter
  SymDim,     // symbolic dimension bound from argument shapes
  Arg,        // kernel or tile fn argument (tensor, tile or scalar)
  Tile,       // shared / fragment / local allocation
  Let,        // immutable scalar
  Var,        // mutable scalar
  LoopVar,    // `for` induction variable
  BlockIndex, // `as (bx, ...)`
  ParallelIndex,
  Constant, // builtins such as inf and pi
};

struct Symbol {
  SymbolKind kind;
  std::string name;
  llvm::SMRange range;
  Type type;
  std::optional<ConstValue> constValue;
  int index = -1; // argument position, grid dimension or parallel dimension
  /// A view (`let Xf = view(X, ...)`): the kernel argument it views.
  Symbol *viewOf = nullptr;
};

/// One (argument, dimension) position bound to a symbolic dimension.
struct DimUse {
  unsigned arg;
  unsigned dim;
};

struct SymDimInfo {
  std::string name;
  std::vector<DimUse> uses;
  std::optional<int64_t> staticValue; // from -D NAME=V
};

/// One candidate of a kernel's tune space: a value for each tuned parameter,
/// in the order of the `tune` clause.
using TunePoint = std::vector<std::pair<std::string, ConstValue>>;

/// Everything later stages need about one checked kernel.
/// A tensor dimension given by an expression of symbolic dimensions and
/// parameters (`X: f32[N * H, D]`), which the stub checks.
struct DerivedDimInfo {
  unsigned arg;
  unsigned dim;
  const Expr *expr;
};

/// A reshaped view of a contiguous tensor argument (`let Xf = view(X, N *
/// H, D)`): the stub checks that the argument is contiguous and that the
/// view has as many elements.
struct TensorViewInfo {
  unsigned arg;
  std::vector<const Expr *> dims;
  std::string text; // the shape as written: "[N * H, D]"
};

struct KernelInfo {
  KernelDecl *decl = nullptr;
  std::string name;
  std::vector<std::pair<std::string, ConstValue>> params; // final values
  std::vector<SymDimInfo> symDims;
  std::vector<DerivedDimInfo> derivedDims;
  std::vector<TensorViewInfo> views;
  std::vector<Symbol *> args;
  int64_t threads = 128;
  /// Blocks per thread block cluster (`cluster(c)`; 1: none).
  int64_t cluster = 1;
  /// The tune space: the tuned parameters (those fixed with -D left out)
  /// and every point the `where` constraint admits, first axis slowest.
  std::vector<std::string> tuneAxes;
  std::vector<TunePoint> tunePoints;
  size_t tuneExcluded = 0; // points the constraint rejected
};

/// An argument of a kernel launch in an operation.
struct LaunchArg {
  enum Kind { Tensor, Scratch, Scalar } kind = Tensor;
  unsigned index = 0;          // the operation's argument or scratch tensor
  const Expr *value = nullptr; // Scalar: computed by the stub
};

struct OperationLaunch {
  const KernelInfo *kernel = nullptr;
  const CallExpr *call = nullptr;
  std::vector<LaunchArg> args; // one per kernel argument
  /// The `if` conditions the launch is under, outermost first, each with
  /// the branch (true: then, false: else).
  std::vector<std::pair<const Expr *, bool>> guards;
};

/// A checked operation: its own signature (arguments, symbolic dimensions,
/// parameters; no grid), its scratch tensors and its launches in order.
struct OperationInfo {
  OperationDecl *decl = nullptr;
  KernelInfo signature;
  std::vector<const ScratchDecl *> scratch;
  std::vector<OperationLaunch> launches;
};

/// A checked instance of a (possibly generic) tile fn.
struct FnInstance {
  FnDecl *generic = nullptr;
  std::unique_ptr<FnDecl> decl; // checked clone
  std::vector<ConstValue> bindings;
  std::string mangledName;
  std::vector<Symbol *> args;
  Type returnType;
  /// Scope of each tile argument declared without one (taken from the call).
  std::vector<std::optional<MemScope>> argScopes;
  /// Declares tiles or runs tile ops (directly or through calls), so it
  /// cannot be called inside `parallel`.
  bool usesTileOps = false;
};

/// The main file and every file it imports, each parsed once.
struct Program {
  std::vector<std::unique_ptr<Module>> modules; // modules[0] is the main file
};

/// Which kernels of the main file a check covers, and under what names: the
/// tuned variants of a kernel are checked one at a time, each renamed.
struct KernelSelection {
  std::set<std::string> only; // empty: every kernel
  std::set<std::string> skip;
  std::string suffix; // appended to the name of every checked kernel
  /// Warn about -D names no checked kernel uses (off when the caller
  /// checks the program several times and judges the union).
  bool warnUnusedDefines = true;
};

class Sema {
public:
  /// `defines` maps NAME to the text after `-D NAME=`; `constants` are
  /// builtin integer constants (the target's, such as target_warp_size).
  Sema(DiagnosticEngine &diags, std::map<std::string, std::string> defines,
       std::map<std::string, int64_t> constants = {});
  ~Sema();

  /// Checks the program. Returns false if any error was reported.
  bool check(Program &program);
  /// Restricts and renames what check() covers.
  void select(KernelSelection selection);
  /// The -D names some checked kernel used.
  std::vector<std::string> usedDefines() const;

  const std::vector<KernelInfo> &kernels() const { return kernelInfos; }
  const std::deque<FnInstance> &fnInstances() const { return instances; }
  const std::vector<OperationInfo> &operations() const {
    return operationInfos;
  }

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  std::vector<KernelInfo> kernelInfos;
  std::vector<OperationInfo> operationInfos;
  std::deque<FnInstance> instances;
};

/// Deep copy of a tile fn declaration (Sema annotations are not copied).
std::unique_ptr<FnDecl> cloneFn(const FnDecl &fn);

} // namespace tlc

#endif // TLC_FRONTEND_SEMA_H
