//===- Parser.cpp - Recursive-descent parser for .tl files ----------------===//
//
// Error handling: every parse function returns null (or false) after
// reporting an error. Statements recover by skipping to the next ';' or '}',
// declarations by skipping to the next `kernel`, `tile` or `import`. Only
// the first error at a token is reported, and tokens the lexer already
// complained about are never reported again, so one mistake gives one error.
//
//===----------------------------------------------------------------------===//
#include "tlc/Frontend/Parser.h"
#include "tlc/Frontend/Lexer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdlib>
#include <optional>

using namespace tlc;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// Deeper nesting is rejected so that neither the parser nor the recursive
/// walks over the AST (printing, Sema, destruction) can overflow the stack.
constexpr unsigned kMaxNesting = 256;

// Binary operator precedences; 0 means "not a binary operator".
enum Prec { kNoPrec, kOrPrec, kAndPrec, kCmpPrec, kAddPrec, kMulPrec };

// clang-format off
std::pair<BinaryOp, int> binaryOp(TokKind kind) {
  switch (kind) {
  case TokKind::PipePipe: return {BinaryOp::Or, kOrPrec};
  case TokKind::AmpAmp: return {BinaryOp::And, kAndPrec};
  case TokKind::Less: return {BinaryOp::Lt, kCmpPrec};
  case TokKind::LessEq: return {BinaryOp::Le, kCmpPrec};
  case TokKind::Greater: return {BinaryOp::Gt, kCmpPrec};
  case TokKind::GreaterEq: return {BinaryOp::Ge, kCmpPrec};
  case TokKind::EqEq: return {BinaryOp::Eq, kCmpPrec};
  case TokKind::NotEq: return {BinaryOp::Ne, kCmpPrec};
  case TokKind::Plus: return {BinaryOp::Add, kAddPrec};
  case TokKind::Minus: return {BinaryOp::Sub, kAddPrec};
  case TokKind::Star: return {BinaryOp::Mul, kMulPrec};
  case TokKind::Slash: return {BinaryOp::Div, kMulPrec};
  case TokKind::Percent: return {BinaryOp::Rem, kMulPrec};
  default: return {BinaryOp::Add, kNoPrec};
  }
}

std::optional<AssignOp> assignOp(TokKind kind) {
  switch (kind) {
  case TokKind::Assign: return AssignOp::Set;
  case TokKind::PlusAssign: return AssignOp::Add;
  case TokKind::MinusAssign: return AssignOp::Sub;
  case TokKind::StarAssign: return AssignOp::Mul;
  case TokKind::SlashAssign: return AssignOp::Div;
  default: return std::nullopt;
  }
}

std::optional<MemScope> scopeKeyword(TokKind kind) {
  switch (kind) {
  case TokKind::KwShared: return MemScope::Shared;
  case TokKind::KwFragment: return MemScope::Fragment;
  case TokKind::KwLocal: return MemScope::Local;
  default: return std::nullopt;
  }
}
// clang-format on

bool isDeclStart(TokKind kind) {
  return kind == TokKind::KwKernel || kind == TokKind::KwTile ||
         kind == TokKind::KwImport;
}

bool startsExpr(TokKind kind) {
  switch (kind) {
  case TokKind::Ident:
  case TokKind::IntLit:
  case TokKind::FloatLit:
  case TokKind::KwTrue:
  case TokKind::KwFalse:
  case TokKind::LParen:
  case TokKind::Minus:
  case TokKind::Bang:
    return true;
  default:
    return false;
  }
}

/// The contents of a string literal token, with `\"` and `\\` resolved.
std::string unescape(StringRef lit) {
  lit = lit.drop_front().drop_back();
  std::string out;
  for (size_t i = 0; i < lit.size(); ++i) {
    if (lit[i] == '\\' && i + 1 < lit.size())
      ++i;
    out += lit[i];
  }
  return out;
}

class Parser {
public:
  Parser(unsigned bufferId, DiagnosticEngine &diags)
      : lexer(bufferId, diags), diags(diags), bufferId(bufferId) {
    SMLoc bufStart = SMLoc::getFromPointer(
        diags.getSourceMgr().getMemoryBuffer(bufferId)->getBufferStart());
    prevTok.range = SMRange(bufStart, bufStart);
    tok = lexer.lex();
  }

  std::unique_ptr<Module> parseModule();

private:
  //===--- Tokens ---------------------------------------------------------===//

  void consume() {
    prevTok = tok;
    tok = ahead ? *ahead : lexer.lex();
    ahead.reset();
    ++tokIndex;
  }
  const Token &peek() {
    if (!ahead)
      ahead = lexer.lex();
    return *ahead;
  }
  bool consumeIf(TokKind kind) {
    if (tok.isNot(kind))
      return false;
    consume();
    return true;
  }
  SMLoc prevEnd() const { return prevTok.endLoc(); }
  SMRange rangeFrom(SMLoc start) const { return SMRange(start, prevEnd()); }
  /// Whether a line break separates the previous token from the current one.
  bool atNewLine() const {
    const char *from = prevEnd().getPointer(), *to = tok.loc().getPointer();
    return from <= to && StringRef(from, to - from).contains('\n');
  }

  //===--- Diagnostics ----------------------------------------------------===//

  /// Reports an error unless the current token already has one (ours or
  /// the lexer's). Always returns false, for `return error(...)`.
  bool error(SMLoc loc, const Twine &msg, SMRange range = SMRange()) {
    bool lexerReported = tok.is(TokKind::Error) || prevTok.is(TokKind::Error);
    // After recovery skipped to the end, whatever is missing there is no
    // news (a truncated file is one mistake).
    bool afterSkip = tok.is(TokKind::Eof) && skippedToEof;
    if (tokIndex != lastErrorTok && !lexerReported && !afterSkip) {
      if (range.isValid())
        diags.error(loc, msg, {range});
      else
        diags.error(loc, msg);
    }
    lastErrorTok = tokIndex;
    if (diags.tooManyErrors())
      aborted = true;
    return false;
  }
  bool errorHere(const Twine &msg) { return error(tok.loc(), msg); }
  bool expect(TokKind kind, const Twine &msg) {
    return consumeIf(kind) || errorHere(msg);
  }
  bool expect(TokKind kind) {
    return expect(kind, "expected " + tokKindName(kind));
  }
  /// Consumes an identifier, else reports "expected <what>".
  bool expectIdent(std::string &name, SMRange &range, const char *what) {
    if (tok.isNot(TokKind::Ident))
      return errorHere(Twine("expected ") + what);
    name = tok.spelling.str();
    range = tok.range;
    consume();
    return true;
  }
  /// A ';' missing at the end of a line is reported and then assumed, so the
  /// next line still parses; elsewhere the statement is abandoned.
  bool expectSemi(const char *what = "statement") {
    if (consumeIf(TokKind::Semi))
      return true;
    error(prevEnd(), Twine("expected ';' after ") + what);
    return atNewLine();
  }

  /// Count one level of statement or expression nesting (restored by the
  /// caller's DepthScope). Past the limit, report once and abandon the
  /// current declaration.
  bool enterStmt() { return enter(stmtDepth, "statements nested too deeply"); }
  bool enterExpr() { return enter(exprDepth, "expression nested too deeply"); }
  bool enter(unsigned &depth, const char *msg) {
    if (++depth <= kMaxNesting)
      return true;
    if (!aborted)
      errorHere(msg);
    aborted = true;
    return false;
  }
  struct DepthScope {
    Parser &p;
    unsigned stmt, expr;
    explicit DepthScope(Parser &p)
        : p(p), stmt(p.stmtDepth), expr(p.exprDepth) {}
    ~DepthScope() {
      p.stmtDepth = stmt;
      p.exprDepth = expr;
    }
  };

  //===--- Recovery -------------------------------------------------------===//

  void skipToDecl() {
    while (tok.isNot(TokKind::Eof) && !isDeclStart(tok.kind))
      consume();
  }
  void noteSkipEnd() { skippedToEof = tok.is(TokKind::Eof); }
  /// Skips a balanced `{ ... }` starting at the current '{'.
  void skipBraces() {
    unsigned open = 0;
    do {
      if (tok.is(TokKind::Eof) || isDeclStart(tok.kind))
        return noteSkipEnd();
      if (tok.is(TokKind::LBrace))
        ++open;
      else if (tok.is(TokKind::RBrace))
        --open;
      consume();
    } while (open);
  }
  /// Skips the rest of a broken statement: through the next ';', or up to
  /// the '}' closing the enclosing block. A '{' on the way is the body of
  /// the broken statement (for, if, parallel): it is skipped whole, with
  /// any `else` branches.
  void skipStmt() {
    while (true) {
      switch (tok.kind) {
      case TokKind::Eof:
      case TokKind::RBrace:
      case TokKind::KwKernel:
      case TokKind::KwTile:
      case TokKind::KwImport:
        return noteSkipEnd();
      case TokKind::Semi:
        consume();
        return;
      case TokKind::LBrace:
        skipBraces();
        // The broken statement may be an `if` with `else` branches.
        if (!consumeIf(TokKind::KwElse))
          return;
        break;
      default:
        consume();
      }
    }
  }

  //===--- Declarations ---------------------------------------------------===//

  DeclPtr parseImport();
  DeclPtr parseKernel();
  DeclPtr parseFn();
  bool parseParams(std::vector<ParamDecl> &params);
  bool parseArgs(std::vector<ArgDecl> &args, bool inFn);
  bool parseArg(ArgDecl &arg, bool inFn);
  bool parseType(TypeExpr &type);
  bool parseIdentList(std::vector<std::string> &names,
                      std::vector<SMRange> &ranges, const char *what);

  //===--- Statements -----------------------------------------------------===//

  std::unique_ptr<BlockStmt> parseBlock();
  StmtPtr parseStmt();
  StmtPtr parseAlloc();
  StmtPtr parseLet();
  StmtPtr parseFor();
  StmtPtr parseParallel();
  StmtPtr parseIf();
  StmtPtr parseReturn();
  StmtPtr parseExprStmt();

  //===--- Expressions ----------------------------------------------------===//

  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseIntLit();
  ExprPtr parseFloatLit();
  bool parseExprList(std::vector<ExprPtr> &out, TokKind close);
  bool parseCallArgs(std::vector<ExprPtr> &args,
                     std::vector<KeywordArg> &kwargs);

  Lexer lexer;
  DiagnosticEngine &diags;
  unsigned bufferId;
  Token tok;                  // the current token
  Token prevTok;              // the last consumed one, for end locations
  std::optional<Token> ahead; // one token of lookahead, lexed on demand
  unsigned tokIndex = 0;      // position of `tok` in the token stream
  unsigned lastErrorTok = ~0u;
  unsigned stmtDepth = 0, exprDepth = 0;
  bool aborted = false;      // nesting or error limit hit: abandon the decl
  bool skippedToEof = false; // error recovery ran into the end of file
};

} // namespace

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  module->bufferId = bufferId;
  module->fileName = diags.getSourceMgr()
                         .getMemoryBuffer(bufferId)
                         ->getBufferIdentifier()
                         .str();
  while (tok.isNot(TokKind::Eof) && !diags.tooManyErrors()) {
    DeclPtr decl;
    switch (tok.kind) {
    case TokKind::KwImport:
      decl = parseImport();
      break;
    case TokKind::KwKernel:
      decl = parseKernel();
      break;
    case TokKind::KwTile:
      decl = parseFn();
      break;
    default:
      error(tok.loc(), "expected 'kernel', 'tile fn' or 'import' at top level",
            tok.range);
      consume();
    }
    if (decl) {
      module->decls.push_back(std::move(decl));
      continue;
    }
    aborted = false;
    stmtDepth = exprDepth = 0;
    skipToDecl();
  }
  return module;
}

DeclPtr Parser::parseImport() {
  SMLoc start = tok.loc();
  consume();
  if (tok.isNot(TokKind::StringLit)) {
    errorHere("expected a file name string after 'import'");
    return nullptr;
  }
  auto decl = std::make_unique<ImportDecl>(SMRange());
  decl->path = unescape(tok.spelling);
  consume();
  if (!expectSemi("import"))
    return nullptr;
  decl->range = rangeFrom(start);
  return decl;
}

DeclPtr Parser::parseKernel() {
  SMLoc start = tok.loc();
  consume();
  auto k = std::make_unique<KernelDecl>(SMRange());
  if (!expectIdent(k->name, k->nameRange, "kernel name"))
    return nullptr;
  if (tok.is(TokKind::Less) && !parseParams(k->params))
    return nullptr;
  if (!expect(TokKind::LParen) || !parseArgs(k->args, /*inFn=*/false))
    return nullptr;

  if (tok.isNot(TokKind::KwGrid)) {
    errorHere("expected 'grid(...)' after kernel arguments");
    return nullptr;
  }
  consume();
  if (!expect(TokKind::LParen) || !parseExprList(k->grid, TokKind::RParen))
    return nullptr;
  if (consumeIf(TokKind::KwAs) &&
      !parseIdentList(k->blockVars, k->blockVarRanges, "block index name"))
    return nullptr;
  if (consumeIf(TokKind::KwThreads)) {
    if (!expect(TokKind::LParen) || !(k->threads = parseExpr()) ||
        !expect(TokKind::RParen))
      return nullptr;
  }
  if (!(k->body = parseBlock()))
    return nullptr;
  k->range = rangeFrom(start);
  return k;
}

DeclPtr Parser::parseFn() {
  SMLoc start = tok.loc();
  consume();
  auto fn = std::make_unique<FnDecl>(SMRange());
  if (!expect(TokKind::KwFn, "expected 'fn' after 'tile'") ||
      !expectIdent(fn->name, fn->nameRange, "function name"))
    return nullptr;
  if (tok.is(TokKind::Less) && !parseParams(fn->params))
    return nullptr;
  if (!expect(TokKind::LParen) || !parseArgs(fn->args, /*inFn=*/true))
    return nullptr;
  if (consumeIf(TokKind::Arrow)) {
    TypeExpr type;
    if (!parseType(type))
      return nullptr;
    fn->returnType = std::move(type);
  }
  if (!(fn->body = parseBlock()))
    return nullptr;
  fn->range = rangeFrom(start);
  return fn;
}

bool Parser::parseParams(std::vector<ParamDecl> &params) {
  consume(); // '<'
  while (true) {
    ParamDecl param;
    SMLoc start = tok.loc();
    if (!expectIdent(param.name, param.range, "parameter name"))
      return false;
    if (consumeIf(TokKind::Colon)) {
      if (!expect(TokKind::KwDtype, "expected 'dtype' after ':' in parameter"))
        return false;
      param.isDType = true;
    }
    if (consumeIf(TokKind::Assign)) {
      if (param.isDType) {
        if (!expectIdent(param.defaultDType, param.defaultRange, "dtype name"))
          return false;
      } else {
        // Additive level: a comparison would swallow the closing '>'.
        if (!(param.defaultValue = parseBinary(kAddPrec)))
          return false;
        param.defaultRange = param.defaultValue->range;
      }
    }
    param.range = rangeFrom(start);
    params.push_back(std::move(param));
    if (!consumeIf(TokKind::Comma) || tok.is(TokKind::Greater))
      break;
  }
  return expect(TokKind::Greater);
}

/// Parses arguments up to and including the ')'.
bool Parser::parseArgs(std::vector<ArgDecl> &args, bool inFn) {
  if (consumeIf(TokKind::RParen))
    return true;
  while (true) {
    ArgDecl arg;
    if (!parseArg(arg, inFn))
      return false;
    args.push_back(std::move(arg));
    if (!consumeIf(TokKind::Comma) || tok.is(TokKind::RParen))
      break;
  }
  return expect(TokKind::RParen);
}

bool Parser::parseArg(ArgDecl &arg, bool inFn) {
  SMLoc start = tok.loc();
  if (consumeIf(TokKind::KwOut))
    arg.qualifier = ArgQualifier::Out;
  else if (consumeIf(TokKind::KwInout))
    arg.qualifier = ArgQualifier::InOut;
  if (!expectIdent(arg.name, arg.range, "argument name") ||
      !expect(TokKind::Colon, "expected ':' after argument name"))
    return false;
  if (std::optional<MemScope> scope = scopeKeyword(tok.kind)) {
    // Kernel arguments are global tensors; report and parse on.
    if (!inFn)
      error(tok.loc(), "memory scope is only allowed on 'tile fn' arguments",
            tok.range);
    arg.scope = scope;
    consume();
  }
  if (!parseType(arg.type))
    return false;
  arg.range = rangeFrom(start);
  return true;
}

bool Parser::parseType(TypeExpr &type) {
  if (!expectIdent(type.elemName, type.elemRange, "type"))
    return false;
  if (consumeIf(TokKind::LBracket)) {
    type.hasShape = true;
    if (!parseExprList(type.dims, TokKind::RBracket))
      return false;
  }
  type.range = rangeFrom(type.elemRange.Start);
  return true;
}

/// `( IDENT (',' IDENT)* )`
bool Parser::parseIdentList(std::vector<std::string> &names,
                            std::vector<SMRange> &ranges, const char *what) {
  if (!expect(TokKind::LParen))
    return false;
  do {
    if (!expectIdent(names.emplace_back(), ranges.emplace_back(), what))
      return false;
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RParen);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

std::unique_ptr<BlockStmt> Parser::parseBlock() {
  DepthScope scope(*this);
  if (!enterStmt())
    return nullptr;
  SMLoc start = tok.loc();
  if (!expect(TokKind::LBrace))
    return nullptr;
  auto block = std::make_unique<BlockStmt>(SMRange());
  while (tok.isNot(TokKind::RBrace)) {
    // The next declaration (or the end) means this block lacks its '}'.
    if (tok.is(TokKind::Eof) || isDeclStart(tok.kind)) {
      errorHere("expected '}'");
      return nullptr;
    }
    if (StmtPtr stmt = parseStmt())
      block->stmts.push_back(std::move(stmt));
    else if (aborted)
      return nullptr;
    else
      skipStmt();
    if (diags.tooManyErrors())
      return nullptr;
  }
  consume();
  block->range = rangeFrom(start);
  return block;
}

StmtPtr Parser::parseStmt() {
  switch (tok.kind) {
  case TokKind::KwShared:
  case TokKind::KwFragment:
  case TokKind::KwLocal:
    return parseAlloc();
  case TokKind::KwLet:
  case TokKind::KwVar:
    return parseLet();
  case TokKind::KwFor:
    return parseFor();
  case TokKind::KwParallel:
    return parseParallel();
  case TokKind::KwIf:
    return parseIf();
  case TokKind::KwReturn:
    return parseReturn();
  case TokKind::LBrace:
    return parseBlock();
  default:
    return parseExprStmt();
  }
}

StmtPtr Parser::parseAlloc() {
  SMLoc start = tok.loc();
  auto alloc = std::make_unique<AllocStmt>(SMRange(), *scopeKeyword(tok.kind));
  consume();
  if (!expectIdent(alloc->name, alloc->nameRange, "tile name") ||
      !expect(TokKind::Colon, "expected ':' after tile name") ||
      !parseType(alloc->type) || !expectSemi())
    return nullptr;
  alloc->range = rangeFrom(start);
  return alloc;
}

StmtPtr Parser::parseLet() {
  SMLoc start = tok.loc();
  auto let = std::make_unique<LetStmt>(SMRange(), tok.is(TokKind::KwVar));
  consume();
  if (!expectIdent(let->name, let->nameRange, "variable name"))
    return nullptr;
  if (consumeIf(TokKind::Colon)) {
    TypeExpr type;
    if (!parseType(type))
      return nullptr;
    let->type = std::move(type);
  }
  if (consumeIf(TokKind::Assign) && !(let->init = parseExpr()))
    return nullptr;
  if (!expectSemi())
    return nullptr;
  let->range = rangeFrom(start);
  return let;
}

StmtPtr Parser::parseFor() {
  SMLoc start = tok.loc();
  consume();
  std::string var;
  SMRange varRange;
  if (!expectIdent(var, varRange, "loop variable name") ||
      !expect(TokKind::KwIn, "expected 'in' after loop variable"))
    return nullptr;
  const char *iterMsg = "expected 'range(...)' or 'pipelined(...)'";
  if (tok.isNot(TokKind::Ident)) {
    errorHere(iterMsg);
    return nullptr;
  }
  LoopKind kind = LoopKind::Range;
  if (tok.spelling == "pipelined")
    kind = LoopKind::Pipelined;
  else if (tok.spelling != "range") {
    error(tok.loc(), iterMsg, tok.range);
    if (peek().isNot(TokKind::LParen)) // else the rest still parses
      return nullptr;
  }
  auto loop = std::make_unique<ForStmt>(SMRange(), kind);
  loop->var = std::move(var);
  loop->varRange = varRange;
  SMLoc iterStart = tok.loc();
  consume();
  if (!expect(TokKind::LParen) || !parseCallArgs(loop->args, loop->kwargs))
    return nullptr;
  loop->iterRange = rangeFrom(iterStart);
  if (!(loop->body = parseBlock()))
    return nullptr;
  loop->range = rangeFrom(start);
  return loop;
}

StmtPtr Parser::parseParallel() {
  SMLoc start = tok.loc();
  consume();
  auto par = std::make_unique<ParallelStmt>(SMRange());
  if (!parseIdentList(par->vars, par->varRanges, "index name") ||
      !expect(TokKind::KwIn, "expected 'in' after parallel indices"))
    return nullptr;
  if (consumeIf(TokKind::LBracket)) {
    if (!parseExprList(par->domainShape, TokKind::RBracket))
      return nullptr;
  } else if (!(par->domainTile = parsePostfix())) {
    return nullptr;
  }
  if (!(par->body = parseBlock()))
    return nullptr;
  par->range = rangeFrom(start);
  return par;
}

StmtPtr Parser::parseIf() {
  DepthScope scope(*this); // `else if` chains nest
  if (!enterStmt())
    return nullptr;
  SMLoc start = tok.loc();
  consume();
  auto ifStmt = std::make_unique<IfStmt>(SMRange());
  if (!(ifStmt->cond = parseExpr()) || !(ifStmt->thenBody = parseBlock()))
    return nullptr;
  if (consumeIf(TokKind::KwElse)) {
    ifStmt->elseBody =
        tok.is(TokKind::KwIf) ? parseIf() : StmtPtr(parseBlock());
    if (!ifStmt->elseBody)
      return nullptr;
  }
  ifStmt->range = rangeFrom(start);
  return ifStmt;
}

StmtPtr Parser::parseReturn() {
  SMLoc start = tok.loc();
  consume();
  auto ret = std::make_unique<ReturnStmt>(SMRange());
  if (tok.isNot(TokKind::Semi) && tok.isNot(TokKind::RBrace) &&
      !(ret->value = parseExpr()))
    return nullptr;
  if (!expectSemi())
    return nullptr;
  ret->range = rangeFrom(start);
  return ret;
}

StmtPtr Parser::parseExprStmt() {
  if (!startsExpr(tok.kind)) {
    error(tok.loc(), "unexpected token '" + tok.spelling + "'", tok.range);
    return nullptr;
  }
  SMLoc start = tok.loc();
  ExprPtr expr = parseExpr();
  if (!expr)
    return nullptr;
  std::optional<AssignOp> op = assignOp(tok.kind);
  if (!op) {
    if (!expectSemi())
      return nullptr;
    return std::make_unique<ExprStmt>(rangeFrom(start), std::move(expr));
  }
  // Reported, but the statement is kept: its shape is fine.
  if (expr->kind != ExprKind::Name && expr->kind != ExprKind::Index)
    error(expr->loc(), "invalid assignment target", expr->range);
  consume();
  ExprPtr value = parseExpr();
  if (!value || !expectSemi())
    return nullptr;
  return std::make_unique<AssignStmt>(rangeFrom(start), std::move(expr), *op,
                                      std::move(value));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseExpr() {
  DepthScope scope(*this);
  if (!enterExpr())
    return nullptr;
  ExprPtr cond = parseBinary(kOrPrec);
  if (!cond || !consumeIf(TokKind::Question))
    return cond;
  ExprPtr trueValue = parseExpr();
  if (!trueValue ||
      !expect(TokKind::Colon, "expected ':' in conditional expression"))
    return nullptr;
  ExprPtr falseValue = parseExpr(); // right-associative
  if (!falseValue)
    return nullptr;
  SMRange range(cond->range.Start, falseValue->range.End);
  return std::make_unique<TernaryExpr>(
      range, std::move(cond), std::move(trueValue), std::move(falseValue));
}

/// Precedence climbing over the left-associative binary operators.
ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseUnary();
  if (!lhs)
    return nullptr;
  DepthScope scope(*this);
  while (true) {
    auto [op, prec] = binaryOp(tok.kind);
    if (prec == kNoPrec || prec < minPrec)
      return lhs;
    // Each operator deepens the tree: `a+a+...+a` counts like nesting.
    if (!enterExpr())
      return nullptr;
    consume();
    ExprPtr rhs = parseBinary(prec + 1);
    if (!rhs)
      return nullptr;
    SMRange range(lhs->range.Start, rhs->range.End);
    lhs =
        std::make_unique<BinaryExpr>(range, op, std::move(lhs), std::move(rhs));
  }
}

ExprPtr Parser::parseUnary() {
  if (tok.isNot(TokKind::Minus) && tok.isNot(TokKind::Bang))
    return parsePostfix();
  DepthScope scope(*this);
  if (!enterExpr())
    return nullptr;
  SMLoc start = tok.loc();
  UnaryOp op = tok.is(TokKind::Minus) ? UnaryOp::Neg : UnaryOp::Not;
  consume();
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryExpr>(SMRange(start, operand->range.End), op,
                                     std::move(operand));
}

ExprPtr Parser::parsePostfix() {
  ExprPtr expr = parsePrimary();
  if (!expr)
    return nullptr;
  DepthScope scope(*this);
  while (consumeIf(TokKind::LBracket)) {
    if (!enterExpr())
      return nullptr;
    auto index = std::make_unique<IndexExpr>(SMRange(), std::move(expr));
    if (!parseExprList(index->indices, TokKind::RBracket))
      return nullptr;
    index->range = rangeFrom(index->base->range.Start);
    expr = std::move(index);
  }
  return expr;
}

ExprPtr Parser::parsePrimary() {
  switch (tok.kind) {
  case TokKind::IntLit:
    return parseIntLit();
  case TokKind::FloatLit:
    return parseFloatLit();
  case TokKind::KwTrue:
  case TokKind::KwFalse: {
    auto lit =
        std::make_unique<BoolLitExpr>(tok.range, tok.is(TokKind::KwTrue));
    consume();
    return lit;
  }
  case TokKind::Ident: {
    SMRange nameRange = tok.range;
    std::string name = tok.spelling.str();
    consume();
    if (!consumeIf(TokKind::LParen))
      return std::make_unique<NameExpr>(nameRange, std::move(name));
    auto call =
        std::make_unique<CallExpr>(SMRange(), std::move(name), nameRange);
    if (!parseCallArgs(call->args, call->kwargs))
      return nullptr;
    call->range = rangeFrom(nameRange.Start);
    return call;
  }
  case TokKind::LParen: {
    SMLoc start = tok.loc();
    consume();
    ExprPtr inner = parseExpr();
    if (!inner || !expect(TokKind::RParen))
      return nullptr;
    inner->range = rangeFrom(start); // the parentheses belong to the operand
    return inner;
  }
  default:
    errorHere("expected expression");
    return nullptr;
  }
}

ExprPtr Parser::parseIntLit() {
  StringRef text = tok.spelling;
  uint64_t value = 0;
  bool bad = text.starts_with_insensitive("0x")
                 ? text.drop_front(2).getAsInteger(16, value)
                 : text.getAsInteger(10, value);
  if (bad || value > uint64_t(INT64_MAX)) {
    error(tok.loc(), "integer literal is too large", tok.range);
    value = 0;
  }
  auto lit = std::make_unique<IntLitExpr>(tok.range, int64_t(value));
  consume();
  return lit;
}

ExprPtr Parser::parseFloatLit() {
  double value = std::strtod(tok.spelling.str().c_str(), nullptr);
  if (std::isinf(value)) {
    error(tok.loc(), "floating-point literal is too large", tok.range);
    value = 0;
  }
  auto lit = std::make_unique<FloatLitExpr>(tok.range, value);
  consume();
  return lit;
}

/// `expr (',' expr)* close`, the opening token already consumed.
bool Parser::parseExprList(std::vector<ExprPtr> &out, TokKind close) {
  do {
    ExprPtr expr = parseExpr();
    if (!expr)
      return false;
    out.push_back(std::move(expr));
  } while (consumeIf(TokKind::Comma));
  return expect(close);
}

/// Call arguments after the '(', through the ')'.
bool Parser::parseCallArgs(std::vector<ExprPtr> &args,
                           std::vector<KeywordArg> &kwargs) {
  if (consumeIf(TokKind::RParen))
    return true;
  while (true) {
    if (tok.is(TokKind::Ident) && peek().is(TokKind::Assign)) {
      KeywordArg kwarg;
      kwarg.name = tok.spelling.str();
      kwarg.nameRange = tok.range;
      consume();
      consume();
      if (!(kwarg.value = parseExpr()))
        return false;
      kwargs.push_back(std::move(kwarg));
    } else {
      // The AST keeps positional and keyword arguments apart, so their
      // relative order would be lost.
      if (!kwargs.empty())
        error(tok.loc(), "positional argument after keyword argument");
      ExprPtr arg = parseExpr();
      if (!arg)
        return false;
      args.push_back(std::move(arg));
    }
    if (!consumeIf(TokKind::Comma) || tok.is(TokKind::RParen))
      break;
  }
  return expect(TokKind::RParen);
}

std::unique_ptr<Module> tlc::parseModule(unsigned bufferId,
                                         DiagnosticEngine &diags) {
  return Parser(bufferId, diags).parseModule();
}
