//===- Lexer.h - Tokens and the hand-written lexer -------------*- C++ -*-===//
//
// The lexer works on one SourceMgr buffer and never stops early: malformed
// input (bad bytes, unterminated strings or comments) is reported once and
// turned into an Error token, so the parser can stay quiet about it.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_FRONTEND_LEXER_H
#define TLC_FRONTEND_LEXER_H

#include "tlc/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace tlc {

enum class TokKind {
  Eof,
  Error, // malformed input, already diagnosed by the lexer
  Ident,
  IntLit,
  FloatLit,
  StringLit,
  // Keywords.
  KwKernel,
  KwOperation,
  KwTile,
  KwFn,
  KwImport,
  KwGrid,
  KwAs,
  KwThreads,
  KwLet,
  KwVar,
  KwFor,
  KwIn,
  KwParallel,
  KwIf,
  KwElse,
  KwReturn,
  KwShared,
  KwFragment,
  KwLocal,
  KwOut,
  KwInout,
  KwTrue,
  KwFalse,
  KwDtype,
  // Punctuation and operators.
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Semi,
  Colon,
  Question,
  Arrow, // ->
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Bang,
  Assign, // =
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  AmpAmp,
  PipePipe,
  Amp,            // &
  Pipe,           // |
  Caret,          // ^
  Tilde,          // ~
  LessLess,       // <<
  GreaterGreater, // >>
};

/// How a token kind is named in diagnostics: `';'`, `identifier`, ...
llvm::StringRef tokKindName(TokKind kind);

struct Token {
  TokKind kind = TokKind::Eof;
  llvm::StringRef spelling; // the exact source text
  llvm::SMRange range;      // [first char, one past the last char)

  bool is(TokKind k) const { return kind == k; }
  bool isNot(TokKind k) const { return kind != k; }
  llvm::SMLoc loc() const { return range.Start; }
  llvm::SMLoc endLoc() const { return range.End; }
};

class Lexer {
public:
  /// Lexes buffer `bufferId` of `diags`' SourceMgr.
  Lexer(unsigned bufferId, DiagnosticEngine &diags);

  /// Returns the next token; at the end of the buffer, Eof forever.
  Token lex();

private:
  Token make(TokKind kind, const char *start);
  Token lexError(const char *start, const llvm::Twine &msg);
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  Token lexString(const char *start);
  /// Skips whitespace and comments. Returns the start of an unterminated
  /// block comment (leaving `cur` at the end of the buffer), else null.
  const char *skipTrivia();
  /// Whether a token may start at `p` (false for bytes the language lacks).
  bool startsToken(const char *p) const;

  DiagnosticEngine &diags;
  const char *cur, *bufEnd;
};

} // namespace tlc

#endif // TLC_FRONTEND_LEXER_H
