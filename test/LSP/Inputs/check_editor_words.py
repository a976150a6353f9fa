"""check_editor_words.py SRC_ROOT: the VS Code extension (editors/vscode)
against the compiler: its JSON files parse, package.json names files that
exist, and the grammar's words cover the lexer's keywords, every dtype
parseDType knows and every tile op and math builtin Sema knows (read from
the sources, so a new word in the compiler fails this test until the
grammar has it). tlc-lsp's completion lists are checked the same way."""
import json
import os
import re
import sys

root = sys.argv[1]
ext = os.path.join(root, "editors", "vscode")
failures = []


def read(*parts):
    with open(os.path.join(root, *parts)) as f:
        return f.read()


package = json.loads(read("editors", "vscode", "package.json"))
json.loads(read("editors", "vscode", "language-configuration.json"))
grammar = json.loads(read("editors", "vscode", "syntaxes",
                          "tilelang.tmLanguage.json"))
for lang in package["contributes"]["languages"]:
    if not os.path.exists(os.path.join(ext, lang["configuration"])):
        failures.append("missing " + lang["configuration"])
for g in package["contributes"]["grammars"]:
    if not os.path.exists(os.path.join(ext, g["path"])):
        failures.append("missing " + g["path"])
    if g["scopeName"] != grammar["scopeName"]:
        failures.append("scope names differ")
if not os.path.exists(os.path.join(ext, package["main"])):
    failures.append("missing " + package["main"])

patterns = " ".join(r.get("match", "") for r in grammar["repository"].values())
grammar_words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", patterns))
lsp = read("tools", "tlc-lsp", "tlc-lsp.cpp")
lsp_words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', lsp))

lexer = read("lib", "Frontend", "Lexer.cpp")
keywords = set(re.findall(r'\.Case\("([a-z_]+)", TokKind::Kw', lexer))
keywords -= {"true", "false"}  # constants, highlighted as builtins
types = read("lib", "Frontend", "Types.cpp")
dtypes = set(re.findall(r'\.Case\("([a-z0-9]+)", DType::', types))
sema = read("lib", "Frontend", "SemaImpl.h")
tile_ops = set(re.findall(r'"([a-z_]+)"', sema[sema.index("tileOpKind"):
                                                sema.index("isUnaryMath")]))
math = set(re.findall(r'"([a-z0-9_]+)"', sema[sema.index("isUnaryMath"):
                                                sema.index("isUnaryMath") + 400]))

for kind, words in [("keyword", keywords), ("dtype", dtypes),
                    ("tile op", tile_ops), ("math builtin", math)]:
    if not words:
        failures.append("found no %s in the sources" % kind)
    for w in sorted(words - grammar_words):
        failures.append("the grammar lacks the %s '%s'" % (kind, w))
    for w in sorted(words - lsp_words):
        failures.append("tlc-lsp's completion lacks the %s '%s'" % (kind, w))

for f in failures:
    print("FAIL " + f)
print("PASS editor words: %d keywords, %d dtypes, %d tile ops, %d math"
      % (len(keywords), len(dtypes), len(tile_ops), len(math))
      if not failures else "FAILED")
sys.exit(1 if failures else 0)
