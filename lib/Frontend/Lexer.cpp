//===- Lexer.cpp - Hand-written lexer for .tl files -----------------------===//
#include "tlc/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>

using namespace tlc;

// clang-format off
llvm::StringRef tlc::tokKindName(TokKind kind) {
  switch (kind) {
  case TokKind::Eof: return "end of file";
  case TokKind::Error: return "invalid token";
  case TokKind::Ident: return "identifier";
  case TokKind::IntLit: return "integer literal";
  case TokKind::FloatLit: return "floating-point literal";
  case TokKind::StringLit: return "string literal";
  case TokKind::KwKernel: return "'kernel'";
  case TokKind::KwOperation: return "'operation'";
  case TokKind::KwTile: return "'tile'";
  case TokKind::KwFn: return "'fn'";
  case TokKind::KwImport: return "'import'";
  case TokKind::KwGrid: return "'grid'";
  case TokKind::KwAs: return "'as'";
  case TokKind::KwThreads: return "'threads'";
  case TokKind::KwLet: return "'let'";
  case TokKind::KwVar: return "'var'";
  case TokKind::KwFor: return "'for'";
  case TokKind::KwIn: return "'in'";
  case TokKind::KwParallel: return "'parallel'";
  case TokKind::KwIf: return "'if'";
  case TokKind::KwElse: return "'else'";
  case TokKind::KwReturn: return "'return'";
  case TokKind::KwShared: return "'shared'";
  case TokKind::KwFragment: return "'fragment'";
  case TokKind::KwLocal: return "'local'";
  case TokKind::KwOut: return "'out'";
  case TokKind::KwInout: return "'inout'";
  case TokKind::KwTrue: return "'true'";
  case TokKind::KwFalse: return "'false'";
  case TokKind::KwDtype: return "'dtype'";
  case TokKind::LParen: return "'('";
  case TokKind::RParen: return "')'";
  case TokKind::LBracket: return "'['";
  case TokKind::RBracket: return "']'";
  case TokKind::LBrace: return "'{'";
  case TokKind::RBrace: return "'}'";
  case TokKind::Comma: return "','";
  case TokKind::Semi: return "';'";
  case TokKind::Colon: return "':'";
  case TokKind::Question: return "'?'";
  case TokKind::Arrow: return "'->'";
  case TokKind::Plus: return "'+'";
  case TokKind::Minus: return "'-'";
  case TokKind::Star: return "'*'";
  case TokKind::Slash: return "'/'";
  case TokKind::Percent: return "'%'";
  case TokKind::Bang: return "'!'";
  case TokKind::Assign: return "'='";
  case TokKind::PlusAssign: return "'+='";
  case TokKind::MinusAssign: return "'-='";
  case TokKind::StarAssign: return "'*='";
  case TokKind::SlashAssign: return "'/='";
  case TokKind::EqEq: return "'=='";
  case TokKind::NotEq: return "'!='";
  case TokKind::Less: return "'<'";
  case TokKind::LessEq: return "'<='";
  case TokKind::Greater: return "'>'";
  case TokKind::GreaterEq: return "'>='";
  case TokKind::AmpAmp: return "'&&'";
  case TokKind::PipePipe: return "'||'";
  case TokKind::Amp: return "'&'";
  case TokKind::Pipe: return "'|'";
  case TokKind::Caret: return "'^'";
  case TokKind::Tilde: return "'~'";
  case TokKind::LessLess: return "'<<'";
  case TokKind::GreaterGreater: return "'>>'";
  }
  return "token";
}
// clang-format on

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
static bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

Lexer::Lexer(unsigned bufferId, DiagnosticEngine &diags) : diags(diags) {
  const llvm::MemoryBuffer *buf =
      diags.getSourceMgr().getMemoryBuffer(bufferId);
  cur = buf->getBufferStart();
  bufEnd = buf->getBufferEnd();
}

Token Lexer::make(TokKind kind, const char *start) {
  Token tok;
  tok.kind = kind;
  tok.spelling = llvm::StringRef(start, cur - start);
  tok.range = llvm::SMRange(llvm::SMLoc::getFromPointer(start),
                            llvm::SMLoc::getFromPointer(cur));
  return tok;
}

Token Lexer::lexError(const char *start, const llvm::Twine &msg) {
  Token tok = make(TokKind::Error, start);
  diags.error(tok.range, msg);
  return tok;
}

bool Lexer::startsToken(const char *p) const {
  char c = *p;
  if (isIdentStart(c) || isDigit(c) || isSpace(c) ||
      llvm::StringRef("\"()[]{},;:?+-*/%!=<>&|^~").contains(c))
    return true;
  return false; // (NUL before the end is no EOF)
}

const char *Lexer::skipTrivia() {
  while (cur < bufEnd) {
    if (isSpace(*cur)) {
      ++cur;
    } else if (*cur == '/' && cur + 1 < bufEnd && cur[1] == '/') {
      while (cur < bufEnd && *cur != '\n')
        ++cur;
    } else if (*cur == '/' && cur + 1 < bufEnd && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur + 1 < bufEnd && !(cur[0] == '*' && cur[1] == '/'))
        ++cur;
      if (cur + 1 >= bufEnd) {
        cur = bufEnd;
        return start;
      }
      cur += 2;
    } else {
      break;
    }
  }
  return nullptr;
}

Token Lexer::lex() {
  if (const char *comment = skipTrivia()) {
    // Point at the opening `/*` only: the range runs to the end of the file.
    diags.error(llvm::SMLoc::getFromPointer(comment),
                "unterminated block comment");
    return make(TokKind::Error, comment);
  }
  const char *start = cur;
  if (cur >= bufEnd)
    return make(TokKind::Eof, start);

  if (!startsToken(cur)) {
    // One diagnostic for a whole run of bad bytes (e.g. a UTF-8 sequence).
    unsigned char c = *cur;
    while (cur < bufEnd && !startsToken(cur))
      ++cur;
    char hex[8];
    snprintf(hex, sizeof(hex), "0x%02x", unsigned(c));
    if (c >= 0x20 && c < 0x7f)
      return lexError(start, "invalid character '" + llvm::Twine(char(c)) +
                                 "' (" + hex + ")");
    return lexError(start, "invalid character " + llvm::Twine(hex));
  }

  char c = *cur++;
  if (isIdentStart(c))
    return lexIdentifier(start);
  if (isDigit(c))
    return lexNumber(start);

  auto next = [&](char expected) {
    if (cur < bufEnd && *cur == expected) {
      ++cur;
      return true;
    }
    return false;
  };
  // clang-format off
  switch (c) {
  case '"': return lexString(start);
  case '(': return make(TokKind::LParen, start);
  case ')': return make(TokKind::RParen, start);
  case '[': return make(TokKind::LBracket, start);
  case ']': return make(TokKind::RBracket, start);
  case '{': return make(TokKind::LBrace, start);
  case '}': return make(TokKind::RBrace, start);
  case ',': return make(TokKind::Comma, start);
  case ';': return make(TokKind::Semi, start);
  case ':': return make(TokKind::Colon, start);
  case '?': return make(TokKind::Question, start);
  case '%': return make(TokKind::Percent, start);
  case '+': return make(next('=') ? TokKind::PlusAssign : TokKind::Plus, start);
  case '-':
    if (next('>'))
      return make(TokKind::Arrow, start);
    return make(next('=') ? TokKind::MinusAssign : TokKind::Minus, start);
  case '*': return make(next('=') ? TokKind::StarAssign : TokKind::Star, start);
  case '/':
    return make(next('=') ? TokKind::SlashAssign : TokKind::Slash, start);
  case '!': return make(next('=') ? TokKind::NotEq : TokKind::Bang, start);
  case '=': return make(next('=') ? TokKind::EqEq : TokKind::Assign, start);
  case '<':
    if (next('<'))
      return make(TokKind::LessLess, start);
    return make(next('=') ? TokKind::LessEq : TokKind::Less, start);
  case '>':
    if (next('>'))
      return make(TokKind::GreaterGreater, start);
    return make(next('=') ? TokKind::GreaterEq : TokKind::Greater, start);
  case '&': return make(next('&') ? TokKind::AmpAmp : TokKind::Amp, start);
  case '|': return make(next('|') ? TokKind::PipePipe : TokKind::Pipe, start);
  case '^': return make(TokKind::Caret, start);
  case '~': return make(TokKind::Tilde, start);
  }
  // clang-format on
  llvm_unreachable("startsToken admitted a character lex() does not handle");
}

Token Lexer::lexIdentifier(const char *start) {
  while (cur < bufEnd && isIdentChar(*cur))
    ++cur;
  TokKind kind =
      llvm::StringSwitch<TokKind>(llvm::StringRef(start, cur - start))
          .Case("kernel", TokKind::KwKernel)
          .Case("operation", TokKind::KwOperation)
          .Case("tile", TokKind::KwTile)
          .Case("fn", TokKind::KwFn)
          .Case("import", TokKind::KwImport)
          .Case("grid", TokKind::KwGrid)
          .Case("as", TokKind::KwAs)
          .Case("threads", TokKind::KwThreads)
          .Case("let", TokKind::KwLet)
          .Case("var", TokKind::KwVar)
          .Case("for", TokKind::KwFor)
          .Case("in", TokKind::KwIn)
          .Case("parallel", TokKind::KwParallel)
          .Case("if", TokKind::KwIf)
          .Case("else", TokKind::KwElse)
          .Case("return", TokKind::KwReturn)
          .Case("shared", TokKind::KwShared)
          .Case("fragment", TokKind::KwFragment)
          .Case("local", TokKind::KwLocal)
          .Case("out", TokKind::KwOut)
          .Case("inout", TokKind::KwInout)
          .Case("true", TokKind::KwTrue)
          .Case("false", TokKind::KwFalse)
          .Case("dtype", TokKind::KwDtype)
          .Default(TokKind::Ident);
  return make(kind, start);
}

Token Lexer::lexNumber(const char *start) {
  TokKind kind = TokKind::IntLit;
  if (*start == '0' && cur < bufEnd && (*cur == 'x' || *cur == 'X')) {
    ++cur;
    const char *digits = cur;
    while (cur < bufEnd && isHexDigit(*cur))
      ++cur;
    if (cur == digits)
      return lexError(start, "expected hexadecimal digits after '0x'");
  } else {
    while (cur < bufEnd && isDigit(*cur))
      ++cur;
    if (cur < bufEnd && *cur == '.') { // `2.` is a float too
      kind = TokKind::FloatLit;
      ++cur;
      while (cur < bufEnd && isDigit(*cur))
        ++cur;
    }
    if (cur < bufEnd && (*cur == 'e' || *cur == 'E')) {
      const char *p = cur + 1;
      if (p < bufEnd && (*p == '+' || *p == '-'))
        ++p;
      if (p < bufEnd && isDigit(*p)) {
        kind = TokKind::FloatLit;
        cur = p;
        while (cur < bufEnd && isDigit(*cur))
          ++cur;
      }
    }
  }
  // `12abc` or `3e`: one error for the whole thing, not a number then a name.
  if (cur < bufEnd && isIdentChar(*cur)) {
    const char *suffix = cur;
    while (cur < bufEnd && isIdentChar(*cur))
      ++cur;
    return lexError(start, "invalid suffix '" +
                               llvm::StringRef(suffix, cur - suffix) +
                               "' on numeric literal");
  }
  return make(kind, start);
}

Token Lexer::lexString(const char *start) {
  bool badEscape = false;
  while (cur < bufEnd && *cur != '"' && *cur != '\n') {
    if (*cur == '\\' && cur + 1 < bufEnd && cur[1] != '\n') {
      if (cur[1] != '"' && cur[1] != '\\' && !badEscape) {
        badEscape = true;
        diags.error(llvm::SMRange(llvm::SMLoc::getFromPointer(cur),
                                  llvm::SMLoc::getFromPointer(cur + 2)),
                    "invalid escape sequence in string literal");
      }
      ++cur;
    }
    ++cur;
  }
  if (cur >= bufEnd || *cur != '"')
    return lexError(start, "unterminated string literal");
  ++cur;
  // A string with a bad escape was reported: make the parser skip it.
  return make(badEscape ? TokKind::Error : TokKind::StringLit, start);
}
