//===- AST.h - Abstract syntax tree of .tl files ----------------*- C++ -*-===//
//
// The parser builds this tree; Sema annotates it in place (types, constant
// values, resolved symbols). No MLIR here: the frontend is plain C++ on LLVM
// Support so it can be tested and reused without the compiler back end.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_AST_H
#define TLC_FRONTEND_AST_H

#include "tlc/Frontend/Types.h"

#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct Decl;
struct FnDecl;
struct Symbol;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  IntLit,
  FloatLit,
  BoolLit,
  Name,
  Unary,
  Binary,
  Ternary,
  Call,
  Index,
  Slice
};

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem, // arithmetic
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne, // comparison
  And,
  Or, // logical
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr // bitwise, on integers
};

struct Expr {
  ExprKind kind;
  llvm::SMRange range;
  // Filled by Sema.
  Type type;
  std::optional<ConstValue> constValue; // set when compile-time constant

  explicit Expr(ExprKind kind, llvm::SMRange range)
      : kind(kind), range(range) {}
  virtual ~Expr() = default;
  llvm::SMLoc loc() const { return range.Start; }
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntLitExpr : Expr {
  int64_t value;
  IntLitExpr(llvm::SMRange r, int64_t v)
      : Expr(ExprKind::IntLit, r), value(v) {}
};

struct FloatLitExpr : Expr {
  double value;
  FloatLitExpr(llvm::SMRange r, double v)
      : Expr(ExprKind::FloatLit, r), value(v) {}
};

struct BoolLitExpr : Expr {
  bool value;
  BoolLitExpr(llvm::SMRange r, bool v) : Expr(ExprKind::BoolLit, r), value(v) {}
};

/// A reference to a name: a variable, tile, argument, parameter, dtype or
/// builtin constant (`inf`, `pi`).
struct NameExpr : Expr {
  std::string name;
  Symbol *symbol = nullptr; // resolved by Sema
  NameExpr(llvm::SMRange r, std::string n)
      : Expr(ExprKind::Name, r), name(std::move(n)) {}
};

struct UnaryExpr : Expr {
  UnaryOp op;
  ExprPtr operand;
  UnaryExpr(llvm::SMRange r, UnaryOp op, ExprPtr e)
      : Expr(ExprKind::Unary, r), op(op), operand(std::move(e)) {}
};

struct BinaryExpr : Expr {
  BinaryOp op;
  ExprPtr lhs, rhs;
  Type operandType; // Sema: the common type both operands convert to
  BinaryExpr(llvm::SMRange r, BinaryOp op, ExprPtr l, ExprPtr rr)
      : Expr(ExprKind::Binary, r), op(op), lhs(std::move(l)),
        rhs(std::move(rr)) {}
};

/// `cond ? a : b`
struct TernaryExpr : Expr {
  ExprPtr cond, trueValue, falseValue;
  TernaryExpr(llvm::SMRange r, ExprPtr c, ExprPtr t, ExprPtr f)
      : Expr(ExprKind::Ternary, r), cond(std::move(c)), trueValue(std::move(t)),
        falseValue(std::move(f)) {}
};

/// `name = value` inside a call's argument list.
struct KeywordArg {
  std::string name;
  llvm::SMRange nameRange;
  ExprPtr value;
};

/// `callee(args..., kw = value...)`: builtins (math, casts, tile ops) and
/// `tile fn` calls. The callee is always a plain identifier.
struct CallExpr : Expr {
  std::string callee;
  llvm::SMRange calleeRange;
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  FnDecl *resolvedFn = nullptr; // a tile fn instance, set by Sema
  std::optional<DType> castTo;  // set by Sema when the call is a cast
  CallExpr(llvm::SMRange r, std::string c, llvm::SMRange cr)
      : Expr(ExprKind::Call, r), callee(std::move(c)), calleeRange(cr) {}
};

/// `base[i, j, ...]`: an element of a tile (in scalar context) or the origin
/// of a tile window in a tensor (as a copy operand).
struct IndexExpr : Expr {
  ExprPtr base;
  std::vector<ExprPtr> indices;
  IndexExpr(llvm::SMRange r, ExprPtr b)
      : Expr(ExprKind::Index, r), base(std::move(b)) {}
};

/// `lo : hi`, `lo :`, `: hi` or `:` as an index of a window: the part of a
/// dimension the window covers (either bound may be missing).
struct SliceExpr : Expr {
  ExprPtr lo, hi;
  ExprPtr step; // `lo : hi : step`; null: 1
  SliceExpr(llvm::SMRange r, ExprPtr l, ExprPtr h, ExprPtr s = nullptr)
      : Expr(ExprKind::Slice, r), lo(std::move(l)), hi(std::move(h)),
        step(std::move(s)) {}
};

/// A window index that gathers through an index tile: `idx[:]` (the
/// positions along that dimension are the tile's elements), optionally
/// shifted by a scalar: `idx[:] + e`, `e + idx[:]`, `idx[:] - e`.
struct GatherIndex {
  IndexExpr *tile = nullptr; // `idx[:]`
  Expr *offset = nullptr;    // `e`, or null
  bool subtract = false;     // `idx[:] - e`
};

/// Whether `idx` is `NAME[:]` (one index, a slice without bounds).
inline bool isWholeSlice(const Expr *e) {
  if (e->kind != ExprKind::Index)
    return false;
  auto *ix = static_cast<const IndexExpr *>(e);
  if (ix->indices.size() != 1 || ix->indices[0]->kind != ExprKind::Slice)
    return false;
  auto *s = static_cast<const SliceExpr *>(ix->indices[0].get());
  return !s->lo && !s->hi && !s->step;
}

/// The gather form of window index `e`, by its syntax alone.
inline std::optional<GatherIndex> matchGatherIndex(Expr *e) {
  if (isWholeSlice(e))
    return GatherIndex{static_cast<IndexExpr *>(e), nullptr, false};
  if (e->kind != ExprKind::Binary)
    return std::nullopt;
  auto *bin = static_cast<BinaryExpr *>(e);
  bool add = bin->op == BinaryOp::Add;
  if (!add && bin->op != BinaryOp::Sub)
    return std::nullopt;
  if (isWholeSlice(bin->lhs.get()) && !isWholeSlice(bin->rhs.get()))
    return GatherIndex{static_cast<IndexExpr *>(bin->lhs.get()), bin->rhs.get(),
                       !add};
  if (add && isWholeSlice(bin->rhs.get()) && !isWholeSlice(bin->lhs.get()))
    return GatherIndex{static_cast<IndexExpr *>(bin->rhs.get()), bin->lhs.get(),
                       false};
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Type expressions: `f32`, `T`, `T[M, K]`
//===----------------------------------------------------------------------===//

struct TypeExpr {
  llvm::SMRange range;
  std::string elemName; // dtype name or dtype parameter
  llvm::SMRange elemRange;
  bool hasShape = false;
  std::vector<ExprPtr> dims;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind {
  Alloc,
  Let,
  Assign,
  Expr,
  For,
  Parallel,
  If,
  Return,
  Block
};

struct Stmt {
  StmtKind kind;
  llvm::SMRange range;
  explicit Stmt(StmtKind k, llvm::SMRange r) : kind(k), range(r) {}
  virtual ~Stmt() = default;
  llvm::SMLoc loc() const { return range.Start; }
};
using StmtPtr = std::unique_ptr<Stmt>;

struct BlockStmt : Stmt {
  std::vector<StmtPtr> stmts;
  explicit BlockStmt(llvm::SMRange r) : Stmt(StmtKind::Block, r) {}
};

/// `shared As: T[BM, BK];`, `fragment acc: f32[BM, BN];`, `local r: f32[4];`
struct AllocStmt : Stmt {
  MemScope scope;
  std::string name;
  llvm::SMRange nameRange;
  TypeExpr type;
  Symbol *symbol = nullptr;
  AllocStmt(llvm::SMRange r, MemScope s) : Stmt(StmtKind::Alloc, r), scope(s) {}
};

/// `let x = e;`, `let x: f32 = e;`, `var acc: f32 = 0;`
struct LetStmt : Stmt {
  bool isMutable; // var
  std::string name;
  llvm::SMRange nameRange;
  std::optional<TypeExpr> type;
  ExprPtr init; // may be null for `var x: f32;`
  Symbol *symbol = nullptr;
  LetStmt(llvm::SMRange r, bool m) : Stmt(StmtKind::Let, r), isMutable(m) {}
};

enum class AssignOp { Set, Add, Sub, Mul, Div };

/// `x = e;`, `s[i, j] += e;`
struct AssignStmt : Stmt {
  ExprPtr target; // NameExpr or IndexExpr
  AssignOp op;
  ExprPtr value;
  AssignStmt(llvm::SMRange r, ExprPtr t, AssignOp op, ExprPtr v)
      : Stmt(StmtKind::Assign, r), target(std::move(t)), op(op),
        value(std::move(v)) {}
};

/// A call evaluated for its effect: `copy(...)`, `gemm(...)`, a tile fn.
struct ExprStmt : Stmt {
  ExprPtr expr;
  ExprStmt(llvm::SMRange r, ExprPtr e)
      : Stmt(StmtKind::Expr, r), expr(std::move(e)) {}
};

enum class LoopKind { Range, Pipelined };

/// `for k in range(a, b, step, unroll = 4) {}` or
/// `for k in pipelined(n, stages = 3) {}`. `range(n)` means `range(0, n)`.
struct ForStmt : Stmt {
  std::string var;
  llvm::SMRange varRange;
  LoopKind loopKind;
  llvm::SMRange iterRange; // the `range(...)` / `pipelined(...)` call
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  std::unique_ptr<BlockStmt> body;
  Symbol *symbol = nullptr;
  ForStmt(llvm::SMRange r, LoopKind k) : Stmt(StmtKind::For, r), loopKind(k) {}
};

/// `parallel (i, j) in s { ... }` or `parallel (i, j) in [BM, BN] { ... }`
struct ParallelStmt : Stmt {
  std::vector<std::string> vars;
  std::vector<llvm::SMRange> varRanges;
  ExprPtr domainTile;               // `in s`: the shape of tile s
  std::vector<ExprPtr> domainShape; // `in [BM, BN]`
  std::unique_ptr<BlockStmt> body;
  std::vector<Symbol *> symbols;
  explicit ParallelStmt(llvm::SMRange r) : Stmt(StmtKind::Parallel, r) {}
};

struct IfStmt : Stmt {
  ExprPtr cond; // a compile-time condition selects one branch (Sema folds it)
  std::unique_ptr<BlockStmt> thenBody;
  StmtPtr elseBody; // BlockStmt or IfStmt (else if), may be null
  explicit IfStmt(llvm::SMRange r) : Stmt(StmtKind::If, r) {}
};

struct ReturnStmt : Stmt {
  ExprPtr value; // may be null
  explicit ReturnStmt(llvm::SMRange r) : Stmt(StmtKind::Return, r) {}
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// A compile-time parameter in `<...>`: `BM = 128`, `T: dtype = f16`,
/// `Causal = false`, `N` (no default: must be given or inferred).
struct ParamDecl {
  std::string name;
  llvm::SMRange range;
  bool isDType = false;
  ExprPtr defaultValue;     // value parameters
  std::string defaultDType; // dtype parameters
  llvm::SMRange defaultRange;
  Symbol *symbol = nullptr;
};

enum class ArgQualifier { In, Out, InOut };

/// A kernel or tile fn argument: `A: T[M, K]`, `out C: T[M, N]`,
/// `eps: f32`, and in tile fns `x: fragment f32[R, C]`.
struct ArgDecl {
  std::string name;
  llvm::SMRange range;
  ArgQualifier qualifier = ArgQualifier::In;
  std::optional<MemScope> scope; // tile fn arguments only
  TypeExpr type;
  Symbol *symbol = nullptr;
};

enum class DeclKind { Kernel, Fn, Import, Operation };

struct Decl {
  DeclKind kind;
  llvm::SMRange range;
  explicit Decl(DeclKind k, llvm::SMRange r) : kind(k), range(r) {}
  virtual ~Decl() = default;
};
using DeclPtr = std::unique_ptr<Decl>;

/// `import "path.tl";` (resolved relative to the importing file, then -I).
struct ImportDecl : Decl {
  std::string path;
  explicit ImportDecl(llvm::SMRange r) : Decl(DeclKind::Import, r) {}
};

/// One axis of a kernel's tune space: `BM in [64, 128]`.
struct TuneAxis {
  std::string name;
  llvm::SMRange nameRange;
  std::vector<ExprPtr> values;
  llvm::SMRange range;
};

/// kernel NAME<params>(args) grid(e...) as (bx, ...) threads(n) cluster(c)
///   { body }
struct KernelDecl : Decl {
  std::string name;
  llvm::SMRange nameRange;
  std::vector<ParamDecl> params;
  std::vector<ArgDecl> args;
  std::vector<ExprPtr> grid;          // 1 to 3 extents
  std::vector<std::string> blockVars; // names bound by `as (...)`
  std::vector<llvm::SMRange> blockVarRanges;
  ExprPtr threads; // may be null: default 128
  /// `cluster(c)`: blocks x, x + 1, ..., in groups of c, run together as
  /// a thread block cluster (may be null: no clusters).
  ExprPtr cluster;
  /// `tune A in [...], B in [...] where COND`: the candidates `tlc tune`
  /// tries (empty: not tunable; the constraint may be null).
  std::vector<TuneAxis> tune;
  llvm::SMRange tuneRange;
  ExprPtr tuneWhere;
  std::unique_ptr<BlockStmt> body;
  std::vector<Symbol *> blockSymbols; // set by Sema
  explicit KernelDecl(llvm::SMRange r) : Decl(DeclKind::Kernel, r) {}
};

/// tile fn NAME<params>(args) -> type { body }
struct FnDecl : Decl {
  std::string name;
  llvm::SMRange nameRange;
  std::vector<ParamDecl> params;
  std::vector<ArgDecl> args;
  std::optional<TypeExpr> returnType;
  std::unique_ptr<BlockStmt> body;
  explicit FnDecl(llvm::SMRange r) : Decl(DeclKind::Fn, r) {}
};

/// `scratch NAME: DTYPE[dims];` in an operation: a tensor the launch stub
/// allocates for the operation's kernels (dimensions may be expressions of
/// the operation's symbolic dimensions, parameters and scalar arguments).
struct ScratchDecl {
  std::string name;
  llvm::SMRange range;
  TypeExpr type;
  Symbol *symbol = nullptr; // set by Sema
};

struct OperationIf;

/// One step of an operation: a scratch tensor, a kernel launch, or an `if`
/// that picks launches by a condition the stub computes on the host.
struct OperationStep {
  std::optional<ScratchDecl> scratch;
  std::unique_ptr<CallExpr> launch;
  std::unique_ptr<OperationIf> branch;
};

/// `if COND { launches } else { launches }` in an operation (`else if`
/// nests another one in the else branch).
struct OperationIf {
  llvm::SMRange range;
  ExprPtr cond;
  std::vector<OperationStep> thenSteps, elseSteps;
};

/// operation NAME<params>(args) { scratch ...; kernel(args); ... }: several
/// kernels of the file launched in order by one stub call.
struct OperationDecl : Decl {
  std::string name;
  llvm::SMRange nameRange;
  std::vector<ParamDecl> params;
  std::vector<ArgDecl> args;
  std::vector<OperationStep> steps;
  explicit OperationDecl(llvm::SMRange r) : Decl(DeclKind::Operation, r) {}
};

/// One parsed .tl file (imports are parsed into their own Modules).
struct Module {
  std::string fileName;
  unsigned bufferId = 0;
  std::vector<DeclPtr> decls;
};

} // namespace tlc

#endif // TLC_FRONTEND_AST_H
