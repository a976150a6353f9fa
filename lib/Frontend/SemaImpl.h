//===- SemaImpl.h - Sema's implementation class (private) -------*- C++ -*-===//
//
// Sema::Impl is split over Sema.cpp (scopes, types, kernels, the program),
// SemaExpr.cpp (expressions and builtin calls), SemaTileOps.cpp (tile ops and
// tile fn instances) and SemaStmt.cpp (statements).
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_FRONTEND_SEMAIMPL_H
#define TLC_LIB_FRONTEND_SEMAIMPL_H

#include "tlc/Frontend/Sema.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>
#include <set>

namespace tlc::sema {
using llvm::SMRange;
using llvm::StringRef;

enum class TileOpKind { None, Copy, Fill, Gemm, Reduce, Atomic, ClusterReduce };

inline TileOpKind tileOpKind(StringRef name) {
  return llvm::StringSwitch<TileOpKind>(name)
      .Case("copy", TileOpKind::Copy)
      .Case("fill", TileOpKind::Fill)
      .Case("gemm", TileOpKind::Gemm)
      .Cases({"reduce_sum", "reduce_max", "reduce_min", "reduce_absmax"},
             TileOpKind::Reduce)
      .Cases({"atomic_add", "atomic_max", "atomic_min"}, TileOpKind::Atomic)
      .Cases({"cluster_reduce_sum", "cluster_reduce_max", "cluster_reduce_min"},
             TileOpKind::ClusterReduce)
      .Default(TileOpKind::None);
}

/// Unary float math builtins; abs also takes integers.
inline bool isUnaryMath(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf"},
             true)
      .Cases({"sin", "cos", "floor", "ceil", "abs", "sigmoid"}, true)
      .Default(false);
}

inline double foldUnaryMath(StringRef name, double x) {
  return llvm::StringSwitch<double>(name)
      .Case("exp", std::exp(x))
      .Case("exp2", std::exp2(x))
      .Case("log", std::log(x))
      .Case("log2", std::log2(x))
      .Case("sqrt", std::sqrt(x))
      .Case("rsqrt", 1.0 / std::sqrt(x))
      .Case("tanh", std::tanh(x))
      .Case("erf", std::erf(x))
      .Case("sin", std::sin(x))
      .Case("cos", std::cos(x))
      .Case("floor", std::floor(x))
      .Case("ceil", std::ceil(x))
      .Case("abs", std::fabs(x))
      .Case("sigmoid", 1.0 / (1.0 + std::exp(-x)))
      .Default(x);
}

inline bool isIntegerLike(const Type &t) {
  return t.kind == TypeKind::Int ||
         (t.kind == TypeKind::Scalar && !isFloat(t.dtype) &&
          t.dtype != DType::Bool);
}

inline std::string shapeStr(const std::vector<Dim> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + shape[i].str();
  return s + "]";
}

/// Parses the text of a `-D NAME=TEXT` define.
inline std::optional<ConstValue> parseDefineValue(StringRef text) {
  text = text.trim();
  if (text == "true")
    return ConstValue::ofBool(true);
  if (text == "false")
    return ConstValue::ofBool(false);
  if (auto d = parseDType(text))
    return ConstValue::ofDType(*d);
  int64_t i;
  // Decimal (a leading 0 is still decimal), or 0x / 0b / 0o prefixed.
  unsigned radix = 10;
  llvm::StringRef digits = text, sign;
  if (digits.consume_front("-"))
    sign = "-";
  if (digits.consume_front("0x") || digits.consume_front("0X"))
    radix = 16;
  else if (digits.consume_front("0b") || digits.consume_front("0B"))
    radix = 2;
  else if (digits.consume_front("0o") || digits.consume_front("0O"))
    radix = 8;
  if (!digits.empty() && !digits.getAsInteger(radix, i))
    return ConstValue::ofInt(sign.empty() ? i : -i);
  double f;
  if (!text.getAsDouble(f))
    return ConstValue::ofFloat(f);
  return std::nullopt;
}

inline Type typeOfConst(const ConstValue &c) {
  switch (c.kind) {
  case ConstValue::Int:
    return Type::intTy();
  case ConstValue::Float:
    return Type::floatLit();
  case ConstValue::Bool:
    return Type::scalar(DType::Bool);
  case ConstValue::DTypeVal: {
    Type t;
    t.kind = TypeKind::DTypeValue;
    t.dtype = c.dtype;
    return t;
  }
  }
  return Type::invalid();
}
} // namespace tlc::sema

namespace tlc {
using namespace tlc::sema;

struct Sema::Impl {
  Sema &self;
  DiagnosticEngine &diags;
  std::map<std::string, std::string> defines;
  llvm::StringSet<> usedDefines;
  KernelSelection selection;
  /// Parameter values that take precedence over -D and defaults: the tune
  /// point being evaluated.
  const TunePoint *paramOverrides = nullptr;
  std::deque<Symbol> symbols;
  std::vector<llvm::StringMap<Symbol *>> scopes;
  llvm::StringMap<FnDecl *> fns;
  std::vector<const FnDecl *> instantiating;

  // Context of the body being checked.
  KernelInfo *kernel = nullptr;
  FnInstance *fnInstance = nullptr;
  const ParallelStmt *parallel = nullptr;
  /// Copies of the current body that the enclosing unrolled loops make.
  int64_t unrolledCopies = 1;
  const Stmt *lastFnStmt = nullptr; // the only place a return may be
  size_t parallelScopeDepth = 0;

  std::map<std::string, int64_t> constants;

  Impl(Sema &self, DiagnosticEngine &diags,
       std::map<std::string, std::string> defines,
       std::map<std::string, int64_t> constants)
      : self(self), diags(diags), defines(std::move(defines)),
        constants(std::move(constants)) {}

  //===--- Scopes -------------------------------------------------------===//

  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  Symbol *declare(SymbolKind kind, const std::string &name, SMRange range,
                  Type type);

  /// Returns the symbol and the index of the scope that holds it.
  std::pair<Symbol *, size_t> lookup(StringRef name);

  /// A fresh scope stack holding only the builtin constants.
  void resetScopes();

  //===--- Types --------------------------------------------------------===//

  /// The common type of two arithmetic operands, or Invalid after an error.
  Type commonType(const Type &a, const Type &b, SMRange range);

  /// A scalar of a storage dtype as the type its arithmetic is done in (f8
  /// in f32, u4/i4 in i32); others as is.
  static Type promoteStorage(const Type &t) {
    return t.kind == TypeKind::Scalar ? Type::scalar(computeDType(t.dtype)) : t;
  }

  /// Reports an error unless a value of type `from` converts implicitly to
  /// a scalar of dtype `to`.
  bool checkConvertible(const Type &from, DType to, SMRange range,
                        const std::string &what);

  std::optional<DType> resolveDType(const std::string &name, SMRange range);

  std::optional<int64_t> constInt(Expr *e, const std::string &what);

  bool constBool(Expr *e, const std::string &what, bool &out);

  /// Resolves a tile type expression: dtype and a static shape.
  std::optional<Type> resolveTileType(TypeExpr &te, MemScope scope);

  //===--- Expressions --------------------------------------------------===//

  Type setType(Expr *e, Type t, std::optional<ConstValue> c = std::nullopt);

  Type checkExpr(Expr *e);

  Type checkName(NameExpr *e);

  Type checkUnary(UnaryExpr *e);

  std::optional<ConstValue> foldBinary(BinaryOp op, const ConstValue &a,
                                       const ConstValue &b, const Type &t,
                                       SMRange range);

  Type checkBinary(BinaryExpr *e);

  Type checkTernary(TernaryExpr *e);

  /// `t[i, j]` in scalar context: an element of a tile.
  Type checkElement(IndexExpr *e);

  //===--- Calls --------------------------------------------------------===//

  bool checkArity(CallExpr *e, size_t minArgs, size_t maxArgs);

  bool checkNoKwargs(CallExpr *e);

  Type checkCall(CallExpr *e, bool asStatement);

  Type checkCast(CallExpr *e, DType to);

  Type checkCdiv(CallExpr *e);
  Type checkSizeof(CallExpr *e);

  Type checkBinaryMath(CallExpr *e);

  Type checkUnaryMath(CallExpr *e);

  //===--- Tile op operands ---------------------------------------------===//

  /// A tile-op operand: a tile or tensor name, or a window `X[i, ...]`.
  struct Operand {
    Symbol *symbol = nullptr;
    Type type; // the tile or tensor type
    bool window = false;
    bool sliced = false;  // an explicit window: some indices are slices
    bool gathers = false; // some indices gather through index tiles
  };

  std::optional<Operand> checkOperand(Expr *e, bool allowWindow,
                                      const std::string &what);
  /// `idx[:]` (plus an offset) in a window: a rank-1 i32/i64 tile.
  bool checkGatherIndex(const GatherIndex &g);

  bool checkWritable(const Operand &op, SMRange range);

  /// Checks that a window of `tile` fits in `window`'s trailing dimensions.
  bool checkWindowFits(const Operand &window, const Type &tile,
                       Expr *windowExpr, const std::string &op);

  bool checkCopy(CallExpr *e);
  /// An error unless `op` is not of a packed 4-bit dtype (only copy, fill
  /// and element access take those).
  bool checkNotPacked(const Operand &op, Expr *e, const std::string &what);
  /// A copy of packed 4-bit elements: the same dtype on both sides, whole
  /// bytes along the innermost dimension.
  bool checkPackedCopy(const Operand &src, const Operand &dst, CallExpr *e);

  bool checkFill(CallExpr *e);

  /// Reads `name = <const bool>` keyword arguments; rejects unknown ones.
  bool checkBoolKwargs(CallExpr *e, llvm::ArrayRef<StringRef> allowed,
                       llvm::StringMap<bool> &out,
                       llvm::ArrayRef<StringRef> others = {});

  bool checkGemm(CallExpr *e);

  bool checkReduce(CallExpr *e);
  /// cluster_reduce_sum/max/min(t): a fragment of numbers, in a kernel with
  /// `cluster(...)`.
  bool checkClusterReduce(CallExpr *e);

  bool checkAtomicAdd(CallExpr *e);
  /// A window with slices: one slice per tile dimension, in order; a slice
  /// spans at most the tile's extent where that is known.
  bool checkSlicedWindow(const Operand &window, const Type &tile,
                         Expr *windowExpr, const std::string &op);
  /// `atomic_add/max/min(T[i, ...], value)` on one tensor element.
  bool checkElementAtomic(CallExpr *e);
  /// Atomics combine into f32, f64, i32 and i64 tensors only.
  bool checkAtomicDType(DType d, SMRange range, const std::string &op);
  /// Whether an atomic call combines a value into one element (its second
  /// argument is not a tile name).
  bool isElementAtomic(CallExpr *e);

  //===--- Tile fns -----------------------------------------------------===//

  Type checkFnCall(CallExpr *e, bool asStatement);

  FnInstance *instantiate(FnDecl *fn,
                          std::map<std::string, ConstValue> bindings,
                          const std::vector<std::optional<MemScope>> &argScopes,
                          CallExpr *call);

  void checkFnBody(FnInstance &inst);

  //===--- Statements ---------------------------------------------------===//

  void checkBlock(BlockStmt *block);

  void checkStmt(Stmt *s);

  void checkAlloc(AllocStmt *s);

  void checkLet(LetStmt *s);

  void checkAssign(AssignStmt *s);

  void checkFor(ForStmt *s);

  void checkParallel(ParallelStmt *s);

  void checkIf(IfStmt *s);

  void checkReturn(ReturnStmt *s);

  /// The first tile fn call in an expression tree, or null.
  static Expr *findFnCall(Expr *e);

  //===--- Kernels ------------------------------------------------------===//

  /// Binds a kernel parameter from its default and -D. Returns its value.
  std::optional<ConstValue> kernelParamValue(ParamDecl &p);

  void checkKernel(KernelDecl *k);
  /// The scope of a kernel's or operation's body: `info` is the one being
  /// checked, its parameters bound (defaults, then -D).
  void enterSignature(KernelInfo &info, std::vector<ParamDecl> &params);

  /// Checks the `tune` clause and enumerates its points into `info`.
  void checkTune(KernelDecl *k, KernelInfo &info);
  void checkCluster(KernelDecl *k, KernelInfo &info);
  /// Drops the scratch tensors no remaining launch takes (those of launches
  /// under a compile-time condition that is false): they are not allocated.
  void dropUnlaunchedScratch(OperationInfo &info);

  // Cluster reductions must be reached by every block of a cluster: in a
  // kernel with cluster(...), the values that may differ between its
  // blocks (the x block index, what is computed from it, tile elements)
  // and the conditions and loop bounds made of them that enclose the
  // statements being checked (innermost last).
  std::set<const Symbol *> clusterVarying;
  std::vector<const Expr *> clusterVaryingControl;
  /// The part of `e` that may differ between the blocks of a cluster (a
  /// name or a tile element), or null.
  const Expr *clusterVaryingPart(const Expr *e) const;
  /// Marks `sym` as differing between a cluster's blocks when `value` may,
  /// or when it is set under a condition that may.
  void noteClusterVarying(const Symbol *sym, const Expr *value);
  /// Whether the constraint admits `point`: the parameters are bound again
  /// (defaults that depend on a tuned parameter follow it) in a new scope.
  bool tunePointAdmitted(KernelDecl *k, const TunePoint &point);

  void checkKernelArg(KernelInfo &info, ArgDecl &a, unsigned index);
  /// Tensor dimensions given by expressions, once every argument has bound
  /// its symbolic dimensions: constants become fixed sizes, the others
  /// derived dimensions the stub checks.
  void checkDimExpressions(KernelInfo &info, std::vector<ArgDecl> &args);
  /// A tensor dimension written as an expression: of parameters and
  /// symbolic dimensions only, so that the stub can compute it.
  std::optional<Dim> checkDimExpression(Expr *de);
  /// `let NAME = view(X, dims...)`: the view's tensor type.
  Type checkView(CallExpr *call);

  void bindSymDim(KernelInfo &info, NameExpr *n, unsigned arg, unsigned dim);

  //===--- Operations ---------------------------------------------------===//

  void checkOperation(OperationDecl *o);
  /// The checked kernel `name` of the main file; a kernel this check skips
  /// (a tuned one, compiled in variants) is checked with its defaults for
  /// the launches of operations, and not compiled.
  const KernelInfo *launchedKernel(const std::string &name);
  Program *program = nullptr;
  std::deque<KernelInfo> skippedKernels;
  std::set<const Symbol *> usedScratch; // passed to some launch
  /// Checks an expression the operation's stub computes on the host (a
  /// scratch dimension, a scalar launch argument); false when it cannot be.
  bool checkHostExpr(Expr *e, const char *what);
  void checkScratch(OperationInfo &info, ScratchDecl &scratch);
  /// `guards`: the `if` conditions the launch is under.
  void checkLaunch(OperationInfo &info, CallExpr *call,
                   const std::vector<std::pair<const Expr *, bool>> &guards);
  /// Checks `steps` (a body or an `if` branch) under the conditions
  /// `guards`.
  void checkOperationSteps(OperationInfo &info,
                           std::vector<OperationStep> &steps,
                           std::vector<std::pair<const Expr *, bool>> &guards);

  //===--- Program ------------------------------------------------------===//

  bool check(Program &program);
};

} // namespace tlc

#endif // TLC_LIB_FRONTEND_SEMAIMPL_H
