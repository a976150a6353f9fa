//===- ASTPrinter.cpp - Textual dump of the AST (-emit=ast) ---------------===//
//
// One node per line, indented two spaces per level:
//   KernelDecl gemm <1:1>
//     ForStmt k pipelined <9:3>
//       BinaryExpr + <3:12> : i32 = 7
// Type expressions and other small parts print inline as source-like text.
//
//===----------------------------------------------------------------------===//
// ASTPrinter.h uses llvm::SourceMgr without including it.
#include "llvm/Support/SourceMgr.h"

#include "tlc/Frontend/ASTPrinter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace tlc;

static std::string unaryOpSpelling(UnaryOp op) {
  return op == UnaryOp::Neg ? "-" : op == UnaryOp::Not ? "!" : "~";
}

// clang-format off
static llvm::StringRef binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  }
  return "?";
}

static llvm::StringRef assignOpSpelling(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Sub: return "-=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Div: return "/=";
  }
  return "?";
}
// clang-format on

/// The shortest text that reads back as `v`, always recognisable as a float.
static std::string formatDouble(double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  size_t e = s.find('e');
  if (e == std::string::npos) {
    if (s.find_first_of(".n") == std::string::npos) // not nan, inf
      s += ".0";
    return s;
  }
  // `3e+04` -> `3e4`, `1e-05` -> `1e-5`
  std::string mantissa = s.substr(0, e + 1), exponent = s.substr(e + 1);
  if (exponent[0] == '-') // %g always writes a sign
    mantissa += '-';
  exponent.erase(0, 1);
  exponent.erase(
      0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return mantissa + exponent;
}

// Binding strength for exprText's parentheses; mirrors the parser.
static int precedence(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Ternary:
    return 0;
  case ExprKind::Binary:
    switch (static_cast<const BinaryExpr &>(e).op) {
    case BinaryOp::Or:
      return 1;
    case BinaryOp::And:
      return 2;
    case BinaryOp::BitOr:
      return 4;
    case BinaryOp::BitXor:
      return 5;
    case BinaryOp::BitAnd:
      return 6;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return 7;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 8;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      return 9;
    default:
      return 3;
    }
  case ExprKind::Unary:
    return 10;
  default:
    return 11;
  }
}

/// Source-like text of an expression, parenthesized only where needed.
static std::string exprText(const Expr &e, int minPrec = 0) {
  std::string s;
  switch (e.kind) {
  case ExprKind::IntLit:
    s = std::to_string(static_cast<const IntLitExpr &>(e).value);
    break;
  case ExprKind::FloatLit:
    s = formatDouble(static_cast<const FloatLitExpr &>(e).value);
    break;
  case ExprKind::BoolLit:
    s = static_cast<const BoolLitExpr &>(e).value ? "true" : "false";
    break;
  case ExprKind::Name:
    s = static_cast<const NameExpr &>(e).name;
    break;
  case ExprKind::Unary: {
    auto &u = static_cast<const UnaryExpr &>(e);
    s = unaryOpSpelling(u.op) + exprText(*u.operand, 10);
    break;
  }
  case ExprKind::Binary: {
    auto &b = static_cast<const BinaryExpr &>(e);
    int p = precedence(e);
    s = exprText(*b.lhs, p) + " " + binaryOpSpelling(b.op).str() + " " +
        exprText(*b.rhs, p + 1);
    break;
  }
  case ExprKind::Ternary: {
    auto &t = static_cast<const TernaryExpr &>(e);
    s = exprText(*t.cond, 1) + " ? " + exprText(*t.trueValue) + " : " +
        exprText(*t.falseValue);
    break;
  }
  case ExprKind::Call: {
    auto &c = static_cast<const CallExpr &>(e);
    s = c.callee + "(";
    const char *sep = "";
    for (const ExprPtr &a : c.args) {
      s += sep + exprText(*a);
      sep = ", ";
    }
    for (const KeywordArg &kw : c.kwargs) {
      s += sep + kw.name + " = " + exprText(*kw.value);
      sep = ", ";
    }
    s += ")";
    break;
  }
  case ExprKind::Index: {
    auto &ix = static_cast<const IndexExpr &>(e);
    s = exprText(*ix.base, 7) + "[";
    for (size_t i = 0; i < ix.indices.size(); ++i)
      s += (i ? ", " : "") + exprText(*ix.indices[i]);
    s += "]";
    break;
  }
  case ExprKind::Slice: {
    auto &sl = static_cast<const SliceExpr &>(e);
    s = (sl.lo ? exprText(*sl.lo) + " " : "") + ":" +
        (sl.hi ? " " + exprText(*sl.hi) : "") +
        (sl.step ? " : " + exprText(*sl.step) : "");
    break;
  }
  }
  return precedence(e) < minPrec ? "(" + s + ")" : s;
}

/// `T`, `f32[BM, BN]`
static std::string typeText(const TypeExpr &t) {
  std::string s = t.elemName;
  if (!t.hasShape)
    return s;
  s += "[";
  for (size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? ", " : "") + exprText(*t.dims[i]);
  return s + "]";
}

namespace {

class Printer {
public:
  Printer(llvm::SourceMgr &srcMgr, llvm::raw_ostream &os)
      : srcMgr(srcMgr), os(os) {}

  void print(const Module &m) {
    os << "Module " << m.fileName << "\n";
    for (const DeclPtr &d : m.decls)
      printDecl(*d, 1);
  }

private:
  llvm::raw_ostream &line(unsigned depth) { return os.indent(2 * depth); }
  /// ` <line:col>`, then the end of the line.
  void end(llvm::SMLoc loc) {
    printLoc(loc);
    os << "\n";
  }
  void printLoc(llvm::SMLoc loc) {
    if (!loc.isValid()) {
      os << " <?>";
      return;
    }
    auto [ln, col] = srcMgr.getLineAndColumn(loc);
    os << " <" << ln << ":" << col << ">";
  }

  void printParams(const std::vector<ParamDecl> &params, unsigned depth) {
    for (const ParamDecl &p : params) {
      line(depth) << "ParamDecl " << p.name;
      if (p.isDType) {
        os << " : dtype";
        if (!p.defaultDType.empty())
          os << " = " << p.defaultDType;
      }
      end(p.range.Start);
      if (p.defaultValue)
        printExpr(*p.defaultValue, depth + 1);
    }
  }

  void printArgs(const std::vector<ArgDecl> &args, unsigned depth) {
    for (const ArgDecl &a : args) {
      line(depth) << "ArgDecl ";
      if (a.qualifier == ArgQualifier::Out)
        os << "out ";
      else if (a.qualifier == ArgQualifier::InOut)
        os << "inout ";
      os << a.name << " : ";
      if (a.scope)
        os << scopeName(*a.scope) << " ";
      os << typeText(a.type);
      end(a.range.Start);
    }
  }

  void printDecl(const Decl &d, unsigned depth) {
    switch (d.kind) {
    case DeclKind::Import:
      line(depth) << "ImportDecl \"";
      for (char c : static_cast<const ImportDecl &>(d).path)
        os << (c == '"' || c == '\\' ? "\\" : "") << c;
      os << "\"";
      end(d.range.Start);
      return;
    case DeclKind::Kernel: {
      auto &k = static_cast<const KernelDecl &>(d);
      line(depth) << "KernelDecl " << k.name;
      end(d.range.Start);
      printParams(k.params, depth + 1);
      printArgs(k.args, depth + 1);
      line(depth + 1) << "Grid\n";
      for (const ExprPtr &e : k.grid)
        printExpr(*e, depth + 2);
      if (!k.blockVars.empty()) {
        line(depth + 1) << "BlockVars";
        for (size_t i = 0; i < k.blockVars.size(); ++i)
          os << (i ? ", " : " ") << k.blockVars[i];
        os << "\n";
      }
      if (k.threads) {
        line(depth + 1) << "Threads\n";
        printExpr(*k.threads, depth + 2);
      }
      if (k.cluster) {
        line(depth + 1) << "Cluster\n";
        printExpr(*k.cluster, depth + 2);
      }
      if (!k.tune.empty()) {
        line(depth + 1) << "Tune";
        end(k.tuneRange.Start);
        for (const TuneAxis &axis : k.tune) {
          line(depth + 2) << "TuneAxis " << axis.name;
          end(axis.range.Start);
          for (const ExprPtr &e : axis.values)
            printExpr(*e, depth + 3);
        }
        if (k.tuneWhere) {
          line(depth + 2) << "Where\n";
          printExpr(*k.tuneWhere, depth + 3);
        }
      }
      if (k.body)
        printStmt(*k.body, depth + 1);
      return;
    }
    case DeclKind::Fn: {
      auto &f = static_cast<const FnDecl &>(d);
      line(depth) << "FnDecl " << f.name;
      if (f.returnType)
        os << " -> " << typeText(*f.returnType);
      end(d.range.Start);
      printParams(f.params, depth + 1);
      printArgs(f.args, depth + 1);
      if (f.body)
        printStmt(*f.body, depth + 1);
      return;
    }
    case DeclKind::Operation: {
      auto &o = static_cast<const OperationDecl &>(d);
      line(depth) << "OperationDecl " << o.name;
      end(d.range.Start);
      printParams(o.params, depth + 1);
      printArgs(o.args, depth + 1);
      printSteps(o.steps, depth + 1);
      return;
    }
    }
  }

  void printSteps(const std::vector<OperationStep> &steps, unsigned depth) {
    for (const OperationStep &step : steps) {
      if (step.scratch) {
        line(depth) << "Scratch " << step.scratch->name << ": "
                    << typeText(step.scratch->type);
        end(step.scratch->range.Start);
      } else if (step.branch) {
        line(depth) << "OperationIf";
        end(step.branch->range.Start);
        printExpr(*step.branch->cond, depth + 1);
        line(depth + 1) << "Then\n";
        printSteps(step.branch->thenSteps, depth + 2);
        if (!step.branch->elseSteps.empty()) {
          line(depth + 1) << "Else\n";
          printSteps(step.branch->elseSteps, depth + 2);
        }
      } else {
        printExpr(*step.launch, depth);
      }
    }
  }

  void printKwargs(const std::vector<KeywordArg> &kwargs, unsigned depth) {
    for (const KeywordArg &kw : kwargs) {
      line(depth) << "KeywordArg " << kw.name;
      end(kw.nameRange.Start);
      printExpr(*kw.value, depth + 1);
    }
  }

  void printType(const TypeExpr &t, unsigned depth) {
    line(depth) << "TypeExpr " << typeText(t);
    end(t.range.Start);
  }

  void printStmt(const Stmt &s, unsigned depth) {
    switch (s.kind) {
    case StmtKind::Block:
      line(depth) << "BlockStmt";
      end(s.loc());
      for (const StmtPtr &child : static_cast<const BlockStmt &>(s).stmts)
        printStmt(*child, depth + 1);
      return;
    case StmtKind::Alloc: {
      auto &a = static_cast<const AllocStmt &>(s);
      line(depth) << "AllocStmt " << scopeName(a.scope) << " " << a.name;
      end(s.loc());
      printType(a.type, depth + 1);
      return;
    }
    case StmtKind::Let: {
      auto &l = static_cast<const LetStmt &>(s);
      line(depth) << "LetStmt " << (l.isMutable ? "var " : "") << l.name;
      end(s.loc());
      if (l.type)
        printType(*l.type, depth + 1);
      if (l.init)
        printExpr(*l.init, depth + 1);
      return;
    }
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(s);
      line(depth) << "AssignStmt " << assignOpSpelling(a.op);
      end(s.loc());
      printExpr(*a.target, depth + 1);
      printExpr(*a.value, depth + 1);
      return;
    }
    case StmtKind::Expr:
      line(depth) << "ExprStmt";
      end(s.loc());
      printExpr(*static_cast<const ExprStmt &>(s).expr, depth + 1);
      return;
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(s);
      line(depth) << "ForStmt " << f.var << " "
                  << (f.loopKind == LoopKind::Pipelined ? "pipelined"
                                                        : "range");
      end(s.loc());
      for (const ExprPtr &e : f.args)
        printExpr(*e, depth + 1);
      printKwargs(f.kwargs, depth + 1);
      if (f.body)
        printStmt(*f.body, depth + 1);
      return;
    }
    case StmtKind::Parallel: {
      auto &p = static_cast<const ParallelStmt &>(s);
      line(depth) << "ParallelStmt";
      for (size_t i = 0; i < p.vars.size(); ++i)
        os << (i ? ", " : " ") << p.vars[i];
      end(s.loc());
      if (p.domainTile)
        printExpr(*p.domainTile, depth + 1);
      if (!p.domainShape.empty()) {
        line(depth + 1) << "Shape\n";
        for (const ExprPtr &e : p.domainShape)
          printExpr(*e, depth + 2);
      }
      if (p.body)
        printStmt(*p.body, depth + 1);
      return;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(s);
      line(depth) << "IfStmt";
      end(s.loc());
      printExpr(*i.cond, depth + 1);
      if (i.thenBody)
        printStmt(*i.thenBody, depth + 1);
      if (i.elseBody) {
        line(depth + 1) << "Else\n";
        printStmt(*i.elseBody, depth + 2);
      }
      return;
    }
    case StmtKind::Return: {
      line(depth) << "ReturnStmt";
      end(s.loc());
      if (auto &v = static_cast<const ReturnStmt &>(s).value)
        printExpr(*v, depth + 1);
      return;
    }
    }
  }

  void printExpr(const ExprPtr &e, unsigned depth) {
    if (e) // tolerate partial trees
      printExpr(*e, depth);
  }

  void printExpr(const Expr &e, unsigned depth) {
    line(depth);
    switch (e.kind) {
    case ExprKind::IntLit:
      os << "IntLitExpr " << static_cast<const IntLitExpr &>(e).value;
      break;
    case ExprKind::FloatLit:
      os << "FloatLitExpr "
         << formatDouble(static_cast<const FloatLitExpr &>(e).value);
      break;
    case ExprKind::BoolLit:
      os << "BoolLitExpr "
         << (static_cast<const BoolLitExpr &>(e).value ? "true" : "false");
      break;
    case ExprKind::Name:
      os << "NameExpr " << static_cast<const NameExpr &>(e).name;
      break;
    case ExprKind::Unary:
      os << "UnaryExpr "
         << unaryOpSpelling(static_cast<const UnaryExpr &>(e).op);
      break;
    case ExprKind::Binary:
      os << "BinaryExpr "
         << binaryOpSpelling(static_cast<const BinaryExpr &>(e).op);
      break;
    case ExprKind::Ternary:
      os << "TernaryExpr";
      break;
    case ExprKind::Call:
      os << "CallExpr " << static_cast<const CallExpr &>(e).callee;
      break;
    case ExprKind::Index:
      os << "IndexExpr";
      break;
    case ExprKind::Slice:
      os << "SliceExpr";
      break;
    }
    printLoc(e.loc());
    if (e.type.kind != TypeKind::Invalid)
      os << " : " << e.type.str();
    if (e.constValue)
      os << " = " << e.constValue->str();
    os << "\n";

    switch (e.kind) {
    case ExprKind::Unary:
      printExpr(*static_cast<const UnaryExpr &>(e).operand, depth + 1);
      break;
    case ExprKind::Binary: {
      auto &b = static_cast<const BinaryExpr &>(e);
      printExpr(*b.lhs, depth + 1);
      printExpr(*b.rhs, depth + 1);
      break;
    }
    case ExprKind::Ternary: {
      auto &t = static_cast<const TernaryExpr &>(e);
      printExpr(*t.cond, depth + 1);
      printExpr(*t.trueValue, depth + 1);
      printExpr(*t.falseValue, depth + 1);
      break;
    }
    case ExprKind::Call: {
      auto &c = static_cast<const CallExpr &>(e);
      for (const ExprPtr &a : c.args)
        printExpr(*a, depth + 1);
      printKwargs(c.kwargs, depth + 1);
      break;
    }
    case ExprKind::Index: {
      auto &ix = static_cast<const IndexExpr &>(e);
      printExpr(*ix.base, depth + 1);
      for (const ExprPtr &i : ix.indices)
        printExpr(*i, depth + 1);
      break;
    }
    case ExprKind::Slice: {
      auto &sl = static_cast<const SliceExpr &>(e);
      if (sl.lo)
        printExpr(*sl.lo, depth + 1);
      if (sl.hi)
        printExpr(*sl.hi, depth + 1);
      if (sl.step)
        printExpr(*sl.step, depth + 1);
      break;
    }
    default:
      break;
    }
  }

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
};

} // namespace

void tlc::printAST(const Module &module, llvm::SourceMgr &srcMgr,
                   llvm::raw_ostream &os) {
  Printer(srcMgr, os).print(module);
}
